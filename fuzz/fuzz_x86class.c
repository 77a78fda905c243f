/* fuzz_x86class: the QEMU plugin's change-of-flow classifier
   (tools/qemu/x86class.h, SPEC.md 5.11) on arbitrary bytes.

   The input is a list of instructions, each a length byte (1..15) and that
   many bytes, classified at an IP drawn from the input. Oracles:
   - it reads nothing past the bytes it is given (each instruction is
     copied into a buffer of exactly its length, so ASan sees any
     over-read), and its class is one of the classes;
   - a segment-override prefix (2E, 3E: branch hints and CET's NOTRACK on
     branches) changes nothing but the instruction's length: the same
     class, and a direct branch's target one further, since it is
     relative to the next instruction;
   - only a direct branch has a target, and its displacement fits the
     instruction's bytes. */
#include "../tools/qemu/x86class.h"
#include "fuzz_helpers.h"

#include <string.h>

static int is_direct(x86_cofi c) { return c == X86_JCC || c == X86_JMP || c == X86_CALL; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    uint64_t ip;
    size_t at = 0;
    if (size > 4096) return 0;
    in.data = data;
    in.size = size;
    ip = (uint64_t)fuzz_take(&in, 0, 0xFFFFFFFFu) << 16 ^ fuzz_take(&in, 0, 0xFFFF);
    while (at < in.size) {
        size_t len = (size_t)(data[at] % 15) + 1;
        uint8_t *exact, *prefixed;
        x86_insn_class c, p;
        at++;
        if (len > in.size - at) len = in.size - at;
        exact = (uint8_t *)malloc(len ? len : 1);
        prefixed = (uint8_t *)malloc(len + 1);
        FUZZ_ASSERT(exact && prefixed, "out of memory");
        memcpy(exact, data + at, len);
        c = x86_classify(exact, len, ip);
        FUZZ_ASSERT((unsigned)c.cofi < X86_COFI_COUNT && x86_cofi_names[c.cofi], "class %d", (int)c.cofi);
        FUZZ_ASSERT(is_direct(c.cofi) || c.target == 0, "%s with a target", x86_cofi_names[c.cofi]);
        if (is_direct(c.cofi)) {
            /* |target - next IP| fits a rel32 */
            uint64_t d = c.target - (ip + len);
            FUZZ_ASSERT(d <= 0x7FFFFFFFu || d >= (uint64_t)0 - 0x80000000u, "displacement %llx", (unsigned long long)d);
        }
        prefixed[0] = 0x3E;
        memcpy(prefixed + 1, exact, len);
        p = x86_classify(prefixed, len + 1, ip);
        /* before every other prefix, so a REX stays next to its opcode */
        FUZZ_ASSERT(p.cofi == c.cofi, "3E prefix: %s became %s", x86_cofi_names[c.cofi], x86_cofi_names[p.cofi]);
        FUZZ_ASSERT(!is_direct(c.cofi) || p.target == c.target + 1, "3E prefix moved the target by %lld",
                  (long long)(p.target - c.target));
        free(exact);
        free(prefixed);
        at += len;
        ip += len;
    }
    return 0;
}

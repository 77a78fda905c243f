/* fuzz_x86: the x86 decoder (ptc_x86_decode, SPEC 9.1) on any bytes.

   The input's last byte picks the mode (16, 32 or 64 bits); the rest is
   code, decoded one instruction after another, moving one byte on after
   an error. Oracles on every instruction:
   - it reads nothing past the bytes given (the input is exactly its size
     in libFuzzer and the replay, so ASan sees any over-read); its size is
     1..15 and its class one of the classes; only JCC, JMP, CALL and
     XBEGIN have a target;
   - the same bytes cut one short are cut_insn;
   - a segment prefix (3E) before it changes nothing but the length, and a
     relative target by one, unless that makes it longer than 15 bytes.
   Built with -DX86_ORACLE_ZYDIS and -DX86_ORACLE_LIBIPT22 (the target
   fuzz_x86_oracles, Makefile), it is also held to Zydis 4.0 and libipt
   2.2's length decoder (fuzz/x86_oracles.h): where Zydis decodes (but what
   it reads beyond the SDM), the same length, class and target; where
   libipt does (and knows the encoding), the same length, and the same
   class where libipt reads the SDM right. */
#include "../ptcodec.h"
#include "x86_oracles.h"
#include "fuzz_helpers.h"

#include <string.h>

static int has_target(const ptc_x86_insn *in)
{
    return in->iclass == PTC_X86_JCC || in->iclass == PTC_X86_JMP || in->iclass == PTC_X86_CALL ||
           (in->iclass == PTC_X86_TSX && in->opcode == 0xC7);
}

static void hold_to_itself(const uint8_t *b, size_t n, ptc_x86_mode mode, uint64_t ip, const ptc_x86_insn *in)
{
    uint8_t prefixed[16];
    ptc_x86_insn p, cut;
    ptc_status st;
    FUZZ_ASSERT(in->size >= 1 && in->size <= 15 && in->size <= n, "size %u of %zu", in->size, n);
    FUZZ_ASSERT(in->iclass < PTC_X86_CLASS_COUNT && in->ip == ip && in->mode == mode, "class %u", in->iclass);
    FUZZ_ASSERT(has_target(in) || in->target == 0, "%s with a target", ptc_x86_class_name((ptc_x86_class)in->iclass));
    FUZZ_ASSERT(in->has_modrm || in->modrm == 0, "a ModRM byte without one");
    st = ptc_x86_decode(b, in->size - 1u, mode, ip, &cut);
    FUZZ_ASSERT(st == PTC_ERR_CUT_INSN, "cut one short: %s", ptc_status_name(st));
    prefixed[0] = 0x3E;
    memcpy(prefixed + 1, b, in->size);
    st = ptc_x86_decode(prefixed, in->size + 1u, mode, ip, &p);
    if (in->size == 15) {
        FUZZ_ASSERT(st == PTC_ERR_BAD_INSN, "16 bytes: %s", ptc_status_name(st));
        return;
    }
    FUZZ_ASSERT(st == PTC_OK && p.size == in->size + 1 && p.iclass == in->iclass, "3E prefix: %s, size %u, %s",
                ptc_status_name(st), p.size, ptc_x86_class_name((ptc_x86_class)p.iclass));
    /* a relative target moves with the next instruction; JMPABS's does not */
    FUZZ_ASSERT(p.target == in->target || p.target == in->target + 1 || (mode != 64 && p.target == ((in->target + 1) & 0xFFFFu)),
                "3E prefix moved the target from %llx to %llx", (unsigned long long)in->target, (unsigned long long)p.target);
}

#if defined(X86_ORACLE_ZYDIS) || defined(X86_ORACLE_LIBIPT22)
/* The first bytes at b in hex, for a failure's message. */
static const char *hex(const uint8_t *b, size_t n)
{
    static char text[3 * 15 + 1];
    size_t k;
    for (k = 0; k < n && k < 15; k++) snprintf(text + 3 * k, 4, "%02x ", b[k]);
    text[3 * k] = 0;
    return text;
}

static void hold_to_oracles(const uint8_t *b, size_t n, unsigned mode, uint64_t ip, ptc_status st, const ptc_x86_insn *in)
{
#ifdef X86_ORACLE_ZYDIS
    int knc;
    x86_oracle_says z = x86_oracle_zydis(b, n, mode, ip, &knc);
    if (z.decodes && !knc) {
        FUZZ_ASSERT(st == PTC_OK, "Zydis decodes %u bytes, ptcodec says %s: %s", z.size, ptc_status_name(st), hex(b, n));
        FUZZ_ASSERT(z.size == in->size, "Zydis's length %u, ptcodec's %u: %s", z.size, in->size, hex(b, n));
        FUZZ_ASSERT(z.iclass == in->iclass, "Zydis's class %s, ptcodec's %s: %s", ptc_x86_class_name(z.iclass),
                    ptc_x86_class_name((ptc_x86_class)in->iclass), hex(b, n));
        FUZZ_ASSERT(!z.has_target || !in->target || x86_oracle_same_target(in, z.target), "Zydis's target %llx, ptcodec's %llx: %s",
                    (unsigned long long)z.target, (unsigned long long)in->target, hex(b, n));
    }
#endif
#ifdef X86_ORACLE_LIBIPT22
    if (st == PTC_OK && !x86_oracle_libipt22_unknown(in)) {
        x86_oracle_says l = x86_oracle_libipt22(b, n, mode, ip);
        if (l.decodes) {
            FUZZ_ASSERT(l.size == in->size, "libipt 2.2's length %u, ptcodec's %u: %s", l.size, in->size, hex(b, n));
            FUZZ_ASSERT(l.iclass == x86_oracle_libipt_view((ptc_x86_class)in->iclass) || x86_oracle_libipt22_misreads(in),
                        "libipt 2.2's class %s, ptcodec's %s: %s", ptc_x86_class_name(l.iclass),
                        ptc_x86_class_name((ptc_x86_class)in->iclass), hex(b, n));
        }
    }
#endif
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ptc_x86_mode modes[3] = { PTC_X86_64, PTC_X86_32, PTC_X86_16 };
    ptc_x86_mode mode;
    uint64_t ip = 0x7FFFFFF000u;
    size_t at = 0, n;
    if (size < 1 || size > 4096) return 0;
    mode = modes[data[size - 1] % 3];
    n = size - 1;
    while (at < n) {
        ptc_x86_insn in;
        ptc_status st = ptc_x86_decode(data + at, n - at, mode, ip, &in);
        FUZZ_ASSERT(st == PTC_OK || st == PTC_ERR_BAD_INSN || st == PTC_ERR_CUT_INSN, "%s", ptc_status_name(st));
        FUZZ_ASSERT(st != PTC_ERR_CUT_INSN || n - at < 15, "cut_insn with %zu bytes", n - at);
        if (st == PTC_OK) hold_to_itself(data + at, n - at, mode, ip, &in);
#if defined(X86_ORACLE_ZYDIS) || defined(X86_ORACLE_LIBIPT22)
        hold_to_oracles(data + at, n - at, (unsigned)mode, ip, st, &in);
#endif
        at += st == PTC_OK ? in.size : 1;
        ip += st == PTC_OK ? in.size : 1;
    }
    return 0;
}

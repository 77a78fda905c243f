/* fuzz_flow: the flow decoder (ptcodec.h part 9.3, SPEC 9.3) on any trace
   over any code.

   The input is code, then a trace: the code's length is drawn from the
   input's last bytes, and the code sits at 0x400000 in a 64-bit image (at
   0x1000 in a 32-bit one when the mode bit drawn says so: the trace's
   MODE.Exec decides what the decoder reads it as). Oracles:
   - every call returns: ok, end, or one of the flow's and the stream
     decoder's errors (SPEC 9.3); a run of calls ends (an instruction cap
     stops a run whose loop the decoder rightly follows, such as a trace
     that keeps a TNT for a loop of a million rounds; none is reached on
     the corpus);
   - every instruction handed out is in the image: its bytes decode, in
     its mode, to its size and class;
   - ptc_flow_next after PTC_END is PTC_END again. */
#include "../ptcodec.h"
#include "fuzz_helpers.h"

#include <string.h>

static int allowed(ptc_status st)
{
    switch (st) {
    case PTC_OK: case PTC_END: case PTC_ERR_NO_CODE: case PTC_ERR_BAD_INSN: case PTC_ERR_NO_TNT: case PTC_ERR_NO_TIP: case PTC_ERR_BAD_RET:
    case PTC_ERR_LOOP: case PTC_ERR_TRUNCATED: case PTC_ERR_BAD_OPCODE: case PTC_ERR_BAD_IPBYTES: case PTC_ERR_RESERVED:
    case PTC_ERR_BAD_PSB: case PTC_ERR_EMPTY_TNT: case PTC_ERR_CYC_OVERFLOW: case PTC_ERR_PSB_OVERLAP: case PTC_ERR_NO_PSB:
        return 1;
    default: return 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ptc_flow flow;
    ptc_image_section storage[2];
    ptc_image img;
    fuzz_input in;
    size_t code_size;
    uint64_t base, count = 0;
    ptc_flow_insn insn;
    ptc_status st;
    if (size > FUZZ_MAX_INPUT) return 0;
    in.data = data;
    in.size = size;
    code_size = fuzz_take(&in, 0, 0xFFFF);
    base = fuzz_take(&in, 0, 1) ? 0x1000 : 0x400000;
    if (code_size > in.size) code_size = in.size;
    ptc_image_init(&img, storage, 2);
    FUZZ_ASSERT(ptc_image_add(&img, base, data, code_size) == PTC_OK, "the image");
    FUZZ_ASSERT(ptc_flow_init(&flow, NULL, &img, data + code_size, in.size - code_size) == PTC_OK, "init");
    while ((st = ptc_flow_next(&flow, &insn)) != PTC_END && count < 200000) {
        count++;
        FUZZ_ASSERT(allowed(st), "status %s", ptc_status_name(st));
        if (st == PTC_OK) {
            uint8_t bytes[15];
            size_t n = ptc_image_read(&img, insn.ip, bytes, sizeof bytes);
            ptc_x86_insn x;
            FUZZ_ASSERT(n >= insn.size && insn.size > 0, "ip %llx: %zu bytes in the image, size %u", (unsigned long long)insn.ip,
                        n, insn.size);
            FUZZ_ASSERT(ptc_x86_decode(bytes, n, (ptc_x86_mode)insn.mode, insn.ip, &x) == PTC_OK && x.size == insn.size &&
                            x.iclass == insn.iclass,
                        "ip %llx: the image's bytes are not the instruction handed out", (unsigned long long)insn.ip);
        }
    }
    if (st == PTC_END) FUZZ_ASSERT(ptc_flow_next(&flow, &insn) == PTC_END, "after the end");
    return 0;
}

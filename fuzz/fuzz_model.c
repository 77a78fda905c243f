/* fuzz_model: the hardware model under fuzz-chosen settings and workloads
   (SPEC.md part 5).

   The input's last bytes choose the configuration and the suppression
   policy; the rest is a program of workload events (idle, branches, jumps,
   CALLs and RETs, interrupts (also into the kernel), PTWRITE, CR3,
   privilege, mode and ratio changes, sleeps). Oracles:
   - jumping from event to event gives the same bytes and the same truth as
     stepping every cycle;
   - the stream decodes without an error, and every emitted packet of the
     truth is the decoded packet at its offset;
   - the policy checker finds no violation (but missing MTCs when the
     settings lose some, as erratum SKL168 does). */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_modelrun.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    ptc_model_config cfg;
    modelrec_trace a, b;
    ptc_decoder dec;
    ptc_checker chk;
    ptc_item it;
    size_t k = 0, c;
    int readable;
    if (size > 4096) return 0;
    in.data = data;
    in.size = size;
    fuzz_model_config(&in, &cfg);
    fuzz_model_run(&cfg, in.data, in.size, &a);
    cfg.reference_stepping = 1;
    fuzz_model_run(&cfg, in.data, in.size, &b);
    FUZZ_ASSERT(a.len == b.len && memcmp(a.bytes, b.bytes, a.len) == 0, "fast-forward and stepping wrote different bytes");
    FUZZ_ASSERT(a.nt == b.nt, "fast-forward and stepping generated %zu and %zu packets", a.nt, b.nt);
    for (c = 0; c < a.nt; c++)
        FUZZ_ASSERT(a.t[c].cycle == b.t[c].cycle && a.t[c].art == b.t[c].art && a.t[c].fate == b.t[c].fate &&
                      a.t[c].time.tsc == b.t[c].time.tsc && a.t[c].offset == b.t[c].offset,
                  "truth record %zu (%s) differs", c, ptc_packet_type_name(a.t[c].pkt.type));

    /* A stream whose whole CYC pair reads like one cut by SKD007 does not say which it is; such
       streams are only held to the fast-forward check above. */
    readable = !modelrec_skd007_ambiguous(&cfg, &a);
    ptc_checker_init(&chk, &cfg.trace.policy);
    ptc_decoder_init_buffer(&dec, modelrec_decode_flags(&cfg), a.bytes, a.len);
    while (readable && ptc_decoder_next(&dec, &it) == PTC_OK) {
        int v;
        FUZZ_ASSERT(it.error == PTC_OK || modelrec_erratum_error(it.error), "model output does not decode: %s at %llu",
                  ptc_status_name(it.error), (unsigned long long)it.offset);
        while (k < a.nt && !modelrec_in_stream(&a.t[k])) k++;
        FUZZ_ASSERT(k < a.nt && modelrec_item_is(&a.t[k], &it), "decoded %s at %llu is not the model's packet",
                  it.error == PTC_OK ? ptc_packet_type_name(it.pkt.type) : ptc_status_name(it.error),
                  (unsigned long long)it.offset);
        k++;
        if (it.error != PTC_OK) continue;
        v = ptc_checker_packet(&chk, &it.pkt);
        FUZZ_ASSERT(v == PTC_RULE_NONE || (v == PTC_RULE_MISSING_MTC && cfg.mtc_lost), "policy checker: %s at %llu", ptc_rule_name((ptc_rule)v), (unsigned long long)it.offset);
    }
    modelrec_free(&a);
    modelrec_free(&b);
    return 0;
}

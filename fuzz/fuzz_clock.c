/* fuzz_clock: time round trips (SPEC.md part 3). Fuzz input -> model
   configuration, suppression policy and event program (fuzz_modelrun.h)
   -> trace -> decoded and timed by ptc_clock. Oracles, for every packet:
   - the true TSC lies inside [tsc_lo, tsc_hi], and tsc is inside too;
   - point estimates and lower bounds never go back;
   - no conflict is reported (the configuration the clock gets is true).
   The clock gets the model's configuration in one of 64 ways, chosen by
   the input: exact nom or nom rounded as the MSR holds it, the policy or
   no policy at all, the model's errata (SPEC 3.12) or more, the tolerances of
   real hardware (SPEC 3.11) or the SDM's clocks, and with CYC the threshold
   or none (PTC_KNOW_CYC_THRESH cleared); and its window is drained now and then
   or only when full. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_modelrun.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ptc_clock clk;
    fuzz_input in;
    ptc_model_config cfg;
    ptc_clock_config cc;
    modelrec_trace r;
    ptc_decoder dec;
    ptc_item it;
    ptc_timed_item out;
    size_t k = 0, pushed = 0;
    ptc_clock_order order;
    unsigned how, drain_every;
    if (size > 4096) return 0;
    in.data = data;
    in.size = size;
    fuzz_model_config(&in, &cfg);
    how = fuzz_take(&in, 0, 63);
    drain_every = fuzz_take(&in, 1, 64);
    fuzz_model_run(&cfg, in.data, in.size, &r);

    fuzz_clock_config(&cfg, how, &cc);
    FUZZ_ASSERT(ptc_clock_init(&clk, &cc) == PTC_OK, "clock config rejected");
    ptc_clock_order_init(&order);
    if (modelrec_skd007_ambiguous(&cfg, &r)) { /* (the stream does not say what the truth is) */
        modelrec_free(&r);
        return 0;
    }
    ptc_decoder_init_buffer(&dec, modelrec_decode_flags(&cfg), r.bytes, r.len);
    for (;;) {
        ptc_status st = ptc_decoder_next(&dec, &it);
        int drain;
        if (st == PTC_OK) {
            FUZZ_ASSERT(it.error == PTC_OK || modelrec_erratum_error(it.error), "model output does not decode at %llu",
                      (unsigned long long)it.offset);
            FUZZ_ASSERT(ptc_clock_push(&clk, &it) == PTC_OK, "push refused with the window drained");
            pushed++;
        } else {
            ptc_clock_finish(&clk);
        }
        drain = st != PTC_OK || pushed % drain_every == 0 || clk.win.count == PTC_CLOCK_WINDOW;
        while (drain && ptc_clock_pop(&clk, &out) == PTC_OK) {
            const ptc_truth *t;
            while (k < r.nt && !modelrec_in_stream(&r.t[k])) k++;
            FUZZ_ASSERT(k < r.nt && modelrec_item_is(&r.t[k], &out.item), "timed item %llu is not the next packet",
                      (unsigned long long)out.item.offset);
            t = &r.t[k++];
            if (!out.have_time) continue;
            FUZZ_ASSERT(out.tsc_lo <= t->time.tsc &&
                          (t->time.tsc < out.tsc_hi || (t->time.tsc == out.tsc_hi && t->time.num == 0)),
                      "%s at %llu: true TSC %llu not in [%llu, %llu] (clock config %u)",
                      ptc_packet_type_name(t->pkt.type), (unsigned long long)t->offset,
                      (unsigned long long)t->time.tsc, (unsigned long long)out.tsc_lo,
                      (unsigned long long)out.tsc_hi, how);
            FUZZ_ASSERT(out.tsc_lo <= out.tsc && out.tsc <= out.tsc_hi, "point outside its interval at %llu",
                      (unsigned long long)t->offset);
            FUZZ_ASSERT(ptc_clock_order_next(&order, &out), "time goes back at %llu", (unsigned long long)t->offset);
            FUZZ_ASSERT(!out.conflict, "conflict reported at %llu in a trace that has none", (unsigned long long)t->offset);
        }
        if (st != PTC_OK) break;
    }
    FUZZ_ASSERT(ptc_clock_pop(&clk, &out) == PTC_END, "items left in the clock");
    modelrec_free(&r);
    return 0;
}

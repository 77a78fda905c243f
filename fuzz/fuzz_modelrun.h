/* fuzz_modelrun.h - the hardware model driven by fuzz input, shared by
   fuzz_model (the model's own oracles), fuzz_clock (time round trips),
   fuzz_checker (policy rules) and fuzz/gen_model_seeds.c.

   fuzz_model_config draws a configuration and a suppression policy from the
   input's last bytes (fuzz_take, through modelprog.h's modelprog_config);
   fuzz_model_run plays the rest of the input as a program of workload
   events, two bytes an event, and records the stream and its truth. */
#ifndef PTCODEC_FUZZ_MODELRUN_H
#define PTCODEC_FUZZ_MODELRUN_H

#include "../ptcodec.h"

#include "fuzz_helpers.h"
#include "../harness/modelrec.h"
#include "../harness/modelprog.h"

#include <string.h>

/* Runs the event program `prog` (harness/modelprog.h) on a model with cfg;
   records into r (harness/modelrec.h; free it with modelrec_free). */
UTIL_FN void fuzz_model_run(const ptc_model_config *cfg, const uint8_t *prog, size_t n, modelrec_trace *r)
{
    ptc_model m;
    ptc_model_sink sink = modelrec_start(r, 0); /* every packet's truth, written or not */
    FUZZ_ASSERT(ptc_model_init(&m, cfg, &sink) == PTC_OK, "config rejected: %s", ptc_model_error_field(&m));
    FUZZ_ASSERT(modelprog_play(&m, prog, n, 300000) == PTC_OK, "counters"); /* 300000 cycles: keeps single stepping quick */
}

/* fuzz_take as modelprog.h's draw */
UTIL_FN uint32_t fuzz_draw(void *in, uint32_t min, uint32_t max) { return fuzz_take((fuzz_input *)in, min, max); }

/* A configuration the model accepts, from the end of the input. */
UTIL_FN void fuzz_model_config(fuzz_input *in, ptc_model_config *cfg) { modelprog_config(cfg, fuzz_draw, in); }

/* The clock's configuration for a model run, in one of 64 ways (how):
   bit 0 nom rounded as the MSR holds it (what libipt's --nom-freq
   carries), bit 1 no policy at all, bits 2..5 more errata than the model's
   (each only loosens what the clock assumes), bit 4 also the tolerances of
   real hardware (SPEC 3.11) or the SDM's clocks, bit 5 with CYC an unknown
   threshold (PTC_KNOW_CYC_THRESH cleared, as a raw trace's). */
UTIL_FN void fuzz_clock_config(const ptc_model_config *cfg, unsigned how, ptc_clock_config *cc)
{
    ptc_clock_config_from_model(cc, cfg);
    if (how & 1) {
        cc->trace.ratios.nom_num = ptc_model_nom_freq(cfg);
        cc->trace.ratios.nom_den = 1;
        cc->trace.ratios.nom_exact = 0;
    }
    if (how & 2) cc->trace.known &= ~(uint32_t)PTC_KNOW_POLICY;
    cc->trace.errata |= (how >> 2) & PTC_ERRATA_ALL_;
    if (how & 16) {
        ptc_clock_config hw;
        ptc_clock_config_default(&hw);
        if (cc->real.mtc_jitter < hw.real.mtc_jitter) cc->real.mtc_jitter = hw.real.mtc_jitter;
        if (cc->real.mtc_lost < hw.real.mtc_lost) cc->real.mtc_lost = hw.real.mtc_lost;
        cc->real.psb_early_tsc = hw.real.psb_early_tsc;
        if (cc->real.rate_ppm < hw.real.rate_ppm) cc->real.rate_ppm = hw.real.rate_ppm;
        cc->real.hidden_stops = hw.real.hidden_stops;
    }
    if ((how & 32) && cc->trace.ctl.cyc_en) cc->trace.known &= ~(uint32_t)PTC_KNOW_CYC_THRESH;
}

#endif

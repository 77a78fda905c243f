/* fuzz_modelrun.h - the hardware model driven by fuzz input, shared by
   fuzz_model (the model's own oracles), fuzz_clock (time round trips),
   fuzz_checker (policy rules) and fuzz/gen_model_seeds.c.

   fz_model_config draws a configuration and a suppression policy from the
   input's last bytes (fz_take); fz_model_run plays the rest of the input
   as a program of workload events, two bytes an event, and records the
   stream and its truth. */
#ifndef PTCODEC_FUZZ_MODELRUN_H
#define PTCODEC_FUZZ_MODELRUN_H

#include "fuzz_helpers.h"
#include "../tools/modelrec.h"
#include "../tools/modelprog.h"

#include <string.h>

static const struct { uint32_t art, eax, ebx; } fz_clocks[] = {
    { 24000000, 2, 200 }, { 25000000, 3, 250 }, { 19200000, 7, 625 }, { 38400000, 1, 50 }
};

/* Runs the event program `prog` (tools/modelprog.h) on a model with cfg;
   records into r (tools/modelrec.h; free it with mr_free). */
UT_FN void fz_model_run(const ptc_model_config *cfg, const uint8_t *prog, size_t n, mr_trace *r)
{
    ptc_model m;
    ptc_model_sink sink = mr_start(r, 0); /* every packet's truth, written or not */
    FZ_ASSERT(ptc_model_init(&m, cfg, &sink) == PTC_OK, "config rejected: %s", ptc_model_error_field(&m));
    FZ_ASSERT(mp_play(&m, prog, n, 300000) == PTC_OK, "counters"); /* 300000 cycles: keeps single stepping quick */
}

/* A configuration the model accepts, from the end of the input. */
UT_FN void fz_model_config(fz_input *in, ptc_model_config *cfg)
{
    size_t c;
    ptc_model_config_default(cfg);
    c = fz_take(in, 0, 3);
    cfg->art_hz = fz_clocks[c].art;
    cfg->cpuid_15_eax = fz_clocks[c].eax;
    cfg->cpuid_15_ebx = fz_clocks[c].ebx;
    cfg->core_ratio = mp_ratios[fz_take(in, 0, sizeof mp_ratios - 1)];
    cfg->mtc_freq = (uint8_t)fz_take(in, 0, 10);
    cfg->cyc_en = (uint8_t)fz_take(in, 0, 1);
    cfg->cyc_thresh = (uint8_t)fz_take(in, 0, 12);
    cfg->cyc_bits = (uint8_t)fz_take(in, 4, 16);
    cfg->psb_freq = (uint8_t)fz_take(in, 0, 2);
    cfg->long_tnt = (uint8_t)fz_take(in, 0, 1);
    cfg->pwr_evt_en = (uint8_t)fz_take(in, 0, 1);
    cfg->ptw_en = (uint8_t)fz_take(in, 0, 1);
    cfg->fup_on_ptw = (uint8_t)fz_take(in, 0, 1);
    cfg->os = (uint8_t)fz_take(in, 0, 1);
    cfg->art_start = fz_take(in, 0, 0xFFFFF);
    if (fz_take(in, 0, 1)) {
        cfg->nfilters = 1;
        cfg->filter_lo[0] = 0x401000;
        cfg->filter_hi[0] = 0x402000;
    }
    if (fz_take(in, 0, 1)) {
        cfg->fifo_bytes = fz_take(in, 128, 4096);
        cfg->drain_bytes = fz_take(in, 1, 4);
        cfg->drain_cycles = fz_take(in, 1, 16);
    }
    cfg->policy.threshold = (uint8_t)fz_take(in, 0, 5);
    cfg->policy.resume_on_value = (uint8_t)fz_take(in, 0, 1);
    cfg->policy.resume_value = (uint8_t)fz_take(in, 0, 255);
    cfg->policy.resume_after = (uint8_t)fz_take(in, 0, 255);
    cfg->policy.min_burst = (uint8_t)fz_take(in, 2, 6);
    if (cfg->policy.threshold && !cfg->policy.resume_after && !cfg->policy.resume_on_value) cfg->policy.resume_after = 255;
    /* a trigger on an IP the program visits (the start, or a branch target),
       or on a counter overflow */
    c = fz_take(in, 0, 3);
    if (c) {
        cfg->trigger_ip = c == 1 ? 0x401000 : 0x401000 + ((uint64_t)fz_take(in, 0, 255) << 4);
        cfg->trigger_nth = (uint32_t)fz_take(in, 1, 8);
        cfg->trigger_fup = (uint8_t)fz_take(in, 0, 1);
        cfg->trace_stop = (uint8_t)fz_take(in, 0, 1);
        cfg->stop_delay = fz_take(in, 0, 5000);
        if (c == 3) cfg->trigger_counter = (uint8_t)fz_take(in, 1, 2); /* an overflow of mp_play's counters */
    }
    /* real clocks: MTCs that go out some cycles after their edges */
    if (fz_take(in, 0, 1)) {
        cfg->mtc_jitter = (uint8_t)fz_take(in, 1, 24);
        cfg->jitter_seed = (uint32_t)fz_take(in, 0, 0xFFFF);
    }
    /* and MTCs lost (erratum SKL168), up to 3 in a row */
    if (fz_take(in, 0, 3) == 3) cfg->mtc_lost = (uint8_t)fz_take(in, 1, 3);
    cfg->dis_retc = (uint8_t)fz_take(in, 0, 1);
    /* and a core clock that wobbles against the ART */
    if (fz_take(in, 0, 3) == 3) cfg->rate_ppm = (uint32_t)fz_take(in, 1, PTC_MODEL_RATE_PPM_MAX);
    /* and PSB+s that wait for an MTC edge and carry its MTC ahead of their TSC */
    if (fz_take(in, 0, 3) == 3) cfg->psb_early_tsc = (uint8_t)fz_take(in, 1, 255);
    /* and erratum SKL168's CYC dropped before a PSB */
    cfg->skl168 = (uint8_t)(fz_take(in, 0, 3) == 3);
    /* and erratum SKD007's CYC cut by the OVF after an overflow */
    cfg->skd007 = (uint8_t)(fz_take(in, 0, 3) == 3);
    /* and erratum SKZ84's corrupt TMAs in VMX guests */
    cfg->skz84 = (uint8_t)(fz_take(in, 0, 3) == 3);
}

/* The clock's configuration for a model run, in one of 64 ways (how):
   bit 0 nom rounded as the MSR holds it (what libipt's --nom-freq
   carries), bit 1 no policy at all, bits 2..5 more errata than the model's
   (each only loosens what the clock assumes), bit 4 also the tolerances of
   real hardware (SPEC 3.11) or the SDM's clocks, bit 5 with CYC an unknown
   threshold (PTC_CYC_THRESH_UNKNOWN, as a raw trace's). */
UT_FN void fz_clock_config(const ptc_model_config *cfg, unsigned how, ptc_clock_config *cc)
{
    ptc_clock_config_from_model(cc, cfg);
    if (how & 1) {
        cc->nom_num = ptc_model_nom_freq(cfg);
        cc->nom_den = 1;
        cc->nom_exact = 0;
    }
    if (how & 2) cc->have_policy = 0;
    cc->errata |= (how >> 2) & PTC_ERRATA_ALL_;
    if (how & 16) {
        ptc_clock_config hw;
        ptc_clock_config_default(&hw);
        if (cc->mtc_jitter < hw.mtc_jitter) cc->mtc_jitter = hw.mtc_jitter;
        if (cc->mtc_lost < hw.mtc_lost) cc->mtc_lost = hw.mtc_lost;
        cc->psb_early_tsc = hw.psb_early_tsc;
        if (cc->rate_ppm < hw.rate_ppm) cc->rate_ppm = hw.rate_ppm;
        cc->hidden_stops = hw.hidden_stops;
    }
    if ((how & 32) && cc->cyc_en) cc->cyc_thresh = PTC_CYC_THRESH_UNKNOWN;
}

#endif

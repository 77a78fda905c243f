/* modelprog.h - a workload program for the hardware model: two bytes an
   event (an op and its argument: idle, branches, CALLs and RETs, interrupts
   and privilege changes, PTWRITE, mode and ratio changes, TSX, VMX, power),
   played on a model, and the model's settings drawn from a source of
   values (modelprog_config). Shared by the model-driven fuzz targets
   (fuzz/fuzz_modelrun.h) and the PT-aware mutator's "generate" operator
   (harness/ptmutator.h), so that a program means the same to both. The
   program links ptcodec's implementation. It allocates nothing. */
#ifndef PTCODEC_MODELPROG_H
#define PTCODEC_MODELPROG_H

#include "../ptcodec.h"

#include "util.h"

#include <stddef.h>
#include <stdint.h>

/* The core ratios a program's ratio change picks from. */
static const uint8_t modelprog_ratios[] = { 12, 16, 20, 24, 30, 36, 40 };

/* ART clocks and the CPUID leaf 0x15 that gives each */
static const struct { uint32_t art, eax, ebx; } modelprog_clocks[] = {
    { 24000000, 2, 200 }, { 25000000, 3, 250 }, { 19200000, 7, 625 }, { 38400000, 1, 50 }
};

/* A value in [lo, hi] from src: the input's last bytes for a fuzz target,
   a random source for the mutator. */
typedef uint32_t (*modelprog_draw)(void *src, uint32_t lo, uint32_t hi);

/* A configuration the model accepts, drawn a value at a time: its ART
   clock, core ratio, MTC, CYC, PSB and TNT settings, power events and
   PTWRITE, privilege, a filter, a small FIFO, a suppression policy, a
   trigger, real clocks and errata. The draws come in a fixed order, each
   over a fixed range: the fuzz corpora's inputs mean what they mean by it. */
UTIL_FN void modelprog_config(ptc_model_config *cfg, modelprog_draw draw, void *src)
{
    size_t c;
    ptc_model_config_default(cfg);
    c = draw(src, 0, 3);
    cfg->art_hz = modelprog_clocks[c].art;
    cfg->trace.ratios.cpuid_15_eax = modelprog_clocks[c].eax;
    cfg->trace.ratios.cpuid_15_ebx = modelprog_clocks[c].ebx;
    cfg->core_ratio = modelprog_ratios[draw(src, 0, sizeof modelprog_ratios - 1)];
    cfg->trace.ctl.mtc_freq = (uint8_t)draw(src, 0, 10);
    cfg->trace.ctl.cyc_en = (uint8_t)draw(src, 0, 1);
    cfg->trace.ctl.cyc_thresh = (uint8_t)draw(src, 0, 12);
    cfg->trace.cyc_bits = (uint8_t)draw(src, 4, 16);
    cfg->trace.ctl.psb_freq = (uint8_t)draw(src, 0, 2);
    cfg->long_tnt = (uint8_t)draw(src, 0, 1);
    cfg->trace.ctl.pwr_evt_en = (uint8_t)draw(src, 0, 1);
    cfg->trace.ctl.ptw_en = (uint8_t)draw(src, 0, 1);
    cfg->trace.ctl.fup_on_ptw = (uint8_t)draw(src, 0, 1);
    cfg->trace.ctl.os = (uint8_t)draw(src, 0, 1);
    cfg->art_start = draw(src, 0, 0xFFFFF);
    if (draw(src, 0, 1)) {
        cfg->trace.filters.count = 1;
        cfg->trace.filters.lo[0] = 0x401000;
        cfg->trace.filters.hi[0] = 0x402000;
    }
    if (draw(src, 0, 1)) {
        cfg->fifo_bytes = draw(src, 128, 4096);
        cfg->drain_bytes = draw(src, 1, 4);
        cfg->drain_cycles = draw(src, 1, 16);
    }
    cfg->trace.policy.threshold = (uint8_t)draw(src, 0, 5);
    cfg->trace.policy.resume_on_value = (uint8_t)draw(src, 0, 1);
    cfg->trace.policy.resume_value = (uint8_t)draw(src, 0, 255);
    cfg->trace.policy.resume_after = (uint8_t)draw(src, 0, 255);
    cfg->trace.policy.min_burst = (uint8_t)draw(src, 2, 6);
    if (cfg->trace.policy.threshold && !cfg->trace.policy.resume_after && !cfg->trace.policy.resume_on_value) cfg->trace.policy.resume_after = 255;
    /* a trigger on an IP the program visits (the start, or a branch target),
       or on a counter overflow */
    c = draw(src, 0, 3);
    if (c) {
        cfg->trigger_ip = c == 1 ? 0x401000 : 0x401000 + ((uint64_t)draw(src, 0, 255) << 4);
        cfg->trigger_nth = (uint32_t)draw(src, 1, 8);
        cfg->trigger_fup = (uint8_t)draw(src, 0, 1);
        cfg->trace_stop = (uint8_t)draw(src, 0, 1);
        cfg->stop_delay = draw(src, 0, 5000);
        if (c == 3) cfg->trigger_counter = (uint8_t)draw(src, 1, 2); /* an overflow of modelprog_play's counters */
    }
    /* real clocks: MTCs that go out some cycles after their edges */
    if (draw(src, 0, 1)) {
        cfg->mtc_jitter = (uint8_t)draw(src, 1, 24);
        cfg->jitter_seed = (uint32_t)draw(src, 0, 0xFFFF);
    }
    /* and MTCs lost (erratum SKL168), up to 3 in a row */
    if (draw(src, 0, 3) == 3) cfg->mtc_lost = (uint8_t)draw(src, 1, 3);
    cfg->trace.ctl.dis_retc = (uint8_t)draw(src, 0, 1);
    /* and a core clock that wobbles against the ART */
    if (draw(src, 0, 3) == 3) cfg->rate_ppm = (uint32_t)draw(src, 1, PTC_MODEL_RATE_PPM_MAX);
    /* and PSB+s that wait for an MTC edge and carry its MTC ahead of their TSC */
    if (draw(src, 0, 3) == 3) cfg->psb_early_tsc = (uint8_t)draw(src, 1, 255);
    /* and erratum SKL168's CYC dropped before a PSB */
    if (draw(src, 0, 3) == 3) cfg->trace.errata |= PTC_ERRATUM_SKL168;
    /* and erratum SKD007's CYC cut by the OVF after an overflow */
    if (draw(src, 0, 3) == 3) cfg->trace.errata |= PTC_ERRATUM_SKD007;
    /* and erratum SKZ84's corrupt TMAs in VMX guests */
    if (draw(src, 0, 3) == 3) cfg->trace.errata |= PTC_ERRATUM_SKZ84;
}

/* Plays the event program prog[0, n) on *m, a model ptc_model_init
   accepted: starts it, runs each event, and stops it (an odd byte left
   over stops it at the current IP: a WRMSR clearing TraceEn). Idle events
   draw from a budget of `budget` cycles, which bounds the run's length.
   Counters that overflow early are attached, so PEBS records appear.
   Returns what attaching them returned (PTC_OK). */
UTIL_FN ptc_status modelprog_play(ptc_model *m, const uint8_t *prog, size_t n, uint64_t budget)
{
    static const ptc_counter_config counters[2] = {
        { PTC_EV_BRANCH, 0, 0, 1, 1, 1, (UINT64_C(1) << PTC_COUNTER_BITS) - 40 },
        { PTC_EV_INDIRECT, 0, 0, 1, 1, 1, (UINT64_C(1) << PTC_COUNTER_BITS) - 3 }
    };
    ptc_counters c;
    uint64_t ip = 0x401000;
    uint64_t calls[8]; /* next IPs of recent CALLs, so that RETs often match one */
    unsigned ncalls = 0;
    size_t i = 0;
    ptc_status st = ptc_counters_init(&c, counters, 2);
    if (st == PTC_OK) st = ptc_model_attach_counters(m, &c, 0);
    if (st != PTC_OK) return st;
    ptc_model_start(m, ip);
    while (i + 2 <= n) {
        uint8_t op = prog[i], arg = prog[i + 1];
        uint64_t target = 0x401000 + ((uint64_t)arg << 4) + (op & 0x80 ? 0x100000 : 0); /* some inside a filter, some not */
        i += 2;
        switch (op % 15) {
        case 0: case 1: case 2: { /* idle */
            uint64_t c = (uint64_t)arg * (op % 3 == 2 ? 211 : 7) + 1;
            if (c > budget) c = budget;
            budget -= c;
            ptc_model_idle(m, c);
            break;
        }
        case 3: ptc_model_branch(m, ip, (arg & 1) ? target : ip + 2, arg & 1); ip = (arg & 1) ? target : ip + 2; break;
        case 4: ptc_model_jump(m, ip, target, 0); ip = target; break;
        case 5: ptc_model_jump(m, ip, target, 1); ip = target; break;
        case 6:
            if (op & 0x40) { /* into the kernel (a signal, an interrupt) */
                ptc_model_interrupt_cpl(m, ip, UINT64_C(0xffffffff81000000) + arg, 0);
                ip = UINT64_C(0xffffffff81000000) + arg;
            } else {
                ptc_model_interrupt(m, ip, UINT64_C(0x7f0000001000) + arg);
                ip = UINT64_C(0x7f0000001000) + arg;
            }
            break;
        case 7: ptc_model_ptwrite(m, ip, (uint64_t)arg * 0x0101010101ULL, (arg & 1) ? 8 : 4); break;
        case 8:
            if (op & 0x40) { /* into the kernel or back */
                uint64_t to = (arg & 1) ? UINT64_C(0xffffffff81000000) + arg : target;
                ptc_model_privilege(m, ip, to, (arg & 1) ? 0 : 3);
                ip = to;
            } else {
                ptc_model_cr3(m, ip, (uint64_t)arg << 12);
            }
            break;
        case 9:
            /* (a far transfer: the next event is at its target, or the model
               would see the flow leave the filter with no branch) */
            if (arg & 1) {
                if (ptc_model_mode(m, ip, target, arg & 2 ? 1 : 0, arg & 2 ? 0 : 1) == PTC_OK) ip = target;
            }
            else ptc_model_set_ratio(m, ip, modelprog_ratios[arg % sizeof modelprog_ratios]);
            break;
        case 11: { /* a CALL: direct, indirect or zero-length */
            uint64_t next = ip + 5, to = (arg & 3) == 3 ? next : target;
            ptc_model_call(m, ip, to, next, arg & 1);
            calls[ncalls++ % 8] = next;
            ip = to;
            break;
        }
        case 12: { /* a RET to the newest CALL's next IP, or elsewhere */
            uint64_t to = (arg & 1) && ncalls ? calls[--ncalls % 8] : target;
            ptc_model_ret(m, ip, to);
            ip = to;
            break;
        }
        case 13: /* TSX: XBEGIN, XEND, or an abort to the fallback path */
            if (arg % 3 == 0) ptc_model_tsx(m, PTC_TSX_BEGIN, ip, 0);
            else if (arg % 3 == 1) ptc_model_tsx(m, PTC_TSX_COMMIT, ip, 0);
            else if (ptc_model_tsx(m, PTC_TSX_ABORT, ip, target) == PTC_OK) ip = target;
            break;
        case 14: /* VMX: VMPTRLD, a VM entry (the guest traced or not), a VM exit */
            if (arg % 3 == 0) {
                ptc_model_vmptrld(m, ip, (uint64_t)(arg + 1) << 12);
            } else if (arg % 3 == 1) {
                if (ptc_model_vm_entry(m, ip, target, (uint64_t)arg << 12, arg & 4) == PTC_OK) ip = target;
            } else if (ptc_model_vm_exit(m, ip, 0x401000 + ((uint64_t)arg << 4), 0x5000) == PTC_OK) {
                ip = 0x401000 + ((uint64_t)arg << 4);
            }
            break;
        default: ptc_model_sleep(m, ip, arg & 1, arg, 1, (uint8_t)(1 + arg % 7), (uint64_t)arg * 37, arg & 2); break;
        }
    }
    /* an odd byte left over: TraceEn cleared by a WRMSR at ip (SDM case
       3b, FUP and TIP.PGD), else by what the model knows no IP of */
    if (n % 2) ptc_model_stop_at(m, ip);
    else ptc_model_stop(m);
    return PTC_OK;
}

#endif

/* workloads.h - what drives the hardware model: built-in workloads and a
   small scenario language (SPEC.md 5.4, 5.5). Used by ptsim, the tests and the
   fuzz targets. It includes what it needs (pktgen.h: the random
   source). */
#ifndef PTCODEC_WORKLOADS_H
#define PTCODEC_WORKLOADS_H

#include "../ptcodec.h"
#include "../harness/pktgen.h"

#include <stdio.h>
#include <string.h>

#include "../harness/util.h"
#include "progress.h"
#include "modelcfg.h"

static const char *const workload_names[] = { "dense", "sparse", "filtered", "ptwrite", "idle", "dvfs", "mixed" };
#define WORKLOAD_COUNT 7

/* Code addresses the workloads use. */
#define WORKLOAD_MAIN    UINT64_C(0x0000000000401000) /* main loop */
#define WORKLOAD_FUNC    UINT64_C(0x0000000000500000) /* the rarely called, traced function */
#define WORKLOAD_LIB     UINT64_C(0x00007f3a12340000) /* a shared library */
#define WORKLOAD_HANDLER UINT64_C(0x00007f3a56780000) /* an interrupt/signal handler */

/* Ratios for frequency changes: their least common multiple is small, so
   the model's exact clock never needs a large denominator. */
static const uint8_t workload_ratios[] = { 12, 16, 20, 24, 30, 36, 40 };

UTIL_FN int workload_find(const char *name)
{
    int i;
    for (i = 0; i < WORKLOAD_COUNT; i++) if (strcmp(name, workload_names[i]) == 0) return i;
    return -1;
}

/* The settings a workload needs (applied before the user's own). */
UTIL_FN void workload_configure(int w, ptc_model_config *c)
{
    switch (w) {
    case 2: /* filtered: trace only the rarely called function */
        c->trace.filters.count = 1;
        c->trace.filters.lo[0] = WORKLOAD_FUNC;
        c->trace.filters.hi[0] = WORKLOAD_FUNC + 0x1000;
        break;
    case 3: c->trace.ctl.branch_en = 0; c->trace.ctl.ptw_en = 1; c->trace.ctl.fup_on_ptw = 1; break; /* ptwrite */
    case 4: c->trace.ctl.pwr_evt_en = 1; break;                                   /* idle */
    case 6: /* mixed: everything, and a small buffer that overflows now and then */
        c->trace.ctl.pwr_evt_en = 1; c->trace.ctl.ptw_en = 1; c->trace.ctl.os = 1;
        c->fifo_bytes = 2048; c->drain_bytes = 1; c->drain_cycles = 3;
        break;
    default: break;
    }
}

typedef struct workload_run {
    ptc_model *m;
    pktgen_rng r;
    uint64_t start, end, ip;
    util_progress *progress; /* NULL: none shown */
} workload_run;

static int workload_more(workload_run *w)
{
    util_progress_at(w->progress, w->m->cycle - w->start);
    return w->m->cycle < w->end;
}

UTIL_FN void workload_idle(workload_run *w, uint64_t lo, uint64_t hi)
{
    uint64_t n = pktgen_range(&w->r, lo, hi);
    if (w->m->cycle + n > w->end) n = w->end > w->m->cycle ? w->end - w->m->cycle : 0;
    ptc_model_idle(w->m, n);
}

/* A conditional branch in a loop body at base: taken backwards or falls through. */
UTIL_FN void workload_branch(workload_run *w, uint64_t base, unsigned taken_pct)
{
    uint64_t ip = w->ip;
    int taken = (unsigned)pktgen_range(&w->r, 0, 99) < taken_pct;
    uint64_t next = taken ? base + (pktgen_next(&w->r) & 0x3F0) : ip + 2 + (pktgen_next(&w->r) & 0xE);
    ptc_model_branch(w->m, ip, next, taken);
    w->ip = next;
}

UTIL_FN void workload_call_ret(workload_run *w, uint64_t callee, unsigned body)
{
    uint64_t ret = w->ip + 5;
    unsigned i;
    ptc_model_jump(w->m, w->ip, callee, 1);
    w->ip = callee;
    for (i = 0; i < body && workload_more(w); i++) {
        workload_idle(w, 2, 12);
        workload_branch(w, callee, 50);
    }
    ptc_model_jump(w->m, w->ip, ret, 1);
    w->ip = ret;
}

UTIL_FN void workload_dense_burst(workload_run *w, uint64_t cycles)
{
    uint64_t stop = w->m->cycle + cycles;
    while (workload_more(w) && w->m->cycle < stop) {
        unsigned k = (unsigned)pktgen_range(&w->r, 20, 60);
        while (k-- && workload_more(w)) {
            workload_idle(w, 2, 12);
            workload_branch(w, WORKLOAD_MAIN, 60);
        }
        if (workload_more(w)) workload_call_ret(w, WORKLOAD_LIB + (pktgen_next(&w->r) & 0xFF0), 8);
    }
}

/* Runs workload w for `cycles` core cycles from TraceEn to TraceEn off. */
/* Workload wi for `cycles` on m, showing how far it got on progress (NULL:
   nothing shown). */
UTIL_FN void workload_run_workload_shown(int wi, ptc_model *m, uint64_t cycles, uint64_t seed, util_progress *progress)
{
    workload_run w;
    w.m = m;
    w.r = pktgen_seed(seed * 2654435761u + (uint64_t)wi + 1);
    w.progress = progress;
    w.start = m->cycle;
    w.end = m->cycle + cycles;
    w.ip = WORKLOAD_MAIN;
    ptc_model_start(m, w.ip);
    while (workload_more(&w)) {
        switch (wi) {
        case 0: /* dense: a branchy loop calling into a library */
            workload_dense_burst(&w, 1000000);
            if (workload_more(&w)) {
                ptc_model_interrupt(m, w.ip, WORKLOAD_HANDLER);
                ptc_model_jump(m, WORKLOAD_HANDLER + 0x40, w.ip, 1);
            }
            break;
        case 1: /* sparse: long straight-line stretches */
            workload_idle(&w, 5000, 50000);
            if (pktgen_next(&w.r) % 8) workload_branch(&w, WORKLOAD_MAIN, 50);
            else workload_call_ret(&w, WORKLOAD_LIB + (pktgen_next(&w.r) & 0xFF0), 2);
            break;
        case 2: { /* filtered: a busy, untraced main loop; now and then a call to the traced function */
            uint64_t gap = pktgen_range(&w.r, 200000, 600000), stop = m->cycle + gap;
            while (workload_more(&w) && m->cycle < stop) {
                workload_idle(&w, 5, 15);
                workload_branch(&w, WORKLOAD_MAIN, 70);
            }
            if (workload_more(&w)) {
                ptc_model_jump(m, w.ip, WORKLOAD_FUNC, 0);
                w.ip = WORKLOAD_FUNC;
                workload_call_ret(&w, WORKLOAD_FUNC + 0x400, 20);
                ptc_model_jump(m, w.ip, WORKLOAD_MAIN + 0x20, 0);
                w.ip = WORKLOAD_MAIN + 0x20;
            }
            break;
        }
        case 3: /* ptwrite: values written by software, nothing else */
            workload_idle(&w, 2000, 200000);
            if (workload_more(&w)) { /* (drawn in this order: the arguments' order is the compiler's) */
                int bytes = (pktgen_next(&w.r) & 1) ? 8 : 4;
                uint64_t value = pktgen_next(&w.r), at = w.ip + (pktgen_next(&w.r) & 0xFF);
                ptc_model_ptwrite(m, at, value, bytes);
            }
            break;
        case 4: { /* idle: short runs between C1 and C6 sleeps */
            uint8_t cstate = pktgen_next(&w.r) % 10 < 3 ? 1 : 6;
            workload_dense_burst(&w, pktgen_range(&w.r, 2000, 20000));
            if (workload_more(&w)) {
                ptc_model_sleep(m, w.ip, cstate > 1, 0x50, 1, cstate, pktgen_range(&w.r, 500, 500000), 1);
                ptc_model_interrupt(m, w.ip, WORKLOAD_HANDLER);
                ptc_model_jump(m, WORKLOAD_HANDLER + 0x40, w.ip, 1);
            }
            break;
        }
        case 5: /* dvfs: frequency changes in a branchy loop */
            workload_dense_burst(&w, pktgen_range(&w.r, 20000, 200000));
            if (workload_more(&w)) ptc_model_set_ratio(m, w.ip, workload_ratios[pktgen_next(&w.r) % sizeof workload_ratios]);
            break;
        default: { /* mixed: a little of everything */
            unsigned phase = (unsigned)(pktgen_next(&w.r) % 6);
            if (phase == 0) workload_dense_burst(&w, 300000);
            if (phase == 1) { workload_idle(&w, 100000, 1000000); workload_branch(&w, WORKLOAD_MAIN, 50); }
            if (phase == 2) ptc_model_ptwrite(m, w.ip, pktgen_next(&w.r), 8);
            if (phase == 3) ptc_model_sleep(m, w.ip, 1, 0x20, 0, 3, pktgen_range(&w.r, 1000, 100000), 1);
            if (phase == 4) ptc_model_set_ratio(m, w.ip, workload_ratios[pktgen_next(&w.r) % sizeof workload_ratios]);
            if (phase == 5) {
                ptc_model_cr3(m, w.ip, (pktgen_next(&w.r) & 0xFFFFF) << 12);
                ptc_model_mode(m, w.ip, WORKLOAD_LIB, 0, 1);      /* into 32-bit code */
                ptc_model_mode(m, WORKLOAD_LIB + 0x10, w.ip, 1, 0); /* and back */
            }
            break;
        }
        }
    }
    ptc_model_stop(m);
}

UTIL_FN void workload_run_workload(int wi, ptc_model *m, uint64_t cycles, uint64_t seed)
{
    workload_run_workload_shown(wi, m, cycles, seed, NULL);
}

/* Not one of the numbered workloads (their loops stay as they are): the
   dense loop run in a traced VMX guest for `cycles`, with a VM exit to
   the host and an entry back every 0.2 to 2 million cycles, so that many
   PSB+s fall in the guest (erratum SKZ84's TMAs, the model's skz84). */
UTIL_FN void workload_run_in_guest(ptc_model *m, uint64_t cycles, uint64_t seed)
{
    workload_run w;
    w.m = m;
    w.r = pktgen_seed(seed * 2654435761u + WORKLOAD_COUNT + 1);
    w.progress = NULL;
    w.start = m->cycle;
    w.end = m->cycle + cycles;
    w.ip = WORKLOAD_MAIN;
    ptc_model_start(m, w.ip);
    (void)ptc_model_vmptrld(m, w.ip, 0x3000);
    w.ip += 8;
    while (workload_more(&w)) {
        (void)ptc_model_vm_entry(m, w.ip, WORKLOAD_MAIN + 0x800, 0x7000, 1);
        w.ip = WORKLOAD_MAIN + 0x800;
        workload_dense_burst(&w, pktgen_range(&w.r, 200000, 2000000));
        (void)ptc_model_vm_exit(m, w.ip, WORKLOAD_MAIN + 0x10, 0x5000);
        w.ip = WORKLOAD_MAIN + 0x10;
        workload_idle(&w, 1000, 20000);
    }
    ptc_model_stop(m);
}

/* Workload wi for `cycles` on a model configured as wi needs, then by
   policy and settings (the text of modelcfg_policy and modelcfg_set_list), writing to
   sink; *cfg gets the configuration. Returns 1, or 0 with err set. */
UTIL_FN int workload_run_configured(int wi, const char *policy, const char *settings, uint64_t cycles, uint64_t seed,
                            const ptc_model_sink *sink, ptc_model_config *cfg, char *err, size_t errlen)
{
    ptc_model m;
    ptc_model_config_default(cfg);
    workload_configure(wi, cfg);
    if (!modelcfg_policy(&cfg->trace.policy, policy, err, errlen) || (*settings && !modelcfg_set_list(cfg, settings, err, errlen)))
        return 0;
    if (ptc_model_init(&m, cfg, sink) != PTC_OK) {
        snprintf(err, errlen, "model: %s", ptc_model_error_field(&m));
        return 0;
    }
    workload_run_workload(wi, &m, cycles, seed);
    return 1;
}

/* ---- scenarios --------------------------------------------------------
   One command a line; # starts a comment; numbers are decimal or 0x hex.
     set KEY=VALUE ...          model settings (before start)
     policy SPEC                MTC suppression (as ptsim --policy)
     start IP                   TraceEn 0 -> 1
     idle CYCLES
     idle-mtc N                 idle until N more MTC edges have passed
     branch IP TARGET taken|not
     jump IP TARGET             direct
     indirect IP TARGET
     interrupt IP HANDLER
     ptwrite IP VALUE [4|8]
     cr3 IP VALUE
     mode IP TARGET 16|32|64
     ratio IP RATIO
     sleep IP CSTATE ART_TICKS [hlt]
     privilege IP TARGET CPL    a far transfer to CPL 0..3 (SYSCALL, SYSRET)
     counter EVENT[,key=v...]   an event counter (before start; SPEC 5.8)
     stop
   The model is set up at the first command that is not set/policy. */
typedef struct workload_scenario {
    ptc_model_config cfg;
    ptc_counter_config counter[PTC_COUNTERS_MAX];
    unsigned ncounters;
    ptc_counters counters;  /* the model's, while it runs and after */
    int started;            /* ptc_model_init done */
    int line;
    char error[200];
} workload_scenario;

UTIL_FN int workload_word(char **p, char *out, size_t cap)
{
    size_t n = 0;
    while (**p == ' ' || **p == '\t') (*p)++;
    while (**p && **p != ' ' && **p != '\t' && **p != '\n' && **p != '#') {
        if (n + 1 < cap) out[n++] = **p;
        (*p)++;
    }
    out[n] = 0;
    return n > 0;
}

/* Runs a scenario text on model m (initialised here with the scenario's
   settings over *base and the sink). Returns 1, or 0 with s->error set. */
UTIL_FN int workload_run_scenario(const char *text, const ptc_model_config *base, const ptc_model_sink *sink,
                          ptc_model *m, workload_scenario *s)
{
    const char *p = text;
    memset(s, 0, sizeof *s);
    s->cfg = *base;
    while (*p) {
        char line[512], cmd[32], a[64], b[64], c[64], d[64], *q;
        uint64_t x = 0, y = 0, z = 0;
        size_t n = strcspn(p, "\n");
        if (n >= sizeof line) n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = 0;
        p += strcspn(p, "\n");
        if (*p) p++;
        s->line++;
        q = line;
        if (!workload_word(&q, cmd, sizeof cmd)) continue;
        if (strcmp(cmd, "counter") == 0) {
            char why[160];
            if (s->started || s->ncounters == PTC_COUNTERS_MAX) {
                snprintf(s->error, sizeof s->error, "line %d: counter after the model started, or more than %d", s->line,
                         PTC_COUNTERS_MAX);
                return 0;
            }
            while (*q == ' ' || *q == '\t') q++;
            if (!modelcfg_counter(&s->counter[s->ncounters], q, why, sizeof why)) {
                snprintf(s->error, sizeof s->error, "line %d: %s", s->line, why);
                return 0;
            }
            s->ncounters++;
            continue;
        }
        if (strcmp(cmd, "set") == 0 || strcmp(cmd, "policy") == 0) {
            if (s->started) { snprintf(s->error, sizeof s->error, "line %d: %s after the model started", s->line, cmd); return 0; }
            while (*q == ' ' || *q == '\t') q++;
            {
                char why[160];
                if (strcmp(cmd, "set") == 0 ? !modelcfg_set_list(&s->cfg, q, why, sizeof why)
                                            : !modelcfg_policy(&s->cfg.trace.policy, q, why, sizeof why)) {
                    snprintf(s->error, sizeof s->error, "line %d: %s", s->line, why);
                    return 0;
                }
            }
            continue;
        }
        if (!s->started) {
            if (ptc_model_init(m, &s->cfg, sink) != PTC_OK) {
                snprintf(s->error, sizeof s->error, "line %d: bad model setting: %s", s->line, ptc_model_error_field(m));
                return 0;
            }
            if (s->ncounters) {
                (void)ptc_counters_init(&s->counters, s->counter, s->ncounters); /* modelcfg_counter checked them */
                (void)ptc_model_attach_counters(m, &s->counters, 0);
            }
            s->started = 1;
        }
        a[0] = b[0] = c[0] = d[0] = 0;
        workload_word(&q, a, sizeof a);
        workload_word(&q, b, sizeof b);
        workload_word(&q, c, sizeof c);
        workload_word(&q, d, sizeof d);
        if (a[0] && !modelcfg_number(a, &x)) goto bad;
        if (b[0] && !modelcfg_number(b, &y) && strcmp(cmd, "branch") != 0) goto bad;
        if (strcmp(cmd, "start") == 0) ptc_model_start(m, x);
        else if (strcmp(cmd, "stop") == 0) ptc_model_stop(m);
        else if (strcmp(cmd, "idle") == 0) ptc_model_idle(m, x);
        else if (strcmp(cmd, "idle-mtc") == 0) {
            while (x--) {
                uint64_t t = ptc_model_cycles_to_mtc(m);
                if (t == UINT64_MAX) { snprintf(s->error, sizeof s->error, "line %d: MTCs are off", s->line); return 0; }
                ptc_model_idle(m, t);
            }
        } else if (strcmp(cmd, "branch") == 0) {
            if (!b[0] || (strcmp(c, "taken") && strcmp(c, "not"))) goto bad;
            ptc_model_branch(m, x, y, strcmp(c, "taken") == 0);
        } else if (strcmp(cmd, "jump") == 0) ptc_model_jump(m, x, y, 0);
        else if (strcmp(cmd, "indirect") == 0) ptc_model_jump(m, x, y, 1);
        else if (strcmp(cmd, "interrupt") == 0) {
            if (c[0] && (!modelcfg_number(c, &z) || z > 3)) goto bad;
            if (c[0]) ptc_model_interrupt_cpl(m, x, y, (uint8_t)z);
            else ptc_model_interrupt(m, x, y);
        } else if (strcmp(cmd, "call") == 0 || strcmp(cmd, "icall") == 0) {
            if (!modelcfg_number(c, &z)) goto bad;
            ptc_model_call(m, x, y, z, cmd[0] == 'i');
        } else if (strcmp(cmd, "ret") == 0) ptc_model_ret(m, x, y);
        else if (strcmp(cmd, "tsx-begin") == 0 || strcmp(cmd, "tsx-commit") == 0 || strcmp(cmd, "tsx-abort") == 0) {
            ptc_tsx_event ev = cmd[4] == 'b' ? PTC_TSX_BEGIN : cmd[4] == 'c' ? PTC_TSX_COMMIT : PTC_TSX_ABORT;
            if (ptc_model_tsx(m, ev, x, y) != PTC_OK) goto bad;
        } else if (strcmp(cmd, "vmptrld") == 0) {
            if (ptc_model_vmptrld(m, x, y) != PTC_OK) goto bad;
        } else if (strcmp(cmd, "vmentry") == 0) {
            if (!modelcfg_number(c, &z) || ptc_model_vm_entry(m, x, y, z, strcmp(d, "untraced") != 0) != PTC_OK) goto bad;
        } else if (strcmp(cmd, "vmexit") == 0) {
            if (!modelcfg_number(c, &z) || ptc_model_vm_exit(m, x, y, z) != PTC_OK) goto bad;
        }
        else if (strcmp(cmd, "ptwrite") == 0) {
            if (c[0] && !modelcfg_number(c, &z)) goto bad;
            if (ptc_model_ptwrite(m, x, y, z ? (int)z : 8) != PTC_OK) goto bad;
        } else if (strcmp(cmd, "cr3") == 0) {
            if (ptc_model_cr3(m, x, y) != PTC_OK) goto bad;
        } else if (strcmp(cmd, "mode") == 0) {
            if (!modelcfg_number(c, &z) || (z != 16 && z != 32 && z != 64)) goto bad;
            ptc_model_mode(m, x, y, z == 64, z == 32);
        } else if (strcmp(cmd, "ratio") == 0) {
            if (y < 1 || y > 255 || ptc_model_set_ratio(m, x, (uint8_t)y) != PTC_OK) goto bad;
        } else if (strcmp(cmd, "privilege") == 0) {
            if (!modelcfg_number(c, &z) || z > 3 || ptc_model_privilege(m, x, y, (uint8_t)z) != PTC_OK) goto bad;
        } else if (strcmp(cmd, "sleep") == 0) {
            if (!modelcfg_number(c, &z) || y < 1 || y > 15) goto bad;
            ptc_model_sleep(m, x, strcmp(d, "hlt") != 0, 0x20, 1, (uint8_t)y, z, 1);
        } else {
            snprintf(s->error, sizeof s->error, "line %d: unknown command '%s'", s->line, cmd);
            return 0;
        }
        continue;
    bad:
        snprintf(s->error, sizeof s->error, "line %d: bad arguments for '%s'", s->line, cmd);
        return 0;
    }
    if (!s->started) {
        if (ptc_model_init(m, &s->cfg, sink) != PTC_OK) {
            snprintf(s->error, sizeof s->error, "bad model setting: %s", ptc_model_error_field(m));
            return 0;
        }
        s->started = 1;
    }
    return 1;
}

#endif

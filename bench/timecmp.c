/* timecmp - how close to the truth the times of a trace come, decoded by
   ptcodec's clock and by libipt's query decoder (pt_qry_time). Not a test:
   it prints a table (SPEC.md 3.10).

   Three kinds of stream, each with the true TSC of every packet (a TNT's is
   its first branch's, SPEC 3.1):
   - ptsim's standard workloads, written by ptcodec's model, with and
     without MTC suppression and CYC, and (--real-clocks) with real clocks
     without suppression, as hardware writes them. ptcodec runs with what Linux perf
     records of a trace and hands libipt (mtc_freq, the CPUID ratio, nom
     rounded to an integer, the CYC threshold; nothing about suppression)
     and with the configuration ptsim writes (exact nom, the policy);
   - streams libipt's own encoder wrote from a timing model of their own
     (bench/encgen.h): dense and sparse, CYC off, at threshold 0 and at 3,
     MTC periods 0..9, and at thresholds 1 and 6 every third period.
     ptcodec gets what perf records;
   - streams libipt's encoder wrote from the other reading of the CYC rules
     (bench/encwhole.h: a TNT whole, its CYC right before it), dense and
     sparse, CYC off and thresholds 0, 1 and 6. ptcodec gets what perf
     records.
   Built against libipt 2.2 (make builds it as timecmp22), the libipt rows
   are 2.2's query decoder: its label says which libipt it is.

   libipt answers queries (conditional branch, indirect branch, event);
   each answer belongs to one packet - a TNT (its first bit), a TIP, a
   TIP.PGE, a TIP.PGD, a PIP, a PTW - and the time libipt gives with it is
   compared to that packet's true time. ptcodec's point estimate for the
   same packets is compared the same way. Which packet an answer belongs to
   is checked: the IPs libipt reports must be the packets' IPs, or the row
   is not compared.

   With Linux perf installed, each stream is also decoded by perf (see
   run_perf) and scored over the packets libipt and perf both time, and
   over every packet perf and ptcodec time ("all"). On a stream with CYC
   ptcodec also runs without the CYC threshold ("no threshold", SPEC 3.5
   rule 4), judged as its other configurations.

   usage: timecmp [--cycles N] [--events N] [--seed S] [--workload NAME]
                  [--model-only] [--encoder-only] [--whole-only] (any of them: those rows only)
                  [--real-clocks] [--check] [--no-perf] [--trace LABEL]
   --real-clocks: the model's workloads again with real clocks (SPEC 5.1),
   without suppression as hardware writes them; --check judges them as
   every other row.
   --check: exit status 1 unless, in every row, ptcodec's times keep G2
   (SPEC 3.8), every true time is inside its interval, and ptcodec's
   maximum and mean errors (with every configuration) are no worse than
   libipt's, nor than perf's over perf's packets, in both of perf's
   scorings, and no stream breaks a rule of ptdump --check (make check
   runs this).
   --trace LABEL: one line per packet of each row whose label contains
   LABEL, with every decoder's error: where to look when a row loses. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../harness/modelrec.h"
#include "../harness/perforacle.h"
#include "encgen.h"
#include "encwhole.h"

#include <intel-pt.h>
#include "../harness/libipt_times.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Error statistics of one decoder over the compared packets. */
typedef struct score {
    size_t n, back, outside, no_time;
    uint64_t max_err;
    double sum_err;
    uint64_t last;         /* libipt's last time */
    ptc_clock_order order; /* ptcodec's and perf's times, by SPEC 3.8 G2 */
} score;

static void score_add(score *s, uint64_t est, uint64_t truth)
{
    uint64_t e = est >= truth ? est - truth : truth - est;
    s->n++;
    s->sum_err += (double)e;
    if (e > s->max_err) s->max_err = e;
}

/* libipt's times, in the order it answers: none may go back. */
static void score_step(score *s, uint64_t est)
{
    if (est < s->last) s->back++;
    s->last = est;
}

/* A time per packet, in stream order: G2, where a TNT's time (its first
   branch's) need only follow the last non-timing packet's. */
static void score_order(score *s, const ptc_timed_item *t) { s->back += !ptc_clock_order_next(&s->order, t); }

static void score_order_point(score *s, const ptc_item *it, uint64_t est)
{
    ptc_timed_item t;
    memset(&t, 0, sizeof t);
    t.item = *it;
    t.have_time = 1;
    t.tsc = t.tsc_lo = t.tsc_hi = est;
    score_order(s, &t);
}

/* A trace with the true TSC of each packet, and the configuration libipt
   is given (what perf records). */
typedef struct stream {
    const uint8_t *bytes;
    size_t len;
    const uint64_t *truth;
    const uint64_t *offset; /* each packet's offset, to check the alignment; NULL: not known */
    size_t n;
    perforacle_settings rec;        /* what perf records of it (harness/perforacle.h) */
} stream;

/* A stream the bench's encoders wrote: its bytes, its truth, and its
   settings as perf records them. */
static stream encoded_stream(const uint8_t *bytes, size_t len, const uint64_t *truth, const uint64_t *offset, size_t n,
                             uint8_t mtc_freq, uint8_t nom, uint32_t eax, uint32_t ebx, int cyc, uint8_t cyc_thresh)
{
    stream sm;
    memset(&sm, 0, sizeof sm);
    sm.bytes = bytes;
    sm.len = len;
    sm.truth = truth;
    sm.offset = offset;
    sm.n = n;
    sm.rec.mtc_freq = mtc_freq;
    sm.rec.nom_freq = nom;
    sm.rec.cpuid_15_eax = eax;
    sm.rec.cpuid_15_ebx = ebx;
    sm.rec.cyc_en = (uint8_t)cyc;
    sm.rec.cyc_thresh = cyc_thresh;
    return sm;
}

static int use_perf = 1;       /* --no-perf: only libipt and ptcodec */
static char libipt_label[32];  /* "libipt 2.0.5": the libipt this was built with */
static int perf_rows = 0;      /* rows perf decoded */
static int perf_rows_lost = 0; /* rows where ptcodec does worse than perf */
static int events_rows = 0, events_rows_lost = 0; /* rows, and those where the events decoder does worse than libipt */
static int real_clocks;        /* --real-clocks: the model rows with real clocks too */
static const char *trace_row;  /* --trace LABEL: every packet of the rows whose label has it */

/* One line per packet for --trace: its truth, and each decoder's error
   (ptcodec's with its interval, by the first configuration). */
static void trace_packet(size_t k, const ptc_item *it, uint64_t truth, const ptc_timed_item *o, uint64_t lib, uint64_t perf,
                         const ptc_timed_item *ev)
{
    const ptc_packet *p = &it->pkt;
    uint64_t v = p->type == PTC_CYC ? p->u.cyc.cycles : p->type == PTC_MTC ? p->u.mtc.ctc : ptc_packet_is_tnt(p->type) ? p->u.tnt.count : 0;
    printf("%7zu %8llx %-9s %-6llx truth %llu ptcodec %+lld [%+lld, %+lld]%s", k, (unsigned long long)it->offset,
           ptc_packet_type_name(p->type), (unsigned long long)v, (unsigned long long)truth, (long long)(o->tsc - truth),
           (long long)(o->tsc_lo - truth), o->tsc_hi == UINT64_MAX ? 0LL : (long long)(o->tsc_hi - truth),
           o->conflict ? " conflict" : "");
    if (lib != UINT64_MAX) printf(" libipt %+lld", (long long)(lib - truth));
    if (perf != UINT64_MAX) printf(" perf %+lld", (long long)(perf - truth));
    if (ev->have_time)
        printf(" events-only %+lld [%+lld, %+lld]", (long long)(ev->tsc - truth), (long long)(ev->tsc_lo - truth),
               ev->tsc_hi == UINT64_MAX ? 0LL : (long long)(ev->tsc_hi - truth));
    printf("\n");
}

/* libipt's times, as harness/libipt_times.h ties them to packets: est[k]
   for the packet k an answer belongs to, and every time in the order
   libipt gives them (none may go back). */
typedef struct libipt_est { uint64_t *est; score *steps; } libipt_est;

static void libipt_time(void *user, size_t k, uint64_t tsc)
{
    libipt_est *e = (libipt_est *)user;
    score_step(e->steps, tsc);
    if (k != SIZE_MAX) e->est[k] = tsc;
}

/* libipt's time for each packet an answer belongs to (UINT64_MAX: none). */
static void run_libipt(const stream *sm, const ptc_item *items, size_t n, uint64_t *est, score *steps, int *failed)
{
    struct pt_config cfg;
    libipt_est est_of;
    libipt_times_walk w;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.begin = (uint8_t *)(uintptr_t)sm->bytes;
    cfg.end = cfg.begin + sm->len;
    cfg.mtc_freq = sm->rec.mtc_freq;
    cfg.nom_freq = sm->rec.nom_freq;
    cfg.cpuid_0x15_eax = sm->rec.cpuid_15_eax;
    cfg.cpuid_0x15_ebx = sm->rec.cpuid_15_ebx;
    est_of.est = est;
    est_of.steps = steps;
    if (!libipt_times_query_times(&cfg, items, n, SIZE_MAX, libipt_time, &est_of, &w)) {
        *failed = 1;
    } else if (w.lost) {
        fprintf(stderr, "timecmp: libipt's answer (ip %llx) does not match the packet at %lld\n",
                (unsigned long long)w.lost_ip, w.lost_at == UINT64_MAX ? -1LL : (long long)w.lost_at);
        *failed = 1;
    }
}

/* Linux perf's time for each packet (UINT64_MAX: perf never reached it;
   harness/perforacle.h). Returns 0 when perf cannot run here. */
static int run_perf(const stream *sm, const ptc_item *items, size_t n, uint64_t *est)
{
    return perforacle_perf_times(sm->bytes, sm->len, &sm->rec, items, n, est);
}

static void run_ptcodec(const ptc_clock_config *cc, const ptc_item *items, size_t n, ptc_timed_item *out)
{
    static ptc_clock clk;
    size_t i, k = 0;
    ptc_clock_init(&clk, cc);
    for (i = 0; i <= n; i++) {
        if (i < n) ptc_clock_push(&clk, &items[i]);
        else ptc_clock_finish(&clk);
        while (k < n && ptc_clock_pop(&clk, &out[k]) == PTC_OK) k++;
    }
}

/* The events decoder (SPEC 3.13) on the stream's bytes: out[k] for the
   item k it hands out (matched by offset), the others without a time. */
static void run_events(const ptc_clock_config *cc, const stream *sm, const ptc_item *items, size_t n, ptc_timed_item *out)
{
    static ptc_events ev;
    ptc_timed_item t;
    size_t k = 0;
    memset(out, 0, n * sizeof *out);
    if (ptc_events_init_buffer(&ev, cc, 0, sm->bytes, sm->len) != PTC_OK) return;
    while (ptc_events_next(&ev, &t) == PTC_OK) {
        while (k < n && items[k].offset < t.item.offset) k++;
        if (k < n && items[k].offset == t.item.offset) out[k++] = t;
    }
}

static void row(const char *label, const char *who, const score *s)
{
    printf("| %-24s | %-22s | %7zu | %8llu | %8.1f | %5zu |", label, who, s->n, (unsigned long long)s->max_err,
           s->n ? s->sum_err / (double)s->n : 0.0, s->back);
    if (s->outside != (size_t)-1) printf(" %7zu |\n", s->outside); else printf("       - |\n");
}

static double mean(const score *s) { return s->n ? s->sum_err / (double)s->n : 0.0; }

/* The first finding ptdump --check has on the stream, given the clock's
   settings (the time rules, SPEC 7.3.5) and nothing else, or 0: both
   encoders, and the model, write by the SDM's rules (SPEC 7.5). */
static size_t first_finding(const ptc_item *items, size_t n, const ptc_clock_config *clock, ptc_finding *f)
{
    static ptc_conform chk;
    ptc_conform_config clock_known;
    size_t k, nf;
    memset(&clock_known, 0, sizeof clock_known);
    clock_known.trace = clock->trace;
    clock_known.real = clock->real;
    ptc_conform_init(&chk, &clock_known);
    for (k = 0; k < n; k++)
        if ((nf = ptc_conform_item(&chk, &items[k], f)) != 0) return nf;
    return 0;
}

/* One stream: libipt, then ptcodec with each configuration given (NULL
   ends the list), scored over the packets all of them time. Returns 2 when
   the comparison could not be made, 1 when ptcodec lost (a time outside
   its interval, a time going back, a maximum or mean error above
   libipt's, or above perf's over perf's packets), else 0. */
static int compare(const char *label, const stream *sm, const ptc_clock_config *const *cfgs, const char *const *names)
{
    ptc_decoder d;
    ptc_item *items = (ptc_item *)malloc((sm->n + 1) * sizeof *items);
    uint64_t *est = (uint64_t *)malloc((sm->n + 1) * sizeof *est);
    uint64_t *est_perf = (uint64_t *)malloc((sm->n + 1) * sizeof *est_perf);
    ptc_timed_item *t[3], *t_ev;
    score s_lib, s[3], s_perf, s_ours; /* the last two over the packets perf times too */
    score s_ev;                        /* the events decoder, with the first configuration */
    score s_perf_all, s_ours_all;      /* over every packet perf and ptcodec time, not only libipt's */
    size_t n = 0, k;
    int failed = 0, j, nc = 0, lost = 0, broke = 0, worse = 0, have_perf, broke_rules = 0;
    if (!items || !est || !est_perf) { fprintf(stderr, "timecmp: out of memory\n"); exit(2); }
    ptc_decoder_init_buffer(&d, 0, sm->bytes, sm->len);
    while (n < sm->n && ptc_decoder_next(&d, &items[n]) == PTC_OK) n++;
    for (k = 0; k < n; k++) {
        est[k] = est_perf[k] = UINT64_MAX;
        if (sm->offset && items[k].offset != sm->offset[k]) { fprintf(stderr, "timecmp: truth misaligned\n"); exit(2); }
    }
    if (n != sm->n) { fprintf(stderr, "timecmp: %s: %zu packets decoded of %zu\n", label, n, sm->n); exit(2); }
    {
        ptc_finding f[PTC_CONFORM_MAX_FINDINGS];
        if (first_finding(items, n, cfgs[0], f)) {
            printf("  ^ the stream breaks %s at %llx (ptdump --check)\n", ptc_rule_name(f[0].rule),
                   (unsigned long long)f[0].offset);
            broke_rules = 1;
        }
    }
    memset(&s_lib, 0, sizeof s_lib);
    s_lib.outside = (size_t)-1;
    run_libipt(sm, items, n, est, &s_lib, &failed);
    have_perf = use_perf && run_perf(sm, items, n, est_perf);
    memset(&s_perf, 0, sizeof s_perf);
    memset(&s_ours, 0, sizeof s_ours);
    memset(&s_perf_all, 0, sizeof s_perf_all);
    memset(&s_ours_all, 0, sizeof s_ours_all);
    s_perf_all.outside = (size_t)-1;
    s_perf.outside = (size_t)-1;
    for (j = 0; j < 3 && cfgs[j]; j++, nc++) {
        t[j] = (ptc_timed_item *)calloc(n + 1, sizeof *t[j]);
        if (!t[j]) { fprintf(stderr, "timecmp: out of memory\n"); exit(2); }
        run_ptcodec(cfgs[j], items, n, t[j]);
        memset(&s[j], 0, sizeof s[j]);
    }
    t_ev = (ptc_timed_item *)calloc(n + 1, sizeof *t_ev);
    if (!t_ev) { fprintf(stderr, "timecmp: out of memory\n"); exit(2); }
    run_events(cfgs[0], sm, items, n, t_ev);
    memset(&s_ev, 0, sizeof s_ev);
    for (k = 0; k < n; k++) {
        int timed = est[k] != UINT64_MAX;
        for (j = 0; j < nc; j++) {
            score_order(&s[j], &t[j][k]);
            timed &= t[j][k].have_time;
        }
        if (ptc_events_is_event(&items[k])) score_order(&s_ev, &t_ev[k]);
        if (timed && t_ev[k].have_time) {
            score_add(&s_ev, t_ev[k].tsc, sm->truth[k]);
            s_ev.outside += !(t_ev[k].tsc_lo <= sm->truth[k] && sm->truth[k] <= t_ev[k].tsc_hi);
        }
        if (have_perf && est_perf[k] != UINT64_MAX) score_order_point(&s_perf, &items[k], est_perf[k]);
        if (trace_row && strstr(label, trace_row)) trace_packet(k, &items[k], sm->truth[k], &t[0][k], est[k], est_perf[k], &t_ev[k]);
        if (have_perf && est_perf[k] != UINT64_MAX && t[0][k].have_time) {
            score_add(&s_perf_all, est_perf[k], sm->truth[k]);
            score_add(&s_ours_all, t[0][k].tsc, sm->truth[k]);
            s_ours_all.outside += !(t[0][k].tsc_lo <= sm->truth[k] && sm->truth[k] <= t[0][k].tsc_hi);
        }
        if (!timed) continue;
        if (have_perf && est_perf[k] != UINT64_MAX) {
            score_add(&s_perf, est_perf[k], sm->truth[k]);
            score_add(&s_ours, t[0][k].tsc, sm->truth[k]);
            s_ours.outside += !(t[0][k].tsc_lo <= sm->truth[k] && sm->truth[k] <= t[0][k].tsc_hi);
        }
        score_add(&s_lib, est[k], sm->truth[k]);
        for (j = 0; j < nc; j++) {
            score_add(&s[j], t[j][k].tsc, sm->truth[k]);
            s[j].outside += !(t[j][k].tsc_lo <= sm->truth[k] && sm->truth[k] <= t[j][k].tsc_hi);
        }
    }
    if (failed) {
        printf("| %-24s | libipt lost its place: not compared |\n", label);
    } else {
        row(label, libipt_label, &s_lib);
        for (j = 0; j < nc; j++) {
            row(label, names[j], &s[j]);
            if (s[j].back || s[j].outside) lost = broke = 1;
            if (s_lib.n && (s[j].max_err > s_lib.max_err || mean(&s[j]) > mean(&s_lib))) worse = 1;
        }
        row(label, "ptcodec events-only", &s_ev);
        if (s_ev.back || s_ev.outside) lost = broke = 1;
        if (s_lib.n && (s_ev.max_err > s_lib.max_err || mean(&s_ev) > mean(&s_lib))) {
            printf("  ^ ptcodec's events-only decoder does worse than libipt in this row\n");
            events_rows_lost++;
            lost = 1;
        }
        events_rows++;
        if (broke) printf("  ^ ptcodec's times break G1 or G2 in this row\n");
        if (worse) printf("  ^ ptcodec does worse than libipt in this row\n");
        if (worse) lost = 1;
        if (have_perf && s_perf.n) {
            perf_rows++;
            s_ours.back = s[0].back; /* (the same times, over the whole trace) */
            row(label, "Linux perf 6.1", &s_perf);
            row(label, "ptcodec, perf's packets", &s_ours);
            /* and over every packet both time (timing packets, CYCs at the
               end of the trace...), not only those libipt answers with */
            s_ours_all.back = s[0].back;
            row(label, "Linux perf 6.1, all", &s_perf_all);
            row(label, "ptcodec, all perf's", &s_ours_all);
            if (s_ours.outside || s_ours_all.outside) lost = 1;
            if (s_ours.outside || s_ours.max_err > s_perf.max_err || mean(&s_ours) > mean(&s_perf) ||
                s_ours_all.outside || s_ours_all.max_err > s_perf_all.max_err || mean(&s_ours_all) > mean(&s_perf_all)) {
                printf("  ^ ptcodec does worse than perf in this row (perf's packets: max %llu vs %llu, mean %.3f vs %.3f;"
                       " all: max %llu vs %llu, mean %.3f vs %.3f)\n",
                       (unsigned long long)s_ours.max_err, (unsigned long long)s_perf.max_err, mean(&s_ours), mean(&s_perf),
                       (unsigned long long)s_ours_all.max_err, (unsigned long long)s_perf_all.max_err, mean(&s_ours_all),
                       mean(&s_perf_all));
                perf_rows_lost++;
                lost = 1;
            }
        }
    }
    for (j = 0; j < nc; j++) free(t[j]);
    free(t_ev);
    free(items);
    free(est);
    free(est_perf);
    return failed ? 2 : lost || broke_rules;
}

/* One model row: workload wi under policy, with CYC or not, and with
   real clocks (SPEC 5.1: MTCs late by up to 4 cycles and some lost, a core
   clock wobbling by 5000 ppm, PSB+s with their TSC sampled before the MTC
   ahead of it) or the SDM's. ptcodec runs with what perf records (nom
   rounded, no policy; the hardware tolerances of ptc_clock_config_default
   with real clocks, else the SDM's clocks) and with the configuration
   ptsim writes. */
static int model_row(int wi, const char *policy, int cyc, int real, uint64_t cycles, uint64_t seed)
{
    static const char *const names[] = { "ptcodec, perf's config", "ptcodec, ptsim config", "ptcodec, no threshold" };
    modelrec_trace tr;
    ptc_model_config mc;
    ptc_model m;
    ptc_model_sink sink = modelrec_start(&tr, 1); /* t[i]: the i-th packet of the stream */
    ptc_clock_config cc_lib, cc_full, cc_raw;
    const ptc_clock_config *cfgs[4];
    stream sm;
    uint64_t *truth, *offset;
    char err[128], label[80];
    size_t k;
    int r;
    ptc_model_config_default(&mc);
    workload_configure(wi, &mc);
    modelcfg_policy(&mc.trace.policy, policy, err, sizeof err);
    if (cyc) { mc.trace.ctl.cyc_en = 1; mc.trace.ctl.cyc_thresh = 2; }
    if (real && !modelcfg_set_list(&mc, "mtc_jitter=4,jitter_seed=5,mtc_lost=1,rate_ppm=5000,psb_early_tsc=200", err, sizeof err)) {
        fprintf(stderr, "timecmp: %s\n", err);
        exit(2);
    }
    if (ptc_model_init(&m, &mc, &sink) != PTC_OK) { fprintf(stderr, "timecmp: model config\n"); exit(2); }
    workload_run_workload(wi, &m, cycles, seed);
    truth = (uint64_t *)malloc((tr.nt + 1) * sizeof *truth);
    offset = (uint64_t *)malloc((tr.nt + 1) * sizeof *offset);
    if (!truth || !offset) { fprintf(stderr, "timecmp: out of memory\n"); exit(2); }
    for (k = 0; k < tr.nt; k++) {
        truth[k] = tr.t[k].time.tsc;
        offset[k] = tr.t[k].offset;
    }
    memset(&sm, 0, sizeof sm);
    sm.bytes = tr.bytes;
    sm.len = tr.len;
    sm.truth = truth;
    sm.offset = offset;
    sm.n = tr.nt;
    sm.rec.mtc_freq = mc.trace.ctl.mtc_freq;
    sm.rec.nom_freq = (uint8_t)ptc_model_nom_freq(&mc);
    sm.rec.cpuid_15_eax = mc.trace.ratios.cpuid_15_eax;
    sm.rec.cpuid_15_ebx = mc.trace.ratios.cpuid_15_ebx;
    sm.rec.cyc_en = mc.trace.ctl.cyc_en;
    sm.rec.cyc_thresh = mc.trace.ctl.cyc_thresh;
    ptc_clock_config_from_model(&cc_full, &mc);
    if (real) ptc_clock_config_default(&cc_lib);
    else ptc_clock_config_sdm(&cc_lib); /* the model's clocks are the SDM's */
    cc_lib.trace.ctl.mtc_freq = mc.trace.ctl.mtc_freq;
    cc_lib.trace.ratios.cpuid_15_eax = mc.trace.ratios.cpuid_15_eax;
    cc_lib.trace.ratios.cpuid_15_ebx = mc.trace.ratios.cpuid_15_ebx;
    cc_lib.trace.ratios.nom_num = ptc_model_nom_freq(&mc);
    cc_lib.trace.ratios.nom_den = 1;
    cc_lib.trace.ctl.cyc_en = mc.trace.ctl.cyc_en; /* perf records these two with the trace */
    cc_lib.trace.ctl.cyc_thresh = mc.trace.ctl.cyc_thresh;
    cc_lib.trace.known |= PTC_KNOW_CYC_EN | PTC_KNOW_CYC_THRESH;
    cc_lib.trace.known &= ~(uint32_t)PTC_KNOW_POLICY;
    /* a raw trace whose CYC threshold nobody wrote down (SPEC 3.5 rule 4) */
    cc_raw = cc_lib;
    cc_raw.trace.known &= ~(uint32_t)PTC_KNOW_CYC_THRESH;
    cfgs[0] = &cc_lib;
    cfgs[1] = &cc_full;
    cfgs[2] = cyc ? &cc_raw : NULL;
    cfgs[3] = NULL;
    snprintf(label, sizeof label, "%s, MTC %s, CYC %s%s", workload_names[wi], policy, cyc ? "on" : "off",
             real ? ", real clocks" : "");
    r = compare(label, &sm, cfgs, names);
    free(truth);
    free(offset);
    modelrec_free(&tr);
    return r;
}

/* The model's standard workloads, with and without MTC suppression and
   CYC; then, with --real-clocks, again without suppression (as hardware
   writes them) and with real clocks. */
static int model_rows(uint64_t cycles, uint64_t seed, int only)
{
    static const char *policies[] = { "off", "seed" };
    int wi, p, cyc, real, worst = 0;
    for (real = 0; real <= real_clocks; real++)
        for (wi = 0; wi < WORKLOAD_COUNT; wi++) {
            if (only >= 0 && wi != only) continue;
            for (p = 0; p < 2 - real; p++)
                for (cyc = 0; cyc < 2; cyc++) {
                    int r = model_row(wi, policies[p], cyc, real, cycles, seed);
                    if (r > worst) worst = r;
                }
        }
    return worst;
}

/* An encoder's stream with what perf records of it (the stream's own
   settings): ptcodec gets those, with the SDM's clocks (both encoders'
   clocks are ideal), and on a stream with CYC the same without the
   threshold, as for a raw trace (SPEC 3.5 rule 4). */
static int compare_encoded(const char *label, stream *sm)
{
    static const char *const names[] = { "ptcodec, perf's config", "ptcodec, no threshold" };
    ptc_clock_config cc, cc_raw;
    const ptc_clock_config *cfgs[3];
    ptc_clock_config_sdm(&cc);
    cc.trace.ctl.mtc_freq = sm->rec.mtc_freq;
    cc.trace.ratios.cpuid_15_eax = sm->rec.cpuid_15_eax;
    cc.trace.ratios.cpuid_15_ebx = sm->rec.cpuid_15_ebx;
    cc.trace.ratios.nom_num = sm->rec.nom_freq;
    cc.trace.ratios.nom_den = 1;
    cc.trace.ctl.cyc_en = sm->rec.cyc_en;
    cc.trace.ctl.cyc_thresh = sm->rec.cyc_thresh;
    cc.trace.known |= PTC_KNOW_CYC_EN | PTC_KNOW_CYC_THRESH;
    cc_raw = cc;
    cc_raw.trace.known &= ~(uint32_t)PTC_KNOW_CYC_THRESH;
    cfgs[0] = &cc;
    cfgs[1] = sm->rec.cyc_en ? &cc_raw : NULL;
    cfgs[2] = NULL;
    return compare(label, sm, cfgs, names);
}

/* The CYC settings of the encoder rows: off, then each threshold. */
typedef struct cyc_setting { int on; uint8_t thresh; const char *name; } cyc_setting;

/* Streams libipt's encoder wrote (bench/encgen.h): dense and sparse, CYC
   off, at threshold 0 and at 3, every MTC period 0..9; at threshold 1 and
   6 (1 and 32 cycles) every third period. Hardware-like clocks: TSC:CTC
   308/2, nom 37 at ratio 30 (the Xeon in shared/pt-traces-timed). */
static int encoder_rows(uint64_t events, uint64_t seed)
{
    static const cyc_setting cycs[] = { { 0, 0, "off" }, { 1, 0, "T=0" }, { 1, 3, "T=3" }, { 1, 1, "T=1" }, { 1, 6, "T=6" } };
    int sparse, c, f, worst = 0;
    for (sparse = 0; sparse < 2; sparse++)
        for (c = 0; c < 5; c++)
            for (f = 0; f <= 9; f += c < 3 ? 1 : 3) {
                encgen_config ec;
                encgen_trace tr;
                stream sm;
                char label[64];
                int r;
                memset(&ec, 0, sizeof ec);
                ec.seed = seed + (uint64_t)(f * 6 + sparse * 3 + c) + (c >= 3 ? 1000 : 0);
                ec.events = sparse ? events / 8 : events;
                ec.sparse = sparse;
                ec.cyc = cycs[c].on;
                ec.cyc_thresh = cycs[c].thresh;
                ec.mtc_freq = (uint8_t)f;
                ec.eax = 2;
                ec.ebx = 308;
                ec.nom = 37;
                ec.cbr = 30;
                encgen_generate(&ec, &tr);
                if (tr.failed) { fprintf(stderr, "timecmp: libipt's encoder failed\n"); exit(2); }
                sm = encoded_stream(tr.bytes, tr.len, tr.truth, NULL, tr.n, ec.mtc_freq, ec.nom, ec.eax, ec.ebx, ec.cyc,
                                    ec.cyc_thresh);
                snprintf(label, sizeof label, "%s, CYC %s, MTC %d", sparse ? "sparse" : "dense", cycs[c].name, f);
                r = compare_encoded(label, &sm);
                if (r > worst) worst = r;
                encgen_free(&tr);
            }
    return worst;
}

/* Streams libipt's encoder wrote from the other reading of the CYC rules
   (bench/encwhole.h: a TNT whole, its CYC right before it): dense and
   sparse; CYC off and CycThresh 0, 1 and 6 (any cycle, 1 and 32 cycles);
   the clocks of issue 45 (ratio 30, nom 24, TSC:CTC 100/1, an MTC every 8
   crystal ticks). */
static int whole_rows(uint64_t events, uint64_t seed)
{
    static const cyc_setting cycs[] = { { 0, 0, "off" }, { 1, 0, "T=0" }, { 1, 1, "T=1" }, { 1, 6, "T=6" } };
    int sparse, c, worst = 0;
    for (sparse = 0; sparse < 2; sparse++)
        for (c = 0; c < 4; c++) {
            encwhole_config ec;
            encwhole_trace tr;
            stream sm;
            char label[64];
            int r;
            memset(&ec, 0, sizeof ec);
            ec.seed = seed * 1000 + (uint64_t)(sparse * 4 + c);
            ec.bytes = (size_t)(sparse ? events : 4 * events);
            ec.sparse = sparse;
            ec.cyc = cycs[c].on;
            ec.cyc_thresh = cycs[c].thresh;
            ec.mtc_freq = 3;
            ec.eax = 1;
            ec.ebx = 100;
            ec.nom = 24;
            ec.cbr = 30;
            encwhole_generate(&ec, &tr);
            if (tr.failed) { fprintf(stderr, "timecmp: encwhole.h could not write its stream\n"); exit(2); }
            sm = encoded_stream(tr.bytes, tr.len, tr.truth, tr.offset, tr.n, ec.mtc_freq, ec.nom, ec.eax, ec.ebx, ec.cyc,
                                ec.cyc_thresh);
            snprintf(label, sizeof label, "whole %s, CYC %s", sparse ? "sparse" : "dense", cycs[c].name);
            r = compare_encoded(label, &sm);
            if (r > worst) worst = r;
            encwhole_free(&tr);
        }
    return worst;
}

int main(int argc, char **argv)
{
    uint64_t cycles = 20000000, seed = 1, events = 200000;
    int only = -1, i, check = 0, worst = 0, kinds = 0; /* (1 model, 2 encgen, 4 encwhole; 0: all) */
    util_prog = "timecmp";
    snprintf(libipt_label, sizeof libipt_label, "libipt %d.%d.%d", LIBIPT_VERSION_MAJOR, LIBIPT_VERSION_MINOR,
             LIBIPT_VERSION_PATCH);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cycles") && i + 1 < argc) {
            if (!util_parse_u64("--cycles", argv[++i], UINT64_MAX, &cycles)) return 2;
        } else if (!strcmp(argv[i], "--events") && i + 1 < argc) {
            if (!util_parse_u64("--events", argv[++i], UINT64_C(1) << 32, &events)) return 2;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            if (!util_parse_u64("--seed", argv[++i], UINT64_C(1) << 32, &seed)) return 2;
        } else if (!strcmp(argv[i], "--workload") && i + 1 < argc) {
            only = workload_find(argv[++i]);
            if (only < 0) { fprintf(stderr, "timecmp: no workload %s\n", argv[i]); return 2; }
            kinds |= 1;
        } else if (!strcmp(argv[i], "--model-only")) {
            kinds |= 1;
        } else if (!strcmp(argv[i], "--encoder-only")) {
            kinds |= 2;
        } else if (!strcmp(argv[i], "--whole-only")) {
            kinds |= 4;
        } else if (!strcmp(argv[i], "--check")) {
            check = 1;
        } else if (!strcmp(argv[i], "--real-clocks")) {
            real_clocks = 1;
        } else if (!strcmp(argv[i], "--no-perf")) {
            use_perf = 0;
        } else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
            trace_row = argv[++i];
        } else {
            fprintf(stderr, "usage: timecmp [--cycles N] [--events N] [--seed S] [--workload NAME] [--model-only]\n"
                            "               [--encoder-only] [--whole-only] [--real-clocks] [--check] [--no-perf]\n"
                            "               [--trace LABEL]\n");
            return 2;
        }
    }
    if (!kinds) kinds = 7;
    printf("Time of each packet libipt answers a query with (TNT, TIP, TIP.PGE, TIP.PGD, PIP, PTW) against the\n"
           "truth, in TSC ticks (a TNT's time is its first branch's); seed %llu. back: times that went backwards\n"
           "over the whole trace; outside: true time not in ptcodec's interval.\n",
           (unsigned long long)seed);
    printf("\n| %-24s | %-22s | packets | max err  | mean err | back  | outside |\n", "stream", "decoder");
    printf("|--------------------------|------------------------|---------|----------|----------|-------|---------|\n");
    if (kinds & 1) {
        printf("| ptsim's workloads, %llu core cycles each |\n", (unsigned long long)cycles);
        worst = model_rows(cycles, seed, only);
    }
    if (kinds & 2) {
        int r;
        printf("| written by libipt's encoder (bench/encgen.h), %llu events dense, %llu sparse |\n",
               (unsigned long long)events, (unsigned long long)(events / 8));
        r = encoder_rows(events, seed);
        if (r > worst) worst = r;
    }
    if (kinds & 4) {
        int r;
        printf("| written by libipt's encoder from the other reading (bench/encwhole.h), %llu bytes dense, %llu sparse |\n",
               (unsigned long long)(4 * events), (unsigned long long)events);
        r = whole_rows(events, seed);
        if (r > worst) worst = r;
    }
    if (use_perf) printf("rows where ptcodec does worse than Linux perf: %d of %d\n", perf_rows_lost, perf_rows);
    printf("rows where ptcodec's events-only decoder does worse than libipt: %d of %d\n", events_rows_lost, events_rows);
    if (check && worst) printf("CHECK FAILED\n");
    else if (check && perf_rows)
        printf("check: ptcodec's clock and events decoder no worse than %s in any of %d rows, nor the clock than Linux "
               "perf in any of the %d it decoded\n", libipt_label, events_rows, perf_rows);
    else if (check)
        printf("check: ptcodec's clock and events decoder no worse than %s in any of %d rows (Linux perf not run)\n",
               libipt_label, events_rows);
    return worst == 2 || (check && worst);
}

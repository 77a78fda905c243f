/* timecmp - how close to the truth the times of a trace come, decoded by
   ptcodec's clock and by libipt's query decoder (pt_qry_time), for the
   model's standard workloads (SPEC.md 3.10). Not a test: it prints a table.

   The model writes a trace and the true TSC of every packet. libipt answers
   queries (conditional branch, indirect branch, event); each answer belongs
   to one packet - a TNT (its first bit), a TIP, a TIP.PGE, a TIP.PGD, a PIP,
   a PTW - and the time libipt gives with it is compared to that packet's true
   time. ptcodec's point estimate for the same packets is compared the same
   way. Which packet an answer belongs to is checked: the IPs libipt reports
   must be the packets' IPs, or the run stops.

   ptcodec runs twice: with what Linux perf records of a trace and hands
   libipt (mtc_freq, the CPUID ratio, nom_freq rounded to an integer, and
   the CYC threshold; nothing about suppression), and with the
   configuration ptsim writes (exact nom, the policy).

   usage: timecmp [--cycles N] [--seed S] [--workload NAME] [--check]
   --check: exit status 1 unless, in every row, ptcodec's times never go back,
   every true time is inside its interval, and ptcodec's maximum error (with
   either configuration) is below libipt's (make check runs this). */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../tools/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../tools/modelrec.h"

#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Error statistics of one decoder over the compared packets. */
typedef struct score {
    size_t n, back, outside, no_time;
    uint64_t max_err;
    double sum_err;
    uint64_t last;
} score;

static void score_add(score *s, uint64_t est, const ptc_truth *t)
{
    uint64_t e = est >= t->time.tsc ? est - t->time.tsc : t->time.tsc - est;
    s->n++;
    s->sum_err += (double)e;
    if (e > s->max_err) s->max_err = e;
}

static void score_step(score *s, uint64_t est)
{
    if (est < s->last) s->back++;
    s->last = est;
}

/* The packet each libipt answer belongs to: one cursor per kind, since
   libipt consumes each kind in stream order. */
typedef struct cursors {
    const mr_trace *tr;
    const ptc_item *items;
    size_t n, tnt, tnt_bits_left, tip, pge, pgd, pip, ptw;
    int lost; /* an answer did not match its packet */
} cursors;

static size_t next_of(cursors *c, size_t *cur, ptc_packet_type a, ptc_packet_type b)
{
    while (*cur < c->n && (c->items[*cur].error != PTC_OK ||
                           (c->items[*cur].pkt.type != a && c->items[*cur].pkt.type != b)))
        (*cur)++;
    return *cur < c->n ? (*cur)++ : SIZE_MAX;
}

static size_t match_ip(cursors *c, size_t k, uint64_t ip, int suppressed)
{
    if (k == SIZE_MAX) { c->lost = 1; return k; }
    if (!suppressed && c->items[k].ip_known && c->items[k].ip != ip) {
        fprintf(stderr, "timecmp: libipt's answer (ip %llx) does not match the packet at %llu (ip %llx)\n",
                (unsigned long long)ip, (unsigned long long)c->items[k].offset, (unsigned long long)c->items[k].ip);
        c->lost = 1;
        return SIZE_MAX;
    }
    return k;
}

/* libipt's time for each packet an answer belongs to (UINT64_MAX: none). */
static void run_libipt(const mr_trace *tr, const ptc_model_config *m, const ptc_item *items, size_t n, uint64_t *est,
                       score *steps, int *failed)
{
    struct pt_config cfg;
    struct pt_query_decoder *q;
    cursors c;
    uint64_t ip;
    int st;
    memset(&c, 0, sizeof c);
    c.tr = tr;
    c.items = items;
    c.n = n;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.begin = tr->bytes;
    cfg.end = tr->bytes + tr->len;
    cfg.mtc_freq = m->mtc_freq;
    cfg.nom_freq = (uint8_t)mc_nom_freq(m);
    cfg.cpuid_0x15_eax = m->cpuid_15_eax;
    cfg.cpuid_0x15_ebx = m->cpuid_15_ebx;
    q = pt_qry_alloc_decoder(&cfg);
    if (!q) { *failed = 1; return; }
    st = pt_qry_sync_forward(q, &ip);
    while (st >= 0 && !c.lost) {
        uint64_t now = UINT64_MAX;
        size_t k = SIZE_MAX;
        int taken;
        while (st >= 0 && (st & pts_event_pending)) {
            struct pt_event ev;
            st = pt_qry_event(q, &ev, sizeof ev);
            if (st < 0) break;
            k = SIZE_MAX;
            switch (ev.type) {
            case ptev_enabled: k = match_ip(&c, next_of(&c, &c.pge, PTC_TIP_PGE, PTC_TIP_PGE), ev.variant.enabled.ip, ev.ip_suppressed); break;
            case ptev_disabled: case ptev_async_disabled: k = next_of(&c, &c.pgd, PTC_TIP_PGD, PTC_TIP_PGD); break;
            case ptev_async_branch: k = match_ip(&c, next_of(&c, &c.tip, PTC_TIP, PTC_TIP), ev.variant.async_branch.to, ev.ip_suppressed); break;
            case ptev_paging: case ptev_async_paging: k = next_of(&c, &c.pip, PTC_PIP, PTC_PIP); break;
            case ptev_ptwrite: k = next_of(&c, &c.ptw, PTC_PTW, PTC_PTW); break;
            default: break;
            }
            if (ev.has_tsc || pt_qry_time(q, &ev.tsc, NULL, NULL) >= 0) { /* not every event is stamped */
                score_step(steps, ev.tsc);
                if (k != SIZE_MAX) est[k] = ev.tsc;
            }
        }
        if (st < 0 || (st & pts_eos)) break;
        st = pt_qry_cond_branch(q, &taken);
        if (st >= 0) {
            if (!c.tnt_bits_left) {
                k = next_of(&c, &c.tnt, PTC_TNT8, PTC_TNT64);
                if (k == SIZE_MAX) { c.lost = 1; break; }
                c.tnt_bits_left = items[k].pkt.u.tnt.count;
            }
            c.tnt_bits_left--;
        } else if (st == -pte_bad_query) {
            st = pt_qry_indirect_branch(q, &ip);
            if (st >= 0) k = match_ip(&c, next_of(&c, &c.tip, PTC_TIP, PTC_TIP), ip, st & pts_ip_suppressed);
            else if (st == -pte_bad_query) { /* neither: an event libipt did not flag (tracing was off) */
                st = pts_event_pending;
                continue;
            }
        }
        if (st < 0) break;
        if (pt_qry_time(q, &now, NULL, NULL) >= 0) {
            score_step(steps, now);
            if (k != SIZE_MAX) est[k] = now;
        }
    }
    if (c.lost) *failed = 1;
    pt_qry_free_decoder(q);
}

static void run_ptcodec(const mr_trace *tr, const ptc_clock_config *cc, const ptc_item *items, size_t n, ptc_timed_item *out)
{
    static ptc_clock clk;
    size_t i, k = 0;
    ptc_clock_init(&clk, cc);
    for (i = 0; i <= n; i++) {
        if (i < n) ptc_clock_push(&clk, &items[i]);
        else ptc_clock_finish(&clk);
        while (k < n && ptc_clock_pop(&clk, &out[k]) == PTC_OK) k++;
    }
    UT_UNUSED(tr);
}

static void row(const char *wl, const char *pol, const char *cyc, const char *who, const score *s)
{
    printf("| %-8s | %-6s | %-3s | %-22s | %7zu | %8llu | %8.1f | %5zu |", wl, pol, cyc, who, s->n,
           (unsigned long long)s->max_err, s->n ? s->sum_err / (double)s->n : 0.0, s->back);
    if (s->outside != (size_t)-1) printf(" %7zu |\n", s->outside); else printf("       - |\n");
}

int main(int argc, char **argv)
{
    static const char *policies[] = { "off", "seed" };
    uint64_t cycles = 20000000, seed = 1;
    int only = -1, wi, p, cyc, i, bad = 0, check = 0, claims_fail = 0;
    ut_prog = "timecmp";
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cycles") && i + 1 < argc) {
            if (!ut_parse_u64("--cycles", argv[++i], UINT64_MAX, &cycles)) return 2;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            if (!ut_parse_u64("--seed", argv[++i], UINT64_MAX, &seed)) return 2;
        }
        else if (!strcmp(argv[i], "--workload") && i + 1 < argc) {
            only = wl_find(argv[++i]);
            if (only < 0) { fprintf(stderr, "timecmp: no workload %s\n", argv[i]); return 2; }
        } else if (!strcmp(argv[i], "--check")) {
            check = 1;
        } else {
            fprintf(stderr, "usage: timecmp [--cycles N] [--seed S] [--workload NAME] [--check]\n");
            return 2;
        }
    }
    printf("Time of each packet libipt answers a query with (TNT, TIP, TIP.PGE, TIP.PGD, PIP, PTW) against the\n"
           "model's truth, in TSC ticks; %llu core cycles per run, seed %llu. back: times that went\n"
           "backwards over the whole trace; outside: true time not in ptcodec's interval.\n\n",
           (unsigned long long)cycles, (unsigned long long)seed);
    printf("| workload | policy | CYC | decoder                | packets | max err  | mean err | back  | outside |\n");
    printf("|----------|--------|-----|------------------------|---------|----------|----------|-------|---------|\n");
    for (wi = 0; wi < WL_COUNT; wi++) {
        if (only >= 0 && wi != only) continue;
        for (p = 0; p < 2; p++)
            for (cyc = 0; cyc < 2; cyc++) {
                mr_trace tr;
                ptc_model_config mc;
                ptc_model m;
                ptc_model_sink sink = mr_start(&tr, 1); /* t[i]: the i-th packet of the stream */
                ptc_decoder d;
                ptc_item *items;
                ptc_timed_item *t_lib, *t_full;
                uint64_t *est;
                size_t n = 0, k;
                score s_lib, s_pl, s_pf;
                ptc_clock_config cc_lib, cc_full;
                char err[128];
                int failed = 0;
                ptc_model_config_default(&mc);
                wl_configure(wi, &mc);
                mc_policy(&mc.policy, policies[p], err, sizeof err);
                if (cyc) { mc.cyc_en = 1; mc.cyc_thresh = 2; }
                if (ptc_model_init(&m, &mc, &sink) != PTC_OK) { fprintf(stderr, "timecmp: model config\n"); return 2; }
                wl_run_workload(wi, &m, cycles, seed);
                items = (ptc_item *)malloc((tr.nt + 1) * sizeof *items);
                ptc_decoder_init_buffer(&d, 0, tr.bytes, tr.len);
                while (n < tr.nt && ptc_decoder_next(&d, &items[n]) == PTC_OK) n++;
                est = (uint64_t *)malloc((n + 1) * sizeof *est);
                for (k = 0; k < n; k++) est[k] = UINT64_MAX;
                t_lib = (ptc_timed_item *)calloc(n + 1, sizeof *t_lib);
                t_full = (ptc_timed_item *)calloc(n + 1, sizeof *t_full);

                memset(&s_lib, 0, sizeof s_lib);
                run_libipt(&tr, &mc, items, n, est, &s_lib, &failed);
                ptc_clock_config_from_model(&cc_full, &mc);
                ptc_clock_config_sdm(&cc_lib); /* the model's clocks are the SDM's */
                cc_lib.mtc_freq = mc.mtc_freq;
                cc_lib.cpuid_15_eax = mc.cpuid_15_eax;
                cc_lib.cpuid_15_ebx = mc.cpuid_15_ebx;
                cc_lib.nom_num = mc_nom_freq(&mc);
                cc_lib.nom_den = 1;
                cc_lib.cyc_en = mc.cyc_en; /* perf records these two with the trace */
                cc_lib.cyc_thresh = mc.cyc_thresh;
                cc_lib.have_policy = 0;
                run_ptcodec(&tr, &cc_lib, items, n, t_lib);
                run_ptcodec(&tr, &cc_full, items, n, t_full);

                memset(&s_pl, 0, sizeof s_pl);
                memset(&s_pf, 0, sizeof s_pf);
                s_lib.outside = (size_t)-1;
                for (k = 0; k < n; k++) {
                    const ptc_truth *t = &tr.t[k];
                    if (items[k].offset != t->offset) { fprintf(stderr, "timecmp: truth misaligned\n"); return 2; }
                    if (t_lib[k].have_time) score_step(&s_pl, t_lib[k].tsc);
                    if (t_full[k].have_time) score_step(&s_pf, t_full[k].tsc);
                    if (est[k] == UINT64_MAX || !t_lib[k].have_time || !t_full[k].have_time) continue;
                    score_add(&s_lib, est[k], t);
                    score_add(&s_pl, t_lib[k].tsc, t);
                    score_add(&s_pf, t_full[k].tsc, t);
                    s_pl.outside += !(t_lib[k].tsc_lo <= t->time.tsc && t->time.tsc <= t_lib[k].tsc_hi);
                    s_pf.outside += !(t_full[k].tsc_lo <= t->time.tsc && t->time.tsc <= t_full[k].tsc_hi);
                }
                if (failed) {
                    printf("| %-8s | %-6s | %-3s | libipt lost its place: not compared |\n", wl_names[wi], policies[p],
                           cyc ? "on" : "off");
                    bad = 1;
                } else {
                    row(wl_names[wi], policies[p], cyc ? "on" : "off", "libipt 2.0.5", &s_lib);
                    row(wl_names[wi], policies[p], cyc ? "on" : "off", "ptcodec, perf's config", &s_pl);
                    row(wl_names[wi], policies[p], cyc ? "on" : "off", "ptcodec, ptsim config", &s_pf);
                    if (s_pl.back || s_pf.back || s_pl.outside || s_pf.outside ||
                        (s_lib.n && (s_pl.max_err >= s_lib.max_err || s_pf.max_err >= s_lib.max_err))) {
                        claims_fail = 1;
                        printf("  ^ ptcodec does not beat libipt in this row\n");
                    }
                }
                free(items);
                free(est);
                free(t_lib);
                free(t_full);
                mr_free(&tr);
            }
    }
    if (check) printf("%s\n", bad || claims_fail ? "CHECK FAILED" : "check: ptcodec beats libipt in every row");
    return bad || (check && claims_fail);
}

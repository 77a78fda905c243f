/* Part 3: clock recovery. The hardware model writes traces with the true
   TSC of every packet; decoded and timed by ptc_clock, every true TSC must
   lie inside its interval, the intervals must meet the bounds SPEC.md 3.5
   states, and the point estimates must never go back. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"
#include "../harness/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../harness/modelrec.h"

#include <string.h>

/* ---- one run: the model's trace and truth, decoded and timed --------------- */

typedef struct run {
    modelrec_trace tr; /* the stream, and the truth of its packets in stream order */
    ptc_timed_item *ti; /* the clock's output, one per emitted packet */
    size_t nti;
    ptc_model_config cfg;
} run;

static void clock_config_for(const ptc_model_config *m, int exact_nom, int with_policy, ptc_clock_config *cc)
{
    ptc_clock_config_from_model(cc, m);
    if (!exact_nom) { /* what libipt's --nom-freq gives: the rounded MSR value */
        cc->trace.ratios.nom_num = ptc_model_nom_freq(m);
        cc->trace.ratios.nom_den = 1;
        cc->trace.ratios.nom_exact = 0;
    }
    if (!with_policy) cc->trace.known &= ~(uint32_t)PTC_KNOW_POLICY;
}

/* The model's run of workload wi under policy and settings. */
static int record_run(int wi, const char *policy, const char *settings, uint64_t cycles, uint64_t seed, run *r)
{
    ptc_model_sink sink;
    char err[200];
    memset(r, 0, sizeof *r);
    sink = modelrec_start(&r->tr, 1);
    if (!workload_run_configured(wi, policy, settings, cycles, seed, &sink, &r->cfg, err, sizeof err)) {
        CHECK(0, "%s", err);
        return 0;
    }
    return 1;
}

/* The recorded stream decoded and timed under cc, into r->ti. */
static int time_run(run *r, const ptc_clock_config *cc)
{
    static ptc_clock clk;
    ptc_decoder d;
    ptc_item it;
    CHECK(ptc_clock_init(&clk, cc) == PTC_OK);
    r->ti = (ptc_timed_item *)malloc((r->tr.nt + 1) * sizeof *r->ti);
    /* (with the model's errata: a CYC cut by SKD007 is its cut_cyc error) */
    CHECK(!modelrec_skd007_ambiguous(&r->cfg, &r->tr), "a whole CYC pair reads as one cut by SKD007");
    ptc_decoder_init_buffer(&d, modelrec_decode_flags(&r->cfg), r->tr.bytes, r->tr.len);
    for (;;) {
        ptc_status st = ptc_decoder_next(&d, &it);
        ptc_timed_item out;
        if (st == PTC_OK) CHECK(ptc_clock_push(&clk, &it) == PTC_OK, "push refused");
        else ptc_clock_finish(&clk);
        while (ptc_clock_pop(&clk, &out) == PTC_OK)
            if (r->nti < r->tr.nt) r->ti[r->nti++] = out;
        if (st != PTC_OK) break;
    }
    CHECK(r->nti == r->tr.nt, "%zu timed items for %zu packets", r->nti, r->tr.nt);
    return r->nti == r->tr.nt;
}

static int do_run(int wi, const char *policy, const char *settings, uint64_t cycles, uint64_t seed, int exact_nom,
                  int with_policy, run *r)
{
    ptc_clock_config cc;
    if (!record_run(wi, policy, settings, cycles, seed, r)) return 0;
    clock_config_for(&r->cfg, exact_nom, with_policy, &cc);
    return time_run(r, &cc);
}

static void run_free(run *r) { modelrec_free(&r->tr); free(r->ti); }

static int inside(const ptc_truth *t, const ptc_timed_item *ti)
{
    return ti->tsc_lo <= t->time.tsc && (t->time.tsc < ti->tsc_hi || (t->time.tsc == ti->tsc_hi && t->time.num == 0));
}

/* MTC period and cycle length in ticks (rounded up), as SPEC 3.5 uses them. */
static uint64_t period_ticks(const ptc_model_config *m)
{
    return (((uint64_t)m->trace.ratios.cpuid_15_ebx << m->trace.ctl.mtc_freq) + m->trace.ratios.cpuid_15_eax - 1) / m->trace.ratios.cpuid_15_eax;
}

static uint64_t cycle_ticks(const ptc_model_config *m, unsigned ratio)
{
    uint64_t n = (uint64_t)m->art_hz * m->trace.ratios.cpuid_15_ebx, d = (uint64_t)m->trace.ratios.cpuid_15_eax * 100000000u * ratio;
    return (n + d - 1) / d;
}

/* ---- 3.5 (1): every true TSC inside its interval; nothing goes back ----------- */

typedef struct stats { size_t n, outside, back, conflicts; uint64_t max_w; } stats;

static void check_validity(const run *r, stats *s, const char *what)
{
    size_t i;
    ptc_clock_order order;
    ptc_clock_order_init(&order);
    for (i = 0; i < r->tr.nt; i++) {
        const ptc_timed_item *ti = &r->ti[i];
        if (ti->item.offset != r->tr.t[i].offset) { CHECK(0, "%s: item %zu misaligned", what, i); return; }
        if (!ti->have_time) continue;
        s->n++;
        if (!inside(&r->tr.t[i], ti) && s->outside++ < 3)
            CHECK(0, "%s: %s at %llu: true TSC %llu not in [%llu, %llu]", what, ptc_packet_type_name(r->tr.t[i].pkt.type),
                  (unsigned long long)r->tr.t[i].offset, (unsigned long long)r->tr.t[i].time.tsc,
                  (unsigned long long)ti->tsc_lo, (unsigned long long)ti->tsc_hi);
        if (ti->conflict && s->conflicts++ < 3)
            CHECK(0, "%s: %s at %llu: the clock saw a conflict in a trace that has none", what,
                  ptc_packet_type_name(r->tr.t[i].pkt.type), (unsigned long long)r->tr.t[i].offset);
        if (!ptc_clock_order_next(&order, ti)) s->back++;
        CHECK(ti->tsc >= ti->tsc_lo && ti->tsc <= ti->tsc_hi, "%s: point outside its interval", what);
        if (ti->tsc_hi != UINT64_MAX && ti->tsc_hi - ti->tsc_lo > s->max_w) s->max_w = ti->tsc_hi - ti->tsc_lo;
    }
    CHECK(s->outside == 0 && s->back == 0, "%s: %zu outside, %zu steps back in time (G2)", what, s->outside, s->back);
}

static int is_stop(ptc_packet_type t) { return t == PTC_TSC || t == PTC_CBR || t == PTC_OVF || t == PTC_PWRE || t == PTC_EXSTOP || t == PTC_MWAIT; }

/* (2) Without CYC: a non-timing packet followed by an MTC with no possible
   clock stop between them is within one MTC period (plus one cycle and
   rounding) - with or without suppression before it. Not a TNT: its time
   is its first branch's (check_validity holds it to its neighbours). */
static size_t check_period_bound(const run *r, const char *what, size_t at_least)
{
    size_t i, j, checked = 0;
    uint64_t bound = (1 + (uint64_t)r->cfg.mtc_lost) * period_ticks(&r->cfg) +
                     (1 + (uint64_t)r->cfg.mtc_jitter) * cycle_ticks(&r->cfg, 1) + 3;
    for (i = 0; i < r->tr.nt; i++) {
        const ptc_timed_item *ti = &r->ti[i];
        if (!ti->have_time || !ptc_packet_is_ntp(r->tr.t[i].pkt.type) || ptc_packet_is_tnt(r->tr.t[i].pkt.type)) continue;
        for (j = i + 1; j < r->tr.nt && r->tr.t[j].pkt.type != PTC_MTC && !is_stop(r->tr.t[j].pkt.type); j++) {}
        if (j == r->tr.nt || r->tr.t[j].pkt.type != PTC_MTC || j - i >= PTC_CLOCK_WINDOW) continue; /* beyond the look-ahead */
        checked++;
        CHECK(ti->tsc_hi - ti->tsc_lo <= bound, "%s: %s at %llu: width %llu > %llu", what,
              ptc_packet_type_name(r->tr.t[i].pkt.type), (unsigned long long)r->tr.t[i].offset,
              (unsigned long long)(ti->tsc_hi - ti->tsc_lo), (unsigned long long)bound);
    }
    CHECK(checked >= at_least, "%s: only %zu packets met the condition", what, checked);
    return checked;
}

/* (2b) Without suppression, the next MTC edge after an MTC is always
   emitted, so a non-timing packet after an MTC with no clock stop between
   them is within one period, whatever follows it (a stop, the end). Not
   a TNT, as above. */
static void check_after_mtc_bound(const run *r, const char *what)
{
    size_t i, j, checked = 0;
    uint64_t bound = (1 + (uint64_t)r->cfg.mtc_lost) * period_ticks(&r->cfg) +
                     (1 + (uint64_t)r->cfg.mtc_jitter) * cycle_ticks(&r->cfg, 1) + 3;
    for (i = 0; i < r->tr.nt; i++) {
        const ptc_timed_item *ti = &r->ti[i];
        if (!ti->have_time || !ptc_packet_is_ntp(r->tr.t[i].pkt.type) || r->tr.t[i].pkt.type == PTC_PSB ||
            ptc_packet_is_tnt(r->tr.t[i].pkt.type))
            continue;
        for (j = i; j-- > 0 && r->tr.t[j].pkt.type != PTC_MTC && !is_stop(r->tr.t[j].pkt.type) && r->tr.t[j].pkt.type != PTC_PSB;) {}
        if (j == (size_t)-1 || r->tr.t[j].pkt.type != PTC_MTC) continue;
        checked++;
        CHECK(ti->tsc_hi - ti->tsc_lo <= bound, "%s: %s at %llu: width %llu > %llu", what,
              ptc_packet_type_name(r->tr.t[i].pkt.type), (unsigned long long)r->tr.t[i].offset,
              (unsigned long long)(ti->tsc_hi - ti->tsc_lo), (unsigned long long)bound);
    }
    CHECK(checked > 20, "%s: only %zu packets met the condition", what, checked);
}

/* (3) With CYC and an exact rate: a CYC-eligible packet right after a CYC,
   with an anchor at a CYC point earlier in the same cycle epoch (an MTC
   right after a CYC, or a TSC), is within two cycles and four ticks. */
static void check_cycle_bound(const run *r, const char *what)
{
    size_t i, checked = 0;
    int have_anchor = 0;
    uint64_t bound = 2 * cycle_ticks(&r->cfg, 1) + 4;
    for (i = 1; i < r->tr.nt; i++) {
        ptc_packet_type t = r->tr.t[i].pkt.type, prev = r->tr.t[i - 1].pkt.type;
        const ptc_timed_item *ti = &r->ti[i];
        /* epoch breaks: a TSC outside PSB+, a CBR not right after one, OVF, an error */
        if (t == PTC_OVF || (t == PTC_TSC && !(i >= 2 && prev == PTC_CYC))) { have_anchor = 0; }
        if (t == PTC_CBR && prev != PTC_TMA && prev != PTC_TSC) have_anchor = 0;
        if (prev == PTC_CYC && (t == PTC_MTC || t == PTC_TSC)) { have_anchor = 1; continue; }
        if (t == PTC_PSB) have_anchor = 0; /* keeps it simple: PSB+ TSCs are handled in 3.3 */
        if (!have_anchor || prev != PTC_CYC || !ptc_packet_is_cyc_eligible(t) || t == PTC_MTC || !ti->have_time) continue;
        checked++;
        CHECK(ti->tsc_hi - ti->tsc_lo <= bound, "%s: %s at %llu: width %llu > %llu", what, ptc_packet_type_name(t),
              (unsigned long long)r->tr.t[i].offset, (unsigned long long)(ti->tsc_hi - ti->tsc_lo), (unsigned long long)bound);
    }
    CHECK(checked > 20, "%s: only %zu packets met the condition", what, checked);
}

/* ---- the time round trip ------------------------------------------------------- */

static void time_round_trip_every_workload_policy_and_configuration(void)
{
    static const char *policies[] = { "off", "seed", "threshold=3,resume_value=0,resume_after=0",
                                      "threshold=1,resume_after=10,min_burst=4" };
    static const char *settings[] = {
        "",
        "mtc_freq=0,cpuid_0x15_eax=3,cpuid_0x15_ebx=10,art_hz=25000000",
        "mtc_freq=7,cpuid_0x15_eax=3,cpuid_0x15_ebx=250,art_hz=25000000,core_ratio=36",
        "mtc_freq=12,cpuid_0x15_eax=2,cpuid_0x15_ebx=176",
        "mtc_freq=15,cpuid_0x15_eax=7,cpuid_0x15_ebx=625,art_hz=19200000",
        "cyc_en=1,cyc_thresh=0",
        "cyc_en=1,cyc_thresh=4,cyc_bits=8",
        "cyc_en=1,cyc_thresh=11,cyc_bits=12,mtc_freq=5",
        "cyc_en=1,cyc_thresh=2,mtc_freq=9,cpuid_0x15_eax=3,cpuid_0x15_ebx=250,psb_freq=2",
        "cyc_en=1,cyc_thresh=3,fifo_bytes=512,drain_bytes=1,drain_cycles=5,cyc_bits=10",
        "cyc_en=1,cyc_thresh=5,pwr_evt_en=0",
        "pwr_evt_en=0,mtc_freq=1",
        /* real clocks: MTCs out some cycles after their edges (SPEC 5.1) */
        "mtc_jitter=3,jitter_seed=7",
        "cyc_en=1,cyc_thresh=0,mtc_jitter=12,jitter_seed=99",
        "cyc_en=1,cyc_thresh=3,mtc_freq=0,mtc_jitter=30,jitter_seed=5",
        /* and MTCs lost, as erratum SKL168 loses them */
        "mtc_lost=2,mtc_freq=0,jitter_seed=4",
        "cyc_en=1,cyc_thresh=2,mtc_lost=1,mtc_jitter=5,jitter_seed=8",
        /* and a core clock that wobbles against the ART (SPEC 5.1) */
        "rate_ppm=5000",
        "cyc_en=1,cyc_thresh=0,rate_ppm=20000",
        "cyc_en=1,cyc_thresh=2,rate_ppm=100000,mtc_jitter=4,jitter_seed=3",
        /* and PSB+s whose TSC and TMA were sampled before the MTC inside them (SPEC 5.1) */
        "psb_early_tsc=255,mtc_freq=0",
        "cyc_en=1,cyc_thresh=0,psb_early_tsc=200,mtc_freq=1",
        "cyc_en=1,cyc_thresh=3,psb_early_tsc=120,mtc_jitter=6,jitter_seed=2,rate_ppm=20000,mtc_freq=0",
        /* and erratum SKL168's CYC lost before a PSB (SPEC 5.1, 3.12) */
        "cyc_en=1,cyc_thresh=0,skl168=1,mtc_freq=1",
        "cyc_en=1,cyc_thresh=2,skl168=1,mtc_lost=1,jitter_seed=6,psb_early_tsc=100",
        /* and erratum SKD007's CYC cut by an OVF (SPEC 5.1, 1.9 rule 5; a threshold of
           64 cycles, so that no whole CYC pair reads as a cut one) */
        "cyc_en=1,cyc_thresh=7,fifo_bytes=128,drain_bytes=1,drain_cycles=16,skd007=1,jitter_seed=9"
    };
    int wi;
    size_t p, s, bounded = 0;
    for (wi = 0; wi < WORKLOAD_COUNT; wi++)
        for (p = 0; p < sizeof policies / sizeof policies[0]; p++)
            for (s = 0; s < sizeof settings / sizeof settings[0]; s++) {
                run r;
                stats st;
                char what[256];
                int exact = (int)((wi + p + s) % 3 != 0); /* the rounded nom_freq a third of the time */
                /* half the grid: keeps the suite quick, covers all of it over wi */
                if ((wi + p + s) % (2 * TESTLIB_GRID_STRIDE)) continue;
                snprintf(what, sizeof what, "%s/%s [%s]%s", workload_names[wi], policies[p], settings[s], exact ? "" : " rounded nom");
                memset(&st, 0, sizeof st);
                if (do_run(wi, policies[p], settings[s], 2000000, 11 * p + s, exact, 1, &r)) {
                    check_validity(&r, &st, what);
                    bounded += check_period_bound(&r, what, 0); /* B1 in every configuration */
                }
                CHECK(st.n > 30, "%s: %zu timed packets", what, st.n);
                run_free(&r);
            }
    CHECK(bounded > 10000, "B1 checked at only %zu packets", bounded);
}

static void width_bounds(void)
{
    static const char *policies[] = { "off", "seed" };
    int wi;
    size_t p;
    for (wi = 0; wi < WORKLOAD_COUNT; wi++) {
        if (wi == 3) continue; /* ptwrite: PTW packets every ~10^5 cycles, too few per run */
        for (p = 0; p < 2; p++) {
            run r;
            stats st;
            char what[128];
            memset(&st, 0, sizeof st);
            snprintf(what, sizeof what, "%s/%s", workload_names[wi], policies[p]);
            if (!do_run(wi, policies[p], "", 4000000, 3, 1, 1, &r)) continue;
            check_validity(&r, &st, what);
            check_period_bound(&r, what, 20);
            if (p == 0) check_after_mtc_bound(&r, what);
            run_free(&r);
            snprintf(what, sizeof what, "%s/%s with CYC", workload_names[wi], policies[p]);
            memset(&st, 0, sizeof st);
            if (!do_run(wi, policies[p], "cyc_en=1,cyc_thresh=2", 4000000, 3, 1, 1, &r)) continue;
            check_validity(&r, &st, what);
            if (wi != 1 && wi != 2) check_cycle_bound(&r, what); /* sparse ones have few */
            run_free(&r);
        }
    }
}

/* Without the policy the clock still holds, only wider. */
static void without_the_policy(void)
{
    int wi;
    for (wi = 0; wi < WORKLOAD_COUNT; wi++) {
        run r;
        stats st;
        char what[64];
        memset(&st, 0, sizeof st);
        snprintf(what, sizeof what, "%s/seed, policy not given", workload_names[wi]);
        if (do_run(wi, "seed", "cyc_en=1,cyc_thresh=6", 2000000, 5, 0, 0, &r)) check_validity(&r, &st, what);
        run_free(&r);
    }
}

/* The model's SKZ84 (SPEC 5.1, 3.12): corrupt TMAs in a VMX guest. A
   corrupt_tma item is its TSC's instant, and nothing is lost: the clock
   keeps the truth inside and times every item with or without being told
   of the erratum (untold, it uses the guest's whole TMAs). */
static void skz84_corrupt_tmas_are_timed_with_their_tsc(void)
{
    static const char *settings[] = { "skz84=1,psb_freq=0,jitter_seed=5",
                                      "skz84=1,psb_freq=0,cyc_en=1,cyc_thresh=0,mtc_freq=1",
                                      "skz84=1,cyc_en=1,cyc_thresh=2,mtc_freq=0,rate_ppm=20000,mtc_jitter=4,psb_early_tsc=120" };
    size_t s, corrupt = 0;
    for (s = 0; s < sizeof settings / sizeof settings[0]; s++) {
        int told;
        for (told = 0; told < 2; told++) {
            run r;
            ptc_model_sink sink;
            ptc_model m;
            ptc_clock_config cc;
            stats st;
            char err[200], what[160];
            size_t i;
            memset(&r, 0, sizeof r);
            memset(&st, 0, sizeof st);
            snprintf(what, sizeof what, "guest [%s]%s", settings[s], told ? "" : ", clock not told");
            sink = modelrec_start(&r.tr, 1);
            ptc_model_config_default(&r.cfg);
            CHECK(modelcfg_set_list(&r.cfg, settings[s], err, sizeof err), "%s", err);
            CHECK(ptc_model_init(&m, &r.cfg, &sink) == PTC_OK);
            workload_run_in_guest(&m, 4000000, s + 3);
            clock_config_for(&r.cfg, 1, 1, &cc);
            if (!told) cc.trace.errata &= ~(uint32_t)PTC_ERRATUM_SKZ84;
            if (time_run(&r, &cc)) {
                check_validity(&r, &st, what);
                for (i = 1; i < r.tr.nt; i++) {
                    const ptc_timed_item *tma = &r.ti[i], *tsc = &r.ti[i - 1];
                    if (r.tr.t[i].fate != PTC_FATE_CORRUPT) continue;
                    corrupt += told;
                    CHECK(tma->item.error == PTC_ERR_CORRUPT_TMA && tsc->item.error == PTC_OK &&
                              tsc->item.pkt.type == PTC_TSC && tma->have_time && tma->tsc_lo == tsc->tsc_lo &&
                              tma->tsc_hi == tsc->tsc_hi,
                          "%s: the corrupt TMA at %llu is not timed with its TSC", what,
                          (unsigned long long)r.tr.t[i].offset);
                }
            }
            CHECK(st.n + 5 > r.tr.nt, "%s: %zu of %zu items timed", what, st.n, r.tr.nt);
            run_free(&r);
        }
    }
    CHECK(corrupt > 10, "%zu corrupt TMAs", corrupt);
}

/* The model's SKL168 (SPEC 5.1): a CYC lost right before a PSB, with its
   cycles. The clock keeps the truth inside with the erratum (the settings
   of time_round_trip_every_workload_policy_and_configuration) and without
   it too: the items of a PSB+ up to its TSC take no cycle position from
   the CYCs before it, and its TSC starts a new epoch (SPEC 3.12). */
static void skl168_drops_the_cyc_before_a_psb(void)
{
    static const char *settings = "cyc_en=1,cyc_thresh=0,skl168=1,psb_freq=0,psb_early_tsc=255,mtc_freq=0";
    int wi;
    size_t dropped = 0, before_psb = 0, counted_from_psb = 0;
    for (wi = 0; wi < WORKLOAD_COUNT; wi++) {
        run r;
        modelrec_trace all; /* the same run with what was lost too */
        ptc_model_sink sink = modelrec_start(&all, 0);
        ptc_model_config mc;
        ptc_clock_config cc;
        stats st;
        char err[200], what[96];
        size_t i;
        if (workload_run_configured(wi, "off", settings, 1500000, 4, &sink, &mc, err, sizeof err))
            for (i = 0; i + 1 < all.nt; i++) {
                size_t k = i + 1;
                if (all.t[i].fate != PTC_FATE_DROPPED || all.t[i].pkt.type != PTC_CYC) continue;
                dropped++;
                before_psb += all.t[k].pkt.type == PTC_PSB && all.t[k].offset == all.t[i].offset;
                /* the next CYC written counts the cycles since the drop, not since the CYC before it */
                while (k < all.nt && !(all.t[k].pkt.type == PTC_CYC && all.t[k].fate == PTC_FATE_EMITTED)) k++;
                counted_from_psb += k < all.nt && all.t[k].pkt.u.cyc.cycles == all.t[k].cycle - all.t[i].cycle;
            }
        modelrec_free(&all);
        if (!record_run(wi, "off", settings, 1500000, 4, &r)) { run_free(&r); continue; }
        clock_config_for(&r.cfg, 1, 1, &cc);
        CHECK(cc.trace.errata & PTC_ERRATUM_SKL168, "ptc_clock_config_from_model passes skl168 on");
        cc.trace.errata = 0;
        snprintf(what, sizeof what, "%s, skl168 in the model, not in the clock", workload_names[wi]);
        memset(&st, 0, sizeof st);
        if (time_run(&r, &cc)) check_validity(&r, &st, what);
        run_free(&r);
    }
    CHECK(dropped > 20 && before_psb == dropped && counted_from_psb == dropped,
          "%zu CYCs dropped, %zu of them right before a PSB, %zu followed by a CYC counting from it", dropped, before_psb,
          counted_from_psb);
}

/* Errata (SPEC 3.12): each one only loosens what the clock assumes, so
   the truth stays inside on every workload; SKZ84 (TMAs not used) leaves
   MTCs no base, so intervals are wider on the whole. And the names and CPUs. */
static void errata_keep_the_truth_inside(void)
{
    int wi;
    uint32_t e;
    /* (as libipt's pt_errata: Skylake, Skylake-X, Sapphire Rapids, Cannon Lake, Alder Lake, Goldmont) */
    CHECK(ptc_errata_for_cpu(6, 78, 3) == (PTC_ERRATUM_SKL168 | PTC_ERRATUM_SKD007 | PTC_ERRATUM_BDM70 |
                                           PTC_ERRATUM_SKD010 | PTC_ERRATUM_SKL014) &&
              ptc_errata_for_cpu(6, 85, 4) == (PTC_ERRATUM_SKZ84 | PTC_ERRATUM_BDM70 | PTC_ERRATUM_SKL014) &&
              ptc_errata_for_cpu(6, 143, 8) == (PTC_ERRATUM_SKZ84 | PTC_ERRATUM_BDM70) &&
              ptc_errata_for_cpu(6, 102, 3) == (PTC_ERRATUM_BDM70 | PTC_ERRATUM_SKL014) &&
              ptc_errata_for_cpu(19, 1, 0) == (PTC_ERRATUM_SKZ84 | PTC_ERRATUM_BDM70) &&
              ptc_errata_for_cpu(6, 151, 2) == (PTC_ERRATUM_BDM70 | PTC_ERRATUM_APL11) &&
              ptc_errata_for_cpu(6, 92, 9) == PTC_ERRATUM_APL11 && ptc_errata_for_cpu(6, 42, 7) == 0 &&
              ptc_errata_for_cpu(15, 78, 0) == 0,
          "errata by CPU");
    for (e = 1; e & PTC_ERRATA_ALL_; e <<= 1)
        CHECK(ptc_erratum_from_name(ptc_erratum_name(e)) == e && strlen(ptc_erratum_effect(e)) > 20, "erratum %x", e);
    CHECK(ptc_erratum_from_name("skl16") == 0 && ptc_erratum_from_name(NULL) == 0 && ptc_erratum_effect(0x80) != NULL);
    for (wi = 0; wi < WORKLOAD_COUNT; wi++) {
        run plain, with;
        stats sp, sw;
        ptc_clock_config cc;
        char what[64];
        memset(&sp, 0, sizeof sp);
        memset(&sw, 0, sizeof sw);
        snprintf(what, sizeof what, "%s, errata skl168 and skz84", workload_names[wi]);
        if (!do_run(wi, "seed", "cyc_en=1,cyc_thresh=2,mtc_lost=1", 1500000, 3, 1, 1, &plain)) { run_free(&plain); continue; }
        check_validity(&plain, &sp, what);
        if (record_run(wi, "seed", "cyc_en=1,cyc_thresh=2,mtc_lost=1", 1500000, 3, &with)) {
            clock_config_for(&with.cfg, 1, 1, &cc);
            cc.trace.errata = PTC_ERRATA_ALL_;
            if (time_run(&with, &cc)) {
                /* (item by item they can differ either way: an upper
                   bound is raised to the point before it, and the points
                   differ) */
                size_t i, open_plain = 0, open_with = 0;
                double width_plain = 0, width_with = 0;
                check_validity(&with, &sw, what);
                for (i = 0; i < with.nti && i < plain.nti; i++) {
                    const ptc_timed_item *p = &plain.ti[i], *w = &with.ti[i];
                    if (!p->have_time || !w->have_time) continue;
                    if (p->tsc_hi == UINT64_MAX || w->tsc_hi == UINT64_MAX) {
                        open_plain += p->tsc_hi == UINT64_MAX;
                        open_with += w->tsc_hi == UINT64_MAX;
                        continue;
                    }
                    width_plain += (double)(p->tsc_hi - p->tsc_lo);
                    width_with += (double)(w->tsc_hi - w->tsc_lo);
                }
                CHECK(open_with >= open_plain && (open_with > open_plain || width_with > width_plain),
                      "%s: with the errata %zu items unbounded and widths %.0f, without %zu and %.0f", what, open_with,
                      width_with, open_plain, width_plain);
            }
        }
        run_free(&plain);
        run_free(&with);
    }
}

/* A suppressed trace decoded as if from hardware without suppression (the
   default configuration): where an MTC that had to come is missing, the
   clock says so instead of trusting the wrong policy. */
static void wrong_policy_is_reported(void)
{
    run r;
    size_t conflicts = 0, i;
    ptc_clock_config cc;
    if (!record_run(1, "seed", "", 4000000, 4, &r)) return; /* sparse: long suppressed stretches */
    clock_config_for(&r.cfg, 1, 1, &cc);
    cc.trace.policy.threshold = 0; /* what the clock is told: every MTC is emitted */
    time_run(&r, &cc);
    for (i = 0; i < r.nti; i++) conflicts += r.ti[i].conflict;
    CHECK(conflicts > 0, "no conflict reported");
    run_free(&r);
}

/* ---- 3.3: suppression costs no width at non-timing packets ----------------------- */

/* The same run with and without suppression: each non-timing packet (the
   same type at the same cycle in both) has an interval no wider when MTCs
   were suppressed, except where SPEC 3.3 says no decoder can tell: packets
   after the last MTC before a clock stop or the end of the trace. */
static void suppressed_is_no_wider(void)
{
    int wi;
    for (wi = 0; wi < WORKLOAD_COUNT; wi++) {
        run a, b;
        size_t i = 0, j = 0, compared = 0, wider = 0;
        if (wi == 6) continue; /* mixed: its overflows depend on the byte count, so the runs differ */
        if (!do_run(wi, "off", "", 6000000, 8, 1, 1, &a) || !do_run(wi, "seed", "", 6000000, 8, 1, 1, &b)) continue;
        while (i < a.tr.nt && j < b.tr.nt) {
            const ptc_truth *x = &a.tr.t[i], *y = &b.tr.t[j];
            size_t k;
            int stop_follows = 0; /* or a TSC near it in one run only: skip */
            if (x->cycle < y->cycle || (x->cycle == y->cycle && !ptc_packet_is_ntp(x->pkt.type))) { i++; continue; }
            if (y->cycle < x->cycle || !ptc_packet_is_ntp(y->pkt.type)) { j++; continue; }
            if (x->pkt.type != y->pkt.type || x->pkt.type == PTC_PSB || x->pkt.type == PTC_PSBEND) { i++; j++; continue; }
            /* the exception: no MTC between it and a clock stop or the end */
            for (k = j + 1; k < b.tr.nt && b.tr.t[k].pkt.type != PTC_MTC; k++)
                if (is_stop(b.tr.t[k].pkt.type)) { stop_follows = 1; break; }
            if (k == b.tr.nt) stop_follows = 1;
            /* PSB+ go by bytes, so the unsuppressed trace has more of them:
               a packet next to a TSC in one run only is not a fair pair */
            for (k = i; k-- > 0 && a.tr.t[k].pkt.type != PTC_MTC;)
                if (a.tr.t[k].pkt.type == PTC_TSC) stop_follows = 1;
            for (k = i + 1; k < a.tr.nt && a.tr.t[k].pkt.type != PTC_MTC; k++)
                if (a.tr.t[k].pkt.type == PTC_TSC) stop_follows = 1;
            if (!stop_follows && a.ti[i].have_time && b.ti[j].have_time) {
                compared++;
                if (b.ti[j].tsc_hi - b.ti[j].tsc_lo > a.ti[i].tsc_hi - a.ti[i].tsc_lo && wider++ < 3)
                    CHECK(0, "%s: %s at cycle %llu: %llu wide suppressed, %llu without", workload_names[wi],
                          ptc_packet_type_name(x->pkt.type), (unsigned long long)x->cycle,
                          (unsigned long long)(b.ti[j].tsc_hi - b.ti[j].tsc_lo),
                          (unsigned long long)(a.ti[i].tsc_hi - a.ti[i].tsc_lo));
            }
            i++;
            j++;
        }
        CHECK(compared > 20, "%s: only %zu packets compared", workload_names[wi], compared);
        run_free(&a);
        run_free(&b);
    }
}

/* ---- resync: decoding from the middle, and after damage -------------------------- */

/* A trace decoded from a point in its middle (the decoder syncs at the next
   PSB), or with a byte destroyed (the decoder reports the error and syncs
   again): every packet that decodes where the model wrote it still has its
   true TSC inside its interval, and time does not go back. */
static void clock_after_resync(void)
{
    int wi;
    uint8_t bad_ext = 0, probe[16];
    ptc_packet pk;
    for (bad_ext = 0; bad_ext < 255; bad_ext++) { /* an extended opcode the SDM leaves undefined */
        memset(probe, 0, sizeof probe);
        probe[0] = 0x02;
        probe[1] = bad_ext;
        if (ptc_decode_packet(probe, sizeof probe, PTC_BLOCK_NONE, &pk) == PTC_ERR_BAD_OPCODE) break;
    }
    CHECK(bad_ext < 255, "no undefined extended opcode");
    for (wi = 0; wi < WORKLOAD_COUNT; wi++) {
        run r;
        size_t cut, trial;
        if (!do_run(wi, "seed", "cyc_en=1,cyc_thresh=3,psb_freq=0", 3000000, 21, 1, 1, &r)) continue;
        for (trial = 0; trial < 6; trial++) {
            static ptc_clock clk;
            ptc_clock_config cc;
            ptc_decoder d;
            ptc_item it;
            ptc_timed_item out;
            uint8_t *copy = (uint8_t *)malloc(r.tr.len);
            size_t k = 0, checked = 0, outside = 0, back = 0;
            ptc_clock_order order;
            ptc_clock_order_init(&order);
            memcpy(copy, r.tr.bytes, r.tr.len);
            cut = r.tr.len / 7 * (trial + 1);
            if (trial % 2) { /* damage: a packet's first bytes become an undefined opcode */
                for (k = 0; k < r.tr.nt && (r.tr.t[k].offset < cut || r.tr.t[k].pkt.size < 2); k++) {}
                if (k == r.tr.nt) { free(copy); continue; }
                cut = (size_t)r.tr.t[k].offset;
                copy[cut] = 0x02;
                copy[cut + 1] = bad_ext;
                k = 0;
            }
            clock_config_for(&r.cfg, 1, 1, &cc);
            CHECK(ptc_clock_init(&clk, &cc) == PTC_OK);
            ptc_decoder_init_buffer(&d, 0, trial % 2 ? copy : copy + cut, trial % 2 ? r.tr.len : r.tr.len - cut);
            for (;;) {
                ptc_status st = ptc_decoder_next(&d, &it);
                if (st == PTC_OK) {
                    if (!(trial % 2)) it.offset += cut; /* back to the trace's offsets */
                    CHECK(ptc_clock_push(&clk, &it) == PTC_OK);
                } else {
                    ptc_clock_finish(&clk);
                }
                while (ptc_clock_pop(&clk, &out) == PTC_OK) {
                    while (k < r.tr.nt && r.tr.t[k].offset < out.item.offset) k++;
                    if (!out.have_time) continue;
                    back += !ptc_clock_order_next(&order, &out);
                    if (k == r.tr.nt || r.tr.t[k].offset != out.item.offset || out.item.error != PTC_OK ||
                        !ptc_packet_equal(&r.tr.t[k].pkt, &out.item.pkt))
                        continue; /* the damaged packet, or not a packet of the trace */
                    checked++;
                    if (!inside(&r.tr.t[k], &out) && outside++ < 3)
                        CHECK(0, "%s, %s at %zu: %s at %llu: true %llu not in [%llu, %llu]", workload_names[wi],
                              trial % 2 ? "damaged" : "started", cut, ptc_packet_type_name(r.tr.t[k].pkt.type),
                              (unsigned long long)r.tr.t[k].offset, (unsigned long long)r.tr.t[k].time.tsc,
                              (unsigned long long)out.tsc_lo, (unsigned long long)out.tsc_hi);
                }
                if (st != PTC_OK) break;
            }
            CHECK(back == 0, "%s: time went back %zu times", workload_names[wi], back);
            CHECK(checked > 0 || r.tr.len - cut < 4096, "%s: nothing checked after %zu", workload_names[wi], cut);
            free(copy);
        }
        run_free(&r);
    }
}

/* ---- libipt's timing vectors --------------------------------------------------- */

/* Where libipt's ptdump prints a time at a TSC, TMA or MTC, the value is
   exact (the SDM's arithmetic, no calibration) and our point estimate must
   equal it - except here, where SPEC 3.8 says why ours differs. At CYCs
   libipt extrapolates with a calibrated rate; there ours may differ, and
   the test only asks that our points never go back. */
static const struct { const char *vector; unsigned long long off; const char *why; } golden_differs[] = {
    { "tsc-tma-mtc-tsc", 0x25, "libipt steps back to the TSC; the MTC before it says later" },
    { "cbr-tsc-cyc-tma", 0x1f, "libipt moves the TMA by the CYC before it; the TMA is at its TSC" },
};

static int golden_differs_at(const char *vector, unsigned long long off)
{
    size_t i;
    for (i = 0; i < sizeof golden_differs / sizeof golden_differs[0]; i++)
        if (!strcmp(golden_differs[i].vector, vector) && golden_differs[i].off == off) return 1;
    return 0;
}

static const char *opt_after(const char *opts, const char *key)
{
    const char *p = strstr(opts, key);
    return p ? p + strlen(key) : NULL;
}

/* The number after `key` in a vector's options, or `absent` without one. */
static uint64_t opt_number(const char *opts, const char *key, uint64_t max, uint64_t absent)
{
    const char *v = opt_after(opts, key);
    uint64_t x = absent;
    if (v) CHECK(util_parse_u64_n(v, strcspn(v, " \n"), max, &x), "option %s'%.20s' is not a number to %llu", key, v,
                 (unsigned long long)max);
    return x;
}

static void golden_vector_times(const void *arg)
{
    const char *name = (const char *)arg;
    char path[768], *exp_text, *opts, *line, *save = NULL;
    unsigned char *pt;
    size_t pt_len = 0, n = 0, k, compared = 0;
    ptc_clock_config cc;
    static ptc_clock clk;
    ptc_decoder d;
    ptc_item it;
    ptc_timed_item ti[64];
    unsigned long long libipt = 0;
    ptc_clock_order order;

    snprintf(path, sizeof path, "%s/reference/libipt-ptt/golden", testlib_shared_dir());
    if (!testlib_read_golden(path, name, &pt, &pt_len, &exp_text, &opts)) {
        CHECK(0, "%s: files missing", name);
        return;
    }

    /* libipt's flags, as ptdump --time takes them */
    ptc_clock_config_sdm(&cc); /* libipt's vectors follow the SDM's ideal clocks */
    cc.trace.ctl.mtc_freq = (uint8_t)opt_number(opts, "--mtc-freq ", 15, cc.trace.ctl.mtc_freq);
    cc.trace.ratios.cpuid_15_eax = (uint32_t)opt_number(opts, "--cpuid-0x15.eax ", 0xFFFFFFFFu, cc.trace.ratios.cpuid_15_eax);
    cc.trace.ratios.cpuid_15_ebx = (uint32_t)opt_number(opts, "--cpuid-0x15.ebx ", 0xFFFFFFFFu, cc.trace.ratios.cpuid_15_ebx);
    if (opt_after(opts, "--nom-freq ")) {
        cc.trace.ratios.nom_num = opt_number(opts, "--nom-freq ", 255, 0);
        cc.trace.ratios.nom_den = 1;
    }
    CHECK(ptc_clock_init(&clk, &cc) == PTC_OK);
    ptc_decoder_init_buffer(&d, 0, pt, pt_len);
    for (;;) {
        ptc_status st = ptc_decoder_next(&d, &it);
        if (st == PTC_OK) CHECK(ptc_clock_push(&clk, &it) == PTC_OK);
        else ptc_clock_finish(&clk);
        while (n < 64 && ptc_clock_pop(&clk, &ti[n]) == PTC_OK) n++;
        if (st != PTC_OK) break;
    }
    ptc_clock_order_init(&order);
    for (k = 0; k < n; k++)
        CHECK(ptc_clock_order_next(&order, &ti[k]), "%s: time goes back at %llx", name, (unsigned long long)ti[k].item.offset);

    for (line = strtok_r(exp_text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char pkt[32] = "";
        char *col;
        unsigned long long off;
        if (line[0] == '[' || sscanf(line, "%llx %31s", &off, pkt) != 2) continue;
        /* the time column: "tsc +delta", "tsc -delta" or "tsc absolute" */
        col = strstr(line, " tsc ");
        if (col && !strcmp(pkt, "tsc")) col = strstr(col + 1, " tsc ");
        if (!col) continue;
        col += 5;
        {   /* libipt prints the time in hex, without 0x */
            const char *digits = *col == '+' || *col == '-' ? col + 1 : col;
            uint64_t t = 0;
            CHECK(util_parse_digits(digits, strspn(digits, "0123456789abcdefABCDEF"), 16, UINT64_MAX, &t),
                  "%s: time column '%s'", name, col);
            if (*col == '+') libipt += t;
            else if (*col == '-') libipt -= t;
            else libipt = t;
        }
        if (strcmp(pkt, "tsc") && strcmp(pkt, "tma") && strcmp(pkt, "mtc")) continue;
        for (k = 0; k < n && ti[k].item.offset != off; k++) {}
        CHECK(k < n && ti[k].have_time, "%s: no time at %llx", name, off);
        if (k == n || !ti[k].have_time) continue;
        compared++;
        if (golden_differs_at(name, off))
            CHECK(ti[k].tsc != libipt, "%s at %llx: listed as differing, but both say %llx", name, off, libipt);
        else
            CHECK(ti[k].tsc == libipt && ti[k].tsc_lo <= libipt && libipt <= ti[k].tsc_hi,
                  "%s at %llx (%s): libipt %llx, ours %llx in [%llx, %llx]", name, off, pkt, libipt,
                  (unsigned long long)ti[k].tsc, (unsigned long long)ti[k].tsc_lo, (unsigned long long)ti[k].tsc_hi);
    }
    CHECK(compared >= 2, "%s: only %zu times compared", name, compared);
    free(pt);
    free(exp_text);
    free(opts);
}

static void golden_vectors(void)
{
    static const char *names[] = {
        "cbr-tsc-cyc-tma", "mtc-ovf_keep-cyc", "mtc-ovf_reset-cyc", "tsc-cyc_calibrate", "tsc-mtc-tma-mtc",
        "tsc-tma-cbr-mtc-cyc", "tsc-tma-cbr-mtc-mtc-cyc", "tsc-tma-mtc-cyc_calibrate",
        "tsc-tma-mtc-mtc-cyc_calibrate", "tsc-tma-mtc-tsc", "tsc-tma-mtc_absolute", "tsc-tma-mtc_infreq",
        "tsc-tma-mtc_infreq_wrap", "tsc-tma-mtc_relative", "tsc-tma-mtc_wrap", "tsc-tma_zero_fc-cbr-cyc",
        "tsc_tma_mtc_gap"
    };
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        char label[128];
        snprintf(label, sizeof label, "golden_time_%s", names[i]);
        testlib_run_arg(label, golden_vector_times, names[i]);
    }
}

/* ---- exact arithmetic ------------------------------------------------------------ */

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The clock's divisions by a divisor known in advance, and its fraction
   comparison without division, against the hardware's division: divisors
   and dividends at every magnitude, powers of two and their neighbours,
   and dividends at multiples of the divisor and one below. */
static void divider_and_fractions_are_exact(void)
{
    uint64_t s = UINT64_C(88172645463325252);
    unsigned i, j, bad = 0;
    for (i = 0; i < 20000 && bad < 5; i++) {
        ptc__math_divider v;
        uint64_t d = xorshift(&s) >> (xorshift(&s) % 64);
        if (i % 4 == 1) d = UINT64_C(1) << (i / 4 % 64);
        if (i % 4 == 2) d = (UINT64_C(1) << (i / 4 % 64)) + (xorshift(&s) % 3) - 1;
        if (!d) d = 1;
        ptc__math_divider_init(&v, d);
        for (j = 0; j < 24; j++) {
            uint64_t x = j < 4 ? UINT64_MAX - j : j < 8 ? d * (j - 3) - (j & 1) : xorshift(&s) >> (xorshift(&s) % 64);
            uint64_t a = xorshift(&s) >> (xorshift(&s) % 64), b = xorshift(&s) >> (xorshift(&s) % 64), q, r;
            int less;
            q = ptc__math_divide(&v, x);
            CHECK(q == x / d, "%llu / %llu: %llu", (unsigned long long)x, (unsigned long long)d, (unsigned long long)q);
            bad += q != x / d;
            q = ptc__math_muldiv(a, b, d, (int)(j & 1));
            CHECK(ptc__math_muldiv_by(&v, a, b, (int)(j & 1)) == q, "%llu * %llu / %llu", (unsigned long long)a,
                  (unsigned long long)b, (unsigned long long)d);
            /* a/d < b/x  <=>  floor(a * x / d) < b, by the long division */
            less = ptc__math_mad_div(a, x, 0, 0, d, &q, &r) && q < b;
            CHECK(ptc__math_frac_less(a, d, b, x) == less, "%llu/%llu < %llu/%llu", (unsigned long long)a,
                  (unsigned long long)d, (unsigned long long)b, (unsigned long long)x);
        }
    }
    CHECK(ptc__math_frac_less(1, 3, 1, 2) && !ptc__math_frac_less(1, 2, 1, 3) && !ptc__math_frac_less(2, 4, 1, 2));
    CHECK(ptc__math_frac_less(UINT64_MAX - 1, UINT64_MAX, 1, 1) && !ptc__math_frac_less(UINT64_MAX, UINT64_MAX - 1, 1, 1));
    CHECK(ptc__math_frac_less(UINT64_MAX, 2, UINT64_MAX, 1) && !ptc__math_frac_less(UINT64_MAX, 1, UINT64_MAX, 2));
}

/* ---- API ---------------------------------------------------------------------- */

static void api_contract(void)
{
    static ptc_clock c;
    ptc_clock_config cc;
    ptc_item it;
    ptc_timed_item out;
    size_t i, popped = 0;
    memset(&it, 0, sizeof it);
    ptc_clock_config_default(&cc);
    cc.trace.ratios.cpuid_15_eax = 1;
    CHECK(ptc_clock_init(&c, &cc) == PTC_ERR_BAD_CONFIG, "eax without ebx");
    cc.trace.ratios.cpuid_15_ebx = 1;
    cc.trace.ctl.mtc_freq = 16;
    CHECK(ptc_clock_init(&c, &cc) == PTC_ERR_BAD_CONFIG, "mtc_freq 16");
    cc.trace.ctl.mtc_freq = 3;
    cc.real.rate_ppm = 1000000;
    CHECK(ptc_clock_init(&c, &cc) == PTC_ERR_BAD_CONFIG, "rate_ppm of 100%%");
    cc.real.rate_ppm = PTC_CLOCK_HW_RATE_PPM;
    cc.trace.errata = 0x80;
    CHECK(ptc_clock_init(&c, &cc) == PTC_ERR_BAD_CONFIG, "an erratum the clock does not know");
    cc.trace.errata = 0;
    CHECK(ptc_clock_init(&c, &cc) == PTC_OK);
    CHECK(ptc_clock_push(NULL, &it) == PTC_ERR_BAD_ARGUMENT && ptc_clock_pop(&c, NULL) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_clock_pop(&c, &out) == PTC_NEED_INPUT);
    /* more than a window of packets with no timing packet: the clock lets
       the oldest go rather than refuse */
    memset(&it, 0, sizeof it);
    it.pkt.type = PTC_TNT8;
    it.pkt.size = 1;
    it.pkt.u.tnt.count = 1;
    for (i = 0; i < 3 * PTC_CLOCK_WINDOW; i++) {
        it.offset = i;
        CHECK(ptc_clock_push(&c, &it) == PTC_OK, "push %zu", i);
        while (ptc_clock_pop(&c, &out) == PTC_OK) {
            CHECK(out.item.offset == popped && !out.have_time, "no TSC yet: no time");
            popped++;
        }
    }
    ptc_clock_finish(&c);
    while (ptc_clock_pop(&c, &out) == PTC_OK) popped++;
    CHECK(popped == 3 * PTC_CLOCK_WINDOW, "%zu of %d came out", popped, 3 * PTC_CLOCK_WINDOW);
    CHECK(ptc_clock_pop(&c, &out) == PTC_END);
    CHECK(ptc_clock_push(&c, &it) == PTC_ERR_BAD_STATE, "push after finish");

    /* a window full of CYCs, taken out only when a push is refused: every
       count is applied before its CYC goes out (cycles add up) */
    CHECK(ptc_clock_init(&c, &cc) == PTC_OK);
    memset(&it, 0, sizeof it);
    it.pkt.type = PTC_CYC;
    it.pkt.size = 1;
    it.pkt.u.cyc.cycles = 3;
    popped = 0;
    for (i = 0; i < 3 * PTC_CLOCK_WINDOW; i++) {
        ptc_status st;
        it.offset = i;
        while ((st = ptc_clock_push(&c, &it)) == PTC_ERR_BAD_STATE) {
            size_t before = popped;
            while (ptc_clock_pop(&c, &out) == PTC_OK) {
                CHECK(out.have_cycles && out.cycles == 3 * (popped + 1), "CYC %zu: %llu cycles", popped,
                      (unsigned long long)out.cycles);
                popped++;
            }
            CHECK(popped > before, "a full window gave nothing out");
            if (popped == before) return;
        }
        CHECK(st == PTC_OK);
    }
    ptc_clock_finish(&c);
    while (ptc_clock_pop(&c, &out) == PTC_OK) popped++;
    CHECK(popped == 3 * PTC_CLOCK_WINDOW, "%zu of %d CYCs came out", popped, 3 * PTC_CLOCK_WINDOW);
}

/* A CYC count that the configured counter cannot hold (2^cyc_bits or
   more) is not a count the hardware could write: it is left out of the
   cycle sum (SPEC 3.5 rule 7). */
static void cyc_wider_than_the_counter_is_not_counted(void)
{
    static ptc_clock c;
    static const uint64_t counts[] = { 3, 300, 5 };
    ptc_clock_config cc;
    ptc_item it;
    ptc_timed_item out[3];
    size_t i, n = 0;
    ptc_clock_config_default(&cc);
    cc.trace.ctl.cyc_en = 1;
    cc.trace.cyc_bits = 8;
    CHECK(ptc_clock_init(&c, &cc) == PTC_OK);
    memset(&it, 0, sizeof it);
    it.pkt.type = PTC_CYC;
    for (i = 0; i < 3; i++) {
        it.offset = 2 * i;
        it.pkt.u.cyc.cycles = counts[i];
        it.pkt.size = counts[i] < 32 ? 1 : 2;
        CHECK(ptc_clock_push(&c, &it) == PTC_OK);
    }
    ptc_clock_finish(&c);
    while (n < 3 && ptc_clock_pop(&c, &out[n]) == PTC_OK) n++;
    CHECK(n == 3);
    if (n != 3) return;
    CHECK(out[0].have_cycles && out[0].cycles == 3, "the first CYC counts");
    CHECK(out[1].have_cycles && out[1].cycles == 3 && out[2].cycles == 8, "300 in an 8-bit counter: %llu then %llu",
          (unsigned long long)out[1].cycles, (unsigned long long)out[2].cycles);
}

/* (SPEC 3.7) A TNT whose first branch had no CYC right before it is placed
   at the CYC its branch most likely had: not at a standalone CYC sent
   before the cycle counter wrapped (all ones, 4095 in the model's 12-bit
   counter), which no branch reset. On the sparse workload, wraps come
   between a TNT and the next one's first branch; the SDM's clocks make
   each such point exact, told the counter's width or not. */
static void tnt_first_branch_is_not_at_a_counter_wrap(void)
{
    int exact;
    for (exact = 0; exact < 2; exact++) {
        run r;
        ptc_clock_config cc;
        size_t i, tnts = 0, after_wrap = 0;
        uint64_t max_err = 0;
        int wrap_since_ntp = 0;
        if (!record_run(workload_find("sparse"), "seed", "cyc_en=1,cyc_thresh=2", 20000000, 1, &r)) return;
        clock_config_for(&r.cfg, exact, exact, &cc);
        if (!exact) cc.trace.cyc_bits = 32; /* perf records no counter width */
        if (time_run(&r, &cc))
            for (i = 0; i < r.tr.nt; i++) {
                const ptc_truth *t = &r.tr.t[i];
                const ptc_timed_item *ti = &r.ti[i];
                if (t->pkt.type == PTC_CYC && t->pkt.u.cyc.cycles == 4095) wrap_since_ntp = 1;
                if (!ptc_packet_is_tnt(t->pkt.type) || !ti->have_time) {
                    if (ptc_packet_is_ntp(t->pkt.type)) wrap_since_ntp = 0;
                    continue;
                }
                tnts++;
                after_wrap += (size_t)wrap_since_ntp;
                wrap_since_ntp = 0;
                if (ti->tsc > t->time.tsc && ti->tsc - t->time.tsc > max_err) max_err = ti->tsc - t->time.tsc;
                if (ti->tsc < t->time.tsc && t->time.tsc - ti->tsc > max_err) max_err = t->time.tsc - ti->tsc;
            }
        CHECK(after_wrap > 10, "%zu of %zu TNTs have a counter wrap since the packet before them", after_wrap, tnts);
        CHECK(max_err <= 2, "%s: a TNT's point is %llu ticks from its first branch", exact ? "ptsim's config" : "perf's config",
              (unsigned long long)max_err);
        printf("# %s: %zu TNTs, %zu after a counter wrap, largest error %llu ticks\n",
               exact ? "ptsim's config" : "perf's config", tnts, after_wrap, (unsigned long long)max_err);
        run_free(&r);
    }
}

/* (SPEC 3.5, 3.7) A CYC right before an OVF, a PSB or the end of the trace
   may follow a clock stop the trace does not show, so it gets no upper
   bound from the cycles; but cycles only add time: its lower bound is the
   anchor before it plus its cycles at the fastest rate, and its point
   counts them at the rate, as perf does. Before 0.3.0 such CYCs all stayed
   at the anchor (160 524 ticks off at the end of the filtered workload). */
static void cycs_before_a_break_count_their_cycles(void)
{
    static const struct { const char *workload, *policy, *settings; uint64_t cycles; } cases[] = {
        { "filtered", "seed", "cyc_en=1", 3000000 },            /* the trace ends in a run of wrapping CYCs */
        { "mixed", "seed", "cyc_en=1", 3000000 },               /* CYCs before OVFs */
        { "sparse", "seed", "cyc_en=1", 20000000 },             /* CYCs before PSBs */
        { "sparse", "seed", "cyc_en=1,skl168=1", 20000000 }
    };
    size_t c;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int exact;
        for (exact = 0; exact < 2; exact++) {
            run r;
            ptc_clock_config cc;
            size_t i, n = 0;
            uint64_t max_err = 0;
            if (!record_run(workload_find(cases[c].workload), cases[c].policy, cases[c].settings, cases[c].cycles, 5, &r)) return;
            clock_config_for(&r.cfg, exact, exact, &cc);
            if (time_run(&r, &cc))
                for (i = 0; i < r.tr.nt; i++) {
                    const ptc_truth *t = &r.tr.t[i];
                    const ptc_timed_item *ti = &r.ti[i];
                    size_t k = i + 1;
                    uint64_t err;
                    /* the last of a run of CYCs (and PADs) before the break */
                    while (k < r.tr.nt && (r.tr.t[k].pkt.type == PTC_PAD || r.tr.t[k].pkt.type == PTC_CYC)) k++;
                    if (t->pkt.type != PTC_CYC || !ti->have_time ||
                        (k < r.tr.nt && r.tr.t[k].pkt.type != PTC_OVF && r.tr.t[k].pkt.type != PTC_PSB))
                        continue;
                    n++;
                    CHECK(inside(t, ti), "%s: the CYC at %llu: truth %llu outside [%llu, %llu]", cases[c].workload,
                          (unsigned long long)t->offset, (unsigned long long)t->time.tsc,
                          (unsigned long long)ti->tsc_lo, (unsigned long long)ti->tsc_hi);
                    err = ti->tsc > t->time.tsc ? ti->tsc - t->time.tsc : t->time.tsc - ti->tsc;
                    if (err > max_err) max_err = err;
                }
            printf("# %s, %s, %s config: %zu CYCs before a break, largest error %llu ticks\n", cases[c].workload,
                   cases[c].settings, exact ? "ptsim's" : "perf's", n, (unsigned long long)max_err);
            CHECK(n > 0, "%s: no CYC before a break", cases[c].workload);
            CHECK(max_err <= 64, "%s: a CYC before a break is %llu ticks off", cases[c].workload,
                  (unsigned long long)max_err);
            run_free(&r);
        }
    }
}

/* (SPEC 3.6) One event, one instant: the FUP bound to a PTW or an EXSTOP
   with its IP bit is at that packet's time, and a FUP, MODE or PIP right
   before the TIP, TIP.PGE or TIP.PGD of its event (SDM "Compound Packet
   Event Summary") at the TIP's. Before 0.3.0 the FUP after an EXSTOP was
   put in the middle of the sleep that followed (up to 401 ticks off on the
   idle workload with CYC). */
static void one_event_one_instant(void)
{
    static const struct { const char *workload, *settings; } cases[] = {
        { "idle", "cyc_en=1" }, { "idle", "cyc_en=0" }, { "ptwrite", "cyc_en=1" }, { "ptwrite", "cyc_en=1,cyc_thresh=3" },
        { "mixed", "cyc_en=1" }, { "dense", "cyc_en=1,cyc_thresh=6" }, { "filtered", "cyc_en=0" }
    };
    size_t c, bound = 0, pairs = 0;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        run r;
        size_t i, prev = SIZE_MAX;
        if (!do_run(workload_find(cases[c].workload), "seed", cases[c].settings, 3000000, 3, 1, 1, &r)) return;
        for (i = 0; i < r.tr.nt; i++) {
            const ptc_packet *p = &r.tr.t[i].pkt, *q;
            const ptc_timed_item *a, *b;
            if (p->type == PTC_PAD) continue;
            if (prev == SIZE_MAX || !r.ti[prev].have_time || !r.ti[i].have_time) {
                prev = i;
                continue;
            }
            q = &r.tr.t[prev].pkt;
            a = &r.ti[prev];
            b = &r.ti[i];
            if (p->type == PTC_FUP && ((q->type == PTC_PTW && q->u.ptw.ip) || (q->type == PTC_EXSTOP && q->u.exstop.ip))) {
                bound++;
                CHECK(a->tsc == b->tsc && a->tsc_lo == b->tsc_lo && a->tsc_hi == b->tsc_hi,
                      "%s, %s: the FUP at %llu is at %llu in [%llu, %llu], its %s at %llu in [%llu, %llu]",
                      cases[c].workload, cases[c].settings, (unsigned long long)r.tr.t[i].offset,
                      (unsigned long long)b->tsc, (unsigned long long)b->tsc_lo, (unsigned long long)b->tsc_hi,
                      ptc_packet_type_name(q->type), (unsigned long long)a->tsc, (unsigned long long)a->tsc_lo,
                      (unsigned long long)a->tsc_hi);
            }
            if ((p->type == PTC_TIP || p->type == PTC_TIP_PGE || p->type == PTC_TIP_PGD) &&
                (q->type == PTC_FUP || q->type == PTC_MODE_EXEC || q->type == PTC_MODE_TSX || q->type == PTC_PIP) &&
                r.tr.t[prev].time.tsc == r.tr.t[i].time.tsc) {
                pairs++;
                CHECK(a->tsc == b->tsc, "%s, %s: the %s at %llu is at %llu, its TIP at %llu", cases[c].workload,
                      cases[c].settings, ptc_packet_type_name(q->type), (unsigned long long)r.tr.t[prev].offset,
                      (unsigned long long)a->tsc, (unsigned long long)b->tsc);
            }
            prev = i;
        }
        run_free(&r);
        if (testlib_check_failures) return;
    }
    printf("# %zu FUPs bound to a PTW or EXSTOP, %zu packets before the TIP of their event\n", bound, pairs);
    CHECK(bound > 100 && pairs > 10);
}

/* (SPEC 3.5 rule 4) With the CYC threshold unknown (a raw trace nobody
   wrote the settings of), the CYCs sent for eligible packets bound it: every
   true time stays inside its interval, and the intervals are no wider than
   with the threshold's rules unused (cyc_en 0, what 0.3.0 did), and
   narrower in all. */
static void unknown_threshold_is_bounded_by_the_cycs(void)
{
    static const char *const workloads[] = { "dense", "sparse", "mixed", "idle" };
    /* the last: a counter too narrow to reach the threshold, whose every
       CYC is a wrap (fuzz_clock's found-unknown-threshold-wrap-cyc) */
    static const char *const settings_of[] = { "cyc_en=1,cyc_thresh=0", "cyc_en=1,cyc_thresh=3", "cyc_en=1,cyc_thresh=6",
                                                "cyc_en=1,cyc_thresh=11,cyc_bits=4" };
    size_t w, k;
    ptc_clock_config cc;
    static ptc_clock clk;
    ptc_clock_config_default(&cc);
    CHECK(!(cc.trace.known & (PTC_KNOW_CYC_EN | PTC_KNOW_CYC_THRESH)), "the default knows nothing of the CYC mode");
    CHECK(ptc_clock_init(&clk, &cc) == PTC_OK);
    cc.trace.ctl.cyc_thresh = 16;
    CHECK(ptc_clock_init(&clk, &cc) == PTC_ERR_BAD_CONFIG, "a threshold above 15");
    for (w = 0; w < sizeof workloads / sizeof workloads[0]; w++)
        for (k = 0; k < sizeof settings_of / sizeof settings_of[0]; k++) {
            const char *settings = settings_of[k];
            char what[80];
            run r, off;
            stats s;
            size_t i, wider = 0;
            uint64_t sum_unknown = 0, sum_off = 0;
            snprintf(what, sizeof what, "%s, %s, threshold unknown", workloads[w], settings);
            if (!record_run(workload_find(workloads[w]), "off", settings, 2000000, 9, &r) ||
                !record_run(workload_find(workloads[w]), "off", settings, 2000000, 9, &off))
                return;
            clock_config_for(&r.cfg, 0, 0, &cc);
            cc.trace.known &= ~(uint32_t)PTC_KNOW_CYC_THRESH;
            if (!time_run(&r, &cc)) return;
            cc.trace.ctl.cyc_en = 0;
            if (!time_run(&off, &cc)) return;
            memset(&s, 0, sizeof s);
            check_validity(&r, &s, what);
            for (i = 0; i < r.tr.nt; i++) {
                const ptc_timed_item *a = &r.ti[i], *b = &off.ti[i];
                if (!a->have_time || !b->have_time || a->tsc_hi == UINT64_MAX || b->tsc_hi == UINT64_MAX) continue;
                sum_unknown += a->tsc_hi - a->tsc_lo;
                sum_off += b->tsc_hi - b->tsc_lo;
                wider += a->tsc_hi - a->tsc_lo > b->tsc_hi - b->tsc_lo;
            }
            printf("# %s: widths %llu against %llu with cyc_en 0\n", what, (unsigned long long)sum_unknown,
                   (unsigned long long)sum_off);
            CHECK(wider == 0, "%s: %zu intervals wider than with cyc_en 0", what, wider);
            if (k == 1 || k == 2) CHECK(sum_unknown < sum_off, "%s: the threshold's bound narrows nothing", what);
            run_free(&r);
            run_free(&off);
            if (testlib_check_failures) return;
        }
}

/* (SPEC 3.7) A TNT whose first branch had no CYC of its own shared the
   CYC of another packet (here each MTC's), and the packets do not say
   whose: its point is in the middle between the first and the last CYC
   since the packet before it, never more than half their span off. */
/* A packet of a hand-made stream, and the items it gives the clock. */
typedef struct hand_packet { ptc_packet_type type; uint64_t value; } hand_packet;

/* Runs the clock over the stream with SDM clocks, nom 37 at ratio 30, TSC:CTC
   308/2, MTCFreq 3 (an MTC every 999 cycles) and the given threshold; out[i]
   is packet i's time. 0 when not every packet came out. */
static int time_hand_stream(const hand_packet *stream, size_t n, uint8_t cyc_thresh, ptc_timed_item *out)
{
    static ptc_clock c;
    ptc_clock_config cc;
    size_t i, k = 0;
    ptc_clock_config_sdm(&cc);
    cc.trace.ctl.cyc_en = 1;
    cc.trace.ctl.cyc_thresh = cyc_thresh;
    cc.trace.known |= PTC_KNOW_CYC_EN | PTC_KNOW_CYC_THRESH;
    cc.trace.ctl.mtc_freq = 3;
    cc.trace.ratios.cpuid_15_eax = 2;
    cc.trace.ratios.cpuid_15_ebx = 308;
    cc.trace.ratios.nom_num = 37;
    cc.trace.ratios.nom_den = 1;
    if (ptc_clock_init(&c, &cc) != PTC_OK) return 0;
    for (i = 0; i < n; i++) {
        ptc_item it;
        memset(&it, 0, sizeof it);
        it.offset = i;
        it.pkt.type = stream[i].type;
        switch (stream[i].type) {
        case PTC_TSC: it.pkt.u.tsc.tsc = stream[i].value; break;
        case PTC_CBR: it.pkt.u.cbr.ratio = (uint8_t)stream[i].value; break;
        case PTC_CYC: it.pkt.u.cyc.cycles = stream[i].value; break;
        case PTC_MTC: it.pkt.u.mtc.ctc = (uint8_t)stream[i].value; break;
        case PTC_TNT8: it.pkt.u.tnt.count = 1; it.pkt.u.tnt.bits = 1; break;
        default: break;
        }
        if (ptc_clock_push(&c, &it) != PTC_OK) return 0;
        while (k < n && ptc_clock_pop(&c, &out[k]) == PTC_OK) k++;
    }
    ptc_clock_finish(&c);
    while (k < n && ptc_clock_pop(&c, &out[k]) == PTC_OK) k++;
    return k == n;
}

/* SPEC 3.7: a TNT with no CYC right before it and several CYCs (each an
   MTC's) since the packet before it. Where its branch is depends on how the
   encoder read SDM 36.3.6.2, which the trace shows: a lone CYC (a branch's,
   then an MTC's) says the branch-first reading, where the branch came in the
   cycle of one of them: the middle. Nothing shown: at the last CYC, as
   libipt and perf put it. Eight such TNTs and no lone CYC: the whole-TNT
   reading, half the threshold's window past the last CYC. */
static void tnt_first_branch_follows_the_reading_the_trace_shows(void)
{
    static const hand_packet ambiguous[] = {
        { PTC_TSC, 1000000 }, { PTC_TMA, 0 }, { PTC_CBR, 30 }, { PTC_TIP, 0 },
        { PTC_CYC, 999 }, { PTC_MTC, 1 }, { PTC_CYC, 999 }, { PTC_MTC, 2 }, { PTC_CYC, 999 }, { PTC_MTC, 3 },
        { PTC_TNT8, 1 }, { PTC_CYC, 500 }, { PTC_TIP, 0 }, { PTC_CYC, 500 }, { PTC_MTC, 4 },
    };
    /* the same, after a TNT whose branch's CYC was followed by an MTC's */
    static const hand_packet shown[] = {
        { PTC_TSC, 1000000 }, { PTC_TMA, 0 }, { PTC_CBR, 30 }, { PTC_TIP, 0 },
        { PTC_CYC, 400 }, { PTC_CYC, 599 }, { PTC_MTC, 1 }, { PTC_TNT8, 1 }, { PTC_CYC, 10 }, { PTC_TIP, 0 },
        { PTC_CYC, 989 }, { PTC_MTC, 2 }, { PTC_CYC, 999 }, { PTC_MTC, 3 }, { PTC_CYC, 999 }, { PTC_MTC, 4 },
        { PTC_TNT8, 1 }, { PTC_CYC, 500 }, { PTC_TIP, 0 }, { PTC_CYC, 500 }, { PTC_MTC, 5 },
    };
    enum { A_N = sizeof ambiguous / sizeof ambiguous[0], A_FIRST = 4, A_LAST = 8, A_TNT = 10,
           S_N = sizeof shown / sizeof shown[0], S_FIRST = 10, S_LAST = 14, S_TNT = 16, W_PERIODS = 10 };
    hand_packet whole[4 + 3 * W_PERIODS + 2];
    ptc_timed_item out[sizeof whole / sizeof whole[0] + S_N];
    size_t i, n = 0;
    /* nothing shown: at the last CYC */
    CHECK(time_hand_stream(ambiguous, A_N, 0, out));
    CHECK(out[A_LAST].tsc > out[A_FIRST].tsc + 2000, "the CYCs span two MTC periods: %llu to %llu",
          (unsigned long long)out[A_FIRST].tsc, (unsigned long long)out[A_LAST].tsc);
    CHECK(out[A_TNT].tsc == out[A_LAST].tsc, "nothing shown: the TNT at %llu, the last CYC at %llu",
          (unsigned long long)out[A_TNT].tsc, (unsigned long long)out[A_LAST].tsc);
    CHECK(out[A_TNT].tsc_lo <= out[A_FIRST].tsc && out[A_TNT].tsc_hi >= out[A_LAST].tsc,
          "its interval [%llu, %llu] holds every candidate", (unsigned long long)out[A_TNT].tsc_lo,
          (unsigned long long)out[A_TNT].tsc_hi);
    /* the branch-first reading shown: in the middle of the CYCs */
    CHECK(time_hand_stream(shown, S_N, 0, out));
    CHECK(out[S_TNT].tsc == out[S_FIRST].tsc + (out[S_LAST].tsc - out[S_FIRST].tsc) / 2,
          "a lone CYC shown: the TNT at %llu, the CYCs at %llu and %llu", (unsigned long long)out[S_TNT].tsc,
          (unsigned long long)out[S_FIRST].tsc, (unsigned long long)out[S_LAST].tsc);
    /* the whole-TNT reading shown: TNTs after CYC, MTC, and no lone CYC */
    memcpy(whole, ambiguous, 4 * sizeof whole[0]);
    for (i = 0; i < W_PERIODS; i++) {
        whole[4 + 3 * i].type = PTC_CYC;
        whole[4 + 3 * i].value = 999;
        whole[5 + 3 * i].type = PTC_MTC;
        whole[5 + 3 * i].value = i + 1;
        whole[6 + 3 * i].type = PTC_TNT8;
    }
    whole[4 + 3 * W_PERIODS].type = PTC_CYC;
    whole[4 + 3 * W_PERIODS].value = 999;
    whole[5 + 3 * W_PERIODS].type = PTC_MTC;
    whole[5 + 3 * W_PERIODS].value = W_PERIODS + 1;
    n = sizeof whole / sizeof whole[0];
    CHECK(time_hand_stream(whole, n, 6, out)); /* CycThresh 6: a window of 32 cycles */
    for (i = 0; i < W_PERIODS; i++) {
        uint64_t cyc = out[4 + 3 * i].tsc, tnt = out[6 + 3 * i].tsc;
        /* (the first 7 as nothing shown; from the 8th on, 16 cycles at 37/30 ticks: 19.7) */
        uint64_t want_lo = i < 7 ? cyc : cyc + 19, want_hi = i < 7 ? cyc : cyc + 20;
        CHECK(tnt >= want_lo && tnt <= want_hi, "whole TNT %zu at %llu, its CYC at %llu", i, (unsigned long long)tnt,
              (unsigned long long)cyc);
    }
}

/* SPEC 3.7 rule 3: a CBR without a TSC ends the epoch, not the points; the
   counter goes on from the CYC before it, at the CBR's ratio. */
static void cbr_without_tsc_carries_the_points(void)
{
    static const hand_packet stream[] = {
        { PTC_TSC, 1000000 }, { PTC_TMA, 0 }, { PTC_CBR, 30 }, { PTC_TIP, 0 },
        { PTC_CYC, 100 }, { PTC_TIP, 0 }, { PTC_CBR, 30 }, { PTC_CBR, 30 }, { PTC_CYC, 100 }, { PTC_TIP, 0 },
        { PTC_CYC, 799 }, { PTC_MTC, 1 },
    };
    enum { N = sizeof stream / sizeof stream[0], TIP_AFTER = 9 };
    ptc_timed_item out[N];
    CHECK(time_hand_stream(stream, N, 0, out));
    /* 200 cycles at 37/30 ticks: 246.7 past the TSC */
    CHECK(out[TIP_AFTER].tsc == 1000000 + 246, "the TIP after two CBRs at %llu [%llu, %llu]",
          (unsigned long long)out[TIP_AFTER].tsc, (unsigned long long)out[TIP_AFTER].tsc_lo,
          (unsigned long long)out[TIP_AFTER].tsc_hi);
    CHECK(out[TIP_AFTER].tsc_lo <= 1000000 + 246 && out[TIP_AFTER].tsc_hi >= 1000000 + 247,
          "its interval [%llu, %llu] holds the truth", (unsigned long long)out[TIP_AFTER].tsc_lo,
          (unsigned long long)out[TIP_AFTER].tsc_hi);
}

static void shared_data_present(void)
{
    SKIP("golden_time_*: no shared reference data (set PTCODEC_SHARED or put it in ../shared)");
}

/* ptc_clock_order_next (SPEC 3.8 G2): time may not go back, except a
   TNT's, back to the last non-timing packet's and no further; the items
   after a TNT are held to everything before it again. */
static ptc_timed_item timed(ptc_packet_type type, uint64_t lo, uint64_t point)
{
    ptc_timed_item t;
    memset(&t, 0, sizeof t);
    t.item.pkt.type = type;
    t.have_time = 1;
    t.tsc_lo = lo;
    t.tsc = point;
    t.tsc_hi = point + 10;
    return t;
}

static void order_check_is_g2(void)
{
    ptc_clock_order o;
    ptc_timed_item t;
    ptc_clock_order_init(&o);
    t = timed(PTC_TIP, 100, 105);
    CHECK(ptc_clock_order_next(&o, &t), "first");
    t = timed(PTC_MTC, 150, 160);
    CHECK(ptc_clock_order_next(&o, &t), "an MTC later");
    t = timed(PTC_TNT8, 101, 106);
    CHECK(ptc_clock_order_next(&o, &t), "a TNT's first branch before the MTC, after the TIP");
    t = timed(PTC_TIP, 150, 158);
    CHECK(!ptc_clock_order_next(&o, &t), "a TIP after the TNT, before the MTC's point");
    t = timed(PTC_TNT8, 150, 160);
    CHECK(ptc_clock_order_next(&o, &t), "a TNT at the latest time is in order");
    t = timed(PTC_TNT8, 150, 159);
    CHECK(!ptc_clock_order_next(&o, &t), "a TNT before the last non-timing packet (the TNT before it)");
    t = timed(PTC_TIP, 140, 170);
    CHECK(!ptc_clock_order_next(&o, &t), "a lower bound going back");
    t.have_time = 0;
    t.tsc = t.tsc_lo = 0;
    CHECK(ptc_clock_order_next(&o, &t), "no time: nothing to check");
}

int main(void)
{
    RUN(api_contract);
    RUN(divider_and_fractions_are_exact);
    RUN(order_check_is_g2);
    RUN(cyc_wider_than_the_counter_is_not_counted);
    RUN(tnt_first_branch_is_not_at_a_counter_wrap);
    RUN(tnt_first_branch_follows_the_reading_the_trace_shows);
    RUN(cbr_without_tsc_carries_the_points);
    RUN(cycs_before_a_break_count_their_cycles);
    RUN(one_event_one_instant);
    RUN(unknown_threshold_is_bounded_by_the_cycs);
    RUN(time_round_trip_every_workload_policy_and_configuration);
    RUN(width_bounds);
    RUN(without_the_policy);
    RUN(errata_keep_the_truth_inside);
    RUN(skl168_drops_the_cyc_before_a_psb);
    RUN(skz84_corrupt_tmas_are_timed_with_their_tsc);
    RUN(wrong_policy_is_reported);
    RUN(suppressed_is_no_wider);
    RUN(clock_after_resync);
    if (testlib_shared_dir()) golden_vectors();
    else RUN(shared_data_present);
    TESTLIB_EXIT();
}

/* Part 4: navigation. The hardware model reports every retirement it puts
   in the stream (the packet carrying it, its true cycle and TSC); the
   index built from the decoded, timed stream must hold every one inside
   its intervals, and queries by cycle, by TSC, from the end and by
   retirement count must land where SPEC.md 4.3 says. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"
#include "../tools/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../tools/modelrec.h"

#include <string.h>

/* ---- a run: the model's trace and retirements, and the index over it ---- */

typedef struct nav_run {
    mr_trace tr;
    ptc_model_config cfg;
    ptc_clock_config cc;
    ptc_nav nav;
    ptc_nav_entry *entries;
} nav_run;

static int nav_run_make(nav_run *r, int wi, const char *policy, const char *settings, uint64_t cycles, uint64_t seed)
{
    static ptc_clock clk;
    ptc_model_sink sink = mr_start(&r->tr, 1);
    char err[200];
    if (!wl_run_configured(wi, policy, settings, cycles, seed, &sink, &r->cfg, err, sizeof err)) {
        CHECK(0, "%s", err);
        return 0;
    }
    ptc_clock_config_from_model(&r->cc, &r->cfg);
    r->entries = (ptc_nav_entry *)malloc((r->tr.len + 1) * sizeof *r->entries);
    CHECK(ptc_clock_init(&clk, &r->cc) == PTC_OK);
    CHECK(ptc_nav_init(&r->nav, &r->cc, r->entries, r->tr.len) == PTC_OK);
    CHECK(ptc_nav_build(&r->nav, &clk, r->tr.bytes, r->tr.len) == PTC_OK, "len entries must suffice");
    return 1;
}

static void nav_run_free(nav_run *r)
{
    mr_free(&r->tr);
    free(r->entries);
    memset(r, 0, sizeof *r);
}

/* The true TSC of rt is at most t. */
static int true_tsc_at_most(const ptc_retire_truth *rt, uint64_t t)
{
    return rt->time.tsc < t || (rt->time.tsc == t && rt->time.num == 0);
}

/* ---- 4.1 retirements and 4.2 intervals ---------------------------------- */

typedef struct nav_case { int workload; const char *policy, *settings; } nav_case;

static const nav_case nav_cases[] = {
    { 0, "off", "cyc_en=1" },                       /* dense, CYC before every eligible packet */
    { 0, "seed", "cyc_en=1,cyc_thresh=3" },          /* with a threshold and suppression */
    { 0, "off", "cyc_en=1,long_tnt=1" },             /* TNT-64s: up to 47 branches a packet */
    { 0, "off", "" },                                /* no CYC: TSC only */
    { 1, "seed", "cyc_en=1" },                       /* sparse */
    { 2, "off", "cyc_en=1" },                        /* filtered: TIP.PGD/PGE */
    { 3, "off", "cyc_en=1" },                        /* ptwrite: FUPs */
    { 4, "seed", "cyc_en=1,cyc_thresh=2" },          /* idle: sleeps, EXSTOP FUPs */
    { 5, "off", "cyc_en=1" },                        /* dvfs: ratio changes */
    { 6, "seed", "cyc_en=1" },                       /* mixed: overflows too */
};

typedef struct nav_stats { uint64_t queries, exact, one_packet, width; } nav_stats;

/* Every retirement is in the index at its packet, inside its intervals;
   stepping to it by index finds it. */
static void check_entries(const nav_run *r)
{
    size_t i;
    CHECK(ptc_nav_retirements(&r->nav) == r->tr.nrt, "index has %llu retirements, the model wrote %zu",
          (unsigned long long)ptc_nav_retirements(&r->nav), r->tr.nrt);
    for (i = 0; i < r->tr.nrt && i < ptc_nav_retirements(&r->nav); i++) {
        const ptc_retire_truth *t = &r->tr.rt[i];
        ptc_nav_hit h;
        CHECK(t->index == i);
        CHECK(ptc_nav_step(&r->nav, 0, (int64_t)i, &h) == PTC_OK);
        CHECK(h.retire == i && h.entry.offset == t->offset && h.bit == t->bit && h.entry.type == t->type,
              "retirement %zu: index says off %llu bit %u, truth off %llu bit %u", i,
              (unsigned long long)h.entry.offset, h.bit, (unsigned long long)t->offset, t->bit);
        CHECK(h.taken == t->taken, "retirement %zu: outcome", i);
        if (t->type != PTC_TNT8 && t->type != PTC_TNT64)
            CHECK(h.entry.ip_known && h.entry.ip == t->ip, "retirement %zu: ip %llx, truth %llx", i,
                  (unsigned long long)h.entry.ip, (unsigned long long)t->ip);
        CHECK(h.entry.cycle_lo <= t->cycle && t->cycle <= h.entry.cycle_hi,
              "retirement %zu (off %llu): cycle %llu outside [%llu, %llu]", i, (unsigned long long)t->offset,
              (unsigned long long)t->cycle, (unsigned long long)h.entry.cycle_lo, (unsigned long long)h.entry.cycle_hi);
        CHECK(h.entry.tsc_lo <= t->time.tsc && true_tsc_at_most(t, h.entry.tsc_hi),
              "retirement %zu (off %llu): tsc %llu outside [%llu, %llu]", i, (unsigned long long)t->offset,
              (unsigned long long)t->time.tsc, (unsigned long long)h.entry.tsc_lo, (unsigned long long)h.entry.tsc_hi);
        if (tl_check_failures) return;
    }
}

/* ---- 4.3 queries ----------------------------------------------------------- */

/* From every retirement's true cycle (and TSC), the query lands on a range
   that holds the last retirement at or before it. */
static void check_find(const nav_run *r, ptc_nav_basis basis, nav_stats *st)
{
    size_t i, n = r->tr.nrt;
    for (i = 0; i < n; i++) {
        const ptc_retire_truth *t = &r->tr.rt[i];
        uint64_t value = basis == PTC_NAV_CYCLE ? t->cycle : t->time.tsc + (t->time.num != 0);
        size_t want = i;
        ptc_nav_hit h;
        /* the answer: the last retirement at or before value */
        while (want + 1 < n && (basis == PTC_NAV_CYCLE ? r->tr.rt[want + 1].cycle <= value
                                                       : true_tsc_at_most(&r->tr.rt[want + 1], value)))
            want++;
        CHECK(ptc_nav_find(&r->nav, basis, value, 0, &h) == PTC_OK, "retirement %zu", i);
        CHECK(h.retire_min <= want && want <= h.retire,
              "%s %llu: the answer %zu is outside [%llu, %llu]", basis == PTC_NAV_CYCLE ? "cycle" : "tsc",
              (unsigned long long)value, want, (unsigned long long)h.retire_min, (unsigned long long)h.retire);
        st->queries++;
        st->exact += h.retire_min == h.retire && !h.maybe_none;
        st->one_packet += h.retire_min >= h.entry.first && !h.maybe_none;
        st->width += h.retire - h.retire_min;
        if (tl_check_failures) return;
    }
}

/* Stepping K back from every retirement lands K earlier. */
static void check_steps(const nav_run *r)
{
    static const int64_t ks[] = { 1, 5, 47 };
    size_t i, k;
    for (i = 0; i < r->tr.nrt; i += 7) {
        for (k = 0; k < sizeof ks / sizeof ks[0]; k++) {
            ptc_nav_hit h;
            ptc_status st = ptc_nav_step(&r->nav, i, -ks[k], &h);
            if ((int64_t)i < ks[k]) {
                CHECK(st == PTC_ERR_NOT_FOUND);
                continue;
            }
            CHECK(st == PTC_OK && h.retire == i - (size_t)ks[k] && h.entry.offset == r->tr.rt[h.retire].offset);
            CHECK(ptc_nav_step(&r->nav, h.retire, ks[k], &h) == PTC_OK && h.retire == i, "and forward again");
        }
    }
    CHECK(ptc_nav_step(&r->nav, r->tr.nrt - 1, 1, &(ptc_nav_hit){ 0 }) == PTC_ERR_NOT_FOUND);
    CHECK(ptc_nav_step(&r->nav, r->tr.nrt, 0, &(ptc_nav_hit){ 0 }) == PTC_ERR_NOT_FOUND);
}

static void every_retirement_is_found_where_it_retired(void)
{
    size_t c;
    nav_stats cyc = { 0, 0, 0, 0 }, tsc = { 0, 0, 0, 0 };
    for (c = 0; c < sizeof nav_cases / sizeof nav_cases[0]; c++) {
        const nav_case *k = &nav_cases[c];
        nav_run r;
        memset(&r, 0, sizeof r);
        if (!nav_run_make(&r, k->workload, k->policy, k->settings, 3000000, 7 + c)) return;
        CHECK(r.tr.nrt > 20, "case %zu: only %zu retirements", c, r.tr.nrt);
        check_entries(&r);
        {
            nav_stats one = { 0, 0, 0, 0 };
            if (r.cfg.cyc_en) check_find(&r, PTC_NAV_CYCLE, &one);
            printf("  case %zu: %zu retirements; by cycle: mean width %.2f, %.1f%% exact\n", c, r.tr.nrt,
                   one.queries ? (double)one.width / (double)one.queries : 0.0,
                   one.queries ? 100.0 * (double)one.exact / (double)one.queries : 0.0);
            if (k->workload == 3) CHECK(one.exact == one.queries, "no TNT, CYC on: every cycle query is exact");
            cyc.queries += one.queries; cyc.exact += one.exact; cyc.one_packet += one.one_packet; cyc.width += one.width;
        }
        check_find(&r, PTC_NAV_TSC, &tsc);
        check_steps(&r);
        if (tl_check_failures) printf("  in case %zu (workload %d, %s, %s)\n", c, k->workload, k->policy, k->settings);
        nav_run_free(&r);
        if (tl_check_failures) return;
    }
    printf("  by cycle: %llu queries, %llu exact, %llu within one packet, mean width %.2f retirements\n",
           (unsigned long long)cyc.queries, (unsigned long long)cyc.exact, (unsigned long long)cyc.one_packet,
           (double)cyc.width / (double)cyc.queries);
    printf("  by TSC: %llu queries, %llu exact, %llu within one packet, mean width %.2f retirements\n",
           (unsigned long long)tsc.queries, (unsigned long long)tsc.exact, (unsigned long long)tsc.one_packet,
           (double)tsc.width / (double)tsc.queries);
}

/* With CYC before every eligible packet, a TIP's cycle is exact: a query
   at its cycle lands on it and nowhere else. */
static void tip_cycles_are_exact_with_cyc(void)
{
    nav_run r;
    size_t i, tips = 0;
    memset(&r, 0, sizeof r);
    if (!nav_run_make(&r, 0, "off", "cyc_en=1", 2000000, 3)) return;
    for (i = 0; i < r.tr.nrt; i++) {
        ptc_nav_hit h;
        if (r.tr.rt[i].type != PTC_TIP) continue;
        tips++;
        CHECK(ptc_nav_step(&r.nav, i, 0, &h) == PTC_OK && h.entry.cycle_lo == h.entry.cycle_hi &&
              h.entry.cycle_lo == r.tr.rt[i].cycle, "TIP %zu", i);
    }
    CHECK(tips > 10);
    nav_run_free(&r);
}

/* The seed's freeze and skid: recording stopped F cycles after an event
   that came S cycles after its instruction retired. */
static void freeze_and_skid(void)
{
    nav_run r;
    uint64_t end, f;
    memset(&r, 0, sizeof r);
    if (!nav_run_make(&r, 0, "off", "cyc_en=1", 2000000, 5)) return;
    end = ptc_nav_end_cycle(&r.nav);
    CHECK(end > 1000000 && end <= r.tr.rt[r.tr.nrt - 1].cycle + 2000000, "end cycle %llu", (unsigned long long)end);
    for (f = 0; f < 200000; f += 9973) {
        uint64_t skid = f % 7;
        ptc_nav_hit a, b;
        size_t want = 0;
        CHECK(ptc_nav_from_end(&r.nav, f, skid, &a) == PTC_OK);
        CHECK(ptc_nav_find(&r.nav, PTC_NAV_CYCLE, end - f, skid, &b) == PTC_OK && a.retire == b.retire &&
              a.retire_min == b.retire_min, "from_end is find at end - freeze");
        while (want + 1 < r.tr.nrt && r.tr.rt[want + 1].cycle <= end - f - skid) want++;
        CHECK(a.retire_min <= want && want <= a.retire);
    }
    CHECK(ptc_nav_from_end(&r.nav, end + 1, 0, &(ptc_nav_hit){ 0 }) == PTC_ERR_NOT_FOUND);
    nav_run_free(&r);
}

/* ---- the API's contract ---------------------------------------------------- */

static void api_contract(void)
{
    static ptc_clock clk;
    nav_run r;
    ptc_nav nav;
    ptc_nav_entry few[4], *more;
    ptc_nav_hit h;
    ptc_decoder d;
    ptc_item it;
    ptc_timed_item t;
    ptc_status st = PTC_OK;
    size_t grown = 0;
    memset(&r, 0, sizeof r);
    if (!nav_run_make(&r, 1, "off", "cyc_en=1", 1000000, 2)) return;
    CHECK(ptc_nav_init(NULL, &r.cc, few, 4) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_nav_init(&nav, &r.cc, NULL, 4) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_nav_init(&nav, &r.cc, few, 4) == PTC_OK);
    CHECK(ptc_nav_find(&nav, PTC_NAV_CYCLE, 0, 0, &h) == PTC_ERR_BAD_STATE, "queries need finish");
    CHECK(ptc_nav_find(&nav, (ptc_nav_basis)7, 0, 0, &h) == PTC_ERR_BAD_ARGUMENT);
    /* a full index refuses the entry and keeps it for larger storage */
    CHECK(ptc_clock_init(&clk, &r.cc) == PTC_OK);
    more = (ptc_nav_entry *)malloc(r.tr.len * sizeof *more);
    ptc_decoder_init_buffer(&d, 0, r.tr.bytes, r.tr.len);
    for (;;) {
        int more_items = ptc_decoder_next(&d, &it) == PTC_OK;
        if (more_items) CHECK(ptc_clock_push(&clk, &it) == PTC_OK);
        else ptc_clock_finish(&clk);
        while (ptc_clock_pop(&clk, &t) == PTC_OK) {
            st = ptc_nav_add(&nav, &t);
            if (st == PTC_ERR_NO_SPACE) {
                grown++;
                memcpy(more, few, sizeof few);
                CHECK(ptc_nav_set_storage(&nav, more, 2) == PTC_ERR_BAD_ARGUMENT, "smaller than the entries");
                CHECK(ptc_nav_set_storage(&nav, more, r.tr.len) == PTC_OK);
                st = ptc_nav_add(&nav, &t);
            }
            CHECK(st == PTC_OK);
        }
        if (!more_items) break;
    }
    ptc_nav_finish(&nav);
    CHECK(grown == 1);
    CHECK(ptc_nav_add(&nav, &t) == PTC_ERR_BAD_STATE, "nothing after finish");
    CHECK(ptc_nav_retirements(&nav) == r.tr.nrt && nav.count == r.nav.count);
    CHECK(memcmp(more, r.entries, nav.count * sizeof *more) == 0, "the same index as one ptc_nav_build");
    /* before anything retired there is nothing to land on */
    CHECK(ptc_nav_find(&nav, PTC_NAV_TSC, 0, 0, &h) == PTC_ERR_NOT_FOUND);
    CHECK(ptc_nav_find(&nav, PTC_NAV_CYCLE, 10, 11, &h) == PTC_ERR_NOT_FOUND, "skid beyond the value");
    CHECK(ptc_nav_find(&nav, PTC_NAV_CYCLE, UINT64_MAX, 0, &h) == PTC_OK && h.retire == r.tr.nrt - 1 &&
          h.retire_min == h.retire, "after the end: the last retirement");
    CHECK(ptc_status_name(PTC_ERR_NOT_FOUND)[0] == 'n');
    free(more);
    nav_run_free(&r);
}

/* Bytes that are not a clean trace: errors end the cycle upper bounds, and
   nothing crashes or goes outside its interval's order. */
static void damaged_input(void)
{
    static ptc_clock clk;
    static const ptc_nav_basis bases[] = { PTC_NAV_CYCLE, PTC_NAV_TSC };
    nav_run r;
    ptc_nav nav;
    size_t flip, i;
    memset(&r, 0, sizeof r);
    if (!nav_run_make(&r, 0, "off", "cyc_en=1", 300000, 4)) return;
    for (flip = 0; flip < r.tr.len; flip += r.tr.len / 97 + 1) {
        uint8_t *bytes = (uint8_t *)malloc(r.tr.len);
        memcpy(bytes, r.tr.bytes, r.tr.len);
        bytes[flip] ^= (uint8_t)(1u << (flip % 8));
        CHECK(ptc_clock_init(&clk, &r.cc) == PTC_OK);
        CHECK(ptc_nav_init(&nav, &r.cc, r.entries, r.tr.len) == PTC_OK);
        CHECK(ptc_nav_build(&nav, &clk, bytes, r.tr.len) == PTC_OK);
        for (i = 1; i < nav.count; i++)
            CHECK(r.entries[i - 1].cycle_lo <= r.entries[i].cycle_lo && r.entries[i - 1].cycle_hi <= r.entries[i].cycle_hi &&
                  r.entries[i - 1].tsc_lo <= r.entries[i].tsc_lo && r.entries[i - 1].tsc_hi <= r.entries[i].tsc_hi &&
                  r.entries[i - 1].first + r.entries[i - 1].count == r.entries[i].first, "entry %zu after flip at %zu", i, flip);
        for (i = 0; i < 2; i++) {
            ptc_nav_hit h;
            ptc_status st = ptc_nav_find(&nav, bases[i], UINT64_MAX / 2, 0, &h);
            CHECK(st == PTC_OK || st == PTC_ERR_NOT_FOUND);
        }
        free(bytes);
        if (tl_check_failures) break;
    }
    nav_run_free(&r);
}

int main(void)
{
    RUN(api_contract);
    RUN(every_retirement_is_found_where_it_retired);
    RUN(tip_cycles_are_exact_with_cyc);
    RUN(freeze_and_skid);
    RUN(damaged_input);
    return tl_tests_failed ? 1 : 0;
}

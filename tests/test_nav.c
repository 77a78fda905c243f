/* Part 4: navigation. The hardware model reports every retirement it puts
   in the stream (the packet carrying it, its true cycle and TSC); the
   index built from the decoded, timed stream must hold every one inside
   its intervals, and queries by cycle, by TSC, from the end and by
   retirement count must land where SPEC.md 4.3 says. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"
#include "../harness/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../harness/modelrec.h"
#include "../tools/navwindow.h"

#include <string.h>

/* ---- a run: the model's trace and retirements, and the index over it ---- */

typedef struct nav_run {
    modelrec_trace tr;
    ptc_model_config cfg;
    ptc_clock_config cc;
    ptc_nav nav;
    ptc_nav_entry *entries;
} nav_run;

#define NAV_GUEST (-1) /* the workload workload_run_in_guest runs (tools/workloads.h) */

static int nav_run_make(nav_run *r, int wi, const char *policy, const char *settings, uint64_t cycles, uint64_t seed)
{
    static ptc_clock clk;
    ptc_model_sink sink = modelrec_start(&r->tr, 1);
    char err[200];
    if (wi == NAV_GUEST) {
        ptc_model m;
        ptc_model_config_default(&r->cfg);
        CHECK(modelcfg_policy(&r->cfg.trace.policy, policy, err, sizeof err) && modelcfg_set_list(&r->cfg, settings, err, sizeof err), "%s",
              err);
        CHECK(ptc_model_init(&m, &r->cfg, &sink) == PTC_OK);
        workload_run_in_guest(&m, cycles, seed);
    } else if (!workload_run_configured(wi, policy, settings, cycles, seed, &sink, &r->cfg, err, sizeof err)) {
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
    modelrec_free(&r->tr);
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
    { 0, "off", "cyc_en=1,skl168=1,psb_freq=0" },    /* erratum SKL168: a CYC lost before a PSB */
    { NAV_GUEST, "off", "cyc_en=1,skz84=1,psb_freq=0" }, /* erratum SKZ84: corrupt TMAs in a VMX guest */
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
        if (testlib_check_failures) return;
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
        if (testlib_check_failures) return;
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
            if (r.cfg.trace.ctl.cyc_en) check_find(&r, PTC_NAV_CYCLE, &one);
            printf("  case %zu: %zu retirements; by cycle: mean width %.2f, %.1f%% exact\n", c, r.tr.nrt,
                   one.queries ? (double)one.width / (double)one.queries : 0.0,
                   one.queries ? 100.0 * (double)one.exact / (double)one.queries : 0.0);
            if (k->workload == 3) CHECK(one.exact == one.queries, "no TNT, CYC on: every cycle query is exact");
            cyc.queries += one.queries; cyc.exact += one.exact; cyc.one_packet += one.one_packet; cyc.width += one.width;
        }
        check_find(&r, PTC_NAV_TSC, &tsc);
        check_steps(&r);
        if (testlib_check_failures) printf("  in case %zu (workload %d, %s, %s)\n", c, k->workload, k->policy, k->settings);
        nav_run_free(&r);
        if (testlib_check_failures) return;
    }
    printf("  by cycle: %llu queries, %llu exact, %llu within one packet, mean width %.2f retirements\n",
           (unsigned long long)cyc.queries, (unsigned long long)cyc.exact, (unsigned long long)cyc.one_packet,
           (double)cyc.width / (double)cyc.queries);
    printf("  by TSC: %llu queries, %llu exact, %llu within one packet, mean width %.2f retirements\n",
           (unsigned long long)tsc.queries, (unsigned long long)tsc.exact, (unsigned long long)tsc.one_packet,
           (double)tsc.width / (double)tsc.queries);
}

/* ---- 4.3 an index kept to one query's window ----------------------------- */

/* The run's trace indexed again, kept to the window `query` needs,
   from room for one entry so that it forgets all along. */
static ptc_status windowed(const nav_run *r, navwin_needed needed, const void *query, navwin_index *x)
{
    return navwin_build_ring(x, &r->cc, r->tr.bytes, r->tr.len, r->tr.len, needed, query, NULL, NULL);
}

/* The window answers a query, and the --back steps before its answer,
   as the whole index does. */
static void check_window(const nav_run *r, const navwin_index *x, ptc_status st, const ptc_nav_hit *want, uint64_t back,
                         const char *what, uint64_t value)
{
    uint64_t k;
    CHECK(st == PTC_OK || st == PTC_ERR_NOT_FOUND, "%s %llu: %s", what, (unsigned long long)value,
          ptc_status_name(st));
    if (st != PTC_OK) return;
    for (k = 1; k <= back && want->retire >= k; k++) {
        ptc_nav_hit wb, hb;
        ptc_status swb = ptc_nav_step(&r->nav, want->retire, -(int64_t)k, &wb);
        ptc_status shb = ptc_nav_step(&x->nav, want->retire, -(int64_t)k, &hb);
        CHECK(navwin_same_hit(swb, &wb, shb, &hb), "%s %llu: %llu back from the answer", what, (unsigned long long)value,
              (unsigned long long)k);
    }
}

static void a_window_answers_as_the_whole_index(void)
{
    size_t c, i;
    uint64_t most = 0, whole = 0;
    for (c = 0; c < sizeof nav_cases / sizeof nav_cases[0]; c++) {
        const nav_case *k = &nav_cases[c];
        nav_run r;
        memset(&r, 0, sizeof r);
        if (!nav_run_make(&r, k->workload, k->policy, k->settings, 1000000, 31 + c)) return;
        if (r.tr.nrt > whole) whole = r.tr.nrt;
        for (i = 0; i < 8; i++) {
            const ptc_retire_truth *t = &r.tr.rt[r.tr.nrt * i / 8];
            navwin_find f;
            navwin_index x;
            ptc_nav_hit want, got;
            ptc_status sw, sg;
            uint64_t retire = r.tr.nrt * (2 * i + 1) / 16 + (i == 7) * r.tr.nrt; /* the last: past the end */
            f.basis = (i & 1) && r.cfg.trace.ctl.cyc_en ? PTC_NAV_CYCLE : PTC_NAV_TSC;
            f.value = f.basis == PTC_NAV_CYCLE ? t->cycle : t->time.tsc + i;
            f.back = i * 7;
            sw = ptc_nav_find(&r.nav, f.basis, f.value, 0, &want);
            CHECK(windowed(&r, navwin_needed_by_find, &f, &x) == PTC_OK);
            sg = ptc_nav_find(&x.nav, f.basis, f.value, 0, &got);
            CHECK(navwin_same_hit(sw, &want, sg, &got), "case %zu, %s %llu: the window answers %s [%llu, %llu], the index "
                  "%s [%llu, %llu]", c, f.basis == PTC_NAV_CYCLE ? "cycle" : "tsc", (unsigned long long)f.value,
                  ptc_status_name(sg), (unsigned long long)got.retire_min, (unsigned long long)got.retire,
                  ptc_status_name(sw), (unsigned long long)want.retire_min, (unsigned long long)want.retire);
            check_window(&r, &x, sg, &want, f.back, "find", f.value);
            /* the window holds the answer's range and what waits for a
               bound; growing by doubling, at most twice that */
            if (sw == PTC_OK)
                CHECK(x.most <= 2 * (want.retire - want.retire_min + f.back) + 4096,
                      "case %zu: %zu entries held for an answer %llu wide", c, x.most,
                      (unsigned long long)(want.retire - want.retire_min));
            if (x.most > most) most = x.most;
            navwin_free(&x);
            /* by retirement: what ptnav --retire N --back K keeps */
            {
                navwin_retire w;
                w.retire = retire;
                w.back = i * 3;
                sw = ptc_nav_step(&r.nav, retire, 0, &want);
                CHECK(windowed(&r, navwin_needed_by_retire, &w, &x) == PTC_OK);
                sg = ptc_nav_step(&x.nav, retire, 0, &got);
                CHECK(navwin_same_hit(sw, &want, sg, &got), "case %zu: retirement %llu", c, (unsigned long long)retire);
                check_window(&r, &x, sg, &want, w.back, "retire", retire);
                CHECK(x.most <= 2 * w.back + 4096, "case %zu: %zu entries held for retirement %llu", c, x.most,
                      (unsigned long long)retire);
                if (x.most > most) most = x.most;
                navwin_free(&x);
            }
        }
        if (testlib_check_failures) printf("  in case %zu (workload %d, %s, %s)\n", c, k->workload, k->policy, k->settings);
        nav_run_free(&r);
        if (testlib_check_failures) return;
    }
    printf("  at most %llu entries held for one query (an answer as wide as SKL168's cut bounds make it); the "
           "traces have up to %llu retirements\n", (unsigned long long)most, (unsigned long long)whole);
}

/* With CYC before every eligible packet, a TIP's cycle is exact: a query
   at its cycle lands on it and nowhere else. So too in a VMX guest whose
   TMAs erratum SKZ84 corrupts: a corrupt_tma loses no cycles (SPEC 4.2). */
static void tip_cycles_are_exact_with_cyc(void)
{
    int guest;
    for (guest = 0; guest < 2; guest++) {
        nav_run r;
        size_t i, tips = 0, corrupt = 0;
        memset(&r, 0, sizeof r);
        if (!nav_run_make(&r, guest ? NAV_GUEST : 0, "off", guest ? "cyc_en=1,skz84=1,psb_freq=0" : "cyc_en=1", 2000000, 3))
            return;
        for (i = 0; i < r.tr.nt; i++) corrupt += r.tr.t[i].fate == PTC_FATE_CORRUPT;
        for (i = 0; i < r.tr.nrt; i++) {
            ptc_nav_hit h;
            if (r.tr.rt[i].type != PTC_TIP) continue;
            tips++;
            CHECK(ptc_nav_step(&r.nav, i, 0, &h) == PTC_OK && h.entry.cycle_lo == h.entry.cycle_hi &&
                      h.entry.cycle_lo == r.tr.rt[i].cycle, "%s TIP %zu", guest ? "guest" : "dense", i);
        }
        CHECK(tips > 10 && (!guest || corrupt > 2), "%zu TIPs, %zu corrupt TMAs", tips, corrupt);
        nav_run_free(&r);
    }
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
    /* a full index refuses the entry, changes nothing, and takes it again
       with larger storage: first moved from `few`, then grown by one entry
       at a time in `more`, so that every item with retirements is refused
       once, whatever the index was waiting for (a CYC's bound, a TNT's
       end) */
    CHECK(ptc_clock_init(&clk, &r.cc) == PTC_OK);
    more = (ptc_nav_entry *)malloc(r.tr.len * sizeof *more);
    ptc_decoder_init_buffer(&d, 0, r.tr.bytes, r.tr.len);
    for (;;) {
        int more_items = ptc_decoder_next(&d, &it) == PTC_OK;
        if (more_items) CHECK(ptc_clock_push(&clk, &it) == PTC_OK);
        else ptc_clock_finish(&clk);
        while (ptc_clock_pop(&clk, &t) == PTC_OK) {
            ptc_nav before = nav;
            st = ptc_nav_add(&nav, &t);
            if (st == PTC_ERR_NO_SPACE) {
                size_t k, changed = 0;
                for (k = before.pending; k < before.count; k++) /* the entries a bound would have touched */
                    changed += nav.entries[k].cycle_hi != UINT64_MAX;
                grown++;
                CHECK(memcmp(&before, &nav, sizeof nav) == 0 && !changed, "a refused item changes nothing");
                if (nav.entries == few) {
                    memcpy(more, few, sizeof few);
                    CHECK(ptc_nav_set_storage(&nav, more, 2) == PTC_ERR_BAD_ARGUMENT, "smaller than the entries");
                }
                CHECK(ptc_nav_set_storage(&nav, more, nav.count + 1) == PTC_OK);
                st = ptc_nav_add(&nav, &t);
            }
            CHECK(st == PTC_OK);
        }
        if (!more_items) break;
    }
    ptc_nav_finish(&nav);
    CHECK(grown == r.nav.count - 4, "every entry after the first four was refused once");
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
        if (testlib_check_failures) break;
    }
    nav_run_free(&r);
}

/* ---- 4.5 snapshots ------------------------------------------------------------ */

/* The bound on the distance between PSBs holds on every workload. */
static void psb_gap_is_bounded(void)
{
    static const char *const settings[] = { "", "cyc_en=1", "cyc_en=1,psb_freq=1,long_tnt=1",
                                            "cyc_en=1,psb_early_tsc=255,mtc_freq=6" };
    int wi;
    size_t k;
    uint64_t worst_over = 0;
    for (wi = 0; wi < WORKLOAD_COUNT; wi++) {
        for (k = 0; k < sizeof settings / sizeof settings[0]; k++) {
            modelrec_trace tr;
            ptc_model_config cfg;
            ptc_model_sink sink = modelrec_start(&tr, 1);
            char err[200];
            size_t i, last = 0;
            uint64_t period;
            CHECK(workload_run_configured(wi, "seed", settings[k], 2000000, 9, &sink, &cfg, err, sizeof err), "%s", err);
            period = UINT64_C(2048) << cfg.trace.ctl.psb_freq;
            for (i = 0; i < tr.nt; i++) {
                if (tr.t[i].pkt.type != PTC_PSB) continue;
                CHECK(tr.t[i].offset - last <= ptc_model_psb_gap_max(&cfg), "workload %d: PSBs %llu bytes apart", wi,
                      (unsigned long long)(tr.t[i].offset - last));
                if (tr.t[i].offset - last + 1 > 16 + period && tr.t[i].offset - last + 1 - 16 - period > worst_over)
                    worst_over = tr.t[i].offset - last + 1 - 16 - period;
                last = (size_t)tr.t[i].offset;
            }
            modelrec_free(&tr);
        }
    }
    printf("  most bytes past the PSB period: %llu (bound %d)\n", (unsigned long long)worst_over, PTC_MODEL_STEP_BYTES);
}

/* Bytes [0, n) of `bytes` into a ring of cap that a trigger at `trigger`
   stops `after` bytes later. */
static void capture(ptc_ring *ring, uint8_t *buf, size_t cap, const uint8_t *bytes, size_t n, size_t trigger, size_t after)
{
    CHECK(ptc_ring_init(ring, buf, cap) == PTC_OK);
    CHECK(ptc_ring_write(ring, bytes, trigger) == trigger);
    ptc_ring_stop_after(ring, after);
    CHECK(ptc_ring_write(ring, bytes + trigger, n - trigger) == (after < n - trigger ? after : n - trigger));
}

/* A ring sized by ptc_snapshot_size keeps the promised history before the
   trigger, and decodes to exactly the packets of the whole stream from the
   first PSB it holds up to where it stopped. */
static void snapshot_keeps_the_history(void)
{
    static const uint64_t history = 6000, after = 1500;
    nav_run r;
    uint8_t *buf;
    size_t cap, t, tries = 0;
    uint64_t least = UINT64_MAX; /* the least history kept before a trigger */
    memset(&r, 0, sizeof r);
    if (!nav_run_make(&r, 0, "seed", "cyc_en=1", 2000000, 6)) return;
    cap = (size_t)ptc_snapshot_size(&r.cfg, history, after);
    CHECK(cap == ptc_model_psb_gap_max(&r.cfg) + history + after);
    buf = (uint8_t *)malloc(cap);
    for (t = 0; t < r.tr.len; t += r.tr.len / 61 + 1) {
        ptc_ring ring;
        ptc_ring_reader rd;
        ptc_decoder full;
        ptc_item a, b;
        uint64_t overwritten, from, end;
        size_t k = 0;
        capture(&ring, buf, cap, r.tr.bytes, r.tr.len, t, after);
        end = ptc_ring_written(&ring);
        CHECK(ptc_ring_reader_init(&rd, buf, cap, end) == PTC_OK);
        ptc_decoder_init_buffer(&full, 0, r.tr.bytes, r.tr.len);
        while (ptc_ring_reader_next(&rd, &a) == PTC_OK) {
            if (a.error != PTC_OK) { /* only the packet the stop cut short */
                CHECK(a.error == PTC_ERR_TRUNCATED && a.offset + PTC_MAX_PACKET_SIZE > end, "%s at %llu",
                      ptc_status_name(a.error), (unsigned long long)a.offset);
                continue;
            }
            do CHECK(ptc_decoder_next(&full, &b) == PTC_OK); while (b.offset < a.offset);
            CHECK(b.offset == a.offset && ptc_packet_equal(&a.pkt, &b.pkt), "ring item at %llu", (unsigned long long)a.offset);
            k++;
            if (testlib_check_failures) break;
        }
        ptc_ring_reader_lost(&rd, &overwritten, &from);
        CHECK(overwritten == (end > cap ? end - cap : 0));
        CHECK(from >= overwritten && k > 0);
        if (t >= history) {
            CHECK(from + history <= t, "trigger at %zu: decoding starts at %llu", t, (unsigned long long)from);
            if (t - from < least) least = t - from;
        } else {
            CHECK(from == 0);
        }
        tries++;
        if (testlib_check_failures) break;
    }
    CHECK(tries > 50);
    printf("  snapshot: %zu trigger points, ring of %zu bytes, at least %llu bytes of history kept (promised %llu)\n",
           tries, cap, (unsigned long long)least, (unsigned long long)history);
    free(buf);
    nav_run_free(&r);
}

/* Any write offset: the reader never fails, and its items are in order. */
static void ring_from_any_write_offset(void)
{
    nav_run r;
    size_t cap = 3000, w;
    memset(&r, 0, sizeof r);
    if (!nav_run_make(&r, 6, "seed", "cyc_en=1", 300000, 8)) return;
    CHECK(r.tr.len > cap);
    for (w = cap; w < 2 * cap; w += 7) {
        ptc_ring_reader rd;
        ptc_item it;
        uint64_t last = 0, n = 0;
        CHECK(ptc_ring_reader_init(&rd, r.tr.bytes, cap, w) == PTC_OK);
        while (ptc_ring_reader_next(&rd, &it) == PTC_OK) {
            CHECK(it.offset >= last && it.offset >= w - cap && it.offset < w, "offset %llu", (unsigned long long)it.offset);
            last = it.offset;
            n++;
        }
    }
    CHECK(ptc_ring_reader_init(NULL, r.tr.bytes, cap, 1) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_ring_reader_init(&(ptc_ring_reader){ 0 }, r.tr.bytes, 0, 1) == PTC_ERR_BAD_ARGUMENT);
    nav_run_free(&r);
}

/* The index over a snapshot holds the model's retirements from its first
   PSB on, at their stream offsets. */
static void navigation_over_a_snapshot(void)
{
    static ptc_clock clk;
    nav_run r;
    ptc_ring ring;
    uint8_t *buf;
    size_t cap = 20000, first = 0, i;
    ptc_nav nav;
    uint64_t overwritten, from;
    ptc_ring_reader rd;
    ptc_item it;
    memset(&r, 0, sizeof r);
    if (!nav_run_make(&r, 0, "off", "cyc_en=1", 1000000, 12)) return;
    buf = (uint8_t *)malloc(cap);
    capture(&ring, buf, cap, r.tr.bytes, r.tr.len, r.tr.len / 2, 5000);
    CHECK(ptc_clock_init(&clk, &r.cc) == PTC_OK);
    CHECK(ptc_nav_init(&nav, &r.cc, r.entries, cap) == PTC_OK);
    CHECK(ptc_nav_build_ring(&nav, &clk, buf, cap, ptc_ring_written(&ring)) == PTC_OK);
    CHECK(ptc_ring_reader_init(&rd, buf, cap, ptc_ring_written(&ring)) == PTC_OK);
    while (ptc_ring_reader_next(&rd, &it) == PTC_OK) {}
    ptc_ring_reader_lost(&rd, &overwritten, &from);
    while (first < r.tr.nrt && r.tr.rt[first].offset < from) first++;
    CHECK(ptc_nav_retirements(&nav) > 100);
    for (i = 0; i < ptc_nav_retirements(&nav); i++) {
        ptc_nav_hit h;
        const ptc_retire_truth *t = &r.tr.rt[first + i];
        CHECK(ptc_nav_step(&nav, 0, (int64_t)i, &h) == PTC_OK && h.entry.offset == t->offset && h.bit == t->bit);
        CHECK(h.entry.tsc_lo <= t->time.tsc && true_tsc_at_most(t, h.entry.tsc_hi));
        if (testlib_check_failures) break;
    }
    CHECK(r.tr.rt[first + ptc_nav_retirements(&nav) - 1].offset < ptc_ring_written(&ring));
    free(buf);
    nav_run_free(&r);
}

/* ---- 5.7 triggers ---------------------------------------------------------------- */

typedef struct trig_run {
    modelrec_trace tr;
    uint64_t fired_cycle; /* the cycle of the trigger_nth-th event at the trigger IP */
    uint64_t a_cycle[20]; /* of every jump from A */
} trig_run;

/* A trigger on A's nth event, with or without its FUP and a TraceStop. */
static void trig_config(ptc_model_config *cfg, uint32_t nth, int fup, int stop, uint64_t delay)
{
    ptc_model_config_default(cfg);
    cfg->trace.ctl.cyc_en = 1;
    cfg->trigger_ip = 0x401000;
    cfg->trigger_nth = nth;
    cfg->trigger_fup = (uint8_t)fup;
    cfg->trace_stop = (uint8_t)stop;
    cfg->stop_delay = delay;
}

/* Jumps between A and B, 20 times; the trigger watches A (or counters c,
   when not NULL, count the jumps). */
static void trig_program_counted(const ptc_model_config *cfg, ptc_counters *c, trig_run *r)
{
    ptc_model m;
    ptc_model_sink sink = modelrec_start(&r->tr, 1);
    const uint64_t a = 0x401000, b = 0x402000;
    unsigned i, seen = 0;
    CHECK(ptc_model_init(&m, cfg, &sink) == PTC_OK);
    CHECK(ptc_model_attach_counters(&m, c, 0) == PTC_OK);
    CHECK(ptc_model_start(&m, a) == PTC_OK);
    for (i = 0; i < 20; i++) {
        ptc_model_idle(&m, 3000);
        ptc_model_jump(&m, a, b, 1);
        r->a_cycle[i] = m.cycle;
        if (++seen == cfg->trigger_nth) r->fired_cycle = m.cycle;
        ptc_model_idle(&m, 1000);
        ptc_model_jump(&m, b, a, 1);
    }
    ptc_model_stop(&m);
}

static void trig_program(const ptc_model_config *cfg, trig_run *r) { trig_program_counted(cfg, NULL, r); }

static void trigger_fires_once_on_the_nth(void)
{
    ptc_model_config cfg;
    trig_run r;
    size_t i, trigs = 0;
    memset(&r, 0, sizeof r);
    trig_config(&cfg, 7, 1, 0, 0);
    trig_program(&cfg, &r);
    for (i = 0; i < r.tr.nt; i++) {
        const ptc_truth *t = &r.tr.t[i];
        if (t->pkt.type != PTC_TRIG) continue;
        trigs++;
        CHECK(t->cycle == r.fired_cycle && t->pkt.u.trig.trbv == 1 && t->pkt.u.trig.ip == 1);
        CHECK(i + 1 < r.tr.nt && r.tr.t[i + 1].pkt.type == PTC_FUP, "the FUP of the instruction follows");
    }
    CHECK(trigs == 1, "%zu TRIG packets", trigs);
    for (i = 0; i < r.tr.nrt; i++)
        if (r.tr.rt[i].type == PTC_FUP) CHECK(r.tr.rt[i].ip == 0x401000 && r.tr.rt[i].cycle == r.fired_cycle);
    modelrec_free(&r.tr);
}

/* A counter overflow as the trigger source: the counter of indirect jumps
   starts 5 below the wrap, so it overflows at the 5th jump, the 3rd from A
   (they alternate A->B, B->A), and the trigger (nth 1) fires there. */
static void trigger_on_a_counter_overflow(void)
{
    static const ptc_counter_config jumps = { PTC_EV_INDIRECT, 0, 0, 1, 1, 0, (UINT64_C(1) << PTC_COUNTER_BITS) - 5 };
    ptc_model_config cfg;
    ptc_counters c;
    trig_run r;
    size_t i, trigs = 0;
    memset(&r, 0, sizeof r);
    trig_config(&cfg, 1, 0, 0, 0);
    cfg.trigger_counter = 1;
    CHECK(ptc_counters_init(&c, &jumps, 1) == PTC_OK);
    trig_program_counted(&cfg, &c, &r);
    for (i = 0; i < r.tr.nt; i++) {
        if (r.tr.t[i].pkt.type != PTC_TRIG) continue;
        trigs++;
        CHECK(r.tr.t[i].cycle == r.a_cycle[2], "TRIG at cycle %llu, the 3rd jump from A at %llu",
              (unsigned long long)r.tr.t[i].cycle, (unsigned long long)r.a_cycle[2]);
    }
    CHECK(trigs == 1 && ptc_counters_overflows(&c, 0) == 1);
    cfg.trigger_counter = PTC_COUNTERS_MAX + 1;
    {
        ptc_model m;
        CHECK(ptc_model_init(&m, &cfg, NULL) == PTC_ERR_BAD_CONFIG && strcmp(ptc_model_error_field(&m), "trigger_counter") == 0);
    }
    modelrec_free(&r.tr);
}

static void trace_stop_after_the_delay(void)
{
    ptc_model_config cfg;
    trig_run r, ref;
    size_t i, stops = 0;
    memset(&r, 0, sizeof r);
    memset(&ref, 0, sizeof ref);
    trig_config(&cfg, 5, 0, 1, 2500);
    trig_program(&cfg, &r);
    for (i = 0; i < r.tr.nt; i++) {
        if (r.tr.t[i].pkt.type != PTC_STOP) continue;
        stops++;
        CHECK(r.tr.t[i].cycle == r.fired_cycle + cfg.stop_delay, "TraceStop at %llu, trigger at %llu",
              (unsigned long long)r.tr.t[i].cycle, (unsigned long long)r.fired_cycle);
        CHECK(i + 1 == r.tr.nt, "nothing after TraceStop");
        CHECK(i > 0 && r.tr.t[i - 1].pkt.type == PTC_TIP_PGD);
    }
    CHECK(stops == 1);
    cfg.reference_stepping = 1; /* the same, one cycle at a time */
    trig_program(&cfg, &ref);
    CHECK(ref.tr.len == r.tr.len && memcmp(ref.tr.bytes, r.tr.bytes, r.tr.len) == 0);
    modelrec_free(&r.tr);
    modelrec_free(&ref.tr);
    /* at once, with no delay */
    memset(&r, 0, sizeof r);
    cfg.reference_stepping = 0;
    cfg.stop_delay = 0;
    trig_program(&cfg, &r);
    CHECK(r.tr.nt > 0 && r.tr.t[r.tr.nt - 1].pkt.type == PTC_STOP && r.tr.t[r.tr.nt - 1].cycle == r.fired_cycle);
    modelrec_free(&r.tr);
}

/* ---- 5.8 event counters and PEBS via PT ---------------------------------------- */

#define K_USER   UINT64_C(0x401000)
#define K_KERNEL UINT64_C(0xffffffff81000000)

/* Hardware thread t of a core sharing *c: branches, indirect jumps and
   system calls into the kernel and back. */
static void counter_thread(ptc_counters *c, uint8_t t, int trace_os, modelrec_trace *tr)
{
    ptc_model m;
    ptc_model_config cfg;
    ptc_model_sink sink = modelrec_start(tr, 1);
    unsigned i;
    uint64_t ip = K_USER;
    ptc_model_config_default(&cfg);
    cfg.trace.ctl.cyc_en = 1;
    cfg.trace.ctl.os = (uint8_t)trace_os;
    CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
    CHECK(ptc_model_attach_counters(&m, c, t) == PTC_OK);
    CHECK(ptc_model_start(&m, ip) == PTC_OK);
    CHECK(ptc_model_attach_counters(&m, c, t) == PTC_ERR_BAD_STATE, "not while tracing");
    for (i = 0; i < 300; i++) {
        uint64_t base = ip >= K_KERNEL ? K_KERNEL : K_USER;
        ptc_model_idle(&m, 20 + i % 7);
        ptc_model_branch(&m, ip, (i * 7 + t) % 3 ? base + 0x40 * (i % 9) : ip + 2, (i * 7 + t) % 3 != 0);
        ip = (i * 7 + t) % 3 ? base + 0x40 * (i % 9) : ip + 2;
        if (i % 11 == 5) {
            ptc_model_jump(&m, ip, base + 0x800 + i, 1);
            ip = base + 0x800 + i;
        }
        if (i % 23 == 22) { /* into the kernel, or back */
            uint64_t to = ip >= K_KERNEL ? K_USER + 0x100 : K_KERNEL + 0x100;
            ptc_model_privilege(&m, ip, to, to >= K_KERNEL ? 0 : 3);
            ip = to;
        }
    }
    ptc_model_stop(&m);
}

static const ptc_counter_config counter_cfg[4] = {
    /* event, outcome, threads, usr, os, pebs, start */
    { PTC_EV_BRANCH, 1, 1, 1, 0, 0, 0 },                                     /* taken branches, thread 0, user */
    { PTC_EV_BRANCH, 0, 2, 0, 1, 0, 1000 },                                  /* all branches, thread 1, kernel */
    { PTC_EV_INDIRECT, 0, 0, 1, 1, 1, (UINT64_C(1) << PTC_COUNTER_BITS) - 5 }, /* PEBS at the 5th */
    { PTC_EV_PRIVILEGE, 0, 0, 1, 1, 0, (UINT64_C(1) << PTC_COUNTER_BITS) - 1 } /* wraps at once */
};

/* What counter k should read after the events of both threads. */
static void expected_count(const modelrec_trace *tr, size_t nthreads, unsigned k, uint64_t *value, uint64_t *overflows)
{
    const ptc_counter_config *c = &counter_cfg[k];
    uint64_t n = 0, total;
    size_t t, i;
    for (t = 0; t < nthreads; t++)
        for (i = 0; i < tr[t].nev; i++) {
            const ptc_event_truth *e = &tr[t].ev[i];
            if ((uint8_t)e->kind != c->event) continue;
            if (e->kind == PTC_EV_BRANCH && c->outcome && !(c->outcome & (e->taken ? 1 : 2))) continue;
            if (c->threads && !(c->threads & (1u << e->thread))) continue;
            if (!(e->cpl ? c->usr : c->os)) continue;
            n++;
        }
    total = c->start + n;
    *value = total & ((UINT64_C(1) << PTC_COUNTER_BITS) - 1);
    *overflows = total >> PTC_COUNTER_BITS;
}

static void counters_qualify_by_thread_and_privilege(void)
{
    ptc_counters c;
    modelrec_trace tr[2];
    unsigned k;
    size_t i, kernel = 0;
    CHECK(ptc_counters_init(&c, counter_cfg, 4) == PTC_OK);
    counter_thread(&c, 0, 1, &tr[0]);
    counter_thread(&c, 1, 0, &tr[1]);
    for (k = 0; k < 4; k++) {
        uint64_t v, o;
        expected_count(tr, 2, k, &v, &o);
        CHECK(ptc_counters_read(&c, k) == v && ptc_counters_overflows(&c, k) == o,
              "counter %u: %llu (%llu overflows), truth %llu (%llu)", k, (unsigned long long)ptc_counters_read(&c, k),
              (unsigned long long)ptc_counters_overflows(&c, k), (unsigned long long)v, (unsigned long long)o);
    }
    CHECK(ptc_counters_read(&c, 0) > 50 && ptc_counters_read(&c, 1) > 1000, "both threads counted");
    CHECK(ptc_counters_overflows(&c, 3) == 1 && ptc_counters_read(&c, 3) < 100, "a 40-bit wrap");
    /* thread 1 traces user mode only: none of its kernel branches made trace */
    for (i = 0; i < tr[1].nev; i++)
        if (tr[1].ev[i].cpl == 0 && tr[1].ev[i].kind == PTC_EV_BRANCH) {
            kernel++;
            CHECK(!tr[1].ev[i].traced, "a kernel branch of thread 1 traced");
        }
    CHECK(kernel > 10);
    CHECK(ptc_counters_init(&c, counter_cfg, PTC_COUNTERS_MAX + 1) == PTC_ERR_BAD_CONFIG);
    modelrec_free(&tr[0]);
    modelrec_free(&tr[1]);
}

/* The record an overflow writes decodes with the eventing IP and a TSC
   inside the clock's interval, and its FUP is the retirement of that
   instruction, which ptc_nav_at_offset finds. */
static void pebs_record_leads_to_its_instruction(void)
{
    static ptc_clock clk;
    ptc_counters c;
    modelrec_trace tr[1];
    ptc_model_config cfg;
    ptc_clock_config cc;
    ptc_decoder d;
    ptc_item it;
    ptc_timed_item t;
    ptc_nav nav;
    ptc_nav_entry *entries;
    const ptc_event_truth *fifth = NULL;
    size_t i, n = 0, records = 0;
    uint64_t item[3] = { 0, 0, 0 }, fup_off = 0;
    int in_block = 0;
    CHECK(ptc_counters_init(&c, counter_cfg, 4) == PTC_OK);
    counter_thread(&c, 0, 1, tr);
    for (i = 0; i < tr->nev && !fifth; i++)
        if (tr->ev[i].kind == PTC_EV_INDIRECT && ++n == 5) fifth = &tr->ev[i];
    CHECK(fifth != NULL);
    if (!fifth) return;
    ptc_model_config_default(&cfg);
    cfg.trace.ctl.cyc_en = 1;
    ptc_clock_config_from_model(&cc, &cfg);
    CHECK(ptc_clock_init(&clk, &cc) == PTC_OK);
    ptc_decoder_init_buffer(&d, 0, tr->bytes, tr->len);
    for (;;) {
        int more = ptc_decoder_next(&d, &it) == PTC_OK;
        if (more) CHECK(it.error == PTC_OK && ptc_clock_push(&clk, &it) == PTC_OK);
        else ptc_clock_finish(&clk);
        while (ptc_clock_pop(&clk, &t) == PTC_OK) {
            const ptc_packet *p = &t.item.pkt;
            if (p->type == PTC_BBP && p->u.bbp.block_type == PTC_PEBS_BLOCK_BASIC) in_block = 1;
            if (p->type == PTC_BIP && in_block && p->u.bip.id < 3) {
                item[p->u.bip.id] = p->u.bip.value;
                if (p->u.bip.id == PTC_PEBS_ITEM_TSC)
                    CHECK(t.have_time && t.tsc_lo <= p->u.bip.value + 1 && p->u.bip.value <= t.tsc_hi,
                          "record TSC %llu outside [%llu, %llu]", (unsigned long long)p->u.bip.value,
                          (unsigned long long)t.tsc_lo, (unsigned long long)t.tsc_hi);
            }
            if (p->type == PTC_BEP && in_block) {
                in_block = 0;
                records++;
                CHECK(p->u.bep.ip == 1);
                CHECK(item[PTC_PEBS_ITEM_IP] == fifth->ip && item[PTC_PEBS_ITEM_COUNTERS] == 1u << 2 &&
                      item[PTC_PEBS_ITEM_TSC] == fifth->time.tsc, "record: ip %llx counters %llx tsc %llu",
                      (unsigned long long)item[0], (unsigned long long)item[1], (unsigned long long)item[2]);
            } else if (p->type == PTC_FUP && records == 1 && !fup_off) {
                fup_off = t.item.offset;
                CHECK(t.item.ip == fifth->ip, "the FUP after BEP gives the eventing IP");
            }
        }
        if (!more) break;
    }
    CHECK(records == 1, "%zu PEBS records", records);
    /* from the record to its instruction */
    entries = (ptc_nav_entry *)malloc(tr->len * sizeof *entries);
    CHECK(ptc_clock_init(&clk, &cc) == PTC_OK && ptc_nav_init(&nav, &cc, entries, tr->len) == PTC_OK);
    CHECK(ptc_nav_build(&nav, &clk, tr->bytes, tr->len) == PTC_OK);
    {
        ptc_nav_hit h;
        CHECK(ptc_nav_at_offset(&nav, fup_off, &h) == PTC_OK && h.entry.offset == fup_off && h.entry.ip == fifth->ip);
        CHECK(h.retire < tr->nrt && tr->rt[h.retire].cycle == fifth->cycle && tr->rt[h.retire].ip == fifth->ip);
        CHECK(ptc_nav_at_offset(&nav, fup_off + 1, &h) == PTC_ERR_NOT_FOUND, "no packet carries a retirement there");
    }
    free(entries);
    modelrec_free(tr);
}

int main(void)
{
    RUN(api_contract);
    RUN(every_retirement_is_found_where_it_retired);
    RUN(a_window_answers_as_the_whole_index);
    RUN(tip_cycles_are_exact_with_cyc);
    RUN(freeze_and_skid);
    RUN(damaged_input);
    RUN(psb_gap_is_bounded);
    RUN(snapshot_keeps_the_history);
    RUN(ring_from_any_write_offset);
    RUN(navigation_over_a_snapshot);
    RUN(trigger_fires_once_on_the_nth);
    RUN(trigger_on_a_counter_overflow);
    RUN(trace_stop_after_the_delay);
    RUN(counters_qualify_by_thread_and_privilege);
    RUN(pebs_record_leads_to_its_instruction);
    return testlib_tests_failed ? 1 : 0;
}

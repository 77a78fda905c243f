/* ptnav - from a time to the retirement that was retiring then (SPEC.md 4.4).

   Decodes and times a trace, builds the navigation index over it and
   answers one query with one JSON line; --back K adds the K retirements
   before it, one line each. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "modelcfg.h"
#include "perfaux.h"
#include "clockopts.h"
#include "progress.h"
#include "navwindow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: ptnav --config X.pt.json X.pt (--cycle C | --tsc T | --retire N | --from-end F | --pebs N)\n"
    "             [--skid S] [--back K] [clock options]\n"
    "       ptnav [--cpu N] PERF.DATA (query as above)\n"
    "       ptnav [clock options] RAW.PT (query as above)\n"
    "Prints, as one JSON line, the retirement (TNT bit, TIP, TIP.PGD or FUP) that\n"
    "retired at or nearest before the given time:\n"
    "  {\"retire\":N,\"retire_min\":M,\"off\":O,\"type\":..,\"bit\":..,\"cycle_lo\":..,\"cycle_hi\":..,...}\n"
    "The true answer is between retire_min and retire (SPEC.md 4.3).\n"
    "  --config    the configuration ptsim wrote beside the trace (with ring_written:\n"
    "              the trace is a snapshot ring; offsets are stream offsets)\n"
    "  --cpu N     a perf.data: its queue of cpu (or idx) N, by default the first;\n"
    "              the settings come from the file (SPEC.md part 6)\n"
    "  --cycle C   core cycles since the trace began (the sum of its CYC packets;\n"
    "              a raw trace without --config needs --cyc-thresh: CYC was on)\n"
    "  --tsc T     a TSC value\n"
    "  --retire N  the N-th retirement (0 = the first)\n"
    "  --from-end F  F cycles before the end of the trace: the event that stopped\n"
    "              recording F cycles later (a freeze delay, SPEC.md 4.3)\n"
    "  --skid S    the event was recorded S cycles (TSC ticks with --tsc) after its\n"
    "              instruction retired: look S earlier\n"
    "  --back K    also print the K retirements before it, nearest first\n"
    "  --pebs N    the instruction of the N-th PEBS-via-PT record (0 = the first):\n"
    "              the retirement its FUP carries, with the record's IP and TSC\n"
    "clock options, over what --config or the perf.data says (as ptdump's):\n"
    "  --mtc-freq N --nom-freq N --cpuid-0x15.eax N --cpuid-0x15.ebx N\n"
    "  --cyc-thresh N --cyc-bits N --mtc-jitter N --rate-ppm N --mtc-lost N\n"
    "  --cpu F/M[/S], --errata E,...  the recording CPU, or errata by name:\n"
    "             " CLOCKOPT_ERRATA_NAMES "\n";

static void bound(const char *key, uint64_t v)
{
    if (v == UINT64_MAX) printf(",\"%s\":null", key);
    else printf(",\"%s\":%llu", key, (unsigned long long)v);
}

/* A perf.data's queue as one trace: its chunks joined in AUX order up to
   the first gap (offsets are AUX stream offsets from the queue's first).
   Returns the bytes (malloc'd), NULL having said why. */
static uint8_t *perf_queue(const char *path, long want, ptc_clock_config *cc, size_t *len)
{
    size_t flen = 0, i, at = 0;
    uint8_t *file = util_read_file(path, &flen), *out = NULL;
    perfaux_file pf;
    long queue = -1;
    if (!file || !perfaux_collect(file, flen, &pf, NULL, NULL, path)) {
        if (!file) fprintf(stderr, "ptnav: cannot read %s: %s\n", path, strerror(errno));
        free(file);
        return NULL;
    }
    for (i = 0; i < pf.n && queue < 0; i++)
        if (!pf.chunks[i].sample && (want < 0 || pf.chunks[i].queue == (uint64_t)want)) queue = (long)pf.chunks[i].queue;
    if (queue < 0 && want < 0 && pf.n) /* every chunk is a sample's */
        fprintf(stderr,
                "ptnav: %s holds AUX samples only (%zu, as `perf record --aux-sample` writes), no AUX queue: ptnav "
                "navigates one continuous trace; ptdump decodes each sample\n",
                path, pf.n);
    else if (queue < 0 && want < 0)
        fprintf(stderr, "ptnav: %s holds no AUX data\n", path);
    else if (queue < 0)
        fprintf(stderr, "ptnav: %s has no AUX queue of cpu (or idx) %ld\n", path, want);
    else out = (uint8_t *)malloc(flen ? flen : 1); /* no queue holds more than the file */
    for (i = 0; out && i < pf.n && (pf.chunks[i].sample || pf.chunks[i].queue != (uint64_t)queue); i++) {}
    if (out) { /* its chunks are together (perfaux_collect sorts them): up to the first gap */
        size_t end = i + 1;
        while (end < pf.n && !pf.chunks[end].sample && pf.chunks[end].queue == (uint64_t)queue && perfaux_follows(pf.chunks, end))
            end++;
        if (end < pf.n && !pf.chunks[end].sample && pf.chunks[end].queue == (uint64_t)queue)
            fprintf(stderr, "ptnav: queue %ld has a gap at AUX offset %llx: only the part before it is navigated\n",
                    queue, (unsigned long long)pf.chunks[end].offset);
        at = perfaux_join(pf.chunks, i, end, out);
    }
    *cc = pf.cc;
    *len = at;
    perfaux_free(&pf);
    free(file);
    return out;
}

/* One retirement as a JSON line; pebs (NULL: none) is a record's IP and TSC. */
static void print_hit(const ptc_nav_hit *h, int with_range, const uint64_t *pebs)
{
    printf("{\"retire\":%llu", (unsigned long long)h->retire);
    if (pebs) printf(",\"pebs_ip\":\"0x%llx\",\"pebs_tsc\":%llu", (unsigned long long)pebs[0], (unsigned long long)pebs[1]);
    if (with_range) {
        printf(",\"retire_min\":%llu", (unsigned long long)h->retire_min);
        if (h->maybe_none) printf(",\"maybe_none\":true");
    }
    printf(",\"off\":%llu,\"type\":\"%s\"", (unsigned long long)h->entry.offset,
           ptc_packet_type_name((ptc_packet_type)h->entry.type));
    if (h->entry.type == PTC_TNT8 || h->entry.type == PTC_TNT64)
        printf(",\"bit\":%u,\"taken\":%s", h->bit, h->taken ? "true" : "false");
    else if (h->entry.ip_known)
        printf(",\"ip\":\"0x%llx\"", (unsigned long long)h->entry.ip);
    bound("cycle_lo", h->entry.cycle_lo);
    bound("cycle_hi", h->entry.cycle_hi);
    bound("tsc_lo", h->entry.tsc_lo);
    bound("tsc_hi", h->entry.tsc_hi);
    printf("}\n");
}

/* The N-th PEBS record (SPEC 5.8) of the ring: the offset of the FUP after
   its BEP, and its IP and TSC items. 0 when there are fewer. */
static int find_pebs(const uint8_t *buf, size_t cap, uint64_t written, uint64_t n, uint64_t *fup_off, uint64_t *ip,
                     uint64_t *tsc)
{
    ptc_ring_reader rd;
    ptc_item it;
    int in_block = 0, want_fup = 0;
    (void)ptc_ring_reader_init(&rd, buf, cap, written);
    while (ptc_ring_reader_next(&rd, &it) == PTC_OK) {
        const ptc_packet *p = &it.pkt;
        if (it.error != PTC_OK) { in_block = want_fup = 0; continue; }
        if (p->type == PTC_BBP) in_block = p->u.bbp.block_type == PTC_PEBS_BLOCK_BASIC;
        else if (p->type == PTC_BIP && in_block && p->u.bip.id == PTC_PEBS_ITEM_IP) *ip = p->u.bip.value;
        else if (p->type == PTC_BIP && in_block && p->u.bip.id == PTC_PEBS_ITEM_TSC) *tsc = p->u.bip.value;
        else if (p->type == PTC_BEP) { want_fup = in_block && p->u.bep.ip; in_block = 0; }
        else if (p->type == PTC_FUP && want_fup) {
            want_fup = 0;
            if (n-- == 0) { *fup_off = it.offset; return 1; }
        } else if (p->type != PTC_PAD) want_fup = 0;
    }
    return 0;
}

/* One query, as the options gave it, and what indexing learns of it. */
typedef struct nav_query {
    const char *kind; /* "--cycle", "--tsc", "--retire", "--from-end" or "--pebs" */
    uint64_t value, skid, back;
    int cyc_en;       /* the trace has CYC packets: say its cycles */
    uint64_t pebs_off;   /* --pebs: the offset of the record's FUP, */
    uint64_t pebs_first; /*   and its retirement once indexed (UINT64_MAX: not yet) */
    uint64_t end_cycle;  /* --from-end: the trace's last cycle, from a first pass */
} nav_query;

/* The retirements the query's answer, and the --back ones before it,
   can need, given what is indexed so far (an navwin_needed). */
static ptc_nav_window needed(const ptc_nav *nav, const void *query)
{
    const nav_query *q = (const nav_query *)query;
    int cycle = strcmp(q->kind, "--cycle") == 0, from_end = strcmp(q->kind, "--from-end") == 0;
    if (cycle || from_end || strcmp(q->kind, "--tsc") == 0) {
        uint64_t at = from_end ? q->end_cycle - q->value : q->value;
        if (at < q->skid || (from_end && q->end_cycle < q->value)) return navwin_window_at(nav, UINT64_MAX, 0); /* none */
        return ptc_nav_window_for_find(nav, cycle || from_end ? PTC_NAV_CYCLE : PTC_NAV_TSC, at - q->skid, q->back);
    }
    return navwin_window_at(nav, strcmp(q->kind, "--retire") == 0 ? q->value : q->pebs_first, q->back);
}

/* What ptnav does with each item as it is indexed: say how far it got
   (tools/progress.h), and note the retirement of --pebs's FUP. */
typedef struct indexing {
    util_progress shown;
    uint64_t from;   /* the ring's first stream offset */
    nav_query *q;
} indexing;

static void on_item(void *ctx, const ptc_timed_item *t, const ptc_nav *nav)
{
    indexing *ix = (indexing *)ctx;
    util_progress_at(&ix->shown, t->item.offset - ix->from);
    if (t->item.offset == ix->q->pebs_off && ix->q->pebs_first == UINT64_MAX)
        ix->q->pebs_first = ptc_nav_retirements(nav);
}

static ptc_status index_trace(navwin_index *x, nav_query *q, const ptc_clock_config *cc, const uint8_t *buf, size_t len,
                              uint64_t written)
{
    indexing ix;
    ptc_status st;
    ix.from = written - len;
    ix.q = q;
    util_progress_start(&ix.shown, "bytes indexed", len, 4096);
    st = navwin_build_ring(x, cc, buf, len, written, needed, q, on_item, &ix);
    util_progress_end(&ix.shown);
    return st;
}

static ptc_status find(const ptc_nav *nav, const nav_query *q, ptc_nav_hit *hit)
{
    if (strcmp(q->kind, "--cycle") == 0) return ptc_nav_find(nav, PTC_NAV_CYCLE, q->value, q->skid, hit);
    if (strcmp(q->kind, "--tsc") == 0) return ptc_nav_find(nav, PTC_NAV_TSC, q->value, q->skid, hit);
    if (strcmp(q->kind, "--from-end") == 0) return ptc_nav_from_end(nav, q->value, q->skid, hit);
    if (strcmp(q->kind, "--pebs") == 0) return ptc_nav_at_offset(nav, q->pebs_off, hit);
    /* from the retirement itself: those before it may be forgotten */
    return ptc_nav_step(nav, q->value, 0, hit);
}

/* The index's passes: --from-end first needs the trace's last cycle
   (a pass that keeps nothing), --pebs the record's FUP. */
static ptc_status prepare(nav_query *q, const ptc_clock_config *cc, const uint8_t *buf, size_t len, uint64_t written,
                          uint64_t pebs[2])
{
    q->pebs_off = UINT64_MAX;
    q->pebs_first = UINT64_MAX;
    q->end_cycle = 0;
    if (strcmp(q->kind, "--pebs") == 0 && !find_pebs(buf, len, written, q->value, &q->pebs_off, &pebs[0], &pebs[1]))
        q->pebs_off = UINT64_MAX; /* no such record: the query finds nothing */
    if (strcmp(q->kind, "--from-end") == 0) {
        nav_query all = *q; /* a --retire query past every retirement keeps nothing */
        navwin_index x;
        ptc_status st;
        all.kind = "--retire";
        all.value = UINT64_MAX;
        all.back = 0;
        st = index_trace(&x, &all, cc, buf, len, written);
        q->end_cycle = ptc_nav_end_cycle(&x.nav);
        navwin_free(&x);
        return st;
    }
    return PTC_OK;
}

/* Indexes the trace, answers the query on standard output; the exit
   status (1: no answer, 2: the trace cannot be indexed). Frees what it
   took on every path. */
static int answer(const char *path, const ptc_clock_config *cc, const uint8_t *buf, size_t len, uint64_t written,
                  nav_query *q)
{
    uint64_t pebs[2] = { 0, 0 }, k;
    navwin_index x;
    ptc_nav_hit hit;
    ptc_status st = prepare(q, cc, buf, len, written, pebs);
    x.entries = NULL;
    if (st == PTC_OK) st = index_trace(&x, q, cc, buf, len, written);
    if (st != PTC_OK) {
        fprintf(stderr, "ptnav: cannot index %s: %s\n", path,
                st == PTC_ERR_NO_SPACE ? "out of memory" : ptc_status_message(st));
        navwin_free(&x);
        return 2;
    }
    st = find(&x.nav, q, &hit);
    if (st != PTC_OK) {
        fprintf(stderr, "ptnav: %s: %s (the trace has %llu retirements", ptc_status_name(st), ptc_status_message(st),
                (unsigned long long)ptc_nav_retirements(&x.nav));
        if (q->cyc_en) fprintf(stderr, " over %llu cycles", (unsigned long long)ptc_nav_end_cycle(&x.nav));
        fprintf(stderr, ")\n");
        navwin_free(&x);
        return 1;
    }
    print_hit(&hit, 1, strcmp(q->kind, "--pebs") == 0 ? pebs : NULL);
    for (k = 1; k <= q->back; k++) {
        ptc_nav_hit h;
        if (ptc_nav_step(&x.nav, hit.retire, -(int64_t)k, &h) != PTC_OK) break;
        print_hit(&h, 0, NULL);
    }
    navwin_free(&x);
    return 0;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *config = NULL, *query = NULL;
    uint64_t value = 0, skid = 0, back = 0, ring_written;
    ptc_model_config cfg;
    ptc_clock_config cc;
    static ptc_clock probe; /* the settings tried before the trace is indexed */
    clock_options opt;
    nav_query q;
    uint8_t *buf;
    size_t len;
    char err[200];
    long want_queue = -1;
    int i, perf = 0, status;

    util_prog = "ptnav";
    memset(&opt, 0, sizeof opt);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int took = clockopt_take(&opt, argc, argv, &i);
        if (took < 0) return 2;
        if (took) continue;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { fputs(usage, stdout); return 0; }
        if (a[0] == '-' && a[1]) {
            static const char *const with_value[] = { "--config", "--cpu", "--cycle", "--tsc", "--retire", "--from-end",
                                                      "--pebs", "--skid", "--back", "--errata", NULL };
            if (i + 1 >= argc) return util_no_value(a, with_value, usage);
            if (strcmp(a, "--config") == 0) config = argv[++i];
            else if (strcmp(a, "--cpu") == 0) {
                if (!util_parse_u64(a, argv[++i], 0x7FFFFFFF, &value)) return 2;
                want_queue = (long)value;
            }
            else if (strcmp(a, "--cycle") == 0 || strcmp(a, "--tsc") == 0 || strcmp(a, "--retire") == 0 ||
                       strcmp(a, "--from-end") == 0 || strcmp(a, "--pebs") == 0) {
                if (query) { fprintf(stderr, "ptnav: one of --cycle, --tsc, --retire, --from-end, --pebs\n"); return 2; }
                query = a;
                if (!util_parse_u64(a, argv[++i], UINT64_MAX, &value)) return 2;
            } else if (strcmp(a, "--skid") == 0) {
                if (!util_parse_u64(a, argv[++i], UINT64_MAX, &skid)) return 2;
            } else if (strcmp(a, "--back") == 0) {
                if (!util_parse_u64(a, argv[++i], UINT64_MAX, &back)) return 2;
            } else {
                fprintf(stderr, "ptnav: unknown option %s\n%s", a, usage);
                return 2;
            }
        } else if (path) {
            fprintf(stderr, "ptnav: more than one trace\n%s", usage);
            return 2;
        } else {
            path = a;
        }
    }
    perf = path && !config && perfaux_is_perf_data(path);
    if (!path || !query) {
        fprintf(stderr, "ptnav: needs a trace and a query\n%s", usage);
        return 2;
    }
    if (perf) {
        if (!(buf = perf_queue(path, want_queue, &cc, &len))) return 2;
        cfg.trace.ctl.cyc_en = cc.trace.ctl.cyc_en;
        ring_written = len;
    } else {
        if (want_queue >= 0) { fprintf(stderr, "ptnav: --cpu N picks a queue of a perf.data (the CPU's model is F/M)\n"); return 2; }
        if (!config) { /* a raw trace: the clock options say what is known */
            ptc_model_config_default(&cfg);
            /* not known to have CYCs unless --cyc-thresh says it was recorded with them */
            cfg.trace.ctl.cyc_en = (uint8_t)opt.numset[CLOCKOPT_CYC_THRESH];
            if (cfg.trace.ctl.cyc_en) cfg.trace.ctl.cyc_thresh = (uint8_t)opt.numv[CLOCKOPT_CYC_THRESH];
            ring_written = UINT64_MAX;
            if (!clockopt_has_clock(&opt))
                fprintf(stderr, "ptnav: no clock settings given, so only TSCs time the trace and intervals are wide; "
                                "give --mtc-freq, --nom-freq, --cpuid-0x15.eax and --cpuid-0x15.ebx as it was recorded\n");
        } else if (!modelcfg_read_json_file(config, &cfg, &ring_written, err, sizeof err)) {
            fprintf(stderr, "ptnav: cannot use %s: %s\n", config, err);
            return 2;
        }
        buf = util_read_file(path, &len);
        if (!buf) {
            fprintf(stderr, "ptnav: cannot read %s: %s\n", path, strerror(errno));
            return 2;
        }
        if (config) ptc_clock_config_from_model(&cc, &cfg);
        else ptc_clock_config_default(&cc);
    }
    clockopt_apply(&cc, &opt);
    if (ptc_clock_init(&probe, &cc) != PTC_OK) {
        fprintf(stderr, "ptnav: the clock settings are not usable (cpuid-0x15.eax and .ebx go together; cyc-bits is 1..64)\n");
        free(buf);
        return 2;
    }
    if (strcmp(query, "--cycle") == 0 && !cfg.trace.ctl.cyc_en) {
        fprintf(stderr, "ptnav: --cycle needs a trace with CYC packets (cyc_en), as its --config or perf.data says, or "
                        "--cyc-thresh N for a raw trace recorded with them; use --tsc\n");
        free(buf);
        return 2;
    }
    if (ring_written == UINT64_MAX) ring_written = len; /* not a ring: the whole file, in order */
    if (ring_written < len) {
        fprintf(stderr, "ptnav: the ring holds %llu bytes but its configuration says %llu were written\n",
                (unsigned long long)len, (unsigned long long)ring_written);
        free(buf);
        return 2;
    }
    q.kind = query;
    q.value = value;
    q.skid = skid;
    q.back = back;
    q.cyc_en = cfg.trace.ctl.cyc_en;
    status = answer(path, &cc, buf, len, ring_written, &q);
    free(buf);
    return status;
}

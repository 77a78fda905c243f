/* ptsim - run ptcodec's hardware model on a workload: the trace a real
   Intel PT unit would write, with the true time of every packet
   (SPEC.md 5.6). */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/pktgen.h"
#include "modelcfg.h"
#include "workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
    "usage: ptsim [--workload NAME | --scenario FILE] [--cycles N] [--seed S]\n"
    "             [--policy SPEC] [--set KEY=VALUE,...] -o OUT.pt [--truth TRUTH.jsonl]\n"
    "             [--svg TIMELINE.svg] [--compare-policy SPEC] [--quiet]\n"
    "Runs the hardware model and writes the Intel PT trace to OUT.pt and the\n"
    "configuration a decoder needs to OUT.pt.json.\n"
    "\n"
    "  --workload  dense, sparse, filtered, ptwrite, idle, dvfs, mixed (default dense)\n"
    "  --scenario  a scenario file instead (SPEC.md 5.4); '-' reads standard input\n"
    "  --cycles    core cycles to run a workload (default 10000000)\n"
    "  --seed      random seed of the workload (default 1)\n"
    "  --policy    MTC suppression: off, seed (the policy of Intel's patent\n"
    "              US 12,386,726, SPEC.md 2.1: threshold 2, resume after 255\n"
    "              suppressed, bursts of 2; the default), or comma-separated\n"
    "              key=value over that policy:\n"
    "                threshold=N     suppress after N MTCs with no other packet (0: never)\n"
    "                resume_value=V  always emit an MTC whose payload is V\n"
    "                resume_after=N  emit the MTC after N suppressed ones (1..255, 0: no counter)\n"
    "                min_burst=N     MTCs after a resume before suppressing again (>= 2)\n"
    "  --set       model settings, e.g. mtc_freq=0,cyc_en=1,cyc_thresh=2 (keys as in\n"
    "              OUT.pt.json but nom_freq and ring_written, which it gives for\n"
    "              decoders; filter=LO-HI adds an IP filter range)\n"
    "  --truth     one JSON line per packet (and per suppressed MTC, lost packet\n"
    "              and traced workload event) with its true cycle and TSC, and\n"
    "              one per retirement: {\"retire\",\"cycle\",\"off\",\"tsc\"} (SPEC 4.1)\n"
    "  --svg       a timeline of the first packets, in the style of the patent's FIG. 5\n"
    "  --compare-policy  run again under another policy and show both side by side\n"
    "  --snapshot SIZE|auto  snapshot mode (SPEC 4.5): the trace wraps around in a\n"
    "              ring of SIZE bytes, and OUT.pt is the ring's buffer; the first\n"
    "              TRIG stops it --after bytes later (default 1024). auto: the\n"
    "              size that keeps --history bytes (default 4096) before the TRIG\n"
    "              decodable. OUT.pt.json gets ring_written, which ptdump and\n"
    "              ptnav use to read the ring\n"
    "  --history H, --after A  with --snapshot: the bytes before the TRIG that\n"
    "              auto keeps, the bytes after it the ring takes\n"
    "  --counter EVENT[,outcome=N,threads=MASK,usr=0|1,os=0|1,pebs=0|1,start=N]\n"
    "              an event counter (up to 4; SPEC 5.8); pebs=1 writes a PEBS\n"
    "              record into the trace at each overflow\n"
    "  --perf-data OUT.data  also write the trace as a perf.data that Linux perf\n"
    "              reads (SPEC.md 6.4): one AUX queue per hardware thread\n"
    "  --perf-snapshot SIZE[,EVERY]  ... as perf records in snapshot mode: an AUX\n"
    "              ring of SIZE bytes copied out each time EVERY more bytes\n"
    "              (default SIZE/2: the copies overlap) were written, and at the end\n"
    "  --threads N the core's hardware threads (1..8): thread T runs the workload\n"
    "              with seed S+T into OUT.pt.tT; the counters are shared\n"
    "  --quiet     no summary on standard output\n"
    "  --help      this text\n";

typedef struct sim_stats {
    uint64_t count[PTC_PACKET_TYPE_COUNT], bytes[PTC_PACKET_TYPE_COUNT];
    uint64_t total, suppressed, dropped, events, traced_events, retirements;
} sim_stats;

/* Everything the sink writes to. */
typedef struct sim_out {
    FILE *pt, *truth;
    ptc_ring *ring;    /* --snapshot: the trace goes into this ring instead */
    uint64_t after;    /*   and stops this many bytes after the TRIG */
    int armed;         /* the first TRIG was written, ending at trig_end */
    uint64_t trig_end;
    sim_stats st;
    /* the SVG keeps the first packets */
    ptc_truth *keep;
    size_t nkeep, capkeep;
} sim_out;

static void on_packet(void *user, const uint8_t *bytes, size_t len, const ptc_truth *t)
{
    sim_out *o = (sim_out *)user;
    if (len) { /* emitted, or a CYC cut to its first byte (skd007), or a corrupt TMA (skz84) */
        if (o->ring) {
            /* whole packets: the ring stops at the first packet boundary
               at least `after` bytes past the TRIG */
            uint64_t at = ptc_ring_written(o->ring);
            (void)ptc_ring_write(o->ring, bytes, len);
            if (t->pkt.type == PTC_TRIG && !o->armed) {
                o->armed = 1;
                o->trig_end = at + len;
            }
            if (o->armed && ptc_ring_written(o->ring) - o->trig_end >= o->after) ptc_ring_stop_after(o->ring, 0);
        } else if (o->pt) {
            fwrite(bytes, 1, len, o->pt);
        }
        o->st.count[t->pkt.type]++;
        o->st.bytes[t->pkt.type] += len;
        o->st.total += len;
    } else if (t->fate == PTC_FATE_SUPPRESSED) {
        o->st.suppressed++;
    } else {
        o->st.dropped++;
    }
    if (o->truth) modelcfg_truth_packet(o->truth, t);
    if (o->keep && o->nkeep < o->capkeep) o->keep[o->nkeep++] = *t;
}

static void on_event(void *user, const ptc_event_truth *e)
{
    sim_out *o = (sim_out *)user;
    o->st.events++;
    o->st.traced_events += e->traced;
    /* events that made no trace are invisible to any decoder: counted, not listed */
    if (o->truth && e->traced) modelcfg_truth_event(o->truth, e);
}

/* Every retirement, so navigation (ptnav) can be checked against the truth. */
static void on_retire(void *user, const ptc_retire_truth *r)
{
    sim_out *o = (sim_out *)user;
    o->st.retirements++;
    if (o->truth) modelcfg_truth_retire(o->truth, r);
}

typedef struct sim_args {
    int workload;
    const char *scenario_text;
    uint64_t cycles, seed;
    ptc_model_config cfg;
    ptc_counter_config counter[PTC_COUNTERS_MAX]; /* --counter */
    unsigned ncounters;
    ptc_counters *counters;  /* the core's, shared by its threads */
    uint8_t thread;
} sim_args;

/* One run: returns 0 on success; fills out and the final model. */
static int simulate(const sim_args *a, sim_out *o, ptc_model *m, double *seconds)
{
    ptc_model_sink sink;
    struct timespec t0, t1;
    sink.user = o;
    sink.packet = on_packet;
    sink.event = on_event;
    sink.retire = on_retire;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (a->scenario_text) {
        static workload_scenario s;
        if (!workload_run_scenario(a->scenario_text, &a->cfg, &sink, m, &s)) {
            fprintf(stderr, "ptsim: scenario: %s\n", s.error);
            return 2;
        }
        if (s.ncounters) *a->counters = s.counters;
    } else {
        if (ptc_model_init(m, &a->cfg, &sink) != PTC_OK) {
            fprintf(stderr, "ptsim: bad setting: %s\n", ptc_model_error_field(m));
            return 2;
        }
        if (a->ncounters) (void)ptc_model_attach_counters(m, a->counters, a->thread);
        util_progress shown;
        util_progress_start(&shown, "cycles", a->cycles, 1024);
        workload_run_workload_shown(a->workload, m, a->cycles, a->seed + a->thread, &shown);
        util_progress_end(&shown);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    return 0;
}

static void policy_text(const ptc_mtc_policy *p, char *buf, size_t cap)
{
    if (!p->threshold) { snprintf(buf, cap, "off"); return; }
    snprintf(buf, cap, "threshold=%u", p->threshold);
    if (p->resume_on_value) snprintf(buf + strlen(buf), cap - strlen(buf), ",resume_value=%u", p->resume_value);
    if (p->resume_after) snprintf(buf + strlen(buf), cap - strlen(buf), ",resume_after=%u", p->resume_after);
    snprintf(buf + strlen(buf), cap - strlen(buf), ",min_burst=%u", p->min_burst);
}

static void print_summary(FILE *f, const sim_out *o, const ptc_model *m, const ptc_model_config *cfg, double secs,
                          const sim_out *o2, const ptc_model_config *cfg2)
{
    char p1[96], p2[96];
    int t;
    policy_text(&cfg->trace.policy, p1, sizeof p1);
    fprintf(f, "cycles simulated: %llu in %.2f s (%.0f M cycles/s)\n", (unsigned long long)m->cycle, secs,
           secs > 0 ? (double)m->cycle / secs / 1e6 : 0.0);
    fprintf(f, "workload events: %llu, of which %llu made trace; %llu retirements in the stream\n",
            (unsigned long long)o->st.events, (unsigned long long)o->st.traced_events,
            (unsigned long long)o->st.retirements);
    if (!o2) {
        fprintf(f, "policy %s: %llu bytes, %llu MTCs emitted, %llu suppressed, %llu packets lost to overflow\n", p1,
               (unsigned long long)o->st.total, (unsigned long long)o->st.count[PTC_MTC],
               (unsigned long long)o->st.suppressed, (unsigned long long)o->st.dropped);
        fprintf(f, "%-10s %10s %12s\n", "packet", "count", "bytes");
        for (t = 1; t < PTC_PACKET_TYPE_COUNT; t++)
            if (o->st.count[t])
                fprintf(f, "%-10s %10llu %12llu\n", ptc_packet_type_name((ptc_packet_type)t),
                       (unsigned long long)o->st.count[t], (unsigned long long)o->st.bytes[t]);
        return;
    }
    policy_text(&cfg2->trace.policy, p2, sizeof p2);
    fprintf(f, "%-18s %28s %28s\n", "", p1, p2);
    fprintf(f, "%-18s %28llu %28llu\n", "bytes", (unsigned long long)o->st.total, (unsigned long long)o2->st.total);
    fprintf(f, "%-18s %28llu %28llu\n", "MTCs emitted", (unsigned long long)o->st.count[PTC_MTC],
           (unsigned long long)o2->st.count[PTC_MTC]);
    fprintf(f, "%-18s %28llu %28llu\n", "MTCs suppressed", (unsigned long long)o->st.suppressed,
           (unsigned long long)o2->st.suppressed);
    fprintf(f, "%-18s %28llu %28llu\n", "MTC bytes", (unsigned long long)o->st.bytes[PTC_MTC],
           (unsigned long long)o2->st.bytes[PTC_MTC]);
    fprintf(f, "%-18s %28llu %28llu\n", "other bytes", (unsigned long long)(o->st.total - o->st.bytes[PTC_MTC]),
           (unsigned long long)(o2->st.total - o2->st.bytes[PTC_MTC]));
    if (o2->st.total)
        fprintf(f, "bytes saved by %s against %s: %lld (%.1f%%)\n", p1, p2,
               (long long)o2->st.total - (long long)o->st.total,
               100.0 * ((double)o2->st.total - (double)o->st.total) / (double)o2->st.total);
}

/* The first packets on a TSC axis: non-timing packets, emitted and
   suppressed MTCs, TSC/TMA and CYC on their own rows (seed FIG. 5). */
static int write_svg(const char *path, const sim_out *o)
{
    FILE *f = fopen(path, "w");
    const int W = 1200, rows = 5, rowh = 40, left = 120, right = 20, top = 30;
    const char *labels[5] = { "non-timing", "MTC", "MTC suppressed", "TSC / TMA", "CYC" };
    uint64_t t0, t1;
    size_t i;
    int r;
    if (!f) return 0;
    if (!o->nkeep) { fclose(f); return 1; }
    t0 = o->keep[0].time.tsc;
    t1 = o->keep[o->nkeep - 1].time.tsc;
    if (t1 == t0) t1 = t0 + 1;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W, top + rows * rowh + 40);
    fprintf(f, "<text x=\"%d\" y=\"18\">first %zu packets, TSC %llu .. %llu</text>\n", left, o->nkeep,
            (unsigned long long)t0, (unsigned long long)t1);
    for (r = 0; r < rows; r++) {
        int y = top + r * rowh + rowh / 2;
        fprintf(f, "<text x=\"4\" y=\"%d\">%s</text><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n",
                y + 4, labels[r], left, y, W - right, y);
    }
    for (i = 0; i < o->nkeep; i++) {
        const ptc_truth *t = &o->keep[i];
        double x = left + (double)(t->time.tsc - t0) * (W - left - right) / (double)(t1 - t0);
        int row;
        ptc_packet_type ty = t->pkt.type;
        if (ty == PTC_PAD) continue;
        row = ty == PTC_MTC ? (t->fate == PTC_FATE_SUPPRESSED ? 2 : 1)
            : (ty == PTC_TSC || ty == PTC_TMA) ? 3 : ty == PTC_CYC ? 4 : 0;
        fprintf(f, "<g><title>%s at TSC %llu, cycle %llu%s</title>", ptc_packet_type_name(ty),
                (unsigned long long)t->time.tsc, (unsigned long long)t->cycle,
                t->fate == PTC_FATE_SUPPRESSED ? " (suppressed)" : t->fate == PTC_FATE_DROPPED ? " (lost)"
                : t->fate == PTC_FATE_CUT ? " (cut)" : t->fate == PTC_FATE_CORRUPT ? " (corrupt)" : "");
        if (row == 1 || row == 2)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"%s\" stroke=\"#1565c0\"/></g>\n", x,
                    top + row * rowh + rowh / 2, row == 1 ? "#1565c0" : "none");
        else
            fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"2\" height=\"16\" fill=\"%s\"/></g>\n", x - 1,
                    top + row * rowh + rowh / 2 - 8, row == 0 ? "#c62828" : row == 3 ? "#2e7d32" : "#777");
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">TSC &#8594;</text>\n</svg>\n", W / 2, top + rows * rowh + 25);
    fclose(f);
    return 1;
}

static int run_main(int argc, char **argv, char **scenario_text, ptc_truth **keep);

/* Where perf's snapshots of a queue's ring would end: at the end of the
   first packet that reaches each multiple of `every` - perf stops tracing
   to copy the ring, so the copy ends with a whole packet, and not inside a
   PSB+, which hardware writes whole - and at the end of the trace. NULL
   when out of memory. */
static uint64_t *snapshot_points(const uint8_t *bytes, size_t len, uint64_t every, unsigned *n)
{
    uint64_t *at = (uint64_t *)malloc((size_t)(len / every + 1) * sizeof *at), target = every;
    ptc_decoder d;
    ptc_item it;
    int in_psb = 0;
    *n = 0;
    if (!at) return NULL;
    ptc_decoder_init_buffer(&d, 0, bytes, len);
    while (ptc_decoder_next(&d, &it) == PTC_OK) {
        uint64_t end = it.offset + (it.error == PTC_OK ? it.pkt.size : 1);
        if (it.error == PTC_OK && it.pkt.type == PTC_PSB) in_psb = 1;
        if (it.error != PTC_OK || it.pkt.type == PTC_PSBEND) in_psb = 0;
        if (in_psb || end < target || end >= len) continue;
        at[(*n)++] = end;
        while (target <= end) target += every;
    }
    if (len) at[(*n)++] = len;
    return at;
}

/* The traces ptsim wrote (OUT.pt and OUT.pt.tT), as one perf.data; with
   ring (snapshot mode) each queue as the snapshots perf would take of an
   AUX ring of that size, one every `every` bytes. */
static int write_perf_data(const char *path, const char *out, unsigned threads, const ptc_model_config *cfg, uint64_t ring,
                           uint64_t every)
{
    ptc_perf_trace tr[8];
    ptc_perf_pt_info info;
    uint64_t config;
    uint8_t *buf = NULL;
    size_t need = 0;
    unsigned t;
    int ok = 0;
    FILE *f;
    memset(tr, 0, sizeof tr);
    for (t = 0; t < threads; t++) {
        char name[1100];
        if (t) snprintf(name, sizeof name, "%s.t%u", out, t);
        else snprintf(name, sizeof name, "%s", out);
        tr[t].bytes = util_read_file(name, &tr[t].len);
        tr[t].pid = 1000;
        tr[t].tid = 1000 + t;
        tr[t].comm = "ptsim";
        /* perf's time is the TSC (ptc_perf_info_from_model): the TSC at the start */
        tr[t].start_time = cfg->tsc_offset + cfg->art_start * cfg->trace.ratios.cpuid_15_ebx / cfg->trace.ratios.cpuid_15_eax;
        if (!tr[t].bytes) { fprintf(stderr, "ptsim: cannot read back %s\n", name); goto done; }
        if (ring) {
            tr[t].ring = ring;
            tr[t].snap_at = snapshot_points(tr[t].bytes, tr[t].len, every, &tr[t].nsnaps);
            if (!tr[t].snap_at) { fprintf(stderr, "ptsim: out of memory\n"); goto done; }
        }
    }
    ptc_perf_info_from_model(&info, &config, cfg);
    info.snapshot_mode = ring != 0;
    (void)ptc_perf_write(NULL, 0, &need, &info, config, tr, threads, 0, 0, 0);
    buf = (uint8_t *)malloc(need);
    if (!buf || ptc_perf_write(buf, need, &need, &info, config, tr, threads, 0, 0, 0) != PTC_OK) {
        fprintf(stderr, "ptsim: out of memory for the perf.data\n");
        goto done;
    }
    f = fopen(path, "wb");
    ok = f && fwrite(buf, 1, need, f) == need;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "ptsim: cannot write %s\n", path);
done:
    for (t = 0; t < threads; t++) {
        free((void *)(uintptr_t)tr[t].bytes);
        free((void *)(uintptr_t)tr[t].snap_at);
    }
    free(buf);
    return ok;
}

int main(int argc, char **argv)
{
    char *scenario_text = NULL;
    ptc_truth *keep = NULL;
    int rc = run_main(argc, argv, &scenario_text, &keep);
    free(scenario_text); /* everything run_main allocated, freed on every path */
    free(keep);
    return rc;
}

static int run_main(int argc, char **argv, char **scenario_text, ptc_truth **keep)
{
    sim_args a, b;
    sim_out o, o2;
    ptc_model m, m2;
    const char *out = NULL, *truth = NULL, *svg = NULL, *compare = NULL, *setlist = NULL, *scenario = NULL;
    const char *policy = "seed", *snapshot = NULL, *perf_data = NULL;
    uint64_t history = 4096, after = 1024, ring_size = 0, threads = 1, t, perf_ring = 0, perf_every = 0;
    ptc_counters counters;
    uint8_t *ring_buf = NULL;
    ptc_ring ring;
    char err[256], jsonpath[1024];
    double secs = 0, secs2 = 0;
    int i, quiet = 0, rc;
    FILE *jf;

    memset(&a, 0, sizeof a);
    memset(&ring, 0, sizeof ring);
    memset(&counters, 0, sizeof counters);
    a.counters = &counters;
    a.cycles = 10000000;
    a.seed = 1;
    util_prog = "ptsim";
    for (i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(k, "--help") == 0 || strcmp(k, "-h") == 0) { fputs(usage, stdout); return 0; }
        if (strcmp(k, "--quiet") == 0) { quiet = 1; continue; }
        static const char *const with_value[] = { "-o", "--workload", "--scenario", "--cycles", "--seed", "--policy", "--set",
                                                  "--truth", "--svg", "--compare-policy", "--snapshot", "--perf-data",
                                                  "--perf-snapshot", "--counter", "--threads", "--history", "--after", NULL };
        if (!v) return util_no_value(k, with_value, usage);
        i++;
        if (strcmp(k, "-o") == 0) out = v;
        else if (strcmp(k, "--workload") == 0) {
            a.workload = workload_find(v);
            if (a.workload < 0) { fprintf(stderr, "ptsim: unknown workload %s\n", v); return 2; }
        } else if (strcmp(k, "--scenario") == 0) scenario = v;
        else if (strcmp(k, "--cycles") == 0) { if (!util_parse_u64(k, v, UINT64_MAX, &a.cycles)) return 2; }
        else if (strcmp(k, "--seed") == 0) { if (!util_parse_u64(k, v, UINT64_MAX, &a.seed)) return 2; }
        else if (strcmp(k, "--policy") == 0) policy = v;
        else if (strcmp(k, "--set") == 0) setlist = v;
        else if (strcmp(k, "--truth") == 0) truth = v;
        else if (strcmp(k, "--svg") == 0) svg = v;
        else if (strcmp(k, "--compare-policy") == 0) compare = v;
        else if (strcmp(k, "--snapshot") == 0) snapshot = v;
        else if (strcmp(k, "--perf-data") == 0) perf_data = v;
        else if (strcmp(k, "--perf-snapshot") == 0) {
            const char *comma = strchr(v, ',');
            if (!util_parse_u64_n(v, comma ? (size_t)(comma - v) : strlen(v), UINT64_C(1) << 40, &perf_ring) || perf_ring < 16 ||
                (comma && (!util_parse_u64_n(comma + 1, strlen(comma + 1), UINT64_C(1) << 40, &perf_every) || !perf_every))) {
                fprintf(stderr, "ptsim: --perf-snapshot SIZE[,EVERY]: SIZE from 16 bytes, EVERY from 1, up to 2^40\n");
                return 2;
            }
            if (!comma) perf_every = perf_ring / 2;
        }
        else if (strcmp(k, "--counter") == 0) {
            if (a.ncounters == PTC_COUNTERS_MAX) { fprintf(stderr, "ptsim: at most %d counters\n", PTC_COUNTERS_MAX); return 2; }
            if (!modelcfg_counter(&a.counter[a.ncounters], v, err, sizeof err)) { fprintf(stderr, "ptsim: --counter: %s\n", err); return 2; }
            a.ncounters++;
        } else if (strcmp(k, "--threads") == 0) {
            if (!util_parse_u64(k, v, 8, &threads)) return 2;
            if (threads < 1) { fprintf(stderr, "ptsim: --threads: at least 1\n"); return 2; }
        } else if (strcmp(k, "--history") == 0) { if (!util_parse_u64(k, v, UINT64_MAX, &history)) return 2; }
        else if (strcmp(k, "--after") == 0) { if (!util_parse_u64(k, v, UINT64_MAX, &after)) return 2; }
        else { fprintf(stderr, "ptsim: unknown option %s\n%s", k, usage); return 2; }
    }
    if (!out) { fprintf(stderr, "ptsim: no -o OUT.pt\n%s", usage); return 2; }
    if (a.ncounters) (void)ptc_counters_init(&counters, a.counter, a.ncounters); /* modelcfg_counter checked them */
    if (perf_ring && !perf_data) {
        fprintf(stderr, "ptsim: --perf-snapshot shapes the --perf-data file: give both\n");
        return 2;
    }
    if (perf_data && (snapshot || strcmp(out, "-") == 0)) {
        fprintf(stderr, "ptsim: --perf-data reads the trace back from OUT.pt: not with -o - or --snapshot\n");
        return 2;
    }
    if (threads > 1 && (scenario || snapshot || compare || strcmp(out, "-") == 0)) {
        fprintf(stderr, "ptsim: --threads runs a workload into files; not with --scenario, --snapshot or --compare-policy\n");
        return 2;
    }
    ptc_model_config_default(&a.cfg);
    workload_configure(a.workload, &a.cfg);
    if (!modelcfg_policy(&a.cfg.trace.policy, policy, err, sizeof err)) { fprintf(stderr, "ptsim: --policy: %s\n", err); return 2; }
    if (setlist && !modelcfg_set_list(&a.cfg, setlist, err, sizeof err)) { fprintf(stderr, "ptsim: --set: %s\n", err); return 2; }
    if (scenario) {
        size_t scenario_len;
        *scenario_text = (char *)util_read_file(scenario, &scenario_len);
        a.scenario_text = *scenario_text;
        if (!a.scenario_text) { fprintf(stderr, "ptsim: cannot read %s: %s\n", scenario, strerror(errno)); return 2; }
    }

    if (snapshot) {
        /* the ring stops at a packet boundary: up to the TRIG's and one more packet's size past `after` */
        if (strcmp(snapshot, "auto") == 0) ring_size = ptc_snapshot_size(&a.cfg, history, after + 2 * PTC_MAX_PACKET_SIZE);
        else if (!util_parse_u64("--snapshot", snapshot, UINT64_C(1) << 32, &ring_size)) return 2;
        if (ring_size == 0 || ring_size > (UINT64_C(1) << 32)) {
            fprintf(stderr, "ptsim: --snapshot wants a size of 1 byte to 4 GiB, or auto\n");
            return 2;
        }
    }
    memset(&o, 0, sizeof o);
    o.pt = strcmp(out, "-") == 0 ? stdout : fopen(out, "wb");
    if (!o.pt) { fprintf(stderr, "ptsim: cannot write %s: %s\n", out, strerror(errno)); return 2; }
    if (truth && !(o.truth = fopen(truth, "w"))) { fprintf(stderr, "ptsim: cannot write %s: %s\n", truth, strerror(errno)); return 2; }
    if (snapshot) { /* after the files open: no early return leaves it behind */
        ring_buf = (uint8_t *)malloc((size_t)ring_size);
        if (!ring_buf || ptc_ring_init(&ring, ring_buf, (size_t)ring_size) != PTC_OK) {
            fprintf(stderr, "ptsim: no memory for a ring of %llu bytes\n", (unsigned long long)ring_size);
            free(ring_buf);
            return 2;
        }
        o.ring = &ring;
        o.after = after;
    }
    if (svg) {
        o.capkeep = 400;
        o.keep = *keep = (ptc_truth *)malloc(o.capkeep * sizeof *o.keep);
    }
    rc = simulate(&a, &o, &m, &secs);
    if (o.ring) { /* the ring's buffer as memory holds it */
        uint64_t w = ptc_ring_written(&ring);
        fwrite(ring_buf, 1, (size_t)(w < ring_size ? w : ring_size), o.pt);
        free(ring_buf);
    }
    if (rc) return rc;
    if (o.pt != stdout && fclose(o.pt) != 0) { fprintf(stderr, "ptsim: cannot write %s\n", out); return 2; }
    if (o.truth) fclose(o.truth);

    /* the configuration the run really used (a scenario's own settings included) */
    snprintf(jsonpath, sizeof jsonpath, "%s.json", strcmp(out, "-") == 0 ? "ptsim-out.pt" : out);
    jf = fopen(jsonpath, "w");
    if (!jf) { fprintf(stderr, "ptsim: cannot write %s: %s\n", jsonpath, strerror(errno)); return 2; }
    {
        uint64_t w = ptc_ring_written(&ring);
        modelcfg_write_json(jf, &m.cfg, o.ring ? &w : NULL);
    }
    fclose(jf);
    if (svg && !write_svg(svg, &o)) { fprintf(stderr, "ptsim: cannot write %s\n", svg); return 2; }
    /* the core's other hardware threads: the same workload (seed + thread),
       their own trace unit and output, the same counters */
    for (t = 1; t < threads; t++) {
        char path[1100];
        ptc_model mt;
        double st;
        sim_out ot;
        b = a;
        b.thread = (uint8_t)t;
        memset(&ot, 0, sizeof ot);
        snprintf(path, sizeof path, "%s.t%llu", out, (unsigned long long)t);
        if (!(ot.pt = fopen(path, "wb"))) { fprintf(stderr, "ptsim: cannot write %s: %s\n", path, strerror(errno)); return 2; }
        rc = simulate(&b, &ot, &mt, &st);
        if (fclose(ot.pt) != 0 || rc) { fprintf(stderr, "ptsim: cannot write %s\n", path); return rc ? rc : 2; }
        if (!quiet) printf("thread %llu: wrote %s (%llu bytes)\n", (unsigned long long)t, path, (unsigned long long)ot.st.total);
    }

    if (perf_data && !write_perf_data(perf_data, out, (unsigned)threads, &m.cfg, perf_ring, perf_every)) return 2;

    if (compare) {
        static ptc_counters counters2; /* the same counters, counting afresh */
        b = a;
        if (a.ncounters) (void)ptc_counters_init(&counters2, a.counter, a.ncounters);
        b.counters = &counters2;
        if (!modelcfg_policy(&b.cfg.trace.policy, compare, err, sizeof err)) { fprintf(stderr, "ptsim: --compare-policy: %s\n", err); return 2; }
        memset(&o2, 0, sizeof o2);
        rc = simulate(&b, &o2, &m2, &secs2);
        if (rc) return rc;
    }
    if (!quiet) {
        FILE *info = strcmp(out, "-") == 0 ? stderr : stdout; /* never into the trace */
        if (o.ring)
            fprintf(info, "wrote %s (a %llu-byte ring that %llu of the %llu bytes went into%s) and %s\n", out,
                    (unsigned long long)ring_size, (unsigned long long)ptc_ring_written(&ring),
                    (unsigned long long)o.st.total, o.st.count[PTC_TRIG] ? ", stopped after the TRIG" : "", jsonpath);
        else
            fprintf(info, "wrote %s (%llu bytes) and %s\n", out, (unsigned long long)o.st.total, jsonpath);
        fprintf(info, "decode with: ptdump --config %s %s\n  (libipt ptdump: --mtc-freq %u --cpuid-0x15.eax %u --cpuid-0x15.ebx %u --nom-freq %u)\n",
                jsonpath, out, m.cfg.trace.ctl.mtc_freq, m.cfg.trace.ratios.cpuid_15_eax, m.cfg.trace.ratios.cpuid_15_ebx, ptc_model_nom_freq(&m.cfg));
        print_summary(info, &o, &m, &m.cfg, secs, compare ? &o2 : NULL, compare ? &m2.cfg : NULL);
        for (t = 0; t < counters.n; t++)
            fprintf(info, "counter %llu (%s): %llu, %llu overflows\n", (unsigned long long)t,
                    modelcfg_event_name(counters.cfg[t].event), (unsigned long long)ptc_counters_read(&counters, (unsigned)t),
                    (unsigned long long)ptc_counters_overflows(&counters, (unsigned)t));
    }
    return 0;
}

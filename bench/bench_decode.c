/* bench_decode - packet decode throughput of ptcodec next to libipt's
   pt_pkt_next, on the same generated streams in the same run. Not a test:
   it prints figures and never fails the build.

   Streams: "dense", a branchy mix (TNT, TIP, FUP, ...) and "sparse",
   mostly MTC and CYC, both from harness/pktgen.h with hardware-like values
   and only packets both decoders know, PSB every 4 KiB; "real", the traces
   recorded on hardware in shared/pt-traces, when present. Each decoder
   runs `reps` times over each stream; the fastest run counts. Both must
   report the same number of packets: when they do not, it says so and
   exits 1.

   Then time-annotated decoding, what a user of the clock does: every
   packet decoded and given its time (ptcodec's stream decoder and clock,
   each item pushed and popped) next to libipt's query decoder answering
   every branch and event with pt_qry_time after each answer. The streams
   are the ones libipt's own encoder writes in bench/encgen.h (dense and
   sparse, CYC off and on), so neither side was tuned for them. Beside
   them, three bounds on what a faster clock or decoder could win, and
   the time per packet that five times libipt would leave (timed_rows).

   --stream FILE [clock options]: any raw trace instead, every decoder on
   it, one table (stream_table). The clock options are ptdump's
   (tools/clockopts.h); libipt's query decoder gets the four it knows. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/pktgen.h"
#include "../tools/clockopts.h"
#include <intel-pt.h>
#include "encgen.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --quick (make check, under the sanitizers): a 32nd of the sizes, once -
   that the program runs through, not its figures */
static size_t stream_bytes = 32u << 20;
static int reps = 5;
static int disagreed; /* the decoders counted different packets somewhere */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The stream decoder as an application uses it: one item per packet. */
static size_t run_ptcodec_stream(const uint8_t *buf, size_t len, uint64_t *check)
{
    ptc_decoder dec;
    ptc_item it;
    size_t n = 0;
    uint64_t sum = 0;
    ptc_decoder_init_buffer(&dec, PTC_DECODE_NO_SYNC, buf, len);
    while (ptc_decoder_next(&dec, &it) == PTC_OK) {
        n++;
        sum += it.pkt.size;
    }
    *check = sum;
    return n;
}

/* The batch decoder (SPEC 1.12): records 256 at a time, each one read as
   an application would, its size summed. */
static size_t run_ptcodec_batch(const uint8_t *buf, size_t len, uint64_t *check)
{
    static ptc_record recs[256];
    ptc_decoder dec;
    size_t n = 0, got, i;
    uint64_t sum = 0;
    ptc_status st;
    ptc_decoder_init_buffer(&dec, PTC_DECODE_NO_SYNC, buf, len);
    do {
        st = ptc_decoder_next_batch(&dec, recs, 256, &got);
        for (i = 0; i < got; i++) sum += recs[i].size;
        n += got;
    } while (st == PTC_OK);
    *check = sum;
    return n;
}

/* The batch decoder on two threads (SPEC 1.13): the trace cut at the
   segment start nearest its middle, each half decoded by its own thread
   as run_ptcodec_batch does, the threads started and joined inside the
   timing. */
typedef struct half_job { const uint8_t *buf; size_t len, start, end, n; uint64_t sum; } half_job;

static void *run_half(void *arg)
{
    static const size_t cap = 256;
    half_job *h = (half_job *)arg;
    ptc_record recs[256];
    ptc_decoder dec;
    size_t got, i;
    ptc_status st;
    (void)ptc_decoder_init_segment(&dec, PTC_DECODE_NO_SYNC, h->buf, h->len, h->start, h->end);
    do {
        st = ptc_decoder_next_batch(&dec, recs, cap, &got);
        for (i = 0; i < got; i++) h->sum += recs[i].size;
        h->n += got;
    } while (st == PTC_OK);
    return NULL;
}

static size_t run_ptcodec_batch_2threads(const uint8_t *buf, size_t len, uint64_t *check)
{
    half_job h[2];
    pthread_t t;
    size_t mid = ptc_segment_next(buf, len, len / 2);
    memset(h, 0, sizeof h);
    h[0].buf = h[1].buf = buf;
    h[0].len = h[1].len = len;
    h[0].end = h[1].start = mid;
    h[1].end = len;
    if (pthread_create(&t, NULL, run_half, &h[1]) != 0) return 0;
    run_half(&h[0]);
    pthread_join(t, NULL);
    *check = h[0].sum + h[1].sum;
    return h[0].n + h[1].n;
}

/* The stream decoder with the conformance checker behind it, as ptdump
   --check runs them (SPEC 7): no settings, every finding counted. */
static size_t run_ptcodec_conform(const uint8_t *buf, size_t len, uint64_t *check)
{
    static ptc_conform chk;
    ptc_conform_config none;
    ptc_decoder dec;
    ptc_item it;
    ptc_finding f[PTC_CONFORM_MAX_FINDINGS];
    size_t n = 0;
    uint64_t found = 0;
    memset(&none, 0, sizeof none);
    ptc_conform_init(&chk, &none);
    ptc_decoder_init_buffer(&dec, PTC_DECODE_NO_SYNC, buf, len);
    while (ptc_decoder_next(&dec, &it) == PTC_OK) {
        n++;
        found += ptc_conform_item(&chk, &it, f);
    }
    *check = found;
    return n;
}

/* The single-packet decoder in a loop: the cost of decoding alone. */
static size_t run_ptcodec_packets(const uint8_t *buf, size_t len, uint64_t *check)
{
    size_t at = 0, n = 0;
    ptc_packet p;
    ptc_block_ctx blk = PTC_BLOCK_NONE;
    while (at < len && ptc_decode_packet(buf + at, len - at, blk, &p) == PTC_OK) {
        at += p.size;
        n++;
    }
    *check = at;
    return n;
}

/* About the least a decoder that walks the packets in turn must do: find
   where each packet starts, and nothing else (no fields, no struct filled
   in). A table of the sizes that the first byte fixes, made from
   ptc_decode_packet itself; a CYC's further bytes counted inline; the rest
   (extended opcodes, TRIG) through ptc_decode_packet. Not a decoder anyone
   could use: a floor under the other runners. */
static uint8_t size_by_first_byte[256]; /* 0: not fixed by the first byte */

/* The size of the packet that starts with byte b and goes on with bytes
   `rest`, 0 if that is no packet. */
static unsigned size_with_rest(unsigned b, uint8_t rest)
{
    uint8_t pkt[PTC_MAX_PACKET_SIZE];
    ptc_packet p;
    memset(pkt, rest, sizeof pkt);
    pkt[0] = (uint8_t)b;
    return ptc_decode_packet(pkt, sizeof pkt, PTC_BLOCK_NONE, &p) == PTC_OK ? p.size : 0;
}

static void size_table_init(void)
{
    unsigned b;
    for (b = 0; b < 256; b++) { /* fixed: the same size whatever follows */
        unsigned size = size_with_rest(b, 0x00);
        size_by_first_byte[b] = (uint8_t)(size == size_with_rest(b, 0xFF) ? size : 0);
    }
}

static size_t run_sizes_only(const uint8_t *buf, size_t len, uint64_t *check)
{
    size_t at = 0, n = 0;
    ptc_packet p;
    while (len - at >= PTC_MAX_PACKET_SIZE) {
        size_t s = size_by_first_byte[buf[at]];
        if (!s && (buf[at] & PTC_OP_CYC_MASK) == PTC_OP_CYC) { /* 10 bytes at most: inside the 16 */
            for (s = 1; s < 9 && (buf[at + s] & PTC_OP_CYC_EXP); s++) {}
            s++;
        } else if (!s) {
            if (ptc_decode_packet(buf + at, len - at, PTC_BLOCK_NONE, &p) != PTC_OK) break;
            s = p.size;
        }
        at += s;
        n++;
    }
    while (at < len && ptc_decode_packet(buf + at, len - at, PTC_BLOCK_NONE, &p) == PTC_OK) {
        at += p.size;
        n++;
    }
    *check = at;
    return n;
}

static size_t run_libipt(const uint8_t *buf, size_t len, uint64_t *check)
{
    struct pt_config cfg;
    struct pt_packet_decoder *d;
    struct pt_packet p;
    size_t n = 0;
    uint64_t sum = 0;
    int rc;
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)buf;
    cfg.end = (uint8_t *)buf + len;
    d = pt_pkt_alloc_decoder(&cfg);
    if (!d || pt_pkt_sync_set(d, 0) < 0) return 0;
    while ((rc = pt_pkt_next(d, &p, sizeof p)) > 0) {
        n++;
        sum += (uint64_t)rc;
    }
    pt_pkt_free_decoder(d);
    *check = sum;
    return n;
}

typedef size_t (*runner)(const uint8_t *, size_t, uint64_t *);

static double best_seconds(runner fn, const uint8_t *buf, size_t len, size_t *packets)
{
    double best = 1e30;
    int r;
    *packets = 0;
    for (r = 0; r < reps; r++) {
        uint64_t check = 0;
        double t0 = now(), t;
        *packets = fn(buf, len, &check);
        t = now() - t0;
        if (t < best) best = t;
    }
    return best;
}

/* The real traces recorded on hardware (shared/pt-traces), concatenated
   until the buffer is full. Returns the length, 0 if they are absent. */
static size_t load_real_traces(uint8_t *buf, size_t cap)
{
    static const char *names[] = { "libxdc_experiments__qemu_trace1", "libxdc_experiments__mruby_trace",
                                   "libxdc_experiments__avscript_32_failed_trace_12709_1" };
    const char *dirs[3];
    size_t len = 0, i, d;
    dirs[0] = getenv("PTCODEC_SHARED");
    dirs[1] = "../shared";
    dirs[2] = "/work/shared";
    for (d = 0; d < 3; d++) {
        int found = 0;
        if (!dirs[d]) continue;
        while (len < cap / 2) {
            for (i = 0; i < sizeof names / sizeof names[0]; i++) {
                char path[512];
                size_t n = 0;
                uint8_t *trace;
                snprintf(path, sizeof path, "%s/pt-traces/%s.pt", dirs[d], names[i]);
                trace = util_read_file(path, &n);
                if (!trace) continue;
                found = 1;
                if (n > cap - len) n = cap - len;
                memcpy(buf + len, trace, n);
                len += n;
                free(trace);
            }
            if (!found) break;
        }
        if (found) return len;
    }
    return 0;
}

/* ---- time-annotated decoding ---------------------------------------------- */

/* The settings the timed runners below decode with: ptcodec's clock
   configuration, and the four numbers libipt's pt_config takes. */
static ptc_clock_config timed_cc;
static struct timed_ipt {
    uint8_t mtc_freq, nom_freq;
    uint32_t eax, ebx;
} timed_ipt;

static size_t run_ptcodec_timed(const uint8_t *buf, size_t len, uint64_t *check)
{
    static ptc_clock clk;
    ptc_decoder dec;
    ptc_item it;
    ptc_timed_item t;
    size_t n = 0;
    uint64_t sum = 0;
    if (ptc_clock_init(&clk, &timed_cc) != PTC_OK) return 0;
    ptc_decoder_init_buffer(&dec, PTC_DECODE_NO_SYNC, buf, len);
    for (;;) {
        int more = ptc_decoder_next(&dec, &it) == PTC_OK;
        if (more) ptc_clock_push(&clk, &it);
        else ptc_clock_finish(&clk);
        while (ptc_clock_pop(&clk, &t) == PTC_OK) {
            n++;
            sum += t.tsc;
        }
        if (!more) break;
    }
    *check = sum;
    return n;
}

/* The events decoder (SPEC 3.13): every event with its time. Returns the
   number of events. */
static size_t run_ptcodec_events(const uint8_t *buf, size_t len, uint64_t *check)
{
    static ptc_events ev;
    ptc_timed_item t;
    size_t n = 0;
    uint64_t sum = 0;
    if (ptc_events_init_buffer(&ev, &timed_cc, PTC_DECODE_NO_SYNC, buf, len) != PTC_OK) return 0;
    while (ptc_events_next(&ev, &t) == PTC_OK) {
        n++;
        sum += t.tsc;
    }
    *check = sum;
    return n;
}

/* Every answer the query decoder gives, each followed by pt_qry_time, as
   libipt's ptxed --time does. Returns the number of answers. */
static size_t run_libipt_timed(const uint8_t *buf, size_t len, uint64_t *check)
{
    struct pt_config cfg;
    struct pt_query_decoder *q;
    uint64_t ip, tsc, sum = 0;
    size_t n = 0;
    int st;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.begin = (uint8_t *)(uintptr_t)buf;
    cfg.end = cfg.begin + len;
    cfg.mtc_freq = timed_ipt.mtc_freq;
    cfg.nom_freq = timed_ipt.nom_freq;
    cfg.cpuid_0x15_eax = timed_ipt.eax;
    cfg.cpuid_0x15_ebx = timed_ipt.ebx;
    q = pt_qry_alloc_decoder(&cfg);
    if (!q) return 0;
    st = pt_qry_sync_forward(q, &ip);
    while (st >= 0 && !(st & pts_eos)) {
        int taken;
        if (st & pts_event_pending) {
            struct pt_event ev;
            st = pt_qry_event(q, &ev, sizeof ev);
        } else {
            st = pt_qry_cond_branch(q, &taken);
            if (st == -pte_bad_query) st = pt_qry_indirect_branch(q, &ip);
            if (st == -pte_bad_query) break;
        }
        if (st < 0) break;
        if (pt_qry_time(q, &tsc, NULL, NULL) >= 0) sum += tsc;
        n++;
    }
    pt_qry_free_decoder(q);
    *check = sum;
    return n;
}

/* One timed stream's results: seconds of the fastest run of each. */
typedef struct timed_row {
    char label[48];
    double mib;
    size_t packets;
    double t_ipt, t_ptc, t_ev, t_dec, t_pkt, t_size;
    double t_ipt_pkt, t_batch; /* libipt's pt_pkt_next; ptcodec's batch decoder */
} timed_row;

/* One stream libipt's encoder writes, each runner timed on it. 0 when the
   encoder failed. */
static int timed_row_run(uint64_t events, int sparse, int cyc, timed_row *row)
{
    encgen_config ec;
    encgen_trace tr;
    size_t n_ipt, n_ptc, n_ev, n_dec, n_pkt, n_size, n_ipt_pkt, n_batch;
    memset(&ec, 0, sizeof ec);
    ec.seed = 7;
    ec.events = sparse ? events / 8 : events;
    ec.sparse = sparse;
    ec.cyc = cyc;
    ec.mtc_freq = 3;
    ec.eax = 2;
    ec.ebx = 308;
    ec.nom = 37;
    ec.cbr = 30;
    encgen_generate(&ec, &tr);
    if (tr.failed) {
        printf("libipt's encoder failed\n");
        encgen_free(&tr);
        return 0;
    }
    encgen_clock_config(&ec, &timed_cc);
    timed_ipt.mtc_freq = ec.mtc_freq;
    timed_ipt.nom_freq = ec.nom;
    timed_ipt.eax = ec.eax;
    timed_ipt.ebx = ec.ebx;
    row->t_ipt = best_seconds(run_libipt_timed, tr.bytes, tr.len, &n_ipt);
    row->t_ptc = best_seconds(run_ptcodec_timed, tr.bytes, tr.len, &n_ptc);
    row->t_ev = best_seconds(run_ptcodec_events, tr.bytes, tr.len, &n_ev);
    row->t_dec = best_seconds(run_ptcodec_stream, tr.bytes, tr.len, &n_dec);
    row->t_pkt = best_seconds(run_ptcodec_packets, tr.bytes, tr.len, &n_pkt);
    row->t_size = best_seconds(run_sizes_only, tr.bytes, tr.len, &n_size);
    row->t_ipt_pkt = best_seconds(run_libipt, tr.bytes, tr.len, &n_ipt_pkt);
    row->t_batch = best_seconds(run_ptcodec_batch, tr.bytes, tr.len, &n_batch);
    if (!n_ev || n_ev >= tr.n) {
        printf("WARNING: the events decoder handed out %zu events of %zu packets\n", n_ev, tr.n);
        disagreed = 1;
    }
    if (n_ptc != tr.n || n_dec != tr.n || n_pkt != tr.n || n_size != tr.n || n_batch != tr.n || n_ipt_pkt != tr.n) {
        printf("WARNING: ptcodec timed %zu, decoded %zu, walked %zu, batched %zu and sized %zu of %zu packets "
               "(libipt %zu)\n", n_ptc, n_dec, n_pkt, n_batch, n_size, tr.n, n_ipt_pkt);
        disagreed = 1;
    }
    snprintf(row->label, sizeof row->label, "%s, CYC %s, MTC 3", sparse ? "sparse" : "dense", cyc ? "T=0" : "off");
    row->mib = tr.len / 1048576.0;
    row->packets = tr.n;
    encgen_free(&tr);
    return 1;
}

/* One row per stream: MB/s of each, and how many times faster ptcodec is.
   Then three bounds, each as MB/s and against libipt: "no clock" is
   ptcodec's stream decoder alone on the same stream (the most any clock on
   top of it could reach), "packets only" is ptc_decode_packet walking
   the stream with no stream bookkeeping at all (the most any time-annotated
   decoder built on ptcodec's packet decoder could reach), and "sizes only"
   finds each packet's start and nothing else (run_sizes_only). Then, per
   packet, the time five times libipt allows and what the size walk leaves
   of it. */
static void timed_rows(uint64_t events)
{
    timed_row rows[4];
    int i, n = 0;
    for (i = 0; i < 4; i++) n += timed_row_run(events, i / 2, i % 2, &rows[n]);
    printf("\nTime-annotated decoding of streams libipt's encoder wrote (bench/encgen.h), best of %d runs\n\n", reps);
    printf("%-24s %6s %9s %12s %17s %17s %16s %16s %16s\n", "stream", "MiB", "packets", "libipt MB/s",
           "events-only MB/s", "full clock MB/s", "no clock MB/s", "packets only", "sizes only");
    for (i = 0; i < n; i++) {
        const timed_row *r = &rows[i];
        double bytes = r->mib * 1048576.0;
        printf("%-24s %6.1f %9zu %12.0f %9.0f (%4.1fx) %9.0f (%4.1fx) %9.0f (%4.1fx) %9.0f (%4.1fx) %9.0f (%4.1fx)\n",
               r->label, r->mib, r->packets, bytes / r->t_ipt / 1e6, bytes / r->t_ev / 1e6, r->t_ipt / r->t_ev,
               bytes / r->t_ptc / 1e6, r->t_ipt / r->t_ptc, bytes / r->t_dec / 1e6, r->t_ipt / r->t_dec,
               bytes / r->t_pkt / 1e6, r->t_ipt / r->t_pkt, bytes / r->t_size / 1e6, r->t_ipt / r->t_size);
    }
    /* Issue 33's target: 1 GB/s on these streams with the batch decoder */
    printf("\nPacket decoding of the same streams: MB/s, and against libipt's pt_pkt_next\n\n");
    printf("%-24s %12s %16s %16s %16s\n", "stream", "libipt MB/s", "stream decoder", "batch", "sizes only");
    for (i = 0; i < n; i++) {
        const timed_row *r = &rows[i];
        double bytes = r->mib * 1048576.0;
        printf("%-24s %12.0f %9.0f (%4.1fx) %9.0f (%4.1fx) %9.0f (%4.1fx)\n", r->label, bytes / r->t_ipt_pkt / 1e6,
               bytes / r->t_dec / 1e6, r->t_ipt_pkt / r->t_dec, bytes / r->t_batch / 1e6, r->t_ipt_pkt / r->t_batch,
               bytes / r->t_size / 1e6, r->t_ipt_pkt / r->t_size);
    }
    /* What five times libipt leaves each packet: the time, of which the
       walk that only finds sizes takes its part before anything is
       decoded, timed or handed out */
    printf("\nPer packet at five times libipt's speed, in ns\n\n");
    printf("%-24s %12s %12s %12s %12s %14s\n", "stream", "at 5x", "events-only", "full clock", "sizes only",
           "left at 5x");
    for (i = 0; i < n; i++) {
        const timed_row *r = &rows[i];
        double ns = 1e9 / (double)r->packets;
        printf("%-24s %12.1f %12.1f %12.1f %12.1f %14.1f\n", r->label, r->t_ipt / 5 * ns, r->t_ev * ns, r->t_ptc * ns,
               r->t_size * ns, (r->t_ipt / 5 - r->t_size) * ns);
    }
}

/* One decoder's row of stream_table: what it hands out (packets, or
   query answers) per second, and against its libipt counterpart. */
static void stream_row(const char *name, double mib, double t, size_t items, const char *unit, double t_ipt)
{
    printf("%-28s %10.0f %10.2f %-8s", name, mib * 1048576.0 / t / 1e6, (double)items / t / 1e6, unit);
    if (t_ipt > 0) printf(" %7.1fx", t_ipt / t);
    printf("\n");
}

/* --stream FILE: every decoder on one raw trace, with the clock settings
   given (ptdump's options; without them, TSCs alone time it). */
static int stream_table(const char *path, const clock_options *opt)
{
    size_t len = 0, n_ipt, n_dec, n_pkt, n_conf, n_qry, n_clk, n_ev, n_bat, n_bat2;
    double t_ipt, t_dec, t_pkt, t_conf, t_qry, t_clk, t_ev, t_bat, t_bat2, mib;
    uint8_t *buf = util_read_file(path, &len);
    struct pt_version v = pt_library_version();
    if (!buf) {
        fprintf(stderr, "bench_decode: cannot read %s: %s\n", path, strerror(errno));
        return 2;
    }
    ptc_clock_config_default(&timed_cc);
    clockopt_apply(&timed_cc, opt);
    timed_ipt.mtc_freq = (uint8_t)timed_cc.trace.ctl.mtc_freq;
    timed_ipt.nom_freq = (uint8_t)(timed_cc.trace.ratios.nom_den == 1 ? timed_cc.trace.ratios.nom_num : 0);
    timed_ipt.eax = timed_cc.trace.ratios.cpuid_15_eax;
    timed_ipt.ebx = timed_cc.trace.ratios.cpuid_15_ebx;
    {
        static ptc_clock probe; /* the settings, before anything is timed */
        if (ptc_clock_init(&probe, &timed_cc) != PTC_OK) {
            fprintf(stderr, "bench_decode: the clock settings are not usable (cpuid-0x15.eax and .ebx go together)\n");
            free(buf);
            return 2;
        }
    }
    mib = (double)len / 1048576.0;
    t_ipt = best_seconds(run_libipt, buf, len, &n_ipt);
    t_dec = best_seconds(run_ptcodec_stream, buf, len, &n_dec);
    t_pkt = best_seconds(run_ptcodec_packets, buf, len, &n_pkt);
    t_bat = best_seconds(run_ptcodec_batch, buf, len, &n_bat);
    t_bat2 = best_seconds(run_ptcodec_batch_2threads, buf, len, &n_bat2);
    t_conf = best_seconds(run_ptcodec_conform, buf, len, &n_conf);
    t_qry = best_seconds(run_libipt_timed, buf, len, &n_qry);
    t_clk = best_seconds(run_ptcodec_timed, buf, len, &n_clk);
    t_ev = best_seconds(run_ptcodec_events, buf, len, &n_ev);
    printf("%s: %.1f MiB, ptcodec %s vs libipt %u.%u.%u, best of %d runs\n\n", path, mib, ptc_version(), v.major,
           v.minor, v.patch, reps);
    printf("%-28s %10s %10s %-8s %8s\n", "decoder", "MB/s", "M/s", "of", "vs libipt");
    stream_row("libipt pt_pkt_next", mib, t_ipt, n_ipt, "packets", t_ipt);
    stream_row("ptcodec stream decoder", mib, t_dec, n_dec, "packets", t_ipt);
    stream_row("ptcodec ptc_decode_packet", mib, t_pkt, n_pkt, "packets", t_ipt);
    stream_row("ptcodec batch", mib, t_bat, n_bat, "packets", t_ipt);
    stream_row("ptcodec batch, 2 threads", mib, t_bat2, n_bat2, "packets", t_ipt);
    stream_row("ptcodec stream + conform", mib, t_conf, n_conf, "packets", t_ipt);
    stream_row("libipt query + pt_qry_time", mib, t_qry, n_qry, "answers", t_qry);
    stream_row("ptcodec events-only", mib, t_ev, n_ev, "events", t_qry);
    stream_row("ptcodec full clock", mib, t_clk, n_clk, "packets", t_qry);
    if (n_bat != n_dec || n_bat2 != n_dec)
        printf("WARNING: the batch decoder gave %zu records (%zu on 2 threads), the stream decoder %zu items\n", n_bat,
               n_bat2, n_dec);
    if (n_dec != n_ipt || n_pkt != n_ipt)
        printf("(the packet counts differ: ptcodec %zu and %zu, libipt %zu - the trace has errors, or does not start "
               "at a packet)\n", n_dec, n_pkt, n_ipt);
    printf("\nThe events-only and full clock rows are against libipt's query decoder with pt_qry_time. Two threads: "
           "%.2f times the batch decoder on one.\n", t_bat / t_bat2);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    static const char *names[3] = { "dense", "sparse", "real" };
    uint8_t *buf;
    int s, quick = argc == 2 && !strcmp(argv[1], "--quick");
    struct pt_version v = pt_library_version();
    if (argc > 1 && !strcmp(argv[1], "--stream")) {
        clock_options opt;
        const char *path = NULL;
        int i;
        util_prog = "bench_decode";
        memset(&opt, 0, sizeof opt);
        for (i = 2; i < argc; i++) {
            int took = clockopt_take(&opt, argc, argv, &i);
            if (took < 0) return 2;
            if (took) continue;
            if (argv[i][0] == '-' || path) {
                fprintf(stderr, "bench_decode: %s %s\nusage: bench_decode [--quick] | --stream FILE [clock options]\n",
                        argv[i][0] == '-' ? "unknown option" : "more than one trace:", argv[i]);
                return 2;
            }
            path = argv[i];
        }
        if (!path) { fprintf(stderr, "bench_decode: --stream needs a trace\n"); return 2; }
        return stream_table(path, &opt);
    }
    if (argc > 1 && !quick) {
        fprintf(stderr, "usage: bench_decode [--quick] | --stream FILE [clock options]\n");
        return 2;
    }
    if (quick) {
        stream_bytes /= 32;
        reps = 1;
    }
    buf = (uint8_t *)malloc(stream_bytes);
    if (!buf) return 1;
    printf("ptcodec %s vs libipt %u.%u.%u: packet decode, best of %d runs, %zu MiB per stream\n\n",
           ptc_version(), v.major, v.minor, v.patch, reps, stream_bytes >> 20);
    printf("%-7s %-26s %10s %12s %8s\n", "stream", "decoder", "MB/s", "Mpackets/s", "vs libipt");
    for (s = 0; s < 3; s++) {
        pktgen_rng r = pktgen_seed(42 + (uint64_t)s);
        pktgen_mix mix;
        size_t len, n_stream, n_pkt, n_ipt, n_conf, n_batch;
        double t_stream, t_pkt, t_ipt, t_conf, t_batch;
        if (s == 2) {
            len = load_real_traces(buf, stream_bytes);
            if (!len) { printf("real    (shared/pt-traces not found: skipped)\n"); continue; }
        } else {
            if (s == 0) pktgen_mix_dense(&mix); else pktgen_mix_sparse(&mix);
            len = pktgen_stream(&r, &mix, PKTGEN_LIBIPT_205 | PKTGEN_TYPICAL, 4096, buf, stream_bytes, NULL, NULL, 0, NULL);
        }
        t_ipt = best_seconds(run_libipt, buf, len, &n_ipt);
        t_stream = best_seconds(run_ptcodec_stream, buf, len, &n_stream);
        t_pkt = best_seconds(run_ptcodec_packets, buf, len, &n_pkt);
        t_conf = best_seconds(run_ptcodec_conform, buf, len, &n_conf);
        t_batch = best_seconds(run_ptcodec_batch, buf, len, &n_batch);
        if (n_stream != n_ipt || n_pkt != n_ipt || n_conf != n_ipt || n_batch != n_ipt) {
            printf("WARNING: packet counts differ: ptcodec %zu/%zu/%zu, libipt %zu\n", n_stream, n_pkt, n_batch, n_ipt);
            disagreed = 1;
        }
        printf("%-7s %-26s %10.0f %12.1f %8s\n", names[s], "libipt pt_pkt_next", len / t_ipt / 1e6,
               n_ipt / t_ipt / 1e6, "1.0x");
        printf("%-7s %-26s %10.0f %12.1f %7.1fx\n", names[s], "ptcodec stream decoder", len / t_stream / 1e6,
               n_stream / t_stream / 1e6, t_ipt / t_stream);
        printf("%-7s %-26s %10.0f %12.1f %7.1fx\n", names[s], "ptcodec ptc_decode_packet", len / t_pkt / 1e6,
               n_pkt / t_pkt / 1e6, t_ipt / t_pkt);
        printf("%-7s %-26s %10.0f %12.1f %7.1fx\n", names[s], "ptcodec batch", len / t_batch / 1e6,
               n_batch / t_batch / 1e6, t_ipt / t_batch);
        /* SPEC 7.1's target: checking costs at most 30% of the stream decoder's speed */
        printf("%-7s %-26s %10.0f %12.1f %7.1fx  (%.2f of the stream decoder's speed; target 0.70)\n", names[s],
               "ptcodec stream + conform", len / t_conf / 1e6, n_conf / t_conf / 1e6, t_ipt / t_conf, t_stream / t_conf);
    }
    free(buf);
    size_table_init();
    timed_rows(quick ? 4000000 / 32 : 4000000);
    return disagreed;
}

/* Part 3.13: the events decoder. It hands out the events the full clock
   hands out, in the same order; its intervals hold the model's truth, as
   the full clock's do, and time never goes back (G1, G2); split into
   chunks anywhere, it answers the same. Where its intervals and points
   differ from the full clock's (SPEC 3.13 says why) is counted and
   printed; on the real traces, with no truth, the events and G2 are held. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"
#include "../harness/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../harness/modelrec.h"

#include <string.h>

/* One decoder's answers for a whole stream. */
typedef struct answers {
    ptc_timed_item *t;
    size_t n, cap;
} answers;

static void answers_add(answers *a, const ptc_timed_item *t)
{
    if (a->n == a->cap) {
        a->cap = a->cap * 2 + 1024;
        a->t = (ptc_timed_item *)realloc(a->t, a->cap * sizeof *a->t);
        if (!a->t) abort();
    }
    a->t[a->n++] = *t;
}

/* The full clock's answers for the events only. */
static void full_clock(const uint8_t *buf, size_t len, unsigned flags, const ptc_clock_config *cc, answers *out)
{
    static ptc_clock clk;
    ptc_decoder d;
    ptc_item it;
    ptc_timed_item t;
    CHECK(ptc_clock_init(&clk, cc) == PTC_OK);
    ptc_decoder_init_buffer(&d, flags, buf, len);
    for (;;) {
        ptc_status st = ptc_decoder_next(&d, &it);
        if (st == PTC_OK) CHECK(ptc_clock_push(&clk, &it) == PTC_OK, "push refused");
        else ptc_clock_finish(&clk);
        while (ptc_clock_pop(&clk, &t) == PTC_OK)
            if (ptc_events_is_event(&t.item)) answers_add(out, &t);
        if (st != PTC_OK) break;
    }
}

/* The events decoder's, fed in chunks of `chunk` bytes (0: the whole buffer). */
static void events_only(const uint8_t *buf, size_t len, unsigned flags, const ptc_clock_config *cc, size_t chunk,
                        answers *out)
{
    static ptc_events ev;
    ptc_timed_item t;
    size_t at = 0;
    CHECK(ptc_events_init(&ev, cc, flags, 0) == PTC_OK);
    if (!chunk) chunk = len ? len : 1;
    for (;;) {
        ptc_status st = ptc_events_next(&ev, &t);
        if (st == PTC_OK) { answers_add(out, &t); continue; }
        if (st == PTC_END) break;
        CHECK(st == PTC_NEED_INPUT, "ptc_events_next: %s", ptc_status_name(st));
        if (st != PTC_NEED_INPUT) break;
        if (at == len) ptc_events_finish(&ev);
        else {
            size_t n = len - at < chunk ? len - at : chunk;
            CHECK(ptc_events_feed(&ev, buf + at, n) == PTC_OK);
            at += n;
        }
    }
}

static int same_answer(const ptc_timed_item *a, const ptc_timed_item *b)
{
    return a->item.offset == b->item.offset && a->item.error == b->item.error && a->have_time == b->have_time &&
           a->tsc == b->tsc && a->tsc_lo == b->tsc_lo && a->tsc_hi == b->tsc_hi && a->cycles == b->cycles &&
           !memcmp(&a->item.pkt, &b->item.pkt, sizeof a->item.pkt);
}

typedef struct tally {
    size_t events, timed, inside_full, equal, outside_truth, back, no_time;
    double width_ev, width_full; /* over the events both bound */
    size_t bounded;
} tally;

/* The events decoder against the full clock on one stream; truth (the
   true TSC of every event in order; NULL: none) against both. */
static void compare(const uint8_t *buf, size_t len, unsigned flags, const ptc_clock_config *cc, const ptc_exact_tsc *truth,
                    const char *what, tally *s)
{
    answers full, ev, ev_chunked;
    ptc_clock_order order;
    size_t i, chunk = 1 + len % 61;
    memset(&full, 0, sizeof full);
    memset(&ev, 0, sizeof ev);
    memset(&ev_chunked, 0, sizeof ev_chunked);
    full_clock(buf, len, flags, cc, &full);
    events_only(buf, len, flags, cc, 0, &ev);
    events_only(buf, len, flags, cc, chunk, &ev_chunked);
    CHECK(ev.n == full.n, "%s: %zu events, the full clock %zu", what, ev.n, full.n);
    CHECK(ev_chunked.n == ev.n, "%s: %zu events in chunks of %zu, %zu whole", what, ev_chunked.n, chunk, ev.n);
    ptc_clock_order_init(&order);
    for (i = 0; i < ev.n && i < full.n; i++) {
        const ptc_timed_item *e = &ev.t[i], *f = &full.t[i];
        if (e->item.offset != f->item.offset || e->item.error != f->item.error || e->item.pkt.type != f->item.pkt.type) {
            CHECK(0, "%s: event %zu at %llu (%s), the full clock's at %llu (%s)", what, i,
                  (unsigned long long)e->item.offset, ptc_packet_type_name(e->item.pkt.type),
                  (unsigned long long)f->item.offset, ptc_packet_type_name(f->item.pkt.type));
            break;
        }
        if (i < ev_chunked.n && !same_answer(e, &ev_chunked.t[i]) && s->back < 1000000) {
            CHECK(0, "%s: event %zu at %llu differs when fed in chunks of %zu", what, i, (unsigned long long)e->item.offset,
                  chunk);
            break;
        }
        s->events++;
        if (!ptc_clock_order_next(&order, e)) s->back++;
        if (f->have_time && !e->have_time) s->no_time++;
        if (!e->have_time || !f->have_time || f->conflict) continue;
        s->timed++;
        CHECK(e->tsc_lo <= e->tsc && e->tsc <= e->tsc_hi, "%s: point outside its interval", what);
        if (e->tsc_lo <= f->tsc_lo && e->tsc_hi >= f->tsc_hi) s->inside_full++;
        if (e->tsc_lo == f->tsc_lo && e->tsc_hi == f->tsc_hi && e->tsc == f->tsc) s->equal++;
        if (e->tsc_hi != UINT64_MAX && f->tsc_hi != UINT64_MAX) {
            s->bounded++;
            s->width_ev += (double)(e->tsc_hi - e->tsc_lo);
            s->width_full += (double)(f->tsc_hi - f->tsc_lo);
        }
        if (truth) {
            const ptc_exact_tsc *t = &truth[i];
            int in = e->tsc_lo <= t->tsc && (t->tsc < e->tsc_hi || (t->tsc == e->tsc_hi && t->num == 0));
            if (!in && s->outside_truth++ < 3)
                CHECK(0, "%s: %s at %llu: true TSC %llu not in [%llu, %llu]", what, ptc_packet_type_name(e->item.pkt.type),
                      (unsigned long long)e->item.offset, (unsigned long long)t->tsc, (unsigned long long)e->tsc_lo,
                      (unsigned long long)e->tsc_hi);
        }
    }
    free(full.t);
    free(ev.t);
    free(ev_chunked.t);
}

/* ---- the model's workloads -------------------------------------------------- */

static void report(const char *what, const tally *s);

static void model_run(int wi, const char *policy, const char *settings, uint64_t seed, int exact, tally *s)
{
    modelrec_trace tr;
    ptc_model_config m;
    ptc_model_sink sink;
    ptc_clock_config cc;
    ptc_exact_tsc *truth;
    char err[200], what[256];
    size_t i, n = 0;
    memset(&tr, 0, sizeof tr);
    sink = modelrec_start(&tr, 1);
    if (!workload_run_configured(wi, policy, settings, 1000000, seed, &sink, &m, err, sizeof err)) {
        CHECK(0, "%s", err);
        return;
    }
    ptc_clock_config_from_model(&cc, &m);
    if (!exact) {
        cc.trace.ratios.nom_num = ptc_model_nom_freq(&m);
        cc.trace.ratios.nom_den = 1;
        cc.trace.ratios.nom_exact = 0;
    }
    truth = (ptc_exact_tsc *)malloc((tr.nt + 1) * sizeof *truth);
    for (i = 0; i < tr.nt; i++) {
        ptc_item it;
        memset(&it, 0, sizeof it);
        it.pkt = tr.t[i].pkt;
        if (tr.t[i].fate != PTC_FATE_EMITTED) it.error = PTC_ERR_RESERVED; /* cut or corrupt: an error item */
        if (ptc_events_is_event(&it)) truth[n++] = tr.t[i].time;
    }
    snprintf(what, sizeof what, "%s/%s [%s]%s", workload_names[wi], policy, settings, exact ? "" : " rounded nom");
    {
        tally one;
        memset(&one, 0, sizeof one);
        compare(tr.bytes, tr.len, modelrec_decode_flags(&m), &cc, truth, what, &one);
        s->events += one.events; s->timed += one.timed; s->inside_full += one.inside_full; s->equal += one.equal;
        s->outside_truth += one.outside_truth; s->back += one.back; s->width_ev += one.width_ev;
        s->width_full += one.width_full; s->bounded += one.bounded;
    }
    free(truth);
    modelrec_free(&tr);
}

static void report(const char *what, const tally *s)
{
    printf("# %s: %zu events, %zu timed; %zu around the full clock's interval, %zu equal to it (point too); "
           "mean width %.0f ticks, the full clock's %.0f\n",
           what, s->events, s->timed, s->inside_full, s->equal, s->bounded ? s->width_ev / (double)s->bounded : 0.0,
           s->bounded ? s->width_full / (double)s->bounded : 0.0);
}

static void every_workload_policy_and_setting(void)
{
    static const char *policies[] = { "off", "seed", "threshold=1,resume_after=10,min_burst=4" };
    static const char *settings[] = {
        "",
        "mtc_freq=0,cpuid_0x15_eax=3,cpuid_0x15_ebx=10,art_hz=25000000",
        "mtc_freq=12,cpuid_0x15_eax=2,cpuid_0x15_ebx=176",
        "cyc_en=1,cyc_thresh=0",
        "cyc_en=1,cyc_thresh=4,cyc_bits=8",
        "cyc_en=1,cyc_thresh=2,mtc_freq=9,cpuid_0x15_eax=3,cpuid_0x15_ebx=250,psb_freq=2",
        "cyc_en=1,cyc_thresh=3,fifo_bytes=512,drain_bytes=1,drain_cycles=5,cyc_bits=10",
        "cyc_en=1,cyc_thresh=0,mtc_jitter=12,jitter_seed=99",
        "mtc_lost=2,mtc_freq=0,jitter_seed=4",
        "cyc_en=1,cyc_thresh=2,rate_ppm=100000,mtc_jitter=4,jitter_seed=3",
        "cyc_en=1,cyc_thresh=3,psb_early_tsc=120,mtc_jitter=6,jitter_seed=2,rate_ppm=20000,mtc_freq=0",
        "cyc_en=1,cyc_thresh=2,skl168=1,mtc_lost=1,jitter_seed=6,psb_early_tsc=100",
        "cyc_en=1,cyc_thresh=7,fifo_bytes=128,drain_bytes=1,drain_cycles=16,skd007=1,jitter_seed=9"
    };
    tally s;
    int wi;
    size_t p, k;
    memset(&s, 0, sizeof s);
    for (wi = 0; wi < WORKLOAD_COUNT; wi++)
        for (p = 0; p < sizeof policies / sizeof policies[0]; p++)
            for (k = 0; k < sizeof settings / sizeof settings[0]; k++)
                if ((wi + p + k) % 2 == 0) model_run(wi, policies[p], settings[k], 7 * p + k, (wi + p + k) % 3 != 0, &s);
    report("the model", &s);
    CHECK(s.events > 100000, "only %zu events", s.events);
    CHECK(s.outside_truth == 0 && s.back == 0, "%zu outside the truth, %zu steps back", s.outside_truth, s.back);
    CHECK(s.no_time == 0, "%zu events the full clock times have no time", s.no_time);
    /* what the anchors around an event say, both hold: the events decoder
       is seldom narrower (its cycle bounds are not all the full clock's:
       0.3% of them when this was written), and on the whole about a
       quarter wider (1.24 times); the limits leave a little room */
    CHECK(s.inside_full * 1000 >= s.timed * 995, "only %zu of %zu around the full clock's interval", s.inside_full,
          s.timed);
    CHECK(s.width_ev <= 1.35 * s.width_full, "mean width %.0f, the full clock's %.0f", s.width_ev / (double)s.bounded,
          s.width_full / (double)s.bounded);
}

/* ---- real traces: the same events, time going forward ------------------------ */

static void real_traces(void)
{
    /* as test_realtraces times them (the recording machines' clocks) */
    static const struct { const char *file; unsigned nom, eax, ebx; } traces[] = {
        { "pt-traces-timed/DynamoRIO_dynamorio__test_simple.raw_pt.ad6a637b.bin", 37, 2, 308 },
        { "pt-traces-timed/DynamoRIO_dynamorio__test_simple.tracedir_pt.af553eb7.bin", 30, 2, 250 },
        { "pt-traces-timed/DynamoRIO_dynamorio__drptpostprocessor_test_simple.tracedir_pt.316e5058.bin", 37, 2, 308 },
        { "pt-traces/libxdc_experiments__mruby_trace.pt", 0, 0, 0 }
    };
    tally s;
    size_t i, read = 0;
    memset(&s, 0, sizeof s);
    if (!testlib_shared_dir()) SKIP("no shared reference data (set PTCODEC_SHARED or put it in ../shared)");
    for (i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        char path[1024];
        size_t len = 0;
        unsigned char *pt;
        ptc_clock_config cc;
        snprintf(path, sizeof path, "%s/%s", testlib_shared_dir(), traces[i].file);
        pt = util_read_file(path, &len);
        if (!pt) continue;
        read++;
        ptc_clock_config_default(&cc);
        cc.trace.ctl.mtc_freq = 3;
        cc.trace.ratios.nom_num = traces[i].nom;
        cc.trace.ratios.nom_den = 1;
        cc.trace.ratios.cpuid_15_eax = traces[i].eax;
        cc.trace.ratios.cpuid_15_ebx = traces[i].ebx;
        compare(pt, len, 0, &cc, NULL, traces[i].file, &s);
        free(pt);
    }
    if (!read) SKIP("none of the real traces is in %s", testlib_shared_dir());
    report("the real traces", &s);
    CHECK(s.events > 10000 && s.back == 0, "%zu events, %zu steps back", s.events, s.back);
    CHECK(s.no_time == 0, "%zu events the full clock times have no time", s.no_time);
}

/* ---- the interface (SPEC 3.13) ---------------------------------------------- */

static void api_contract(void)
{
    static ptc_events ev;
    static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
    ptc_clock_config cc;
    ptc_timed_item t;
    ptc_item it;
    ptc_clock_config_default(&cc);
    CHECK(ptc_events_init(NULL, &cc, 0, 0) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_events_init(&ev, NULL, 0, 0) == PTC_ERR_BAD_ARGUMENT);
    cc.trace.ctl.mtc_freq = 16;
    CHECK(ptc_events_init(&ev, &cc, 0, 0) == PTC_ERR_BAD_CONFIG, "mtc_freq 16 taken");
    ptc_clock_config_default(&cc);
    cc.trace.ctl.cyc_thresh = 16;
    CHECK(ptc_events_init(&ev, &cc, 0, 0) == PTC_ERR_BAD_CONFIG, "threshold 16 taken");
    ptc_clock_config_default(&cc);
    cc.trace.ratios.cpuid_15_eax = 2; /* without ebx */
    CHECK(ptc_events_init(&ev, &cc, 0, 0) == PTC_ERR_BAD_CONFIG, "eax without ebx taken");
    ptc_clock_config_default(&cc);
    CHECK(ptc_events_init(&ev, &cc, 0, 0) == PTC_OK);
    CHECK(ptc_events_next(&ev, NULL) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_events_next(&ev, &t) == PTC_NEED_INPUT, "events before any input");
    CHECK(ptc_events_feed(&ev, psb, sizeof psb) == PTC_OK);
    CHECK(ptc_events_feed(&ev, psb, sizeof psb) == PTC_ERR_BAD_STATE, "a second chunk before the first is used");
    CHECK(ptc_events_next(&ev, &t) == PTC_NEED_INPUT, "a PSB cut by the chunk's end handed out");
    ptc_events_finish(&ev);
    CHECK(ptc_events_next(&ev, &t) == PTC_OK && t.item.error == PTC_OK && t.item.pkt.type == PTC_PSB && !t.have_time,
          "the PSB, with no time");
    CHECK(ptc_events_next(&ev, &t) == PTC_END);
    CHECK(ptc_events_next(&ev, &t) == PTC_END, "PTC_END again");
    /* the event set */
    memset(&it, 0, sizeof it);
    it.pkt.type = PTC_MTC;
    CHECK(!ptc_events_is_event(&it));
    it.pkt.type = PTC_CBR;
    CHECK(ptc_events_is_event(&it), "CBR (libipt's query decoder reports it)");
    it.error = PTC_ERR_TRUNCATED;
    CHECK(ptc_events_is_event(&it), "an error");
    CHECK(!ptc_events_is_event(NULL));
    /* nothing at all */
    CHECK(ptc_events_init_buffer(&ev, &cc, 0, NULL, 0) == PTC_OK);
    CHECK(ptc_events_next(&ev, &t) == PTC_END, "events from no bytes");
}

int main(void)
{
    RUN(api_contract);
    RUN(every_workload_policy_and_setting);
    RUN(real_traces);
    TESTLIB_EXIT();
}

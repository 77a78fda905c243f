/* test_mutator.c - the PT-aware mutator (harness/ptmutator.h): what it
   promises a fuzzing campaign. Every operator is used; the packet-level
   operators turn a stream of whole packets into a stream of whole packets;
   a field reaches its edges; the same seed gives the same outputs; nothing
   is written past the room given; a crossover splices at PSBs; "generate"
   writes what the model writes. The engines' own runs with it (libFuzzer's
   hooks, AFL++'s library) are in tests/run.sh.
   And the differential template's time comparison (harness/ptdiff.h), which
   a campaign on someone else's timed decoder stands on: it finds each
   fault where it is, and only there. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/ptmutator.h"
#include "../harness/ptdiff.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../harness/modelrec.h"
#include "testlib.h"

enum { STREAM_CAP = 4096, MUTATIONS = 20000 };

/* A clean stream of libipt-2.0.5-known packets with a PSB every 512 bytes
   (no PEBS blocks: see ptm_whole_packets). */
static size_t clean_stream(uint64_t seed, uint8_t *out, size_t cap)
{
    pktgen_rng r = pktgen_seed(seed);
    pktgen_mix mix;
    pktgen_mix_uniform(&mix, PKTGEN_LIBIPT_205);
    return pktgen_stream(&r, &mix, PKTGEN_LIBIPT_205, 512, out, cap, NULL, NULL, 0, NULL);
}

static ptm_mutator mut, mut2;

static void every_operator_applies_and_keeps_packets_whole(void)
{
    uint8_t in[STREAM_CAP], other[STREAM_CAP], buf[STREAM_CAP + 256];
    size_t n = clean_stream(1, in, 2048), no = clean_stream(2, other, 1500), i, whole = 0, broken_by[PTM_OP_COUNT];
    int op;
    memset(broken_by, 0, sizeof broken_by);
    CHECK(ptm_whole_packets(in, n) == PTM_WHOLE && ptm_whole_packets(other, no) == PTM_WHOLE);
    ptm_init(&mut, 7);
    for (i = 0; i < MUTATIONS; i++) {
        size_t k;
        memcpy(buf, in, n);
        k = ptm_mutate(&mut, buf, n, sizeof buf, other, no);
        CHECK(k <= sizeof buf);
        CHECK(mut.last_op < PTM_OP_COUNT, "call %zu applied nothing", i);
        if (mut.last_op >= PTM_OP_COUNT) continue;
        if (ptm_whole_packets(buf, k) != PTM_BROKEN) whole++;
        else broken_by[mut.last_op]++;
    }
    for (op = 0; op < PTM_OP_COUNT; op++) {
        CHECK(mut.op_count[op] > 0, "%s never applied", ptm_op_name((ptm_op)op));
        if (ptm_op_keeps_packets_whole((ptm_op)op))
            CHECK(broken_by[op] == 0, "%s broke %zu streams", ptm_op_name((ptm_op)op), broken_by[op]);
    }
    /* cut always breaks (the stream ends inside a packet, or one loses its
       tail); bytes often does: the rest keep streams whole */
    CHECK(broken_by[PTM_OP_CUT] > 0 && broken_by[PTM_OP_BYTES] > 0);
    CHECK(whole * 100 >= MUTATIONS * 85, "only %zu of %d outputs are whole packets", whole, MUTATIONS);
    printf("  %zu of %d outputs are whole packets\n", whole, MUTATIONS);
}

static void same_seed_same_outputs(void)
{
    uint8_t in[STREAM_CAP], a[STREAM_CAP], b[STREAM_CAP];
    size_t n = clean_stream(3, in, 2048), i, differ = 0;
    ptm_init(&mut, 99);
    ptm_init(&mut2, 99);
    for (i = 0; i < 2000; i++) {
        size_t ka, kb;
        memcpy(a, in, n);
        memcpy(b, in, n);
        ka = ptm_mutate(&mut, a, n, sizeof a, in, n);
        kb = ptm_mutate(&mut2, b, n, sizeof b, in, n);
        CHECK(ka == kb && !memcmp(a, b, ka) && mut.last_op == mut2.last_op, "call %zu differs", i);
    }
    ptm_init(&mut2, 100); /* another seed: other outputs */
    ptm_init(&mut, 99);
    for (i = 0; i < 50; i++) {
        size_t ka, kb;
        memcpy(a, in, n);
        memcpy(b, in, n);
        ka = ptm_mutate(&mut, a, n, sizeof a, NULL, 0);
        kb = ptm_mutate(&mut2, b, n, sizeof b, NULL, 0);
        differ += ka != kb || memcmp(a, b, ka);
    }
    CHECK(differ > 40, "seeds 99 and 100 agree on %zu of 50 outputs", 50 - differ);
}

/* In a buffer of exactly max_size bytes (ASan sees a write past it), with
   no room, a little and some: never larger than max_size. */
static void stays_within_the_room_given(void)
{
    uint8_t in[STREAM_CAP];
    size_t n = clean_stream(4, in, 1024), room, i;
    ptm_init(&mut, 5);
    for (room = 0; room <= 64; room += 8) {
        uint8_t *buf = (uint8_t *)malloc(n + room);
        CHECK(buf != NULL);
        if (!buf) return;
        for (i = 0; i < 2000; i++) {
            size_t k;
            memcpy(buf, in, n);
            k = ptm_mutate(&mut, buf, n, n + room, in, n);
            CHECK(k <= n + room, "%zu bytes in %zu", k, n + room);
        }
        free(buf);
    }
    {
        uint8_t one = 0;
        size_t k = ptm_mutate(&mut, &one, 0, 1, NULL, 0); /* empty input, one byte of room */
        CHECK(k <= 1);
    }
}

/* The largest value of a field is what the encoder accepts: an MTC's CTC
   reaches 255, a TSC 2^56 - 1, a CYC needs more bytes as it grows. */
static void a_field_reaches_its_edges(void)
{
    static const ptc_packet_type types[3] = { PTC_MTC, PTC_TSC, PTC_CBR };
    static const uint64_t max[3] = { 0xFF, (UINT64_C(1) << 56) - 1, 0xFF };
    int t;
    for (t = 0; t < 3; t++) {
        uint8_t in[PTC_MAX_PACKET_SIZE], buf[64];
        ptc_packet p;
        size_t n = 0, i;
        int saw_zero = 0, saw_max = 0, other = 0;
        memset(&p, 0, sizeof p);
        p.type = types[t];
        CHECK(ptc_encode_packet(&p, in, sizeof in, &n) == PTC_OK);
        ptm_init(&mut, 11 + (uint64_t)t);
        for (i = 0; i < 3000; i++) {
            size_t k;
            ptc_packet q;
            uint64_t v;
            memcpy(buf, in, n);
            k = ptm_mutate(&mut, buf, n, sizeof buf, NULL, 0);
            if (mut.last_op != PTM_OP_FIELD) continue;
            CHECK(ptc_decode_packet(buf, k, PTC_BLOCK_NONE, &q) == PTC_OK && q.type == types[t] && q.size == k);
            v = types[t] == PTC_MTC ? q.u.mtc.ctc : types[t] == PTC_TSC ? q.u.tsc.tsc : q.u.cbr.ratio;
            saw_zero |= v == 0;
            saw_max |= v == max[t];
            other |= v != 0 && v != max[t];
        }
        CHECK(saw_zero && saw_max && other, "%s: 0 %d, max %d, others %d", ptc_packet_type_name(types[t]), saw_zero,
              saw_max, other);
    }
}

static int psb_at(const uint8_t *buf, size_t len, size_t at)
{
    return at + 16 <= len && !memcmp(buf + at, "\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82", 16);
}

/* A crossover is a's bytes up to one of a's PSBs, then b's from one of
   b's (both streams have PSBs every 512 bytes). */
static void crossover_splices_at_psbs(void)
{
    uint8_t a[STREAM_CAP], b[STREAM_CAP], out[2 * STREAM_CAP];
    size_t na = clean_stream(5, a, 3000), nb = clean_stream(6, b, 3000), i;
    int mixed = 0;
    ptm_init(&mut, 21);
    for (i = 0; i < 500; i++) {
        size_t k = ptm_crossover(&mut, a, na, b, nb, out, sizeof out), ca;
        int found = 0;
        for (ca = 0; ca <= na && ca <= k && !found; ca++) {
            size_t tail = k - ca;
            found = psb_at(a, na, ca) && tail <= nb && psb_at(b, nb, nb - tail) && !memcmp(out, a, ca) &&
                    !memcmp(out + ca, b + nb - tail, tail);
            mixed |= found && ca > 0 && tail < nb;
        }
        CHECK(found, "crossover %zu is not a PSB splice", i);
    }
    CHECK(mixed, "no crossover took a part of both");
}

/* "generate" replaces the input with a model stream: whole packets,
   beginning with a PSB, that ptcodec's stream decoder reads with no error. */
static void generate_writes_a_model_stream(void)
{
    uint8_t in[STREAM_CAP], buf[STREAM_CAP];
    size_t n = clean_stream(8, in, 600), i, seen = 0;
    ptm_init(&mut, 31);
    for (i = 0; i < 4000 && seen < 20; i++) {
        size_t k;
        ptc_decoder dec;
        ptc_item it;
        int errors = 0;
        memcpy(buf, in, n);
        k = ptm_mutate(&mut, buf, n, sizeof buf, NULL, 0);
        if (mut.last_op != PTM_OP_GENERATE) continue;
        seen++;
        CHECK(k >= 16 && !memcmp(buf, "\x02\x82\x02\x82", 4), "generated %zu bytes", k);
        ptc_decoder_init_buffer(&dec, 0, buf, k);
        while (ptc_decoder_next(&dec, &it) == PTC_OK) errors += it.error != PTC_OK && it.error != PTC_ERR_TRUNCATED;
        CHECK(errors == 0, "%d errors in a generated stream", errors);
    }
    CHECK(seen == 20, "generate applied %zu times", seen);
}


/* ---- harness/ptdiff.h's time comparison ---------------------------------- */

/* A timed decoder that gives the truth's times in order, but for one it
   bends: entry `bent_index` given as `bent` instead, and entry
   `skip_index` not given (SIZE_MAX: none). */
static const ptdiff_time *fake_truth;
static size_t fake_n, bent_index, skip_index = SIZE_MAX;
static ptdiff_time bent;

static void *fake_open(const uint8_t *buf, size_t len, const ptc_clock_config *clocks)
{
    static size_t next;
    UTIL_UNUSED(buf);
    UTIL_UNUSED(len);
    UTIL_UNUSED(clocks);
    next = 0;
    return &next;
}

static int fake_next(void *self, ptdiff_time *t)
{
    size_t *next = (size_t *)self;
    if (*next == skip_index) (*next)++;
    if (*next == fake_n) return 0;
    *t = *next == bent_index ? bent : fake_truth[*next];
    (*next)++;
    return 1;
}

static void fake_close(void *self) { UTIL_UNUSED(self); }

static const ptdiff_timed_decoder fake = { "the truth, bent", fake_open, fake_next, fake_close };

/* Whether a packet at the truth's entry i is news (ptdiff_time_news). */
static int news_at(const modelrec_trace *tr, const ptdiff_time *truth, size_t i)
{
    ptc_packet p;
    return ptc_decode_packet(tr->bytes + truth[i].offset, tr->len - truth[i].offset, PTC_BLOCK_NONE, &p) == PTC_OK &&
           ptdiff_time_news(p.type);
}

static void compare_bent(const modelrec_trace *tr, const ptc_clock_config *cc, size_t index, ptdiff_time t, ptdiff_time_result *res)
{
    bent_index = index;
    bent = t;
    CHECK(ptdiff_compare_times(&fake, tr->bytes, tr->len, cc, fake_truth, fake_n, 10, res));
}

static void time_comparison_finds_each_fault_where_it_is(void)
{
    modelrec_trace tr;
    ptc_model_config mc;
    ptc_clock_config cc;
    ptc_model_sink sink;
    ptdiff_time *truth, t;
    ptdiff_time_result base, res;
    char err[200];
    size_t n, k;
    memset(&tr, 0, sizeof tr);
    sink = modelrec_start(&tr, 0);
    CHECK(workload_run_configured(workload_find("dense"), "off", "cyc_en=1", 400000, 3, &sink, &mc, err, sizeof err), "%s", err);
    ptc_clock_config_from_model(&cc, &mc);
    truth = (ptdiff_time *)malloc((tr.nt + 1) * sizeof *truth);
    CHECK(truth != NULL);
    if (!truth) return;
    n = ptdiff_truth_of_model(tr.t, tr.nt, truth);
    CHECK(n > 1000, "%zu packets", n);
    fake_truth = truth;
    fake_n = n;
    /* the truth itself: every time at its packet, none off; it goes back
       only after news (a TNT's first branch before the MTC ahead of it) */
    compare_bent(&tr, &cc, SIZE_MAX, truth[0], &base);
    CHECK(base.times == n && base.compared == n && base.max_err == 0 && base.off == 0 && base.stray == 0);
    CHECK(base.back == 0, "the truth goes back with no news at %llu", (unsigned long long)base.bad.offset);
    CHECK(base.corrected > 0, "the truth never goes back: the rule is not tried");
    /* one time off by more than the tolerance, its neighbours far enough
       for it not to go back or be gone back from */
    for (k = 1; k + 1 < n && !(truth[k].tsc - truth[k - 1].tsc > 30 && truth[k + 1].tsc - truth[k].tsc > 30); k++)
        ;
    CHECK(k + 1 < n);
    t = truth[k];
    t.tsc += 11;
    compare_bent(&tr, &cc, k, t, &res);
    CHECK(res.off == 1 && res.back == 0 && res.stray == 0 && res.max_err == 11);
    CHECK(res.fault == PTDIFF_TIME_OFF && res.bad.offset == truth[k].offset && res.bad_ref == truth[k].tsc);
    t.tsc -= 1; /* within the tolerance: fine */
    compare_bent(&tr, &cc, k, t, &res);
    CHECK(res.off == 0 && res.fault == PTDIFF_TIME_FINE && res.max_err == 10);
    /* one time inside a packet, not at its start */
    for (k = 0; k + 1 < n && truth[k + 1].offset - truth[k].offset < 2; k++)
        ;
    CHECK(k + 1 < n);
    t = truth[k];
    t.offset++;
    compare_bent(&tr, &cc, k, t, &res);
    CHECK(res.stray == 1 && res.compared == n - 1 && res.fault == PTDIFF_TIME_STRAY && res.bad.offset == truth[k].offset + 1);
    /* going back: with no news between the two packets a fault; with news
       (the packet between them given no time) a correction */
    for (k = 1; k < n && (news_at(&tr, truth, k - 1) || news_at(&tr, truth, k) || !truth[k - 1].tsc); k++)
        ;
    CHECK(k < n, "no two neighbours without news");
    t = truth[k];
    t.tsc = truth[k - 1].tsc - 1;
    compare_bent(&tr, &cc, k, t, &res);
    CHECK(res.back == 1 && res.corrected == base.corrected && res.fault == PTDIFF_TIME_BACK &&
          res.bad.offset == truth[k].offset && res.bad_ref == truth[k - 1].tsc);
    for (k = 2; k < n && (!news_at(&tr, truth, k - 1) || news_at(&tr, truth, k - 2) || news_at(&tr, truth, k) ||
                          !truth[k - 2].tsc);
         k++)
        ;
    CHECK(k < n, "no news between two packets without");
    t = truth[k];
    t.tsc = truth[k - 2].tsc - 1;
    skip_index = k - 1;
    compare_bent(&tr, &cc, k, t, &res);
    skip_index = SIZE_MAX;
    /* (the truth's own corrections stay, but one at k: the news before it
       now comes before the time bent back) */
    CHECK(res.corrected == base.corrected + 1 - (truth[k].tsc < truth[k - 1].tsc) && res.back == 0 &&
              res.times == n - 1, "corrected %llu of the truth's %llu, back %llu", (unsigned long long)res.corrected,
          (unsigned long long)base.corrected, (unsigned long long)res.back);
    free(truth);
    modelrec_free(&tr);
}

/* ptdiff_model_run writes what a recorder of the model's sink records: the
   same bytes, the truth ptdiff_truth_of_model gives; with too little room it
   stops at a packet's end, the truth with it, and says so. */
static void model_run_into_the_callers_storage(void)
{
    static uint8_t bytes[1 << 18], small[300];
    static ptdiff_time truth[1 << 15], ref[1 << 15];
    ptdiff_model_stream s = { bytes, sizeof bytes, 0, truth, sizeof truth / sizeof truth[0], 0, 0 };
    ptdiff_model_stream cut = { small, sizeof small, 0, truth, sizeof truth / sizeof truth[0], 0, 0 };
    uint8_t prog[512];
    ptc_model_config cfg;
    ptc_model m;
    ptc_model_sink sink;
    modelrec_trace tr;
    size_t i, n;
    for (i = 0; i < sizeof prog; i++) prog[i] = (uint8_t)(i * 37u + (i >> 3));
    ptc_model_config_default(&cfg);
    cfg.trace.ctl.cyc_en = 1;
    sink = modelrec_start(&tr, 0);
    CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK && modelprog_play(&m, prog, sizeof prog, 300000) == PTC_OK);
    n = ptdiff_truth_of_model(tr.t, tr.nt, ref);
    CHECK(ptdiff_model_run(&cfg, prog, sizeof prog, 300000, &s) == PTC_OK && !s.cut);
    CHECK(s.len == tr.len && s.len > sizeof small && memcmp(s.bytes, tr.bytes, s.len) == 0, "%zu bytes, recorder %zu",
          s.len, tr.len);
    CHECK(s.ntruth == n && memcmp(s.truth, ref, n * sizeof ref[0]) == 0);
    CHECK(ptdiff_model_run(&cfg, prog, sizeof prog, 300000, &cut) == PTC_OK && cut.cut && cut.len <= sizeof small);
    CHECK(cut.len > 0 && memcmp(cut.bytes, tr.bytes, cut.len) == 0 && cut.ntruth < n);
    for (i = 0; i < cut.ntruth; i++) CHECK(cut.truth[i].offset < cut.len);
    CHECK(cut.ntruth < n && ref[cut.ntruth].offset >= cut.len, "the truth runs past the stream's end");
    cfg.trace.ctl.mtc_freq = 16; /* refused: the model's error comes back */
    CHECK(ptdiff_model_run(&cfg, prog, sizeof prog, 300000, &s) == PTC_ERR_BAD_CONFIG);
    modelrec_free(&tr);
}

int main(void)
{
    RUN(every_operator_applies_and_keeps_packets_whole);
    RUN(same_seed_same_outputs);
    RUN(stays_within_the_room_given);
    RUN(a_field_reaches_its_edges);
    RUN(crossover_splices_at_psbs);
    RUN(generate_writes_a_model_stream);
    RUN(time_comparison_finds_each_fault_where_it_is);
    RUN(model_run_into_the_callers_storage);
    TESTLIB_EXIT();
}

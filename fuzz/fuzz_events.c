/* fuzz_events: the events decoder (SPEC.md 3.13) against the full clock
   and against the model's truth. The input's last bytes choose:
   - a model run (fuzz_modelrun.h: configuration, policy, workload
     program) whose trace both decoders time with the model's clock
     configuration, taken in one of 64 ways as fuzz_clock takes it
     (fuzz_clock_config); or
   - the input's front as raw bytes, timed with a configuration drawn from
     the input (any values ptc_clock_init takes).
   Oracles: the events decoder hands out exactly the events the full clock
   hands out (offset, error, packet, IP), in order; the same whether the
   bytes come whole or in chunks of an input-chosen size; points inside
   their intervals, time never going back (G2); on a model run every true
   TSC inside its interval and no conflict. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_modelrun.h"

/* Everything one decoder hands out, at most FUZZ_EVENTS_MAX. */
#define FUZZ_EVENTS_MAX 8192
typedef struct fuzz_answers { ptc_timed_item t[FUZZ_EVENTS_MAX]; size_t n; } fuzz_answers;

static void fuzz_full_clock(const uint8_t *buf, size_t len, unsigned flags, const ptc_clock_config *cc, fuzz_answers *a)
{
    static ptc_clock clk;
    ptc_decoder dec;
    ptc_item it;
    ptc_timed_item t;
    a->n = 0;
    FUZZ_ASSERT(ptc_clock_init(&clk, cc) == PTC_OK, "the full clock refused a configuration the events decoder took");
    ptc_decoder_init_buffer(&dec, flags, buf, len);
    for (;;) {
        ptc_status st = ptc_decoder_next(&dec, &it);
        if (st == PTC_OK) FUZZ_ASSERT(ptc_clock_push(&clk, &it) == PTC_OK, "push refused");
        else ptc_clock_finish(&clk);
        while (ptc_clock_pop(&clk, &t) == PTC_OK)
            if (ptc_events_is_event(&t.item) && a->n < FUZZ_EVENTS_MAX) a->t[a->n++] = t;
        if (st != PTC_OK) break;
    }
}

/* chunk 0: the whole buffer at once */
static void fuzz_events(const uint8_t *buf, size_t len, unsigned flags, const ptc_clock_config *cc, size_t chunk,
                      fuzz_answers *a)
{
    static ptc_events ev;
    ptc_timed_item t;
    ptc_clock_order order;
    size_t at = 0;
    a->n = 0;
    FUZZ_ASSERT(ptc_events_init(&ev, cc, flags, 0) == PTC_OK, "the events decoder refused the configuration");
    ptc_clock_order_init(&order);
    if (!chunk) chunk = len ? len : 1;
    for (;;) {
        ptc_status st = ptc_events_next(&ev, &t);
        if (st == PTC_OK) {
            FUZZ_ASSERT(!t.have_time || (t.tsc_lo <= t.tsc && t.tsc <= t.tsc_hi), "point outside its interval at %llu",
                      (unsigned long long)t.item.offset);
            FUZZ_ASSERT(ptc_clock_order_next(&order, &t), "time goes back at %llu", (unsigned long long)t.item.offset);
            if (a->n < FUZZ_EVENTS_MAX) a->t[a->n++] = t;
            continue;
        }
        if (st == PTC_END) break;
        FUZZ_ASSERT(st == PTC_NEED_INPUT, "ptc_events_next: %s", ptc_status_name(st));
        if (at == len) {
            ptc_events_finish(&ev);
        } else {
            size_t n = len - at < chunk ? len - at : chunk;
            FUZZ_ASSERT(ptc_events_feed(&ev, buf + at, n) == PTC_OK, "feed refused");
            at += n;
        }
    }
}

static int fuzz_same_event(const ptc_timed_item *a, const ptc_timed_item *b)
{
    return a->item.offset == b->item.offset && a->item.error == b->item.error && a->item.ip == b->item.ip &&
           a->item.ip_known == b->item.ip_known && ptc_packet_equal(&a->item.pkt, &b->item.pkt);
}

static int fuzz_same_time(const ptc_timed_item *a, const ptc_timed_item *b)
{
    return a->have_time == b->have_time && a->tsc == b->tsc && a->tsc_lo == b->tsc_lo && a->tsc_hi == b->tsc_hi &&
           a->conflict == b->conflict && a->have_cycles == b->have_cycles && a->cycles == b->cycles;
}

/* Both decoders on one stream; truth (the model's, in stream order) or NULL. */
static void fuzz_compare(const uint8_t *buf, size_t len, unsigned flags, const ptc_clock_config *cc, size_t chunk,
                       const modelrec_trace *truth)
{
    static fuzz_answers full, whole, chunked;
    size_t i, k = 0;
    fuzz_full_clock(buf, len, flags, cc, &full);
    fuzz_events(buf, len, flags, cc, 0, &whole);
    fuzz_events(buf, len, flags, cc, chunk, &chunked);
    FUZZ_ASSERT(whole.n == full.n, "%zu events, the full clock %zu", whole.n, full.n);
    FUZZ_ASSERT(chunked.n == whole.n, "%zu events in chunks of %zu, %zu whole", chunked.n, chunk, whole.n);
    for (i = 0; i < whole.n; i++) {
        const ptc_timed_item *e = &whole.t[i];
        FUZZ_ASSERT(fuzz_same_event(e, &full.t[i]), "event %zu at %llu is not the full clock's (at %llu)", i,
                  (unsigned long long)e->item.offset, (unsigned long long)full.t[i].item.offset);
        FUZZ_ASSERT(fuzz_same_event(e, &chunked.t[i]) && fuzz_same_time(e, &chunked.t[i]),
                  "event %zu at %llu differs in chunks of %zu", i, (unsigned long long)e->item.offset, chunk);
        if (!truth) continue;
        while (k < truth->nt && (!modelrec_in_stream(&truth->t[k]) || !modelrec_item_is(&truth->t[k], &e->item))) k++;
        FUZZ_ASSERT(k < truth->nt, "event at %llu is not in the model's trace", (unsigned long long)e->item.offset);
        if (e->have_time) {
            const ptc_truth *t = &truth->t[k];
            FUZZ_ASSERT(e->tsc_lo <= t->time.tsc &&
                          (t->time.tsc < e->tsc_hi || (t->time.tsc == e->tsc_hi && t->time.num == 0)),
                      "%s at %llu: true TSC %llu not in [%llu, %llu]", ptc_packet_type_name(t->pkt.type),
                      (unsigned long long)t->offset, (unsigned long long)t->time.tsc, (unsigned long long)e->tsc_lo,
                      (unsigned long long)e->tsc_hi);
            FUZZ_ASSERT(!e->conflict, "conflict at %llu in a trace that has none", (unsigned long long)t->offset);
        }
        k++;
    }
}

static void fuzz_model_mode(fuzz_input *in, size_t chunk)
{
    ptc_model_config cfg;
    ptc_clock_config cc;
    modelrec_trace r;
    unsigned how;
    fuzz_model_config(in, &cfg);
    how = fuzz_take(in, 0, 63);
    fuzz_model_run(&cfg, in->data, in->size, &r);
    fuzz_clock_config(&cfg, how, &cc);
    if (!modelrec_skd007_ambiguous(&cfg, &r)) fuzz_compare(r.bytes, r.len, modelrec_decode_flags(&cfg), &cc, chunk, &r);
    modelrec_free(&r);
}

/* Raw bytes with any configuration the clock takes. */
static void fuzz_bytes_mode(fuzz_input *in, size_t chunk)
{
    ptc_clock_config cc;
    unsigned flags;
    ptc_clock_config_default(&cc);
    cc.trace.ctl.mtc_freq = (uint8_t)fuzz_take(in, 0, 15);
    if (fuzz_take(in, 0, 1)) {
        cc.trace.ratios.cpuid_15_eax = fuzz_take(in, 1, 4);
        cc.trace.ratios.cpuid_15_ebx = fuzz_take(in, 1, 600);
    }
    cc.trace.ratios.nom_num = fuzz_take(in, 0, 60);
    cc.trace.ratios.nom_den = 1;
    cc.trace.ratios.nom_exact = (uint8_t)fuzz_take(in, 0, 1);
    cc.trace.cyc_bits = (uint8_t)fuzz_take(in, 1, 64);
    if (fuzz_take(in, 0, 1)) cc.trace.known &= ~(uint32_t)PTC_KNOW_CYC_THRESH;
    else {
        cc.trace.ctl.cyc_thresh = (uint8_t)fuzz_take(in, 0, 15);
        cc.trace.known |= PTC_KNOW_CYC_THRESH;
    }
    cc.real.psb_early_tsc = (uint8_t)fuzz_take(in, 0, 1);
    cc.real.hidden_stops = (uint8_t)fuzz_take(in, 0, 1);
    cc.real.mtc_jitter = (uint8_t)fuzz_take(in, 0, 8);
    cc.real.mtc_lost = (uint8_t)fuzz_take(in, 0, 2);
    cc.real.rate_ppm = fuzz_take(in, 0, 1) ? fuzz_take(in, 0, 100000) : 0;
    cc.trace.errata = fuzz_take(in, 0, PTC_ERRATA_ALL_);
    if (fuzz_take(in, 0, 1)) {
        cc.trace.policy.threshold = (uint8_t)fuzz_take(in, 1, 4);
        cc.trace.policy.resume_after = (uint8_t)fuzz_take(in, 0, 20);
        cc.trace.policy.min_burst = (uint8_t)fuzz_take(in, 1, 4);
    }
    flags = fuzz_take(in, 0, 7);
    fuzz_compare(in->data, in->size, flags, &cc, chunk, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    size_t chunk;
    if (size > 4096) return 0;
    in.data = data;
    in.size = size;
    chunk = fuzz_take(&in, 1, 64);
    if (fuzz_take(&in, 0, 1)) fuzz_bytes_mode(&in, chunk);
    else fuzz_model_mode(&in, chunk);
    return 0;
}

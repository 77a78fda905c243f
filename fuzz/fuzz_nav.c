/* fuzz_nav: navigation against the model's truth (SPEC.md part 4). Fuzz
   input -> model configuration and event program (fuzz_modelrun.h) ->
   trace, and the retirements the model put in it -> a snapshot ring
   (ptc_ring) that holds all of it, or a smaller one that lost its
   beginning and, with a TRIG, stops some bytes after it -> decoded from the
   ring, timed and indexed (ptc_nav_build_ring). Oracles:
   - the index holds exactly the retirements the model wrote from the first
     PSB the ring holds up to where it stopped, in order, at their packets;
   - every true TSC lies in its retirement's TSC interval, and, decoding
     from the start (where cycles count from 0), every true cycle in its
     cycle interval;
   - from every retirement's true cycle and TSC, ptc_nav_find lands on a
     range that holds the last retirement at or before it;
   - stepping back and forth by K lands K away;
   - an index kept to one query's window (tools/navwindow.h, from room for
     one entry) answers that query, and the steps back from its answer, as
     the whole index does. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_modelrun.h"
#include "../tools/navwindow.h"

static int tsc_at_most(const ptc_retire_truth *t, uint64_t v)
{
    return t->time.tsc < v || (t->time.tsc == v && t->time.num == 0);
}

/* The ring indexed again, kept to the window `query` needs. */
static void windowed(const ptc_clock_config *cc, const uint8_t *ring, size_t cap, size_t written, navwin_needed needed,
                     const void *query, navwin_index *x)
{
    ptc_status st = navwin_build_ring(x, cc, ring, cap, written, needed, query, NULL, NULL);
    FUZZ_ASSERT(st == PTC_OK, "window: %s", ptc_status_name(st));
}

/* The answer, and `back` steps before it, from the window and the whole. */
static void same_answers(const ptc_nav *whole, const navwin_index *x, ptc_status sw, const ptc_nav_hit *w, ptc_status sx,
                         const ptc_nav_hit *h, uint64_t back, const char *what)
{
    uint64_t k;
    FUZZ_ASSERT(navwin_same_hit(sw, w, sx, h), "%s: the window answers %s [%llu, %llu], the index %s [%llu, %llu]", what,
              ptc_status_name(sx), (unsigned long long)h->retire_min, (unsigned long long)h->retire,
              ptc_status_name(sw), (unsigned long long)w->retire_min, (unsigned long long)w->retire);
    for (k = 1; sw == PTC_OK && k <= back; k++) {
        ptc_nav_hit a, b;
        ptc_status sa = ptc_nav_step(whole, w->retire, -(int64_t)k, &a);
        ptc_status sb = ptc_nav_step(&x->nav, w->retire, -(int64_t)k, &b);
        FUZZ_ASSERT(navwin_same_hit(sa, &a, sb, &b), "%s: %llu back", what, (unsigned long long)k);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ptc_clock clk;
    static ptc_nav_entry entries[1 << 16];
    static uint8_t ringbuf[1 << 16];
    fuzz_input in;
    ptc_model_config cfg;
    ptc_clock_config cc;
    ptc_nav nav;
    ptc_ring ring;
    modelrec_trace r;
    size_t cut, first = 0, n, i, psb, cap, written, after, k, pick;
    if (size > 4096) return 0;
    in.data = data;
    in.size = size;
    fuzz_model_config(&in, &cfg);
    cut = fuzz_take(&in, 0, 255);
    after = fuzz_take(&in, 0, 2000);
    pick = fuzz_take(&in, 0, 65535);
    fuzz_model_run(&cfg, in.data, in.size, &r);
    if (r.len > sizeof entries / sizeof entries[0] || r.len == 0 || modelrec_skd007_ambiguous(&cfg, &r)) {
        modelrec_free(&r);
        return 0;
    }
    /* a snapshot ring: cut 0..127 one that holds everything; else one of
       cut/256 of the trace, which stops at the first packet boundary
       `after` bytes past a TRIG */
    cap = cut < 128 ? r.len : r.len * cut / 256 + 1;
    FUZZ_ASSERT(ptc_ring_init(&ring, ringbuf, cap) == PTC_OK, "ring");
    written = 0;
    for (k = 0; k < r.nt; k++) {
        const ptc_truth *t = &r.t[k];
        size_t bytes = modelrec_stream_size(t);
        if (!bytes) continue;
        FUZZ_ASSERT(ptc_ring_write(&ring, r.bytes + t->offset, bytes) == bytes, "ring stopped early");
        written = (size_t)(t->offset + bytes);
        if (cut >= 128 && t->pkt.type == PTC_TRIG) {
            size_t stop = written + after;
            while (written < stop && ++k < r.nt) {
                size_t more = modelrec_stream_size(&r.t[k]);
                if (!more) continue;
                FUZZ_ASSERT(ptc_ring_write(&ring, r.bytes + r.t[k].offset, more) == more, "ring");
                written = (size_t)(r.t[k].offset + more);
            }
            break;
        }
    }
    FUZZ_ASSERT(ptc_ring_written(&ring) == written, "ring took %llu of %zu bytes",
              (unsigned long long)ptc_ring_written(&ring), written);
    cut = written > cap ? written - cap : 0; /* the oldest byte kept */
    for (psb = cut; psb + 16 <= written; psb++) /* where the decoder will sync */
        if (memcmp(r.bytes + psb, "\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82", 16) == 0) break;
    if (psb + 16 > written) psb = written; /* none: nothing is decoded */

    ptc_clock_config_from_model(&cc, &cfg);
    FUZZ_ASSERT(ptc_clock_init(&clk, &cc) == PTC_OK, "clock config rejected");
    FUZZ_ASSERT(ptc_nav_init(&nav, &cc, entries, cap) == PTC_OK, "nav init");
    FUZZ_ASSERT(ptc_nav_build_ring(&nav, &clk, ringbuf, cap, written) == PTC_OK, "cap entries must suffice");
    while (first < r.nrt && r.rt[first].offset < psb) first++;
    for (n = 0; first + n < r.nrt && r.rt[first + n].offset < written; n++) {}
    FUZZ_ASSERT(ptc_nav_retirements(&nav) == n, "index has %llu retirements, the model wrote %zu after the cut",
              (unsigned long long)ptc_nav_retirements(&nav), n);
    for (i = 0; i < n; i++) {
        const ptc_retire_truth *t = &r.rt[first + i];
        ptc_nav_hit h;
        size_t want;
        FUZZ_ASSERT(ptc_nav_step(&nav, 0, (int64_t)i, &h) == PTC_OK && h.retire == i, "step to %zu", i);
        FUZZ_ASSERT(h.entry.offset == t->offset && h.bit == t->bit && h.taken == t->taken,
                  "retirement %zu: at %llu bit %u, truth %llu bit %u", i, (unsigned long long)h.entry.offset,
                  h.bit, (unsigned long long)t->offset, t->bit);
        FUZZ_ASSERT(h.entry.tsc_lo <= t->time.tsc && tsc_at_most(t, h.entry.tsc_hi),
                  "retirement %zu: tsc %llu outside [%llu, %llu]", i, (unsigned long long)t->time.tsc,
                  (unsigned long long)h.entry.tsc_lo, (unsigned long long)h.entry.tsc_hi);
        if (psb == 0)
            FUZZ_ASSERT(h.entry.cycle_lo <= t->cycle && t->cycle <= h.entry.cycle_hi,
                      "retirement %zu at %llu: cycle %llu outside [%llu, %llu]", i, (unsigned long long)t->offset,
                      (unsigned long long)t->cycle, (unsigned long long)h.entry.cycle_lo,
                      (unsigned long long)h.entry.cycle_hi);
        /* by TSC: the last retirement whose true TSC is at most v */
        {
            uint64_t v = t->time.tsc + (t->time.num != 0);
            for (want = i; want + 1 < n && tsc_at_most(&r.rt[first + want + 1], v); want++) {}
            FUZZ_ASSERT(ptc_nav_find(&nav, PTC_NAV_TSC, v, 0, &h) == PTC_OK, "tsc query at retirement %zu", i);
            FUZZ_ASSERT(h.retire_min <= want && want <= h.retire, "tsc %llu: answer %zu outside [%llu, %llu]",
                      (unsigned long long)v, want, (unsigned long long)h.retire_min, (unsigned long long)h.retire);
        }
        if (psb == 0) {
            for (want = i; want + 1 < n && r.rt[first + want + 1].cycle <= t->cycle; want++) {}
            FUZZ_ASSERT(ptc_nav_find(&nav, PTC_NAV_CYCLE, t->cycle, 0, &h) == PTC_OK, "cycle query at %zu", i);
            FUZZ_ASSERT(h.retire_min <= want && want <= h.retire, "cycle %llu: answer %zu outside [%llu, %llu]",
                      (unsigned long long)t->cycle, want, (unsigned long long)h.retire_min,
                      (unsigned long long)h.retire);
        }
        if (i >= 3) {
            FUZZ_ASSERT(ptc_nav_step(&nav, i, -3, &h) == PTC_OK && h.retire == i - 3 &&
                          h.entry.offset == r.rt[first + i - 3].offset, "3 back from %zu", i);
        } else {
            FUZZ_ASSERT(ptc_nav_step(&nav, i, -3, &h) == PTC_ERR_NOT_FOUND, "3 back from %zu is before the start", i);
        }
    }
    /* windows: a query by TSC, by cycle and by retirement at a point the
       input picks */
    if (n) {
        const ptc_retire_truth *t = &r.rt[first + pick % n];
        navwin_index x;
        ptc_nav_hit w, h;
        navwin_find f;
        navwin_retire q;
        f.basis = PTC_NAV_TSC;
        f.value = t->time.tsc + pick % 3;
        f.back = pick % 9;
        windowed(&cc, ringbuf, cap, written, navwin_needed_by_find, &f, &x);
        same_answers(&nav, &x, ptc_nav_find(&nav, f.basis, f.value, 0, &w), &w,
                     ptc_nav_find(&x.nav, f.basis, f.value, 0, &h), &h, f.back, "by tsc");
        navwin_free(&x);
        if (cfg.trace.ctl.cyc_en) {
            f.basis = PTC_NAV_CYCLE;
            f.value = psb == 0 ? t->cycle : t->cycle / 2;
            windowed(&cc, ringbuf, cap, written, navwin_needed_by_find, &f, &x);
            same_answers(&nav, &x, ptc_nav_find(&nav, f.basis, f.value, 0, &w), &w,
                         ptc_nav_find(&x.nav, f.basis, f.value, 0, &h), &h, f.back, "by cycle");
            navwin_free(&x);
        }
        q.retire = pick % (n + 2);
        q.back = pick % 5;
        windowed(&cc, ringbuf, cap, written, navwin_needed_by_retire, &q, &x);
        same_answers(&nav, &x, ptc_nav_step(&nav, q.retire, 0, &w), &w, ptc_nav_step(&x.nav, q.retire, 0, &h), &h,
                     q.back, "by retirement");
        navwin_free(&x);
    }
    modelrec_free(&r);
    return 0;
}

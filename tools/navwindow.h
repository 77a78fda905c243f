/* navwindow.h - a navigation index kept to the window one query needs
   (SPEC 4.3): ptc_nav_add, and when the storage is full, ptc_nav_forget of
   what the query cannot need, growing the storage only when that freed
   little. ptnav builds its index so; test_nav and fuzz_nav hold the answers
   to the whole index's. Not thread-safe (one clock). */
#ifndef PTCODEC_NAVWINDOW_H
#define PTCODEC_NAVWINDOW_H

#include "../ptcodec.h"

#include <stdlib.h>
#include <string.h>

#include "../harness/util.h"

/* What the query can need, given the index so far (ptc_nav_window_for_find
   or a window of its own). */
typedef ptc_nav_window (*navwin_needed)(const ptc_nav *nav, const void *query);

typedef struct navwin_index {
    ptc_nav nav;
    ptc_nav_entry *entries; /* malloc'd, `cap` of them */
    size_t cap;
    size_t most;            /* the largest `cap` reached */
} navwin_index;

/* An empty index of `cap` entries to start with (at least 1). */
UTIL_FN ptc_status navwin_init(navwin_index *x, const ptc_clock_config *cc, size_t cap)
{
    x->cap = x->most = cap ? cap : 1;
    x->entries = (ptc_nav_entry *)malloc(x->cap * sizeof *x->entries);
    if (!x->entries) return PTC_ERR_NO_SPACE;
    return ptc_nav_init(&x->nav, cc, x->entries, x->cap);
}

UTIL_FN void navwin_free(navwin_index *x)
{
    free(x->entries);
    x->entries = NULL;
}

/* ptc_nav_add that makes room: PTC_ERR_NO_SPACE only when memory ran out. */
UTIL_FN ptc_status navwin_add(navwin_index *x, const ptc_timed_item *t, navwin_needed needed, const void *query)
{
    ptc_status st = ptc_nav_add(&x->nav, t);
    while (st == PTC_ERR_NO_SPACE) {
        /* a quarter free, or the storage doubles: O(1) amortized per entry */
        if (ptc_nav_forget(&x->nav, needed(&x->nav, query)) < (x->cap + 3) / 4) {
            ptc_nav_entry *more = (ptc_nav_entry *)realloc(x->entries, 2 * x->cap * sizeof *more);
            if (!more) return PTC_ERR_NO_SPACE;
            x->entries = more;
            x->cap *= 2;
            if (x->cap > x->most) x->most = x->cap;
        }
        if (ptc_nav_set_storage(&x->nav, x->entries, x->cap) != PTC_OK) return PTC_ERR_BAD_STATE;
        st = ptc_nav_add(&x->nav, t);
    }
    return st;
}

/* Called with each timed item before the index takes it. */
typedef void (*navwin_on_item)(void *ctx, const ptc_timed_item *t, const ptc_nav *nav);

/* ptc_nav_build_ring kept to a window: decodes the ring (with the decoder
   flags of cc's errata), times it, indexes it into x (navwin_init is done
   here; navwin_free it on every path) and finishes. on_item may be NULL. */
UTIL_FN ptc_status navwin_build_ring(navwin_index *x, const ptc_clock_config *cc, const uint8_t *buf, size_t cap,
                               uint64_t written, navwin_needed needed, const void *query, navwin_on_item on_item, void *ctx)
{
    static ptc_clock clk; /* 60 KiB: not on the stack */
    ptc_ring_reader rd;
    ptc_item it;
    ptc_timed_item t;
    ptc_status st = navwin_init(x, cc, 1);
    if (st == PTC_OK) st = ptc_clock_init(&clk, cc);
    if (st == PTC_OK) st = ptc_ring_reader_init_flags(&rd, buf, cap, written, ptc_errata_decode_flags(cc->trace.errata));
    while (st == PTC_OK && ptc_ring_reader_next(&rd, &it) == PTC_OK) {
        st = ptc_clock_push(&clk, &it);
        while (st == PTC_OK && ptc_clock_pop(&clk, &t) == PTC_OK) {
            if (on_item) on_item(ctx, &t, &x->nav);
            st = navwin_add(x, &t, needed, query);
        }
    }
    if (st != PTC_OK) return st;
    ptc_clock_finish(&clk);
    while (st == PTC_OK && ptc_clock_pop(&clk, &t) == PTC_OK) {
        if (on_item) on_item(ctx, &t, &x->nav);
        st = navwin_add(x, &t, needed, query);
    }
    if (st == PTC_OK) ptc_nav_finish(&x->nav);
    return st;
}

/* The window of ptc_nav_find(basis, value, 0) and `back` steps before it. */
typedef struct navwin_find {
    ptc_nav_basis basis;
    uint64_t value, back;
} navwin_find;

UTIL_FN ptc_nav_window navwin_needed_by_find(const ptc_nav *nav, const void *query)
{
    const navwin_find *f = (const navwin_find *)query;
    return ptc_nav_window_for_find(nav, f->basis, f->value, f->back);
}

/* The window of retirement `retire` (UINT64_MAX: not known yet, any so
   far) and the `back` before it. */
UTIL_FN ptc_nav_window navwin_window_at(const ptc_nav *nav, uint64_t retire, uint64_t back)
{
    ptc_nav_window w;
    uint64_t last = retire == UINT64_MAX ? ptc_nav_retirements(nav) : retire;
    w.to = retire;
    w.from = last > back ? last - back : 0;
    return w;
}

/* Two answers are the same: status, range and the entry with its bounds
   (how a window is held to the whole index). */
UTIL_FN int navwin_same_hit(ptc_status sa, const ptc_nav_hit *a, ptc_status sb, const ptc_nav_hit *b)
{
    return sa == sb && (sa != PTC_OK || (a->retire == b->retire && a->retire_min == b->retire_min &&
                                         a->maybe_none == b->maybe_none && a->bit == b->bit &&
                                         memcmp(&a->entry, &b->entry, sizeof a->entry) == 0));
}

/* The window of retirement `retire` and the `back` before it. */
typedef struct navwin_retire {
    uint64_t retire, back;
} navwin_retire;

UTIL_FN ptc_nav_window navwin_needed_by_retire(const ptc_nav *nav, const void *query)
{
    const navwin_retire *r = (const navwin_retire *)query;
    return navwin_window_at(nav, r->retire, r->back);
}

#endif

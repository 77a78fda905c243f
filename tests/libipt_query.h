/* libipt_query.h - libipt's query decoder with time, each answer tied to
   the packet it belongs to, for every libipt this project builds against.
   Used by bench/timecmp.c (libipt's times against the truth, in a table)
   and fuzz/fuzz_libipt22_time.c (the same, as tools/ptdiff.h's timed
   decoder, under a fuzzer).

   libipt answers queries - a conditional branch, an indirect branch, an
   event - and says the time after each (pt_qry_time), but not which packet
   the answer came from. It reads each kind of packet in stream order, so
   one cursor per kind finds it: a conditional branch is the next bit of
   the TNT being read (the answer to its first bit belongs to the TNT); an
   indirect branch or an async branch the next TIP; an enable the next
   TIP.PGE; a disable the next TIP.PGD; a paging event the next PIP; a
   ptwrite the next PTW. An IP libipt reports must be that packet's IP, or
   the mapping is lost.

   Include after ptcodec.h and <intel-pt.h>. Allocates nothing beyond
   libipt's decoder. */
#ifndef PTCODEC_LIBIPT_QUERY_H
#define PTCODEC_LIBIPT_QUERY_H

#include "../tools/util.h"

#include <stdint.h>
#include <string.h>

/* The next packet of kind a or b from *cur on (SIZE_MAX: none left). */
UT_FN size_t lq__next_of(const ptc_item *items, size_t n, size_t *cur, ptc_packet_type a, ptc_packet_type b)
{
    while (*cur < n && (items[*cur].error != PTC_OK || (items[*cur].pkt.type != a && items[*cur].pkt.type != b)))
        (*cur)++;
    return *cur < n ? (*cur)++ : SIZE_MAX;
}

/* Where libipt's query decoder is in the stream, as packets of each kind. */
typedef struct lq_walk {
    const ptc_item *items; /* ptcodec's packets of the same bytes */
    size_t n;
    size_t tnt, tnt_bits_left, tip, pge, pgd, pip, ptw; /* the cursors */
    size_t answers;        /* the answers libipt gave */
    int lost;              /* an answer did not match its packet */
    uint64_t lost_at;      /* where: the packet's offset (UINT64_MAX: past the last) */
    uint64_t lost_ip;      /*   and the IP libipt gave for it */
} lq_walk;

/* The packet k, when libipt's IP (unless suppressed) is its IP. */
UT_FN size_t lq__match_ip(lq_walk *w, size_t k, uint64_t ip, int suppressed)
{
    if (k == SIZE_MAX || (!suppressed && w->items[k].ip_known && w->items[k].ip != ip)) {
        w->lost = 1;
        w->lost_at = k == SIZE_MAX ? UINT64_MAX : w->items[k].offset;
        w->lost_ip = ip;
        return SIZE_MAX;
    }
    return k;
}

/* The packet an event belongs to (SIZE_MAX: one with no packet of its
   own). A status update at a PSB+ that tracing is off has none: the
   TIP.PGD that disables it comes later and is its own event. */
UT_FN size_t lq__event_packet(lq_walk *w, const struct pt_event *ev)
{
    if (ev->status_update && (ev->type == ptev_disabled || ev->type == ptev_async_disabled)) return SIZE_MAX;
    switch (ev->type) {
    case ptev_enabled:
        return lq__match_ip(w, lq__next_of(w->items, w->n, &w->pge, PTC_TIP_PGE, PTC_TIP_PGE), ev->variant.enabled.ip,
                            ev->ip_suppressed);
    case ptev_disabled: case ptev_async_disabled: return lq__next_of(w->items, w->n, &w->pgd, PTC_TIP_PGD, PTC_TIP_PGD);
    case ptev_async_branch:
        return lq__match_ip(w, lq__next_of(w->items, w->n, &w->tip, PTC_TIP, PTC_TIP), ev->variant.async_branch.to,
                            ev->ip_suppressed);
    case ptev_paging: case ptev_async_paging: return lq__next_of(w->items, w->n, &w->pip, PTC_PIP, PTC_PIP);
    case ptev_ptwrite: return lq__next_of(w->items, w->n, &w->ptw, PTC_PTW, PTC_PTW);
    default: return SIZE_MAX;
    }
}

/* The packet a conditional branch belongs to: the TNT whose first bit it
   is (SIZE_MAX for its other bits; lost when there is no TNT left). */
UT_FN size_t lq__branch_packet(lq_walk *w)
{
    size_t k = SIZE_MAX;
    if (!w->tnt_bits_left) {
        k = lq__next_of(w->items, w->n, &w->tnt, PTC_TNT8, PTC_TNT64);
        if (k == SIZE_MAX) {
            w->lost = 1;
            w->lost_at = UINT64_MAX;
            return k;
        }
        w->tnt_bits_left = w->items[k].pkt.u.tnt.count;
    }
    w->tnt_bits_left--;
    return k;
}

/* Called with every time libipt gives: k is the index in items of the
   packet the answer belongs to, SIZE_MAX for an answer with no packet of
   its own (a TNT's later bits, an event such as a mode change). */
typedef void (*lq_time_fn)(void *user, size_t k, uint64_t tsc);

/* Runs libipt's query decoder on cfg's buffer from its first PSB, with
   items the packets ptcodec decodes from the same bytes, until libipt's
   first error, the end, the mapping is lost or max_answers answers (a
   hang guard: w->answers reaches it). Returns 0 when libipt would not
   start (no decoder), else 1; w tells whether the mapping held. */
UT_FN int lq_times(const struct pt_config *cfg, const ptc_item *items, size_t n, size_t max_answers, lq_time_fn fn,
                   void *user, lq_walk *w)
{
    struct pt_query_decoder *q = pt_qry_alloc_decoder(cfg);
    uint64_t ip = 0;
    int st;
    memset(w, 0, sizeof *w);
    w->items = items;
    w->n = n;
    if (!q) return 0;
    st = pt_qry_sync_forward(q, &ip);
    while (st >= 0 && !w->lost && w->answers < max_answers) {
        uint64_t now = 0;
        size_t k = SIZE_MAX;
        int taken;
        while (st >= 0 && (st & pts_event_pending) && !w->lost && w->answers < max_answers) {
            struct pt_event ev;
            w->answers++;
            st = pt_qry_event(q, &ev, sizeof ev);
            if (st < 0) break;
            k = lq__event_packet(w, &ev);
            if (ev.has_tsc || pt_qry_time(q, &ev.tsc, NULL, NULL) >= 0) fn(user, k, ev.tsc); /* (not every event is stamped) */
        }
        if (st < 0 || (st & pts_eos) || w->lost) break;
        k = SIZE_MAX;
        w->answers++;
        st = pt_qry_cond_branch(q, &taken);
        if (st >= 0) {
            k = lq__branch_packet(w);
            if (w->lost) break;
        } else if (st == -pte_bad_query) {
            st = pt_qry_indirect_branch(q, &ip);
            if (st >= 0) k = lq__match_ip(w, lq__next_of(items, n, &w->tip, PTC_TIP, PTC_TIP), ip, st & pts_ip_suppressed);
            else if (st == -pte_bad_query) { /* neither: an event libipt did not flag (tracing was off) */
                st = pts_event_pending;
                continue;
            }
        }
        if (st < 0 || w->lost) break;
        if (pt_qry_time(q, &now, NULL, NULL) >= 0) fn(user, k, now);
    }
    pt_qry_free_decoder(q);
    return 1;
}

#endif

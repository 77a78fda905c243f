/* libipt_times.h - libipt's decoders with time, each time tied to the
   packet it belongs to, for every libipt this project builds against: the
   query decoder (libipt_times_query_times) and, from libipt 2.1 on, the event
   decoder (libipt_times_event_times). Used by bench/timecmp.c (the query decoder's
   times against the truth, in a table) and fuzz/fuzz_libipt22_time.c
   (both decoders, as harness/ptdiff.h's timed decoders, under a fuzzer).

   libipt says which kind of packet an answer or an event came from but
   not where. It reads each kind in stream order, so one cursor per kind
   finds it: a conditional branch is the next bit of the TNT being read
   (the answer to its first bit belongs to the TNT; the event decoder
   gives one event per TNT); an indirect branch, an async branch or a tip
   event the next TIP; an enable the next TIP.PGE; a disable the next
   TIP.PGD; a paging event the next PIP; a ptwrite the next PTW. An IP
   libipt reports must be that packet's IP, or the mapping is lost.

   Link with libipt. Allocates nothing beyond libipt's decoders. */
#ifndef PTCODEC_LIBIPT_TIMES_H
#define PTCODEC_LIBIPT_TIMES_H

#include "../ptcodec.h"
#include <intel-pt.h>

#include "util.h"

#include <stdint.h>
#include <string.h>

/* The next packet of kind a or b from *cur on (SIZE_MAX: none left). */
UTIL_FN size_t libipt_times__next_of(const ptc_item *items, size_t n, size_t *cur, ptc_packet_type a, ptc_packet_type b)
{
    while (*cur < n && (items[*cur].error != PTC_OK || (items[*cur].pkt.type != a && items[*cur].pkt.type != b)))
        (*cur)++;
    return *cur < n ? (*cur)++ : SIZE_MAX;
}

/* Where libipt's decoder is in the stream, as packets of each kind. */
typedef struct libipt_times_walk {
    const ptc_item *items; /* ptcodec's packets of the same bytes */
    size_t n;
    size_t tnt, tnt_bits_left, tip, pge, pgd, pip, ptw; /* the cursors */
    size_t answers;        /* the answers libipt gave */
    int lost;              /* an answer did not match its packet */
    uint64_t lost_at;      /* where: the packet's offset (UINT64_MAX: past the last) */
    uint64_t lost_ip;      /*   and the IP libipt gave for it */
} libipt_times_walk;

/* The packet k, when libipt's IP (unless suppressed) is its IP. */
UTIL_FN size_t libipt_times__match_ip(libipt_times_walk *w, size_t k, uint64_t ip, int suppressed)
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
   own, or one this mapping leaves out). A status update of the tracing
   state at a PSB+ has none: the PSB+ (with a FUP or without) tells it, and
   the TIP.PGE or TIP.PGD around it are events of their own. A status
   update of paging has the PSB+'s PIP. */
UTIL_FN size_t libipt_times__event_packet(libipt_times_walk *w, const struct pt_event *ev)
{
    if (ev->status_update && (ev->type == ptev_enabled || ev->type == ptev_disabled || ev->type == ptev_async_disabled))
        return SIZE_MAX;
    switch (ev->type) {
    case ptev_enabled:
        return libipt_times__match_ip(w, libipt_times__next_of(w->items, w->n, &w->pge, PTC_TIP_PGE, PTC_TIP_PGE), ev->variant.enabled.ip,
                            ev->ip_suppressed);
    case ptev_disabled: case ptev_async_disabled: return libipt_times__next_of(w->items, w->n, &w->pgd, PTC_TIP_PGD, PTC_TIP_PGD);
    case ptev_async_branch:
        return libipt_times__match_ip(w, libipt_times__next_of(w->items, w->n, &w->tip, PTC_TIP, PTC_TIP), ev->variant.async_branch.to,
                            ev->ip_suppressed);
    case ptev_paging: case ptev_async_paging: return libipt_times__next_of(w->items, w->n, &w->pip, PTC_PIP, PTC_PIP);
    case ptev_ptwrite: return libipt_times__next_of(w->items, w->n, &w->ptw, PTC_PTW, PTC_PTW);
    default: return SIZE_MAX;
    }
}

/* The packet a conditional branch belongs to: the TNT whose first bit it
   is (SIZE_MAX for its other bits; lost when there is no TNT left). */
UTIL_FN size_t libipt_times__branch_packet(libipt_times_walk *w)
{
    size_t k = SIZE_MAX;
    if (!w->tnt_bits_left) {
        k = libipt_times__next_of(w->items, w->n, &w->tnt, PTC_TNT8, PTC_TNT64);
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
typedef void (*libipt_times_time_fn)(void *user, size_t k, uint64_t tsc);

/* Runs libipt's query decoder on cfg's buffer from its first PSB, with
   items the packets ptcodec decodes from the same bytes, until libipt's
   first error, the end, the mapping is lost or max_answers answers (a
   hang guard: w->answers reaches it). Returns 0 when libipt would not
   start (no decoder), else 1; w tells whether the mapping held. */
UTIL_FN int libipt_times_query_times(const struct pt_config *cfg, const ptc_item *items, size_t n, size_t max_answers, libipt_times_time_fn fn,
                   void *user, libipt_times_walk *w)
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
            k = libipt_times__event_packet(w, &ev);
            if (ev.has_tsc || pt_qry_time(q, &ev.tsc, NULL, NULL) >= 0) fn(user, k, ev.tsc); /* (not every event is stamped) */
        }
        if (st < 0 || (st & pts_eos) || w->lost) break;
        k = SIZE_MAX;
        w->answers++;
        st = pt_qry_cond_branch(q, &taken);
        if (st >= 0) {
            k = libipt_times__branch_packet(w);
            if (w->lost) break;
        } else if (st == -pte_bad_query) {
            st = pt_qry_indirect_branch(q, &ip);
            if (st >= 0) k = libipt_times__match_ip(w, libipt_times__next_of(items, n, &w->tip, PTC_TIP, PTC_TIP), ip, st & pts_ip_suppressed);
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

#if LIBIPT_VERSION >= 0x201
/* The event decoder's event ev: the packet it belongs to, as
   libipt_times__event_packet, and a tip's and a tnt's (whose bits must be the TNT's
   count). */
UTIL_FN size_t libipt_times__decoded_event_packet(libipt_times_walk *w, const struct pt_event *ev)
{
    size_t k;
    switch (ev->type) {
    case ptev_tip:
        return libipt_times__match_ip(w, libipt_times__next_of(w->items, w->n, &w->tip, PTC_TIP, PTC_TIP), ev->variant.tip.ip,
                            ev->ip_suppressed);
    case ptev_tnt:
        k = libipt_times__next_of(w->items, w->n, &w->tnt, PTC_TNT8, PTC_TNT64);
        if (k == SIZE_MAX || w->items[k].pkt.u.tnt.count != ev->variant.tnt.size) {
            w->lost = 1;
            w->lost_at = k == SIZE_MAX ? UINT64_MAX : w->items[k].offset;
            return SIZE_MAX;
        }
        return k;
    default: return libipt_times__event_packet(w, ev);
    }
}

/* Runs libipt's event decoder on cfg's buffer from its first PSB, as
   libipt_times_query_times runs the query decoder: fn for every event that has a
   time, until its first error, the end, the mapping is lost or
   max_answers events. */
UTIL_FN int libipt_times_event_times(const struct pt_config *cfg, const ptc_item *items, size_t n, size_t max_answers,
                         libipt_times_time_fn fn, void *user, libipt_times_walk *w)
{
    struct pt_event_decoder *d = pt_evt_alloc_decoder(cfg);
    int st;
    memset(w, 0, sizeof *w);
    w->items = items;
    w->n = n;
    if (!d) return 0;
    st = pt_evt_sync_forward(d);
    while (st >= 0 && !(st & pts_eos) && !w->lost && w->answers < max_answers) {
        struct pt_event ev;
        size_t k;
        w->answers++;
        st = pt_evt_next(d, &ev, sizeof ev);
        if (st < 0) break;
        k = libipt_times__decoded_event_packet(w, &ev);
        if (ev.has_tsc && !w->lost) fn(user, k, ev.tsc);
    }
    pt_evt_free_decoder(d);
    return 1;
}
#endif

#endif

/* modelrec.h - a ptc_model sink that records what the model writes: the
   stream's bytes and the truth of every packet, in buffers that grow as
   needed. For tools, tests, fuzzers and benchmarks (the library itself
   never allocates). With emitted_only set, packets the model generated but
   did not write (suppressed, lost to an overflow) are left out of the
   truth, so t[i] is the i-th packet of the stream. Retirements are kept
   in rt (rt[i].index == i), workload events in ev. Running out of memory
   aborts. */
#ifndef PTCODEC_MODELREC_H
#define PTCODEC_MODELREC_H

#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct mr_trace {
    uint8_t *bytes;
    size_t len, cap;
    ptc_truth *t;
    size_t nt, capt;
    ptc_retire_truth *rt;
    size_t nrt, caprt;
    ptc_event_truth *ev;
    size_t nev, capev;
    int emitted_only;
} mr_trace;

/* Appends one item of `size` bytes to a growing array. */
UT_FN void mr_push(void **arr, size_t *n, size_t *cap, const void *item, size_t size)
{
    if (*n == *cap) {
        *cap = *cap * 2 + 1024;
        *arr = realloc(*arr, *cap * size);
        if (!*arr) abort();
    }
    memcpy((char *)*arr + *n * size, item, size);
    (*n)++;
}

UT_FN void mr_packet(void *user, const uint8_t *bytes, size_t len, const ptc_truth *t)
{
    mr_trace *r = (mr_trace *)user;
    if (r->emitted_only && t->fate != PTC_FATE_EMITTED) return;
    if (r->len + len > r->cap) {
        r->cap = (r->len + len) * 2 + 4096;
        r->bytes = (uint8_t *)realloc(r->bytes, r->cap);
        if (!r->bytes) abort();
    }
    memcpy(r->bytes + r->len, bytes, len);
    r->len += len;
    mr_push((void **)&r->t, &r->nt, &r->capt, t, sizeof *t);
}

UT_FN void mr_retire(void *user, const ptc_retire_truth *rt)
{
    mr_trace *r = (mr_trace *)user;
    mr_push((void **)&r->rt, &r->nrt, &r->caprt, rt, sizeof *rt);
}

UT_FN void mr_event(void *user, const ptc_event_truth *ev)
{
    mr_trace *r = (mr_trace *)user;
    mr_push((void **)&r->ev, &r->nev, &r->capev, ev, sizeof *ev);
}

/* An empty recorder and the sink that fills it. */
UT_FN ptc_model_sink mr_start(mr_trace *r, int emitted_only)
{
    ptc_model_sink s;
    memset(r, 0, sizeof *r);
    r->emitted_only = emitted_only;
    s.user = r;
    s.packet = mr_packet;
    s.event = mr_event;
    s.retire = mr_retire;
    return s;
}

UT_FN void mr_free(mr_trace *r)
{
    free(r->bytes);
    free(r->t);
    free(r->rt);
    free(r->ev);
    memset(r, 0, sizeof *r);
}

#endif

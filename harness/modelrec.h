/* modelrec.h - a ptc_model sink that records what the model writes: the
   stream's bytes and the truth of every packet, in buffers that grow as
   needed. For tools, tests, fuzzers and benchmarks (the library itself
   never allocates). With emitted_only set, packets the model generated but
   did not write (suppressed, lost to an overflow) are left out of the
   truth, so t[i] is the i-th item of the stream decoded with the model's
   errata (modelrec_decode_flags): a CYC cut by erratum SKD007 and a TMA
   corrupted by SKZ84 are there, as the cut_cyc and corrupt_tma errors they
   decode to (modelrec_item_is). Retirements are kept
   in rt (rt[i].index == i), workload events in ev. Running out of memory
   aborts. */
#ifndef PTCODEC_MODELREC_H
#define PTCODEC_MODELREC_H

#include "../ptcodec.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct modelrec_trace {
    uint8_t *bytes;
    size_t len, cap;
    ptc_truth *t;
    size_t nt, capt;
    ptc_retire_truth *rt;
    size_t nrt, caprt;
    ptc_event_truth *ev;
    size_t nev, capev;
    int emitted_only;
} modelrec_trace;

/* The bytes a packet has in the stream (a corrupt TMA: its own and the bogus one). */
UTIL_FN size_t modelrec_stream_size(const ptc_truth *t)
{
    switch (t->fate) {
    case PTC_FATE_EMITTED: return t->pkt.size;
    case PTC_FATE_CUT: return 1;
    case PTC_FATE_CORRUPT: return t->pkt.size + 1u;
    default: return 0;
    }
}

/* Whether a packet reached the stream: whole, or its first byte (a CYC
   cut by erratum SKD007, the model's skd007), or corrupt (a TMA to SKZ84,
   skz84). */
UTIL_FN int modelrec_in_stream(const ptc_truth *t) { return modelrec_stream_size(t) != 0; }

/* Whether an item decoded from the model's stream is the packet t records:
   the packet, or for a cut CYC the cut_cyc error, for a corrupt TMA the
   corrupt_tma error, at its offset. */
UTIL_FN int modelrec_item_is(const ptc_truth *t, const ptc_item *it)
{
    if (it->offset != t->offset) return 0;
    if (t->fate == PTC_FATE_CUT) return it->error == PTC_ERR_CUT_CYC;
    if (t->fate == PTC_FATE_CORRUPT) return it->error == PTC_ERR_CORRUPT_TMA;
    return t->fate == PTC_FATE_EMITTED && it->error == PTC_OK && ptc_packet_equal(&t->pkt, &it->pkt);
}

/* Whether an item's error is one the model's errata write (SKD007's
   cut CYC, SKZ84's corrupt TMA): the stream decodes, nothing is lost. */
UTIL_FN int modelrec_erratum_error(ptc_status error) { return error == PTC_ERR_CUT_CYC || error == PTC_ERR_CORRUPT_TMA; }

/* The stream decoder's flags for a model's stream: its errata's. */
UTIL_FN unsigned modelrec_decode_flags(const ptc_model_config *cfg)
{
    return ptc_errata_decode_flags(cfg->trace.errata);
}

/* Appends one item of `size` bytes to a growing array. */
UTIL_FN void modelrec_push(void **arr, size_t *n, size_t *cap, const void *item, size_t size)
{
    if (*n == *cap) {
        *cap = *cap * 2 + 1024;
        *arr = realloc(*arr, *cap * size);
        if (!*arr) abort();
    }
    memcpy((char *)*arr + *n * size, item, size);
    (*n)++;
}

UTIL_FN void modelrec_packet(void *user, const uint8_t *bytes, size_t len, const ptc_truth *t)
{
    modelrec_trace *r = (modelrec_trace *)user;
    if (r->emitted_only && !modelrec_in_stream(t)) return;
    if (r->len + len > r->cap) {
        r->cap = (r->len + len) * 2 + 4096;
        r->bytes = (uint8_t *)realloc(r->bytes, r->cap);
        if (!r->bytes) abort();
    }
    memcpy(r->bytes + r->len, bytes, len);
    r->len += len;
    modelrec_push((void **)&r->t, &r->nt, &r->capt, t, sizeof *t);
}

UTIL_FN void modelrec_retire(void *user, const ptc_retire_truth *rt)
{
    modelrec_trace *r = (modelrec_trace *)user;
    modelrec_push((void **)&r->rt, &r->nrt, &r->caprt, rt, sizeof *rt);
}

UTIL_FN void modelrec_event(void *user, const ptc_event_truth *ev)
{
    modelrec_trace *r = (modelrec_trace *)user;
    modelrec_push((void **)&r->ev, &r->nev, &r->capev, ev, sizeof *ev);
}

/* An empty recorder and the sink that fills it. */
UTIL_FN ptc_model_sink modelrec_start(modelrec_trace *r, int emitted_only)
{
    ptc_model_sink s;
    memset(r, 0, sizeof *r);
    r->emitted_only = emitted_only;
    s.user = r;
    s.packet = modelrec_packet;
    s.event = modelrec_event;
    s.retire = modelrec_retire;
    return s;
}

/* Erratum SKD007's bytes are ambiguous: a whole 2-byte CYC of 32 to 63
   cycles followed by a CYC of 30 reads as a cut CYC and an OVF. Whether
   the model's stream holds such a pair, which a decoder told of the
   erratum misreads, so that the truth cannot be held to its items (the
   stream's offsets are r's: the model started at offset 0). */
UTIL_FN int modelrec_skd007_ambiguous(const ptc_model_config *cfg, const modelrec_trace *r)
{
    size_t i;
    if (!(cfg->trace.errata & PTC_ERRATUM_SKD007)) return 0;
    for (i = 0; i < r->nt; i++) {
        const ptc_truth *t = &r->t[i];
        uint64_t o = t->offset;
        if (t->fate == PTC_FATE_EMITTED && t->pkt.type == PTC_CYC && t->pkt.size == 2 && o + 2 < r->len &&
            r->bytes[o + 1] == PTC_OP_EXT && r->bytes[o + 2] == PTC_EXT_OVF)
            return 1;
    }
    return 0;
}

UTIL_FN void modelrec_free(modelrec_trace *r)
{
    free(r->bytes);
    free(r->t);
    free(r->rt);
    free(r->ev);
    memset(r, 0, sizeof *r);
}

#endif

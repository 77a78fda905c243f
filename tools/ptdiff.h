/* ptdiff.h - a differential fuzz harness for any Intel PT packet decoder,
   held to ptcodec's (fuzz/README.md, "Fuzzing your decoder").

   You write an adaptor for your decoder: a pd_decoder whose next() gives
   its packets in order, read from offset 0, as ptcodec names them (type,
   offset, size), or the error it stops with (and where), or the end.
   pd_compare() walks ptcodec's packet decoder over the same bytes beside
   it and reports the first place where the two differ: another packet, a
   packet against an error, or another kind of error. Known, deliberate
   differences go into your allowlist: an array of pd_allow, each naming
   what ptcodec read there, what each side said, and why it is not a bug;
   the walk ends at an allowed difference (what follows may rightly differ
   too). fuzz/fuzz_libipt22.c is a worked example (libipt 2.2's packet
   decoder); fuzz/fuzz_diff_libipt.c compares libipt 2.0.5 field by field
   with the list in tests/libipt_allowlist.h.

   Include after ptcodec.h (with its implementation). Allocates nothing;
   your adaptor may. */
#ifndef PTCODEC_PTDIFF_H
#define PTCODEC_PTDIFF_H

#include "util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* What a decoder said at an offset. */
typedef enum pd_said {
    PD_PACKET,    /* a packet */
    PD_TRUNCATED, /* the input ended inside a packet */
    PD_MALFORMED, /* bytes that are no packet */
    PD_OTHER,     /* any other error */
    PD_END        /* the input ended between packets */
} pd_said;

typedef struct pd_step {
    pd_said said;
    uint64_t offset;      /* of the packet, or where the error is */
    unsigned size;        /* a packet's size */
    ptc_packet_type type; /* a packet's type as ptcodec names it (PTC_NONE: one ptcodec has no name for) */
} pd_step;

/* Your decoder: open() on buf[0, len) from offset 0 (NULL: it refused),
   next() once per step until it says anything but PD_PACKET, close(). */
typedef struct pd_decoder {
    const char *name;
    void *(*open)(const uint8_t *buf, size_t len);
    pd_said (*next)(void *self, pd_step *step);
    void (*close)(void *self);
} pd_decoder;

/* One known difference: where ptcodec read a packet of type ours_type
   (PTC_NONE: where it reported an error) and said ours, the decoder under
   test said theirs; and, when `when` is not NULL, only where when()
   agrees (given the bytes and the offset). */
typedef struct pd_allow {
    ptc_packet_type ours_type;
    pd_said ours, theirs;
    int (*when)(const uint8_t *buf, size_t len, uint64_t offset);
    const char *why;
} pd_allow;

/* What pd_compare found. */
typedef struct pd_result {
    int differ;           /* 1: a difference the allowlist does not name */
    const pd_allow *allowed; /* the entry that ended the walk, or NULL */
    uint64_t packets;     /* packets both read alike */
    pd_step ours, theirs; /* the two steps where the walk ended */
} pd_result;

UT_FN const char *pd_said_name(pd_said s)
{
    static const char *const names[] = { "packet", "truncated", "malformed", "other error", "end" };
    return (unsigned)s <= PD_END ? names[s] : "?";
}

/* What a ptcodec status says, as the classes every decoder is held to. */
UT_FN pd_said pd_said_of_status(ptc_status st)
{
    switch (st) {
    case PTC_OK: return PD_PACKET;
    case PTC_ERR_TRUNCATED: return PD_TRUNCATED;
    case PTC_ERR_BAD_OPCODE: case PTC_ERR_BAD_IPBYTES: case PTC_ERR_RESERVED: case PTC_ERR_BAD_PSB:
    case PTC_ERR_EMPTY_TNT: case PTC_ERR_CYC_OVERFLOW: return PD_MALFORMED;
    default: return PD_OTHER;
    }
}

/* ptcodec's step at `off` (block context ctx), as a pd_step. */
UT_FN pd_step pd_ours(const uint8_t *buf, size_t len, uint64_t off, ptc_block_ctx *ctx)
{
    pd_step s;
    ptc_packet p;
    ptc_status st;
    memset(&s, 0, sizeof s);
    s.offset = off;
    if (off >= len) {
        s.said = PD_END;
        return s;
    }
    st = ptc_decode_packet(buf + off, len - off, *ctx, &p);
    switch (st) {
    case PTC_OK:
        s.said = PD_PACKET;
        s.size = p.size;
        s.type = p.type;
        *ctx = ptc_block_ctx_after(*ctx, &p);
        break;
    default: s.said = pd_said_of_status(st); break;
    }
    return s;
}

UT_FN int pd_same(const pd_step *a, const pd_step *b)
{
    if (a->said != b->said || a->offset != b->offset) return 0;
    return a->said != PD_PACKET || (a->type == b->type && a->size == b->size);
}

UT_FN const pd_allow *pd_find_allowed(const pd_allow *allow, size_t nallow, const uint8_t *buf, size_t len,
                                      const pd_step *ours, const pd_step *theirs)
{
    size_t i;
    for (i = 0; i < nallow; i++) {
        const pd_allow *a = &allow[i];
        if (a->ours == ours->said && a->theirs == theirs->said &&
            (a->ours_type == PTC_NONE ? ours->said != PD_PACKET : a->ours_type == ours->type) &&
            (!a->when || a->when(buf, len, ours->offset)))
            return a;
    }
    return NULL;
}

/* Walks both decoders over buf[0, len) until they differ or one stops.
   Returns 1 when the decoder under test opened, else 0 (res untouched). */
UT_FN int pd_compare(const pd_decoder *dec, const uint8_t *buf, size_t len, const pd_allow *allow, size_t nallow,
                     pd_result *res)
{
    void *self = dec->open(buf, len);
    ptc_block_ctx ctx = PTC_BLOCK_NONE;
    uint64_t off = 0;
    if (!self) return 0;
    memset(res, 0, sizeof *res);
    for (;;) {
        res->ours = pd_ours(buf, len, off, &ctx);
        memset(&res->theirs, 0, sizeof res->theirs);
        dec->next(self, &res->theirs);
        if (!pd_same(&res->ours, &res->theirs)) {
            res->allowed = pd_find_allowed(allow, nallow, buf, len, &res->ours, &res->theirs);
            res->differ = res->allowed == NULL;
            break;
        }
        if (res->ours.said != PD_PACKET) break;
        res->packets++;
        off += res->ours.size;
    }
    dec->close(self);
    return 1;
}

/* "ptcodec: tnt8 at 12 (1 byte); libipt 2.2: malformed at 12" */
UT_FN void pd_describe(const pd_decoder *dec, const pd_result *res, char *out, size_t cap)
{
    const pd_step *s[2];
    const char *who[2];
    size_t n = 0;
    int i;
    s[0] = &res->ours;
    s[1] = &res->theirs;
    who[0] = "ptcodec";
    who[1] = dec->name;
    for (i = 0; i < 2 && n < cap; i++) {
        int w;
        if (s[i]->said == PD_PACKET)
            w = snprintf(out + n, cap - n, "%s%s: %s at %llu (%u bytes)", i ? "; " : "", who[i],
                         ptc_packet_type_name(s[i]->type), (unsigned long long)s[i]->offset, s[i]->size);
        else
            w = snprintf(out + n, cap - n, "%s%s: %s at %llu", i ? "; " : "", who[i], pd_said_name(s[i]->said),
                         (unsigned long long)s[i]->offset);
        if (w < 0) break;
        n += (size_t)w;
    }
}

#endif

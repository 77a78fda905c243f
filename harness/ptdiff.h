/* ptdiff.h - a differential fuzz harness for any Intel PT packet decoder,
   held to ptcodec's (fuzz/README.md, "Fuzzing your decoder").

   You write an adaptor for your decoder: a ptdiff_decoder whose next() gives
   its packets in order, read from offset 0, as ptcodec names them (type,
   offset, size), or the error it stops with (and where), or the end.
   ptdiff_compare() walks ptcodec's packet decoder over the same bytes beside
   it and reports the first place where the two differ: another packet, a
   packet against an error, or another kind of error. Known, deliberate
   differences go into your allowlist: an array of ptdiff_allow, each naming
   what ptcodec read there, what each side said, and why it is not a bug;
   the walk ends at an allowed difference (what follows may rightly differ
   too). fuzz/fuzz_libipt22.c is a worked example (libipt 2.2's packet
   decoder); fuzz/fuzz_diff_libipt.c compares libipt 2.0.5 field by field
   with the list in harness/libipt_allowlist.h.

   Times too, when your decoder gives them: a ptdiff_timed_decoder whose
   next() gives (packet offset, TSC) pairs. ptdiff_compare_times() holds them
   to the true time of each packet, which a stream written by ptcodec's
   model carries (ptc_truth; ptdiff_truth_of_model), and counts the times off
   by more than your tolerance, the times that go back, and the times at
   no packet. fuzz/fuzz_libipt22_time.c is the worked example (libipt
   2.2's query decoder, on the model's streams).

   It includes ptcodec.h; one file of the program defines
   PTCODEC_IMPLEMENTATION before including either. Allocates nothing; your
   adaptor may. */
#ifndef PTCODEC_PTDIFF_H
#define PTCODEC_PTDIFF_H

#include "../ptcodec.h"

#include "modelprog.h"
#include "util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* What a decoder said at an offset. */
typedef enum ptdiff_said {
    PTDIFF_PACKET,    /* a packet */
    PTDIFF_TRUNCATED, /* the input ended inside a packet */
    PTDIFF_MALFORMED, /* bytes that are no packet */
    PTDIFF_OTHER,     /* any other error */
    PTDIFF_END        /* the input ended between packets */
} ptdiff_said;

typedef struct ptdiff_step {
    ptdiff_said said;
    uint64_t offset;      /* of the packet, or where the error is */
    unsigned size;        /* a packet's size */
    ptc_packet_type type; /* a packet's type as ptcodec names it (PTC_NONE: one ptcodec has no name for) */
} ptdiff_step;

/* Your decoder: open() on buf[0, len) from offset 0 (NULL: it refused),
   next() once per step until it says anything but PTDIFF_PACKET, close(). */
typedef struct ptdiff_decoder {
    const char *name;
    void *(*open)(const uint8_t *buf, size_t len);
    ptdiff_said (*next)(void *self, ptdiff_step *step);
    void (*close)(void *self);
} ptdiff_decoder;

/* One known difference: where ptcodec read a packet of type ours_type
   (PTC_NONE: where it reported an error) and said ours, the decoder under
   test said theirs; and, when `when` is not NULL, only where when()
   agrees (given the bytes and the offset). */
typedef struct ptdiff_allow {
    ptc_packet_type ours_type;
    ptdiff_said ours, theirs;
    int (*when)(const uint8_t *buf, size_t len, uint64_t offset);
    const char *why;
} ptdiff_allow;

/* What ptdiff_compare found. */
typedef struct ptdiff_result {
    int differ;           /* 1: a difference the allowlist does not name */
    const ptdiff_allow *allowed; /* the entry that ended the walk, or NULL */
    uint64_t packets;     /* packets both read alike */
    ptdiff_step ours, theirs; /* the two steps where the walk ended */
} ptdiff_result;

UTIL_FN const char *ptdiff_said_name(ptdiff_said s)
{
    static const char *const names[] = { "packet", "truncated", "malformed", "other error", "end" };
    return (unsigned)s <= PTDIFF_END ? names[s] : "?";
}

/* What a ptcodec status says, as the classes every decoder is held to. */
UTIL_FN ptdiff_said ptdiff_said_of_status(ptc_status st)
{
    switch (st) {
    case PTC_OK: return PTDIFF_PACKET;
    case PTC_ERR_TRUNCATED: return PTDIFF_TRUNCATED;
    case PTC_ERR_BAD_OPCODE: case PTC_ERR_BAD_IPBYTES: case PTC_ERR_RESERVED: case PTC_ERR_BAD_PSB:
    case PTC_ERR_EMPTY_TNT: case PTC_ERR_CYC_OVERFLOW: return PTDIFF_MALFORMED;
    default: return PTDIFF_OTHER;
    }
}

/* ptcodec's step at `off` (block context ctx), as a ptdiff_step. */
UTIL_FN ptdiff_step ptdiff_ours(const uint8_t *buf, size_t len, uint64_t off, ptc_block_ctx *ctx)
{
    ptdiff_step s;
    ptc_packet p;
    ptc_status st;
    memset(&s, 0, sizeof s);
    s.offset = off;
    if (off >= len) {
        s.said = PTDIFF_END;
        return s;
    }
    st = ptc_decode_packet(buf + off, len - off, *ctx, &p);
    switch (st) {
    case PTC_OK:
        s.said = PTDIFF_PACKET;
        s.size = p.size;
        s.type = p.type;
        *ctx = ptc_block_ctx_after(*ctx, &p);
        break;
    default: s.said = ptdiff_said_of_status(st); break;
    }
    return s;
}

UTIL_FN int ptdiff_same(const ptdiff_step *a, const ptdiff_step *b)
{
    if (a->said != b->said || a->offset != b->offset) return 0;
    return a->said != PTDIFF_PACKET || (a->type == b->type && a->size == b->size);
}

UTIL_FN const ptdiff_allow *ptdiff_find_allowed(const ptdiff_allow *allow, size_t nallow, const uint8_t *buf, size_t len,
                                      const ptdiff_step *ours, const ptdiff_step *theirs)
{
    size_t i;
    for (i = 0; i < nallow; i++) {
        const ptdiff_allow *a = &allow[i];
        if (a->ours == ours->said && a->theirs == theirs->said &&
            (a->ours_type == PTC_NONE ? ours->said != PTDIFF_PACKET : a->ours_type == ours->type) &&
            (!a->when || a->when(buf, len, ours->offset)))
            return a;
    }
    return NULL;
}

/* Walks both decoders over buf[0, len) until they differ or one stops.
   Returns 1 when the decoder under test opened, else 0 (res untouched). */
UTIL_FN int ptdiff_compare(const ptdiff_decoder *dec, const uint8_t *buf, size_t len, const ptdiff_allow *allow, size_t nallow,
                     ptdiff_result *res)
{
    void *self = dec->open(buf, len);
    ptc_block_ctx ctx = PTC_BLOCK_NONE;
    uint64_t off = 0;
    if (!self) return 0;
    memset(res, 0, sizeof *res);
    for (;;) {
        res->ours = ptdiff_ours(buf, len, off, &ctx);
        memset(&res->theirs, 0, sizeof res->theirs);
        dec->next(self, &res->theirs);
        if (!ptdiff_same(&res->ours, &res->theirs)) {
            res->allowed = ptdiff_find_allowed(allow, nallow, buf, len, &res->ours, &res->theirs);
            res->differ = res->allowed == NULL;
            break;
        }
        if (res->ours.said != PTDIFF_PACKET) break;
        res->packets++;
        off += res->ours.size;
    }
    dec->close(self);
    return 1;
}

/* "ptcodec: tnt8 at 12 (1 byte); libipt 2.2: malformed at 12" */
UTIL_FN void ptdiff_describe(const ptdiff_decoder *dec, const ptdiff_result *res, char *out, size_t cap)
{
    const ptdiff_step *s[2];
    const char *who[2];
    size_t n = 0;
    int i;
    s[0] = &res->ours;
    s[1] = &res->theirs;
    who[0] = "ptcodec";
    who[1] = dec->name;
    for (i = 0; i < 2 && n < cap; i++) {
        int w;
        if (s[i]->said == PTDIFF_PACKET)
            w = snprintf(out + n, cap - n, "%s%s: %s at %llu (%u bytes)", i ? "; " : "", who[i],
                         ptc_packet_type_name(s[i]->type), (unsigned long long)s[i]->offset, s[i]->size);
        else
            w = snprintf(out + n, cap - n, "%s%s: %s at %llu", i ? "; " : "", who[i], ptdiff_said_name(s[i]->said),
                         (unsigned long long)s[i]->offset);
        if (w < 0) break;
        n += (size_t)w;
    }
}

/* ---- Times against the truth ------------------------------------------ */

/* A time: the offset of the packet it belongs to and a TSC. A TNT's time
   is its first branch's (SPEC 3.1). */
typedef struct ptdiff_time {
    uint64_t offset;
    uint64_t tsc;
} ptdiff_time;

/* Your decoder with time: open() on buf[0, len) with the trace's clocks
   (ptcodec's words for them: take what your decoder is told, as perf
   records it - mtc_freq, the CPUID 0x15 ratio, nom_num / nom_den rounded
   to the MSR's integer, cyc_en and cyc_thresh; NULL: it refused), next()
   once per time it gives, in the order it gives them, until it returns 0,
   then close(). */
typedef struct ptdiff_timed_decoder {
    const char *name;
    void *(*open)(const uint8_t *buf, size_t len, const ptc_clock_config *clocks);
    int (*next)(void *self, ptdiff_time *t);
    void (*close)(void *self);
} ptdiff_timed_decoder;

/* What is wrong with a time. */
typedef enum ptdiff_time_fault {
    PTDIFF_TIME_FINE,
    PTDIFF_TIME_OFF,   /* off its packet's truth by more than the tolerance */
    PTDIFF_TIME_BACK,  /* before the time the decoder gave before it, with no news from
                      that one's packet on (ptdiff_time_news) */
    PTDIFF_TIME_STRAY  /* at an offset where no packet starts */
} ptdiff_time_fault;

UTIL_FN const char *ptdiff_time_fault_name(ptdiff_time_fault f)
{
    static const char *const names[] = { "fine", "off by more than the tolerance", "goes back", "at no packet" };
    return (unsigned)f <= PTDIFF_TIME_STRAY ? names[f] : "?";
}

/* What ptdiff_compare_times found. */
typedef struct ptdiff_time_result {
    uint64_t times;       /* the times the decoder gave */
    uint64_t compared;    /* those at a packet the truth has */
    uint64_t off, back, stray; /* the times with each fault (one time may have two) */
    uint64_t corrected;   /* times before the one before them, after news: not a fault */
    uint64_t max_err;     /* the largest error of those compared, in TSC ticks */
    double sum_err;       /* (the mean: sum_err / compared) */
    ptdiff_time_fault fault;  /* the first fault found, */
    ptdiff_time bad;          /*   the time that has it */
    uint64_t bad_ref;     /*   and what it was held to: its packet's true TSC (PTDIFF_TIME_OFF),
                               the time before it (PTDIFF_TIME_BACK) */
} ptdiff_time_result;

/* The truth of a model's stream as ptdiff_times: the true TSC of each packet
   written whole, in stream order (packets the model generated but did not
   write, a CYC cut by SKD007 and a TMA corrupted by SKZ84 left out). out
   has room for nt; returns how many it holds. */
UTIL_FN size_t ptdiff_truth_of_model(const ptc_truth *t, size_t nt, ptdiff_time *out)
{
    size_t i, n = 0;
    for (i = 0; i < nt; i++) {
        if (t[i].fate != PTC_FATE_EMITTED) continue;
        out[n].offset = t[i].offset;
        out[n].tsc = t[i].time.tsc;
        n++;
    }
    return n;
}

/* A stream the model writes, with its truth, in the caller's storage:
   what ptdiff_compare_times needs, with no recorder of your own. */
typedef struct ptdiff_model_stream {
    uint8_t *bytes;       /* room for cap bytes; len of them written */
    size_t cap, len;
    ptdiff_time *truth;       /* room for truth_cap; ntruth written, as ptdiff_truth_of_model gives them */
    size_t truth_cap, ntruth;
    int cut;              /* the run wrote more than the room: the stream ends at the
                             last packet that fitted, and its truth with it */
} ptdiff_model_stream;

UTIL_FN void ptdiff__model_packet(void *user, const uint8_t *bytes, size_t len, const ptc_truth *t)
{
    ptdiff_model_stream *s = (ptdiff_model_stream *)user;
    int whole = t->fate == PTC_FATE_EMITTED;
    if (s->cut || len > s->cap - s->len || (whole && s->ntruth == s->truth_cap)) {
        s->cut = 1;
        return;
    }
    memcpy(s->bytes + s->len, bytes, len);
    s->len += len;
    if (whole) {
        s->truth[s->ntruth].offset = t->offset;
        s->truth[s->ntruth].tsc = t->time.tsc;
        s->ntruth++;
    }
}

/* Plays prog[0, n), a workload program (harness/modelprog.h: two bytes an
   event, as the mutator plays its input), on a model configured by cfg,
   into s (set bytes, cap, truth and truth_cap; the rest is reset). Idle
   events draw from `budget` cycles. PTC_OK, or ptc_model_init's error for
   a configuration it refuses. */
UTIL_FN ptc_status ptdiff_model_run(const ptc_model_config *cfg, const uint8_t *prog, size_t n, uint64_t budget,
                              ptdiff_model_stream *s)
{
    ptc_model m;
    ptc_model_sink sink;
    ptc_status st;
    s->len = s->ntruth = 0;
    s->cut = 0;
    memset(&sink, 0, sizeof sink);
    sink.user = s;
    sink.packet = ptdiff__model_packet;
    st = ptc_model_init(&m, cfg, &sink);
    return st == PTC_OK ? modelprog_play(&m, prog, n, budget) : st;
}

/* The truth's entry at offset (truth sorted by offset), or NULL. */
UTIL_FN const ptdiff_time *ptdiff__truth_at(const ptdiff_time *truth, size_t n, uint64_t offset)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (truth[mid].offset < offset) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && truth[lo].offset == offset ? &truth[lo] : NULL;
}

/* Packets that tell a decoder more about the time, so that it may correct
   an estimate and give a time before the one it gave before: the timing
   packets (TSC, TMA, MTC, CYC), a CBR (a new core-to-bus ratio), an OVF
   (packets were lost) and a PSB (its PSB+ is one instant, its TSC's, which
   may come after packets of the PSB+ a decoder times by it). */
UTIL_FN int ptdiff_time_news(ptc_packet_type t)
{
    return ptc_packet_is_timing(t) || t == PTC_CBR || t == PTC_OVF || t == PTC_PSB;
}

/* Whether there is news from the packet at offset from (itself included)
   up to the packet at offset to (to after from): the truth goes back there
   too, where a TNT's first branch came before the MTC or CYC just ahead of
   its packet (SPEC 3.1). Bytes ptcodec cannot read there count as news: a
   decoder may have synchronized again after them. */
UTIL_FN int ptdiff__news_between(const uint8_t *buf, size_t len, uint64_t from, uint64_t to)
{
    ptc_block_ctx ctx = PTC_BLOCK_NONE;
    uint64_t off = from;
    ptc_packet p;
    if (to <= from) return 0;
    while (off < to && off < len) {
        if (ptc_decode_packet(buf + off, len - off, ctx, &p) != PTC_OK) return 1;
        if (ptdiff_time_news(p.type)) return 1;
        ctx = ptc_block_ctx_after(ctx, &p);
        off += p.size;
    }
    return 0;
}

UTIL_FN void ptdiff__time_fault(ptdiff_time_result *res, ptdiff_time_fault f, const ptdiff_time *t, uint64_t ref)
{
    if (f == PTDIFF_TIME_OFF) res->off++;
    else if (f == PTDIFF_TIME_BACK) res->back++;
    else res->stray++;
    if (res->fault != PTDIFF_TIME_FINE) return;
    res->fault = f;
    res->bad = *t;
    res->bad_ref = ref;
}

/* Runs the decoder under test over buf[0, len) and holds each time it
   gives to the truth (n entries sorted by offset, as ptdiff_truth_of_model
   gives them): off by more than tolerance TSC ticks, before the time given
   before it with no news between, or at no packet. Returns 1 when the decoder opened, else 0
   (res untouched). */
UTIL_FN int ptdiff_compare_times(const ptdiff_timed_decoder *dec, const uint8_t *buf, size_t len,
                           const ptc_clock_config *clocks, const ptdiff_time *truth, size_t n, uint64_t tolerance,
                           ptdiff_time_result *res)
{
    void *self = dec->open(buf, len, clocks);
    ptdiff_time t, last;
    if (!self) return 0;
    memset(res, 0, sizeof *res);
    memset(&last, 0, sizeof last);
    while (dec->next(self, &t)) {
        const ptdiff_time *at = ptdiff__truth_at(truth, n, t.offset);
        if (res->times++ && t.tsc < last.tsc) {
            if (ptdiff__news_between(buf, len, last.offset, t.offset)) res->corrected++;
            else ptdiff__time_fault(res, PTDIFF_TIME_BACK, &t, last.tsc);
        }
        last = t;
        if (!at) {
            ptdiff__time_fault(res, PTDIFF_TIME_STRAY, &t, 0);
            continue;
        }
        {
            uint64_t err = t.tsc >= at->tsc ? t.tsc - at->tsc : at->tsc - t.tsc;
            res->compared++;
            res->sum_err += (double)err;
            if (err > res->max_err) res->max_err = err;
            if (err > tolerance) ptdiff__time_fault(res, PTDIFF_TIME_OFF, &t, at->tsc);
        }
    }
    dec->close(self);
    return 1;
}

/* "libipt 2.2: 120 times, 118 at packets, max error 40, mean 3.1; 0 off
   by more, 1 back (and 2 corrected after news), 0 stray; the first: the
   time 1234 at 56 goes back (the time before 1240)" */
UTIL_FN void ptdiff_describe_times(const ptdiff_timed_decoder *dec, const ptdiff_time_result *res, char *out, size_t cap)
{
    int more, w = snprintf(out, cap, "%s: %llu times, %llu at packets, max error %llu, mean %.1f; %llu off by more, "
                           "%llu back (and %llu corrected after news), %llu stray", dec->name,
                           (unsigned long long)res->times, (unsigned long long)res->compared,
                           (unsigned long long)res->max_err, res->compared ? res->sum_err / (double)res->compared : 0.0,
                           (unsigned long long)res->off, (unsigned long long)res->back,
                           (unsigned long long)res->corrected, (unsigned long long)res->stray);
    if (w < 0 || (size_t)w >= cap || res->fault == PTDIFF_TIME_FINE) return;
    more = snprintf(out + w, cap - (size_t)w, "; the first: the time %llu at %llu %s", (unsigned long long)res->bad.tsc,
                    (unsigned long long)res->bad.offset, ptdiff_time_fault_name(res->fault));
    if (more < 0 || (size_t)(w += more) >= cap || res->fault == PTDIFF_TIME_STRAY) return;
    snprintf(out + w, cap - (size_t)w, " (%s %llu)", res->fault == PTDIFF_TIME_OFF ? "the truth" : "the time before",
             (unsigned long long)res->bad_ref);
}

#endif

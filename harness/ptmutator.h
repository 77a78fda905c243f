/* ptmutator.h - a mutator that knows Intel PT packets, for fuzzing any PT
   decoder with libFuzzer, AFL++ or any driver of your own.

   Byte-level mutation rarely makes a valid packet out of a valid packet:
   it breaks an opcode or a length and the decoder under test stops at its
   first error. This mutator reads its input as packets (ptcodec's decoder;
   bytes that are no packet stay as one-byte units) and changes whole
   packets with ptcodec's encoder, which refuses what it cannot represent,
   so that most outputs are valid streams or break one rule on purpose:

     insert, delete, duplicate, move, replace   a whole packet
     field            one field to an edge (0, 1, the largest value the
                      encoder accepts, one less) or a random value
     ip_compression   a TIP/FUP's IPBytes changed (16, 32, 48 bits, full)
     psb_plus         a whole PSB+ (PSB, TSC, TMA, CBR, MODE.Exec, FUP, PSBEND)
     psb_break        a PSB+ broken: its PSBEND dropped, a TNT inside it, or
                      a PSBEND where none belongs
     ovf              an OVF with the FUP that follows it, or alone
     splice           the first input up to one of its PSBs, then a second
                      input from one of its PSBs
     cut              a packet cut short: the stream ends inside it, or the
                      rest of the stream follows its first bytes
     generate         a fresh valid timed stream: ptcodec's hardware model
                      running the input's bytes as a workload program
                      (harness/modelprog.h)
     bytes            byte-level mutation (the engine's own, when it gives one)

   Deterministic: the same seed and the same input give the same output.
   Allocates nothing: it works in the caller's buffer, with its state (and
   an index of the first PTM_MAX_UNITS packets) in a ptm_mutator.

   Use: include it (it includes ptcodec.h), with PTCODEC_IMPLEMENTATION
   defined first in one file of the program.
     - libFuzzer: #define PTM_LIBFUZZER_HOOKS before including it in your
       harness's file; it defines LLVMFuzzerCustomMutator and
       LLVMFuzzerCustomCrossOver (byte-level steps go to LLVMFuzzerMutate).
     - AFL++: build fuzz/afl_mutator.c as a shared library (make fuzz:
       build/afl/ptcodec-mutator.so) and set AFL_CUSTOM_MUTATOR_LIBRARY.
     - Anything else: ptm_init, then ptm_mutate / ptm_crossover.
   fuzz/README.md ("Fuzzing your decoder") says more. */
#ifndef PTCODEC_PTMUTATOR_H
#define PTCODEC_PTMUTATOR_H

#include "../ptcodec.h"

#include "pktgen.h"
#include "modelprog.h"
#include "ptfields.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The operators: X(enum, name, weight, whole). The weights favour changes
   that keep a stream valid; the ones that break it break one thing. whole:
   applied to a stream of whole packets, the operator always gives one
   again (up to a BBP it puts in: see ptm_whole_packets). */
#define PTM_OP_LIST(X) \
    X(PTM_OP_INSERT,         "insert",         14, 1) \
    X(PTM_OP_DELETE,         "delete",         10, 1) \
    X(PTM_OP_DUPLICATE,      "duplicate",       8, 1) \
    X(PTM_OP_MOVE,           "move",            8, 1) \
    X(PTM_OP_REPLACE,        "replace",         8, 1) \
    X(PTM_OP_FIELD,          "field",          16, 1) \
    X(PTM_OP_IP_COMPRESSION, "ip_compression",  6, 1) \
    X(PTM_OP_PSB_PLUS,       "psb_plus",        5, 1) \
    X(PTM_OP_PSB_BREAK,      "psb_break",       4, 1) \
    X(PTM_OP_OVF,            "ovf",             4, 1) \
    X(PTM_OP_SPLICE,         "splice",          5, 0) \
    X(PTM_OP_CUT,            "cut",             3, 0) \
    X(PTM_OP_GENERATE,       "generate",        2, 1) \
    X(PTM_OP_BYTES,          "bytes",           7, 0)

typedef enum ptm_op {
#define PTM__X(e, name, w, whole) e,
    PTM_OP_LIST(PTM__X)
#undef PTM__X
    PTM_OP_COUNT
} ptm_op;

/* Packets indexed for the operators; those after them are left as they are. */
#define PTM_MAX_UNITS 4096
/* Bytes of the input a "generate" plays as its program. */
#define PTM_PROGRAM_MAX 512
/* Cycles a "generate" may idle: keeps one call to a few milliseconds. */
#define PTM_GENERATE_CYCLES 60000
/* The most bytes a "generate" writes (less when the room is less): a
   fresh stream as long as the engine's limit would make every later input
   that long, and each run that much slower. */
#define PTM_GENERATE_MAX 1024

/* A packet of the input, or a byte that starts none (type PTC_NONE). */
typedef struct ptm_unit { uint32_t off; uint8_t size; uint8_t type; } ptm_unit;

/* A byte-level mutator the engine offers (libFuzzer's LLVMFuzzerMutate):
   mutates data[0, size) in place within max_size; returns the new size. */
typedef size_t (*ptm_bytes_fn)(uint8_t *data, size_t size, size_t max_size);

typedef struct ptm_mutator {
    /* settings */
    unsigned pktgen_flags;     /* pktgen's PKTGEN_* restrictions for new packets (0: any valid packet) */
    ptm_bytes_fn bytes;    /* NULL: "bytes" flips a bit itself */
    /* state */
    pktgen_rng rng;
    ptm_op last_op;        /* what the last call did */
    uint64_t op_count[PTM_OP_COUNT]; /* how often each operator was applied */
    /* scratch: the input's packets, a program copy */
    ptm_unit units[PTM_MAX_UNITS];
    size_t nunits;
    uint8_t program[PTM_PROGRAM_MAX];
} ptm_mutator;

/* The operator's name ("field"); "?" for none. */
UTIL_FN const char *ptm_op_name(ptm_op op)
{
    static const char *const names[PTM_OP_COUNT + 1] = {
#define PTM__X(e, name, w, whole) name,
        PTM_OP_LIST(PTM__X)
#undef PTM__X
        "?"
    };
    return names[(unsigned)op < PTM_OP_COUNT ? op : PTM_OP_COUNT];
}

/* Whether op keeps a stream of whole packets whole (PTM_OP_LIST). */
UTIL_FN int ptm_op_keeps_packets_whole(ptm_op op)
{
    static const uint8_t whole[PTM_OP_COUNT] = {
#define PTM__X(e, name, w, whole) whole,
        PTM_OP_LIST(PTM__X)
#undef PTM__X
    };
    return (unsigned)op < PTM_OP_COUNT && whole[op];
}

/* What ptm_whole_packets finds. */
enum { PTM_BROKEN, PTM_WHOLE, PTM_WHOLE_TO_BBP };

/* Whether every byte of buf is inside a packet read from offset 0
   (PTM_WHOLE), or every byte up to its first BBP (PTM_WHOLE_TO_BBP: a PEBS
   block gives the bytes after a BBP other meanings, so a BBP put in front
   of valid packets may rightly make them unreadable), or not (PTM_BROKEN). */
UTIL_FN int ptm_whole_packets(const uint8_t *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ptc_packet p;
        if (ptc_decode_packet(buf + off, len - off, PTC_BLOCK_NONE, &p) != PTC_OK) return PTM_BROKEN;
        if (p.type == PTC_BBP) return PTM_WHOLE_TO_BBP;
        off += p.size;
    }
    return PTM_WHOLE;
}

/* Starts the random source again from seed, keeping the settings and the
   counts: for an engine that hands every call a seed of its own
   (libFuzzer). */
UTIL_FN void ptm_reseed(ptm_mutator *m, uint64_t seed)
{
    m->rng = pktgen_seed(seed);
    m->last_op = PTM_OP_COUNT;
}

UTIL_FN void ptm_init(ptm_mutator *m, uint64_t seed)
{
    memset(m, 0, sizeof *m);
    ptm_reseed(m, seed);
}

/* ---- the input as units ------------------------------------------------- */

/* Splits data into packets (one-byte units where no packet starts), up to
   PTM_MAX_UNITS; returns where the last unit ends. */
UTIL_FN size_t ptm__index(ptm_mutator *m, const uint8_t *data, size_t size)
{
    size_t off = 0;
    ptc_block_ctx ctx = PTC_BLOCK_NONE;
    m->nunits = 0;
    while (off < size && m->nunits < PTM_MAX_UNITS && off <= UINT32_MAX - PTC_MAX_PACKET_SIZE) {
        ptm_unit *u = &m->units[m->nunits++];
        ptc_packet p;
        u->off = (uint32_t)off;
        if (ptc_decode_packet(data + off, size - off, ctx, &p) == PTC_OK) {
            u->size = p.size;
            u->type = (uint8_t)p.type;
            ctx = ptc_block_ctx_after(ctx, &p);
        } else {
            u->size = 1;
            u->type = PTC_NONE;
            ctx = PTC_BLOCK_NONE;
        }
        off += u->size;
    }
    return off;
}

/* A unit boundary (0 .. end of the indexed units), for insertions. */
UTIL_FN size_t ptm__boundary(ptm_mutator *m, size_t indexed_end)
{
    size_t i = (size_t)pktgen_range(&m->rng, 0, m->nunits);
    return i < m->nunits ? m->units[i].off : indexed_end;
}

/* A unit that passes `want` (NULL: any); -1 when none does. Tries a
   random start, then the units after it in turn. */
UTIL_FN long ptm__pick_unit(ptm_mutator *m, int (*want)(const ptm_unit *))
{
    size_t i, start;
    if (!m->nunits) return -1;
    start = (size_t)pktgen_range(&m->rng, 0, m->nunits - 1);
    for (i = 0; i < m->nunits; i++) {
        size_t k = (start + i) % m->nunits;
        if (!want || want(&m->units[k])) return (long)k;
    }
    return -1;
}

UTIL_FN int ptm__is_packet(const ptm_unit *u) { return u->type != PTC_NONE; }
UTIL_FN int ptm__is_ip(const ptm_unit *u) { return ptc_packet_is_ip((ptc_packet_type)u->type); }
UTIL_FN int ptm__is_psbend(const ptm_unit *u) { return u->type == PTC_PSBEND; }
UTIL_FN int ptm__is_psb(const ptm_unit *u) { return u->type == PTC_PSB; }
UTIL_FN int ptm__is_multibyte(const ptm_unit *u) { return u->type != PTC_NONE && u->size > 1; }

/* ---- editing the buffer --------------------------------------------------- */

/* data[off, off + old_len) becomes bytes[0, new_len) (bytes may be NULL
   when new_len is 0). 0 when the result would not fit in max_size. */
UTIL_FN int ptm__splice_bytes(uint8_t *data, size_t *size, size_t max_size, size_t off, size_t old_len,
                            const uint8_t *bytes, size_t new_len)
{
    size_t tail = *size - off - old_len;
    if (*size - old_len + new_len > max_size) return 0;
    memmove(data + off + new_len, data + off + old_len, tail);
    if (new_len) memcpy(data + off, bytes, new_len);
    *size = *size - old_len + new_len;
    return 1;
}

/* A random valid packet of type t (a random type when PTC_NONE), encoded
   into out; returns its size (0 when the encoder refused it). BIPs are
   never chosen: they are packets only inside a block. */
UTIL_FN size_t ptm__random_packet(ptm_mutator *m, ptc_packet_type t, uint8_t *out)
{
    ptc_packet p;
    size_t w = 0;
    if (t == PTC_NONE) {
        pktgen_mix mix;
        pktgen_mix_uniform(&mix, m->pktgen_flags);
        mix.weight[PTC_BIP] = 0;
        t = pktgen_pick(&m->rng, &mix, PTC_BLOCK_NONE);
    }
    pktgen_packet(&m->rng, t, PTC_BLOCK_NONE, m->pktgen_flags, &p);
    return ptc_encode_packet(&p, out, PTC_MAX_PACKET_SIZE, &w) == PTC_OK ? w : 0;
}

/* ---- one field to an edge or a random value -------------------------------- */

/* Sets one field of the packet at unit k; the encoder decides what is in
   range: a value it refuses is halved until it is accepted (so "all ones"
   becomes the field's largest value). 0 when the packet has no field or
   nothing was accepted. */
UTIL_FN int ptm__op_field(ptm_mutator *m, uint8_t *data, size_t *size, size_t max_size, size_t k)
{
    const ptm_unit *u = &m->units[k];
    size_t first, nrows, w = 0;
    const ptfields_field *f;
    ptc_packet p, q;
    uint8_t out[PTC_MAX_PACKET_SIZE];
    uint64_t v;
    ptc_block_ctx ctx = u->type == PTC_BIP ? (u->size == 5 ? PTC_BLOCK_4 : PTC_BLOCK_8) : PTC_BLOCK_NONE;
    if (ptc_decode_packet(data + u->off, *size - u->off, ctx, &p) != PTC_OK) return 0;
    nrows = ptfields_rows_of(p.type, &first);
    if (!nrows) return 0;
    f = &ptfields_fields[first + pktgen_range(&m->rng, 0, nrows - 1)];
    v = pktgen_bits(&m->rng, (unsigned)(8 * f->size)); /* 0, 1, all ones, one less, a power of two, random */
    for (;;) {
        q = p;
        ptfields_set(&q, f, v);
        if (ptc_encode_packet(&q, out, sizeof out, &w) == PTC_OK) break;
        if (!v) return 0;
        v >>= 1;
    }
    return ptm__splice_bytes(data, size, max_size, u->off, u->size, out, w);
}

/* ---- the operators ------------------------------------------------------ */

UTIL_FN int ptm__op_ip_compression(ptm_mutator *m, uint8_t *data, size_t *size, size_t max_size, size_t k)
{
    static const uint8_t ipcs[6] = { PTC_IPC_SUPPRESSED, PTC_IPC_UPDATE_16, PTC_IPC_UPDATE_32,
                                     PTC_IPC_SEXT_48, PTC_IPC_UPDATE_48, PTC_IPC_FULL };
    static const uint64_t keep[7] = { 0, 0xFFFF, 0xFFFFFFFF, UINT64_C(0xFFFFFFFFFFFF), UINT64_C(0xFFFFFFFFFFFF), 0,
                                      ~UINT64_C(0) };
    const ptm_unit *u = &m->units[k];
    ptc_packet p;
    uint8_t out[PTC_MAX_PACKET_SIZE];
    size_t w = 0;
    uint8_t ipc;
    if (ptc_decode_packet(data + u->off, *size - u->off, PTC_BLOCK_NONE, &p) != PTC_OK) return 0;
    do ipc = ipcs[pktgen_range(&m->rng, 0, 5)]; while (ipc == p.u.ip.ipc);
    /* the low bits stay: an IP compressed against a last IP it shares them with */
    p.u.ip.payload &= keep[ipc];
    p.u.ip.ipc = ipc;
    if (ptc_encode_packet(&p, out, sizeof out, &w) != PTC_OK) return 0;
    return ptm__splice_bytes(data, size, max_size, u->off, u->size, out, w);
}

/* Encodes a packet of type t with fields from pktgen into out + *len. */
UTIL_FN void ptm__append(ptm_mutator *m, ptc_packet_type t, uint8_t *out, size_t *len)
{
    *len += ptm__random_packet(m, t, out + *len);
}

/* A FUP with a full IP (what a PSB+ or an OVF carries: no last IP needed). */
UTIL_FN void ptm__append_full_fup(ptm_mutator *m, uint8_t *out, size_t *len)
{
    ptc_packet fup;
    size_t w = 0;
    memset(&fup, 0, sizeof fup);
    fup.type = PTC_FUP;
    fup.u.ip.ipc = PTC_IPC_FULL;
    fup.u.ip.payload = pktgen_next(&m->rng);
    if (ptc_encode_packet(&fup, out + *len, PTC_MAX_PACKET_SIZE, &w) == PTC_OK) *len += w;
}

/* A whole PSB+: PSB, then (each sometimes left out) TSC, TMA, CBR,
   MODE.Exec, a FUP with the full IP, and PSBEND. At most 48 bytes. */
UTIL_FN size_t ptm__psb_plus(ptm_mutator *m, uint8_t *out)
{
    size_t len = 0;
    ptm__append(m, PTC_PSB, out, &len);
    if (pktgen_range(&m->rng, 0, 3)) {
        ptm__append(m, PTC_TSC, out, &len);
        if (pktgen_range(&m->rng, 0, 1)) ptm__append(m, PTC_TMA, out, &len);
    }
    ptm__append(m, PTC_CBR, out, &len);
    if (pktgen_range(&m->rng, 0, 3)) ptm__append(m, PTC_MODE_EXEC, out, &len);
    if (pktgen_range(&m->rng, 0, 3)) ptm__append_full_fup(m, out, &len);
    ptm__append(m, PTC_PSBEND, out, &len);
    return len;
}

UTIL_FN int ptm__op_psb_break(ptm_mutator *m, uint8_t *data, size_t *size, size_t max_size, size_t end)
{
    uint8_t out[PTC_MAX_PACKET_SIZE];
    long k = ptm__pick_unit(m, ptm__is_psbend);
    size_t w;
    if (k >= 0 && pktgen_range(&m->rng, 0, 1)) /* the PSB+ never ends */
        return ptm__splice_bytes(data, size, max_size, m->units[k].off, m->units[k].size, NULL, 0);
    k = ptm__pick_unit(m, ptm__is_psb);
    if (k >= 0 && pktgen_range(&m->rng, 0, 1)) { /* a branch inside PSB+ */
        w = ptm__random_packet(m, PTC_TNT8, out);
        return w && ptm__splice_bytes(data, size, max_size, m->units[k].off + m->units[k].size, 0, out, w);
    }
    w = ptm__random_packet(m, PTC_PSBEND, out); /* a PSBEND with no PSB+ */
    return w && ptm__splice_bytes(data, size, max_size, ptm__boundary(m, end), 0, out, w);
}

UTIL_FN int ptm__op_ovf(ptm_mutator *m, uint8_t *data, size_t *size, size_t max_size, size_t end)
{
    uint8_t out[2 * PTC_MAX_PACKET_SIZE];
    size_t len = 0;
    ptm__append(m, PTC_OVF, out, &len);
    switch (pktgen_range(&m->rng, 0, 3)) {
    case 0: break;                                       /* alone */
    case 1: ptm__append(m, PTC_TIP_PGE, out, &len); break; /* tracing resumes elsewhere */
    default: ptm__append_full_fup(m, out, &len); break;  /* the FUP where tracing resumes */
    }
    return ptm__splice_bytes(data, size, max_size, ptm__boundary(m, end), 0, out, len);
}

/* A PSB of the indexed units, or a random boundary when there is none. */
UTIL_FN size_t ptm__psb_or_boundary(ptm_mutator *m, size_t end)
{
    long k = ptm__pick_unit(m, ptm__is_psb);
    return k >= 0 ? m->units[k].off : ptm__boundary(m, end);
}

/* out gets a[0, cut in a) then b[cut in b, nb), cut at PSBs where they
   have any; returns the size (at most max_out). */
UTIL_FN size_t ptm__splice_streams(ptm_mutator *m, const uint8_t *a, size_t na, const uint8_t *b, size_t nb,
                                 uint8_t *out, size_t max_out)
{
    size_t ca, cb, tail;
    cb = ptm__psb_or_boundary(m, ptm__index(m, b, nb)); /* (each index replaces the last) */
    ca = ptm__psb_or_boundary(m, ptm__index(m, a, na));
    if (ca > max_out) ca = max_out;
    tail = nb - cb;
    if (tail > max_out - ca) tail = max_out - ca;
    memmove(out, a, ca);
    memcpy(out + ca, b + cb, tail);
    return ca + tail;
}

UTIL_FN int ptm__op_cut(ptm_mutator *m, uint8_t *data, size_t *size, size_t k)
{
    const ptm_unit *u = &m->units[k];
    size_t keep = (size_t)pktgen_range(&m->rng, 1, u->size - 1u);
    if (pktgen_range(&m->rng, 0, 1)) *size = u->off + keep; /* the stream ends inside it */
    else ptm__splice_bytes(data, size, *size, u->off + keep, u->size - keep, NULL, 0);
    return 1;
}

/* "generate": where the model writes. */
typedef struct ptm__gen_out { uint8_t *out; size_t len, cap; } ptm__gen_out;

UTIL_FN void ptm__gen_packet(void *user, const uint8_t *bytes, size_t len, const ptc_truth *truth)
{
    ptm__gen_out *g = (ptm__gen_out *)user;
    UTIL_UNUSED(truth);
    if (len && len <= g->cap - g->len) {
        memcpy(g->out + g->len, bytes, len);
        g->len += len;
    } else {
        g->cap = g->len; /* full: the stream ends at a packet's end */
    }
}

/* pktgen_range as modelprog.h's draw */
UTIL_FN uint32_t ptm__draw(void *rng, uint32_t lo, uint32_t hi) { return (uint32_t)pktgen_range((pktgen_rng *)rng, lo, hi); }

/* The model with its settings drawn at random (modelprog_config), playing the first bytes
   of data as its program; its stream replaces data. */
UTIL_FN int ptm__op_generate(ptm_mutator *m, uint8_t *data, size_t *size, size_t max_size)
{
    ptc_model_config cfg;
    ptc_model model;
    ptm__gen_out g;
    ptc_model_sink sink;
    size_t n = *size < PTM_PROGRAM_MAX ? *size : PTM_PROGRAM_MAX;
    memcpy(m->program, data, n);
    if (n < 8) /* too short to be a program: a random one */
        for (n = 0; n < 64; n++) m->program[n] = (uint8_t)pktgen_next(&m->rng);
    modelprog_config(&cfg, ptm__draw, &m->rng);
    /* (SKD007 cuts a CYC and SKZ84 corrupts a TMA: neither stream would be
       whole packets, which generate promises) */
    cfg.trace.errata &= ~(uint32_t)(PTC_ERRATUM_SKD007 | PTC_ERRATUM_SKZ84);
    if (m->pktgen_flags & PKTGEN_LIBIPT_205) cfg.trigger_nth = 0; /* (TRIG came with libipt 2.2) */
    g.out = data;
    g.len = 0;
    g.cap = max_size < PTM_GENERATE_MAX ? max_size : PTM_GENERATE_MAX;
    memset(&sink, 0, sizeof sink);
    sink.user = &g;
    sink.packet = ptm__gen_packet;
    if (ptc_model_init(&model, &cfg, &sink) != PTC_OK) {
        ptc_model_config_default(&cfg);
        if (ptc_model_init(&model, &cfg, &sink) != PTC_OK) return 0;
    }
    /* (the program is m->program, a copy: the model overwrites data) */
    if (modelprog_play(&model, m->program, n, PTM_GENERATE_CYCLES) != PTC_OK) return 0;
    *size = g.len;
    return 1;
}

UTIL_FN int ptm__op_bytes(ptm_mutator *m, uint8_t *data, size_t *size, size_t max_size)
{
    if (m->bytes) {
        *size = m->bytes(data, *size, max_size);
        return 1;
    }
    if (!*size) return 0;
    pktgen_flip_bit(&m->rng, data, *size);
    return 1;
}

/* Applies operator op; 0 when it does not apply to this input. */
UTIL_FN int ptm__apply(ptm_mutator *m, ptm_op op, uint8_t *data, size_t *size, size_t max_size,
                     const uint8_t *other, size_t other_size, size_t end)
{
    uint8_t out[64]; /* a PSB+ (48 bytes at most) or one packet */
    size_t w;
    long k;
    switch (op) {
    case PTM_OP_INSERT:
        w = ptm__random_packet(m, PTC_NONE, out);
        return w && ptm__splice_bytes(data, size, max_size, ptm__boundary(m, end), 0, out, w);
    case PTM_OP_DELETE:
        if ((k = ptm__pick_unit(m, NULL)) < 0) return 0;
        return ptm__splice_bytes(data, size, max_size, m->units[k].off, m->units[k].size, NULL, 0);
    case PTM_OP_DUPLICATE:
        if ((k = ptm__pick_unit(m, ptm__is_packet)) < 0) return 0;
        memcpy(out, data + m->units[k].off, m->units[k].size);
        return ptm__splice_bytes(data, size, max_size, m->units[k].off, 0, out, m->units[k].size);
    case PTM_OP_MOVE: { /* taken out, and put in at a boundary of what is left */
        size_t at;
        if ((k = ptm__pick_unit(m, ptm__is_packet)) < 0 || m->nunits < 2) return 0;
        w = m->units[k].size;
        memcpy(out, data + m->units[k].off, w);
        at = ptm__boundary(m, end);
        ptm__splice_bytes(data, size, max_size, m->units[k].off, w, NULL, 0);
        if (at > m->units[k].off) at = at >= m->units[k].off + w ? at - w : m->units[k].off;
        return ptm__splice_bytes(data, size, max_size, at, 0, out, w);
    }
    case PTM_OP_REPLACE:
        if ((k = ptm__pick_unit(m, NULL)) < 0 || !(w = ptm__random_packet(m, PTC_NONE, out))) return 0;
        return ptm__splice_bytes(data, size, max_size, m->units[k].off, m->units[k].size, out, w);
    case PTM_OP_FIELD:
        if ((k = ptm__pick_unit(m, ptm__is_packet)) < 0) return 0;
        return ptm__op_field(m, data, size, max_size, (size_t)k);
    case PTM_OP_IP_COMPRESSION:
        if ((k = ptm__pick_unit(m, ptm__is_ip)) < 0) return 0;
        return ptm__op_ip_compression(m, data, size, max_size, (size_t)k);
    case PTM_OP_PSB_PLUS:
        w = ptm__psb_plus(m, out);
        return ptm__splice_bytes(data, size, max_size, ptm__boundary(m, end), 0, out, w);
    case PTM_OP_PSB_BREAK: return ptm__op_psb_break(m, data, size, max_size, end);
    case PTM_OP_OVF: return ptm__op_ovf(m, data, size, max_size, end);
    case PTM_OP_SPLICE:
        if (!other || !other_size) return 0;
        *size = ptm__splice_streams(m, data, *size, other, other_size, data, max_size);
        return 1;
    case PTM_OP_CUT:
        if ((k = ptm__pick_unit(m, ptm__is_multibyte)) < 0) return 0;
        return ptm__op_cut(m, data, size, (size_t)k);
    case PTM_OP_GENERATE: return ptm__op_generate(m, data, size, max_size);
    case PTM_OP_BYTES: return ptm__op_bytes(m, data, size, max_size);
    default: return 0;
    }
}

UTIL_FN ptm_op ptm__pick_op(ptm_mutator *m)
{
    static const unsigned weight[PTM_OP_COUNT] = {
#define PTM__X(e, name, w, whole) w,
        PTM_OP_LIST(PTM__X)
#undef PTM__X
    };
    unsigned total = 0, x, i;
    for (i = 0; i < PTM_OP_COUNT; i++) total += weight[i];
    x = (unsigned)pktgen_range(&m->rng, 0, total - 1);
    for (i = 0; i < PTM_OP_COUNT; i++) {
        if (x < weight[i]) break;
        x -= weight[i];
    }
    return (ptm_op)i;
}

/* What a call did: the one place last_op and op_count are kept. */
UTIL_FN void ptm__note_op(ptm_mutator *m, ptm_op op)
{
    m->last_op = op;
    if (op < PTM_OP_COUNT) m->op_count[op]++;
}

/* Mutates data[0, size) in place, within max_size bytes; other (may be
   NULL) is a second input for "splice". Returns the new size (at most
   max_size). m->last_op says what was done. */
UTIL_FN size_t ptm_mutate(ptm_mutator *m, uint8_t *data, size_t size, size_t max_size,
                        const uint8_t *other, size_t other_size)
{
    int tries;
    if (size > max_size) size = max_size;
    for (tries = 0; tries < 8; tries++) {
        ptm_op op = ptm__pick_op(m);
        size_t end = ptm__index(m, data, size), n = size;
        if (ptm__apply(m, op, data, &n, max_size, other, other_size, end)) {
            ptm__note_op(m, op);
            return n;
        }
    }
    /* nothing applied (an empty input with no room, say): left as it was */
    ptm__note_op(m, PTM_OP_COUNT);
    return size;
}

/* Writes a crossover of a and b into out (at most max_out bytes): a up to
   one of its PSBs, then b from one of its PSBs (a random packet boundary
   where an input has no PSB). Returns its size. */
UTIL_FN size_t ptm_crossover(ptm_mutator *m, const uint8_t *a, size_t na, const uint8_t *b, size_t nb,
                           uint8_t *out, size_t max_out)
{
    size_t n = ptm__splice_streams(m, a, na, b, nb, out, max_out);
    ptm__note_op(m, PTM_OP_SPLICE);
    return n;
}

/* ---- libFuzzer ------------------------------------------------------------ */
#ifdef PTM_LIBFUZZER_HOOKS
#ifdef __cplusplus
extern "C" {
#endif
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed);
#ifdef __cplusplus
}
#endif

/* Flags for the packets the hooks make (PKTGEN_LIBIPT_205 to keep to what an
   older decoder knows); define before including. */
#ifndef PTM_HOOK_PG_FLAGS
#define PTM_HOOK_PG_FLAGS 0
#endif

/* One state for the process (libFuzzer calls its hooks from one thread),
   set up on the first call; each call then starts from its own seed. */
static ptm_mutator ptm_hook_state;

static ptm_mutator *ptm_hook(unsigned int seed)
{
    static int ready;
    if (!ready) {
        ptm_init(&ptm_hook_state, seed);
        ptm_hook_state.pktgen_flags = PTM_HOOK_PG_FLAGS;
        ptm_hook_state.bytes = LLVMFuzzerMutate;
        ready = 1;
    }
    ptm_reseed(&ptm_hook_state, seed);
    return &ptm_hook_state;
}

/* Half the calls go to libFuzzer's own mutations: they find the decoder's
   error paths, which are most of its branches, faster than whole packets
   do (fuzz/README.md, "What the mutator reaches"). */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    ptm_mutator *m = ptm_hook(seed);
    if (pktgen_next(&m->rng) & 1) {
        ptm__note_op(m, PTM_OP_BYTES);
        return LLVMFuzzerMutate(data, size, max_size);
    }
    return ptm_mutate(m, data, size, max_size, NULL, 0);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed)
{
    return ptm_crossover(ptm_hook(seed), data1, size1, data2, size2, out, max_out_size);
}
#endif

#endif

/* Part 1 section 1.5, 1.6, 1.9: the stream decoder. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"
#include "../harness/pktgen.h"

#include <string.h>

#define MAX_ITEMS 60000

typedef struct item_list { ptc_item it[MAX_ITEMS]; size_t n; int overflow; } item_list;

static item_list A, B;

/* The item of a batch record, and whether the record's value and info
   say what ptc_record says they do. */
static int record_matches_its_item(const ptc_record *rec, ptc_item *it)
{
    uint64_t value = 0;
    unsigned info = 0;
    if (ptc_record_item(rec, it) != PTC_OK) return 0;
    if (it->error != PTC_OK) return rec->type == PTC_NONE && rec->size == 0 && rec->value == 0;
    if (ptc_packet_is_tnt(it->pkt.type)) value = it->pkt.u.tnt.bits, info = it->pkt.u.tnt.count;
    if (ptc_packet_is_ip(it->pkt.type))
        value = it->ip, info = it->pkt.u.ip.ipc | (it->ip_known ? PTC_RECORD_IP_KNOWN : 0u);
    if (it->pkt.type == PTC_TSC) value = it->pkt.u.tsc.tsc;
    if (it->pkt.type == PTC_CYC) value = it->pkt.u.cyc.cycles;
    if (it->pkt.type == PTC_MTC) info = it->pkt.u.mtc.ctc;
    return rec->value == value && rec->info == info && rec->size == it->pkt.size;
}

/* The next item: from ptc_decoder_next (batch_cap 0), or from records of
   ptc_decoder_next_batch taken batch_cap at a time. 0 if a record
   disagrees with what ptc_record says of it. */
typedef struct batch_source { ptc_record rec[64]; size_t n, at, cap; ptc_status end; } batch_source;

static ptc_status next_item(ptc_decoder *d, batch_source *b, ptc_item *it, int *bad)
{
    if (!b->cap) return ptc_decoder_next(d, it);
    if (b->at == b->n) {
        if (b->end != PTC_OK) {
            ptc_status st = b->end;
            b->end = PTC_OK;
            return st;
        }
        b->at = b->n = 0;
        b->end = ptc_decoder_next_batch(d, b->rec, b->cap, &b->n);
        if (b->end == PTC_OK && b->n != b->cap) *bad = 1;
        if (b->n == 0) return next_item(d, b, it, bad);
    }
    if (!record_matches_its_item(&b->rec[b->at++], it)) *bad = 1;
    return PTC_OK;
}

/* Decodes buf in chunks whose sizes come from `sizes` (cycled; 0 = one
   chunk), by items or by batches of batch_cap records. Returns 0 if the
   decoder misbehaved. */
static int decode_by(const uint8_t *buf, size_t len, unsigned flags, const size_t *sizes,
                     size_t nsizes, size_t batch_cap, item_list *out)
{
    ptc_decoder d;
    batch_source b;
    size_t at = 0, k = 0;
    int bad = 0;
    out->n = 0;
    out->overflow = 0;
    b.n = b.at = 0;
    b.cap = batch_cap;
    b.end = PTC_OK;
    ptc_decoder_init(&d, flags, 0);
    if (!nsizes) {
        if (ptc_decoder_feed(&d, buf, len) != PTC_OK) return 0;
        at = len;
    }
    if (at == len) ptc_decoder_finish(&d);
    for (;;) {
        ptc_item it;
        ptc_status st = next_item(&d, &b, &it, &bad);
        if (bad) return 0;
        if (st == PTC_OK) {
            if (out->n < MAX_ITEMS) out->it[out->n++] = it;
            else out->overflow = 1;
            continue;
        }
        if (st == PTC_END) return 1;
        if (st != PTC_NEED_INPUT) return 0;
        if (at == len) return 0; /* asked for input after finish */
        {
            size_t n = sizes[k++ % nsizes];
            if (n > len - at) n = len - at;
            if (ptc_decoder_feed(&d, buf + at, n) != PTC_OK) return 0;
            at += n;
            if (at == len) ptc_decoder_finish(&d);
        }
    }
}

static int decode(const uint8_t *buf, size_t len, unsigned flags, const size_t *sizes,
                  size_t nsizes, item_list *out)
{
    return decode_by(buf, len, flags, sizes, nsizes, 0, out);
}

/* Decodes buf cut at `split` (0: not cut), then in chunks of 1 to 5 bytes. */
static int decode_split(const uint8_t *buf, size_t len, unsigned flags, size_t split, item_list *out)
{
    size_t sizes[2];
    sizes[0] = split ? split : len;
    sizes[1] = 1 + split % 5;
    return decode(buf, len, flags, sizes, 2, out);
}

static int items_equal(const ptc_item *a, const ptc_item *b)
{
    if (a->offset != b->offset || a->error != b->error) return 0;
    if (a->error != PTC_OK) return 1;
    return ptc_packet_equal(&a->pkt, &b->pkt) && a->ip == b->ip && a->ip_known == b->ip_known;
}

static int lists_equal(const item_list *a, const item_list *b, size_t *where)
{
    size_t i;
    for (i = 0; i < a->n && i < b->n; i++)
        if (!items_equal(&a->it[i], &b->it[i])) { *where = i; return 0; }
    *where = i;
    return a->n == b->n;
}

static size_t put(uint8_t *buf, size_t at, ptc_packet_type t, uint64_t v)
{
    ptc_packet p;
    size_t w = 0;
    memset(&p, 0, sizeof p);
    p.type = t;
    switch (t) {
    case PTC_MTC: p.u.mtc.ctc = (uint8_t)v; break;
    case PTC_TSC: p.u.tsc.tsc = v; break;
    case PTC_TNT8: p.u.tnt.count = 2; p.u.tnt.bits = v & 3; break;
    case PTC_CYC: p.u.cyc.cycles = v; break;
    default: break;
    }
    (void)ptc_encode_packet(&p, buf + at, 64, &w);
    return at + w;
}

static size_t put_ip(uint8_t *buf, size_t at, ptc_packet_type t, unsigned ipc, uint64_t payload)
{
    ptc_packet p;
    size_t w = 0;
    memset(&p, 0, sizeof p);
    p.type = t;
    p.u.ip.ipc = (uint8_t)ipc;
    p.u.ip.payload = payload;
    CHECK(ptc_encode_packet(&p, buf + at, 64, &w) == PTC_OK);
    return at + w;
}

/* ---- 1.9 rule 1: sync ---------------------------------------------------- */

static void sync_skips_to_first_psb(void)
{
    uint8_t buf[128];
    size_t n = 0;
    buf[n++] = 0xC9; buf[n++] = 0x59; buf[n++] = 0x00; /* junk, then an MTC fragment */
    n = put(buf, n, PTC_PSB, 0);
    n = put(buf, n, PTC_MTC, 7);
    n = put(buf, n, PTC_PSBEND, 0);
    CHECK(decode(buf, n, 0, NULL, 0, &A));
    CHECK(A.n == 3 && A.it[0].offset == 3 && A.it[0].pkt.type == PTC_PSB && A.it[1].pkt.type == PTC_MTC &&
          A.it[1].offset == 19 && A.it[2].pkt.type == PTC_PSBEND, "got %zu items", A.n);
    /* without sync, the junk is decoded and reported */
    CHECK(decode(buf, n, PTC_DECODE_NO_SYNC, NULL, 0, &A));
    CHECK(A.n == 4 && A.it[0].offset == 0 && A.it[0].error == PTC_ERR_BAD_OPCODE &&
          A.it[1].offset == 3 && A.it[1].pkt.type == PTC_PSB, "got %zu items", A.n);
}

/* A run of PSB pattern longer than 16 bytes: the PSB is its last 16 bytes
   (the pairs before end some packet), at the start of the input, after an
   error, at the very end, and at any chunking. */
static void psb_run_syncs_on_its_last_16_bytes(void)
{
    uint8_t buf[128];
    size_t extra, split;
    for (extra = 0; extra <= 3; extra++) {
        size_t n = 0, psb_at, i;
        buf[n++] = 0x99; /* MTC opcode with its payload in the run below */
        for (i = 0; i < extra; i++) { buf[n++] = 0x02; buf[n++] = 0x82; }
        psb_at = n;
        n = put(buf, n, PTC_PSB, 0);
        n = put(buf, n, PTC_PSBEND, 0);
        for (split = 0; split <= n; split++) {
            size_t sizes[2];
            sizes[0] = split ? split : n;
            sizes[1] = n;
            CHECK(decode(buf, n, 0, sizes, 2, &A));
            CHECK(A.n == 2 && A.it[0].offset == psb_at && A.it[0].pkt.type == PTC_PSB && A.it[1].pkt.type == PTC_PSBEND,
                  "%zu extra pairs, chunk %zu: %zu items, first at %llu", extra, split, A.n,
                  A.n ? (unsigned long long)A.it[0].offset : 0ULL);
        }
        /* the run as the whole input: the PSB at its end is still found */
        CHECK(decode(buf, psb_at + 16, 0, NULL, 0, &A));
        CHECK(A.n == 1 && A.it[0].offset == psb_at, "%zu extra pairs, run at the end", extra);
        /* after an error, resync picks the same PSB */
        buf[0] = 0x02;
        buf[1] = 0x01; /* an undefined extended opcode ... */
        if (extra) {
            CHECK(decode(buf, n, PTC_DECODE_NO_SYNC, NULL, 0, &A));
            CHECK(A.n == 3 && A.it[0].error == PTC_ERR_BAD_OPCODE && A.it[1].offset == psb_at,
                  "%zu extra pairs after an error: %zu items", extra, A.n);
        }
    }
}

static void base_offset_shifts_every_offset(void)
{
    uint8_t buf[64];
    ptc_decoder d;
    ptc_item it;
    size_t n = put(buf, 0, PTC_PSB, 0);
    n = put(buf, n, PTC_MTC, 1);
    ptc_decoder_init(&d, 0, 1000);
    CHECK(ptc_decoder_feed(&d, buf, n) == PTC_OK);
    ptc_decoder_finish(&d);
    CHECK(ptc_decoder_next(&d, &it) == PTC_OK && it.offset == 1000);
    CHECK(ptc_decoder_next(&d, &it) == PTC_OK && it.offset == 1016 && it.pkt.type == PTC_MTC);
    CHECK(ptc_decoder_next(&d, &it) == PTC_END);
    CHECK(ptc_decoder_next(&d, &it) == PTC_END, "END is sticky");
}

/* ---- 1.9 rule 2: errors and resync ---------------------------------------- */

static void malformed_packet_resyncs_at_next_psb(void)
{
    uint8_t buf[256];
    size_t n = 0, bad, psb2;
    n = put(buf, n, PTC_PSB, 0);
    n = put(buf, n, PTC_TNT8, 1);
    n = put(buf, n, PTC_MTC, 2);
    bad = n;
    buf[n++] = 0x02; buf[n++] = 0x00;        /* bad ext opcode */
    n = put(buf, n, PTC_MTC, 3);              /* lost: between error and PSB */
    buf[n++] = 0x02; buf[n++] = 0x82;        /* a PSB fragment is not a PSB... */
    buf[n++] = 0x02; buf[n++] = 0x00;        /* ...(and 02 82 right before a PSB would be one) */
    psb2 = n;
    n = put(buf, n, PTC_PSB, 0);
    n = put(buf, n, PTC_MTC, 4);
    CHECK(decode(buf, n, 0, NULL, 0, &A));
    CHECK(A.n == 6, "got %zu items", A.n);
    if (A.n != 6) return;
    CHECK(A.it[0].pkt.type == PTC_PSB && A.it[1].pkt.type == PTC_TNT8 && A.it[2].pkt.type == PTC_MTC);
    CHECK(A.it[3].error == PTC_ERR_BAD_OPCODE && A.it[3].offset == bad);
    CHECK(A.it[4].pkt.type == PTC_PSB && A.it[4].offset == psb2);
    CHECK(A.it[5].pkt.type == PTC_MTC && A.it[5].pkt.u.mtc.ctc == 4);
}

/* A packet that runs into a complete PSB is damage: reported as
   psb_overlap at the packet, and decoding resumes at the PSB, at any
   chunking. A payload that merely ends in 02 82 before a PSB is fine. */
static void packet_running_into_a_psb_is_an_error(void)
{
    uint8_t buf[128];
    size_t n, psb_at, split, where;
    n = put(buf, 0, PTC_PSB, 0);
    n = put(buf, n, PTC_PSBEND, 0);
    n = put_ip(buf, n, PTC_TIP, 2, 0x12345678); /* 5 bytes ... */
    buf[n - 5] |= 0xC0;                         /* ... now claiming 8 payload bytes: 4 too many */
    psb_at = n - 2;                             /* the real PSB starts 2 bytes before where the TIP now ends */
    n = put(buf, psb_at, PTC_PSB, 0);
    n = put(buf, n, PTC_MTC, 9);
    for (split = 0; split <= n; split++) {
        CHECK(decode_split(buf, n, 0, split, &A));
        CHECK(A.n == 5 && A.it[2].error == PTC_ERR_PSB_OVERLAP && A.it[2].offset == 18 &&
                  A.it[3].offset == psb_at && A.it[3].pkt.type == PTC_PSB && A.it[4].pkt.type == PTC_MTC,
              "chunk %zu: %zu items", split, A.n);
    }
    CHECK(decode_by(buf, n, 0, NULL, 0, 8, &B) && lists_equal(&A, &B, &where), "batch: item %zu", where);
    /* an MTC whose payload is 02, a TIP whose payload ends in 02 82, then a PSB */
    n = put(buf, 0, PTC_PSB, 0);
    n = put(buf, n, PTC_MTC, 0x02);
    n = put_ip(buf, n, PTC_TIP, 1, 0x8202);
    psb_at = n;
    n = put(buf, n, PTC_PSB, 0);
    n = put(buf, n, PTC_PSBEND, 0);
    CHECK(decode(buf, n, 0, NULL, 0, &A));
    CHECK(A.n == 5 && A.it[2].pkt.type == PTC_TIP && A.it[3].offset == psb_at && A.it[3].pkt.type == PTC_PSB,
          "%zu items", A.n);
    CHECK(decode_by(buf, n, 0, NULL, 0, 8, &B) && lists_equal(&A, &B, &where), "batch: item %zu", where);
}

static void resync_can_start_right_after_the_error_byte(void)
{
    /* The search for a PSB after an error starts at the very next byte. */
    uint8_t buf[64];
    size_t n = 0;
    buf[n++] = 0xC9;                /* bad opcode at 0 */
    n = put(buf, n, PTC_PSB, 0);    /* PSB at 1 */
    CHECK(decode(buf, n, PTC_DECODE_NO_SYNC, NULL, 0, &A));
    CHECK(A.n == 2 && A.it[0].error == PTC_ERR_BAD_OPCODE && A.it[1].offset == 1 &&
          A.it[1].pkt.type == PTC_PSB);
}

/* ---- 1.9 rule 5: erratum SKD007 -------------------------------------------- */

/* A CYC of 100 cycles cut after its first byte by an OVF: with the flag, a
   cut_cyc error and the OVF at the next byte, at any chunking; without it,
   two CYCs and no OVF. A 2-byte CYC ending in 02 that is not followed by
   F3, or by nothing, is a CYC either way. */
static void skd007_cut_cyc_is_an_error_then_the_ovf(void)
{
    uint8_t buf[64], cyc[8];
    size_t n = put(buf, 0, PTC_PSB, 0), cut_at, split;
    (void)put(cyc, 0, PTC_CYC, 100);
    n = put(buf, n, PTC_PSBEND, 0);
    cut_at = n;
    buf[n++] = cyc[0];
    n = put(buf, n, PTC_OVF, 0);
    n = put(buf, n, PTC_MTC, 9);
    for (split = 0; split <= n; split++) {
        CHECK(decode_split(buf, n, PTC_DECODE_SKD007, split, &A));
        CHECK(A.n == 5 && A.it[2].error == PTC_ERR_CUT_CYC && A.it[2].offset == cut_at && A.it[3].error == PTC_OK &&
                  A.it[3].pkt.type == PTC_OVF && A.it[3].offset == cut_at + 1 && A.it[4].pkt.type == PTC_MTC,
              "chunk %zu: %zu items", split, A.n);
    }
    { /* with 16 PADs after it, the batch decoder's hot loop meets the cut CYC */
        size_t padded = n, where, k;
        for (k = 0; k < 16; k++) padded = put(buf, padded, PTC_PAD, 0);
        CHECK(decode(buf, padded, PTC_DECODE_SKD007, NULL, 0, &A) && A.n == 21 && A.it[2].error == PTC_ERR_CUT_CYC);
        CHECK(decode_by(buf, padded, PTC_DECODE_SKD007, NULL, 0, 8, &B) && lists_equal(&A, &B, &where), "batch: item %zu",
              where);
    }
    CHECK(decode(buf, n, 0, NULL, 0, &A));
    CHECK(A.n == 5 && A.it[2].pkt.type == PTC_CYC && A.it[2].pkt.u.cyc.cycles == (100 & 31) + 32 &&
              A.it[3].pkt.type == PTC_CYC && A.it[3].pkt.u.cyc.cycles == 30 && A.it[4].pkt.type == PTC_MTC,
          "without the flag: %zu items", A.n);
    CHECK(ptc_errata_decode_flags(PTC_ERRATUM_SKD007 | PTC_ERRATUM_SKL168) == PTC_DECODE_SKD007 &&
          ptc_errata_decode_flags(PTC_ERRATUM_SKL168) == 0);
    /* the CYC's 02 at the very end: a CYC */
    CHECK(decode(buf, cut_at + 2, PTC_DECODE_SKD007, NULL, 0, &A));
    CHECK(A.n == 3 && A.it[2].error == PTC_OK && A.it[2].pkt.type == PTC_CYC && A.it[2].pkt.size == 2, "%zu items",
          A.n);
    /* followed by something else than F3: a CYC */
    buf[cut_at + 2] = 0x00; /* PAD */
    CHECK(decode(buf, cut_at + 3, PTC_DECODE_SKD007, NULL, 0, &A));
    CHECK(A.n == 4 && A.it[2].pkt.type == PTC_CYC && A.it[3].pkt.type == PTC_PAD, "%zu items", A.n);
}

/* ---- 1.9 rule 6: erratum SKZ84 --------------------------------------------- */

/* A TMA with its reserved byte set and a bogus byte after it: with the
   flag, one corrupt_tma error for the 8 bytes and the MTC after them, at
   any chunking; without it, a reserved_value error and a resync. At the
   input's end the error takes what there is; a PSB that begins inside the
   8 bytes makes them a psb_overlap, and is resynced at. */
static void skz84_corrupt_tma_and_its_bogus_byte_are_skipped(void)
{
    uint8_t buf[96];
    size_t n = put(buf, 0, PTC_PSB, 0), tma_at, split;
    n = put(buf, n, PTC_PSBEND, 0);
    n = put(buf, n, PTC_TSC, 0x1234);
    tma_at = n;
    n = put(buf, n, PTC_TMA, 0);
    buf[tma_at + 4] = 0x55; /* reserved */
    buf[n++] = 0x99;        /* the bogus byte */
    n = put(buf, n, PTC_MTC, 9);
    for (split = 0; split <= n; split++) {
        CHECK(decode_split(buf, n, PTC_DECODE_SKZ84, split, &A));
        CHECK(A.n == 5 && A.it[3].error == PTC_ERR_CORRUPT_TMA && A.it[3].offset == tma_at &&
                  A.it[4].error == PTC_OK && A.it[4].pkt.type == PTC_MTC && A.it[4].offset == tma_at + 8,
              "chunk %zu: %zu items", split, A.n);
    }
    CHECK(ptc_errata_decode_flags(PTC_ERRATUM_SKZ84) == PTC_DECODE_SKZ84);
    CHECK(decode(buf, n, 0, NULL, 0, &A));
    CHECK(A.n == 4 && A.it[3].error == PTC_ERR_RESERVED, "without the flag: %zu items", A.n);
    /* the input ends before the bogus byte */
    CHECK(decode(buf, tma_at + 7, PTC_DECODE_SKZ84, NULL, 0, &A));
    CHECK(A.n == 4 && A.it[3].error == PTC_ERR_CORRUPT_TMA, "cut: %zu items", A.n);
    /* a PSB right after the TMA: the bogus byte would be its first */
    n = put(buf, tma_at + 7, PTC_PSB, 0);
    n = put(buf, n, PTC_PSBEND, 0);
    for (split = 0; split <= n; split++) {
        CHECK(decode_split(buf, n, PTC_DECODE_SKZ84, split, &A));
        CHECK(A.n == 6 && A.it[3].error == PTC_ERR_PSB_OVERLAP && A.it[4].pkt.type == PTC_PSB &&
                  A.it[4].offset == tma_at + 7, "PSB after, chunk %zu: %zu items", split, A.n);
    }
}

/* ---- 1.9 rule 3: end of input --------------------------------------------- */

static void input_ending_inside_a_packet_is_truncated(void)
{
    uint8_t buf[64];
    size_t n = put(buf, 0, PTC_PSB, 0), tsc_at;
    n = put(buf, n, PTC_MTC, 1);
    tsc_at = n;
    n = put(buf, n, PTC_TSC, 0x1234);
    CHECK(decode(buf, n - 3, 0, NULL, 0, &A));
    CHECK(A.n == 3 && A.it[2].error == PTC_ERR_TRUNCATED && A.it[2].offset == tsc_at, "got %zu", A.n);
    /* a PSB cut short is truncated too (not skipped, not bad_psb) */
    CHECK(decode(buf, 9, 0, NULL, 0, &A));
    CHECK(A.n == 1 && A.it[0].error == PTC_ERR_NO_PSB && A.it[0].offset == 0, "sync: %zu", A.n);
    CHECK(decode(buf, 9, PTC_DECODE_NO_SYNC, NULL, 0, &A));
    CHECK(A.n == 1 && A.it[0].error == PTC_ERR_TRUNCATED && A.it[0].offset == 0, "no-sync: %zu", A.n);
}

static void no_psb_is_reported_once(void)
{
    uint8_t buf[64];
    size_t n = put(buf, 0, PTC_MTC, 1);
    n = put(buf, n, PTC_TNT8, 1);
    CHECK(decode(buf, n, 0, NULL, 0, &A));
    CHECK(A.n == 1 && A.it[0].error == PTC_ERR_NO_PSB && A.it[0].offset == 0);
    CHECK(decode(buf, 0, 0, NULL, 0, &A) && A.n == 0, "empty input: no items");
    CHECK(decode(buf, 0, PTC_DECODE_NO_SYNC, NULL, 0, &A) && A.n == 0);
    /* after a PSB, a later error with no PSB after it reports only the error */
    n = put(buf, 0, PTC_PSB, 0);
    buf[n++] = 0xC9;
    n = put(buf, n, PTC_MTC, 1);
    CHECK(decode(buf, n, 0, NULL, 0, &A));
    CHECK(A.n == 2 && A.it[1].error == PTC_ERR_BAD_OPCODE && A.it[1].offset == 16);
}

/* ---- 1.5 last IP ---------------------------------------------------------- */

static void last_ip_decompression(void)
{
    uint8_t buf[256];
    size_t n = 0;
    n = put_ip(buf, n, PTC_FUP, 2, 0x11223344);      /* no-sync: before any PSB */
    n = put_ip(buf, n, PTC_TIP, 6, UINT64_C(0xFFFF800012345678));
    n = put_ip(buf, n, PTC_TIP, 1, 0xABCD);
    n = put_ip(buf, n, PTC_TIP, 0, 0);                /* suppressed */
    n = put_ip(buf, n, PTC_TIP, 2, 0x01020304);
    n = put_ip(buf, n, PTC_TIP, 3, UINT64_C(0x800000001000)); /* sext48, negative */
    n = put_ip(buf, n, PTC_TIP, 4, UINT64_C(0x000000002000));
    n = put(buf, n, PTC_OVF, 0);                      /* OVF keeps the last IP */
    n = put_ip(buf, n, PTC_FUP, 1, 0x3000);
    n = put(buf, n, PTC_PSB, 0);                      /* PSB resets it to zero */
    n = put_ip(buf, n, PTC_TIP_PGE, 1, 0x4000);
    CHECK(decode(buf, n, PTC_DECODE_NO_SYNC, NULL, 0, &A));
    CHECK(A.n == 11, "%zu items", A.n);
    if (A.n != 11) return;
    CHECK(A.it[0].ip_known == 0 && A.it[0].ip == 0x11223344, "compressed before any full IP");
    CHECK(A.it[1].ip_known && A.it[1].ip == UINT64_C(0xFFFF800012345678));
    CHECK(A.it[2].ip_known && A.it[2].ip == UINT64_C(0xFFFF80001234ABCD));
    CHECK(!A.it[3].ip_known, "suppressed");
    CHECK(A.it[4].ip_known && A.it[4].ip == UINT64_C(0xFFFF800001020304), "suppressed kept last IP");
    CHECK(A.it[5].ip_known && A.it[5].ip == UINT64_C(0xFFFF800000001000), "sext48");
    CHECK(A.it[6].ip_known && A.it[6].ip == UINT64_C(0xFFFF000000002000), "update48");
    CHECK(A.it[8].ip_known && A.it[8].ip == UINT64_C(0xFFFF000000003000), "after OVF");
    CHECK(A.it[10].ip_known && A.it[10].ip == 0x4000, "after PSB: against zero");
}

/* ---- 1.6 block context ------------------------------------------------------ */

static void bip_only_inside_blocks(void)
{
    uint8_t buf[128];
    size_t n = 0;
    ptc_packet p;
    size_t w;
    n = put(buf, n, PTC_PSB, 0);
    memset(&p, 0, sizeof p); p.type = PTC_BBP; p.u.bbp.sz = 1; p.u.bbp.block_type = 2;
    ptc_encode_packet(&p, buf + n, 16, &w); n += w;
    buf[n++] = 0x0C; buf[n++] = 1; buf[n++] = 2; buf[n++] = 3; buf[n++] = 4; /* BIP id 1, 4 bytes */
    n = put(buf, n, PTC_MTC, 9);                                              /* keeps the block */
    buf[n++] = 0x14; buf[n++] = 5; buf[n++] = 6; buf[n++] = 7; buf[n++] = 8; /* BIP id 2 */
    memset(&p, 0, sizeof p); p.type = PTC_BEP;
    ptc_encode_packet(&p, buf + n, 16, &w); n += w;
    buf[n++] = 0x0C;                                                          /* TNT-8 again */
    CHECK(decode(buf, n, 0, NULL, 0, &A));
    CHECK(A.n == 7, "%zu items", A.n);
    if (A.n != 7) return;
    CHECK(A.it[2].pkt.type == PTC_BIP && A.it[2].pkt.u.bip.id == 1 && A.it[2].pkt.u.bip.value == 0x04030201);
    CHECK(A.it[4].pkt.type == PTC_BIP && A.it[4].pkt.u.bip.id == 2 && A.it[4].pkt.size == 5);
    CHECK(A.it[6].pkt.type == PTC_TNT8 && A.it[6].pkt.u.tnt.count == 2);
}

/* ---- 1.9 rule 4: chunks --------------------------------------------------- */

/* A stream of random packets with damage: flipped bytes, cut packets,
   runs of junk. */
static size_t damaged_stream(pktgen_rng *r, uint8_t *buf, size_t cap)
{
    pktgen_mix mix;
    size_t n, i, flips;
    pktgen_mix_uniform(&mix, 0);
    n = pktgen_stream(r, &mix, 0, 200 + pktgen_next(r) % 400, buf, cap, NULL, NULL, 0, NULL);
    flips = pktgen_next(r) % 6;
    for (i = 0; i < flips && n; i++) pktgen_flip_bit(r, buf, n);
    if (pktgen_next(r) % 3 == 0 && n > 10) n -= pktgen_next(r) % 10; /* cut the end */
    return n;
}

static void chunked_equals_one_shot(void)
{
    static uint8_t buf[8192];
    pktgen_rng r = pktgen_seed(99);
    int s, trial;
    for (trial = 0; trial < 60; trial++) {
        size_t n = damaged_stream(&r, buf, sizeof buf), where;
        unsigned flags = ((trial & 1) ? PTC_DECODE_NO_SYNC : 0) | ((trial & 2) ? PTC_DECODE_SKD007 | PTC_DECODE_SKZ84 : 0);
        CHECK(decode(buf, n, flags, NULL, 0, &A) && !A.overflow);
        for (s = 1; s <= 40; s++) {
            size_t sz = (size_t)s;
            CHECK(decode(buf, n, flags, &sz, 1, &B), "chunk %d", s);
            CHECK(lists_equal(&A, &B, &where), "trial %d chunk %d: item %zu differs (%zu vs %zu items)",
                  trial, s, where, A.n, B.n);
        }
        {
            size_t sizes[7];
            int k;
            for (k = 0; k < 7; k++) sizes[k] = pktgen_range(&r, 0, 70); /* empty chunks too */
            sizes[0] = sizes[0] ? sizes[0] : 1;
            CHECK(decode(buf, n, flags, sizes, 7, &B));
            CHECK(lists_equal(&A, &B, &where), "trial %d random chunks: item %zu differs", trial, where);
        }
    }
}

/* Items cover the input: each packet's bytes re-encode to the input bytes
   at its offset, offsets increase, and nothing before an error is lost. */
static void items_reproduce_the_input(void)
{
    static uint8_t buf[8192];
    pktgen_rng r = pktgen_seed(4242);
    int trial;
    for (trial = 0; trial < 200; trial++) {
        size_t n = damaged_stream(&r, buf, sizeof buf), i;
        uint64_t next = 0;
        CHECK(decode(buf, n, PTC_DECODE_NO_SYNC, NULL, 0, &A));
        int after_error = 0;
        for (i = 0; i < A.n; i++) {
            const ptc_item *it = &A.it[i];
            if (it->error == PTC_OK) {
                uint8_t out[16];
                size_t w = 0;
                /* right after an error, decoding resumes at a PSB further on;
                   otherwise each packet starts where the last one ended */
                if (after_error)
                    CHECK(it->pkt.type == PTC_PSB && it->offset >= next, "trial %d item %zu", trial, i);
                else
                    CHECK(it->offset == next, "trial %d item %zu: gap without an error", trial, i);
                CHECK(ptc_encode_packet(&it->pkt, out, sizeof out, &w) == PTC_OK && w == it->pkt.size &&
                      it->offset + w <= n && memcmp(out, buf + it->offset, w) == 0,
                      "trial %d item %zu does not re-encode to its bytes", trial, i);
                next = it->offset + it->pkt.size;
                after_error = 0;
            } else {
                CHECK(!after_error && it->offset == next, "trial %d: error item %zu not where decoding stood",
                      trial, i);
                next = it->offset + 1;
                after_error = 1;
            }
        }
    }
}

static void large_stream_chunked(void)
{
    static uint8_t buf[1 << 20];
    static const size_t sizes[] = { 4096, 1, 15, 16, 17, 65536, 3 };
    pktgen_rng r = pktgen_seed(5);
    pktgen_mix mix;
    size_t n, where, cnt = 0;
    pktgen_mix_dense(&mix);
    n = pktgen_stream(&r, &mix, 0, 4096, buf, sizeof buf, NULL, NULL, 0, &cnt);
    CHECK(cnt > 100000, "only %zu packets", cnt);
    /* the item list holds MAX_ITEMS: decode the first 64 KiB */
    if (n > 65536) n = 65536;
    CHECK(decode(buf, n, 0, NULL, 0, &A) && !A.overflow);
    CHECK(decode(buf, n, 0, sizes, 7, &B) && !B.overflow);
    CHECK(lists_equal(&A, &B, &where), "item %zu differs", where);
    {
        size_t i, errors = 0;
        /* the 64 KiB cut may fall inside the last packet */
        for (i = 0; i + 1 < A.n; i++) errors += A.it[i].error != PTC_OK;
        CHECK(errors == 0, "%zu errors in a clean stream", errors);
        CHECK(A.n > 0 && (A.it[A.n - 1].error == PTC_OK || A.it[A.n - 1].error == PTC_ERR_TRUNCATED));
    }
}

/* ---- 1.12 batch decoding ---------------------------------------------------- */

/* Records, turned back into items, are the stream decoder's items, for any
   batch size and chunking, on damaged streams with every decoder flag. */
static void batch_records_are_the_stream_items(void)
{
    static uint8_t buf[8192];
    static const size_t caps[] = { 1, 2, 7, 64 };
    pktgen_rng r = pktgen_seed(1212);
    int trial;
    size_t c, where;
    for (trial = 0; trial < 80; trial++) {
        size_t n = damaged_stream(&r, buf, sizeof buf), sizes[5];
        unsigned flags = ((trial & 1) ? PTC_DECODE_NO_SYNC : 0) | ((trial & 2) ? PTC_DECODE_SKD007 : 0) |
                         ((trial & 4) ? PTC_DECODE_SKZ84 : 0);
        int k;
        for (k = 0; k < 5; k++) sizes[k] = pktgen_range(&r, 0, 40);
        sizes[0] = sizes[0] ? sizes[0] : 1;
        CHECK(decode(buf, n, flags, NULL, 0, &A) && !A.overflow);
        for (c = 0; c < sizeof caps / sizeof caps[0]; c++) {
            CHECK(decode_by(buf, n, flags, NULL, 0, caps[c], &B), "trial %d cap %zu: a record disagrees", trial,
                  caps[c]);
            CHECK(lists_equal(&A, &B, &where), "trial %d cap %zu one shot: item %zu differs", trial, caps[c], where);
            CHECK(decode_by(buf, n, flags, sizes, 5, caps[c], &B), "trial %d cap %zu chunked", trial, caps[c]);
            CHECK(lists_equal(&A, &B, &where), "trial %d cap %zu chunked: item %zu differs", trial, caps[c], where);
        }
    }
}

/* A clean stream of every mix, long enough that most records come from
   the hot loop, one shot and in odd chunks. */
static void batch_of_clean_streams(void)
{
    static uint8_t buf[1 << 16];
    static const size_t sizes[] = { 4096, 1, 15, 16, 17, 999, 3 };
    pktgen_rng r = pktgen_seed(77);
    int m;
    for (m = 0; m < 3; m++) {
        pktgen_mix mix;
        size_t n, where;
        if (m == 0) pktgen_mix_dense(&mix);
        else if (m == 1) pktgen_mix_sparse(&mix);
        else pktgen_mix_uniform(&mix, 0);
        n = pktgen_stream(&r, &mix, 0, 256, buf, sizeof buf, NULL, NULL, 0, NULL);
        CHECK(decode(buf, n, 0, NULL, 0, &A) && !A.overflow && A.n > 1000, "mix %d: %zu items", m, A.n);
        CHECK(decode_by(buf, n, 0, NULL, 0, 64, &B) && lists_equal(&A, &B, &where), "mix %d one shot: item %zu",
              m, where);
        CHECK(decode_by(buf, n, 0, sizes, 7, 64, &B) && lists_equal(&A, &B, &where), "mix %d chunked: item %zu",
              m, where);
    }
}

/* ptc_decoder_next and ptc_decoder_next_batch take turns on one decoder. */
static void batch_and_single_items_mix(void)
{
    static uint8_t buf[8192];
    pktgen_rng r = pktgen_seed(31);
    size_t n = damaged_stream(&r, buf, sizeof buf), k = 0, turn = 0;
    ptc_decoder d;
    ptc_status st;
    CHECK(decode(buf, n, 0, NULL, 0, &A) && A.n > 10);
    ptc_decoder_init_buffer(&d, 0, buf, n);
    do {
        ptc_record rec[5];
        ptc_item it;
        size_t got = 0, i;
        if (turn++ % 2) {
            st = ptc_decoder_next(&d, &it);
            if (st == PTC_OK) CHECK(k < A.n && items_equal(&it, &A.it[k++]), "single item %zu", k);
        } else {
            st = ptc_decoder_next_batch(&d, rec, 1 + turn % 5, &got);
            for (i = 0; i < got; i++)
                CHECK(k < A.n && ptc_record_item(&rec[i], &it) == PTC_OK && items_equal(&it, &A.it[k++]),
                      "batch item %zu", k);
        }
    } while (st == PTC_OK);
    CHECK(st == PTC_END && k == A.n, "ended with %s after %zu of %zu items", ptc_status_name(st), k, A.n);
}

/* The hot loop hands the last IP, and which of its bits are known, back
   to the decoder: with no PSB (no sync), a full IP read in the loop makes
   an IP compressed against it, read near the end of the input where the
   loop stops, a known one. */
static void batch_hands_the_last_ip_over(void)
{
    uint8_t buf[128];
    size_t n = put_ip(buf, 0, PTC_TIP, PTC_IPC_FULL, UINT64_C(0xFFFF800012345678)), where, k;
    for (k = 0; k < 20; k++) n = put(buf, n, PTC_PAD, 0);
    n = put_ip(buf, n, PTC_FUP, PTC_IPC_UPDATE_16, 0xBEEF);
    CHECK(decode(buf, n, PTC_DECODE_NO_SYNC, NULL, 0, &A) && A.n == 22 && A.it[21].ip_known &&
          A.it[21].ip == UINT64_C(0xFFFF80001234BEEF), "%zu items", A.n);
    CHECK(decode_by(buf, n, PTC_DECODE_NO_SYNC, NULL, 0, 64, &B) && lists_equal(&A, &B, &where), "item %zu", where);
}

static void batch_misuse_is_an_error(void)
{
    uint8_t buf[32];
    ptc_decoder d;
    ptc_record rec[2];
    ptc_packet pkt;
    ptc_item it;
    size_t got = 99, n = put(buf, 0, PTC_PSB, 0);
    ptc_decoder_init_buffer(&d, 0, buf, n);
    CHECK(ptc_decoder_next_batch(&d, rec, 0, &got) == PTC_ERR_BAD_ARGUMENT && got == 0, "cap 0");
    CHECK(ptc_decoder_next_batch(&d, NULL, 2, &got) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_decoder_next_batch(&d, rec, 2, NULL) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_decoder_next_batch(NULL, rec, 2, &got) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_decoder_next_batch(&d, rec, 2, &got) == PTC_END && got == 1 && rec[0].type == PTC_PSB,
          "one PSB, then the end: %zu", got);
    CHECK(ptc_record_packet(&rec[0], &pkt) == PTC_OK && pkt.type == PTC_PSB && pkt.size == 16);
    CHECK(ptc_decoder_next_batch(&d, rec, 2, &got) == PTC_END && got == 0, "after the end");
    buf[3] = 0x42; /* the PSB pattern broken */
    ptc_decoder_init_buffer(&d, PTC_DECODE_NO_SYNC, buf, n);
    CHECK(ptc_decoder_next_batch(&d, rec, 2, &got) == PTC_END && got >= 1 && rec[got - 1].type == PTC_NONE &&
          rec[got - 1].error != PTC_OK, "an error record");
    CHECK(ptc_record_packet(&rec[got - 1], &pkt) == PTC_ERR_BAD_ARGUMENT, "no packet in an error record");
    CHECK(ptc_record_item(&rec[got - 1], &it) == PTC_OK && it.error == (ptc_status)rec[got - 1].error);
    CHECK(ptc_record_item(NULL, &it) == PTC_ERR_BAD_ARGUMENT && ptc_record_packet(&rec[0], NULL) == PTC_ERR_BAD_ARGUMENT);
}

/* ---- 1.13 segments ----------------------------------------------------------- */

/* The items of the segment [start, end), by items or by batches, appended
   to out. 0 if the decoder misbehaved. */
static int decode_segment(const uint8_t *buf, size_t len, unsigned flags, size_t start, size_t end, size_t batch_cap,
                          item_list *out)
{
    ptc_decoder d;
    batch_source b;
    int bad = 0;
    ptc_status st;
    ptc_item it;
    b.n = b.at = 0;
    b.cap = batch_cap;
    b.end = PTC_OK;
    if (ptc_decoder_init_segment(&d, flags, buf, len, start, end) != PTC_OK) return 0;
    while ((st = next_item(&d, &b, &it, &bad)) == PTC_OK && !bad) {
        if (out->n < MAX_ITEMS) out->it[out->n++] = it;
        else out->overflow = 1;
    }
    return st == PTC_END && !bad;
}

/* Decodes buf segment by segment into B and compares with A, the whole
   trace's items. Returns the number of segments, 0 on a difference. */
static size_t segments_match(const uint8_t *buf, size_t n, unsigned flags, size_t batch_cap, const char *what)
{
    size_t start = 0, segs = 0, where;
    B.n = 0;
    B.overflow = 0;
    for (;;) {
        size_t end = ptc_segment_next(buf, n, start + 1);
        CHECK(end > start || end == n, "%s: segment end %zu after start %zu", what, end, start);
        CHECK(end == n || (buf[end] == PTC_OP_EXT && buf[end + 1] == PTC_EXT_PSB), "%s: %zu is no PSB", what, end);
        if (!decode_segment(buf, n, flags, start, end, batch_cap, &B)) {
            CHECK(0, "%s: segment [%zu, %zu) misbehaved", what, start, end);
            return 0;
        }
        segs++;
        if (end >= n) break;
        start = end;
    }
    if (!lists_equal(&A, &B, &where)) {
        CHECK(0, "%s: item %zu of %zu differs (segments gave %zu)", what, where, A.n, B.n);
        return 0;
    }
    return segs;
}

/* Runs of 02 82 pairs before some PSBs: the decoder may read such a run's
   first 16 bytes as a PSB, so no segment may start inside one. */
static void psb_runs(pktgen_rng *r, uint8_t *buf, size_t n)
{
    size_t i;
    for (i = 40; i + 16 <= n; i++) {
        size_t k, pairs;
        if (buf[i] != PTC_OP_EXT || buf[i + 1] != PTC_EXT_PSB || pktgen_next(r) % 3) continue;
        pairs = 1 + pktgen_next(r) % 12;
        for (k = 1; k <= pairs && 2 * k <= i; k++) {
            buf[i - 2 * k] = PTC_OP_EXT;
            buf[i - 2 * k + 1] = PTC_EXT_PSB;
        }
        i += 16;
    }
}

/* Segments decoded one by one, by items or in batches, give the whole
   trace's items: on damaged streams with runs of PSB pairs, every flag. */
static void segments_give_the_whole_trace(void)
{
    static uint8_t buf[8192];
    pktgen_rng r = pktgen_seed(2024);
    int trial;
    size_t segs = 0;
    char what[64];
    for (trial = 0; trial < 120; trial++) {
        size_t n = damaged_stream(&r, buf, sizeof buf);
        unsigned flags = ((trial & 1) ? PTC_DECODE_NO_SYNC : 0) | ((trial & 2) ? PTC_DECODE_SKD007 : 0) |
                         ((trial & 4) ? PTC_DECODE_SKZ84 : 0);
        if (trial & 8) psb_runs(&r, buf, n);
        CHECK(decode(buf, n, flags, NULL, 0, &A) && !A.overflow);
        snprintf(what, sizeof what, "trial %d by items", trial);
        segs += segments_match(buf, n, flags, 0, what);
        snprintf(what, sizeof what, "trial %d in batches", trial);
        (void)segments_match(buf, n, flags, 5, what);
    }
    CHECK(segs > 120 * 5, "only %zu segments in 120 streams", segs);
}

static void segment_edges(void)
{
    uint8_t buf[128];
    ptc_decoder d;
    ptc_item it;
    size_t n = put(buf, 0, PTC_PSB, 0), psb2;
    n = put(buf, n, PTC_MTC, 1);
    psb2 = n;
    n = put(buf, n, PTC_PSB, 0);
    n = put(buf, n, PTC_MTC, 2);
    CHECK(ptc_segment_next(buf, n, 0) == 0 && ptc_segment_next(buf, n, 1) == psb2 && ptc_segment_next(buf, n, psb2 + 1) == n);
    CHECK(ptc_segment_next(NULL, 5, 0) == 5 && ptc_segment_next(buf, 0, 0) == 0, "nothing to search");
    CHECK(ptc_decoder_init_segment(&d, 0, buf, n, psb2, 2) == PTC_ERR_BAD_ARGUMENT, "end before start");
    CHECK(ptc_decoder_init_segment(&d, 0, buf, n, 0, n + 1) == PTC_ERR_BAD_ARGUMENT, "end past the trace");
    CHECK(ptc_decoder_init_segment(NULL, 0, buf, n, 0, n) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_decoder_init_segment(&d, 0, buf, n, 0, psb2 - 1) == PTC_ERR_BAD_ARGUMENT, "an end that is no PSB");
    CHECK(ptc_decoder_init_segment(&d, 0, buf, n, 2, n) == PTC_ERR_BAD_ARGUMENT, "a start that is no PSB");
    CHECK(ptc_decoder_init_segment(&d, 0, buf, n, 0, psb2) == PTC_OK);
    CHECK(ptc_decoder_next(&d, &it) == PTC_OK && it.pkt.type == PTC_PSB && it.offset == 0);
    CHECK(ptc_decoder_next(&d, &it) == PTC_OK && it.pkt.type == PTC_MTC && it.pkt.u.mtc.ctc == 1);
    CHECK(ptc_decoder_next(&d, &it) == PTC_END && ptc_decoder_next(&d, &it) == PTC_END, "the segment ends");
    CHECK(ptc_decoder_init_segment(&d, 0, buf, n, psb2, psb2) == PTC_OK && ptc_decoder_next(&d, &it) == PTC_END,
          "an empty segment");
}

/* ---- API misuse ------------------------------------------------------------- */

static void api_misuse_is_an_error_not_a_crash(void)
{
    uint8_t buf[32];
    ptc_decoder d;
    ptc_item it;
    size_t n = put(buf, 0, PTC_PSB, 0);
    n = put(buf, n, PTC_PSBEND, 0);
    ptc_decoder_init(&d, 0, 0);
    CHECK(ptc_decoder_feed(&d, buf, n) == PTC_OK);
    CHECK(ptc_decoder_feed(&d, buf, n) == PTC_ERR_BAD_STATE, "feed before the chunk is used");
    CHECK(ptc_decoder_feed(NULL, buf, n) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_decoder_next(&d, NULL) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_decoder_next(NULL, &it) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_decoder_next(&d, &it) == PTC_OK && it.pkt.type == PTC_PSB);
    CHECK(ptc_decoder_next(&d, &it) == PTC_OK && it.pkt.type == PTC_PSBEND);
    CHECK(ptc_decoder_next(&d, &it) == PTC_NEED_INPUT);
    CHECK(ptc_decoder_feed(&d, NULL, 5) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_decoder_feed(&d, NULL, 0) == PTC_OK, "an empty chunk is fine");
    CHECK(ptc_decoder_next(&d, &it) == PTC_NEED_INPUT);
    ptc_decoder_finish(&d);
    CHECK(ptc_decoder_feed(&d, buf, n) == PTC_ERR_BAD_STATE, "feed after finish");
    CHECK(ptc_decoder_next(&d, &it) == PTC_END);
}

int main(void)
{
    RUN(sync_skips_to_first_psb);
    RUN(psb_run_syncs_on_its_last_16_bytes);
    RUN(base_offset_shifts_every_offset);
    RUN(malformed_packet_resyncs_at_next_psb);
    RUN(packet_running_into_a_psb_is_an_error);
    RUN(resync_can_start_right_after_the_error_byte);
    RUN(skd007_cut_cyc_is_an_error_then_the_ovf);
    RUN(skz84_corrupt_tma_and_its_bogus_byte_are_skipped);
    RUN(input_ending_inside_a_packet_is_truncated);
    RUN(no_psb_is_reported_once);
    RUN(last_ip_decompression);
    RUN(bip_only_inside_blocks);
    RUN(chunked_equals_one_shot);
    RUN(items_reproduce_the_input);
    RUN(large_stream_chunked);
    RUN(api_misuse_is_an_error_not_a_crash);
    RUN(batch_records_are_the_stream_items);
    RUN(batch_of_clean_streams);
    RUN(batch_and_single_items_mix);
    RUN(batch_hands_the_last_ip_over);
    RUN(batch_misuse_is_an_error);
    RUN(segments_give_the_whole_trace);
    RUN(segment_edges);
    TESTLIB_EXIT();
}

/* fuzz_stream: arbitrary bytes into the stream decoder (SPEC.md 1.9).

   Oracles:
   - decoding in fuzz-chosen chunks gives exactly the items of one-shot
     decoding (each chunk is copied into its own exact-size allocation, so
     a read past a chunk's end is caught by the sanitizer), and so does
     batch decoding (SPEC 1.12) in the same chunks, its records turned
     back into items, and decoding each segment alone (SPEC 1.13);
   - every packet re-encodes to exactly the input bytes at its offset;
   - offsets never go back; a packet follows the previous one directly
     unless an error came in between, and then it is a PSB;
   - a cut_cyc error (erratum SKD007) comes only with its flag, where the
     bytes are a CYC's first byte and an OVF, and the OVF follows it; a
     corrupt_tma (SKZ84) only with its flag, where a TMA has reserved bits
     set, and decoding goes on 8 bytes after it.
   Parameters (from the input's end): sync or not, SKD007 or not, SKZ84 or
   not, up to 8 chunk sizes (the first also sets the batch size). */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_helpers.h"

#include <string.h>

static int same_item(const ptc_item *a, const ptc_item *b)
{
    if (a->offset != b->offset || a->error != b->error) return 0;
    return a->error != PTC_OK ||
           (ptc_packet_equal(&a->pkt, &b->pkt) && a->ip == b->ip && a->ip_known == b->ip_known);
}

/* Decodes the input in chunks of the given sizes (cycled), each copied into
   its own exact-size allocation, by ptc_decoder_next (batch_cap 0) or by
   ptc_decoder_next_batch, and holds every item to the one-shot items. */
static void chunked_equals(const fuzz_input *in, unsigned flags, const size_t *sizes, size_t nsizes,
                           size_t batch_cap, const ptc_item *items, size_t n)
{
    ptc_record recs[64];
    size_t at = 0, k = 0, nchunks = 0, got, i;
    uint8_t *chunk = NULL;
    int last_empty = 0;
    ptc_decoder dec;
    ptc_status st;
    ptc_item it;
    ptc_decoder_init(&dec, flags, 0);
    for (;;) {
        if (batch_cap) {
            st = ptc_decoder_next_batch(&dec, recs, batch_cap, &got);
            FUZZ_ASSERT(st != PTC_OK || got == batch_cap, "a batch of %zu records returned ok", got);
        } else {
            st = ptc_decoder_next(&dec, &it);
            got = st == PTC_OK;
        }
        for (i = 0; i < got; i++) {
            if (batch_cap) FUZZ_ASSERT(ptc_record_item(&recs[i], &it) == PTC_OK, "record %zu has no item", k);
            FUZZ_ASSERT(k < n && same_item(&it, &items[k]), "chunked item %zu differs from one-shot (batch %zu)", k,
                      batch_cap);
            k++;
        }
        if (st == PTC_OK) continue;
        if (st == PTC_NEED_INPUT) {
            size_t c;
            free(chunk);
            chunk = NULL;
            if (at == in->size) { ptc_decoder_finish(&dec); continue; }
            /* empty chunks are allowed, but never two in a row */
            c = sizes[nchunks++ % nsizes];
            if (c == 0 && last_empty) c = 1;
            last_empty = c == 0;
            if (c > in->size - at) c = in->size - at;
            if (c) {
                chunk = (uint8_t *)malloc(c);
                FUZZ_ASSERT(chunk != NULL, "out of memory");
                memcpy(chunk, in->data + at, c);
            }
            FUZZ_ASSERT(ptc_decoder_feed(&dec, chunk, c) == PTC_OK, "feed refused");
            at += c;
        } else {
            FUZZ_ASSERT(st == PTC_END, "chunked decoding ended with %s", ptc_status_name(st));
            break;
        }
    }
    free(chunk);
    FUZZ_ASSERT(k == n, "chunked decoding gave %zu items, one-shot %zu (batch %zu)", k, n, batch_cap);
}

/* The trace cut into segments (SPEC 1.13), each decoded alone (by items,
   or by batches of batch_cap records), gives the one-shot items. */
static void segments_equal(const fuzz_input *in, unsigned flags, size_t batch_cap, const ptc_item *items, size_t n)
{
    ptc_record recs[64];
    size_t start = 0, k = 0, got, i;
    for (;;) {
        size_t end = ptc_segment_next(in->data, in->size, start + 1);
        ptc_decoder dec;
        ptc_status st;
        ptc_item it;
        FUZZ_ASSERT(end > start || end == in->size, "segment end %zu after %zu", end, start);
        FUZZ_ASSERT(ptc_decoder_init_segment(&dec, flags, in->data, in->size, start, end) == PTC_OK,
                  "segment [%zu, %zu) refused", start, end);
        do {
            if (batch_cap) {
                st = ptc_decoder_next_batch(&dec, recs, batch_cap, &got);
            } else {
                st = ptc_decoder_next(&dec, &it);
                got = st == PTC_OK;
            }
            for (i = 0; i < got; i++) {
                if (batch_cap) FUZZ_ASSERT(ptc_record_item(&recs[i], &it) == PTC_OK, "record %zu has no item", k);
                FUZZ_ASSERT(k < n && same_item(&it, &items[k]) && it.offset >= start && it.offset < end + (end == in->size),
                          "item %zu of segment [%zu, %zu) differs from one-shot (batch %zu)", k, start, end, batch_cap);
                k++;
            }
        } while (st == PTC_OK);
        FUZZ_ASSERT(st == PTC_END, "segment [%zu, %zu) ended with %s", start, end, ptc_status_name(st));
        if (end >= in->size) break;
        start = end;
    }
    FUZZ_ASSERT(k == n, "segments gave %zu items, one-shot %zu (batch %zu)", k, n, batch_cap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    unsigned flags;
    size_t sizes[8], nsizes, i, n = 0, cap, next = 0;
    ptc_item *items, it;
    ptc_decoder dec;
    ptc_status st;
    int after_error;

    if (size > FUZZ_MAX_INPUT) return 0;
    in.data = data;
    in.size = size;
    flags = (unsigned)fuzz_take(&in, 0, 7); /* PTC_DECODE_NO_SYNC, PTC_DECODE_SKD007, PTC_DECODE_SKZ84 */
    nsizes = fuzz_take(&in, 1, 8);
    for (i = 0; i < nsizes; i++) sizes[i] = fuzz_take(&in, 0, 255);

    /* one shot. In sync mode the first packet is a PSB anywhere, as after
       an error. */
    after_error = !(flags & PTC_DECODE_NO_SYNC);
    cap = in.size + 2;
    items = (ptc_item *)malloc(cap * sizeof *items);
    FUZZ_ASSERT(items != NULL, "out of memory");
    ptc_decoder_init_buffer(&dec, flags, in.data, in.size);
    while ((st = ptc_decoder_next(&dec, &it)) == PTC_OK) {
        FUZZ_ASSERT(n < cap, "more items (%zu) than bytes (%zu)", n, in.size);
        items[n++] = it;
        if (it.error == PTC_OK) {
            uint8_t out[PTC_MAX_PACKET_SIZE];
            size_t w = 0;
            FUZZ_ASSERT(after_error ? (it.pkt.type == PTC_PSB && it.offset >= next) : it.offset == next,
                      "packet at %llu, decoding stood at %llu", (unsigned long long)it.offset,
                      (unsigned long long)next);
            FUZZ_ASSERT(ptc_encode_packet(&it.pkt, out, sizeof out, &w) == PTC_OK && w == it.pkt.size &&
                          it.offset + w <= in.size && memcmp(out, in.data + it.offset, w) == 0,
                      "%s at %llu does not re-encode to its bytes", ptc_packet_type_name(it.pkt.type),
                      (unsigned long long)it.offset);
            next = it.offset + w;
            after_error = 0;
        } else if (it.error == PTC_ERR_CUT_CYC) {
            FUZZ_ASSERT((flags & PTC_DECODE_SKD007) && !after_error && it.offset == next && it.offset + 3 <= in.size &&
                          (in.data[it.offset] & 7) == 7 && in.data[it.offset + 1] == PTC_OP_EXT &&
                          in.data[it.offset + 2] == PTC_EXT_OVF,
                      "cut_cyc at %llu", (unsigned long long)it.offset);
            next = it.offset + 1; /* the OVF, not a resync */
        } else if (it.error == PTC_ERR_CORRUPT_TMA) {
            FUZZ_ASSERT((flags & PTC_DECODE_SKZ84) && !after_error && it.offset == next && it.offset + 7 <= in.size &&
                          in.data[it.offset] == PTC_OP_EXT && in.data[it.offset + 1] == PTC_EXT_TMA &&
                          (in.data[it.offset + 4] != 0 || (in.data[it.offset + 6] & 0xFE) != 0),
                      "corrupt_tma at %llu", (unsigned long long)it.offset);
            next = it.offset + 8; /* and its bogus byte (or the end), not a resync */
        } else {
            FUZZ_ASSERT(it.offset <= in.size, "error offset past the end");
            FUZZ_ASSERT(it.error == PTC_ERR_NO_PSB || (!after_error && it.offset == next),
                      "error %s at %llu, decoding stood at %llu", ptc_status_name(it.error),
                      (unsigned long long)it.offset, (unsigned long long)next);
            next = it.offset + 1;
            after_error = 1;
        }
    }
    FUZZ_ASSERT(st == PTC_END, "one-shot decoding ended with %s", ptc_status_name(st));

    /* the same input in chunks, by items and by batches of records */
    chunked_equals(&in, flags, sizes, nsizes, 0, items, n);
    chunked_equals(&in, flags, sizes, nsizes, 1 + sizes[0] % 64, items, n);
    /* and segment by segment */
    segments_equal(&in, flags, 0, items, n);
    segments_equal(&in, flags, 1 + sizes[0] % 64, items, n);
    free(items);
    return 0;
}

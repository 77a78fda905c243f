/* fuzz_roundtrip: the encoder and decoder are exact inverses (SPEC.md 1.8).

   The first parameter byte picks one of three modes:
   0 bytes:      every packet the single-packet decoder accepts in the input
                 re-encodes to the same bytes and decodes to the same packet;
   1 structured: the input steers a generator of valid packets (every choice
                 comes from input bytes); their encoding, decoded as a
                 stream, gives back exactly that list;
   2 raw struct: input bytes fill a ptc_packet; if the encoder accepts it,
                 decoding its bytes gives the same packet (the encoder never
                 writes what its decoder rejects or reads differently), and
                 its size is within the packet list's sizes for the type.
   In every mode the input's first bytes are also looked up as a packet
   type's name: a type is found only by one of its two names. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_helpers.h"
#include "../harness/pktgen.h"

#include <string.h>

static void bytes_mode(const uint8_t *d, size_t n)
{
    size_t at = 0;
    ptc_block_ctx blk = PTC_BLOCK_NONE;
    while (at < n) {
        ptc_packet p, q;
        uint8_t out[PTC_MAX_PACKET_SIZE];
        size_t w = 0;
        ptc_status st = ptc_decode_packet(d + at, n - at, blk, &p);
        if (st != PTC_OK) {
            FUZZ_ASSERT(st != PTC_ERR_TRUNCATED || n - at < PTC_MAX_PACKET_SIZE,
                      "truncated with %zu bytes available", n - at);
            at++;
            blk = PTC_BLOCK_NONE;
            continue;
        }
        FUZZ_ASSERT(p.size >= 1 && p.size <= n - at, "size %u", p.size);
        FUZZ_ASSERT(ptc_encode_packet(&p, out, sizeof out, &w) == PTC_OK && w == p.size &&
                      memcmp(out, d + at, w) == 0,
                  "%s at %zu re-encodes differently", ptc_packet_type_name(p.type), at);
        FUZZ_ASSERT(ptc_decode_packet(out, w, blk, &q) == PTC_OK && ptc_packet_equal(&p, &q),
                  "%s at %zu decodes differently the second time", ptc_packet_type_name(p.type), at);
        blk = ptc_block_ctx_after(blk, &p);
        at += p.size;
    }
}

enum { MAX_LIST = 4096 };

static void structured_mode(const uint8_t *d, size_t n)
{
    static ptc_packet list[MAX_LIST];
    static uint8_t buf[MAX_LIST * PTC_MAX_PACKET_SIZE];
    pktgen_rng r = pktgen_from_bytes(d, n);
    pktgen_mix mix;
    size_t np = 0, len = 0, k = 0;
    ptc_block_ctx blk = PTC_BLOCK_NONE;
    ptc_decoder dec;
    ptc_item it;
    pktgen_mix_uniform(&mix, 0);
    while (r.src_len && np < MAX_LIST) {
        ptc_packet *p = &list[np];
        size_t w = 0;
        pktgen_packet(&r, pktgen_pick(&r, &mix, blk), blk, 0, p);
        FUZZ_ASSERT(ptc_encode_packet(p, buf + len, sizeof buf - len, &w) == PTC_OK,
                  "generated %s refused", ptc_packet_type_name(p->type));
        p->size = (uint8_t)w;
        len += w;
        blk = ptc_block_ctx_after(blk, p);
        np++;
    }
    ptc_decoder_init_buffer(&dec, PTC_DECODE_NO_SYNC, buf, len);
    while (ptc_decoder_next(&dec, &it) == PTC_OK) {
        FUZZ_ASSERT(it.error == PTC_OK, "%s at %llu", ptc_status_name(it.error), (unsigned long long)it.offset);
        FUZZ_ASSERT(k < np && ptc_packet_equal(&it.pkt, &list[k]), "packet %zu (%s) differs", k,
                  ptc_packet_type_name(list[k < np ? k : 0].type));
        k++;
    }
    FUZZ_ASSERT(k == np, "%zu packets decoded, %zu encoded", k, np);
}

static void raw_struct_mode(const uint8_t *d, size_t n)
{
    while (n >= 1) {
        ptc_packet p, q;
        uint8_t out[PTC_MAX_PACKET_SIZE];
        size_t w = 0, take;
        ptc_status st;
        memset(&p, 0, sizeof p);
        p.type = (ptc_packet_type)(d[0] % (PTC_PACKET_TYPE_COUNT + 1)); /* PTC_NONE and one past the end too */
        take = n - 1 < sizeof p.u ? n - 1 : sizeof p.u;
        memcpy(&p.u, d + 1, take);
        p.size = (uint8_t)(take ? d[1] % 12 : 0);
        d += 1 + take;
        n -= 1 + take;
        st = ptc_encode_packet(&p, out, sizeof out, &w);
        if (st != PTC_OK) {
            FUZZ_ASSERT(st == PTC_ERR_RANGE || st == PTC_ERR_BAD_TYPE, "encoder said %s", ptc_status_name(st));
            FUZZ_ASSERT(w == 0, "refusal wrote %zu bytes", w);
            continue;
        }
        st = ptc_decode_packet(out, w, p.type == PTC_BIP ? (p.u.bip.bytes == 4 ? PTC_BLOCK_4 : PTC_BLOCK_8)
                                                         : PTC_BLOCK_NONE, &q);
        p.size = (uint8_t)w;
        FUZZ_ASSERT(st == PTC_OK, "encoded %s does not decode: %s", ptc_packet_type_name(p.type), ptc_status_name(st));
        FUZZ_ASSERT(w >= ptc_packet_min_size(p.type) && w <= ptc_packet_max_size(p.type), "%s of %zu bytes",
                  ptc_packet_type_name(p.type), w);
        FUZZ_ASSERT(ptc_packet_equal(&p, &q), "encoded %s decodes to a different packet", ptc_packet_type_name(p.type));
    }
}

/* The input's first bytes, up to a NUL, as a name (SPEC 1.4). */
static void name_lookup(const uint8_t *d, size_t n)
{
    char name[24];
    size_t k = n < sizeof name - 1 ? n : sizeof name - 1;
    ptc_packet_type t;
    memcpy(name, d, k);
    name[k] = 0;
    t = ptc_packet_type_from_name(name);
    FUZZ_ASSERT(t == PTC_NONE || strcmp(name, ptc_packet_type_name(t)) == 0 ||
                  strcmp(name, ptc_packet_type_dump_name(t)) == 0,
              "'%s' found type %s", name, ptc_packet_type_name(t));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    unsigned mode;
    if (size > FUZZ_MAX_INPUT) return 0;
    name_lookup(data, size);
    in.data = data;
    in.size = size;
    mode = fuzz_take(&in, 0, 2);
    if (mode == 0) bytes_mode(in.data, in.size);
    else if (mode == 1) structured_mode(in.data, in.size);
    else raw_struct_mode(in.data, in.size);
    return 0;
}

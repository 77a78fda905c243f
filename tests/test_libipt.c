/* Part 1 against libipt 2.0.5 (SPEC.md 1.11): packets encoded by ptcodec
   decode the same in libipt's pt_pkt_next, packets encoded by libipt's
   pt_enc_next decode the same in ptcodec, and arbitrary bytes give the
   same packets or the same error class, up to tests/libipt_allowlist.h. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include <intel-pt.h>
#include "testlib.h"
#include "../tools/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../tools/modelrec.h"
#include "libipt_allowlist.h"

#include <string.h>

#define BUF (1 << 16)
#define MAXP (1 << 16)

static uint8_t buf[BUF];
static ptc_packet pkts[MAXP];
static size_t offs[MAXP];
static unsigned long allow_hits[LX_REASON_COUNT];

static void libipt_version(void)
{
    struct pt_version v = pt_library_version();
    printf("# libipt %u.%u.%u\n", v.major, v.minor, v.patch);
    CHECK(v.major == 2, "libipt %u.%u: the allowlist is written for 2.0", v.major, v.minor);
}

static void ptcodec_encoded_streams_decode_same_in_libipt(void)
{
    pg_rng r = pg_seed(2024);
    pg_mix mix;
    int trial;
    size_t total = 0;
    pg_mix_uniform(&mix, PG_LIBIPT_205);
    for (trial = 0; trial < 40; trial++) {
        size_t n, np = 0, i;
        struct pt_packet_decoder *d;
        char why[64];
        n = pg_stream(&r, &mix, PG_LIBIPT_205, 1000 + trial * 37, buf, BUF, pkts, offs, MAXP, &np);
        d = lx_decoder_at_0(buf, n);
        CHECK(d != NULL);
        if (!d) return;
        for (i = 0; i < np; i++) {
            struct pt_packet t;
            int rc = pt_pkt_next(d, &t, sizeof t);
            if (rc < 0) { CHECK(0, "trial %d packet %zu (%s at %zu): libipt %s", trial, i,
                                ptc_packet_type_name(pkts[i].type), offs[i], pt_errstr(pt_errcode(rc))); break; }
            if (!lx_same(&pkts[i], &t, why, sizeof why)) {
                CHECK(0, "trial %d packet %zu (%s at %zu): %s differs", trial, i,
                      ptc_packet_type_name(pkts[i].type), offs[i], why);
                break;
            }
        }
        {
            struct pt_packet t;
            CHECK(pt_pkt_next(d, &t, sizeof t) == -pte_eos, "libipt found more packets");
        }
        total += np;
        pt_pkt_free_decoder(d);
    }
    CHECK(total > 100000, "only %zu packets compared", total);
}

static void libipt_encoded_streams_decode_same_in_ptcodec(void)
{
    pg_rng r = pg_seed(31337);
    int trial;
    size_t total = 0;
    for (trial = 0; trial < 40; trial++) {
        struct pt_config cfg;
        struct pt_encoder *e;
        static struct pt_packet theirs[MAXP];
        size_t np = 0, i;
        uint64_t end = 0;
        ptc_decoder dec;
        ptc_item it;
        char why[64];
        pt_config_init(&cfg);
        cfg.begin = buf;
        cfg.end = buf + BUF;
        e = pt_alloc_encoder(&cfg);
        CHECK(e != NULL);
        if (!e) return;
        while (np < MAXP) {
            ptc_packet o;
            ptc_packet_type ty;
            int rc;
            do ty = (ptc_packet_type)pg_range(&r, 1, PTC_PACKET_TYPE_COUNT - 1);
            while (!pg_known_to_libipt205(ty));
            pg_packet(&r, ty, PTC_BLOCK_NONE, PG_LIBIPT_205, &o);
            lx_to_libipt(&o, &theirs[np]);
            rc = pt_enc_next(e, &theirs[np]);
            if (rc == -pte_eos) break;
            CHECK(rc > 0, "libipt refused to encode a %s", ptc_packet_type_name(ty));
            if (rc <= 0) break;
            theirs[np].size = (uint8_t)rc;
            end += (uint64_t)rc;
            np++;
        }
        pt_free_encoder(e);
        ptc_decoder_init_buffer(&dec, PTC_DECODE_NO_SYNC, buf, (size_t)end);
        for (i = 0; i < np; i++) {
            if (ptc_decoder_next(&dec, &it) != PTC_OK || it.error != PTC_OK) {
                CHECK(0, "trial %d packet %zu: ptcodec %s", trial, i, ptc_status_name(it.error));
                break;
            }
            if (!lx_same(&it.pkt, &theirs[i], why, sizeof why)) {
                CHECK(0, "trial %d packet %zu (%s at %llu): %s differs", trial, i,
                      ptc_packet_type_name(it.pkt.type), (unsigned long long)it.offset, why);
                break;
            }
        }
        CHECK(ptc_decoder_next(&dec, &it) == PTC_END, "ptcodec found more");
        total += np;
    }
    CHECK(total > 100000, "only %zu packets compared", total);
}

/* Arbitrary bytes: decode from offset 0 in both, packet by packet, until
   the first error or allowlisted difference. */
static void compare_bytes(const uint8_t *b, size_t n, int *mismatch)
{
    lx_walk w = lx_compare_walk(b, n);
    if (w.reason != LX_NONE) allow_hits[w.reason]++;
    if (w.mismatch) {
        CHECK(0, "at %zu (byte %02x %02x): %s", w.at, w.at < n ? b[w.at] : 0, w.at + 1 < n ? b[w.at + 1] : 0, w.why);
        *mismatch = 1;
    }
}

static void arbitrary_bytes_same_packets_or_same_error(void)
{
    pg_rng r = pg_seed(7);
    pg_mix mix;
    int trial, mismatch = 0, k;
    pg_mix_uniform(&mix, 0);
    for (trial = 0; trial < 20000 && !mismatch; trial++) {
        size_t n, i;
        if (trial % 2) {
            /* a valid stream (every type, reserved bits too), then damage */
            n = pg_stream(&r, &mix, 0, 512, buf, 512 + pg_next(&r) % 1024, NULL, NULL, 0, NULL);
            for (i = 0; i < 3 && n; i++) buf[pg_next(&r) % n] ^= (uint8_t)(1u << (pg_next(&r) % 8));
        } else {
            n = 1 + pg_next(&r) % 64;
            for (i = 0; i < n; i++) buf[i] = (pg_next(&r) % 3) ? (uint8_t)pg_next(&r) : 0;
        }
        compare_bytes(buf, n, &mismatch);
    }
    for (k = 1; k < LX_REASON_COUNT; k++)
        if (allow_hits[k]) printf("# allowlisted, ended %lu comparisons: %s\n", allow_hits[k], lx_reason_text((enum lx_reason)k));
}

/* Both opcode maps: every 1- and 2-byte opcode with every filler gives the
   same class in both decoders (or an allowlisted difference). */
static void every_opcode_same_class(void)
{
    int b0, b1, fill, mismatch = 0;
    for (fill = 0; fill < 3; fill++)
        for (b0 = 0; b0 < 256; b0++)
            for (b1 = 0; b1 < (b0 == 2 ? 256 : 1); b1++) {
                uint8_t b[16];
                memset(b, fill == 0 ? 0x00 : fill == 1 ? 0xFF : 0x11, sizeof b);
                b[0] = (uint8_t)b0;
                if (b0 == 2) b[1] = (uint8_t)b1;
                compare_bytes(b, sizeof b, &mismatch);
            }
}

/* Part 5: what the hardware model writes decodes in libipt too. */
static void model_streams_decode_in_libipt(void)
{
    static const char *policies[] = { "off", "seed", "threshold=3,resume_value=0,resume_after=0" };
    int wi;
    size_t p;
    for (wi = 0; wi < WL_COUNT; wi++)
        for (p = 0; p < 3; p++) {
            ptc_model_config cfg;
            ptc_model m;
            mr_trace o;
            ptc_model_sink sink = mr_start(&o, 1);
            struct pt_packet_decoder *d;
            struct pt_packet pkt;
            char err[100];
            int rc;
            size_t n = 0;
            ptc_model_config_default(&cfg);
            wl_configure(wi, &cfg);
            cfg.cyc_en = (uint8_t)(p != 1);
            CHECK(mc_policy(&cfg.policy, policies[p], err, sizeof err));
            CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
            wl_run_workload(wi, &m, 3000000, p + 3);
            d = lx_decoder_at_0(o.bytes, o.len);
            CHECK(d != NULL);
            if (!d) { mr_free(&o); continue; }
            while ((rc = pt_pkt_next(d, &pkt, sizeof pkt)) > 0) n++;
            CHECK(rc == -pte_eos, "%s/%s: libipt stops after %zu packets: %s", wl_names[wi], policies[p], n,
                  pt_errstr(pt_errcode(rc)));
            CHECK(n > 20, "%s: %zu packets", wl_names[wi], n);
            pt_pkt_free_decoder(d);
            mr_free(&o);
        }
}

int main(void)
{
    RUN(libipt_version);
    RUN(ptcodec_encoded_streams_decode_same_in_libipt);
    RUN(libipt_encoded_streams_decode_same_in_ptcodec);
    RUN(every_opcode_same_class);
    RUN(arbitrary_bytes_same_packets_or_same_error);
    RUN(model_streams_decode_in_libipt);
    TL_EXIT();
}

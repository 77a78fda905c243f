/* fuzz_libipt22: libipt 2.2's decoders on PT bytes, built from
   ../shared/reference/libipt-2.2.tar.gz with the fuzzer's instrumentation
   and ASan+UBSan (make fuzz-libipt22). The worked example of fuzzing
   someone else's decoder with ptcodec's mutator (fuzz/README.md, "Fuzzing
   your decoder").

   The input's last bytes choose libipt's configuration (its errata bits,
   the MTC frequency, the nominal ratio and the ART-to-TSC ratio), as
   fuzz_take draws them; the rest is the trace. Three of libipt's decoders
   read it:
   - the packet decoder, packet after packet from offset 0, held to
     ptcodec's packet by packet with the differential template
     (harness/ptdiff.h) and the allowlist below; then from the first PSB;
   - the query decoder with time: every event, branch and TSC it gives,
     syncing again after each error;
   - the event decoder (new in 2.1), event after event, syncing again
     after each error.
   Oracles: the sanitizers (a crash, a read outside the buffer, undefined
   behaviour); no decoder keeps answering without moving on (steps_for); the packet decoder reads from offset 0 the packets
   ptcodec reads, and stops where and as ptcodec does (type, offset and
   size; an error's class), up to the allowlist; and the packet decoder syncs
   on the first PSB ptcodec finds (SPEC 1.9), or both find none; the query
   and event decoders, when their first sync succeeds, sync on a PSB at or
   after that one. (They also read the PSB+ that follows and may move on to
   a later PSB: the query decoder, meeting an OVF in the first PSB+, reports
   the next PSB as its sync point, while its own event decoder reports the
   first. That is a choice, not a disagreement with the SDM.)

   Built twice: as it is (libFuzzer's byte-level mutations), and with
   ptcodec's mutator as fuzz_libipt22+ptm (fuzz/with_mutator.c), so that
   fuzz/compare_mutators.sh can run the same harness both ways. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include <intel-pt.h>
#include "fuzz_helpers.h"
#include "../harness/ptdiff.h"
#include "../harness/libipt_types.h"

#include <string.h>

/* The most steps a decoder may take on len bytes: a byte holds at most
   six branches (a TNT-8), and every other answer consumes a packet. Far
   more than that is a decoder answering without moving on: a hang. */
static size_t steps_for(size_t len) { return 64 * len + 1000; }

static void config_from_tail(fuzz_input *in, struct pt_config *cfg)
{
    uint32_t e = fuzz_take(in, 0, 0x3FF);
    cfg->errata.bdm70 = e & 1;
    cfg->errata.bdm64 = (e >> 1) & 1;
    cfg->errata.skd007 = (e >> 2) & 1;
    cfg->errata.skd022 = (e >> 3) & 1;
    cfg->errata.skd010 = (e >> 4) & 1;
    cfg->errata.skl014 = (e >> 5) & 1;
    cfg->errata.apl12 = (e >> 6) & 1;
    cfg->errata.apl11 = (e >> 7) & 1;
    cfg->errata.skl168 = (e >> 8) & 1;
    cfg->errata.skz84 = (e >> 9) & 1;
    cfg->mtc_freq = (uint8_t)fuzz_take(in, 0, 15);
    cfg->nom_freq = (uint8_t)fuzz_take(in, 0, 255);
    cfg->cpuid_0x15_eax = fuzz_take(in, 0, 8);
    cfg->cpuid_0x15_ebx = fuzz_take(in, 0, 1000);
}

/* ---- libipt's packet decoder as fuzz/ptdiff.h's adaptor ----------------- */

static struct pt_config adaptor_cfg; /* the input's configuration, for open() */

static void *lx22_open(const uint8_t *buf, size_t len)
{
    struct pt_config cfg = adaptor_cfg;
    struct pt_packet_decoder *d;
    cfg.begin = (uint8_t *)(uintptr_t)buf;
    cfg.end = (uint8_t *)(uintptr_t)buf + len;
    d = pt_pkt_alloc_decoder(&cfg);
    if (d && pt_pkt_sync_set(d, 0) < 0) {
        pt_pkt_free_decoder(d);
        return NULL;
    }
    return d;
}

static ptdiff_said lx22_next(void *self, ptdiff_step *step)
{
    struct pt_packet_decoder *d = (struct pt_packet_decoder *)self;
    const struct pt_config *cfg = pt_pkt_get_config(d);
    struct pt_packet pkt;
    uint64_t off = 0;
    int rc;
    pt_pkt_get_offset(d, &off);
    step->offset = off;
    rc = pt_pkt_next(d, &pkt, sizeof pkt);
    step->said = libipt_said_of_libipt(rc);
    if (rc >= 0) {
        step->size = pkt.size;
        step->type = libipt_ptc_type(&pkt);
    } else if (step->said == PTDIFF_TRUNCATED && off == (uint64_t)(cfg->end - cfg->begin)) {
        step->said = PTDIFF_END; /* (libipt says eos between packets too) */
    }
    return step->said;
}

static void lx22_close(void *self) { pt_pkt_free_decoder((struct pt_packet_decoder *)self); }

static const ptdiff_decoder lx22 = { "libipt 2.2", lx22_open, lx22_next, lx22_close };

/* a CYC of 10 bytes at off */
static int cyc_of_10_bytes(const uint8_t *buf, size_t len, uint64_t off)
{
    ptc_packet p;
    return ptc_decode_packet(buf + off, len - off, PTC_BLOCK_NONE, &p) == PTC_OK && p.size == 10;
}

/* a BBP's or BEP's beginning, the input ending inside it */
static int pebs_opcode(const uint8_t *buf, size_t len, uint64_t off)
{
    return len - off >= 2 && buf[off] == 0x02 && (buf[off + 1] == PTC_EXT_BBP || (buf[off + 1] & 0x7F) == PTC_EXT_BEP);
}

/* a PSB's beginning with fewer than 16 bytes left */
static int short_psb(const uint8_t *buf, size_t len, uint64_t off)
{
    return len - off < 16 && len - off >= 2 && buf[off] == 0x02 && buf[off + 1] == 0x82;
}

/* libipt 2.2 and ptcodec: the known differences (SPEC 1.11 gives them for
   2.0.5; 2.2 reads CFE, EVD and TRIG as ptcodec does) */
static const ptdiff_allow lx22_allow[] = {
    { PTC_BBP, PTDIFF_PACKET, PTDIFF_MALFORMED, NULL, "PEBS via PT (BBP, BIP, BEP) is not in libipt" },
    { PTC_BEP, PTDIFF_PACKET, PTDIFF_MALFORMED, NULL, "PEBS via PT (BBP, BIP, BEP) is not in libipt" },
    { PTC_BIP, PTDIFF_PACKET, PTDIFF_MALFORMED, NULL, "PEBS via PT (BBP, BIP, BEP) is not in libipt" },
    { PTC_NONE, PTDIFF_TRUNCATED, PTDIFF_MALFORMED, pebs_opcode, "PEBS via PT (BBP, BIP, BEP) is not in libipt" },
    { PTC_CYC, PTDIFF_PACKET, PTDIFF_MALFORMED, cyc_of_10_bytes, "a CYC with a count >= 2^61 needs 10 bytes; libipt stops at 9" },
    { PTC_NONE, PTDIFF_MALFORMED, PTDIFF_TRUNCATED, short_psb,
      "a broken PSB with under 16 bytes left: libipt says eos (it checks the length first), ptcodec bad_psb" },
};

/* The packet decoder from its first PSB; its sync offset (UINT64_MAX: none). */
static uint64_t walk_packets(const struct pt_config *cfg)
{
    size_t limit = steps_for((size_t)(cfg->end - cfg->begin)), n;
    struct pt_packet_decoder *d = pt_pkt_alloc_decoder(cfg);
    struct pt_packet pkt;
    uint64_t at = UINT64_MAX;
    FUZZ_ASSERT(d != NULL, "pt_pkt_alloc_decoder");
    if (pt_pkt_sync_forward(d) >= 0) {
        FUZZ_ASSERT(pt_pkt_get_sync_offset(d, &at) >= 0, "no sync offset after a sync");
        for (n = 0; n < limit && pt_pkt_next(d, &pkt, sizeof pkt) >= 0; n++)
            ;
        FUZZ_ASSERT(n < limit, "the packet decoder gave %zu packets", n);
    }
    pt_pkt_free_decoder(d);
    return at;
}

/* The query decoder: events, branches and time, syncing again after an
   error; where its first sync succeeded (UINT64_MAX: it failed). */
static uint64_t walk_queries(const struct pt_config *cfg)
{
    struct pt_query_decoder *q = pt_qry_alloc_decoder(cfg);
    uint64_t first = UINT64_MAX, ip = 0, tsc = 0;
    uint32_t lost_mtc = 0, lost_cyc = 0, cbr = 0;
    size_t limit = steps_for((size_t)(cfg->end - cfg->begin)), n;
    int st;
    FUZZ_ASSERT(q != NULL, "pt_qry_alloc_decoder");
    st = pt_qry_sync_forward(q, &ip);
    if (st >= 0) FUZZ_ASSERT(pt_qry_get_sync_offset(q, &first) >= 0, "no sync offset after a sync");
    for (n = 0; n < limit && st != -pte_eos; n++) {
        if (st < 0) { /* an error: on from the next PSB */
            st = pt_qry_sync_forward(q, &ip);
            continue;
        }
        if (st & pts_event_pending) {
            struct pt_event ev;
            st = pt_qry_event(q, &ev, sizeof ev);
            continue;
        }
        (void)pt_qry_time(q, &tsc, &lost_mtc, &lost_cyc);
        (void)pt_qry_core_bus_ratio(q, &cbr);
        {
            int taken;
            st = pt_qry_cond_branch(q, &taken);
            if (st == -pte_bad_query) st = pt_qry_indirect_branch(q, &ip);
        }
    }
    pt_qry_free_decoder(q);
    FUZZ_ASSERT(n < limit, "the query decoder answered %zu times", n);
    return first;
}

/* The event decoder: every event, syncing again after an error; where its
   first sync succeeded (UINT64_MAX: it failed). */
static uint64_t walk_events(const struct pt_config *cfg)
{
    struct pt_event_decoder *d = pt_evt_alloc_decoder(cfg);
    uint64_t first = UINT64_MAX;
    size_t limit = steps_for((size_t)(cfg->end - cfg->begin)), n;
    int st;
    FUZZ_ASSERT(d != NULL, "pt_evt_alloc_decoder");
    st = pt_evt_sync_forward(d);
    if (st >= 0) FUZZ_ASSERT(pt_evt_get_sync_offset(d, &first) >= 0, "no sync offset after a sync");
    for (n = 0; n < limit && st != -pte_eos; n++) {
        struct pt_event ev;
        st = st < 0 ? pt_evt_sync_forward(d) : pt_evt_next(d, &ev, sizeof ev);
    }
    pt_evt_free_decoder(d);
    FUZZ_ASSERT(n < limit, "the event decoder gave %zu events", n);
    return first;
}

/* ptcodec's first PSB: where its syncing decoder's first item is, unless
   that is the report that there is none. */
static uint64_t ptcodec_first_psb(const uint8_t *data, size_t size)
{
    ptc_decoder dec;
    ptc_item it;
    ptc_decoder_init_buffer(&dec, 0, data, size);
    if (ptc_decoder_next(&dec, &it) == PTC_OK && it.error != PTC_ERR_NO_PSB) return it.offset;
    return UINT64_MAX;
}

/* Whether a decoder's sync point `at` is a PSB at or after ptcodec's first. */
static int syncs_on_psb(const uint8_t *data, size_t size, uint64_t at, uint64_t ours)
{
    static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
    return at == UINT64_MAX || (at >= ours && at <= size - sizeof psb && !memcmp(data + at, psb, sizeof psb));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = { data, size };
    struct pt_config cfg;
    uint8_t *copy;
    uint64_t ours, pkt_at, qry_at, evt_at;
    pt_config_init(&cfg);
    config_from_tail(&in, &cfg);
    if (in.size == 0 || in.size > 65536) return 0; /* libipt refuses an empty buffer */
    /* libipt reads only inside [begin, end): an exact copy lets ASan see
       any read past it */
    copy = (uint8_t *)malloc(in.size);
    FUZZ_ASSERT(copy != NULL, "out of memory");
    memcpy(copy, in.data, in.size);
    cfg.begin = copy;
    cfg.end = copy + in.size;
    {
        ptdiff_result res;
        char why[300];
        adaptor_cfg = cfg; /* packet by packet, with no errata: ptcodec's packet decoder has none (SKD007's
                              cut CYC is the stream decoder's business, SPEC 1.9) */
        memset(&adaptor_cfg.errata, 0, sizeof adaptor_cfg.errata);
        FUZZ_ASSERT(ptdiff_compare(&lx22, copy, in.size, lx22_allow, sizeof lx22_allow / sizeof lx22_allow[0], &res),
                  "libipt would not decode %zu bytes", in.size);
        ptdiff_describe(&lx22, &res, why, sizeof why);
        FUZZ_ASSERT(!res.differ, "from offset 0, after %llu packets alike: %s", (unsigned long long)res.packets, why);
    }
    pkt_at = walk_packets(&cfg);
    qry_at = walk_queries(&cfg);
    evt_at = walk_events(&cfg);
    ours = ptcodec_first_psb(copy, in.size);
    FUZZ_ASSERT(pkt_at == ours && syncs_on_psb(copy, in.size, qry_at, ours) && syncs_on_psb(copy, in.size, evt_at, ours),
              "first PSB: ptcodec %lld, libipt's packet decoder %lld, query decoder %lld, event decoder %lld",
              ours == UINT64_MAX ? -1LL : (long long)ours, pkt_at == UINT64_MAX ? -1LL : (long long)pkt_at,
              qry_at == UINT64_MAX ? -1LL : (long long)qry_at, evt_at == UINT64_MAX ? -1LL : (long long)evt_at);
    free(copy);
    return 0;
}

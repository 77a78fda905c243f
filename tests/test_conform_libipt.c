/* Part 7 against libipt (SPEC.md 7.5): a model stream with one packet put
   where the SDM does not allow it. Every error libipt reports there (a
   context error, no IP, a bad packet: libipt's word that the stream is
   wrong) must have a ptcodec finding or decode error in the same PSB
   segment (libipt may report at the PSB it synced from), or, when libipt
   reports at a PSB, in the segment before it.

   Built twice: against Debian's libipt 2.0.5 (its query decoder) and
   against libipt 2.2 built from shared/reference/libipt-2.2.tar.gz (its
   query decoder, which sits on its event decoder, and the event decoder
   itself). */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include <intel-pt.h>
#include "testlib.h"
#include "../harness/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../harness/modelrec.h"

#include <string.h>

enum { MAX_PSB = 4096, MAX_ERR = 256, MAX_FOUND = 512 };

/* The PSB segment an offset is in: the start of the last PSB at or before it. */
static uint64_t segment_of(const uint64_t *psbs, size_t npsb, uint64_t off)
{
    size_t i;
    uint64_t seg = 0;
    for (i = 0; i < npsb && psbs[i] <= off; i++) seg = psbs[i];
    return seg;
}

/* libipt's errors that say the stream is wrong. */
static int says_wrong(int st)
{
    return st == -pte_bad_context || st == -pte_noip || st == -pte_bad_packet || st == -pte_bad_opc;
}

/* Each error's segment; and, when libipt reports at a PSB (something
   before it was never resolved: libipt 2.2 waits for a MODE.TSX's FUP up
   to the next PSB), the segment before it too. */
typedef struct errors {
    uint64_t seg[MAX_ERR], before[MAX_ERR];
    int code[MAX_ERR];
    size_t n;
} errors;

static void note_error(errors *e, int st, uint64_t off, const uint64_t *psbs, size_t npsb)
{
    size_t i;
    if (!says_wrong(st) || e->n >= MAX_ERR) return;
    e->code[e->n] = -st;
    e->seg[e->n] = e->before[e->n] = segment_of(psbs, npsb, off);
    for (i = 1; i < npsb; i++)
        if (psbs[i] == off) e->before[e->n] = psbs[i - 1];
    e->n++;
}

static void config_for(struct pt_config *cfg, const uint8_t *b, size_t len)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->size = sizeof *cfg;
    cfg->begin = (uint8_t *)(uintptr_t)b;
    cfg->end = cfg->begin + len;
}

/* The query decoder, driven by the stream alone (events, then a
   conditional or else an indirect branch); it syncs forward after each
   error. */
static void query_errors(const uint8_t *b, size_t len, const uint64_t *psbs, size_t npsb, errors *e)
{
    struct pt_config cfg;
    struct pt_query_decoder *q;
    uint64_t ip, off = 0;
    int st;
    config_for(&cfg, b, len);
    q = pt_qry_alloc_decoder(&cfg);
    if (!q) return;
    st = pt_qry_sync_forward(q, &ip);
    while (st != -pte_eos) {
        int taken;
        struct pt_event ev;
        if (st >= 0 && (st & pts_eos)) break;
        if (st >= 0 && (st & pts_event_pending)) {
            st = pt_qry_event(q, &ev, sizeof ev);
        } else if (st >= 0) {
            st = pt_qry_cond_branch(q, &taken);
            if (st == -pte_bad_query) st = pt_qry_indirect_branch(q, &ip);
        }
        if (st >= 0) continue;
        if (pt_qry_get_offset(q, &off) >= 0) note_error(e, st, off, psbs, npsb);
        if (st == -pte_eos) break;
        st = pt_qry_sync_forward(q, &ip);
    }
    pt_qry_free_decoder(q);
}

#if LIBIPT_VERSION_MINOR >= 2
/* libipt 2.2's event decoder: every event in turn, syncing forward after
   each error. */
static void event_errors(const uint8_t *b, size_t len, const uint64_t *psbs, size_t npsb, errors *e)
{
    struct pt_config cfg;
    struct pt_event_decoder *d;
    struct pt_event ev;
    uint64_t off = 0;
    int st;
    config_for(&cfg, b, len);
    d = pt_evt_alloc_decoder(&cfg);
    if (!d) return;
    st = pt_evt_sync_forward(d);
    while (st != -pte_eos) {
        if (st >= 0) st = pt_evt_next(d, &ev, sizeof ev);
        if (st >= 0) continue;
        if (st == -pte_eos) break;
        if (pt_evt_get_offset(d, &off) >= 0) note_error(e, st, off, psbs, npsb);
        st = pt_evt_sync_forward(d);
    }
    pt_evt_free_decoder(d);
}
#endif

static void libipt_errors_have_a_finding(void)
{
    static const ptc_packet_type strays[] = { PTC_TNT8, PTC_TIP, PTC_FUP, PTC_MODE_EXEC, PTC_MODE_TSX, PTC_OVF,
                                              PTC_TIP_PGE, PTC_TIP_PGD, PTC_PSBEND, PTC_TMA, PTC_STOP };
    static uint8_t mut[1 << 20];
    static uint64_t psbs[MAX_PSB], found[MAX_FOUND];
    static errors e;
    pktgen_rng r = pktgen_seed(77);
    size_t trial, streams = 0, nerrors = 0, flagged_ptc = 0, flagged_ipt = 0;
    for (trial = 0; trial < 300; trial++) {
        int wi = (int)(trial % WORKLOAD_COUNT);
        ptc_model_config cfg;
        ptc_conform_config cc;
        static ptc_conform chk;
        modelrec_trace o;
        ptc_model_sink sink = modelrec_start(&o, 1);
        ptc_decoder d;
        ptc_item it;
        ptc_packet stray;
        ptc_finding f[PTC_CONFORM_MAX_FINDINGS];
        uint8_t bytes[PTC_MAX_PACKET_SIZE];
        size_t nb = 0, npsb = 0, i, k, at = 0, len, boundaries = 0, nfound = 0;
        char err[100];
        if (!workload_run_configured(wi, "off", "", 300000, trial + 1, &sink, &cfg, err, sizeof err)) {
            CHECK(0, "%s", err);
            continue;
        }
        /* a packet boundary at random, and a packet of the flow put there */
        ptc_decoder_init_buffer(&d, 0, o.bytes, o.len);
        k = (size_t)pktgen_range(&r, 1, 2000);
        while (ptc_decoder_next(&d, &it) == PTC_OK && boundaries++ < k) at = (size_t)(it.offset + it.pkt.size);
        memset(&stray, 0, sizeof stray);
        stray.type = strays[trial % (sizeof strays / sizeof strays[0])];
        if (stray.type == PTC_TNT8) { stray.u.tnt.count = 1; stray.u.tnt.bits = 1; }
        if (ptc_packet_is_ip(stray.type)) { stray.u.ip.ipc = PTC_IPC_UPDATE_16; stray.u.ip.payload = 0x1234; }
        if (stray.type == PTC_MODE_TSX) stray.u.mode_tsx.intx = 1;
        CHECK(ptc_encode_packet(&stray, bytes, sizeof bytes, &nb) == PTC_OK);
        if (o.len + nb > sizeof mut) { modelrec_free(&o); continue; }
        memcpy(mut, o.bytes, at);
        memcpy(mut + at, bytes, nb);
        memcpy(mut + at + nb, o.bytes + at, o.len - at);
        len = o.len + nb;
        /* ptcodec: its PSBs, and the segments with a finding or a decode error */
        ptc_conform_config_from_model(&cc, &cfg);
        ptc_conform_init(&chk, &cc);
        ptc_decoder_init_buffer(&d, 0, mut, len);
        while (ptc_decoder_next(&d, &it) == PTC_OK) {
            size_t nf = ptc_conform_item(&chk, &it, f);
            if (it.error == PTC_OK && it.pkt.type == PTC_PSB && npsb < MAX_PSB) psbs[npsb++] = it.offset;
            if (it.error != PTC_OK && nfound < MAX_FOUND) found[nfound++] = it.offset;
            for (i = 0; i < nf && nfound < MAX_FOUND; i++) found[nfound++] = f[i].offset;
        }
        for (i = 0; i < nfound; i++) found[i] = segment_of(psbs, npsb, found[i]);
        e.n = 0;
        query_errors(mut, len, psbs, npsb, &e);
#if LIBIPT_VERSION_MINOR >= 2
        event_errors(mut, len, psbs, npsb, &e);
#endif
        for (k = 0; k < e.n; k++) {
            int hit = 0;
            for (i = 0; i < nfound; i++) hit |= found[i] == e.seg[k] || found[i] == e.before[k];
            CHECK(hit, "%s, a %s at %zu: libipt's %s in the segment at %llu, ptcodec found nothing there", workload_names[wi],
                  ptc_packet_type_name(stray.type), at, pt_errstr((enum pt_error_code)e.code[k]),
                  (unsigned long long)e.seg[k]);
        }
        nerrors += e.n;
        flagged_ipt += e.n != 0;
        flagged_ptc += nfound != 0;
        streams++;
        modelrec_free(&o);
    }
    printf("# %zu streams with a stray packet: libipt failed on %zu (%zu errors, each with a ptcodec finding in its "
           "segment), ptcodec found something in %zu\n", streams, flagged_ipt, nerrors, flagged_ptc);
    CHECK(streams > 250 && nerrors > 30 && flagged_ptc >= flagged_ipt, "%zu streams, %zu libipt errors", streams, nerrors);
}

/* The library loaded is the one the test was built for. */
static void libipt_version(void)
{
    struct pt_version v = pt_library_version();
    printf("# libipt %u.%u.%u\n", v.major, v.minor, v.patch);
    CHECK(v.major == LIBIPT_VERSION_MAJOR && v.minor == LIBIPT_VERSION_MINOR, "built for %d.%d, loaded %u.%u",
          LIBIPT_VERSION_MAJOR, LIBIPT_VERSION_MINOR, v.major, v.minor);
}

int main(void)
{
    RUN(libipt_version);
    RUN(libipt_errors_have_a_finding);
    TESTLIB_EXIT();
}

/* Part 1 against libipt 2.0.5 (SPEC.md 1.11): packets encoded by ptcodec
   decode the same in libipt's pt_pkt_next, packets encoded by libipt's
   pt_enc_next decode the same in ptcodec, and arbitrary bytes give the
   same packets or the same error class, up to harness/libipt_allowlist.h. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include <intel-pt.h>
#include "testlib.h"
#include "../harness/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../harness/modelrec.h"
#include "../harness/libipt_allowlist.h"

#include <string.h>

#define BUF (1 << 16)
#define MAXP (1 << 16)

static uint8_t buf[BUF];
static ptc_packet pkts[MAXP];
static size_t offs[MAXP];
static unsigned long allow_hits[LIBIPT_REASON_COUNT];

static void libipt_version(void)
{
    struct pt_version v = pt_library_version();
    printf("# libipt %u.%u.%u\n", v.major, v.minor, v.patch);
    CHECK(v.major == 2, "libipt %u.%u: the allowlist is written for 2.0", v.major, v.minor);
}

static void ptcodec_encoded_streams_decode_same_in_libipt(void)
{
    pktgen_rng r = pktgen_seed(2024);
    pktgen_mix mix;
    int trial;
    size_t total = 0;
    pktgen_mix_uniform(&mix, PKTGEN_LIBIPT_205);
    for (trial = 0; trial < 40; trial++) {
        size_t n, np = 0, i;
        struct pt_packet_decoder *d;
        char why[64];
        n = pktgen_stream(&r, &mix, PKTGEN_LIBIPT_205, 1000 + trial * 37, buf, BUF, pkts, offs, MAXP, &np);
        d = libipt_decoder_at_0(buf, n);
        CHECK(d != NULL);
        if (!d) return;
        for (i = 0; i < np; i++) {
            struct pt_packet t;
            int rc = pt_pkt_next(d, &t, sizeof t);
            if (rc < 0) { CHECK(0, "trial %d packet %zu (%s at %zu): libipt %s", trial, i,
                                ptc_packet_type_name(pkts[i].type), offs[i], pt_errstr(pt_errcode(rc))); break; }
            if (!libipt_same(&pkts[i], &t, why, sizeof why)) {
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
    pktgen_rng r = pktgen_seed(31337);
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
            do ty = (ptc_packet_type)pktgen_range(&r, 1, PTC_PACKET_TYPE_COUNT - 1);
            while (!pktgen_known_to_libipt205(ty));
            pktgen_packet(&r, ty, PTC_BLOCK_NONE, PKTGEN_LIBIPT_205, &o);
            libipt_to_libipt(&o, &theirs[np]);
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
            if (!libipt_same(&it.pkt, &theirs[i], why, sizeof why)) {
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
static unsigned long corrupt_tmas;

static void compare_bytes(const uint8_t *b, size_t n, int *mismatch)
{
    libipt_walk w = libipt_compare_walk(b, n);
    char why[200];
    size_t corrupt = 0;
    if (w.reason != LIBIPT_NONE) allow_hits[w.reason]++;
    if (w.mismatch) {
        CHECK(0, "at %zu (byte %02x %02x): %s", w.at, w.at < n ? b[w.at] : 0, w.at + 1 < n ? b[w.at + 1] : 0, w.why);
        *mismatch = 1;
    }
    if (!libipt_compare_skz84_walk(b, n, &corrupt, why, sizeof why)) {
        CHECK(0, "told of erratum SKZ84: %s", why);
        *mismatch = 1;
    }
    corrupt_tmas += corrupt;
}

static void arbitrary_bytes_same_packets_or_same_error(void)
{
    pktgen_rng r = pktgen_seed(7);
    pktgen_mix mix;
    int trial, mismatch = 0, k;
    pktgen_mix_uniform(&mix, 0);
    for (trial = 0; trial < 20000 && !mismatch; trial++) {
        size_t n, i;
        if (trial % 2) {
            /* a valid stream (every type, reserved bits too), then damage */
            n = pktgen_stream(&r, &mix, 0, 512, buf, 512 + pktgen_next(&r) % 1024, NULL, NULL, 0, NULL);
            for (i = 0; i < 3 && n; i++) pktgen_flip_bit(&r, buf, n);
            if (trial % 4 == 1) /* TMAs as erratum SKZ84 corrupts them, the next byte taken as bogus */
                for (i = 0; i + 7 <= n; i++)
                    if (buf[i] == 0x02 && buf[i + 1] == 0x73) buf[i + 4] |= 0x10;
        } else {
            n = 1 + pktgen_next(&r) % 64;
            for (i = 0; i < n; i++) buf[i] = (pktgen_next(&r) % 3) ? (uint8_t)pktgen_next(&r) : 0;
        }
        compare_bytes(buf, n, &mismatch);
    }
    for (k = 1; k < LIBIPT_REASON_COUNT; k++)
        if (allow_hits[k]) printf("# allowlisted, ended %lu comparisons: %s\n", allow_hits[k], libipt_reason_text((enum libipt_reason)k));
    /* (the damaged streams hold TMAs with reserved bits set) */
    CHECK(corrupt_tmas > 10, "told of erratum SKZ84, only %lu corrupt TMAs compared", corrupt_tmas);
    printf("# erratum SKZ84: %lu corrupt TMAs read alike\n", corrupt_tmas);
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
    for (wi = 0; wi < WORKLOAD_COUNT; wi++)
        for (p = 0; p < 3; p++) {
            ptc_model_config cfg;
            ptc_model m;
            modelrec_trace o;
            ptc_model_sink sink = modelrec_start(&o, 1);
            struct pt_packet_decoder *d;
            struct pt_packet pkt;
            char err[100];
            int rc;
            size_t n = 0;
            ptc_model_config_default(&cfg);
            workload_configure(wi, &cfg);
            cfg.trace.ctl.cyc_en = (uint8_t)(p != 1);
            CHECK(modelcfg_policy(&cfg.trace.policy, policies[p], err, sizeof err));
            CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
            workload_run_workload(wi, &m, 3000000, p + 3);
            d = libipt_decoder_at_0(o.bytes, o.len);
            CHECK(d != NULL);
            if (!d) { modelrec_free(&o); continue; }
            while ((rc = pt_pkt_next(d, &pkt, sizeof pkt)) > 0) n++;
            CHECK(rc == -pte_eos, "%s/%s: libipt stops after %zu packets: %s", workload_names[wi], policies[p], n,
                  pt_errstr(pt_errcode(rc)));
            CHECK(n > 20, "%s: %zu packets", workload_names[wi], n);
            pt_pkt_free_decoder(d);
            modelrec_free(&o);
        }
}

/* SPEC 1.9 rule 5: the model's CYCs cut by erratum SKD007 (skd007). Told of
   the erratum, ptcodec's decoder and libipt's query decoder find the same
   OVFs; libipt not told misses those after the cut CYCs (so the check can
   fail). (libipt 2.0's packet decoder does not know the erratum.) With a
   CYC threshold of 64 cycles the model writes no whole CYC pair that reads
   as a cut one, which would stop libipt's query decoder (an OVF followed
   by no FUP) as it would mislead ptcodec's. */
static void skd007_cuts_read_alike_in_libipt(void)
{
    int wi;
    size_t total = 0;
    for (wi = 0; wi < WORKLOAD_COUNT; wi++) {
        ptc_model_config cfg;
        ptc_model m;
        modelrec_trace o;
        ptc_model_sink sink = modelrec_start(&o, 1);
        ptc_decoder dec;
        ptc_item it;
        size_t i, cut_truths = 0, cuts = 0, ovfs = 0, theirs, theirs_untold;
        int to_end, untold_to_end;
        ptc_model_config_default(&cfg);
        workload_configure(wi, &cfg);
        cfg.trace.ctl.cyc_en = 1;
        cfg.trace.ctl.cyc_thresh = 7;
        cfg.fifo_bytes = 128;
        cfg.drain_bytes = 1;
        cfg.drain_cycles = 16;
        cfg.trace.errata = PTC_ERRATUM_SKD007;
        CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
        workload_run_workload(wi, &m, 2000000, 7);
        CHECK(!modelrec_skd007_ambiguous(&cfg, &o), "%s: a whole CYC pair reads as a cut one", workload_names[wi]);
        for (i = 0; i < o.nt; i++) cut_truths += o.t[i].fate == PTC_FATE_CUT;
        ptc_decoder_init_buffer(&dec, PTC_DECODE_SKD007, o.bytes, o.len);
        while (ptc_decoder_next(&dec, &it) == PTC_OK) {
            cuts += it.error == PTC_ERR_CUT_CYC;
            ovfs += it.error == PTC_OK && it.pkt.type == PTC_OVF;
        }
        theirs = libipt_query_overflows(o.bytes, o.len, 1, &to_end);
        theirs_untold = libipt_query_overflows(o.bytes, o.len, 0, &untold_to_end);
        CHECK(to_end, "%s: libipt's query decoder stopped early", workload_names[wi]);
        CHECK(cuts == cut_truths, "%s: %zu cut_cyc items for %zu cut CYCs", workload_names[wi], cuts, cut_truths);
        CHECK(ovfs == theirs, "%s: ptcodec found %zu OVFs, libipt %zu", workload_names[wi], ovfs, theirs);
        CHECK(!cut_truths || theirs_untold < theirs || !untold_to_end, "%s: libipt untold found %zu OVFs of %zu",
              workload_names[wi], theirs_untold, theirs);
        total += cut_truths;
        modelrec_free(&o);
    }
    CHECK(total > 20, "the model cut %zu CYCs in all", total);
    printf("# erratum SKD007: %zu cut CYCs in %d workloads, every OVF after them found by libipt told of it\n", total,
           WORKLOAD_COUNT);
}

/* SPEC 1.9 rule 6: the model's TMAs corrupted by erratum SKZ84 (skz84) in
   a VMX guest. libipt's packet decoder told of the erratum reads the whole
   stream as ptcodec's does: each corrupt TMA is its invalid packet at the
   same offset, then the same packets. */
static void skz84_corrupt_tmas_read_alike_in_libipt(void)
{
    ptc_model_config cfg;
    ptc_model m;
    modelrec_trace o;
    ptc_model_sink sink = modelrec_start(&o, 1);
    size_t i, truths = 0, corrupt = 0;
    char why[200];
    ptc_model_config_default(&cfg);
    cfg.trace.ctl.cyc_en = 1;
    cfg.trace.errata = PTC_ERRATUM_SKZ84;
    CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
    workload_run_in_guest(&m, 6000000, 2);
    for (i = 0; i < o.nt; i++) truths += o.t[i].fate == PTC_FATE_CORRUPT;
    CHECK(libipt_compare_skz84_walk(o.bytes, o.len, &corrupt, why, sizeof why), "%s", why);
    CHECK(corrupt == truths && truths > 5, "%zu corrupt_tma items for %zu corrupt TMAs", corrupt, truths);
    printf("# erratum SKZ84: %zu corrupt TMAs in a guest, each libipt's invalid packet\n", truths);
    modelrec_free(&o);
}

/* ---- the model's flow against libipt's instruction flow decoder ------- */

/* A small x86-64 program with one of every kind of control flow the model
   knows, assembled by hand at fixed addresses (SDM opcode map); the run
   below drives the model through it as a simulator would, and libipt's
   pt_insn decoder, reading these bytes, must retrace exactly the
   instructions that ran. */
#define CODE_BASE 0x1000u
#define CODE_SIZE 0x400u
static uint8_t code[CODE_SIZE];

static void put(uint64_t at, const uint8_t *bytes, size_t n) { memcpy(code + (at - CODE_BASE), bytes, n); }
static void put_rel32(uint64_t at, const uint8_t *op, size_t n, uint64_t target)
{
    uint32_t rel = (uint32_t)(target - (at + n + 4));
    uint8_t b[16];
    memcpy(b, op, n);
    b[n] = (uint8_t)rel;
    b[n + 1] = (uint8_t)(rel >> 8);
    b[n + 2] = (uint8_t)(rel >> 16);
    b[n + 3] = (uint8_t)(rel >> 24);
    put(at, b, n + 4);
}

static int read_code(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip, void *context)
{
    size_t n;
    (void)asid;
    (void)context;
    if (ip < CODE_BASE || ip >= CODE_BASE + CODE_SIZE) return -pte_nomap;
    n = CODE_BASE + CODE_SIZE - ip < size ? (size_t)(CODE_BASE + CODE_SIZE - ip) : size;
    memcpy(buffer, code + (ip - CODE_BASE), n);
    return (int)n;
}

static void assemble(void)
{
    static const uint8_t nop = 0x90, call_rax[] = { 0xFF, 0xD0 }, ret = 0xC3, call = 0xE8, xbegin[] = { 0xC7, 0xF8 },
                         xend[] = { 0x0F, 0x01, 0xD5 }, syscall[] = { 0x0F, 0x05 }, sysret[] = { 0x48, 0x0F, 0x07 },
                         vmptrld[] = { 0x0F, 0xC7, 0x34, 0x25, 0x00, 0x30, 0x00, 0x00 }, vmlaunch[] = { 0x0F, 0x01, 0xC2 };
    memset(code, 0xF4, sizeof code); /* HLT wherever nothing runs */
    put(0x1000, &nop, 1);
    put_rel32(0x1001, &call, 1, 0x1100);   /* -> 0x1006 */
    put_rel32(0x1006, xbegin, 2, 0x1040);  /* -> 0x100c */
    put(0x100c, &nop, 1);
    put(0x100d, xend, 3);                  /* -> 0x1010 */
    put_rel32(0x1010, xbegin, 2, 0x1040);  /* -> 0x1016 */
    put(0x1016, &nop, 1);                  /* the transaction aborts before 0x1017 */
    put(0x1017, &nop, 1);
    put(0x1040, &nop, 1);
    put(0x1041, syscall, 2);               /* the kernel at 0x1300, back to 0x1043 */
    put(0x1043, vmptrld, 8);               /* -> 0x104b */
    put(0x104b, vmlaunch, 3);              /* the guest at 0x1200 */
    put(0x1080, &nop, 1);                  /* the host after the VM exit */
    put(0x1081, syscall, 2);               /* out of the traced range for good */
    put(0x1100, &nop, 1);
    put(0x1101, call_rax, 2);              /* -> 0x1180 */
    put(0x1103, &ret, 1);                  /* -> 0x1006 */
    put(0x1180, &ret, 1);                  /* -> 0x1103 */
    put(0x1200, &nop, 1);
    put(0x1201, &nop, 1);                  /* a VM exit before 0x1202 */
    put(0x1300, &nop, 1);
    put(0x1301, sysret, 3);
}

/* The run: each instruction's cycle, then its event. Returns the
   addresses that ran, in order, in ran[] (their count). */
static size_t run_program(ptc_model *m, uint64_t *ran)
{
    static const uint64_t order[] = { 0x1000, 0x1001, 0x1100, 0x1101, 0x1180, 0x1103, 0x1006, 0x100c, 0x100d,
                                      0x1010, 0x1016, 0x1040, 0x1041, 0x1300, 0x1301, 0x1043, 0x104b, 0x1200,
                                      0x1201, 0x1080, 0x1081 };
    size_t i;
    ptc_model_start(m, 0x1000);
    for (i = 0; i < sizeof order / sizeof order[0]; i++) {
        ptc_model_idle(m, 3);
        ran[i] = order[i];
        switch (order[i]) {
        case 0x1001: ptc_model_call(m, 0x1001, 0x1100, 0x1006, 0); break;
        case 0x1101: ptc_model_call(m, 0x1101, 0x1180, 0x1103, 1); break;
        case 0x1180: ptc_model_ret(m, 0x1180, 0x1103); break;
        case 0x1103: ptc_model_ret(m, 0x1103, 0x1006); break;
        case 0x1006: case 0x1010: ptc_model_tsx(m, PTC_TSX_BEGIN, order[i], 0); break;
        case 0x100d: ptc_model_tsx(m, PTC_TSX_COMMIT, 0x100d, 0); break;
        case 0x1016: ptc_model_tsx(m, PTC_TSX_ABORT, 0x1017, 0x1040); break;
        case 0x1041: ptc_model_privilege(m, 0x1041, 0x1300, 0); break;
        case 0x1301: ptc_model_privilege(m, 0x1301, 0x1043, 3); break;
        case 0x1043: ptc_model_vmptrld(m, 0x1043, 0x3000); break;
        case 0x104b: ptc_model_vm_entry(m, 0x104b, 0x1200, 0x7000, 1); break;
        case 0x1201: ptc_model_vm_exit(m, 0x1202, 0x1080, 0x5000); break;
        case 0x1081: ptc_model_privilege(m, 0x1081, UINT64_C(0xffffffff81000000), 0); break;
        default: break;
        }
    }
    ptc_model_stop(m);
    return i;
}

static void model_flow_is_libipts_instruction_flow(void)
{
    int variant;
    assemble();
    for (variant = 0; variant < 4; variant++) {
        ptc_model_config cfg;
        ptc_model m;
        modelrec_trace o;
        ptc_model_sink sink = modelrec_start(&o, 1);
        struct pt_config pc;
        struct pt_insn_decoder *d;
        uint64_t ran[64];
        size_t n, k = 0;
        int st;
        ptc_model_config_default(&cfg);
        cfg.trace.ctl.os = cfg.trace.ctl.user = 1;
        cfg.trace.filters.count = 1;
        cfg.trace.filters.lo[0] = CODE_BASE;
        cfg.trace.filters.hi[0] = CODE_BASE + CODE_SIZE;
        cfg.trace.ctl.dis_retc = (uint8_t)(variant & 1);
        cfg.trace.ctl.cyc_en = (uint8_t)(variant >> 1);
        cfg.long_tnt = (uint8_t)(variant >> 1);
        CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
        n = run_program(&m, ran);
        pt_config_init(&pc);
        pc.begin = o.bytes;
        pc.end = o.bytes + o.len;
        d = pt_insn_alloc_decoder(&pc);
        CHECK(d && pt_image_set_callback(pt_insn_get_image(d), read_code, NULL) == 0);
        if (!d) { modelrec_free(&o); continue; }
        for (st = pt_insn_sync_forward(d); st >= 0;) {
            struct pt_insn insn;
            struct pt_event ev;
            while (st >= 0 && (st & pts_event_pending)) st = pt_insn_event(d, &ev, sizeof ev);
            if (st < 0) break;
            st = pt_insn_next(d, &insn, sizeof insn);
            if (st < 0) break;
            CHECK(k < n && insn.ip == ran[k], "variant %d, instruction %zu: libipt %llx, ran %llx", variant, k,
                  (unsigned long long)insn.ip, (unsigned long long)(k < n ? ran[k] : 0));
            if (k >= n || insn.ip != ran[k]) break;
            k++;
        }
        CHECK(st == -pte_eos && k == n, "variant %d: libipt stopped after %zu of %zu instructions: %s", variant, k, n,
              pt_errstr(pt_errcode(st)));
        pt_insn_free_decoder(d);
        modelrec_free(&o);
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
    RUN(skd007_cuts_read_alike_in_libipt);
    RUN(skz84_corrupt_tmas_read_alike_in_libipt);
    RUN(model_flow_is_libipts_instruction_flow);
    TESTLIB_EXIT();
}

/* fuzz_flow_libipt22: the flow decoder (SPEC 9.3) held to libipt 2.2's
   instruction flow decoder on any trace over any code, built from
   ../shared/reference/libipt-2.2.tar.gz (make fuzz-libipt22; its corpus
   replays against the release build in make check).

   The input is fuzz_flow's: code, then a trace, the code's length and
   place drawn from the input's last bytes (fuzz/fuzz_flow.c). libipt reads
   the code through a callback over the same image. Oracle: instruction by
   instruction, ptcodec gives the IP libipt gives, up to libipt's first
   error or end, or one of these known differences, where the comparison
   stops (SPEC 9.3 lists them):
   - libipt has seen no MODE.Exec: its mode is unknown, which its length
     decoder reads as 16-bit; ptcodec's is 64-bit until a MODE.Exec says;
   - ptcodec finds bytes that are no instruction (bad_insn: its validity
     rules, held to Zydis by fuzz_x86), where libipt's length decoder reads
     one; or a loop no packet steers (loop), which libipt runs on;
   - the instruction before is one libipt 2.2's length decoder does not
     know or classes otherwise (fuzz/x86_oracles.h), or this one, which
     the image cuts where libipt reads it shorter (no_code);
   - ptcodec's no_tip where TNT bits are left at an indirect branch or a
     far transfer, or where an event's FUP is followed by another FUP:
     libipt leaves the bits, or takes the later FUP, and goes on;
   - where they part, the trace has an OVF (packets were lost: ptcodec
     forgets where it was, libipt may run on to the OVF's FUP, or take the
     OVF first where ptcodec runs on to the next packet it needs), bytes
     the stream decoder cannot read, a TIP.PGE while tracing is on
     (erratum BDM70's pattern: ptcodec restarts at its IP at once, SPEC
     9.3, libipt runs on to the first instruction that needs a packet), or
     a violation of a rule of the SDM about the flow (ptc_conform's; time
     rules aside): since the PSB before the instruction before, or, for an
     error or the end, anywhere before; a MODE.Exec with no IP packet
     after it anywhere before (libipt may apply it after a later PSB+).
     Where libipt reads past a FUP with
     no TIP, a MODE.Exec with no IP packet after it, a
     TraceStop while on or a PSB inside a longer run of 02 82, ptcodec
     names the fault or skips to the next PSB;
   - the trace ends on an asynchronous event's FUP, its TIP cut off:
     ptcodec's flow ends there (the instruction at the FUP did not run),
     libipt runs on from it.
   A run of the same packet-free loop in both ends at an instruction cap. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include <intel-pt.h>
#include "fuzz_helpers.h"
#include "flow_input.h"
#define X86_ORACLE_LIBIPT22_DIFFERENCES
#include "x86_oracles.h"

#include <string.h>

enum { MAX_INSNS = 200000 };

static const ptc_image *libipt_reads;
static int read_image(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip, void *context)
{
    size_t n = ptc_image_read(libipt_reads, ip, buffer, size);
    (void)asid;
    (void)context;
    return n ? (int)n : -pte_nomap;
}

/* The checker's rules about time alone (timing packets and their values):
   breaking them changes no decoder's flow. */
static int a_time_rule(ptc_rule rule)
{
    switch (rule) {
    case PTC_RULE_PSB_NO_CBR: case PTC_RULE_PSB_NO_TSC: case PTC_RULE_PSB_PERIOD: case PTC_RULE_CYC_NOT_SHORTEST:
    case PTC_RULE_CBR_ZERO: case PTC_RULE_TMA_ALONE: case PTC_RULE_TSC_NO_TMA: case PTC_RULE_TSC_BACKWARDS:
    case PTC_RULE_TSC_BEFORE_MTCS: case PTC_RULE_TMA_CTC_MISMATCH: case PTC_RULE_CYC_OVER_TSC: case PTC_RULE_CYC_OVER_MTCS:
    case PTC_RULE_CYC_UNDER_THRESHOLD: case PTC_RULE_RESERVED_BITS:
        return 1;
    default: return 0;
    }
}

/* Whether the trace holds a place where the decoders may part, from the
   last PSB at or before `from` (a fault before it is behind both: they
   sync there) up to `to`: an OVF (packets were lost), bytes the stream
   decoder cannot read, a violation of a rule about the flow (ptc_conform's,
   time rules aside), or a TIP.PGE while tracing is on (pge_while_on,
   erratum BDM70's pattern). */
static int a_parting_point_between(const uint8_t *trace, size_t n, uint64_t from, uint64_t to)
{
    static ptc_conform checker;
    ptc_conform_config nothing_known;
    ptc_finding found[PTC_CONFORM_MAX_FINDINGS];
    ptc_decoder dec;
    ptc_item it;
    int seen = 0, in_psb = 0, bound = 0, event_open = 0, stale_mode = 0;
    memset(&nothing_known, 0, sizeof nothing_known);
    ptc_conform_init(&checker, &nothing_known);
    ptc_decoder_init_buffer(&dec, 0, trace, n);
    while (ptc_decoder_next(&dec, &it) == PTC_OK && it.offset <= to) {
        size_t k = ptc_conform_item(&checker, &it, found), i;
        if (it.error == PTC_OK && it.pkt.type == PTC_PSB && it.offset <= from) seen = 0;
        if (it.error != PTC_OK || it.pkt.type == PTC_OVF) seen = 1;
        for (i = 0; i < k; i++) {
            if (!a_time_rule(found[i].rule) &&
                (found[i].severity == PTC_SEV_VIOLATION || found[i].rule == PTC_RULE_PGE_WHILE_ON))
                seen = 1;
            /* libipt may apply a MODE.Exec left without its IP packet after
               a later PSB+ */
            if (found[i].rule == PTC_RULE_MODE_EXEC_ALONE) stale_mode = 1;
        }
        if (it.error != PTC_OK) continue;
        /* an asynchronous event's FUP (not a PSB+'s, nor one a PTW,
           EXSTOP, BEP or CFE announced) waits for its TIP */
        switch (it.pkt.type) {
        case PTC_PSB: in_psb = 1; break;
        case PTC_PSBEND: in_psb = 0; break;
        case PTC_PTW: bound = it.pkt.u.ptw.ip; break;
        case PTC_EXSTOP: bound = it.pkt.u.exstop.ip; break;
        case PTC_BEP: bound = it.pkt.u.bep.ip; break;
        case PTC_CFE: bound = it.pkt.u.cfe.ip; break;
        case PTC_FUP: event_open = !in_psb && !bound; bound = 0; break;
        case PTC_TIP: case PTC_TIP_PGD: case PTC_TIP_PGE: event_open = 0; break;
        default: break;
        }
    }
    /* the trace ends on an event whose TIP it cut off: ptcodec ends there
       (the instruction at the FUP did not run), libipt runs on */
    return seen || stale_mode || (to >= n && event_open);
}

/* Whether the packet at offset is a TNT or a FUP: ptcodec's no_tip there
   says TNT bits were left at an indirect branch or far transfer, or an
   event's FUP came where its TIP should; libipt 2.2 leaves the bits, or
   takes the FUP after, and goes on to a TIP after them. */
static int a_tnt_or_fup_at(const uint8_t *trace, size_t n, uint64_t offset)
{
    ptc_decoder dec;
    ptc_item it;
    ptc_decoder_init_buffer(&dec, 0, trace, n);
    while (ptc_decoder_next(&dec, &it) == PTC_OK && it.offset <= offset)
        if (it.offset == offset)
            return it.error == PTC_OK && (it.pkt.type == PTC_TNT8 || it.pkt.type == PTC_TNT64 || it.pkt.type == PTC_FUP);
    return 0;
}

/* Whether libipt 2.2 reads the instruction at insn otherwise than ptcodec:
   its bytes are one of the known differences of its length decoder. */
static int libipt_reads_it_otherwise(const ptc_image *img, uint64_t ip, ptc_x86_mode mode)
{
    uint8_t bytes[15] = { 0 };
    ptc_x86_insn x;
    ptc_status st;
    /* what the image has, and zeros after: an instruction the image cuts
       (ptcodec's no_code) that libipt reads shorter is one of these too,
       or bytes that are no instruction (an XOP prefix with a map that
       does not exist, which libipt reads as POP) */
    if (!ptc_image_read(img, ip, bytes, sizeof bytes)) return 0;
    st = ptc_x86_decode(bytes, sizeof bytes, mode, ip, &x);
    if (st == PTC_ERR_BAD_INSN) return 1;
    return st == PTC_OK && (x86_oracle_libipt22_unknown(&x) || x86_oracle_libipt22_misreads(&x));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ptc_flow flow;
    ptc_image_section storage[2];
    ptc_image img;
    ptc_trace_config tc;
    uint64_t k;
    const uint8_t *trace;
    size_t trace_size;
    struct pt_config cfg;
    struct pt_insn_decoder *dec;
    ptc_flow_insn ours, before;
    ptc_status st;
    int status;
    if (size > FUZZ_MAX_INPUT) return 0;
    flow_input(data, size, &img, storage, &trace, &trace_size, &tc);
    FUZZ_ASSERT(ptc_flow_init(&flow, &tc, &img, trace, trace_size) == PTC_OK, "init");
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)(uintptr_t)trace;
    cfg.end = (uint8_t *)(uintptr_t)trace + trace_size;
    if (tc.filters.count) { /* the same range (libipt's hold their last byte) and erratum */
        cfg.addr_filter.config.ctl.addr0_cfg = 1; /* ADDRn_CFG 1: a filter range */
        cfg.addr_filter.addr0_a = tc.filters.lo[0];
        cfg.addr_filter.addr0_b = tc.filters.hi[0] - 1;
        cfg.errata.skl014 = 1;
    }
    dec = pt_insn_alloc_decoder(&cfg);
    FUZZ_ASSERT(dec != NULL, "libipt's decoder");
    libipt_reads = &img;
    pt_image_set_callback(pt_insn_get_image(dec), read_image, NULL);
    memset(&ours, 0, sizeof ours);
    for (k = 0, status = pt_insn_sync_forward(dec); status >= 0 && k < MAX_INSNS; k++) {
        struct pt_insn theirs;
        while (status >= 0 && (status & pts_event_pending)) {
            struct pt_event ev;
            status = pt_insn_event(dec, &ev, sizeof ev);
        }
        if (status < 0) break;
        status = pt_insn_next(dec, &theirs, sizeof theirs);
        if (status < 0 || theirs.mode == ptem_unknown) break;
        before = ours;
        st = ptc_flow_next(&flow, &ours);
        if (st == PTC_ERR_BAD_INSN || st == PTC_ERR_LOOP) break;
        if (k && libipt_reads_it_otherwise(&img, before.ip, (ptc_x86_mode)before.mode)) break;
        if (st == PTC_ERR_NO_CODE && theirs.ip == ours.ip &&
            libipt_reads_it_otherwise(&img, ours.ip, theirs.mode == ptem_16bit ? PTC_X86_16 : theirs.mode == ptem_32bit ? PTC_X86_32 : PTC_X86_64))
            break;
        if (st == PTC_ERR_NO_TIP && a_tnt_or_fup_at(trace, trace_size, ours.offset)) break;
        if (st != PTC_OK || ours.ip != theirs.ip) { /* where they part: a reason there? */
            uint64_t theirs_at = 0, to;
            pt_insn_get_offset(dec, &theirs_at);
            to = theirs_at > ours.offset ? theirs_at : ours.offset;
            if (st == PTC_END) to = trace_size; /* ptcodec read it all */
            /* an error or the end may come of a fault anywhere before */
            if (a_parting_point_between(trace, trace_size, st == PTC_OK ? before.offset : 0, to)) break;
        }
        FUZZ_ASSERT(st == PTC_OK && ours.ip == theirs.ip,
                    "instruction %llu: libipt 2.2 at %llx, ptcodec %s at %llx (offset %llu; the one before at %llx)",
                    (unsigned long long)k, (unsigned long long)theirs.ip, ptc_status_name(st), (unsigned long long)ours.ip,
                    (unsigned long long)ours.offset, (unsigned long long)before.ip);
    }
    pt_insn_free_decoder(dec);
    return 0;
}

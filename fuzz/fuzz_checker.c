/* fuzz_checker: the conformance checker (SPEC.md part 7) finds nothing in
   any stream the model writes, and in a stream broken on purpose finds
   the rule broken, where it was broken, first.

   The input's last bytes choose the model's configuration and policy (as
   in fuzz_model), then a breaker and where to apply it; the rest is the
   workload program. The model's stream, checked with what its
   configuration says (ptc_conform_config_from_model), must give no
   finding. Then one breaker changes it, and the first finding the checker
   reports must be the breaker's rule at the breaker's offset.

   MTC suppression (part 2's rules, SPEC 7.3.6). "Chained" means two MTCs
   with only timing packets between them, so that the rules relate them.
   - mtc_insert: A and B chained with k >= 1 edges between them: an MTC at
     edge A+1 is inserted before B. Those edges were suppressed, so
     suppression was due after A; A+1 is not the resume value (that would
     have made the original gap a late resume): mtc_not_suppressed at the
     new MTC.
   - mtc_drop: A, B, C chained and fewer than 255 edges between A and C: B
     is removed. If suppression was not due after A, C shows missing
     edges; if it was, B was a resume (by value: now a late resume; by
     count: now a gap longer than the counter allows): a finding at C.
   - mtc_shift: A and B chained with no edge between them: B's payload is
     moved one edge on. Suppression not due: missing_mtc; due: B passed
     only as the resume value, which is now skipped: late_resume.

   The rest of the catalogue (SPEC 7.3.1-7.3.5). In a clean stream no
   follower is owed at a TNT (every debt breaks on one), so a packet
   inserted right before a TNT meets no debt of another packet.
   - psbend_alone: a PSBEND right after a PSBEND.
   - tma_alone: a TMA right after a TNT.
   - mode_exec_alone: a MODE.Exec right before a TNT.
   - flow_while_off: a TNT right after a TIP.PGD.
   - ovf_follower: an OVF right before a TNT.
   - stop_while_on: a TraceStop right before a TNT that follows a TNT or
     TIP (packet generation is on there): the TraceStop breaks it.
   - after_stop: a TIP.PGD and a TraceStop right before such a TNT: the
     TNT breaks it.
   - psb_member: a TNT right after a PSB.
   - psb_nested: a PSB after the packet that follows a PSB, when that
     packet is no PSBEND or OVF.
   - psb_no_cbr: the CBR of a PSB+ that a PSBEND ends removed: found at
     its PSB.
   - pge_no_mode: the MODE.Exec right before a TIP.PGE removed, when no
     other MODE.Exec came since the last PSB: found at the TIP.PGE.
   - pwre_no_exstop: the EXSTOP right after a PWRE removed, when code ran
     (or a PWRX came) since the last PWRE and the first packet after it
     that may not come anywhere breaks the debt (an OVF or a decode error
     forgives it: found-pwre-then-ovf-forgives-the-exstop): found at the
     PWRE.
   - cbr_zero: a CBR's ratio made 0.
   - tma_ctc_mismatch: the CTC of a TMA right after its TSC moved on by
     0x100, when a TSC and TMA came before it and the stream shows no VMX
     (a guest's TSC may jump). The model's configuration gives the checker
     its clock, so every clean stream also passes the time rules.
   - cyc_under_threshold: with CycThresh 3 or more, a CYC right before a
     TNT or an eligible packet (not TSC or OVF), outside PSB+ and not right
     after another CYC, made a CYC of 2 cycles (not all ones, under the
     threshold).
   - cyc_over_mtcs: with no suppression, a CYC that counts against the MTC
     periods (after an MTC and a CYC, no clock stop, CBR or OVF since) made
     2^40 cycles, with an MTC after it before any of those: found there.
   - cyc_over_tsc: a CYC that counts against the TSCs (after a TSC and a
     CYC, outside PSB+, no VMX in the stream) made 2^40 cycles, with a TSC
     after it and no MTC between: found at that TSC.
   - tsc_before_mtcs: a TSC after a TSC and its TMA (no OVF since, no VMX in
     the stream) made that epoch's TSC again, when the MTCs since that TMA
     (before this TSC's PSB+) change payload often enough that their edges
     lie more than twice 512 TSC ticks after it. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_modelrun.h"

#include <string.h>

#define BREAKER_LIST(X) \
    X(MUT_MTC_INSERT,  PTC_RULE_MTC_NOT_SUPPRESSED) \
    X(MUT_MTC_DROP,    PTC_RULE_NONE) /* missing_mtc, gap_too_long or late_resume */ \
    X(MUT_MTC_SHIFT,   PTC_RULE_NONE) /* missing_mtc or late_resume */ \
    X(MUT_PSBEND,      PTC_RULE_PSBEND_ALONE) \
    X(MUT_TMA,         PTC_RULE_TMA_ALONE) \
    X(MUT_MODE_EXEC,   PTC_RULE_MODE_EXEC_ALONE) \
    X(MUT_TNT_OFF,     PTC_RULE_FLOW_WHILE_OFF) \
    X(MUT_OVF,         PTC_RULE_OVF_FOLLOWER) \
    X(MUT_STOP,        PTC_RULE_STOP_WHILE_ON) \
    X(MUT_PGD_STOP,    PTC_RULE_AFTER_STOP) \
    X(MUT_PSB_TNT,     PTC_RULE_PSB_MEMBER) \
    X(MUT_PSB_NESTED,  PTC_RULE_PSB_NESTED) \
    X(MUT_NO_CBR,      PTC_RULE_PSB_NO_CBR) \
    X(MUT_NO_MODE,     PTC_RULE_PGE_NO_MODE) \
    X(MUT_NO_EXSTOP,   PTC_RULE_PWRE_NO_EXSTOP) \
    X(MUT_CBR_ZERO,    PTC_RULE_CBR_ZERO) \
    X(MUT_TMA_CTC,     PTC_RULE_TMA_CTC_MISMATCH) \
    X(MUT_CYC_SMALL,   PTC_RULE_CYC_UNDER_THRESHOLD) \
    X(MUT_CYC_MTCS,    PTC_RULE_CYC_OVER_MTCS) \
    X(MUT_CYC_TSC,     PTC_RULE_CYC_OVER_TSC) \
    X(MUT_TSC_EARLY,   PTC_RULE_TSC_BEFORE_MTCS)

enum {
#define X(e, rule) e,
    BREAKER_LIST(X)
#undef X
    MUT_COUNT
};
static const ptc_rule breaker_rule[MUT_COUNT] = {
#define X(e, rule) rule,
    BREAKER_LIST(X)
#undef X
};

enum { MAX_PKT = 1 << 15 };

typedef struct pkt_at {
    size_t off;
    uint8_t size;
    ptc_packet_type type;
    uint8_t ctc;      /* MTC: payload */
    int chained;      /* MTC: the previous MTC is chained to this one, */
    uint8_t prev_ctc; /*   and its payload */
    int in_psb;       /* after a PSB, up to its PSBEND */
    int awake;        /* before it, code ran or a PWRX came since the last PWRE (the checker's C0) */
    int debt_breaker; /* the first packet after it that is not an anywhere packet breaks an EXSTOP's
                         debt: there is one, and it is no OVF and no decode error (which forgive debts) */
    int after_error;  /* a decode error came right before it */
    int epochs;       /* TMAs right after their TSC before it */
    int tma_of_tsc;   /* a TMA right after its TSC */
    int cyc_sent_for; /* a CYC outside PSB+, not right after a CYC, before a TNT or an eligible packet but TSC and OVF */
    int chain;        /* before it, the checker's count of CYCs against MTCs: 2 counting */
    int tsc_window;   /* a CYC the checker counts against the TSCs */
    size_t next_check;/* a CYC: the MTC (MUT_CYC_MTCS) or TSC (MUT_CYC_TSC) that checks it, or 0 */
    int has_epoch;    /* a TSC: a TSC and its TMA came before, no OVF since */
    uint64_t epoch_tsc;  /*   that TSC's value */
    unsigned periods;    /*   MTCs since its TMA (outside this TSC's PSB+) with a payload the one before did not
                              have: each at least one MTC period on */
} pkt_at;

static int cyc_threshold;  /* the model's CycThresh when CYCs are on, else 0 */
static int no_suppression; /* the model's policy suppresses no MTC */
static unsigned mtc_freq, crystal_eax, crystal_ebx; /* the model's clock (MUT_TSC_EARLY) */

static int stream_shows_vmx; /* a VMCS, or a PIP with NR set: TSCs may jump */

/* The checker over a whole byte stream: the first item that gives
   findings, and they. Returns how many (0: none anywhere). */
static size_t first_findings(const ptc_conform_config *cfg, unsigned flags, const uint8_t *b, size_t n,
                             ptc_finding *out)
{
    static ptc_conform chk;
    ptc_decoder dec;
    ptc_item it;
    ptc_conform_init(&chk, cfg);
    ptc_decoder_init_buffer(&dec, flags, b, n);
    while (ptc_decoder_next(&dec, &it) == PTC_OK) {
        size_t k;
        FUZZ_ASSERT(it.error == PTC_OK || modelrec_erratum_error(it.error), "stream does not decode: %s at %llu",
                  ptc_status_name(it.error), (unsigned long long)it.offset);
        k = ptc_conform_item(&chk, &it, out);
        if (k) return k;
    }
    return 0;
}

/* A packet after which the checker counts CYCs against MTCs anew (a clock
   stop, a new ratio, lost packets: ptc__conf_time_rules). */
static int ends_cyc_count(ptc_packet_type t)
{
    return t == PTC_TSC || t == PTC_OVF || t == PTC_CBR || t == PTC_EXSTOP || t == PTC_PWRE || t == PTC_PWRX ||
           t == PTC_MWAIT;
}

/* Every packet of the stream, with what the breakers look for. */
static size_t list_packets(const uint8_t *b, size_t len, unsigned flags, pkt_at *p)
{
    ptc_decoder dec;
    ptc_item it;
    size_t n = 0;
    int chain_open = 0, in_psb = 0, awake = 0, epochs = 0, chain = 0, tsc_seen = 0, first_cyc_after_tsc = 0;
    int has_epoch = 0, mtc_seen = 0, error_before = 0;
    unsigned periods = 0, periods_at_psb = 0;
    uint64_t last_tsc = 0, epoch_tsc = 0;
    size_t k;
    uint8_t prev_ctc = 0, last_mtc = 0;
    stream_shows_vmx = 0;
    ptc_decoder_init_buffer(&dec, flags, b, len);
    while (ptc_decoder_next(&dec, &it) == PTC_OK && n < MAX_PKT) {
        ptc_packet_type t = it.pkt.type;
        if (it.error != PTC_OK) { chain_open = 0; awake = 0; has_epoch = 0; error_before = 1; continue; }
        memset(&p[n], 0, sizeof p[n]);
        p[n].after_error = error_before;
        error_before = 0;
        p[n].off = (size_t)it.offset;
        p[n].size = it.pkt.size;
        p[n].type = t;
        if (t == PTC_PSB) in_psb = 1;
        p[n].in_psb = in_psb;
        if (t == PTC_PSBEND || t == PTC_OVF) in_psb = 0;
        p[n].awake = awake;
        if (t == PTC_TNT8 || t == PTC_TNT64 || t == PTC_TIP || t == PTC_TIP_PGE || t == PTC_TIP_PGD || t == PTC_PTW ||
            t == PTC_PWRX)
            awake = 1;
        if (t == PTC_PWRE || t == PTC_OVF) awake = 0;
        p[n].tma_of_tsc = t == PTC_TMA && n > 0 && p[n - 1].type == PTC_TSC;
        /* the checker's time state (ptc__conf_time_rules), as far as the breakers need it */
        p[n].chain = chain;
        p[n].tsc_window = t == PTC_CYC && tsc_seen && !first_cyc_after_tsc && !in_psb;
        if (ends_cyc_count(t)) chain = 0;
        if (t == PTC_MTC && chain != 2) chain = 1;
        if (t == PTC_CYC && chain == 1) chain = 2;
        if (t == PTC_TSC) tsc_seen = first_cyc_after_tsc = 1;
        else if (t == PTC_CYC) first_cyc_after_tsc = 0;
        p[n].epochs = epochs;
        epochs += p[n].tma_of_tsc;
        /* the epoch MUT_TSC_EARLY moves a TSC back to */
        if (t == PTC_PSB) periods_at_psb = periods;
        if (t == PTC_TSC) {
            p[n].has_epoch = has_epoch;
            p[n].epoch_tsc = epoch_tsc;
            p[n].periods = in_psb ? periods_at_psb : periods;
            last_tsc = it.pkt.u.tsc.tsc;
        }
        if (p[n].tma_of_tsc) { has_epoch = 1; epoch_tsc = last_tsc; periods = 0; mtc_seen = 0; }
        if (t == PTC_OVF) has_epoch = 0;
        if (t == PTC_MTC) {
            periods += mtc_seen && it.pkt.u.mtc.ctc != last_mtc;
            mtc_seen = 1;
            last_mtc = it.pkt.u.mtc.ctc;
        }
        stream_shows_vmx |= t == PTC_VMCS || (t == PTC_PIP && it.pkt.u.pip.nr);
        if (t == PTC_MTC) {
            p[n].ctc = it.pkt.u.mtc.ctc;
            p[n].chained = chain_open;
            p[n].prev_ctc = prev_ctc;
            prev_ctc = it.pkt.u.mtc.ctc;
            chain_open = 1;
        } else if (!(ptc_packet_is_timing(t) || t == PTC_PAD)) {
            chain_open = 0;
        }
        n++;
    }
    { /* the MTC or TSC that checks a CYC's count: the first packet after it
         that ends the count, if it is one of those (one pass, from the end) */
        size_t stop = 0; /* (0: none) */
        for (k = n; k-- > 0;) {
            ptc_packet_type t = p[k].type;
            if (t == PTC_CYC) p[k].next_check = stop && (p[stop].type == PTC_MTC || p[stop].type == PTC_TSC) ? stop : 0;
            if (t == PTC_MTC || ends_cyc_count(t)) stop = k;
        }
    }
    for (k = 0; k + 1 < n; k++) {
        ptc_packet_type next = p[k + 1].type;
        int after_cyc = k > 0 && (p[k - 1].type == PTC_CYC || p[k - 1].type == PTC_PAD); /* (the checker skips PADs) */
        p[k].cyc_sent_for = p[k].type == PTC_CYC && !p[k].in_psb && !p[k + 1].in_psb && !after_cyc &&
                            (ptc_packet_is_tnt(next) || (ptc_packet_is_cyc_eligible(next) && next != PTC_TSC && next != PTC_OVF));
    }
    { /* (the anywhere packets: SPEC 7.3.3) */
        int breaks = 0; /* the first packet after k that is not an anywhere packet breaks a debt */
        for (k = n; k-- > 0;) {
            p[k].debt_breaker = breaks;
            if (p[k].after_error || p[k].type == PTC_OVF) breaks = 0;
            else if (!(ptc_packet_is_timing(p[k].type) || p[k].type == PTC_PAD || p[k].type == PTC_CBR ||
                       p[k].type == PTC_MNT))
                breaks = 1;
        }
    }
    return n;
}

/* MTC payload gap: equal payloads are 256 periods apart. */
static unsigned mtc_gap(uint8_t from, uint8_t to)
{
    unsigned g = (uint8_t)(to - from);
    return g ? g : 256;
}

/* Where breaker `what` can go: the index of the packet it works at. */
static int candidate(unsigned what, const pkt_at *p, size_t n, size_t i)
{
    ptc_packet_type t = p[i].type, next = i + 1 < n ? p[i + 1].type : PTC_NONE;
    switch (what) {
    case MUT_MTC_INSERT: return t == PTC_MTC && p[i].chained && mtc_gap(p[i].prev_ctc, p[i].ctc) >= 2;
    case MUT_MTC_SHIFT: return t == PTC_MTC && p[i].chained && mtc_gap(p[i].prev_ctc, p[i].ctc) == 1;
    case MUT_MTC_DROP: {
        size_t c;
        if (t != PTC_MTC || !p[i].chained) return 0;
        for (c = i + 1; c < n && p[c].type != PTC_MTC; c++) {}
        return c < n && p[c].chained && mtc_gap(p[i].prev_ctc, p[i].ctc) + mtc_gap(p[i].ctc, p[c].ctc) < 256;
    }
    case MUT_PSBEND: return t == PTC_PSBEND;
    case MUT_TMA: return t == PTC_TNT8 || t == PTC_TNT64;
    case MUT_MODE_EXEC: case MUT_OVF: return (t == PTC_TNT8 || t == PTC_TNT64) && !p[i].in_psb;
    case MUT_STOP: case MUT_PGD_STOP: /* (packets on: the packet before shows it) */
        return (t == PTC_TNT8 || t == PTC_TNT64) && !p[i].in_psb &&
               (p[i - 1].type == PTC_TNT8 || p[i - 1].type == PTC_TNT64 || p[i - 1].type == PTC_TIP);
    case MUT_TNT_OFF: return t == PTC_TIP_PGD;
    case MUT_PSB_TNT: return t == PTC_PSB;
    case MUT_NO_EXSTOP: return t == PTC_EXSTOP && p[i - 1].type == PTC_PWRE && p[i - 1].awake && p[i].debt_breaker;
    case MUT_CBR_ZERO: return t == PTC_CBR;
    case MUT_TMA_CTC: return p[i].tma_of_tsc && p[i].epochs >= 1 && !stream_shows_vmx;
    case MUT_CYC_SMALL: return p[i].cyc_sent_for && cyc_threshold >= 3;
    case MUT_CYC_MTCS: return t == PTC_CYC && p[i].chain == 2 && no_suppression && p[i].next_check && p[p[i].next_check].type == PTC_MTC;
    case MUT_CYC_TSC:
        return t == PTC_CYC && p[i].tsc_window && !stream_shows_vmx && p[i].next_check && p[p[i].next_check].type == PTC_TSC;
    case MUT_TSC_EARLY: /* (periods enough that the epoch's TSC is more than 512 TSC ticks too early, less a
                           period and two CTC ticks: SPEC 7.3.5; twice that) */
        return t == PTC_TSC && p[i].has_epoch && !stream_shows_vmx && crystal_eax &&
               (uint64_t)p[i].periods * crystal_ebx << mtc_freq >
                   UINT64_C(1024) * crystal_eax + ((UINT64_C(1) << mtc_freq) + 2) * crystal_ebx;
    case MUT_PSB_NESTED: /* (a PSBEND or an OVF right after the PSB ends its PSB+) */
        return t == PTC_PSB && next != PTC_NONE && next != PTC_PSBEND && next != PTC_PSB && next != PTC_OVF;
    case MUT_NO_MODE: { /* (the only MODE.Exec since the last PSB) */
        size_t b;
        if (t != PTC_MODE_EXEC || p[i].in_psb || i + 1 >= n || p[i + 1].type != PTC_TIP_PGE) return 0;
        for (b = i; b-- > 0 && p[b].type != PTC_PSB;)
            if (p[b].type == PTC_MODE_EXEC) return 0;
        return 1;
    }
    case MUT_NO_CBR: { /* (in a PSB+ that a PSBEND ends: an OVF ends one unchecked) */
        size_t e;
        if (t != PTC_CBR || !p[i].in_psb) return 0;
        for (e = i + 1; e < n && p[e].type != PTC_PSBEND && p[e].type != PTC_OVF && p[e].type != PTC_PSB; e++) {}
        return e < n && p[e].type == PTC_PSBEND;
    }
    default: return 0;
    }
}

/* Applies breaker `what` at packet i of rec into mut (room for rec->len +
   16): its length, and in *expect where its finding must be. */
static size_t apply(unsigned what, const pkt_at *p, size_t i, const modelrec_trace *rec, uint8_t *mut, uint64_t *expect)
{
    ptc_packet ins;
    uint8_t bytes[PTC_MAX_PACKET_SIZE];
    size_t at = p[i].off, nb = 0, cut = 0, len;
    memset(&ins, 0, sizeof ins);
    *expect = at;
    switch (what) {
    case MUT_MTC_INSERT: /* the missing edge A+1 as an MTC just before B */
        ins.type = PTC_MTC;
        ins.u.mtc.ctc = (uint8_t)(p[i].prev_ctc + 1);
        break;
    case MUT_MTC_DROP: { /* B's two bytes removed; C moves back by two */
        size_t c;
        for (c = i + 1; p[c].type != PTC_MTC; c++) {}
        cut = p[i].size;
        *expect = p[c].off - cut;
        break;
    }
    case MUT_MTC_SHIFT: /* B one edge on */
        ins.type = PTC_MTC;
        ins.u.mtc.ctc = (uint8_t)(p[i].ctc + 1);
        cut = p[i].size;
        break;
    case MUT_PSBEND: ins.type = PTC_PSBEND; at = *expect = p[i].off + p[i].size; break;
    case MUT_TMA: ins.type = PTC_TMA; at = *expect = p[i].off + p[i].size; break;
    case MUT_MODE_EXEC: ins.type = PTC_MODE_EXEC; ins.u.mode_exec.csl = 1; break;
    case MUT_TNT_OFF:
        ins.type = PTC_TNT8;
        ins.u.tnt.count = 1; /* 0x06: no BIP's pattern */
        ins.u.tnt.bits = 1;
        at = *expect = p[i].off + p[i].size;
        break;
    case MUT_OVF: ins.type = PTC_OVF; break;
    case MUT_STOP: ins.type = PTC_STOP; break;
    case MUT_PGD_STOP: { /* TIP.PGD(), TraceStop: found at the TNT after them */
        ptc_packet pgd;
        size_t n1 = 0;
        memset(&pgd, 0, sizeof pgd);
        pgd.type = PTC_TIP_PGD;
        pgd.u.ip.ipc = PTC_IPC_SUPPRESSED;
        FUZZ_ASSERT(ptc_encode_packet(&pgd, bytes, sizeof bytes, &n1) == PTC_OK, "breaker %u", what);
        nb = n1;
        ins.type = PTC_STOP;
        *expect = at + n1 + 2;
        break;
    }
    case MUT_PSB_TNT:
        ins.type = PTC_TNT8;
        ins.u.tnt.count = 1;
        ins.u.tnt.bits = 1;
        at = *expect = p[i].off + p[i].size;
        break;
    case MUT_PSB_NESTED: ins.type = PTC_PSB; at = *expect = p[i + 1].off + p[i + 1].size; break;
    case MUT_NO_MODE: cut = p[i].size; break; /* the TIP.PGE moves to its offset */
    case MUT_NO_EXSTOP: cut = p[i].size; *expect = p[i - 1].off; break;
    case MUT_CBR_ZERO: case MUT_TMA_CTC: case MUT_TSC_EARLY: break; /* bytes changed below */
    case MUT_CYC_SMALL: ins.type = PTC_CYC; ins.u.cyc.cycles = 2; cut = p[i].size; break;
    case MUT_CYC_MTCS: case MUT_CYC_TSC: { /* found at the packet that checks it, moved by the CYC's new size */
        ptc_packet big;
        size_t n1 = 0;
        memset(&big, 0, sizeof big);
        big.type = PTC_CYC;
        big.u.cyc.cycles = UINT64_C(1) << 40;
        FUZZ_ASSERT(ptc_encode_packet(&big, bytes, sizeof bytes, &n1) == PTC_OK, "breaker %u", what);
        nb = n1;
        cut = p[i].size;
        *expect = p[p[i].next_check].off + n1 - cut;
        break;
    }
    default: { /* MUT_NO_CBR: found at the PSB of its PSB+ */
        size_t s;
        for (s = i; p[s].type != PTC_PSB; s--) {}
        cut = p[i].size;
        *expect = p[s].off;
        break;
    }
    }
    if (ins.type != PTC_NONE) { /* (after what the breaker put there already) */
        size_t n2 = 0;
        FUZZ_ASSERT(ptc_encode_packet(&ins, bytes + nb, sizeof bytes - nb, &n2) == PTC_OK, "breaker %u", what);
        nb += n2;
    }
    memcpy(mut, rec->bytes, at);
    memcpy(mut + at, bytes, nb);
    memcpy(mut + at + nb, rec->bytes + at + cut, rec->len - at - cut);
    len = rec->len + nb - cut;
    if (what == MUT_CBR_ZERO) mut[at + 2] = 0;  /* 02 03 ratio */
    if (what == MUT_TMA_CTC) mut[at + 3] ^= 1;  /* 02 73 CTC[7:0] CTC[15:8]: 0x100 ticks off */
    if (what == MUT_TSC_EARLY) {                /* 19 TSC[7:0] .. TSC[55:48]: the epoch's TSC again */
        unsigned b;
        for (b = 0; b < 7; b++) mut[at + 1 + b] = (uint8_t)(p[i].epoch_tsc >> (8 * b));
    }
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pkt_at pkts[MAX_PKT];
    static size_t cand[MAX_PKT];
    fuzz_input in;
    ptc_model_config cfg;
    ptc_conform_config cc;
    modelrec_trace rec;
    ptc_finding f[PTC_CONFORM_MAX_FINDINGS];
    uint8_t *mut;
    size_t np, nc = 0, i, k, nf, len;
    uint64_t expect;
    unsigned what, pick, flags;
    int hit = 0;
    if (size > 4096) return 0;
    in.data = data;
    in.size = size;
    fuzz_model_config(&in, &cfg);
    cfg.mtc_lost = 0; /* lost MTCs (an erratum) break the policy on purpose: not here */
    cfg.trace.errata &= ~(uint32_t)PTC_ERRATUM_SKD007; /* and a cut CYC reads as an OVF that two whole CYCs write too (SPEC 7.5) */
    what = fuzz_take(&in, 0, MUT_COUNT - 1);
    pick = fuzz_take(&in, 0, 0xFFFF);
    fuzz_model_run(&cfg, in.data, in.size, &rec);
    ptc_conform_config_from_model(&cc, &cfg);
    flags = modelrec_decode_flags(&cfg);
    cyc_threshold = cc.trace.ctl.cyc_en ? cc.trace.ctl.cyc_thresh : 0; /* (the model's: all known) */
    no_suppression = cc.trace.policy.threshold == 0;
    mtc_freq = cc.trace.ctl.mtc_freq;
    crystal_eax = cc.trace.ratios.cpuid_15_eax;
    crystal_ebx = cc.trace.ratios.cpuid_15_ebx;

    nf = first_findings(&cc, flags, rec.bytes, rec.len, f);
    FUZZ_ASSERT(nf == 0, "the model's own stream breaks %s at %llu (%s)", ptc_rule_name(f[0].rule),
              (unsigned long long)f[0].offset, ptc_severity_name(f[0].severity));

    np = list_packets(rec.bytes, rec.len, flags, pkts);
    for (i = 1; i < np; i++)
        if (candidate(what, pkts, np, i)) cand[nc++] = i;
    if (!nc) { modelrec_free(&rec); return 0; }
    i = cand[pick % nc];
    mut = (uint8_t *)malloc(rec.len + PTC_MAX_PACKET_SIZE);
    FUZZ_ASSERT(mut != NULL, "out of memory");
    len = apply(what, pkts, i, &rec, mut, &expect);

    nf = first_findings(&cc, flags, mut, len, f);
    for (k = 0; k < nf; k++)
        hit |= f[k].offset == expect && (breaker_rule[what] == PTC_RULE_NONE || f[k].rule == breaker_rule[what]);
    FUZZ_ASSERT(nf && hit, "breaker %u at packet %zu (%s, offset %zu): first finding %s at %lld, expected %s at %llu", what, i,
              ptc_packet_type_name(pkts[i].type), pkts[i].off, nf ? ptc_rule_name(f[0].rule) : "none",
              nf ? (long long)f[0].offset : -1LL, ptc_rule_name(breaker_rule[what]), (unsigned long long)expect);
    free(mut);
    modelrec_free(&rec);
    return 0;
}

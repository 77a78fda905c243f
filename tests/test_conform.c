/* Part 7: the conformance checker. Every rule of the catalogue breaks once
   in a minimal stream and is caught there, at its offset, with its id; a
   near variant that is legal gives no finding at all. SPEC.md 7.3's table
   is the catalogue. The model's streams, under every workload, policy and
   setting, give no finding; nor does any real hardware trace give a
   violation (shared/pt-traces*), and what they do show is the allowance
   SPEC.md 7.5 describes. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"
#include "../harness/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../harness/modelrec.h"
#include "sdm_table.h"

#include <string.h>

static const char *spec_path = "SPEC.md";

/* ---- streams built packet by packet ---------------------------------- */

typedef struct sb {
    uint8_t b[8192];
    size_t len;
    uint64_t mark;           /* where the finding is expected (UINT64_MAX: none set) */
    ptc_conform_config cfg;  /* the checker's settings for this stream */
} sb;

/* The time rules on (SPEC 7.3.5), as for a trace from hardware: MTCFreq
   and the TSC:CTC ratio known, no suppression, the tolerances of real
   clocks (which may lose an MTC: the policy's rules stay off). */
static void with_hw_clock(ptc_conform_config *cfg, uint8_t mtc_freq, uint32_t eax, uint32_t ebx)
{
    ptc_clock_config hw;
    ptc_clock_config_default(&hw);
    cfg->trace.known |= hw.trace.known;
    cfg->trace.ctl.mtc_freq = mtc_freq;
    cfg->trace.ratios.cpuid_15_eax = eax;
    cfg->trace.ratios.cpuid_15_ebx = ebx;
    cfg->real = hw.real;
}

static void sb_init(sb *s)
{
    memset(s, 0, sizeof *s);
    s->mark = UINT64_MAX;
}

static void put(sb *s, ptc_packet p)
{
    size_t n = 0;
    ptc_status st = ptc_encode_packet(&p, s->b + s->len, sizeof s->b - s->len, &n);
    CHECK(st == PTC_OK, "encoding a %s: %s", ptc_packet_type_name(p.type), ptc_status_name(st));
    s->len += n;
}

/* The next packet is where the rule breaks. */
static void mark(sb *s) { s->mark = s->len; }

static ptc_packet pk(ptc_packet_type t)
{
    ptc_packet p;
    memset(&p, 0, sizeof p);
    p.type = t;
    return p;
}
static ptc_packet pk_ip(ptc_packet_type t, uint8_t ipc, uint64_t payload)
{
    ptc_packet p = pk(t);
    p.u.ip.ipc = ipc;
    p.u.ip.payload = payload;
    return p;
}
static ptc_packet pk_tnt(void) /* one taken branch: 0x06, not a BIP's pattern */
{
    ptc_packet p = pk(PTC_TNT8);
    p.u.tnt.count = 1;
    p.u.tnt.bits = 1;
    return p;
}
static ptc_packet pk_tsc(uint64_t v) { ptc_packet p = pk(PTC_TSC); p.u.tsc.tsc = v; return p; }
static ptc_packet pk_mtc(uint8_t ctc) { ptc_packet p = pk(PTC_MTC); p.u.mtc.ctc = ctc; return p; }
static ptc_packet pk_cbr(uint8_t reserved) { ptc_packet p = pk(PTC_CBR); p.u.cbr.ratio = 0x20; p.u.cbr.reserved = reserved; return p; }
static ptc_packet pk_exec(uint8_t csl, uint8_t csd)
{
    ptc_packet p = pk(PTC_MODE_EXEC);
    p.u.mode_exec.csl = csl;
    p.u.mode_exec.csd = csd;
    return p;
}
static ptc_packet pk_tsx(uint8_t intx, uint8_t abrt)
{
    ptc_packet p = pk(PTC_MODE_TSX);
    p.u.mode_tsx.intx = intx;
    p.u.mode_tsx.abrt = abrt;
    return p;
}
static ptc_packet pk_fup(void) { return pk_ip(PTC_FUP, PTC_IPC_FULL, 0x401000); }
static ptc_packet pk_tip(void) { return pk_ip(PTC_TIP, PTC_IPC_UPDATE_16, 0x1040); }

/* A PSB+: TSC and TMA, CBR, and with PacketEn the MODE.Exec and FUP. */
static void psb_plus(sb *s, int packet_en)
{
    ptc_packet tma = pk(PTC_TMA);
    put(s, pk(PTC_PSB));
    if (packet_en) {
        put(s, pk_exec(1, 0));
        put(s, pk_fup());
    }
    put(s, pk_tsc(0x100000 + s->len));
    tma.u.tma.ctc = 0x10;
    put(s, tma);
    put(s, pk_cbr(0));
    put(s, pk(PTC_PSBEND));
}

/* ---- the checker over a whole buffer --------------------------------- */

typedef struct found {
    ptc_finding f[64];
    size_t n;
    uint64_t packets;
} found;

static void check_bytes(const ptc_conform_config *cfg, const uint8_t *b, size_t len, unsigned flags, found *out)
{
    ptc_conform c;
    ptc_decoder d;
    ptc_item it;
    ptc_finding f[PTC_CONFORM_MAX_FINDINGS];
    memset(out, 0, sizeof *out);
    ptc_conform_init(&c, cfg);
    ptc_decoder_init_buffer(&d, flags, b, len);
    while (ptc_decoder_next(&d, &it) == PTC_OK) {
        size_t n = ptc_conform_item(&c, &it, f), i;
        out->packets += it.error == PTC_OK;
        for (i = 0; i < n && out->n < 64; i++) out->f[out->n++] = f[i];
    }
}

static void show(const found *fd, char *buf, size_t cap)
{
    size_t i, at = 0;
    buf[0] = 0;
    for (i = 0; i < fd->n && at + 60 < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, " %s@%llu(%s)", ptc_rule_name(fd->f[i].rule),
                               (unsigned long long)fd->f[i].offset, ptc_severity_name(fd->f[i].severity));
}

/* ---- 7.3: a minimal stream per rule ----------------------------------- */

/* Builds the stream that breaks the case's rule (bad = 1; mark() says
   where) or its legal near variant (bad = 0). */
typedef void (*build_fn)(sb *s, int bad);

static void b_psb_member(sb *s, int bad)
{
    put(s, pk(PTC_PSB));
    put(s, pk_cbr(0));
    if (bad) { mark(s); put(s, pk_tnt()); }
    put(s, pk(PTC_PSBEND));
    if (!bad) put(s, pk(PTC_PAD));
}
static void b_psb_nested(sb *s, int bad)
{
    put(s, pk(PTC_PSB));
    put(s, pk_cbr(0));
    if (!bad) put(s, pk(PTC_PSBEND));
    mark(s);
    put(s, pk(PTC_PSB));
    put(s, pk_cbr(0));
    put(s, pk(PTC_PSBEND));
}
static void b_psbend_alone(sb *s, int bad)
{
    psb_plus(s, 0);
    if (bad) { mark(s); put(s, pk(PTC_PSBEND)); }
}
static void b_psb_no_cbr(sb *s, int bad)
{
    mark(s);
    put(s, pk(PTC_PSB));
    if (!bad) put(s, pk_cbr(0));
    put(s, pk(PTC_PSBEND));
    put(s, pk(PTC_PAD));
}
static void b_psb_no_tsc(sb *s, int bad)
{
    s->cfg.trace.ctl.tsc_en = 1;
    s->cfg.trace.known |= PTC_KNOW_TSC_EN;
    mark(s);
    put(s, pk(PTC_PSB));
    if (!bad) put(s, pk_tsc(5));
    put(s, pk_cbr(0));
    put(s, pk(PTC_PSBEND));
}
static void b_psb_fup_mode(sb *s, int bad)
{
    mark(s);
    put(s, pk(PTC_PSB));
    if (!bad) put(s, pk_exec(1, 0));
    put(s, pk_fup());
    put(s, pk_cbr(0));
    put(s, pk(PTC_PSBEND));
}
static void b_psb_period(sb *s, int bad)
{
    size_t i;
    s->cfg.trace.known |= PTC_KNOW_PSB_FREQ; /* psb_freq 0: 2 KiB */
    psb_plus(s, 0);
    for (i = 0; i < (bad ? 4200u : 3000u); i++) put(s, pk(PTC_PAD));
    mark(s);
    psb_plus(s, 0);
}
static void b_flow_while_off(sb *s, int bad)
{
    psb_plus(s, !bad);
    mark(s);
    put(s, pk_tnt());
}
static void b_pge_while_on(sb *s, int bad)
{
    psb_plus(s, 1);
    put(s, pk_tnt());
    if (!bad) put(s, pk_ip(PTC_TIP_PGD, PTC_IPC_SUPPRESSED, 0));
    mark(s);
    put(s, pk_ip(PTC_TIP_PGE, PTC_IPC_FULL, 0x402000));
}
static void b_pgd_while_off(sb *s, int bad)
{
    psb_plus(s, !bad);
    mark(s);
    put(s, pk_ip(PTC_TIP_PGD, PTC_IPC_SUPPRESSED, 0));
}
static void b_pge_no_ip(sb *s, int bad)
{
    psb_plus(s, 0);
    put(s, pk(PTC_MODE_EXEC)); /* (pge_no_mode otherwise) */
    mark(s);
    put(s, bad ? pk_ip(PTC_TIP_PGE, PTC_IPC_SUPPRESSED, 0) : pk_ip(PTC_TIP_PGE, PTC_IPC_FULL, 0x402000));
}
static void b_after_stop(sb *s, int bad)
{
    psb_plus(s, 1);
    put(s, pk_ip(PTC_TIP_PGD, PTC_IPC_SUPPRESSED, 0));
    put(s, pk(PTC_STOP));
    if (!bad) { put(s, pk_tsc(0x900000)); put(s, pk_cbr(0)); } /* TraceEn set again */
    mark(s);
    put(s, pk_mtc(7));
}
static void b_pge_no_mode(sb *s, int bad)
{
    psb_plus(s, 0);
    if (!bad) put(s, pk(PTC_MODE_EXEC));
    mark(s);
    put(s, pk_ip(PTC_TIP_PGE, PTC_IPC_FULL, 0x402000));
}
static void b_stop_while_on(sb *s, int bad)
{
    psb_plus(s, 1);
    put(s, pk_tnt());
    if (!bad) put(s, pk_ip(PTC_TIP_PGD, PTC_IPC_SUPPRESSED, 0));
    mark(s);
    put(s, pk(PTC_STOP));
}
static void b_fup_alone(sb *s, int bad)
{
    psb_plus(s, 1);
    mark(s);
    put(s, pk_fup());
    put(s, pk_mtc(3)); /* timing packets may come between */
    put(s, bad ? pk_tnt() : pk_tip());
}
static void b_mode_exec_alone(sb *s, int bad)
{
    psb_plus(s, 1);
    mark(s);
    put(s, pk_exec(0, 1));
    put(s, bad ? pk_tnt() : pk_tip());
}
static void b_mode_tsx_alone(sb *s, int bad)
{
    psb_plus(s, 1);
    mark(s);
    put(s, pk_tsx(1, 0));
    put(s, bad ? pk_tnt() : pk_fup());
}
static void b_ip_bit_no_fup(sb *s, int bad)
{
    ptc_packet w = pk(PTC_PTW);
    w.u.ptw.bytes = 4;
    w.u.ptw.ip = 1;
    w.u.ptw.payload = 42;
    psb_plus(s, 1);
    mark(s);
    put(s, w);
    put(s, bad ? pk_tnt() : pk_fup());
}
static void b_ovf_follower(sb *s, int bad)
{
    psb_plus(s, 1);
    mark(s);
    put(s, pk(PTC_OVF));
    if (!bad) put(s, pk_fup());
    put(s, pk_tnt());
}
static void b_mwait_alone(sb *s, int bad)
{
    ptc_packet e = pk(PTC_EXSTOP);
    psb_plus(s, 1);
    mark(s);
    put(s, pk(PTC_MWAIT));
    if (!bad) put(s, pk(PTC_PWRE));
    e.u.exstop.ip = 1;
    put(s, e);
    put(s, pk_fup());
}
static void b_pwrx_alone(sb *s, int bad)
{
    psb_plus(s, 1);
    put(s, pk(PTC_PWRE));
    put(s, pk(PTC_EXSTOP));
    put(s, pk(PTC_PWRX));
    if (bad) { mark(s); put(s, pk(PTC_PWRX)); }
}
static void b_bep_alone(sb *s, int bad)
{
    ptc_packet bip = pk(PTC_BIP);
    bip.u.bip.bytes = 8;
    bip.u.bip.value = 99;
    psb_plus(s, 1);
    if (!bad) { put(s, pk(PTC_BBP)); put(s, bip); }
    mark(s);
    put(s, pk(PTC_BEP));
}
static void b_block_unended(sb *s, int bad)
{
    ptc_packet bip = pk(PTC_BIP);
    bip.u.bip.bytes = 8;
    psb_plus(s, 1);
    mark(s);
    put(s, pk(PTC_BBP));
    put(s, bip);
    if (!bad) put(s, pk(PTC_BEP));
    put(s, pk_tnt());
}
static void b_evd_alone(sb *s, int bad)
{
    ptc_packet cfe = pk(PTC_CFE);
    cfe.u.cfe.cfe_type = 1;
    psb_plus(s, 1);
    mark(s);
    put(s, pk(PTC_EVD));
    put(s, bad ? pk_tnt() : cfe);
}
static void b_mode_exec_l_d(sb *s, int bad)
{
    psb_plus(s, 1);
    mark(s);
    put(s, pk_exec(1, (uint8_t)bad));
    put(s, pk_tip());
}
static void b_mode_tsx_both(sb *s, int bad)
{
    psb_plus(s, 1);
    mark(s);
    put(s, pk_tsx((uint8_t)bad, 1));
    put(s, pk_fup());
    put(s, pk_tip());
}
static void b_cfe_evd_type(sb *s, int bad)
{
    ptc_packet cfe = pk(PTC_CFE);
    cfe.u.cfe.cfe_type = bad ? 11 : 10;
    psb_plus(s, 1);
    mark(s);
    put(s, cfe);
}
static void b_reserved_bits(sb *s, int bad)
{
    psb_plus(s, 1);
    mark(s);
    put(s, pk_cbr((uint8_t)bad));
}
static void b_cyc_not_shortest(sb *s, int bad)
{
    ptc_packet c = pk(PTC_CYC);
    c.u.cyc.cycles = 31;
    c.size = bad ? 2 : 1;
    psb_plus(s, 1);
    mark(s);
    put(s, c);
}
static void b_tma_alone(sb *s, int bad)
{
    ptc_packet tma = pk(PTC_TMA);
    psb_plus(s, 1);
    put(s, bad ? pk_tnt() : pk_tsc(0x200000));
    mark(s);
    put(s, tma);
}
static void b_tsc_no_tma(sb *s, int bad)
{
    ptc_packet tma = pk(PTC_TMA);
    s->cfg.trace.ctl.mtc_en = 1;
    s->cfg.trace.known |= PTC_KNOW_MTC_EN;
    psb_plus(s, 1);
    put(s, pk_tnt());
    mark(s);
    put(s, pk_tsc(0x200000));
    put(s, pk_cbr(0)); /* a CBR may come between (a wake: TSC, TMA, CBR in either order) */
    if (!bad) put(s, tma);
    put(s, pk_tnt());
}
static void b_tsc_backwards(sb *s, int bad)
{
    ptc_packet tma = pk(PTC_TMA);
    psb_plus(s, 1);
    mark(s);
    put(s, pk_tsc(bad ? 0x1000 : 0x300000));
    put(s, tma);
}
static void b_disabled_packet(sb *s, int bad)
{
    ptc_packet c = pk(PTC_CYC);
    c.u.cyc.cycles = 3;
    s->cfg.trace.ctl.cyc_en = !bad;
    s->cfg.trace.known |= PTC_KNOW_CYC_EN;
    psb_plus(s, 1);
    mark(s);
    put(s, c);
}
static void b_pwre_no_exstop(sb *s, int bad)
{
    psb_plus(s, 1);
    put(s, pk_tnt()); /* code ran: in C0 */
    mark(s);
    put(s, pk(PTC_PWRE));
    if (!bad) put(s, pk(PTC_EXSTOP));
    put(s, pk(PTC_PWRX));
    put(s, pk(PTC_PWRE)); /* a wake, and straight back to sleep: a PWRX is C0 too */
    put(s, pk(PTC_EXSTOP));
    put(s, pk(PTC_PWRE)); /* deeper, still asleep: no EXSTOP owed */
    put(s, pk(PTC_PWRX));
}
static void b_cbr_zero(sb *s, int bad)
{
    ptc_packet cbr = pk_cbr(0);
    cbr.u.cbr.ratio = bad ? 0 : 1;
    psb_plus(s, 1);
    mark(s);
    put(s, cbr);
}
/* The time rules' streams: a clock of 100 TSC ticks a CTC tick, an MTC
   every 8 CTC ticks (800 TSC ticks), nom 24 (a CBR of 0x20 runs 4 cycles
   in 3 TSC ticks); a PSB+ at TSC 0x100000 with CTC 0x10, then code. */
static void timed_start(sb *s)
{
    ptc_packet tma = pk(PTC_TMA);
    with_hw_clock(&s->cfg, 3, 1, 100);
    s->cfg.trace.ratios.nom_num = 24;
    s->cfg.trace.ratios.nom_den = 1;
    s->cfg.trace.ratios.nom_exact = 1;
    put(s, pk(PTC_PSB));
    put(s, pk_exec(1, 0));
    put(s, pk_fup());
    put(s, pk_tsc(0x100000));
    tma.u.tma.ctc = 0x10;
    put(s, tma);
    put(s, pk_cbr(0));
    put(s, pk(PTC_PSBEND));
    put(s, pk_tnt());
}
/* the TSC (and its TMA, with the CTC its distance gives) d ticks after the first */
static void timed_tsc(sb *s, uint64_t d, uint16_t ctc_off)
{
    ptc_packet tma = pk(PTC_TMA);
    put(s, pk_tsc(0x100000 + d));
    tma.u.tma.ctc = (uint16_t)(0x10 + d / 100 + ctc_off);
    put(s, tma);
    put(s, pk_tnt());
}
static void b_tsc_before_mtcs(sb *s, int bad)
{
    unsigned k;
    timed_start(s);
    /* four MTC edges: CTC 0x18, 0x20, 0x28, 0x30, 0x20 ticks (3 200 TSC ticks) after the TMA's */
    for (k = 3; k <= 6; k++) { put(s, pk_mtc((uint8_t)k)); put(s, pk_tnt()); }
    mark(s);
    timed_tsc(s, bad ? 2400 : 3300, 0); /* (512 ticks are the FastCounter's) */
}
static void b_tma_ctc_mismatch(sb *s, int bad)
{
    timed_start(s);
    put(s, pk_mtc(3));
    put(s, pk_tnt());
    put(s, pk_tsc(0x100000 + 3300));
    {
        ptc_packet tma = pk(PTC_TMA);
        tma.u.tma.ctc = (uint16_t)(0x10 + 33 + (bad ? 5 : 1)); /* a tick either way is the TSC's sampling */
        mark(s);
        put(s, tma);
    }
    put(s, pk_tnt());
}
static void b_cyc_over_tsc(sb *s, int bad)
{
    ptc_packet c = pk(PTC_CYC);
    unsigned k;
    timed_start(s);
    c.u.cyc.cycles = 500; /* the first CYC after the TSC counts from before it */
    put(s, c);
    put(s, pk_tnt());
    for (k = 0; k < 4; k++) { /* 4 x 1 000 cycles: 3 000 TSC ticks at CBR 0x20, nom 24 */
        c.u.cyc.cycles = 1000;
        put(s, c);
        put(s, pk_tnt());
    }
    mark(s);
    timed_tsc(s, bad ? 2900 : 3000, 0);
}
static void b_cyc_over_mtcs(sb *s, int bad)
{
    ptc_packet c = pk(PTC_CYC);
    unsigned k;
    timed_start(s);
    put(s, pk_mtc(3));
    c.u.cyc.cycles = 3000; /* from before the MTC's edge: not counted */
    put(s, c);
    put(s, pk_tnt());
    for (k = 4; k <= 6; k++) { /* a period (800 TSC ticks at CBR 0x20, nom 24) holds 1 066 cycles */
        c.u.cyc.cycles = bad && k == 6 ? 3000 : 1000;
        put(s, c);
        put(s, pk_tnt());
        if (k == 6) mark(s);
        put(s, pk_mtc((uint8_t)k)); /* three periods and one spare hold 4 266: 3 000 pass, 5 000 do not */
        put(s, pk_tnt());
    }
}
static void b_cyc_under_threshold(sb *s, int bad)
{
    ptc_packet c = pk(PTC_CYC);
    timed_start(s);
    s->cfg.trace.ctl.cyc_en = 1;
    s->cfg.trace.ctl.cyc_thresh = 3; /* a CYC with an eligible packet once 4 cycles have passed */
    s->cfg.trace.known |= PTC_KNOW_CYC_EN | PTC_KNOW_CYC_THRESH;
    c.u.cyc.cycles = 9;
    put(s, c);
    put(s, pk(PTC_CYC)); /* (0 cycles: right after another CYC, which may force it out) */
    put(s, pk_tip());
    c.u.cyc.cycles = 3;  /* (all ones: the counter's wrap, whatever the threshold) */
    put(s, c);
    put(s, pk_tip());
    mark(s);
    c.u.cyc.cycles = bad ? 2 : 4;
    put(s, c);
    put(s, pk_tip());
}
/* MTC suppression (part 2's rules): a policy, and the payloads of MTCs in a
   row, with no other packet between them, that keep it and that break it
   at the last one. */
static const struct mtc_case {
    uint8_t threshold, resume_after, resume_on_value, resume_value;
    size_t n;
    uint8_t good[3], wrong[3];
} mtc_not_suppressed = { 2, 255, 0, 0, 3, { 1, 2, 2 }, { 1, 2, 3 } }, /* after two, 255 suppressed: 256 periods on */
  missing_mtc = { 0, 0, 0, 0, 2, { 1, 2 }, { 1, 3 } },
  gap_too_long = { 2, 4, 0, 0, 3, { 1, 2, 7 }, { 1, 2, 8 } },
  early_resume = { 2, 4, 0, 0, 3, { 1, 2, 7 }, { 1, 2, 5 } },
  late_resume = { 2, 255, 1, 3, 3, { 1, 2, 3 }, { 1, 2, 6 } };

static void b_mtcs(sb *s, int bad, const struct mtc_case *m)
{
    size_t i;
    ptc_mtc_policy_default(&s->cfg.trace.policy);
    s->cfg.trace.policy.threshold = m->threshold;
    s->cfg.trace.policy.resume_after = m->resume_after;
    s->cfg.trace.policy.resume_on_value = m->resume_on_value;
    s->cfg.trace.policy.resume_value = m->resume_value;
    s->cfg.trace.known |= PTC_KNOW_POLICY;
    psb_plus(s, 1);
    put(s, pk_tnt());
    for (i = 0; i < m->n; i++) {
        if (i + 1 == m->n) mark(s);
        put(s, pk_mtc(bad ? m->wrong[i] : m->good[i]));
    }
}

static const struct rule_case {
    ptc_rule rule;
    build_fn build;              /* or, for the policy's rules: */
    const struct mtc_case *mtcs;
} cases[] = {
    { PTC_RULE_PSB_MEMBER, b_psb_member, NULL }, { PTC_RULE_PSB_NESTED, b_psb_nested, NULL },
    { PTC_RULE_PSBEND_ALONE, b_psbend_alone, NULL }, { PTC_RULE_PSB_NO_CBR, b_psb_no_cbr, NULL },
    { PTC_RULE_PSB_NO_TSC, b_psb_no_tsc, NULL }, { PTC_RULE_PSB_FUP_MODE, b_psb_fup_mode, NULL },
    { PTC_RULE_PSB_PERIOD, b_psb_period, NULL }, { PTC_RULE_FLOW_WHILE_OFF, b_flow_while_off, NULL },
    { PTC_RULE_PGE_WHILE_ON, b_pge_while_on, NULL }, { PTC_RULE_PGD_WHILE_OFF, b_pgd_while_off, NULL },
    { PTC_RULE_PGE_NO_IP, b_pge_no_ip, NULL }, { PTC_RULE_AFTER_STOP, b_after_stop, NULL },
    { PTC_RULE_STOP_WHILE_ON, b_stop_while_on, NULL }, { PTC_RULE_PGE_NO_MODE, b_pge_no_mode, NULL },
    { PTC_RULE_FUP_ALONE, b_fup_alone, NULL }, { PTC_RULE_MODE_EXEC_ALONE, b_mode_exec_alone, NULL },
    { PTC_RULE_MODE_TSX_ALONE, b_mode_tsx_alone, NULL }, { PTC_RULE_IP_BIT_NO_FUP, b_ip_bit_no_fup, NULL },
    { PTC_RULE_OVF_FOLLOWER, b_ovf_follower, NULL }, { PTC_RULE_MWAIT_ALONE, b_mwait_alone, NULL },
    { PTC_RULE_PWRX_ALONE, b_pwrx_alone, NULL }, { PTC_RULE_BEP_ALONE, b_bep_alone, NULL },
    { PTC_RULE_BLOCK_UNENDED, b_block_unended, NULL }, { PTC_RULE_EVD_ALONE, b_evd_alone, NULL },
    { PTC_RULE_MODE_EXEC_L_D, b_mode_exec_l_d, NULL }, { PTC_RULE_MODE_TSX_BOTH, b_mode_tsx_both, NULL },
    { PTC_RULE_CFE_EVD_TYPE, b_cfe_evd_type, NULL }, { PTC_RULE_RESERVED_BITS, b_reserved_bits, NULL },
    { PTC_RULE_CYC_NOT_SHORTEST, b_cyc_not_shortest, NULL }, { PTC_RULE_TMA_ALONE, b_tma_alone, NULL },
    { PTC_RULE_TSC_NO_TMA, b_tsc_no_tma, NULL }, { PTC_RULE_TSC_BACKWARDS, b_tsc_backwards, NULL },
    { PTC_RULE_DISABLED_PACKET, b_disabled_packet, NULL }, { PTC_RULE_PWRE_NO_EXSTOP, b_pwre_no_exstop, NULL },
    { PTC_RULE_CBR_ZERO, b_cbr_zero, NULL }, { PTC_RULE_TSC_BEFORE_MTCS, b_tsc_before_mtcs, NULL },
    { PTC_RULE_TMA_CTC_MISMATCH, b_tma_ctc_mismatch, NULL }, { PTC_RULE_CYC_OVER_TSC, b_cyc_over_tsc, NULL },
    { PTC_RULE_CYC_UNDER_THRESHOLD, b_cyc_under_threshold, NULL }, { PTC_RULE_CYC_OVER_MTCS, b_cyc_over_mtcs, NULL },
    { PTC_RULE_MTC_NOT_SUPPRESSED, NULL, &mtc_not_suppressed }, { PTC_RULE_MISSING_MTC, NULL, &missing_mtc },
    { PTC_RULE_GAP_TOO_LONG, NULL, &gap_too_long }, { PTC_RULE_EARLY_RESUME, NULL, &early_resume },
    { PTC_RULE_LATE_RESUME, NULL, &late_resume }
};

static void build_case(const struct rule_case *c, sb *s, int bad)
{
    if (c->mtcs) b_mtcs(s, bad, c->mtcs);
    else c->build(s, bad);
}

static void every_rule_breaks_once_at_its_offset(void)
{
    size_t k;
    unsigned r, covered[PTC_RULE_COUNT];
    memset(covered, 0, sizeof covered);
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        static sb s;
        found fd;
        char shown[600];
        const char *name = ptc_rule_name(cases[k].rule);
        covered[cases[k].rule]++;
        sb_init(&s);
        s.cfg.trace.known |= PTC_KNOW_CPU; /* with no errata: no finding is an erratum's */
        build_case(&cases[k], &s, 1);
        CHECK(s.mark != UINT64_MAX, "%s: the breaking stream marks no offset", name);
        check_bytes(&s.cfg, s.b, s.len, 0, &fd);
        show(&fd, shown, sizeof shown);
        CHECK(fd.n == 1 && fd.f[0].rule == cases[k].rule && fd.f[0].offset == s.mark &&
                  fd.f[0].severity == ptc_rule_severity(cases[k].rule) && fd.f[0].erratum == 0,
              "%s at %llu: found%s", name, (unsigned long long)s.mark, shown);
        sb_init(&s);
        s.cfg.trace.known |= PTC_KNOW_CPU;
        build_case(&cases[k], &s, 0);
        check_bytes(&s.cfg, s.b, s.len, 0, &fd);
        show(&fd, shown, sizeof shown);
        CHECK(fd.n == 0 && fd.packets > 3, "%s, legal variant: found%s", name, shown);
    }
    for (r = 1; r < PTC_RULE_COUNT; r++) CHECK(covered[r] == 1, "rule %s has %u cases", ptc_rule_name((ptc_rule)r), covered[r]);
}

/* The checker's test of a CYC's length (a shift, without a branch: SPEC
   7.1's speed) says what the encoder's count of bits says, for every size
   and the counts at each size's edges: a CYC is too long when a shorter
   one holds its count. */
static void cyc_length_matches_the_encoder(void)
{
    static const int64_t nudge[3] = { -1, 0, 1 };
    unsigned size, k, j, cases = 0;
    for (size = 1; size <= 10; size++)
        for (k = 0; k < 64; k++)
            for (j = 0; j < 3; j++) {
                uint64_t v = (UINT64_C(1) << k) + (uint64_t)nudge[j];
                ptc_packet c = pk(PTC_CYC);
                static sb s;
                found fd;
                unsigned want;
                if (ptc__enc_cyc_size(v) > size) continue;
                want = size > ptc__enc_cyc_size(v);
                sb_init(&s);
                psb_plus(&s, 1);
                c.u.cyc.cycles = v;
                c.size = (uint8_t)size;
                put(&s, c);
                check_bytes(&s.cfg, s.b, s.len, 0, &fd);
                CHECK(fd.n == want && (!want || fd.f[0].rule == PTC_RULE_CYC_NOT_SHORTEST),
                      "a %u-byte CYC of %llu: %u findings (want %u), first %s", size, (unsigned long long)v,
                      (unsigned)fd.n, want, fd.n ? ptc_rule_name(fd.f[0].rule) : "-");
                cases++;
            }
    printf("# %u CYC sizes and counts\n", cases);
}

/* ---- 7.2: errata, resync, the end of the input ------------------------- */

/* One finding of rule at offset, and its severity and erratum. */
static void one_finding(const sb *s, ptc_rule rule, ptc_severity sev, uint32_t erratum, const char *what)
{
    found fd;
    char shown[600];
    check_bytes(&s->cfg, s->b, s->len, 0, &fd);
    show(&fd, shown, sizeof shown);
    CHECK(fd.n == 1 && fd.f[0].rule == rule && fd.f[0].offset == s->mark && fd.f[0].severity == sev &&
              fd.f[0].erratum == erratum,
          "%s: found%s", what, shown);
}

static void errata_explain_what_they_say(void)
{
    static sb s;
    /* BDM70: a PSB+ holding FUP and MODE.Exec right before a TIP.PGE */
    sb_init(&s);
    psb_plus(&s, 1);
    mark(&s);
    put(&s, pk_ip(PTC_TIP_PGE, PTC_IPC_FULL, 0x401000));
    one_finding(&s, PTC_RULE_PGE_WHILE_ON, PTC_SEV_SUSPICIOUS, PTC_ERRATUM_BDM70, "bdm70, CPU unknown");
    s.cfg.trace.known |= PTC_KNOW_CPU;
    s.cfg.trace.errata = ptc_errata_for_cpu(6, 0x4e, 3);
    one_finding(&s, PTC_RULE_PGE_WHILE_ON, PTC_SEV_ERRATUM, PTC_ERRATUM_BDM70, "bdm70, a Skylake");
    s.cfg.trace.errata = ptc_errata_for_cpu(6, 0x5c, 9);
    one_finding(&s, PTC_RULE_PGE_WHILE_ON, PTC_SEV_VIOLATION, 0, "bdm70, a CPU without it");
    /* SKD010: no FUP after an OVF; APL11: a TIP.PGD there */
    sb_init(&s);
    b_ovf_follower(&s, 1);
    s.cfg.trace.known |= PTC_KNOW_CPU;
    s.cfg.trace.errata = PTC_ERRATUM_SKD010;
    one_finding(&s, PTC_RULE_OVF_FOLLOWER, PTC_SEV_ERRATUM, PTC_ERRATUM_SKD010, "skd010");
    sb_init(&s);
    psb_plus(&s, 1);
    mark(&s);
    put(&s, pk(PTC_OVF));
    put(&s, pk_ip(PTC_TIP_PGD, PTC_IPC_SUPPRESSED, 0));
    s.cfg.trace.known |= PTC_KNOW_CPU;
    s.cfg.trace.errata = ptc_errata_for_cpu(6, 0x7a, 1);
    one_finding(&s, PTC_RULE_OVF_FOLLOWER, PTC_SEV_ERRATUM, PTC_ERRATUM_APL11, "apl11");
    CHECK(ptc_errata_for_cpu(6, 78, 3) & PTC_ERRATUM_BDM70 && !(ptc_errata_for_cpu(6, 0x5c, 0) & PTC_ERRATUM_BDM70),
          "errata by CPU");
}

static void resync_after_errors_and_ovf(void)
{
    static sb s;
    found fd;
    char shown[600];
    /* a MODE.Exec whose TIP a bad byte took, rules broken before the next
       PSB (a PSBEND with no PSB+), then a clean PSB+ */
    sb_init(&s);
    psb_plus(&s, 1);
    put(&s, pk_exec(1, 0));
    s.b[s.len++] = 0xC9; /* no packet has this first byte */
    put(&s, pk(PTC_PSBEND));
    put(&s, pk_tnt());
    psb_plus(&s, 0);
    check_bytes(&s.cfg, s.b, s.len, 0, &fd);
    show(&fd, shown, sizeof shown);
    CHECK(fd.n == 0, "after a decode error: found%s", shown);
    /* before the first PSB (no sync): only what a packet shows alone */
    sb_init(&s);
    put(&s, pk(PTC_PSBEND));
    put(&s, pk_exec(1, 0));
    mark(&s);
    put(&s, pk_cbr(1));
    psb_plus(&s, 0);
    check_bytes(&s.cfg, s.b, s.len, PTC_DECODE_NO_SYNC, &fd);
    show(&fd, shown, sizeof shown);
    CHECK(fd.n == 1 && fd.f[0].rule == PTC_RULE_RESERVED_BITS && fd.f[0].offset == s.mark, "before a PSB: found%s", shown);
    /* an OVF: what was owed before it is not held against the stream */
    sb_init(&s);
    psb_plus(&s, 1);
    put(&s, pk_fup());
    put(&s, pk_exec(1, 0));
    put(&s, pk(PTC_OVF));
    put(&s, pk_fup());
    put(&s, pk_tnt());
    check_bytes(&s.cfg, s.b, s.len, 0, &fd);
    show(&fd, shown, sizeof shown);
    CHECK(fd.n == 0, "an OVF: found%s", shown);
    /* the end of the input: a follower still owed is not reported */
    sb_init(&s);
    psb_plus(&s, 1);
    put(&s, pk_exec(1, 0));
    check_bytes(&s.cfg, s.b, s.len, 0, &fd);
    CHECK(fd.n == 0, "a MODE.Exec at the end of the input");
    /* a PSB+ between a FUP and its TIP, after an OVF: waited out */
    sb_init(&s);
    psb_plus(&s, 1);
    put(&s, pk(PTC_OVF));
    psb_plus(&s, 0);
    put(&s, pk_exec(1, 0));
    put(&s, pk_ip(PTC_TIP_PGE, PTC_IPC_FULL, 0x401000));
    check_bytes(&s.cfg, s.b, s.len, 0, &fd);
    show(&fd, shown, sizeof shown);
    CHECK(fd.n == 0, "OVF, PSB+, MODE.Exec, TIP.PGE: found%s", shown);
}

/* ---- the catalogue: names, SPEC.md 7.3's table ------------------------- */

static void catalogue_matches_spec(void)
{
    size_t len = 0;
    char *spec = (char *)util_read_file(spec_path, &len);
    const char *table;
    unsigned r, rows = 0;
    CHECK(spec != NULL, "cannot read %s", spec_path);
    if (!spec) return;
    table = strstr(spec, "<!-- rule-catalogue -->");
    CHECK(table != NULL, "SPEC.md has no rule catalogue");
    for (r = 1; table && r < PTC_RULE_COUNT; r++) {
        char want[400];
        snprintf(want, sizeof want, "| `%s` | %s | %s | %s |", ptc_rule_name((ptc_rule)r),
                 ptc_severity_name(ptc_rule_severity((ptc_rule)r)), ptc_rule_sdm((ptc_rule)r), ptc_rule_text((ptc_rule)r));
        CHECK(strstr(table, want) != NULL, "SPEC.md 7.3 has no row %s", want);
        CHECK(ptc_rule_from_name(ptc_rule_name((ptc_rule)r)) == (ptc_rule)r, "rule %u's name", r);
    }
    if (table) {
        const char *p = strstr(table, "\n\n"), *q;
        for (q = strstr(table, "\n| `"); q && (!p || q < p); q = strstr(q + 1, "\n| `")) rows++;
    }
    CHECK(rows == PTC_RULE_COUNT - 1, "SPEC.md 7.3 has %u rows, the header %d rules", rows, PTC_RULE_COUNT - 1);
#if defined(__x86_64__)
    { /* SPEC 7.1 states the state's size */
        const char *at = strstr(spec, "`sizeof(ptc_conform)` (");
        uint64_t said = 0;
        if (at) at += strlen("`sizeof(ptc_conform)` (");
        CHECK(at && util_parse_u64_n(at, strspn(at, "0123456789"), 1u << 20, &said) && said == sizeof(ptc_conform),
              "SPEC.md 7.1 says ptc_conform is %llu bytes, it is %zu", (unsigned long long)said, sizeof(ptc_conform));
    }
#endif
    CHECK(ptc_rule_from_name("nope") == PTC_RULE_NONE && ptc_rule_from_name(NULL) == PTC_RULE_NONE, "unknown names");
    CHECK(strcmp(ptc_rule_name((ptc_rule)999), "none") == 0 && strcmp(ptc_severity_name((ptc_severity)9), "unknown_severity") == 0,
          "out of range");
    free(spec);
}

/* ---- the model: every workload, policy and setting is clean ------------ */

static void model_streams_give_no_finding(void)
{
    static const char *const policies[] = { "off", "seed", "threshold=1,resume_after=3", "threshold=3,resume_value=0x40" };
    static const char *const settings[] = {
        "", "cyc_en=1", "cyc_en=1,cyc_thresh=3,mtc_freq=0", "mtc_en=0", "tsc_en=0,mtc_en=0",
        "pwr_evt_en=1,ptw_en=1,fup_on_ptw=1,cyc_en=1,long_tnt=1,dis_retc=1", "branch_en=0", "psb_freq=0",
        "fifo_bytes=2048,drain_bytes=1,drain_cycles=3",
        "cyc_en=1,skl168=1,mtc_lost=1,skd007=1,fifo_bytes=2048,drain_bytes=1,drain_cycles=3",
        "skz84=1", "trigger_ip=0x401010,trigger_nth=20,trigger_fup=1,trace_stop=1,stop_delay=50"
    };
    int wi;
    size_t p, s, runs = 0;
    uint64_t packets = 0;
    for (wi = 0; wi < WORKLOAD_COUNT; wi++)
        for (p = 0; p < sizeof policies / sizeof policies[0]; p++)
            for (s = 0; s < sizeof settings / sizeof settings[0]; s++) {
                modelrec_trace tr;
                ptc_model_sink sink = modelrec_start(&tr, 1);
                ptc_model_config mc;
                ptc_conform_config cc;
                found fd;
                char err[200], shown[600];
                if ((wi + p + s) % 2) continue; /* half the grid: every setting over the workloads */
                if (!workload_run_configured(wi, policies[p], settings[s], 1000000, 3 + s, &sink, &mc, err, sizeof err)) {
                    CHECK(0, "%s", err);
                    modelrec_free(&tr);
                    continue;
                }
                ptc_conform_config_from_model(&cc, &mc);
                check_bytes(&cc, tr.bytes, tr.len, modelrec_decode_flags(&mc), &fd);
                show(&fd, shown, sizeof shown);
                /* SKD007's cut CYC read where two whole CYCs were: its OVF's
                   missing FUP is that erratum's (SPEC 7.5) */
                if (fd.n) {
                    size_t i, errata = 0;
                    for (i = 0; i < fd.n; i++) errata += fd.f[i].severity == PTC_SEV_ERRATUM && fd.f[i].erratum == PTC_ERRATUM_SKD007;
                    CHECK(errata == fd.n && (mc.trace.errata & PTC_ERRATUM_SKD007), "%s/%s [%s]: found%s", workload_names[wi], policies[p], settings[s], shown);
                }
                runs++;
                packets += fd.packets;
                modelrec_free(&tr);
            }
    CHECK(runs > 100 && packets > 1000000, "%zu runs, %llu packets", runs, (unsigned long long)packets);
}

/* ---- the SDM's table (SPEC 7.5): tests/sdm_table.h ---------------------- */

enum { TBL_IN = 0x401000, TBL_OUT = 0x600000, TBL_LO = 0x400000, TBL_HI = 0x500000 };

/* One word of a row's packets: "PIP(NewCR3, NR?)?" is name PIP, arg
   "(NewCR3, NR?)", optional. Returns where the next word starts (NULL: no
   word left). */
static const char *sdm_next(const char *s, char *name, size_t ncap, char *arg, size_t acap, int *optional)
{
    size_t n = 0, a = 0;
    while (*s == ' ' || *s == ',') s++;
    if (!*s) return NULL;
    while (*s && *s != '(' && *s != ',' && *s != '?' && n + 1 < ncap) name[n++] = *s++;
    name[n] = 0;
    if (*s == '(') {
        while (*s && *s != ')' && a + 2 < acap) arg[a++] = *s++;
        if (*s == ')') arg[a++] = *s++;
    }
    arg[a] = 0;
    *optional = *s == '?';
    if (*optional) s++;
    return s;
}

static int sdm_is_ip_packet(const char *name)
{
    return !strcmp(name, "TIP") || !strcmp(name, "TIP.PGE") || !strcmp(name, "TIP.PGD") || !strcmp(name, "FUP");
}

/* A word as packets_after writes it: the name in lower case ("TraceStop"
   "stop"), an IP packet's argument as is. */
static void sdm_word(const char *name, const char *arg, char *out, size_t cap)
{
    size_t i, k = 0;
    if (!strcmp(name, "TraceStop")) { snprintf(out, cap, "stop"); return; }
    if (!strcmp(name, "MODE")) { snprintf(out, cap, "mode.tsx"); return; } /* (the SDM's MODE(InTX, TXAbort)) */
    for (i = 0; name[i] && k + 1 < cap; i++) out[k++] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
    out[k] = 0;
    if (sdm_is_ip_packet(name)) snprintf(out + k, cap - k, "%s", *arg ? arg : "()");
}

/* Whether got (words as packets_after writes them) is the row's packets:
   their words in order, each "?" word present or not. */
static int matches_row(const char *sdm, const char *got)
{
    char name[32], arg[40], want[80];
    int optional;
    const char *w = sdm, *g = got;
    if (!strcmp(sdm, "None")) return *got == 0;
    while ((w = sdm_next(w, name, sizeof name, arg, sizeof arg, &optional)) != NULL) {
        size_t gl = strcspn(g, ",");
        sdm_word(name, arg, want, sizeof want);
        if (gl == strlen(want) && !strncmp(g, want, gl)) g += gl + (g[gl] == ',') + (g[gl] == ',' && g[gl + 1] == ' ');
        else if (!optional) return 0;
    }
    return *g == 0;
}

/* The non-timing packets from offset `from` on, as "TYPE(IP)" words,
   IP by name: BLIP the target, ip_name (NLIP or CLIP) the operation's IP,
   () none. */
static void packets_after(const modelrec_trace *tr, uint64_t from, uint64_t ip, const char *ip_name, uint64_t target, char *out,
                          size_t cap)
{
    ptc_decoder d;
    ptc_item it;
    size_t at = 0;
    out[0] = 0;
    ptc_decoder_init_buffer(&d, 0, tr->bytes, tr->len);
    while (ptc_decoder_next(&d, &it) == PTC_OK && at + 40 < cap) {
        const char *name = ptc_packet_type_dump_name(it.pkt.type), *arg = "";
        if (it.offset < from || ptc_packet_is_timing(it.pkt.type) || it.pkt.type == PTC_PAD || it.pkt.type == PTC_CBR) continue;
        if (it.pkt.type == PTC_TNT8 || it.pkt.type == PTC_TNT64) name = "tnt";
        if (ptc_packet_is_ip(it.pkt.type))
            arg = it.pkt.u.ip.ipc == PTC_IPC_SUPPRESSED ? "()" : it.ip == target ? "(BLIP)" : it.ip == ip ? ip_name : "(?)";
        at += (size_t)snprintf(out + at, cap - at, "%s%s%s", at ? ", " : "", name, arg);
    }
}

/* The model makes the row's operation: an IP filter decides PacketEn
   (inside it TBL_IN, outside TBL_OUT), kernel code is untraced (os 0) so
   an interrupt into CPL 0 ends ContextEn, but a PIP needs OS (its
   dependencies), which the CR3 rows show. The non-timing packets it writes
   for the operation must be the row's. */
static void model_runs_row(const sdm_row *r)
{
    ptc_model_config cfg;
    ptc_model m;
    modelrec_trace tr;
    ptc_model_sink sink = modelrec_start(&tr, 1);
    uint64_t ip = r->before ? TBL_IN : TBL_OUT, target = r->after ? TBL_IN + 0x800 : TBL_OUT + 0x800, from;
    char got[400];
    int i;
    ptc_model_config_default(&cfg);
    cfg.trace.ctl.os = r->model == SDM_MODEL_CR3;
    cfg.trace.filters.count = 1;
    cfg.trace.filters.lo[0] = TBL_LO;
    cfg.trace.filters.hi[0] = TBL_HI;
    CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
    ptc_model_start(&m, ip);
    ptc_model_idle(&m, 5000);
    /* the TNT buffer: one branch in it, or all but the last */
    if (r->model == SDM_MODEL_TAKEN_NONEMPTY) ptc_model_branch(&m, ip, ip + 2, 0), ip += 2;
    for (i = 0; (r->model == SDM_MODEL_TAKEN_FILLS || r->model == SDM_MODEL_NOT_TAKEN_FILLS) && i < 5; i++)
        ptc_model_branch(&m, ip, ip + 2, 0), ip += 2;
    if (r->model == SDM_MODEL_TSX_COMMIT || r->model == SDM_MODEL_TSX_ABORT) ptc_model_tsx(&m, PTC_TSX_BEGIN, ip - 4, 0);
    from = tr.len;
    switch (r->model) {
    case SDM_MODEL_TSX_BEGIN: ptc_model_tsx(&m, PTC_TSX_BEGIN, ip, 0); break;
    case SDM_MODEL_TSX_COMMIT: ptc_model_tsx(&m, PTC_TSX_COMMIT, ip, 0); break;
    case SDM_MODEL_TSX_ABORT: ptc_model_tsx(&m, PTC_TSX_ABORT, ip, target); break;
    case SDM_MODEL_HW_INT: case SDM_MODEL_SW_INT: case SDM_MODEL_EXCEPTION:
        ptc_model_interrupt_cpl(&m, ip, target, r->ctx_after ? 3 : 0);
        break;
    case SDM_MODEL_WRMSR_OFF: ptc_model_stop_at(&m, ip); break;
    case SDM_MODEL_CR3: ptc_model_cr3(&m, ip, 0x1000); break;
    case SDM_MODEL_FAR: ptc_model_mode(&m, ip, target, 0, 1); break;
    case SDM_MODEL_INDIRECT: ptc_model_jump(&m, ip, target, 1); break;
    case SDM_MODEL_NOT_TAKEN: case SDM_MODEL_NOT_TAKEN_FILLS: ptc_model_branch(&m, ip, target = ip + 2, 0); break;
    default: ptc_model_branch(&m, ip, target, 1); break;
    }
    packets_after(&tr, from, ip, r->model == SDM_MODEL_HW_INT ? "(NLIP)" : "(CLIP)", target, got, sizeof got);
    CHECK(matches_row(r->packets, got), "case %s (%s, PacketEn %d to %d): the SDM has \"%s\", the model wrote \"%s\"",
          r->id, r->operation, r->before, r->after, r->packets, got);
    if (r->model != SDM_MODEL_WRMSR_OFF) ptc_model_stop(&m);
    modelrec_free(&tr);
}

static void model_follows_the_sdm_table(void)
{
    size_t k, modelled = 0;
    for (k = 0; k < sizeof sdm_rows / sizeof sdm_rows[0]; k++)
        if (sdm_rows[k].model != SDM_MODEL_NONE) {
            model_runs_row(&sdm_rows[k]);
            modelled++;
        }
    printf("# %zu of the table's %zu rows made by the model\n", modelled, sizeof sdm_rows / sizeof sdm_rows[0]);
    CHECK(modelled >= 34, "%zu rows modelled", modelled);
    CHECK(matches_row("MODE.Exec?, TIP.PGE(BLIP)", "tip.pge(BLIP)") && !matches_row("TIP(BLIP)", "tip(NLIP)") &&
              !matches_row("TNT", "") && matches_row("None", "") && matches_row("PIP(NewCR3, NR?)?, TraceStop?", "pip") &&
              !matches_row("None", "tnt"),
          "the matcher");
}

/* SPEC 7.5's table is tests/sdm_table.h's: a row each, in its order. */
static void sdm_table_matches_spec(void)
{
    size_t len = 0, k;
    char *spec = (char *)util_read_file(spec_path, &len);
    const char *at;
    CHECK(spec != NULL, "cannot read %s", spec_path);
    if (!spec) return;
    at = strstr(spec, "<!-- sdm-table -->");
    CHECK(at != NULL, "SPEC.md 7.5 has no table of the SDM's rows");
    for (k = 0; at && k < sizeof sdm_rows / sizeof sdm_rows[0]; k++) {
        const sdm_row *r = &sdm_rows[k];
        char want[400];
        const char *row;
        snprintf(want, sizeof want, "\n| %s | %s | %d to %d | %s | %s", r->id, r->operation, r->before, r->after,
                 r->packets ? r->packets : "-", !r->packets ? "no packets" : r->breaks ? "finds `" : "clean");
        row = strstr(at, want);
        CHECK(row != NULL, "SPEC.md 7.5 has no row %s", want + 1);
        if (row) at = row + 1;
    }
    free(spec);
}

/* The row's packets as a stream: optional ones all there or all left out;
   IPs full (any), () suppressed; "PSB", "PSBEND" a PSB+ with what
   PacketEn calls for. *on follows PacketEn, *stopped a TraceStop. */
static void put_row(sb *s, const char *packets, int with_optional, int *on, int *stopped)
{
    char name[32], arg[40];
    int optional;
    const char *w = packets;
    if (!strcmp(packets, "None")) return;
    while ((w = sdm_next(w, name, sizeof name, arg, sizeof arg, &optional)) != NULL) {
        ptc_packet p = pk(PTC_NONE);
        if (optional && !with_optional) continue;
        if (!strcmp(name, "PSB")) {
            ptc_packet tma = pk(PTC_TMA);
            put(s, pk(PTC_PSB));
            put(s, pk_tsc(0x100000 + s->len));
            tma.u.tma.ctc = 0x10;
            put(s, tma);
            put(s, pk_cbr(0));
            if (*on) { put(s, pk_exec(1, 0)); put(s, pk_fup()); }
            continue;
        }
        if (sdm_is_ip_packet(name)) {
            ptc_packet_type t = !strcmp(name, "TIP") ? PTC_TIP : !strcmp(name, "FUP") ? PTC_FUP
                                : !strcmp(name, "TIP.PGE") ? PTC_TIP_PGE : PTC_TIP_PGD;
            p = strcmp(arg, "()") && *arg ? pk_ip(t, PTC_IPC_FULL, 0x401000) : pk_ip(t, PTC_IPC_SUPPRESSED, 0);
            *on = t == PTC_TIP_PGE ? 1 : t == PTC_TIP_PGD ? 0 : *on;
        } else if (!strcmp(name, "PIP")) {
            p = pk(PTC_PIP);
            p.u.pip.cr3 = 0x1000;
            p.u.pip.nr = strstr(arg, "NR=1") != NULL;
        } else if (!strcmp(name, "TraceStop")) {
            p = pk(PTC_STOP);
            *on = 0;
            *stopped = 1;
        } else if (!strcmp(name, "MODE")) {
            p = pk_tsx(strstr(arg, "InTX=1") != NULL, strstr(arg, "TXAbort=1") != NULL);
        } else if (!strcmp(name, "MODE.Exec")) p = pk_exec(1, 0);
        else if (!strcmp(name, "TNT")) p = pk_tnt();
        else if (!strcmp(name, "TSC")) p = pk_tsc(0x100000 + s->len);
        else if (!strcmp(name, "TMA")) p = pk(PTC_TMA);
        else if (!strcmp(name, "CBR")) p = pk_cbr(0);
        else if (!strcmp(name, "PSBEND")) p = pk(PTC_PSBEND);
        CHECK(p.type != PTC_NONE, "a packet the table names that the test cannot write: %s", name);
        if (p.type != PTC_NONE) put(s, p);
    }
}

/* The checker, fed each row's packets from the state the row starts in,
   finds nothing - or, where the SDM's row as printed breaks a rule
   (sdm_row.breaks), that rule. Before: PacketEn 1 is a PSB+ with FUP and
   MODE.Exec and a branch; PacketEn 0 a PSB+ without, then a window of
   tracing (MODE.Exec, TIP.PGE, TNT, TIP.PGD()) so that a MODE.Exec came
   since the PSB. After: a branch if PacketEn is 1, else a PSB+ and
   tracing on again, so that anything the row left owed is called. */
static void the_checker_takes_every_row(void)
{
    size_t k, rows = 0;
    for (k = 0; k < sizeof sdm_rows / sizeof sdm_rows[0]; k++) {
        const sdm_row *r = &sdm_rows[k];
        int with_optional;
        if (!r->packets) continue; /* NA, or another row's packets */
        rows++;
        for (with_optional = 0; with_optional < 2; with_optional++) {
            static sb s;
            found fd;
            char shown[600];
            int on = r->before, stopped = 0;
            sb_init(&s);
            s.cfg.trace.known |= PTC_KNOW_CPU;
            psb_plus(&s, r->before);
            if (r->before) put(&s, pk_tnt());
            else {
                put(&s, pk_exec(1, 0));
                put(&s, pk_ip(PTC_TIP_PGE, PTC_IPC_FULL, 0x401000));
                put(&s, pk_tnt());
                put(&s, pk_ip(PTC_TIP_PGD, PTC_IPC_SUPPRESSED, 0));
            }
            put_row(&s, r->packets, with_optional, &on, &stopped);
            CHECK(on == r->after, "case %s: PacketEn %d after its packets, the table says %d", r->id, on, r->after);
            if (r->after && !stopped) put(&s, pk_tnt());
            else {
                psb_plus(&s, 0);
                put(&s, pk_exec(1, 0));
                put(&s, pk_ip(PTC_TIP_PGE, PTC_IPC_FULL, 0x401000));
                put(&s, pk_tnt());
            }
            check_bytes(&s.cfg, s.b, s.len, 0, &fd);
            show(&fd, shown, sizeof shown);
            if (r->breaks)
                CHECK(fd.n >= 1 && fd.f[0].rule == ptc_rule_from_name(r->breaks), "case %s (\"%s\"%s): found%s, the table says %s",
                      r->id, r->packets, with_optional ? "" : " without its ? packets", shown, r->breaks);
            else
                CHECK(fd.n == 0, "case %s (\"%s\"%s): found%s", r->id, r->packets, with_optional ? "" : " without its ? packets",
                      shown);
        }
    }
    printf("# %zu of the table's %zu rows through the checker\n", rows, sizeof sdm_rows / sizeof sdm_rows[0]);
}

/* ---- real hardware (shared/pt-traces): no violation -------------------- */

/* The clocks of the DynamoRIO traces (shared/pt-traces-timed/README.md):
   ad6a637b's and d9e0e666's from their CMake (mtc_freq 3, nom 37, CPUID
   0x15 2/308); the others' TSC:CTC ratio as their TSCs and TMAs measure it
   (ptdump --time's closing line names it), 154 or 125, and nom as the CYCs
   between their TSCs fit it (perf's time_mult says 3.7 and 3.0 GHz).
   Every other trace: no clock given (the time rules off). */
static const struct timed_trace {
    const char *name;
    uint32_t ebx, nom;
} timed_traces[] = {
    { "DynamoRIO_dynamorio__drptpostprocessor_test_simple.tracedir_pt.316e5058.bin", 308, 37 },
    { "DynamoRIO_dynamorio__test_simple.raw_pt.ad6a637b.bin", 308, 37 },
    { "DynamoRIO_dynamorio__test_simple.raw_pt.d9e0e666.bin", 308, 37 },
    { "DynamoRIO_dynamorio__test_simple.tracedir_pt.b598b46a.bin", 308, 37 },
    { "DynamoRIO_dynamorio__test_simple.tracedir_pt.af553eb7.bin", 250, 30 },
    { "DynamoRIO_dynamorio__test_simple.tracedir_pt.2aad718d.bin", 250, 30 },
    { "DynamoRIO_dynamorio__test_simple.tracedir_pt.f80d7df0.bin", 250, 30 }
};

static void timed_clock(const char *path, ptc_conform_config *cfg)
{
    size_t k;
    for (k = 0; k < sizeof timed_traces / sizeof timed_traces[0]; k++) {
        if (!strstr(path, timed_traces[k].name)) continue;
        with_hw_clock(cfg, 3, 2, timed_traces[k].ebx);
        cfg->trace.ratios.nom_num = timed_traces[k].nom;
        cfg->trace.ratios.nom_den = 1;
    }
}

static void real_traces_break_no_rule(void)
{
    static const char *const names[] = {
        "pt-traces/keeper_IntelPT_summary__traced_data.pt", "pt-traces/libxdc_experiments__Kernel_trace.pt",
        "pt-traces/libxdc_experiments__Unzip_trace.pt", "pt-traces/libxdc_experiments__avscript_32_failed_trace_12709_1.pt",
        "pt-traces/libxdc_experiments__dyn_test_sample_raw_0.pt", "pt-traces/libxdc_experiments__foo_trace.pt",
        "pt-traces/libxdc_experiments__icelake_tip_ptlog.pt",
        "pt-traces/libxdc_experiments__infinite_loop_linux_loop_trace_26023_0.pt",
        "pt-traces/libxdc_experiments__mruby_trace.pt", "pt-traces/libxdc_experiments__qemu_trace1.pt",
        "pt-traces-timed/DynamoRIO_dynamorio__drptpostprocessor_test_simple.tracedir_pt.316e5058.bin",
        "pt-traces-timed/DynamoRIO_dynamorio__test_simple.raw_pt.ad6a637b.bin",
        "pt-traces-timed/DynamoRIO_dynamorio__test_simple.raw_pt.d9e0e666.bin",
        "pt-traces-timed/DynamoRIO_dynamorio__test_simple.tracedir_pt.b598b46a.bin",
        "pt-traces-timed/DynamoRIO_dynamorio__test_simple.tracedir_pt.af553eb7.bin",
        "pt-traces-timed/DynamoRIO_dynamorio__test_simple.tracedir_pt.2aad718d.bin",
        "pt-traces-timed/DynamoRIO_dynamorio__test_simple.tracedir_pt.f80d7df0.bin"
    };
    const char *shared = testlib_shared_dir();
    size_t k, bdm70 = 0;
    if (!shared) SKIP("no shared reference data (set PTCODEC_SHARED or put it in ../shared)");
    for (k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[1024];
        size_t len = 0, i;
        uint8_t *buf;
        ptc_conform_config none;
        ptc_conform c;
        ptc_decoder d;
        ptc_item it;
        uint64_t packets = 0;
        snprintf(path, sizeof path, "%s/%s", shared, names[k]);
        buf = util_read_file(path, &len);
        CHECK(buf != NULL, "cannot read %s", path);
        if (!buf) continue;
        memset(&none, 0, sizeof none); /* no settings: what ptdump --check does with a raw trace */
        timed_clock(names[k], &none);
        ptc_conform_init(&c, &none);
        ptc_decoder_init_buffer(&d, 0, buf, len);
        while (ptc_decoder_next(&d, &it) == PTC_OK) {
            ptc_finding f[PTC_CONFORM_MAX_FINDINGS];
            size_t n = ptc_conform_item(&c, &it, f);
            packets++;
            /* the one thing real hardware shows: BDM70 (SPEC 7.5) */
            for (i = 0; i < n; i++) {
                CHECK(f[i].rule == PTC_RULE_PGE_WHILE_ON && f[i].severity == PTC_SEV_SUSPICIOUS &&
                          f[i].erratum == PTC_ERRATUM_BDM70,
                      "%s: %s at %llu", names[k], ptc_rule_name(f[i].rule), (unsigned long long)f[i].offset);
                bdm70++;
            }
        }
        CHECK(packets > 100, "%s: %llu items", names[k], (unsigned long long)packets);
        free(buf);
    }
    printf("# BDM70 (a TIP.PGE right after a PSB+ with FUP and MODE.Exec) %zu times in the raw traces, CPU unknown\n", bdm70);
    CHECK(bdm70 > 100, "BDM70 seen %zu times", bdm70);
}

/* ---- the time rules on real hardware: one packet changed ---------------
   316e5058, a DynamoRIO trace with two TSCs and its clock known, is clean
   (real_traces_break_no_rule); with one packet changed it breaks the rule
   that packet's value breaks, at that packet and nowhere before. */

/* The items of buf, to find the packets to change. */
static size_t offsets_of(const uint8_t *b, size_t len, ptc_packet_type t, uint64_t *at, size_t cap)
{
    ptc_decoder d;
    ptc_item it;
    size_t n = 0;
    ptc_decoder_init_buffer(&d, 0, b, len);
    while (ptc_decoder_next(&d, &it) == PTC_OK)
        if (it.error == PTC_OK && it.pkt.type == t && n < cap) at[n++] = it.offset;
    return n;
}

/* The findings on b with the trace's clock: the first at `at`, with
   `rule` among those there. */
static void breaks_at(const char *what, const uint8_t *b, size_t len, uint64_t at, ptc_rule rule)
{
    ptc_conform_config cfg;
    found fd;
    char shown[600];
    size_t i, hit = 0;
    memset(&cfg, 0, sizeof cfg);
    timed_clock(timed_traces[0].name, &cfg);
    check_bytes(&cfg, b, len, 0, &fd);
    show(&fd, shown, sizeof shown);
    for (i = 0; i < fd.n; i++) {
        CHECK(fd.f[i].offset >= at, "%s: a finding before %llu:%s", what, (unsigned long long)at, shown);
        hit += fd.f[i].offset == at && fd.f[i].rule == rule;
    }
    CHECK(hit == 1, "%s: no %s at %llu:%s", what, ptc_rule_name(rule), (unsigned long long)at, shown);
}

static void time_rules_catch_one_changed_packet(void)
{
    const char *shared = testlib_shared_dir();
    char path[1024];
    size_t len = 0;
    uint8_t *buf, *bad;
    uint64_t tsc[4], tma[4], cbr[4];
    if (!shared) SKIP("no shared reference data (set PTCODEC_SHARED or put it in ../shared)");
    snprintf(path, sizeof path, "%s/pt-traces-timed/%s", shared, timed_traces[0].name);
    buf = util_read_file(path, &len);
    CHECK(buf != NULL, "cannot read %s", path);
    if (!buf) return;
    bad = (uint8_t *)malloc(len);
    CHECK(offsets_of(buf, len, PTC_TSC, tsc, 4) == 2 && offsets_of(buf, len, PTC_TMA, tma, 4) == 2 &&
              offsets_of(buf, len, PTC_CBR, cbr, 4) == 2, "316e5058 has two PSB+ with TSC, TMA and CBR");
    /* the second TMA's CTC off by 0x100 ticks */
    memcpy(bad, buf, len);
    bad[tma[1] + 3] ^= 1;
    breaks_at("TMA's CTC + 0x100", bad, len, tma[1], PTC_RULE_TMA_CTC_MISMATCH);
    /* the second TSC 1 000 ticks after the first: 1 600 MTC periods, and
       the CYCs of 2 million ticks, came before it */
    memcpy(bad, buf, len);
    {
        uint64_t v = 0;
        unsigned i;
        for (i = 0; i < 7; i++) v |= (uint64_t)buf[tsc[0] + 1 + i] << (8 * i);
        v += 1000;
        for (i = 0; i < 7; i++) bad[tsc[1] + 1 + i] = (uint8_t)(v >> (8 * i));
    }
    breaks_at("TSC 1000 ticks on", bad, len, tsc[1], PTC_RULE_TSC_BEFORE_MTCS);
    breaks_at("TSC 1000 ticks on", bad, len, tsc[1], PTC_RULE_CYC_OVER_TSC);
    /* the second CBR's ratio 0 */
    memcpy(bad, buf, len);
    bad[cbr[1] + 2] = 0;
    breaks_at("CBR 0", bad, len, cbr[1], PTC_RULE_CBR_ZERO);
    /* the third two-byte CYC after the first MTC made 4 095 cycles (from
       400): at the MTC after it, the CYCs count ten times the periods */
    memcpy(bad, buf, len);
    {
        ptc_decoder d;
        ptc_item it;
        uint64_t cyc = UINT64_MAX, mtc_after = UINT64_MAX;
        int mtcs = 0, cycs = 0;
        ptc_decoder_init_buffer(&d, 0, buf, len);
        while (ptc_decoder_next(&d, &it) == PTC_OK && mtc_after == UINT64_MAX) {
            if (it.pkt.type == PTC_MTC && it.offset > cbr[0]) {
                mtcs++;
                if (cyc != UINT64_MAX) mtc_after = it.offset;
            }
            if (it.pkt.type == PTC_CYC && it.pkt.size == 2 && mtcs && ++cycs == 3) cyc = it.offset;
        }
        CHECK(mtc_after != UINT64_MAX, "316e5058: CYCs between MTCs");
        if (mtc_after != UINT64_MAX) {
            bad[cyc] = 0xFF; /* CYC[4:0] all ones, more bytes */
            bad[cyc + 1] = 0xFE; /* CYC[11:5] all ones, the last */
            breaks_at("a CYC of 4095", bad, len, mtc_after, PTC_RULE_CYC_OVER_MTCS);
        }
    }
    free(bad);
    free(buf);
}

/* The model with CycThresh 3 (a CYC with an eligible packet once 4 cycles
   passed): one CYC sent for a packet made 2 cycles breaks
   cyc_under_threshold there (no real trace here has CYCs with a known
   threshold). */
static void cyc_under_threshold_in_the_model(void)
{
    modelrec_trace tr;
    ptc_model_sink sink = modelrec_start(&tr, 1);
    ptc_model_config mc;
    ptc_conform_config cc;
    char err[200], shown[600];
    ptc_decoder d;
    ptc_item it, prev;
    uint64_t at = UINT64_MAX;
    found fd;
    int in_psb = 0, candidates = 0;
    if (!workload_run_configured(0, "off", "cyc_en=1,cyc_thresh=3", 1000000, 7, &sink, &mc, err, sizeof err)) {
        CHECK(0, "dense: %s", err);
        modelrec_free(&tr);
        return;
    }
    ptc_conform_config_from_model(&cc, &mc);
    check_bytes(&cc, tr.bytes, tr.len, 0, &fd);
    CHECK(fd.n == 0, "the model's stream is clean");
    memset(&prev, 0, sizeof prev);
    ptc_decoder_init_buffer(&d, 0, tr.bytes, tr.len);
    while (ptc_decoder_next(&d, &it) == PTC_OK) {
        ptc_packet_type t = it.pkt.type;
        if (t == PTC_PSB) in_psb = 1;
        if (t == PTC_PSBEND) in_psb = 0;
        /* a one-byte CYC of 4..30 right before a TNT or TIP, not after a CYC */
        if (prev.pkt.type == PTC_CYC && prev.pkt.size == 1 && prev.pkt.u.cyc.cycles >= 4 && prev.pkt.u.cyc.cycles < 31 &&
            !in_psb && (t == PTC_TNT8 || t == PTC_TIP) && ++candidates == 5)
            at = prev.offset;
        /* a CYC right after another is no candidate: remembered as no packet */
        if (t == PTC_CYC && prev.pkt.type == PTC_CYC) memset(&it.pkt, 0, sizeof it.pkt);
        if (t != PTC_PAD) prev = it;
    }
    CHECK(at != UINT64_MAX, "the dense workload has CYCs sent for branches (%d)", candidates);
    if (at != UINT64_MAX) {
        tr.bytes[at] = (2 << 3) | 3; /* CYC of 2 cycles, one byte */
        check_bytes(&cc, tr.bytes, tr.len, 0, &fd);
        show(&fd, shown, sizeof shown);
        CHECK(fd.n >= 1 && fd.f[0].rule == PTC_RULE_CYC_UNDER_THRESHOLD && fd.f[0].offset == at, "a CYC of 2 at %llu:%s",
              (unsigned long long)at, shown);
    }
    modelrec_free(&tr);
}

/* The model sleeps (ptc_model_sleep: MWAIT, PWRE, EXSTOP, FUP); with one
   EXSTOP made two PADs its PWRE owes it. */
static void pwre_without_exstop_in_the_model(void)
{
    modelrec_trace tr;
    ptc_model_sink sink = modelrec_start(&tr, 1);
    ptc_model_config mc;
    ptc_conform_config cc;
    char err[200];
    ptc_decoder d;
    ptc_item it;
    uint64_t pwre = UINT64_MAX, exstop = UINT64_MAX, sleeps = 0;
    int wi;
    for (wi = 0; wi < WORKLOAD_COUNT && strcmp(workload_names[wi], "idle") != 0; wi++) {}
    CHECK(wi < WORKLOAD_COUNT, "no idle workload");
    if (wi >= WORKLOAD_COUNT || !workload_run_configured(wi, "off", "pwr_evt_en=1", 3000000, 5, &sink, &mc, err, sizeof err)) {
        CHECK(0, "idle: %s", err);
        modelrec_free(&tr);
        return;
    }
    ptc_decoder_init_buffer(&d, 0, tr.bytes, tr.len);
    while (ptc_decoder_next(&d, &it) == PTC_OK) {
        if (it.error != PTC_OK) continue;
        if (it.pkt.type == PTC_PWRE) sleeps++;
        if (it.pkt.type == PTC_PWRE && sleeps == 3) pwre = it.offset;
        if (it.pkt.type == PTC_EXSTOP && pwre != UINT64_MAX && exstop == UINT64_MAX) exstop = it.offset;
    }
    CHECK(sleeps > 3 && exstop != UINT64_MAX && exstop > pwre, "the idle workload sleeps (%llu PWREs)", (unsigned long long)sleeps);
    if (exstop != UINT64_MAX) {
        found fd;
        char shown[600];
        ptc_conform_config_from_model(&cc, &mc);
        check_bytes(&cc, tr.bytes, tr.len, modelrec_decode_flags(&mc), &fd);
        CHECK(fd.n == 0, "the model's stream is clean");
        tr.bytes[exstop] = tr.bytes[exstop + 1] = 0; /* PAD, PAD */
        check_bytes(&cc, tr.bytes, tr.len, modelrec_decode_flags(&mc), &fd);
        show(&fd, shown, sizeof shown);
        CHECK(fd.n >= 1 && fd.f[0].rule == PTC_RULE_PWRE_NO_EXSTOP && fd.f[0].offset == pwre,
              "an EXSTOP gone, at %llu:%s", (unsigned long long)pwre, shown);
    }
    modelrec_free(&tr);
}

/* libipt's loop-tnt vector (pttc, not hardware) has a PSB+ without CBR:
   the SDM sends CBR in every PSB+ (SPEC 7.5). */
static void libipt_synthetic_vector_lacks_cbr(void)
{
    const char *shared = testlib_shared_dir();
    char path[1024];
    size_t len = 0;
    uint8_t *buf;
    ptc_conform_config none;
    found fd;
    if (!shared) SKIP("no shared reference data (set PTCODEC_SHARED or put it in ../shared)");
    snprintf(path, sizeof path, "%s/pt-traces/keeper_IntelPT_summary__loop-tnt.pt", shared);
    buf = util_read_file(path, &len);
    CHECK(buf != NULL, "cannot read %s", path);
    if (!buf) return;
    memset(&none, 0, sizeof none);
    check_bytes(&none, buf, len, 0, &fd);
    CHECK(fd.n == 1 && fd.f[0].rule == PTC_RULE_PSB_NO_CBR && fd.f[0].offset == 0, "%zu findings", fd.n);
    free(buf);
}

/* The trace's configuration (SPEC 3.1) is checked in one function, which
   names the field; the clock, the events decoder, navigation, the model
   and the checker all refuse what it refuses, and a zeroed one is valid. */
static void trace_config_is_checked_once_for_every_part(void)
{
    static const struct { const char *field; } cases[] = { { "mtc_freq" }, { "cyc_thresh" }, { "cpuid_0x15_eax" },
                                                           { "nom_den" }, { "filter" }, { "errata" }, { "known" },
                                                           { "cyc_bits" } };
    static ptc_clock clk;
    static ptc_events ev;
    ptc_trace_config zero;
    size_t k;
    memset(&zero, 0, sizeof zero);
    CHECK(ptc_trace_config_error(&zero) == NULL, "a zeroed configuration is refused: %s", ptc_trace_config_error(&zero));
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ptc_clock_config cc;
        ptc_conform_config conf;
        ptc_model_config mc;
        ptc_conform chk;
        ptc_nav nav;
        ptc_model m;
        ptc_trace_config *t = &cc.trace;
        const char *f = cases[k].field, *said;
        ptc_clock_config_default(&cc);
        if (!strcmp(f, "mtc_freq")) t->ctl.mtc_freq = 16;
        else if (!strcmp(f, "cyc_thresh")) t->ctl.cyc_thresh = 16;
        else if (!strcmp(f, "cpuid_0x15_eax")) t->ratios.cpuid_15_ebx = 7; /* without eax */
        else if (!strcmp(f, "nom_den")) t->ratios.nom_num = 24;
        else if (!strcmp(f, "filter")) { t->filters.count = 1; t->filters.lo[0] = t->filters.hi[0] = 0x1000; }
        else if (!strcmp(f, "errata")) t->errata = 0x80000000u;
        else if (!strcmp(f, "known")) t->known = 0x80000000u;
        else t->cyc_bits = 65;
        said = ptc_trace_config_error(t);
        CHECK(said && !strcmp(said, f), "%s: named %s", f, said ? said : "nothing");
        CHECK(ptc_clock_init(&clk, &cc) == PTC_ERR_BAD_CONFIG, "%s: the clock took it", f);
        CHECK(ptc_events_init(&ev, &cc, 0, 0) == PTC_ERR_BAD_CONFIG, "%s: the events decoder took it", f);
        CHECK(ptc_nav_init(&nav, &cc, NULL, 0) == PTC_ERR_BAD_CONFIG, "%s: navigation took it", f);
        memset(&conf, 0, sizeof conf);
        conf.trace = *t;
        CHECK(ptc_conform_init(&chk, &conf) == PTC_ERR_BAD_CONFIG, "%s: the checker took it", f);
        ptc_model_config_default(&mc);
        mc.trace = *t;
        mc.trace.ratios.cpuid_15_eax = mc.trace.ratios.cpuid_15_eax ? mc.trace.ratios.cpuid_15_eax : 2;
        if (strcmp(f, "cpuid_0x15_eax") && !mc.trace.ratios.cpuid_15_ebx) mc.trace.ratios.cpuid_15_ebx = 200;
        if (!strcmp(f, "cpuid_0x15_eax")) mc.trace.ratios.cpuid_15_eax = 0;
        if (strcmp(f, "cyc_bits")) mc.trace.cyc_bits = 12;
        CHECK(ptc_model_init(&m, &mc, NULL) == PTC_ERR_BAD_CONFIG && !strcmp(ptc_model_error_field(&m), f),
              "%s: the model said %s", f, ptc_model_error_field(&m));
    }
    {   /* a value whose known bit is clear is not read: TSC off but not known */
        ptc_conform_config conf;
        ptc_conform chk;
        ptc_item it;
        ptc_finding f[PTC_CONFORM_MAX_FINDINGS];
        memset(&conf, 0, sizeof conf);
        memset(&it, 0, sizeof it);
        it.pkt.type = PTC_TSC;
        CHECK(ptc_conform_init(&chk, &conf) == PTC_OK);
        CHECK(ptc_conform_item(&chk, &it, f) == 0, "a TSC with TSCEn not known");
        conf.trace.known = PTC_KNOW_TSC_EN;
        CHECK(ptc_conform_init(&chk, &conf) == PTC_OK);
        CHECK(ptc_conform_item(&chk, &it, f) == 1 && f[0].rule == PTC_RULE_DISABLED_PACKET, "a TSC with TSCEn known off");
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) spec_path = argv[1];
    RUN(catalogue_matches_spec);
    RUN(trace_config_is_checked_once_for_every_part);
    RUN(every_rule_breaks_once_at_its_offset);
    RUN(cyc_length_matches_the_encoder);
    RUN(errata_explain_what_they_say);
    RUN(resync_after_errors_and_ovf);
    RUN(model_streams_give_no_finding);
    RUN(model_follows_the_sdm_table);
    RUN(the_checker_takes_every_row);
    RUN(sdm_table_matches_spec);
    RUN(real_traces_break_no_rule);
    RUN(time_rules_catch_one_changed_packet);
    RUN(pwre_without_exstop_in_the_model);
    RUN(cyc_under_threshold_in_the_model);
    RUN(libipt_synthetic_vector_lacks_cbr);
    TESTLIB_EXIT();
}

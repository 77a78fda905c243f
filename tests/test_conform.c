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
#include "../tools/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../tools/modelrec.h"

#include <string.h>

static const char *spec_path = "SPEC.md";

/* ---- streams built packet by packet ---------------------------------- */

typedef struct sb {
    uint8_t b[8192];
    size_t len;
    uint64_t mark;           /* where the finding is expected (UINT64_MAX: none set) */
    ptc_conform_config cfg;  /* the checker's settings for this stream */
} sb;

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
    s->cfg.tsc_en = PTC_CONF_ON;
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
    s->cfg.have_psb_freq = 1; /* 2 KiB */
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
    s->cfg.mtc_en = PTC_CONF_ON;
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
    s->cfg.cyc_en = bad ? PTC_CONF_OFF : PTC_CONF_ON;
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
    s->cfg.have_clock = 1;
    ptc_clock_config_default(&s->cfg.clock);
    s->cfg.clock.mtc_freq = 3;
    s->cfg.clock.cpuid_15_eax = 1;
    s->cfg.clock.cpuid_15_ebx = 100;
    s->cfg.clock.nom_num = 24;
    s->cfg.clock.nom_den = 1;
    s->cfg.clock.nom_exact = 1;
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
    ptc_mtc_policy_default(&s->cfg.policy);
    s->cfg.policy.threshold = m->threshold;
    s->cfg.policy.resume_after = m->resume_after;
    s->cfg.policy.resume_on_value = m->resume_on_value;
    s->cfg.policy.resume_value = m->resume_value;
    s->cfg.have_policy = 1;
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
        s.cfg.cpu_known = 1; /* with no errata: no finding is an erratum's */
        build_case(&cases[k], &s, 1);
        CHECK(s.mark != UINT64_MAX, "%s: the breaking stream marks no offset", name);
        check_bytes(&s.cfg, s.b, s.len, 0, &fd);
        show(&fd, shown, sizeof shown);
        CHECK(fd.n == 1 && fd.f[0].rule == cases[k].rule && fd.f[0].offset == s.mark &&
                  fd.f[0].severity == ptc_rule_severity(cases[k].rule) && fd.f[0].erratum == 0,
              "%s at %llu: found%s", name, (unsigned long long)s.mark, shown);
        sb_init(&s);
        s.cfg.cpu_known = 1;
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
    s.cfg.cpu_known = 1;
    s.cfg.errata = ptc_errata_for_cpu(6, 0x4e, 3);
    one_finding(&s, PTC_RULE_PGE_WHILE_ON, PTC_SEV_ERRATUM, PTC_ERRATUM_BDM70, "bdm70, a Skylake");
    s.cfg.errata = ptc_errata_for_cpu(6, 0x5c, 9);
    one_finding(&s, PTC_RULE_PGE_WHILE_ON, PTC_SEV_VIOLATION, 0, "bdm70, a CPU without it");
    /* SKD010: no FUP after an OVF; APL11: a TIP.PGD there */
    sb_init(&s);
    b_ovf_follower(&s, 1);
    s.cfg.cpu_known = 1;
    s.cfg.errata = PTC_ERRATUM_SKD010;
    one_finding(&s, PTC_RULE_OVF_FOLLOWER, PTC_SEV_ERRATUM, PTC_ERRATUM_SKD010, "skd010");
    sb_init(&s);
    psb_plus(&s, 1);
    mark(&s);
    put(&s, pk(PTC_OVF));
    put(&s, pk_ip(PTC_TIP_PGD, PTC_IPC_SUPPRESSED, 0));
    s.cfg.cpu_known = 1;
    s.cfg.errata = ptc_errata_for_cpu(6, 0x7a, 1);
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
    char *spec = (char *)ut_read_file(spec_path, &len);
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
        CHECK(at && ut_parse_u64_n(at, strspn(at, "0123456789"), 1u << 20, &said) && said == sizeof(ptc_conform),
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
    for (wi = 0; wi < WL_COUNT; wi++)
        for (p = 0; p < sizeof policies / sizeof policies[0]; p++)
            for (s = 0; s < sizeof settings / sizeof settings[0]; s++) {
                mr_trace tr;
                ptc_model_sink sink = mr_start(&tr, 1);
                ptc_model_config mc;
                ptc_conform_config cc;
                found fd;
                char err[200], shown[600];
                if ((wi + p + s) % 2) continue; /* half the grid: every setting over the workloads */
                if (!wl_run_configured(wi, policies[p], settings[s], 1000000, 3 + s, &sink, &mc, err, sizeof err)) {
                    CHECK(0, "%s", err);
                    mr_free(&tr);
                    continue;
                }
                ptc_conform_config_from_model(&cc, &mc);
                check_bytes(&cc, tr.bytes, tr.len, mr_decode_flags(&mc), &fd);
                show(&fd, shown, sizeof shown);
                /* SKD007's cut CYC read where two whole CYCs were: its OVF's
                   missing FUP is that erratum's (SPEC 7.5) */
                if (fd.n) {
                    size_t i, errata = 0;
                    for (i = 0; i < fd.n; i++) errata += fd.f[i].severity == PTC_SEV_ERRATUM && fd.f[i].erratum == PTC_ERRATUM_SKD007;
                    CHECK(errata == fd.n && mc.skd007, "%s/%s [%s]: found%s", wl_names[wi], policies[p], settings[s], shown);
                }
                runs++;
                packets += fd.packets;
                mr_free(&tr);
            }
    CHECK(runs > 100 && packets > 1000000, "%zu runs, %llu packets", runs, (unsigned long long)packets);
}

/* ---- the model against the SDM's table (SPEC 7.5) -----------------------
   Rows of the SDM's table "Packet Generation under Different Enable
   Conditions" (2016 edition, Table 36-50's cases): an operation, PacketEn
   before and after it, ContextEn after it, and the packets it makes. The
   packet strings are the SDM's: "?" marks a packet that may be absent,
   (BLIP) the branch target, (NLIP) the next instruction, (CLIP) the
   current one, () no IP. The model runs each row with an IP filter
   deciding PacketEn, and kernel code untraced (os 0) where ContextEn
   ends 0; a software interrupt (INT n) is an interrupt at the INT itself,
   which its FUP names. The non-timing packets it writes for the
   operation must be the row's. */
static const struct sdm_row {
    const char *id, *operation;
    int before, after, ctx_after;
    const char *packets;
} sdm_rows[] = {
    { "3b", "WRMSR that clears TraceEn", 1, 0, 0, "FUP(CLIP), TIP.PGD()" },
    { "5d", "MOV to CR3", 1, 1, 1, "PIP" },
    { "5f", "MOV to CR3", 0, 0, 1, "PIP, TraceStop?" },
    { "7b", "conditional taken jump", 0, 1, 1, "MODE.Exec?, TIP.PGE(BLIP)" },
    { "7e", "conditional taken jump, empty TNT buffer", 1, 0, 1, "TIP.PGD(), TraceStop?" },
    { "7f", "conditional taken jump, non-empty TNT buffer", 1, 0, 1, "TNT, TIP.PGD(), TraceStop?" },
    { "7d", "conditional taken jump that fills the TNT buffer", 1, 1, 1, "TNT" },
    { "8a", "conditional not-taken jump", 0, 0, 1, "" },
    { "8d", "conditional not-taken jump that fills the TNT buffer", 1, 1, 1, "TNT" },
    { "9a", "near indirect jump", 0, 0, 1, "" },
    { "9b", "near indirect jump", 0, 1, 1, "MODE.Exec?, TIP.PGE(BLIP)" },
    { "9c", "near indirect jump", 1, 0, 1, "TIP.PGD(BLIP), TraceStop?" },
    { "9d", "near indirect jump", 1, 1, 1, "TIP(BLIP)" },
    { "10d", "far branch that changes the mode", 1, 0, 1, "PIP?, TIP.PGD(BLIP), TraceStop?" },
    { "10e", "far branch that changes the mode", 1, 1, 1, "PIP?, MODE.Exec?, TIP(BLIP)" },
    { "11a", "hardware interrupt", 0, 0, 0, "" },
    { "11b", "hardware interrupt", 0, 1, 1, "PIP?, MODE.Exec?, TIP.PGE(BLIP)" },
    { "11c", "hardware interrupt", 1, 0, 0, "FUP(NLIP), TIP.PGD()" },
    { "11d", "hardware interrupt", 1, 0, 1, "FUP(NLIP), PIP?, TIP.PGD(BLIP), TraceStop?" },
    { "11e", "hardware interrupt", 1, 1, 1, "FUP(NLIP), PIP?, MODE.Exec?, TIP(BLIP)" },
    { "11f", "hardware interrupt", 0, 0, 1, "PIP?, TraceStop?" },
    { "12a", "software interrupt", 0, 0, 0, "" },
    { "12b", "software interrupt", 0, 1, 1, "PIP?, MODE.Exec?, TIP.PGE(BLIP)" },
    { "12c", "software interrupt", 1, 0, 0, "FUP(CLIP), TIP.PGD()" },
    { "12d", "software interrupt", 1, 0, 1, "FUP(CLIP), PIP?, TIP.PGD(BLIP), TraceStop?" },
    { "12f", "software interrupt", 0, 0, 1, "PIP?, TraceStop?" },
    { "13b", "exception (a fault at the instruction)", 0, 1, 1, "PIP?, MODE.Exec?, TIP.PGE(BLIP)" },
    { "13c", "exception (a fault at the instruction)", 1, 0, 0, "FUP(CLIP), TIP.PGD()" },
    { "13d", "exception (a fault at the instruction)", 1, 0, 1, "FUP(CLIP), PIP?, TIP.PGD(BLIP), TraceStop?" },
    { "13e", "exception (a fault at the instruction)", 1, 1, 1, "FUP(CLIP), PIP?, MODE.Exec?, TIP(BLIP)" },
    { "13f", "exception (a fault at the instruction)", 0, 0, 1, "PIP?, TraceStop?" }
};

enum { TBL_IN = 0x401000, TBL_OUT = 0x600000, TBL_LO = 0x400000, TBL_HI = 0x500000 };

/* The non-timing packets from offset `from` on, as "TYPE(IP)" words,
   IP by name: BLIP the target, ip_name (NLIP or CLIP) the operation's IP,
   () none. */
static void packets_after(const mr_trace *tr, uint64_t from, uint64_t ip, const char *ip_name, uint64_t target, char *out,
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

/* A word of the SDM's string as packets_after writes it: the packet's
   name in lower case ("TNT" any TNT, "TraceStop" "stop"), its IP as is. */
static void sdm_word(const char *w, size_t n, char *out, size_t cap)
{
    size_t i, k = 0;
    int in_ip = 0;
    if (n >= 9 && !strncmp(w, "TraceStop", 9)) { snprintf(out, cap, "stop%.*s", (int)(n - 9), w + 9); return; }
    for (i = 0; i < n && k + 1 < cap; i++) {
        in_ip |= w[i] == '(';
        out[k++] = (char)(!in_ip && w[i] >= 'A' && w[i] <= 'Z' ? w[i] - 'A' + 'a' : w[i]);
    }
    out[k] = 0;
}

/* Whether got (words as packets_after writes them) is the SDM's string:
   its words in order, each "?" word present or not. */
static int matches_row(const char *sdm, const char *got)
{
    const char *w = sdm, *g = got;
    while (*w) {
        char want[64];
        size_t wl = strcspn(w, ","), gl = strcspn(g, ",");
        int optional = wl && w[wl - 1] == '?';
        sdm_word(w, optional ? wl - 1 : wl, want, sizeof want);
        if (gl == strlen(want) && !strncmp(g, want, gl)) g += gl + (g[gl] == ',') + (g[gl] == ',' && g[gl + 1] == ' ');
        else if (!optional) return 0;
        w += wl + (w[wl] == ',');
        while (*w == ' ') w++;
    }
    return *g == 0;
}

static void model_follows_the_sdm_table(void)
{
    size_t k;
    for (k = 0; k < sizeof sdm_rows / sizeof sdm_rows[0]; k++) {
        const struct sdm_row *r = &sdm_rows[k];
        ptc_model_config cfg;
        ptc_model m;
        mr_trace tr;
        ptc_model_sink sink = mr_start(&tr, 1);
        uint64_t ip = r->before ? TBL_IN : TBL_OUT, target = r->after ? TBL_IN + 0x800 : TBL_OUT + 0x800, from;
        char got[400];
        int fills = strstr(r->operation, "fills") != NULL, i;
        ptc_model_config_default(&cfg);
        /* kernel code untraced, so an interrupt into CPL 0 ends ContextEn;
           but a PIP needs OS (its dependencies), which the CR3 rows show */
        cfg.os = strstr(r->operation, "CR3") != NULL;
        cfg.nfilters = 1;
        cfg.filter_lo[0] = TBL_LO;
        cfg.filter_hi[0] = TBL_HI;
        CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
        ptc_model_start(&m, ip);
        ptc_model_idle(&m, 5000);
        /* the TNT buffer: one branch in it, or all but the last */
        if (strstr(r->operation, "non-empty")) ptc_model_branch(&m, ip, ip + 2, 0), ip += 2;
        for (i = 0; fills && i < 5; i++) ptc_model_branch(&m, ip, ip + 2, 0), ip += 2;
        from = tr.len;
        if (strstr(r->operation, "interrupt") || strstr(r->operation, "exception"))
            ptc_model_interrupt_cpl(&m, ip, target, r->ctx_after ? 3 : 0);
        else if (strstr(r->operation, "WRMSR")) ptc_model_stop_at(&m, ip);
        else if (strstr(r->operation, "CR3")) ptc_model_cr3(&m, ip, 0x1000);
        else if (strstr(r->operation, "far")) ptc_model_mode(&m, ip, target, 0, 1);
        else if (strstr(r->operation, "indirect")) ptc_model_jump(&m, ip, target, 1);
        else if (strstr(r->operation, "not-taken")) ptc_model_branch(&m, ip, target = ip + 2, 0);
        else ptc_model_branch(&m, ip, target, 1);
        packets_after(&tr, from, ip, strstr(r->operation, "hardware") ? "(NLIP)" : "(CLIP)", target, got, sizeof got);
        CHECK(matches_row(r->packets, got), "case %s (%s, PacketEn %d to %d): the SDM has \"%s\", the model wrote \"%s\"",
              r->id, r->operation, r->before, r->after, r->packets, got);
        if (!strstr(r->operation, "WRMSR")) ptc_model_stop(&m);
        mr_free(&tr);
    }
    CHECK(matches_row("MODE.Exec?, TIP.PGE(BLIP)", "tip.pge(BLIP)") && !matches_row("TIP(BLIP)", "tip(NLIP)") &&
          !matches_row("TNT", "") && matches_row("", ""), "the matcher");
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
        cfg->have_clock = 1;
        ptc_clock_config_default(&cfg->clock);
        cfg->clock.mtc_freq = 3;
        cfg->clock.cpuid_15_eax = 2;
        cfg->clock.cpuid_15_ebx = timed_traces[k].ebx;
        cfg->clock.nom_num = timed_traces[k].nom;
        cfg->clock.nom_den = 1;
        cfg->clock.nom_exact = 0;
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
    const char *shared = tl_shared_dir();
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
        buf = ut_read_file(path, &len);
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
    const char *shared = tl_shared_dir();
    char path[1024];
    size_t len = 0;
    uint8_t *buf, *bad;
    uint64_t tsc[4], tma[4], cbr[4];
    if (!shared) SKIP("no shared reference data (set PTCODEC_SHARED or put it in ../shared)");
    snprintf(path, sizeof path, "%s/pt-traces-timed/%s", shared, timed_traces[0].name);
    buf = ut_read_file(path, &len);
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
    free(bad);
    free(buf);
}

/* The model sleeps (ptc_model_sleep: MWAIT, PWRE, EXSTOP, FUP); with one
   EXSTOP made two PADs its PWRE owes it. */
static void pwre_without_exstop_in_the_model(void)
{
    mr_trace tr;
    ptc_model_sink sink = mr_start(&tr, 1);
    ptc_model_config mc;
    ptc_conform_config cc;
    char err[200];
    ptc_decoder d;
    ptc_item it;
    uint64_t pwre = UINT64_MAX, exstop = UINT64_MAX, sleeps = 0;
    int wi;
    for (wi = 0; wi < WL_COUNT && strcmp(wl_names[wi], "idle") != 0; wi++) {}
    CHECK(wi < WL_COUNT, "no idle workload");
    if (wi >= WL_COUNT || !wl_run_configured(wi, "off", "pwr_evt_en=1", 3000000, 5, &sink, &mc, err, sizeof err)) {
        CHECK(0, "idle: %s", err);
        mr_free(&tr);
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
        check_bytes(&cc, tr.bytes, tr.len, mr_decode_flags(&mc), &fd);
        CHECK(fd.n == 0, "the model's stream is clean");
        tr.bytes[exstop] = tr.bytes[exstop + 1] = 0; /* PAD, PAD */
        check_bytes(&cc, tr.bytes, tr.len, mr_decode_flags(&mc), &fd);
        show(&fd, shown, sizeof shown);
        CHECK(fd.n >= 1 && fd.f[0].rule == PTC_RULE_PWRE_NO_EXSTOP && fd.f[0].offset == pwre,
              "an EXSTOP gone, at %llu:%s", (unsigned long long)pwre, shown);
    }
    mr_free(&tr);
}

/* libipt's loop-tnt vector (pttc, not hardware) has a PSB+ without CBR:
   the SDM sends CBR in every PSB+ (SPEC 7.5). */
static void libipt_synthetic_vector_lacks_cbr(void)
{
    const char *shared = tl_shared_dir();
    char path[1024];
    size_t len = 0;
    uint8_t *buf;
    ptc_conform_config none;
    found fd;
    if (!shared) SKIP("no shared reference data (set PTCODEC_SHARED or put it in ../shared)");
    snprintf(path, sizeof path, "%s/pt-traces/keeper_IntelPT_summary__loop-tnt.pt", shared);
    buf = ut_read_file(path, &len);
    CHECK(buf != NULL, "cannot read %s", path);
    if (!buf) return;
    memset(&none, 0, sizeof none);
    check_bytes(&none, buf, len, 0, &fd);
    CHECK(fd.n == 1 && fd.f[0].rule == PTC_RULE_PSB_NO_CBR && fd.f[0].offset == 0, "%zu findings", fd.n);
    free(buf);
}

int main(int argc, char **argv)
{
    if (argc > 1) spec_path = argv[1];
    RUN(catalogue_matches_spec);
    RUN(every_rule_breaks_once_at_its_offset);
    RUN(cyc_length_matches_the_encoder);
    RUN(errata_explain_what_they_say);
    RUN(resync_after_errors_and_ovf);
    RUN(model_streams_give_no_finding);
    RUN(model_follows_the_sdm_table);
    RUN(real_traces_break_no_rule);
    RUN(time_rules_catch_one_changed_packet);
    RUN(pwre_without_exstop_in_the_model);
    RUN(libipt_synthetic_vector_lacks_cbr);
    TL_EXIT();
}

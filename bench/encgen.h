/* encgen.h - Intel PT traces written by libipt's encoder (pt_enc_next)
   from a timing model of their own, with the true TSC of every packet.

   These are the outsider streams the clock is judged on (timecmp) and
   timed on (bench_decode): nothing here comes from ptcodec.h, so a
   misreading of the SDM that ptcodec's model and its clock share cannot
   hide here. The timing follows the SDM's rules as this file reads them:

   - one core: cycle c is at TSC T(c) = T0 + c * nom / cbr (exact; a
     packet's truth is the floor); the ART is T * eax / ebx;
   - an MTC goes out in the first cycle at or after the ART edge where
     CTC bit mtc_freq toggles (payload CTC[mtc_freq+7:mtc_freq]); none is
     ever lost or late;
   - in cycle-accurate mode a CYC goes before an eligible packet once the
     cycles since the last CYC reach 2^(cyc_thresh-1) (threshold 0: any),
     and always when the packet before it is a CYC of an earlier cycle
     (36.3.6.2: the eligible packet right after a CYC is at its time);
   - a TNT's CYC goes out when its first branch retires, and the TNT
     packet goes out later, when it is full or a non-timing packet
     flushes it, with no CYC of its own: its true time is its first
     branch (Example 36-1). Timing packets (MTC) may come in between;
   - PSB+ (PSB, CYC, TSC, TMA, CBR, MODE.Exec and FUP while tracing is
     on, PSBEND) every 4 KiB at one instant, the pending TNT flushed
     before it;
   - TIP.PGD ... TIP.PGE: tracing off for a while, MTCs go on; a TIP.PGE
     after a PSB+ that held no MODE.Exec gets one first (Table 36-50).

   Link with libipt. Deterministic per seed. */
#ifndef PTCODEC_ENCGEN_H
#define PTCODEC_ENCGEN_H

#include "../ptcodec.h"
#include "../harness/util.h"

#include <intel-pt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct encgen_config {
    uint64_t seed;
    uint64_t events;      /* branches and other events to write */
    int sparse;           /* events 20..3000 cycles apart, mostly TIPs; else 1..4, mostly TNT */
    int cyc;              /* cycle-accurate mode, with this threshold: */
    uint8_t cyc_thresh;
    uint8_t mtc_freq;
    uint32_t eax, ebx;    /* CPUID.15H: TSC:CTC = ebx / eax */
    uint8_t nom, cbr;     /* TSC ticks per core cycle = nom / cbr */
} encgen_config;

typedef struct encgen_trace {
    uint8_t *bytes;
    size_t len, cap;
    uint64_t *truth;      /* the true TSC of the i-th packet */
    size_t n, truth_cap;
    int failed;           /* the encoder refused a packet, or memory ran out */
} encgen_trace;

/* The generator's state: the model's clocks and what is pending. */
typedef struct encgen_state {
    encgen_config cfg;
    encgen_trace *out;
    struct pt_encoder *enc;
    uint64_t rng, t0, cycle, cyc_at, next_edge, psb_at;
    uint64_t tnt_bits, tnt_first;
    uint64_t last_ip;     /* what IP compression is against (0 after a PSB) */
    uint64_t cur_ip;      /* where the program is, for the PSB+'s FUP */
    uint8_t tnt_count;
    int last_cyc;         /* the last packet was a CYC, at cyc_at */
    int mode_since_psb;   /* a MODE.Exec went out since the last PSB */
} encgen_state;

static uint64_t encgen_rand(encgen_state *g, uint64_t n)
{
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return n ? (g->rng * UINT64_C(2685821657736338717)) % n : 0;
}

/* T(c) * cbr, so that the TSC and the ART are exact integer divisions. */
static uint64_t encgen_scaled(const encgen_state *g, uint64_t cycle) { return g->t0 * g->cfg.cbr + cycle * g->cfg.nom; }
static uint64_t encgen_tsc(const encgen_state *g, uint64_t cycle) { return encgen_scaled(g, cycle) / g->cfg.cbr; }
static uint64_t encgen_art(const encgen_state *g, uint64_t cycle)
{
    return encgen_scaled(g, cycle) * g->cfg.eax / ((uint64_t)g->cfg.cbr * g->cfg.ebx);
}

/* The first cycle whose ART has reached `art`. */
static uint64_t encgen_cycle_of_art(const encgen_state *g, uint64_t art)
{
    uint64_t need = (art * g->cfg.cbr * g->cfg.ebx + g->cfg.eax - 1) / g->cfg.eax; /* scaled T needed */
    uint64_t base = g->t0 * g->cfg.cbr;
    return need <= base ? 0 : (need - base + g->cfg.nom - 1) / g->cfg.nom;
}

static void encgen_put(encgen_state *g, const struct pt_packet *p, uint64_t truth)
{
    encgen_trace *o = g->out;
    uint64_t end;
    if (o->failed) return;
    if (o->n == o->truth_cap) {
        size_t cap = o->truth_cap ? 2 * o->truth_cap : 4096;
        uint64_t *t = (uint64_t *)realloc(o->truth, cap * sizeof *t);
        if (!t) { o->failed = 1; return; }
        o->truth = t;
        o->truth_cap = cap;
    }
    if (pt_enc_next(g->enc, p) < 0 || pt_enc_get_offset(g->enc, &end) < 0) { o->failed = 1; return; }
    o->len = (size_t)end;
    o->truth[o->n++] = truth;
    g->last_cyc = p->type == ppt_cyc;
}

static void encgen_simple(encgen_state *g, enum pt_packet_type type, uint64_t truth)
{
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    p.type = type;
    encgen_put(g, &p, truth);
}

/* A CYC before an eligible packet of this cycle, as the rules above say. */
static void encgen_cyc(encgen_state *g)
{
    struct pt_packet p;
    uint64_t d = g->cycle - g->cyc_at;
    if (!g->cfg.cyc || !d) return;
    if (!g->last_cyc && g->cfg.cyc_thresh && d < (UINT64_C(1) << (g->cfg.cyc_thresh - 1))) return;
    memset(&p, 0, sizeof p);
    p.type = ppt_cyc;
    p.payload.cyc.value = d;
    g->cyc_at = g->cycle;
    encgen_put(g, &p, encgen_tsc(g, g->cycle));
}

static void encgen_flush_tnt(encgen_state *g)
{
    struct pt_packet p;
    if (!g->tnt_count) return;
    memset(&p, 0, sizeof p);
    p.type = ppt_tnt_8;
    p.payload.tnt.bit_size = g->tnt_count;
    p.payload.tnt.payload = g->tnt_bits;
    g->tnt_count = 0;
    g->tnt_bits = 0;
    encgen_put(g, &p, g->tnt_first);
}

/* Every MTC edge up to the current cycle, each in its own cycle. */
static void encgen_mtcs_until(encgen_state *g, uint64_t cycle)
{
    while (g->next_edge <= cycle && !g->out->failed) {
        uint64_t edge_cycle = g->next_edge, art = encgen_art(g, edge_cycle);
        struct pt_packet p;
        g->cycle = edge_cycle;
        encgen_cyc(g);
        memset(&p, 0, sizeof p);
        p.type = ppt_mtc;
        p.payload.mtc.ctc = (uint8_t)(art >> g->cfg.mtc_freq);
        encgen_put(g, &p, encgen_tsc(g, edge_cycle));
        g->next_edge = encgen_cycle_of_art(g, ((art >> g->cfg.mtc_freq) + 1) << g->cfg.mtc_freq);
    }
}

/* An IP packet, compressed against the last IP as an encoder would. */
static void encgen_ip_packet(encgen_state *g, enum pt_packet_type type, uint64_t ip)
{
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    p.type = type;
    p.payload.ip.ip = ip;
    if ((ip >> 16) == (g->last_ip >> 16)) p.payload.ip.ipc = pt_ipc_update_16;
    else if ((ip >> 32) == (g->last_ip >> 32)) p.payload.ip.ipc = pt_ipc_update_32;
    else p.payload.ip.ipc = pt_ipc_sext_48;
    if (p.payload.ip.ipc != pt_ipc_sext_48) p.payload.ip.ip &= p.payload.ip.ipc == pt_ipc_update_16 ? 0xFFFF : 0xFFFFFFFF;
    g->last_ip = ip;
    g->cur_ip = ip;
    if (type != ppt_fup) encgen_cyc(g); /* (a FUP is not CYC-eligible) */
    encgen_put(g, &p, encgen_tsc(g, g->cycle));
}

/* A MODE.Exec (64-bit code) in the current cycle. */
static void encgen_mode_exec(encgen_state *g)
{
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    p.type = ppt_mode;
    p.payload.mode.leaf = pt_mol_exec;
    p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
    encgen_put(g, &p, encgen_tsc(g, g->cycle));
    g->mode_since_psb = 1;
}

static void encgen_psb_plus(encgen_state *g)
{
    struct pt_packet p;
    uint64_t tsc = encgen_tsc(g, g->cycle), art = encgen_art(g, g->cycle);
    encgen_flush_tnt(g);
    encgen_simple(g, ppt_psb, tsc);
    encgen_cyc(g);
    memset(&p, 0, sizeof p);
    p.type = ppt_tsc;
    p.payload.tsc.tsc = tsc & ((UINT64_C(1) << 56) - 1);
    encgen_put(g, &p, tsc);
    memset(&p, 0, sizeof p);
    p.type = ppt_tma; /* the CTC at the last ART edge, and the TSC ticks since that edge */
    p.payload.tma.ctc = (uint16_t)art;
    p.payload.tma.fc = (uint16_t)(tsc - art * g->cfg.ebx / g->cfg.eax);
    encgen_put(g, &p, tsc);
    memset(&p, 0, sizeof p);
    p.type = ppt_cbr;
    p.payload.cbr.ratio = g->cfg.cbr;
    encgen_put(g, &p, tsc);
    g->last_ip = 0; /* a PSB resets IP compression */
    g->mode_since_psb = 0;
    if (g->cur_ip) { /* tracing is on: its mode, and where it is (36.4.2.8: both or neither) */
        encgen_mode_exec(g);
        encgen_ip_packet(g, ppt_fup, g->cur_ip);
    }
    encgen_simple(g, ppt_psbend, tsc);
    g->psb_at = g->out->len;
}

static uint64_t encgen_new_ip(encgen_state *g)
{
    return UINT64_C(0x400000) + (encgen_rand(g, 4) ? encgen_rand(g, 0x10000) : encgen_rand(g, UINT64_C(1) << 30));
}

/* Tracing on at a new IP: TIP.PGE, with a MODE.Exec first when none went
   out since the last PSB (Table 36-50). */
static void encgen_tracing_on(encgen_state *g)
{
    if (!g->mode_since_psb) {
        encgen_cyc(g);
        encgen_mode_exec(g);
    }
    encgen_ip_packet(g, ppt_tip_pge, encgen_new_ip(g));
}

/* Moves time on by `cycles`, with the MTCs of the way. */
static void encgen_advance(encgen_state *g, uint64_t cycles)
{
    uint64_t to = g->cycle + cycles;
    encgen_mtcs_until(g, to);
    g->cycle = to;
}

static void encgen_event(encgen_state *g)
{
    uint64_t kind = encgen_rand(g, 100);
    int sparse = g->cfg.sparse;
    encgen_advance(g, sparse ? 20 + encgen_rand(g, 2981) : 1 + encgen_rand(g, 4));
    if (g->out->len - g->psb_at >= 4096) encgen_psb_plus(g);
    if (kind < (sparse ? 40u : 80u)) { /* a conditional branch */
        if (!g->tnt_count) {
            encgen_cyc(g); /* the TNT's CYC: at its first branch */
            g->tnt_first = encgen_tsc(g, g->cycle);
        }
        g->tnt_bits = (g->tnt_bits << 1) | encgen_rand(g, 2);
        if (++g->tnt_count == 6) encgen_flush_tnt(g);
    } else if (kind < (sparse ? 95u : 98u)) {
        encgen_flush_tnt(g);
        encgen_ip_packet(g, ppt_tip, encgen_new_ip(g));
    } else if (kind < (sparse ? 97u : 99u)) {
        struct pt_packet p;
        encgen_flush_tnt(g);
        encgen_cyc(g);
        memset(&p, 0, sizeof p);
        p.type = ppt_pip;
        p.payload.pip.cr3 = (encgen_rand(g, 1u << 20) + 1) << 12;
        encgen_put(g, &p, encgen_tsc(g, g->cycle));
    } else { /* tracing off for a while (a filtered region), then on */
        encgen_flush_tnt(g);
        encgen_ip_packet(g, ppt_tip_pgd, encgen_new_ip(g));
        g->cur_ip = 0;
        encgen_advance(g, 50 + encgen_rand(g, sparse ? 20000 : 2000));
        encgen_tracing_on(g);
    }
}

/* Writes a trace. The caller frees out->bytes and out->truth (also on
   failure: out->failed). */
static void encgen_generate(const encgen_config *cfg, encgen_trace *out)
{
    struct pt_config pc;
    encgen_state g;
    uint64_t i;
    memset(out, 0, sizeof *out);
    memset(&g, 0, sizeof g);
    g.cfg = *cfg;
    g.out = out;
    g.rng = cfg->seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
    out->cap = (size_t)(cfg->events * (cfg->sparse ? 160 : 8) + 65536);
    out->bytes = (uint8_t *)malloc(out->cap);
    if (!out->bytes) { out->failed = 1; return; }
    memset(&pc, 0, sizeof pc);
    pc.size = sizeof pc;
    pc.begin = out->bytes;
    pc.end = out->bytes + out->cap;
    g.enc = pt_alloc_encoder(&pc);
    if (!g.enc) { out->failed = 1; return; }
    g.t0 = UINT64_C(1000000000000) + encgen_rand(&g, UINT64_C(1) << 32);
    g.next_edge = encgen_cycle_of_art(&g, ((encgen_art(&g, 0) >> cfg->mtc_freq) + 1) << cfg->mtc_freq);
    encgen_psb_plus(&g);
    encgen_tracing_on(&g);
    for (i = 0; i < cfg->events && !out->failed; i++) encgen_event(&g);
    encgen_flush_tnt(&g);
    pt_free_encoder(g.enc);
}

static void encgen_free(encgen_trace *t)
{
    free(t->bytes);
    free(t->truth);
    memset(t, 0, sizeof *t);
}

/* ptcodec's clock settings for a stream written with cfg: what perf
   records of it, with the SDM's clocks (the generator's are ideal). */
UTIL_FN void encgen_clock_config(const encgen_config *cfg, ptc_clock_config *cc)
{
    ptc_clock_config_sdm(cc);
    cc->trace.ctl.mtc_freq = cfg->mtc_freq;
    cc->trace.ratios.cpuid_15_eax = cfg->eax;
    cc->trace.ratios.cpuid_15_ebx = cfg->ebx;
    cc->trace.ratios.nom_num = cfg->nom;
    cc->trace.ratios.nom_den = 1;
    cc->trace.ctl.cyc_en = (uint8_t)cfg->cyc;
    cc->trace.ctl.cyc_thresh = cfg->cyc_thresh;
    cc->trace.known |= PTC_KNOW_CYC_EN | PTC_KNOW_CYC_THRESH;
}

#endif

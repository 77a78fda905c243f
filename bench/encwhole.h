/* encwhole.h - Intel PT traces written by libipt's encoder (pt_enc_next)
   from the second reading of the SDM's CYC rules, with the true TSC of
   every packet: a TNT goes out whole, its CYC right before it.

   bench/encgen.h and ptcodec's model read SDM 36.3.6.2 one way: a TNT's
   CYC goes out when its first branch retires and the TNT packet later,
   with timing packets possibly in between. Another encoder may read it
   so that every branch of a TNT retires in the cycle its packet goes out;
   its streams are as legal, and a clock tuned to the first reading must
   not lose on them (issue 45). This file is that encoder, written apart
   from both (no ptcodec.h, no encgen.h):

   - one core at ratio `cbr`: cycle c is at TSC T0 + c * nom / cbr,
     exact; a packet's truth is the floor of its cycle's TSC, and the ART
     (the crystal's count, CTC) is that TSC * eax / ebx;
   - an MTC goes out in the first cycle at or after each edge of CTC bit
     mtc_freq (payload CTC[mtc_freq+7:mtc_freq]); none is lost or late;
   - a CYC goes out only right before a CYC-eligible packet (TNT, TIP,
     TIP.PGE, TIP.PGD, MODE, PIP, MTC, TSC, PTW), and only when the cycles
     since the last CYC reach 2^(cyc_thresh-1) (threshold 0: any cycle
     but the same one). None is ever forced: the eligible packets of one
     cycle share the first one's CYC, so an MTC edge and a TNT in the same
     cycle give CYC, MTC, TNT (36.3.6.2: the CYC "would precede both the
     MTC and the TNT, and apply to both");
   - PSB+ (PSB, [CYC], TSC, TMA, CBR, and MODE.Exec and FUP while tracing
     is on, PSBEND) once 4 KiB have gone out since the last, in a cycle of
     its own; a TIP.PGE after a PSB+ that held no MODE.Exec gets one first;
   - events: a TNT of 1 to 6 branches, a TIP, an interrupt (FUP, then the
     handler's TIP: the CYC goes with the TIP, timing packets may sit
     inside FUP...TIP), a far branch (MODE.Exec, TIP), a PIP, a PTW with
     its FUP, a same-ratio CBR, tracing off (TIP.PGD) for a while then on
     (TIP.PGE); MTCs and their CYCs go on while it is off;
   - dense: events 5 to 65 cycles apart, mostly TNT; sparse: 200 to 2 000
     cycles apart, one gap in 40 of 10 000 to 60 000 cycles (code with no
     branch, or a long string instruction), a TNT one time in ten, so
     mostly MTC and CYC; in both, one event in 50 falls in the cycle of
     the MTC edge after its gap, where the two share a CYC;
   - the trace ends where the buffer is full, in the middle of whatever
     was going on (no last flush, no PSB).

   Link with libipt. Deterministic per seed; the caller frees
   what encwhole_generate allocates (encwhole_free). */
#ifndef PTCODEC_ENCWHOLE_H
#define PTCODEC_ENCWHOLE_H

#include <intel-pt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct encwhole_config {
    uint64_t seed;
    size_t bytes;         /* the buffer: the trace ends where it is full */
    int sparse;           /* the sparse mix (else the dense one) */
    int cyc;              /* cycle-accurate mode, with this CycThresh: */
    uint8_t cyc_thresh;
    uint8_t mtc_freq;
    uint32_t eax, ebx;    /* CPUID.15H: ebx / eax TSC ticks per CTC tick */
    uint8_t nom, cbr;     /* nom / cbr TSC ticks per core cycle */
} encwhole_config;

typedef struct encwhole_trace {
    uint8_t *bytes;
    size_t len;
    uint64_t *truth;      /* the true TSC of the i-th packet */
    uint64_t *offset;     /* and where it starts */
    size_t n, cap;
    int failed;           /* memory ran out, or the encoder refused a packet it had room for */
} encwhole_trace;

typedef struct encwhole_writer {
    encwhole_config cfg;
    encwhole_trace *out;
    struct pt_encoder *enc;
    int full;             /* the buffer is full: nothing more goes out */
    uint64_t rng;
    uint64_t t0;          /* the TSC at cycle 0 */
    uint64_t now;         /* the current cycle */
    uint64_t last_cyc;    /* the cycle the last CYC (or the start) counted to */
    uint64_t cyc_sent_in; /* the cycle whose eligible packets a CYC already covers (+1; 0: none) */
    uint64_t mtc_cycle;   /* the cycle of the next MTC */
    uint64_t last_ip;     /* what IP compression is against (0 after a PSB) */
    uint64_t ip;          /* where the program is */
    int tracing;          /* PacketEn */
    int mode_since_psb;   /* a MODE.Exec went out since the last PSB */
    size_t psb_end;       /* the offset after the last PSB+ */
} encwhole_writer;

static uint64_t encwhole_rand(encwhole_writer *w, uint64_t n)
{
    /* splitmix64: one step per draw */
    uint64_t z = (w->rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    return n ? z % n : 0;
}

static uint64_t encwhole_between(encwhole_writer *w, uint64_t lo, uint64_t hi) { return lo + encwhole_rand(w, hi - lo + 1); }

/* The TSC of a cycle, times cbr (exact), and its floor, the truth. */
static uint64_t encwhole_tsc_x_cbr(const encwhole_writer *w, uint64_t cycle) { return w->t0 * w->cfg.cbr + cycle * w->cfg.nom; }
static uint64_t encwhole_tsc(const encwhole_writer *w, uint64_t cycle) { return encwhole_tsc_x_cbr(w, cycle) / w->cfg.cbr; }

/* The crystal's count at a cycle: TSC * eax / ebx, floored. */
static uint64_t encwhole_ctc(const encwhole_writer *w, uint64_t cycle)
{
    return encwhole_tsc_x_cbr(w, cycle) * w->cfg.eax / ((uint64_t)w->cfg.cbr * w->cfg.ebx);
}

/* The first cycle at or after the crystal count `ctc`. */
static uint64_t encwhole_cycle_at_ctc(const encwhole_writer *w, uint64_t ctc)
{
    uint64_t need = (ctc * w->cfg.ebx * w->cfg.cbr + w->cfg.eax - 1) / w->cfg.eax; /* TSC * cbr */
    uint64_t have = w->t0 * w->cfg.cbr;
    return need <= have ? 0 : (need - have + w->cfg.nom - 1) / w->cfg.nom;
}

/* The cycle of the first MTC edge after the given cycle's count. */
static uint64_t encwhole_next_mtc_cycle(const encwhole_writer *w, uint64_t cycle)
{
    uint64_t period = UINT64_C(1) << w->cfg.mtc_freq;
    return encwhole_cycle_at_ctc(w, (encwhole_ctc(w, cycle) / period + 1) * period);
}

/* Writes one packet that went out in the current cycle, unless the
   buffer is full (then it and everything after it are cut off). */
static void encwhole_put(encwhole_writer *w, const struct pt_packet *p)
{
    encwhole_trace *o = w->out;
    uint64_t end;
    int st;
    if (w->full || o->failed) return;
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 4096;
        uint64_t *t = (uint64_t *)realloc(o->truth, cap * sizeof *t), *f;
        if (t) o->truth = t;
        f = t ? (uint64_t *)realloc(o->offset, cap * sizeof *f) : NULL;
        if (!f) { o->failed = 1; return; }
        o->offset = f;
        o->cap = cap;
    }
    st = pt_enc_next(w->enc, p);
    if (st == -pte_eos) { w->full = 1; return; }
    if (st < 0 || pt_enc_get_offset(w->enc, &end) < 0) { o->failed = 1; return; }
    o->offset[o->n] = o->len;
    o->truth[o->n++] = encwhole_tsc(w, w->now);
    o->len = (size_t)end;
}

static void encwhole_put_type(encwhole_writer *w, enum pt_packet_type type)
{
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    p.type = type;
    encwhole_put(w, &p);
}

/* Before a CYC-eligible packet of the current cycle: its CYC, when the
   threshold is reached and no CYC went out in this cycle yet. */
static void encwhole_eligible(encwhole_writer *w)
{
    struct pt_packet p;
    uint64_t cycles = w->now - w->last_cyc;
    if (!w->cfg.cyc || w->cyc_sent_in == w->now + 1 || !cycles) return;
    if (w->cfg.cyc_thresh && cycles < (UINT64_C(1) << (w->cfg.cyc_thresh - 1))) return;
    memset(&p, 0, sizeof p);
    p.type = ppt_cyc;
    p.payload.cyc.value = cycles;
    encwhole_put(w, &p);
    w->last_cyc = w->now;
    w->cyc_sent_in = w->now + 1;
}

static void encwhole_mtc(encwhole_writer *w)
{
    struct pt_packet p;
    encwhole_eligible(w);
    memset(&p, 0, sizeof p);
    p.type = ppt_mtc;
    p.payload.mtc.ctc = (uint8_t)(encwhole_ctc(w, w->now) >> w->cfg.mtc_freq);
    encwhole_put(w, &p);
}

/* On to cycle `to`, with the MTCs of every edge on the way (one in the
   cycle `to` itself goes out before that cycle's other packets). */
static void encwhole_run_to(encwhole_writer *w, uint64_t to)
{
    while (w->mtc_cycle <= to && !w->full) {
        w->now = w->mtc_cycle;
        encwhole_mtc(w);
        w->mtc_cycle = encwhole_next_mtc_cycle(w, w->now);
    }
    w->now = to;
}

/* An IP packet, compressed against the last IP as an encoder would. */
static void encwhole_ip_packet(encwhole_writer *w, enum pt_packet_type type, uint64_t ip)
{
    struct pt_packet p;
    if (type != ppt_fup) encwhole_eligible(w);
    memset(&p, 0, sizeof p);
    p.type = type;
    if ((ip >> 16) == (w->last_ip >> 16)) {
        p.payload.ip.ipc = pt_ipc_update_16;
        p.payload.ip.ip = ip & 0xFFFF;
    } else if ((ip >> 32) == (w->last_ip >> 32)) {
        p.payload.ip.ipc = pt_ipc_update_32;
        p.payload.ip.ip = ip & 0xFFFFFFFF;
    } else {
        p.payload.ip.ipc = pt_ipc_sext_48;
        p.payload.ip.ip = ip;
    }
    encwhole_put(w, &p);
    w->last_ip = ip;
    w->ip = ip;
}

static void encwhole_mode_exec(encwhole_writer *w)
{
    struct pt_packet p;
    encwhole_eligible(w);
    memset(&p, 0, sizeof p);
    p.type = ppt_mode;
    p.payload.mode.leaf = pt_mol_exec;
    p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
    encwhole_put(w, &p);
    w->mode_since_psb = 1;
}

static void encwhole_cbr(encwhole_writer *w)
{
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    p.type = ppt_cbr;
    p.payload.cbr.ratio = w->cfg.cbr;
    encwhole_put(w, &p);
}

static void encwhole_psb_plus(encwhole_writer *w)
{
    struct pt_packet p;
    uint64_t tsc = encwhole_tsc(w, w->now), ctc = encwhole_ctc(w, w->now);
    encwhole_put_type(w, ppt_psb);
    w->mode_since_psb = 0;
    encwhole_eligible(w); /* the TSC is CYC-eligible */
    memset(&p, 0, sizeof p);
    p.type = ppt_tsc;
    p.payload.tsc.tsc = tsc & ((UINT64_C(1) << 56) - 1);
    encwhole_put(w, &p);
    memset(&p, 0, sizeof p);
    p.type = ppt_tma; /* CTC[15:0], and the TSC ticks since that CTC edge */
    p.payload.tma.ctc = (uint16_t)ctc;
    p.payload.tma.fc = (uint16_t)(tsc - ctc * w->cfg.ebx / w->cfg.eax);
    encwhole_put(w, &p);
    encwhole_cbr(w);
    w->last_ip = 0;
    if (w->tracing) {
        encwhole_mode_exec(w);
        encwhole_ip_packet(w, ppt_fup, w->ip);
    }
    encwhole_put_type(w, ppt_psbend);
    w->psb_end = w->out->len;
}

static uint64_t encwhole_new_ip(encwhole_writer *w)
{
    uint64_t near = w->ip ? (w->ip & ~UINT64_C(0xFFFF)) | encwhole_rand(w, 0x10000) : 0;
    if (near && encwhole_rand(w, 4)) return near;
    return UINT64_C(0x400000) + encwhole_rand(w, UINT64_C(1) << 32);
}

static void encwhole_tnt(encwhole_writer *w)
{
    struct pt_packet p;
    uint8_t n = (uint8_t)encwhole_between(w, 1, 6);
    encwhole_eligible(w);
    memset(&p, 0, sizeof p);
    p.type = ppt_tnt_8;
    p.payload.tnt.bit_size = n;
    p.payload.tnt.payload = encwhole_rand(w, UINT64_C(1) << n);
    encwhole_put(w, &p);
}

static void encwhole_pip(encwhole_writer *w)
{
    struct pt_packet p;
    encwhole_eligible(w);
    memset(&p, 0, sizeof p);
    p.type = ppt_pip;
    p.payload.pip.cr3 = encwhole_between(w, 1, 1u << 20) << 12;
    encwhole_put(w, &p);
}

static void encwhole_ptw(encwhole_writer *w)
{
    struct pt_packet p;
    encwhole_eligible(w);
    memset(&p, 0, sizeof p);
    p.type = ppt_ptw;
    p.payload.ptw.plc = 1; /* 8 bytes */
    p.payload.ptw.payload = encwhole_rand(w, UINT64_MAX);
    p.payload.ptw.ip = 1;
    encwhole_put(w, &p);
    encwhole_ip_packet(w, ppt_fup, w->ip + encwhole_between(w, 1, 64));
}

/* Tracing goes off here; the caller moves on while it is off. */
static void encwhole_tracing_off(encwhole_writer *w)
{
    encwhole_ip_packet(w, ppt_tip_pgd, encwhole_new_ip(w));
    w->tracing = 0;
}

static void encwhole_tracing_on(encwhole_writer *w)
{
    if (!w->mode_since_psb) encwhole_mode_exec(w);
    encwhole_ip_packet(w, ppt_tip_pge, encwhole_new_ip(w));
    w->tracing = 1;
}

/* One event of the mix, in the current cycle. */
static void encwhole_event(encwhole_writer *w)
{
    uint64_t kind = encwhole_rand(w, 100);
    /* how the mix divides its hundred: TNT, TIP, interrupt, far branch,
       PIP, PTW, a same-ratio CBR; the rest turns tracing off */
    static const uint8_t dense[] = { 80, 90, 92, 94, 96, 98, 99 }, sparse[] = { 10, 40, 50, 60, 70, 80, 90 };
    const uint8_t *cut = w->cfg.sparse ? sparse : dense;
    if (kind < cut[0]) encwhole_tnt(w);
    else if (kind < cut[1]) encwhole_ip_packet(w, ppt_tip, encwhole_new_ip(w));
    else if (kind < cut[2]) {
        encwhole_ip_packet(w, ppt_fup, w->ip + encwhole_between(w, 1, 15));
        encwhole_ip_packet(w, ppt_tip, encwhole_new_ip(w));
    } else if (kind < cut[3]) {
        encwhole_mode_exec(w);
        encwhole_ip_packet(w, ppt_tip, encwhole_new_ip(w));
    } else if (kind < cut[4]) encwhole_pip(w);
    else if (kind < cut[5]) encwhole_ptw(w);
    else if (kind < cut[6]) encwhole_cbr(w);
    else encwhole_tracing_off(w);
}

/* Writes a trace into out (zeroed first). */
static void encwhole_generate(const encwhole_config *cfg, encwhole_trace *out)
{
    struct pt_config pc;
    encwhole_writer w;
    memset(out, 0, sizeof *out);
    memset(&w, 0, sizeof w);
    w.cfg = *cfg;
    w.out = out;
    w.rng = cfg->seed;
    if (!cfg->cbr || !cfg->nom || !cfg->eax || !cfg->ebx || cfg->mtc_freq > 15 || cfg->cyc_thresh > 15) {
        out->failed = 1;
        return;
    }
    out->bytes = (uint8_t *)malloc(cfg->bytes ? cfg->bytes : 1);
    if (!out->bytes) { out->failed = 1; return; }
    memset(&pc, 0, sizeof pc);
    pc.size = sizeof pc;
    pc.begin = out->bytes;
    pc.end = out->bytes + cfg->bytes;
    w.enc = pt_alloc_encoder(&pc);
    if (!w.enc) { out->failed = 1; return; }
    w.t0 = UINT64_C(2000000000000) + encwhole_rand(&w, UINT64_C(1) << 36);
    w.now = w.last_cyc = encwhole_between(&w, 0, 5000);
    w.mtc_cycle = encwhole_next_mtc_cycle(&w, w.now);
    w.ip = encwhole_new_ip(&w);
    encwhole_psb_plus(&w);
    w.now++;
    encwhole_tracing_on(&w);
    while (!w.full && !out->failed) {
        uint64_t gap = !cfg->sparse        ? encwhole_between(&w, 5, 65)
                       : encwhole_rand(&w, 40) ? encwhole_between(&w, 200, 2000)
                                         : encwhole_between(&w, 10000, 60000);
        if (out->len - w.psb_end >= 4096) {
            uint64_t at = encwhole_between(&w, 1, gap - 1);
            encwhole_run_to(&w, w.now + at); /* the PSB+ in a cycle of its own */
            encwhole_psb_plus(&w);
            gap -= at;
        }
        if (!encwhole_rand(&w, 50) && w.mtc_cycle > w.now + gap) gap = w.mtc_cycle - w.now;
        encwhole_run_to(&w, w.now + gap);
        if (w.tracing) encwhole_event(&w);
        else if (!encwhole_rand(&w, cfg->sparse ? 3 : 30)) encwhole_tracing_on(&w);
    }
    pt_free_encoder(w.enc);
}

static void encwhole_free(encwhole_trace *t)
{
    free(t->bytes);
    free(t->truth);
    free(t->offset);
    memset(t, 0, sizeof *t);
}

#endif

/* pktgen.h - random valid Intel PT packets and packet streams, for tests,
   fuzz seeds and benchmarks. The program links ptcodec's
   implementation. Deterministic: the same seed gives the same bytes. */
#ifndef PTCODEC_PKTGEN_H
#define PTCODEC_PKTGEN_H

#include "../ptcodec.h"

#include "util.h"

#include <stdint.h>
#include <string.h>

/* A random source: xorshift64* from seed s, or - when src is set - the
   bytes of src (8 per draw, zero once they run out), so that a fuzzer
   steers every choice the generator makes. */
typedef struct pktgen_rng { uint64_t s; const uint8_t *src; size_t src_len; } pktgen_rng;

UTIL_FN pktgen_rng pktgen_seed(uint64_t seed)
{
    pktgen_rng r;
    memset(&r, 0, sizeof r);
    r.s = seed;
    return r;
}

UTIL_FN pktgen_rng pktgen_from_bytes(const uint8_t *src, size_t len)
{
    pktgen_rng r;
    memset(&r, 0, sizeof r);
    r.src = src;
    r.src_len = len;
    return r;
}

UTIL_FN uint64_t pktgen_next(pktgen_rng *r)
{
    uint64_t x;
    if (r->src) {
        size_t i, n = r->src_len < 8 ? r->src_len : 8;
        for (x = 0, i = 0; i < n; i++) x |= (uint64_t)r->src[i] << (8 * i);
        r->src += n;
        r->src_len -= n;
        return x;
    }
    /* xorshift64* */
    x = r->s ? r->s : UINT64_C(0x9E3779B97F4A7C15);
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    r->s = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}

/* Uniform in [lo, hi] (hi - lo < 2^64 - 1). */
UTIL_FN uint64_t pktgen_range(pktgen_rng *r, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo + 1;
    return span ? lo + pktgen_next(r) % span : pktgen_next(r);
}

/* A value of `bits` bits, biased towards the edges: 0, 1, max, max-1 and
   powers of two turn up far more often than uniform sampling gives. */
UTIL_FN uint64_t pktgen_bits(pktgen_rng *r, unsigned bits)
{
    uint64_t max = bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    switch (pktgen_next(r) % 8) {
    case 0: return 0;
    case 1: return max;
    case 2: return max ? max - (pktgen_next(r) & 1) : 0;
    case 3: return (UINT64_C(1) << (pktgen_next(r) % (bits ? bits : 1))) & max;
    default: return pktgen_next(r) & max;
    }
}

/* Damage: one bit of buf[0, n) flipped at random (n > 0); the bit is drawn
   before the byte. */
UTIL_FN void pktgen_flip_bit(pktgen_rng *r, uint8_t *buf, size_t n)
{
    uint8_t bit = (uint8_t)(1u << (pktgen_next(r) % 8));
    buf[pktgen_next(r) % n] ^= bit;
}

/* Restrictions for a generated packet */
#define PKTGEN_LIBIPT_205 1u  /* only what Debian's libipt 2.0.5 decodes the same way */
#define PKTGEN_NO_RESERVED 2u /* reserved fields zero */
#define PKTGEN_TYPICAL 4u     /* values as hardware makes them (small CYC counts, mostly
                             compressed IPs, long TNT-64s) rather than edge cases */

/* Fills *p with a random valid packet of type t; ctx is the block context
   (a BIP takes its item size from it; outside a block, BIP has 8 bytes). */
UTIL_FN void pktgen_packet(pktgen_rng *r, ptc_packet_type t, ptc_block_ctx ctx, unsigned flags, ptc_packet *p)
{
    int rsv = !(flags & (PKTGEN_NO_RESERVED | PKTGEN_LIBIPT_205)) && pktgen_next(r) % 4 == 0;
    memset(p, 0, sizeof *p);
    p->type = t;
    switch (t) {
    case PTC_TNT8: case PTC_TNT64: {
        unsigned c = (unsigned)pktgen_range(r, 1, t == PTC_TNT8 ? 6 : 47);
        if (t == PTC_TNT64 && (flags & PKTGEN_TYPICAL)) c = 47; /* hardware fills TNT-64s */
        p->u.tnt.count = (uint8_t)c;
        p->u.tnt.bits = pktgen_bits(r, c);
        /* Inside a PEBS block a TNT-8 byte ending in 100b reads as a BIP:
           make the newest branch taken so the byte ends in x10b. */
        if (t == PTC_TNT8 && ctx != PTC_BLOCK_NONE) p->u.tnt.bits |= 1;
        break;
    }
    case PTC_TIP: case PTC_TIP_PGE: case PTC_TIP_PGD: case PTC_FUP: {
        static const uint8_t ipcs[6] = { 0, 1, 2, 3, 4, 6 };
        /* typical: 10% suppressed, 30% update16, 40% update32, 15% sext48, 5% full */
        static const uint8_t typical[20] = { 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 6 };
        static const uint8_t width[7] = { 0, 16, 32, 48, 48, 0, 64 };
        uint8_t ipc = (flags & PKTGEN_TYPICAL) ? typical[pktgen_next(r) % 20] : ipcs[pktgen_next(r) % 6];
        p->u.ip.ipc = ipc;
        p->u.ip.payload = width[ipc] ? pktgen_bits(r, width[ipc]) : 0;
        break;
    }
    case PTC_MODE_EXEC:
        p->u.mode_exec.csl = (uint8_t)(pktgen_next(r) & 1);
        p->u.mode_exec.csd = (uint8_t)(pktgen_next(r) & 1);
        p->u.mode_exec.if_flag = (uint8_t)(pktgen_next(r) & 1);
        if (flags & PKTGEN_LIBIPT_205) p->u.mode_exec.if_flag = 0;
        if (rsv) p->u.mode_exec.reserved = (uint8_t)(pktgen_next(r) & 3);
        break;
    case PTC_MODE_TSX:
        p->u.mode_tsx.intx = (uint8_t)(pktgen_next(r) & 1);
        p->u.mode_tsx.abrt = (uint8_t)(pktgen_next(r) & 1);
        if (rsv) p->u.mode_tsx.reserved = (uint8_t)(pktgen_next(r) & 7);
        break;
    case PTC_PIP:
        p->u.pip.cr3 = pktgen_bits(r, 47) << 5;
        p->u.pip.nr = (uint8_t)(pktgen_next(r) & 1);
        break;
    case PTC_VMCS: p->u.vmcs.base = pktgen_bits(r, 40) << 12; break;
    case PTC_TSC: p->u.tsc.tsc = pktgen_bits(r, 56); break;
    case PTC_TMA:
        p->u.tma.ctc = (uint16_t)pktgen_bits(r, 16);
        p->u.tma.fc = (uint16_t)pktgen_bits(r, 9);
        break;
    case PTC_MTC: p->u.mtc.ctc = (uint8_t)pktgen_bits(r, 8); break;
    case PTC_CYC:
        if (flags & PKTGEN_TYPICAL) { /* 70% fit one byte, 25% two, 5% three */
            uint64_t v = pktgen_next(r); /* (first: the operands of % are unsequenced) */
            p->u.cyc.cycles = v % (pktgen_next(r) % 20 < 14 ? 32 : pktgen_next(r) % 5 ? 4096 : 1u << 19);
        } else
            p->u.cyc.cycles = pktgen_bits(r, (unsigned)pktgen_range(r, 1, (flags & PKTGEN_LIBIPT_205) ? 61 : 64));
        break;
    case PTC_CBR:
        p->u.cbr.ratio = (uint8_t)pktgen_bits(r, 8);
        if (rsv) p->u.cbr.reserved = (uint8_t)pktgen_next(r);
        break;
    case PTC_MNT: p->u.mnt.payload = pktgen_bits(r, 64); break;
    case PTC_PTW:
        p->u.ptw.bytes = (pktgen_next(r) & 1) ? 8 : 4;
        p->u.ptw.ip = (uint8_t)(pktgen_next(r) & 1);
        p->u.ptw.payload = pktgen_bits(r, 8u * p->u.ptw.bytes);
        break;
    case PTC_EXSTOP: p->u.exstop.ip = (uint8_t)(pktgen_next(r) & 1); break;
    case PTC_MWAIT:
        p->u.mwait.hints = (uint32_t)pktgen_bits(r, 32);
        p->u.mwait.ext = (uint32_t)pktgen_bits(r, 32);
        break;
    case PTC_PWRE:
        p->u.pwre.state = (uint8_t)(pktgen_next(r) & 15);
        p->u.pwre.sub_state = (uint8_t)(pktgen_next(r) & 15);
        /* libipt 2.0.5 reads "hw" from byte 2 bit 3, the SDM from bit 7:
           set both or neither so both readings agree. */
        p->u.pwre.hw = (uint8_t)(pktgen_next(r) & 1);
        if (flags & PKTGEN_LIBIPT_205) p->u.pwre.reserved = (uint8_t)(p->u.pwre.hw << 3);
        else if (rsv) p->u.pwre.reserved = (uint8_t)(pktgen_next(r) & 0x7F);
        break;
    case PTC_PWRX:
        p->u.pwrx.last = (uint8_t)(pktgen_next(r) & 15);
        p->u.pwrx.deepest = (uint8_t)(pktgen_next(r) & 15);
        p->u.pwrx.wake = (uint8_t)(pktgen_next(r) & 15);
        if (flags & PKTGEN_LIBIPT_205) p->u.pwrx.wake &= 0xD; /* libipt drops bit 1 */
        if (rsv) p->u.pwrx.reserved = (uint32_t)(pktgen_next(r) & 0x0FFFFFFF);
        break;
    case PTC_BBP:
        p->u.bbp.sz = (uint8_t)(pktgen_next(r) & 1);
        p->u.bbp.block_type = (uint8_t)(pktgen_next(r) & 0x1F);
        if (rsv) p->u.bbp.reserved = (uint8_t)(pktgen_next(r) & 3);
        break;
    case PTC_BIP:
        p->u.bip.id = (uint8_t)(pktgen_next(r) & 0x1F);
        p->u.bip.bytes = ctx == PTC_BLOCK_4 ? 4 : 8;
        p->u.bip.value = pktgen_bits(r, 8u * p->u.bip.bytes);
        break;
    case PTC_BEP: p->u.bep.ip = (uint8_t)(pktgen_next(r) & 1); break;
    case PTC_CFE:
        p->u.cfe.ip = (uint8_t)(pktgen_next(r) & 1);
        p->u.cfe.cfe_type = (uint8_t)(pktgen_next(r) & 0x1F);
        p->u.cfe.vector = (uint8_t)pktgen_next(r);
        if (rsv) p->u.cfe.reserved = (uint8_t)(pktgen_next(r) & 3);
        break;
    case PTC_EVD:
        p->u.evd.evd_type = (uint8_t)(pktgen_next(r) & 0x1F);
        p->u.evd.payload = pktgen_bits(r, 64);
        if (rsv) p->u.evd.reserved = (uint8_t)(pktgen_next(r) & 7);
        break;
    case PTC_TRIG:
        p->u.trig.trbv = (uint8_t)pktgen_next(r);
        p->u.trig.ip = (uint8_t)(pktgen_next(r) & 1);
        p->u.trig.mult = (uint8_t)(pktgen_next(r) & 1);
        p->u.trig.icntv = (uint8_t)(pktgen_next(r) & 1);
        if (p->u.trig.icntv) p->u.trig.icnt = (uint16_t)pktgen_bits(r, 16);
        if (rsv) p->u.trig.reserved = (uint8_t)(pktgen_next(r) & 0x1F);
        break;
    default: /* PAD, PSB, PSBEND, OVF, STOP: nothing to choose */
        break;
    }
}

/* True for the packet types that Debian's libipt 2.0.5 knows. */
UTIL_FN int pktgen_known_to_libipt205(ptc_packet_type t)
{
    return t != PTC_CFE && t != PTC_EVD && t != PTC_TRIG && t != PTC_BBP &&
           t != PTC_BIP && t != PTC_BEP && t != PTC_NONE;
}

/* A packet mix: relative weights per type. */
typedef struct pktgen_mix { unsigned weight[PTC_PACKET_TYPE_COUNT]; } pktgen_mix;

/* Every type equally likely (BIP only inside blocks). */
UTIL_FN void pktgen_mix_uniform(pktgen_mix *m, unsigned flags)
{
    int t;
    memset(m, 0, sizeof *m);
    for (t = 1; t < PTC_PACKET_TYPE_COUNT; t++)
        m->weight[t] = (!(flags & PKTGEN_LIBIPT_205) || pktgen_known_to_libipt205((ptc_packet_type)t)) ? 1 : 0;
}

/* Control-flow heavy: what a branchy loop produces. */
UTIL_FN void pktgen_mix_dense(pktgen_mix *m)
{
    memset(m, 0, sizeof *m);
    m->weight[PTC_TNT8] = 60; m->weight[PTC_TNT64] = 6; m->weight[PTC_TIP] = 20;
    m->weight[PTC_FUP] = 3; m->weight[PTC_TIP_PGE] = 2; m->weight[PTC_TIP_PGD] = 2;
    m->weight[PTC_MODE_EXEC] = 1; m->weight[PTC_PIP] = 1; m->weight[PTC_PAD] = 2;
    m->weight[PTC_CYC] = 4; m->weight[PTC_MTC] = 1;
}

/* Timing heavy: straight-line code, mostly MTC and CYC. */
UTIL_FN void pktgen_mix_sparse(pktgen_mix *m)
{
    memset(m, 0, sizeof *m);
    m->weight[PTC_MTC] = 40; m->weight[PTC_CYC] = 40; m->weight[PTC_PAD] = 5;
    m->weight[PTC_TNT8] = 4; m->weight[PTC_TIP] = 2; m->weight[PTC_CBR] = 1;
    m->weight[PTC_TSC] = 1; m->weight[PTC_TMA] = 1;
}

UTIL_FN ptc_packet_type pktgen_pick(pktgen_rng *r, const pktgen_mix *m, ptc_block_ctx ctx)
{
    unsigned total = 0, t, x;
    for (t = 1; t < PTC_PACKET_TYPE_COUNT; t++)
        if (t != PTC_BIP || ctx != PTC_BLOCK_NONE) total += m->weight[t];
    if (!total) return PTC_PAD;
    x = (unsigned)(pktgen_next(r) % total);
    for (t = 1; t < PTC_PACKET_TYPE_COUNT; t++) {
        unsigned w = (t != PTC_BIP || ctx != PTC_BLOCK_NONE) ? m->weight[t] : 0;
        if (x < w) return (ptc_packet_type)t;
        x -= w;
    }
    return PTC_PAD;
}

/* Writes random packets from mix m into out until fewer than
   PTC_MAX_PACKET_SIZE bytes are left; a PSB every psb_every bytes (0: only
   one at the start). Records each packet in pkts[] (if not NULL, up to
   max_pkts) with its offset in offs[]. Returns the bytes written; *npkts
   gets the number of packets. */
UTIL_FN size_t pktgen_stream(pktgen_rng *r, const pktgen_mix *m, unsigned flags, size_t psb_every,
                        uint8_t *out, size_t cap, ptc_packet *pkts, size_t *offs,
                        size_t max_pkts, size_t *npkts)
{
    size_t len = 0, n = 0, next_psb = 0;
    ptc_block_ctx ctx = PTC_BLOCK_NONE;
    while (len + PTC_MAX_PACKET_SIZE <= cap) {
        ptc_packet p;
        size_t w = 0;
        if (len >= next_psb) {
            memset(&p, 0, sizeof p);
            p.type = PTC_PSB;
            next_psb = psb_every ? len + psb_every : (size_t)-1;
        } else {
            pktgen_packet(r, pktgen_pick(r, m, ctx), ctx, flags, &p);
        }
        if (ptc_encode_packet(&p, out + len, cap - len, &w) != PTC_OK) break;
        p.size = (uint8_t)w;
        if (pkts && n < max_pkts) { pkts[n] = p; if (offs) offs[n] = len; }
        n++;
        len += w;
        ctx = ptc_block_ctx_after(ctx, &p);
    }
    if (npkts) *npkts = n;
    return len;
}

#endif

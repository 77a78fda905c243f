/* libipt_allowlist.h - ptcodec against libipt 2.0.5 (Debian 12's libipt-dev):
   how a libipt packet compares with ours, and the one written list of the
   places where the two knowingly differ (SPEC.md 1.11 says the same, with
   the same reasons). Used by tests/test_libipt.c and fuzz/fuzz_diff_libipt.c.
   Link with libipt. */
#ifndef PTCODEC_LIBIPT_ALLOWLIST_H
#define PTCODEC_LIBIPT_ALLOWLIST_H

#include "../ptcodec.h"
#include <intel-pt.h>

#include <stdio.h>
#include <string.h>

#include "util.h"
#include "libipt_types.h"

/* The allowlist. Each entry: a short key and why it is not a bug. */
#define LIBIPT_ALLOWLIST(X) \
    X(LIBIPT_NEW_PACKET,  "libipt 2.0.5 does not know TRIG, CFE and EVD (libipt >= 2.1/2.2 does)") \
    X(LIBIPT_PEBS,        "PEBS via PT (BBP, BIP, BEP) is not in libipt; a BIP only exists inside a BBP block") \
    X(LIBIPT_CYC_10,      "a CYC with a count >= 2^61 needs 10 bytes; libipt's decoder stops at 9") \
    X(LIBIPT_PWRE_HW,     "PWRE hw: libipt reads byte 2 bit 3, the SDM and Linux perf bit 7") \
    X(LIBIPT_EXEC_IF,     "MODE.Exec IF (bit 2) came with event trace; libipt 2.0.5 ignores it") \
    X(LIBIPT_PWRX_BIT1,   "PWRX wake reason bit 1 is reserved; libipt drops it, ptcodec keeps it") \
    X(LIBIPT_SHORT_BAD_PSB, "a broken PSB with under 16 bytes left: libipt says eos (it checks the length first), ptcodec bad_psb")

enum libipt_reason {
    LIBIPT_NONE = 0,
#define LIBIPT_X(k, why) k,
    LIBIPT_ALLOWLIST(LIBIPT_X)
#undef LIBIPT_X
    LIBIPT_REASON_COUNT
};

UTIL_FN const char *libipt_reason_text(enum libipt_reason r)
{
    switch (r) {
#define LIBIPT_X(k, why) case k: return why;
    LIBIPT_ALLOWLIST(LIBIPT_X)
#undef LIBIPT_X
    default: return "not allowlisted";
    }
}

/* Field-by-field comparison, with the field-level allowlist entries
   (PWRE hw, MODE.Exec IF, PWRX bit 1) built in. Writes the first
   difference to why. */
UTIL_FN int libipt_same(const ptc_packet *o, const struct pt_packet *t, char *why, size_t cap)
{
#define LIBIPT_FIELD(cond, name) do { if (!(cond)) { snprintf(why, cap, "%s", name); return 0; } } while (0)
    LIBIPT_FIELD(libipt_type(o->type) == t->type, "type");
    LIBIPT_FIELD(o->size == t->size, "size");
    switch (o->type) {
    case PTC_TNT8: case PTC_TNT64:
        LIBIPT_FIELD(o->u.tnt.count == t->payload.tnt.bit_size, "tnt.count");
        LIBIPT_FIELD(o->u.tnt.bits == t->payload.tnt.payload, "tnt.bits");
        break;
    case PTC_TIP: case PTC_TIP_PGE: case PTC_TIP_PGD: case PTC_FUP:
        LIBIPT_FIELD(o->u.ip.ipc == (unsigned)t->payload.ip.ipc, "ip.ipc");
        LIBIPT_FIELD(o->u.ip.payload == t->payload.ip.ip, "ip.payload");
        break;
    case PTC_MODE_EXEC: /* LIBIPT_EXEC_IF: the IF bit is not compared */
        LIBIPT_FIELD(t->payload.mode.leaf == pt_mol_exec, "mode.leaf");
        LIBIPT_FIELD(o->u.mode_exec.csl == t->payload.mode.bits.exec.csl, "mode.exec.csl");
        LIBIPT_FIELD(o->u.mode_exec.csd == t->payload.mode.bits.exec.csd, "mode.exec.csd");
        break;
    case PTC_MODE_TSX:
        LIBIPT_FIELD(t->payload.mode.leaf == pt_mol_tsx, "mode.leaf");
        LIBIPT_FIELD(o->u.mode_tsx.intx == t->payload.mode.bits.tsx.intx, "mode.tsx.intx");
        LIBIPT_FIELD(o->u.mode_tsx.abrt == t->payload.mode.bits.tsx.abrt, "mode.tsx.abrt");
        break;
    case PTC_PIP:
        LIBIPT_FIELD(o->u.pip.cr3 == t->payload.pip.cr3, "pip.cr3");
        LIBIPT_FIELD(o->u.pip.nr == t->payload.pip.nr, "pip.nr");
        break;
    case PTC_VMCS: LIBIPT_FIELD(o->u.vmcs.base == t->payload.vmcs.base, "vmcs.base"); break;
    case PTC_TSC: LIBIPT_FIELD(o->u.tsc.tsc == t->payload.tsc.tsc, "tsc"); break;
    case PTC_TMA:
        LIBIPT_FIELD(o->u.tma.ctc == t->payload.tma.ctc, "tma.ctc");
        LIBIPT_FIELD(o->u.tma.fc == t->payload.tma.fc, "tma.fc");
        break;
    case PTC_MTC: LIBIPT_FIELD(o->u.mtc.ctc == t->payload.mtc.ctc, "mtc.ctc"); break;
    case PTC_CYC: LIBIPT_FIELD(o->u.cyc.cycles == t->payload.cyc.value, "cyc"); break;
    case PTC_CBR: LIBIPT_FIELD(o->u.cbr.ratio == t->payload.cbr.ratio, "cbr.ratio"); break;
    case PTC_MNT: LIBIPT_FIELD(o->u.mnt.payload == t->payload.mnt.payload, "mnt"); break;
    case PTC_PTW:
        LIBIPT_FIELD(o->u.ptw.bytes == (t->payload.ptw.plc ? 8 : 4), "ptw.bytes");
        LIBIPT_FIELD(o->u.ptw.ip == t->payload.ptw.ip, "ptw.ip");
        LIBIPT_FIELD(o->u.ptw.payload == t->payload.ptw.payload, "ptw.payload");
        break;
    case PTC_EXSTOP: LIBIPT_FIELD(o->u.exstop.ip == t->payload.exstop.ip, "exstop.ip"); break;
    case PTC_MWAIT:
        LIBIPT_FIELD(o->u.mwait.hints == t->payload.mwait.hints, "mwait.hints");
        LIBIPT_FIELD(o->u.mwait.ext == t->payload.mwait.ext, "mwait.ext");
        break;
    case PTC_PWRE: /* LIBIPT_PWRE_HW: libipt's hw is our byte-2 bit 3 */
        LIBIPT_FIELD(o->u.pwre.state == t->payload.pwre.state, "pwre.state");
        LIBIPT_FIELD(o->u.pwre.sub_state == t->payload.pwre.sub_state, "pwre.sub_state");
        LIBIPT_FIELD(((o->u.pwre.reserved >> 3) & 1) == t->payload.pwre.hw, "pwre.hw (bit 3)");
        break;
    case PTC_PWRX: /* LIBIPT_PWRX_BIT1 */
        LIBIPT_FIELD(o->u.pwrx.last == t->payload.pwrx.last, "pwrx.last");
        LIBIPT_FIELD(o->u.pwrx.deepest == t->payload.pwrx.deepest, "pwrx.deepest");
        LIBIPT_FIELD((o->u.pwrx.wake & 1) == t->payload.pwrx.interrupt, "pwrx.interrupt");
        LIBIPT_FIELD(((o->u.pwrx.wake >> 2) & 1) == t->payload.pwrx.store, "pwrx.store");
        LIBIPT_FIELD(((o->u.pwrx.wake >> 3) & 1) == t->payload.pwrx.autonomous, "pwrx.autonomous");
        break;
    default: break;
    }
    return 1;
#undef LIBIPT_FIELD
}

/* When the two decoders disagree at the packet starting at b (avail bytes,
   block context blk; ours returned st and, if OK, packet o; libipt rc),
   the allowlist entry that explains it, or LIBIPT_NONE. The opcode bytes
   decide, so a truncated or damaged TRIG is still a TRIG. After an
   allowlisted disagreement the two streams may no longer be aligned, so
   callers stop comparing. The field-level entries (LIBIPT_PWRE_HW, LIBIPT_EXEC_IF,
   LIBIPT_PWRX_BIT1) are applied by libipt_same() and never end a comparison. */
UTIL_FN enum libipt_reason libipt_explain(const uint8_t *b, size_t avail, ptc_block_ctx blk,
                                ptc_status st, const ptc_packet *o, int rc)
{
    if (avail >= 1 && b[0] == 0xD9) return LIBIPT_NEW_PACKET;
    if (avail >= 2 && b[0] == 0x02 && (b[1] == 0x13 || b[1] == 0x53)) return LIBIPT_NEW_PACKET;
    if (avail >= 2 && b[0] == 0x02 && (b[1] == 0x63 || (b[1] & 0x7F) == 0x33)) return LIBIPT_PEBS;
    if (avail >= 1 && blk != PTC_BLOCK_NONE && (b[0] & 7) == 4) return LIBIPT_PEBS;
    if (st == PTC_OK && o->type == PTC_CYC && o->size == 10 && rc == -pte_bad_packet) return LIBIPT_CYC_10;
    if (st == PTC_ERR_BAD_PSB && avail < 16 && rc == -pte_eos) return LIBIPT_SHORT_BAD_PSB;
    return LIBIPT_NONE;
}

/* Our packet as libipt's, for its encoder. Returns 0 for types libipt does
   not have. */
UTIL_FN int libipt_to_libipt(const ptc_packet *o, struct pt_packet *t)
{
    memset(t, 0, sizeof *t);
    t->type = libipt_type(o->type);
    if (t->type == ppt_invalid) return 0;
    switch (o->type) {
    case PTC_TNT8: case PTC_TNT64:
        t->payload.tnt.bit_size = o->u.tnt.count;
        t->payload.tnt.payload = o->u.tnt.bits;
        break;
    case PTC_TIP: case PTC_TIP_PGE: case PTC_TIP_PGD: case PTC_FUP:
        t->payload.ip.ipc = (enum pt_ip_compression)o->u.ip.ipc;
        t->payload.ip.ip = o->u.ip.payload;
        break;
    case PTC_MODE_EXEC:
        t->payload.mode.leaf = pt_mol_exec;
        t->payload.mode.bits.exec.csl = o->u.mode_exec.csl;
        t->payload.mode.bits.exec.csd = o->u.mode_exec.csd;
        break;
    case PTC_MODE_TSX:
        t->payload.mode.leaf = pt_mol_tsx;
        t->payload.mode.bits.tsx.intx = o->u.mode_tsx.intx;
        t->payload.mode.bits.tsx.abrt = o->u.mode_tsx.abrt;
        break;
    case PTC_PIP: t->payload.pip.cr3 = o->u.pip.cr3; t->payload.pip.nr = o->u.pip.nr; break;
    case PTC_VMCS: t->payload.vmcs.base = o->u.vmcs.base; break;
    case PTC_TSC: t->payload.tsc.tsc = o->u.tsc.tsc; break;
    case PTC_TMA: t->payload.tma.ctc = o->u.tma.ctc; t->payload.tma.fc = o->u.tma.fc; break;
    case PTC_MTC: t->payload.mtc.ctc = o->u.mtc.ctc; break;
    case PTC_CYC: t->payload.cyc.value = o->u.cyc.cycles; break;
    case PTC_CBR: t->payload.cbr.ratio = o->u.cbr.ratio; break;
    case PTC_MNT: t->payload.mnt.payload = o->u.mnt.payload; break;
    case PTC_PTW:
        t->payload.ptw.plc = o->u.ptw.bytes == 8 ? 1 : 0;
        t->payload.ptw.ip = o->u.ptw.ip;
        t->payload.ptw.payload = o->u.ptw.payload;
        break;
    case PTC_EXSTOP: t->payload.exstop.ip = o->u.exstop.ip; break;
    case PTC_MWAIT: t->payload.mwait.hints = o->u.mwait.hints; t->payload.mwait.ext = o->u.mwait.ext; break;
    case PTC_PWRE:
        t->payload.pwre.state = o->u.pwre.state;
        t->payload.pwre.sub_state = o->u.pwre.sub_state;
        t->payload.pwre.hw = (o->u.pwre.reserved >> 3) & 1;
        break;
    case PTC_PWRX:
        t->payload.pwrx.last = o->u.pwrx.last;
        t->payload.pwrx.deepest = o->u.pwrx.deepest;
        t->payload.pwrx.interrupt = o->u.pwrx.wake & 1;
        t->payload.pwrx.store = (o->u.pwrx.wake >> 2) & 1;
        t->payload.pwrx.autonomous = (o->u.pwrx.wake >> 3) & 1;
        break;
    default: break;
    }
    return 1;
}

/* A libipt packet decoder over [b, b+n), set at offset 0 (no sync), or
   NULL. */
/* libipt's packet decoder at offset 0, told of erratum SKZ84 or not. */
UTIL_FN struct pt_packet_decoder *libipt_decoder_at_0_errata(const uint8_t *b, size_t n, int skz84)
{
    struct pt_config cfg;
    struct pt_packet_decoder *d;
    pt_config_init(&cfg);
    cfg.errata.skz84 = skz84 ? 1 : 0;
    cfg.begin = (uint8_t *)b;
    cfg.end = (uint8_t *)b + n;
    d = pt_pkt_alloc_decoder(&cfg);
    if (d && pt_pkt_sync_set(d, 0) < 0) { pt_pkt_free_decoder(d); d = NULL; }
    return d;
}

UTIL_FN struct pt_packet_decoder *libipt_decoder_at_0(const uint8_t *b, size_t n) { return libipt_decoder_at_0_errata(b, n, 0); }

/* The outcome of walking the same bytes through both decoders. */
typedef struct libipt_walk {
    size_t packets;        /* packets both decoded alike */
    size_t at;             /* where the walk ended */
    enum libipt_reason reason; /* LIBIPT_NONE, or the allowlist entry that ended it */
    int mismatch;          /* 1: an unexplained difference, described in why */
    char why[96];
} libipt_walk;

/* Decodes b[0..n) from offset 0 in ptcodec (ptc_decode_packet) and in
   libipt (pt_pkt_next), packet by packet, until the end, the first error
   (which must be of the same class at the same offset in both) or the
   first allowlisted difference. */
UTIL_FN libipt_walk libipt_compare_walk(const uint8_t *b, size_t n)
{
    libipt_walk w;
    struct pt_packet_decoder *d = libipt_decoder_at_0(b, n);
    ptc_block_ctx blk = PTC_BLOCK_NONE;
    memset(&w, 0, sizeof w);
    if (!d) {
        w.mismatch = 1;
        snprintf(w.why, sizeof w.why, "libipt would not decode %zu bytes", n);
        return w;
    }
    for (;;) {
        struct pt_packet t;
        ptc_packet o;
        ptc_status st;
        int rc;
        ptdiff_said co, ct;
        if (w.at == n) {
            if (pt_pkt_next(d, &t, sizeof t) != -pte_eos) {
                w.mismatch = 1;
                snprintf(w.why, sizeof w.why, "libipt found a packet after the end");
            }
            break;
        }
        st = ptc_decode_packet(b + w.at, n - w.at, blk, &o);
        rc = pt_pkt_next(d, &t, sizeof t);
        co = ptdiff_said_of_status(st);
        ct = libipt_said_of_libipt(rc);
        if (co != ct || (co == PTDIFF_PACKET && !libipt_same(&o, &t, w.why, sizeof w.why))) {
            w.reason = libipt_explain(b + w.at, n - w.at, blk, st, &o, rc);
            if (w.reason != LIBIPT_NONE) break;
            w.mismatch = 1;
            if (co != ct)
                snprintf(w.why, sizeof w.why, "ptcodec %s, libipt %s", ptc_status_name(st),
                         rc < 0 ? pt_errstr(pt_errcode(rc)) : "ok");
            break;
        }
        if (co != PTDIFF_PACKET) break; /* the same error class at the same offset */
        w.packets++;
        w.at += o.size;
        blk = ptc_block_ctx_after(blk, &o);
    }
    pt_pkt_free_decoder(d);
    return w;
}

/* The same bytes through ptcodec's stream decoder with PTC_DECODE_SKZ84
   (from offset 0) and libipt's packet decoder told of erratum SKZ84, as
   libipt_compare_walk compares them: each corrupt_tma item is libipt's invalid
   packet at the same offset (*corrupt counts them). A stream decoder's
   psb_overlap (SPEC 1.9 rule 2, which libipt does not have) ends the walk.
   0 and why: they differ. */
UTIL_FN int libipt_compare_skz84_walk(const uint8_t *b, size_t n, size_t *corrupt, char *why, size_t cap)
{
    struct pt_packet_decoder *d = libipt_decoder_at_0_errata(b, n, 1);
    ptc_decoder dec;
    ptc_item it;
    ptc_block_ctx blk = PTC_BLOCK_NONE;
    int ok = 1;
    *corrupt = 0;
    if (!d) {
        snprintf(why, cap, "libipt would not decode %zu bytes", n);
        return 0;
    }
    ptc_decoder_init_buffer(&dec, PTC_DECODE_NO_SYNC | PTC_DECODE_SKZ84, b, n);
    while (ok && ptc_decoder_next(&dec, &it) == PTC_OK && it.error != PTC_ERR_PSB_OVERLAP) {
        struct pt_packet t;
        uint64_t at = 0;
        int rc = pt_pkt_get_offset(d, &at) < 0 ? -pte_internal : pt_pkt_next(d, &t, sizeof t);
        ptdiff_said co = ptdiff_said_of_status(it.error), ct = libipt_said_of_libipt(rc);
        if (it.error == PTC_ERR_CORRUPT_TMA) {
            (*corrupt)++;
            ok = rc >= 0 && t.type == ppt_invalid && at == it.offset;
            if (!ok) snprintf(why, cap, "ptcodec's corrupt TMA at %llu, libipt's %s at %llu",
                              (unsigned long long)it.offset, rc < 0 ? pt_errstr(pt_errcode(rc)) : "packet",
                              (unsigned long long)at);
            continue;
        }
        if (co != ct || at != it.offset || (co == PTDIFF_PACKET && !libipt_same(&it.pkt, &t, why, cap))) {
            if (libipt_explain(b + it.offset, n - it.offset, blk, it.error, &it.pkt, rc) != LIBIPT_NONE) break;
            if (co != ct || at != it.offset)
                snprintf(why, cap, "at %llu ptcodec %s, libipt %s at %llu", (unsigned long long)it.offset,
                         ptc_status_name(it.error), rc < 0 ? pt_errstr(pt_errcode(rc)) : "ok", (unsigned long long)at);
            ok = 0;
        }
        if (co != PTDIFF_PACKET) break; /* the same error class at the same offset */
        blk = ptc_block_ctx_after(blk, &it.pkt);
    }
    pt_pkt_free_decoder(d);
    return ok;
}

/* The overflows libipt's query decoder reports in a stream (told of
   erratum SKD007 or not), walked from its first PSB by answering each
   query it allows (as bench/timecmp.c does). *to_end: it reached the end
   without an error. */
UTIL_FN size_t libipt_query_overflows(const uint8_t *b, size_t n, int skd007, int *to_end)
{
    struct pt_config cfg;
    struct pt_query_decoder *q;
    size_t overflows = 0;
    uint64_t ip;
    int st;
    pt_config_init(&cfg);
    cfg.errata.skd007 = skd007 ? 1 : 0;
    cfg.begin = (uint8_t *)b;
    cfg.end = (uint8_t *)b + n;
    *to_end = 0;
    q = pt_qry_alloc_decoder(&cfg);
    if (!q) return 0;
    st = pt_qry_sync_forward(q, &ip);
    while (st >= 0) {
        int taken;
        while (st >= 0 && (st & pts_event_pending)) {
            struct pt_event ev;
            st = pt_qry_event(q, &ev, sizeof ev);
            if (st >= 0 && ev.type == ptev_overflow) overflows++;
        }
        if (st < 0 || (st & pts_eos)) break;
        st = pt_qry_cond_branch(q, &taken);
        if (st == -pte_bad_query) st = pt_qry_indirect_branch(q, &ip);
        if (st == -pte_bad_query) st = pts_event_pending; /* an event it did not flag */
    }
    *to_end = st >= 0 || st == -pte_eos;
    pt_qry_free_decoder(q);
    return overflows;
}

#endif

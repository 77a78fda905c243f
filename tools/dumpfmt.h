/* dumpfmt.h - how ptdump prints an item: libipt's ptdump text layout and
   JSON lines (SPEC.md 1.10). Shared by tools/ptdump.c and the tests that
   compare its output with libipt's. Include after ptcodec.h. */
#ifndef PTCODEC_DUMPFMT_H
#define PTCODEC_DUMPFMT_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* A bounded string builder: output past cap is dropped, never overrun. */
typedef struct df_buf { char *s; size_t cap, len; } df_buf;

UT_FN void df_printf(df_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (b->len >= b->cap) return;
    va_start(ap, fmt);
    n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n > 0) b->len += (size_t)n < b->cap - b->len ? (size_t)n : b->cap - b->len - 1;
}

typedef unsigned long long df_u64;

/* The plain writers. They write what df_printf would for "%s", "%llx",
   "%0*llx" and "%llu", with no format string to parse: a listing is mostly
   these, and printf's parsing was most of ptdump's time (bench/README.md,
   "Tools"). Bounded the same way. */
UT_FN void df_put(df_buf *b, const char *s, size_t n)
{
    if (b->len >= b->cap) return;
    if (n > b->cap - b->len - 1) n = b->cap - b->len - 1;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

UT_FN void df_str(df_buf *b, const char *s) { df_put(b, s, strlen(s)); }

/* v in lower-case hex, with at least `width` digits (zeros in front) */
UT_FN void df_hex(df_buf *b, uint64_t v, unsigned width)
{
    char t[16];
    unsigned n = 0;
    do {
        t[15 - n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    while (n < width && n < sizeof t) t[15 - n++] = '0';
    df_put(b, t + sizeof t - n, n);
}

UT_FN void df_dec(df_buf *b, uint64_t v)
{
    char t[20];
    unsigned n = 0;
    do {
        t[19 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    df_put(b, t + sizeof t - n, n);
}

/* the branch outcomes, oldest first: `taken` for 1, `not_taken` for 0 */
UT_FN void df_tnt(df_buf *b, const ptc_packet *p, char taken, char not_taken)
{
    char t[64];
    int i, n = 0;
    for (i = (int)p->u.tnt.count - 1; i >= 0; i--) t[n++] = ((p->u.tnt.bits >> i) & 1) ? taken : not_taken;
    df_put(b, t, (size_t)n);
}

UT_FN const char *df_cfe_name(unsigned t)
{
    static const char *names[] = { "", "intr", "iret", "smi", "rsm", "sipi", "init", "vmentry",
                                   "vmexit", "vmexit_intr", "shutdown", "", "uintr", "uiret" };
    return t < sizeof names / sizeof names[0] && names[t][0] ? names[t] : "unknown";
}

UT_FN int df_cfe_has_vector(unsigned t) { return t == 1 || t == 5 || t == 9 || t == 12; }

UT_FN const char *df_evd_name(unsigned t)
{
    return t == 0 ? "pfa" : t == 1 ? "vmxq" : t == 2 ? "vmxr" : "unknown";
}

/* The IP as libipt's ptdump shows it: '?' for digits taken from the last IP. */
UT_FN void df_ip_text(df_buf *b, const ptc_packet *p)
{
    uint64_t v = p->u.ip.payload;
    switch (p->u.ip.ipc) {
    case PTC_IPC_SUPPRESSED: df_str(b, "0: ????????????????"); break;
    case PTC_IPC_UPDATE_16: df_str(b, "1: ????????????"); df_hex(b, v, 4); break;
    case PTC_IPC_UPDATE_32: df_str(b, "2: ????????"); df_hex(b, v, 8); break;
    case PTC_IPC_SEXT_48:
        if (v & (UINT64_C(1) << 47)) v |= ~UINT64_C(0xFFFFFFFFFFFF);
        df_str(b, "3: ");
        df_hex(b, v, 16);
        break;
    case PTC_IPC_UPDATE_48: df_str(b, "4: ????"); df_hex(b, v, 12); break;
    default: df_printf(b, "%u: %016llx", p->u.ip.ipc, (df_u64)v); break;
    }
}

/* Comma-separated flags: adds ", " between words. */
UT_FN void df_flag(df_buf *b, int *first, int on, const char *word)
{
    if (!on) return;
    df_printf(b, "%s%s", *first ? "" : ", ", word);
    *first = 0;
}

/* One text line (without newline) for an item. */
UT_FN void df_text(df_buf *b, const ptc_item *it)
{
    const ptc_packet *p = &it->pkt;
    size_t payload_at;
    int first = 1;
    if (it->error != PTC_OK) {
        df_printf(b, "[%llx: error decoding packet: %s (%s)]", (df_u64)it->offset,
                  ptc_status_message(it->error), ptc_status_name(it->error));
        return;
    }
    {
        const char *name = ptc_packet_type_dump_name(p->type);
        size_t n = strlen(name);
        df_hex(b, it->offset, 16);
        df_put(b, "  ", 2);
        df_put(b, name, n);
        df_put(b, "           ", (n < 10 ? 10 - n : 0) + 1); /* "%-10s " */
    }
    payload_at = b->len;
    switch (p->type) {
    case PTC_TNT8: case PTC_TNT64: df_tnt(b, p, '!', '.'); break;
    case PTC_TIP: case PTC_TIP_PGE: case PTC_TIP_PGD: case PTC_FUP: df_ip_text(b, p); break;
    case PTC_MODE_EXEC:
        df_flag(b, &first, p->u.mode_exec.csl, "cs.l");
        df_flag(b, &first, p->u.mode_exec.csd, "cs.d");
        df_flag(b, &first, p->u.mode_exec.if_flag, "if");
        break;
    case PTC_MODE_TSX:
        df_flag(b, &first, p->u.mode_tsx.intx, "intx");
        df_flag(b, &first, p->u.mode_tsx.abrt, "abrt");
        break;
    case PTC_PIP:
        df_printf(b, "%llx%s", (df_u64)p->u.pip.cr3, p->u.pip.nr ? ", nr" : "");
        break;
    case PTC_VMCS: df_printf(b, "%llx", (df_u64)p->u.vmcs.base); break;
    case PTC_TSC: df_hex(b, p->u.tsc.tsc, 0); break;
    case PTC_TMA: df_printf(b, "%x, %x", p->u.tma.ctc, p->u.tma.fc); break;
    case PTC_MTC: df_hex(b, p->u.mtc.ctc, 0); break;
    case PTC_CYC: df_hex(b, p->u.cyc.cycles, 0); break;
    case PTC_CBR: df_printf(b, "%x", p->u.cbr.ratio); break;
    case PTC_MNT: df_printf(b, "%llx", (df_u64)p->u.mnt.payload); break;
    case PTC_PTW:
        df_printf(b, "%u: %llx%s", p->u.ptw.bytes == 8 ? 1u : 0u, (df_u64)p->u.ptw.payload,
                  p->u.ptw.ip ? ", ip" : "");
        break;
    case PTC_EXSTOP: df_flag(b, &first, p->u.exstop.ip, "ip"); break;
    case PTC_BEP: df_flag(b, &first, p->u.bep.ip, "ip"); break;
    case PTC_MWAIT: df_printf(b, "%08x, %08x", p->u.mwait.hints, p->u.mwait.ext); break;
    case PTC_PWRE:
        df_printf(b, "c%u.%u%s", (p->u.pwre.state + 1u) & 15u, (p->u.pwre.sub_state + 1u) & 15u,
                  p->u.pwre.hw ? ", hw" : "");
        break;
    case PTC_PWRX:
        df_flag(b, &first, p->u.pwrx.wake & 1, "int");
        df_flag(b, &first, p->u.pwrx.wake & 4, "st");
        df_flag(b, &first, p->u.pwrx.wake & 8, "hw");
        df_printf(b, "%s: c%u, c%u", first ? "none" : "", (p->u.pwrx.last + 1u) & 15u,
                  (p->u.pwrx.deepest + 1u) & 15u);
        break;
    case PTC_CFE:
        df_printf(b, "%x", p->u.cfe.cfe_type);
        if (df_cfe_has_vector(p->u.cfe.cfe_type)) df_printf(b, ": %u", p->u.cfe.vector);
        if (p->u.cfe.ip) df_printf(b, ", ip");
        break;
    case PTC_EVD: df_printf(b, "%x: %llx", p->u.evd.evd_type, (df_u64)p->u.evd.payload); break;
    case PTC_TRIG:
        df_printf(b, "%x", p->u.trig.trbv);
        if (p->u.trig.ip) df_printf(b, ", ip");
        if (p->u.trig.mult) df_printf(b, ", mult");
        if (p->u.trig.icntv) df_printf(b, ", icnt: %u", p->u.trig.icnt);
        break;
    case PTC_BBP: df_printf(b, "%x, %u", p->u.bbp.block_type, p->u.bbp.sz ? 4u : 8u); break;
    case PTC_BIP: df_printf(b, "%x: %llx", p->u.bip.id, (df_u64)p->u.bip.value); break;
    default: break;
    }
    /* a second column, as libipt prints for some packets */
    if (p->type == PTC_PIP || p->type == PTC_VMCS || p->type == PTC_CFE || p->type == PTC_EVD) {
        while (b->len < payload_at + 21 && b->len + 1 < b->cap) df_printf(b, " ");
        if (p->type == PTC_PIP) df_printf(b, "cr3 %016llx", (df_u64)p->u.pip.cr3);
        if (p->type == PTC_VMCS) df_printf(b, "vmcs %016llx", (df_u64)p->u.vmcs.base);
        if (p->type == PTC_CFE) df_printf(b, "type %s", df_cfe_name(p->u.cfe.cfe_type));
        if (p->type == PTC_EVD) df_printf(b, "type %s", df_evd_name(p->u.evd.evd_type));
    }
    while (b->len > 0 && b->s[b->len - 1] == ' ') b->s[--b->len] = 0;
}

/* ,"k":"v" with v escaped for JSON (it may come from a file: quotes,
   backslashes and control bytes are written as escapes). */
UT_FN void df_json_string(df_buf *b, const char *k, const char *v)
{
    df_printf(b, ",\"%s\":\"", k);
    for (; *v; v++) {
        unsigned char ch = (unsigned char)*v;
        if (ch == '"' || ch == '\\') df_printf(b, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f) df_printf(b, "\\u%04x", ch);
        else df_printf(b, "%c", ch);
    }
    df_printf(b, "\"");
}

/* ,"k": */
UT_FN void df_json_key(df_buf *b, const char *k)
{
    df_put(b, ",\"", 2);
    df_str(b, k);
    df_put(b, "\":", 2);
}
UT_FN void df_json_bool(df_buf *b, const char *k, unsigned v)
{
    df_json_key(b, k);
    if (v) df_put(b, "true", 4); else df_put(b, "false", 5);
}
UT_FN void df_json_int(df_buf *b, const char *k, df_u64 v)
{
    df_json_key(b, k);
    df_dec(b, v);
}
UT_FN void df_json_hex(df_buf *b, const char *k, df_u64 v)
{
    df_json_key(b, k);
    df_put(b, "\"0x", 3);
    df_hex(b, v, 0);
    df_put(b, "\"", 1);
}

/* One field of a packet, as PTC_PACKET_FIELD_LIST's form says. *skip: the
   row before was a presence flag that was clear. */
UT_FN void df_json_field(df_buf *b, const ptc_packet *p, const char *name, ptc_field_form form, uint64_t v,
                         int *skip)
{
    if (*skip) { *skip = 0; return; }
    switch (form) {
    case PTC_FF_INT: df_json_int(b, name, v); break;
    case PTC_FF_HEX: df_json_hex(b, name, v); break;
    case PTC_FF_BOOL: df_json_bool(b, name, (unsigned)v); break;
    case PTC_FF_RESERVED: if (v) df_json_int(b, name, v); break;
    case PTC_FF_PRESENCE: *skip = !v; break;
    case PTC_FF_TNT_BITS: /* (v is p's tnt.bits) */
        df_json_key(b, name);
        df_put(b, "\"", 1);
        df_tnt(b, p, '1', '0');
        df_put(b, "\"", 1);
        break;
    }
}

/* One JSON object (without newline) for an item: its offset, size, type
   and the fields of PTC_PACKET_FIELD_LIST, and for IP packets the IP
   after decompression when all of it is known. */
UT_FN void df_json(df_buf *b, const ptc_item *it)
{
    const ptc_packet *p = &it->pkt;
    int skip = 0;
    if (it->error != PTC_OK) {
        df_printf(b, "{\"off\":%llu,\"error\":\"%s\",\"msg\":\"%s\"}", (df_u64)it->offset,
                  ptc_status_name(it->error), ptc_status_message(it->error));
        return;
    }
    df_put(b, "{\"off\":", 7);
    df_dec(b, it->offset);
    df_put(b, ",\"size\":", 8);
    df_dec(b, p->size);
    df_put(b, ",\"type\":\"", 9);
    df_str(b, ptc_packet_type_name(p->type));
    df_put(b, "\"", 1);
#define DF_X(t, member, field, name, form) \
    if (p->type == t) df_json_field(b, p, name, form, (uint64_t)p->u.member.field, &skip);
    PTC_PACKET_FIELD_LIST(DF_X)
#undef DF_X
    if (ptc_packet_is_ip(p->type) && it->ip_known) df_json_hex(b, "full_ip", it->ip);
    df_put(b, "}", 1);
}

/* ptdump --time (SPEC.md 3.9): the time of an item, appended to its line.
   The text column starts at a fixed position so times line up. */
UT_FN void df_time_text(df_buf *b, const ptc_timed_item *t)
{
    if (!t->have_time) return;
    while (b->len < 52 && b->len + 1 < b->cap) b->s[b->len++] = ' ';
    b->s[b->len < b->cap ? b->len : b->cap - 1] = 0;
    df_str(b, "  time ");
    df_hex(b, t->tsc, 0);
    df_str(b, " [");
    df_hex(b, t->tsc_lo, 0);
    df_str(b, ", ");
    if (t->tsc_hi == UINT64_MAX) df_str(b, "?");
    else df_hex(b, t->tsc_hi, 0);
    df_str(b, "]");
    if (t->have_cycles) {
        df_str(b, " cycles ");
        df_dec(b, t->cycles);
    }
    if (t->conflict) df_str(b, " conflict");
}

UT_FN void df_time_json(df_buf *b, const ptc_timed_item *t)
{
    if (!t->have_time || b->len == 0 || b->s[b->len - 1] != '}') return;
    b->s[--b->len] = 0; /* reopen the object */
    df_json_hex(b, "time", t->tsc);
    df_json_hex(b, "time_lo", t->tsc_lo);
    if (t->tsc_hi == UINT64_MAX) df_str(b, ",\"time_hi\":null");
    else df_json_hex(b, "time_hi", t->tsc_hi);
    if (t->have_cycles) df_json_int(b, "cycles", t->cycles);
    if (t->conflict) df_json_bool(b, "conflict", 1);
    df_str(b, "}");
}

#endif

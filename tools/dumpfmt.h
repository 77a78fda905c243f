/* dumpfmt.h - how ptdump prints an item: libipt's ptdump text layout and
   JSON lines (SPEC.md 1.10). Shared by tools/ptdump.c and the tests that
   compare its output with libipt's. */
#ifndef PTCODEC_DUMPFMT_H
#define PTCODEC_DUMPFMT_H

#include "../ptcodec.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ptfields.h"
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
UT_FN inline void df_put(df_buf *b, const char *s, size_t n)
{
    if (b->len >= b->cap) return;
    if (n > b->cap - b->len - 1) n = b->cap - b->len - 1;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

/* df_put of n < width bytes from s, which has width bytes to read: where
   there is room, all width bytes are copied and n kept, since a copy of a
   size known when compiling is a few moves and any other a call. */
UT_FN inline void df_put_wide(df_buf *b, const char *s, size_t n, size_t width)
{
    if (b->len < b->cap && b->cap - b->len > width) {
        memcpy(b->s + b->len, s, width);
        b->len += n;
        b->s[b->len] = 0;
    } else {
        df_put(b, s, n);
    }
}

UT_FN void df_str(df_buf *b, const char *s) { df_put(b, s, strlen(s)); }

/* s, then spaces to `width` (<= 24) characters: "%-*s" */
UT_FN void df_str_padded(df_buf *b, const char *s, size_t width)
{
    static const char spaces[] = "                        ";
    size_t n = strlen(s);
    df_put(b, s, n);
    if (n < width) df_put(b, spaces, width - n < sizeof spaces - 1 ? width - n : sizeof spaces - 1);
}

/* Eight hex digits of x, most significant first, as the bytes of a
   word from its lowest byte up: each nibble spread to a byte of its own,
   then made a digit, all eight at once. */
UT_FN inline uint64_t df__hex8(uint32_t x)
{
    uint64_t v = (x >> 16) | ((uint64_t)(x & 0xFFFF) << 32); /* halves */
    uint64_t letters;
    v = ((v >> 8) & UINT64_C(0x000000FF000000FF)) | ((v & UINT64_C(0x000000FF000000FF)) << 16); /* bytes */
    v = ((v >> 4) & UINT64_C(0x000F000F000F000F)) | ((v & UINT64_C(0x000F000F000F000F)) << 8);  /* nibbles */
    letters = ((v + UINT64_C(0x0606060606060606)) >> 4) & UINT64_C(0x0101010101010101); /* 1 where >= 10 */
    return v + UINT64_C(0x3030303030303030) + letters * ('a' - '0' - 10);
}

UT_FN inline void df__store8(char *at, uint64_t digits)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(at, &digits, 8); /* (one store) */
#else
    int i;
    for (i = 0; i < 8; i++) at[i] = (char)(digits >> (8 * i));
#endif
}

/* How many hex digits v has (at least one) */
UT_FN inline unsigned df__hex_digits(uint64_t v)
{
#if defined(__GNUC__)
    return v ? (unsigned)(67 - __builtin_clzll(v)) / 4 : 1; /* (bits + 3) / 4 */
#else
    unsigned n = 1;
    while (v >>= 4) n++;
    return n;
#endif
}

/* v in lower-case hex, with at least `width` (<= 16) digits, zeros in front */
UT_FN void df_hex(df_buf *b, uint64_t v, unsigned width)
{
    unsigned n = df__hex_digits(v), lead;
    char t[16];
    if (n < width) n = width > 16 ? 16 : width;
    lead = 16 - n; /* (n >= 1) */
    v <<= 4 * lead; /* the digits to print first */
    if (b->len < b->cap && b->cap - b->len > 16) { /* room for all 16: write them, keep n */
        df__store8(b->s + b->len, df__hex8((uint32_t)(v >> 32)));
        if (n > 8) df__store8(b->s + b->len + 8, df__hex8((uint32_t)v));
        b->len += n;
        b->s[b->len] = 0;
        return;
    }
    df__store8(t, df__hex8((uint32_t)(v >> 32)));
    df__store8(t + 8, df__hex8((uint32_t)v));
    df_put(b, t, n);
}

/* "00" to "99", so that decimal numbers are written two digits a step */
#define DF__TENS(d) d "0" d "1" d "2" d "3" d "4" d "5" d "6" d "7" d "8" d "9"
static const char df__dec_pairs[] = DF__TENS("0") DF__TENS("1") DF__TENS("2") DF__TENS("3") DF__TENS("4")
    DF__TENS("5") DF__TENS("6") DF__TENS("7") DF__TENS("8") DF__TENS("9");
#undef DF__TENS

/* How many decimal digits v has (at least one) */
UT_FN inline unsigned df__dec_digits(uint64_t v)
{
    static const uint64_t tens[20] = {
        UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000), UINT64_C(100000),
        UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000),
        UINT64_C(10000000000), UINT64_C(100000000000), UINT64_C(1000000000000),
        UINT64_C(10000000000000), UINT64_C(100000000000000), UINT64_C(1000000000000000),
        UINT64_C(10000000000000000), UINT64_C(100000000000000000), UINT64_C(1000000000000000000),
        UINT64_C(10000000000000000000)
    };
    unsigned n;
    v |= 1; /* (0 has one digit, as 1 has) */
#if defined(__GNUC__)
    n = (unsigned)(64 - __builtin_clzll(v)) * 1233 >> 12; /* bits * log10(2): n or n - 1 digits */
#else
    n = 0;
    while (n < 19 && v >= tens[n + 1]) n++;
#endif
    return n + (v >= tens[n]);
}

/* The digits of v, ending at end (two at a step from the right) */
UT_FN inline void df__dec_write(char *end, uint64_t v)
{
    while (v >= 100) {
        end -= 2;
        memcpy(end, df__dec_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) memcpy(end - 2, df__dec_pairs + 2 * v, 2);
    else end[-1] = (char)('0' + v);
}

UT_FN void df_dec(df_buf *b, uint64_t v)
{
    unsigned n = df__dec_digits(v);
    char t[20];
    if (b->len < b->cap && b->cap - b->len > n) {
        df__dec_write(b->s + b->len + n, v);
        b->len += n;
        b->s[b->len] = 0;
        return;
    }
    df__dec_write(t + n, v);
    df_put(b, t, n);
}

/* the branch outcomes, oldest first: `taken` for 1, `not_taken` for 0.
   Eight at a step: multiplying a byte by 0x8040201008040201 puts its bit
   7 - k at bit 7 of byte k (the copies do not overlap, so nothing carries). */
UT_FN void df_tnt(df_buf *b, const ptc_packet *p, char taken, char not_taken)
{
    unsigned count = p->u.tnt.count < 64 ? p->u.tnt.count : 64, k;
    uint64_t v = count ? p->u.tnt.bits << (64 - count) : 0; /* the oldest at bit 63 */
    uint64_t flip = (unsigned char)(taken ^ not_taken), base = UINT64_C(0x0101010101010101) * (unsigned char)not_taken;
    char t[64], *at = b->len < b->cap && b->cap - b->len > 64 ? b->s + b->len : t;
    for (k = 0; k < count; k += 8, v <<= 8) {
        uint64_t ones = (((v >> 56) * UINT64_C(0x8040201008040201)) >> 7) & UINT64_C(0x0101010101010101);
        df__store8(at + k, base ^ ones * flip);
    }
    if (at == t) {
        df_put(b, t, count);
    } else {
        b->len += count;
        b->s[b->len] = 0;
    }
}

UT_FN const char *df_cfe_name(unsigned t)
{
    static const char *names[] = { "", "intr", "iret", "smi", "rsm", "sipi", "init", "vmentry",
                                   "vmexit", "vmexit_intr", "shutdown", "", "uintr", "uiret", "swintr", "syscall" };
    return t < sizeof names / sizeof names[0] && names[t][0] ? names[t] : "unknown";
}

/* The CFE types whose vector libipt 2.2's ptdump shows: in decimal (INTR,
   VMEXIT_INTR, UINTR, SWINTR), or in hex (SIPI's start page). */
UT_FN int df_cfe_vector_decimal(unsigned t) { return t == 1 || t == 9 || t == 12 || t == 14; }
UT_FN int df_cfe_vector_hex(unsigned t) { return t == 5; }

UT_FN const char *df_evd_name(unsigned t)
{
    return t == 0 ? "cr2" : t == 1 ? "vmxq" : t == 2 ? "vmxr" : "unknown"; /* (0: the page fault address) */
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
    default: /* the full IP, and any IPBytes value the SDM reserves */
        df_dec(b, p->u.ip.ipc);
        df_put(b, ": ", 2);
        df_hex(b, v, 16);
        break;
    }
}

/* Comma-separated flags: adds ", " between words. */
UT_FN void df_flag(df_buf *b, int *first, int on, const char *word)
{
    if (!on) return;
    if (!*first) df_put(b, ", ", 2);
    df_str(b, word);
    *first = 0;
}

/* What starts an item's line, for each packet type (PTC_PACKET_LIST's
   order is the type's value): the text's name column, "%-10s " of libipt's
   name, and JSON's type member. The text is the name and 11 spaces, of
   which a line takes the first 11: every name fits in 10 (and every JSON
   member in json[], for df_put_wide), or this does not compile. PTC_NONE
   is "none", as ptc_packet_type_name says. */
typedef struct df_type_words { char text[24], json[24]; unsigned json_len; } df_type_words;
#define DF__WORDS(e, json, dump, min, max, cls) { dump "           ", ",\"type\":\"" json "\"", sizeof(json) + 9 },
static const df_type_words df_type_words_of[] = {
    { "none           ", ",\"type\":\"none\"", 14 }, PTC_PACKET_LIST(DF__WORDS)
};
#undef DF__WORDS
#define DF__NAME_FITS(e, json, dump, min, max, cls) && sizeof(dump) <= 11 && sizeof(json) + 9 < 24
enum { df__names_fit = 1 / (1 PTC_PACKET_LIST(DF__NAME_FITS)) }; /* (a division by zero when one does not) */
#undef DF__NAME_FITS

UT_FN const df_type_words *df_words(ptc_packet_type t)
{
    return &df_type_words_of[(unsigned)t < PTC_PACKET_TYPE_COUNT ? (unsigned)t : 0];
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
    df_hex(b, it->offset, 16);
    df_put(b, "  ", 2);
    df_put_wide(b, df_words(p->type)->text, 11, 16);
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
        df_hex(b, p->u.pip.cr3, 0);
        if (p->u.pip.nr) df_put(b, ", nr", 4);
        break;
    case PTC_VMCS: df_hex(b, p->u.vmcs.base, 0); break;
    case PTC_TSC: df_hex(b, p->u.tsc.tsc, 0); break;
    case PTC_TMA:
        df_hex(b, p->u.tma.ctc, 0);
        df_put(b, ", ", 2);
        df_hex(b, p->u.tma.fc, 0);
        break;
    case PTC_MTC: df_hex(b, p->u.mtc.ctc, 0); break;
    case PTC_CYC: df_hex(b, p->u.cyc.cycles, 0); break;
    case PTC_CBR: df_hex(b, p->u.cbr.ratio, 0); break;
    case PTC_MNT: df_hex(b, p->u.mnt.payload, 0); break;
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
    case PTC_PWRX: {
        /* one reason as libipt 2.2 prints it (" st" and " hw" with its
           leading space); none, or more than one, which libipt calls
           "bad", named (SPEC 1.10) */
        unsigned reasons = p->u.pwrx.wake & 0xDu;
        if (reasons == 1u || reasons == 4u || reasons == 8u) {
            df_str(b, reasons == 1u ? "int" : reasons == 4u ? " st" : " hw");
        } else {
            df_flag(b, &first, reasons & 1u, "int");
            df_flag(b, &first, reasons & 4u, "st");
            df_flag(b, &first, reasons & 8u, "hw");
        }
        df_printf(b, "%s: c%u, c%u", reasons ? "" : "none", (p->u.pwrx.last + 1u) & 15u, (p->u.pwrx.deepest + 1u) & 15u);
        break;
    }
    case PTC_CFE:
        df_printf(b, "%u", p->u.cfe.cfe_type);
        if (df_cfe_vector_decimal(p->u.cfe.cfe_type)) df_printf(b, ": %u", p->u.cfe.vector);
        if (df_cfe_vector_hex(p->u.cfe.cfe_type)) df_printf(b, ": %x", p->u.cfe.vector);
        if (p->u.cfe.ip) df_printf(b, ", ip");
        break;
    case PTC_EVD: df_printf(b, "%u: %llx", p->u.evd.evd_type, (df_u64)p->u.evd.payload); break;
    case PTC_TRIG:
        df_printf(b, "%02x", p->u.trig.trbv);
        if (p->u.trig.ip) df_printf(b, ", ip");
        if (p->u.trig.mult) df_printf(b, ", mult");
        if (p->u.trig.icntv) df_printf(b, ", icnt: %u", p->u.trig.icnt);
        break;
    case PTC_BBP: df_printf(b, "%x, %u", p->u.bbp.block_type, p->u.bbp.sz ? 4u : 8u); break;
    case PTC_BIP: df_printf(b, "%x: %llx", p->u.bip.id, (df_u64)p->u.bip.value); break;
    default: break;
    }
    /* a second column, as libipt 2.2's ptdump prints for some packets: the
       payload padded to 25, a space, a name padded to 5, a value */
    if (p->type == PTC_PIP || p->type == PTC_VMCS || p->type == PTC_CFE || p->type == PTC_EVD) {
        while (b->len < payload_at + 26 && b->len + 1 < b->cap) df_put(b, " ", 1);
        if (p->type == PTC_PIP) df_put(b, "cr3  ", 5), df_hex(b, p->u.pip.cr3, 16);
        if (p->type == PTC_VMCS) df_put(b, "vmcs ", 5), df_hex(b, p->u.vmcs.base, 16);
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

/* JSON values, and members: a key comes written out with its length,
   ,"k": for a literal k being DF_KEY("k") */
#define DF_KEY(k) ",\"" k "\":", sizeof(",\"" k "\":") - 1
UT_FN void df_json_hex_value(df_buf *b, df_u64 v)
{
    df_put(b, "\"0x", 3);
    df_hex(b, v, 0);
    df_put(b, "\"", 1);
}
UT_FN void df_json_bool_value(df_buf *b, unsigned v)
{
    if (v) df_put(b, "true", 4); else df_put(b, "false", 5);
}
UT_FN void df_json_bool(df_buf *b, const char *key, size_t key_len, unsigned v)
{
    df_put(b, key, key_len);
    df_json_bool_value(b, v);
}
UT_FN void df_json_int(df_buf *b, const char *key, size_t key_len, df_u64 v)
{
    df_put(b, key, key_len);
    df_dec(b, v);
}
UT_FN void df_json_hex(df_buf *b, const char *key, size_t key_len, df_u64 v)
{
    df_put(b, key, key_len);
    df_json_hex_value(b, v);
}

/* Each field's JSON key written out (,"name":), a row for each row of
   pf_fields, so that an object is a walk over its type's rows with one
   wide copy a key. */
typedef struct df_key {
    char text[16]; /* (the longest, ,"sub_state":, is 13) */
    unsigned len;
} df_key;
#define DF__KEY(t, member, field, name, form) { ",\"" name "\":", sizeof(",\"" name "\":") - 1 },
static const df_key df_keys[] = { PTC_PACKET_FIELD_LIST(DF__KEY) };
#undef DF__KEY

/* Field row i of a packet, as its form says. *skip: the row before was a
   presence flag that was clear. */
UT_FN void df_json_field(df_buf *b, const ptc_packet *p, size_t i, int *skip)
{
    const pf_field *f = &pf_fields[i];
    const df_key *k = &df_keys[i];
    uint64_t v = pf_get(p, f);
    if (*skip) { *skip = 0; return; }
    switch (f->form) {
    case PTC_FF_INT: case PTC_FF_RESERVED: /* (a reserved field only when it is set) */
        if (f->form == PTC_FF_INT || v) df_put_wide(b, k->text, k->len, sizeof k->text), df_dec(b, v);
        break;
    case PTC_FF_HEX: df_put_wide(b, k->text, k->len, sizeof k->text); df_json_hex_value(b, v); break;
    case PTC_FF_BOOL: df_put_wide(b, k->text, k->len, sizeof k->text); df_json_bool_value(b, (unsigned)v); break;
    case PTC_FF_PRESENCE: *skip = !v; break;
    case PTC_FF_TNT_BITS:
        df_put_wide(b, k->text, k->len, sizeof k->text);
        df_put(b, "\"", 1);
        df_tnt(b, p, '1', '0');
        df_put(b, "\"", 1);
        break;
    }
}

/* One JSON object (without newline) for an item: its offset, size, type
   and the fields of PTC_PACKET_FIELD_LIST (a type's rows are together),
   and for IP packets the IP after decompression when all of it is known. */
UT_FN void df_json(df_buf *b, const ptc_item *it)
{
    const ptc_packet *p = &it->pkt;
    size_t first, n = pf_rows_of(p->type, &first), i;
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
    df_put_wide(b, df_words(p->type)->json, df_words(p->type)->json_len, sizeof df_words(p->type)->json);
    for (i = first; i < first + n; i++) df_json_field(b, p, i, &skip);
    if (ptc_packet_is_ip(p->type) && it->ip_known) df_json_hex(b, DF_KEY("full_ip"), it->ip);
    df_put(b, "}", 1);
}

/* ptdump --time (SPEC.md 3.9): the time of an item, appended to its line.
   The text column starts at a fixed position so times line up. */
UT_FN void df_time_text(df_buf *b, const ptc_timed_item *t)
{
    static const char spaces[] = "                                                    "; /* 52 */
    if (!t->have_time) return;
    if (b->len < sizeof spaces - 1) df_put(b, spaces, sizeof spaces - 1 - b->len);
    df_put(b, "  time ", 7);
    df_hex(b, t->tsc, 0);
    df_put(b, " [", 2);
    df_hex(b, t->tsc_lo, 0);
    df_put(b, ", ", 2);
    if (t->tsc_hi == UINT64_MAX) df_put(b, "?", 1);
    else df_hex(b, t->tsc_hi, 0);
    df_put(b, "]", 1);
    if (t->have_cycles) {
        df_put(b, " cycles ", 8);
        df_dec(b, t->cycles);
    }
    if (t->conflict) df_put(b, " conflict", 9);
}

UT_FN void df_time_json(df_buf *b, const ptc_timed_item *t)
{
    if (!t->have_time || b->len == 0 || b->s[b->len - 1] != '}') return;
    b->s[--b->len] = 0; /* reopen the object */
    df_json_hex(b, DF_KEY("time"), t->tsc);
    df_json_hex(b, DF_KEY("time_lo"), t->tsc_lo);
    if (t->tsc_hi == UINT64_MAX) df_put(b, ",\"time_hi\":null", 15);
    else df_json_hex(b, DF_KEY("time_hi"), t->tsc_hi);
    if (t->have_cycles) df_json_int(b, DF_KEY("cycles"), t->cycles);
    if (t->conflict) df_json_bool(b, DF_KEY("conflict"), 1);
    df_put(b, "}", 1);
}

#endif

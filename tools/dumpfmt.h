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

#include "../harness/ptfields.h"
#include "../harness/util.h"

/* A bounded string builder: output past cap is dropped, never overrun. */
typedef struct dumpfmt_buf { char *s; size_t cap, len; } dumpfmt_buf;

UTIL_FN void dumpfmt_printf(dumpfmt_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (b->len >= b->cap) return;
    va_start(ap, fmt);
    n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n > 0) b->len += (size_t)n < b->cap - b->len ? (size_t)n : b->cap - b->len - 1;
}

typedef unsigned long long dumpfmt_u64;

/* The plain writers. They write what dumpfmt_printf would for "%s", "%llx",
   "%0*llx" and "%llu", with no format string to parse: a listing is mostly
   these, and printf's parsing was most of ptdump's time (bench/README.md,
   "Tools"). Bounded the same way. */
UTIL_FN inline void dumpfmt_put(dumpfmt_buf *b, const char *s, size_t n)
{
    if (b->len >= b->cap) return;
    if (n > b->cap - b->len - 1) n = b->cap - b->len - 1;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

/* dumpfmt_put of n < width bytes from s, which has width bytes to read: where
   there is room, all width bytes are copied and n kept, since a copy of a
   size known when compiling is a few moves and any other a call. */
UTIL_FN inline void dumpfmt_put_wide(dumpfmt_buf *b, const char *s, size_t n, size_t width)
{
    if (b->len < b->cap && b->cap - b->len > width) {
        memcpy(b->s + b->len, s, width);
        b->len += n;
        b->s[b->len] = 0;
    } else {
        dumpfmt_put(b, s, n);
    }
}

UTIL_FN void dumpfmt_str(dumpfmt_buf *b, const char *s) { dumpfmt_put(b, s, strlen(s)); }

/* s, then spaces to `width` (<= 24) characters: "%-*s" */
UTIL_FN void dumpfmt_str_padded(dumpfmt_buf *b, const char *s, size_t width)
{
    static const char spaces[] = "                        ";
    size_t n = strlen(s);
    dumpfmt_put(b, s, n);
    if (n < width) dumpfmt_put(b, spaces, width - n < sizeof spaces - 1 ? width - n : sizeof spaces - 1);
}

/* Eight hex digits of x, most significant first, as the bytes of a
   word from its lowest byte up: each nibble spread to a byte of its own,
   then made a digit, all eight at once. */
UTIL_FN inline uint64_t dumpfmt__hex8(uint32_t x)
{
    uint64_t v = (x >> 16) | ((uint64_t)(x & 0xFFFF) << 32); /* halves */
    uint64_t letters;
    v = ((v >> 8) & UINT64_C(0x000000FF000000FF)) | ((v & UINT64_C(0x000000FF000000FF)) << 16); /* bytes */
    v = ((v >> 4) & UINT64_C(0x000F000F000F000F)) | ((v & UINT64_C(0x000F000F000F000F)) << 8);  /* nibbles */
    letters = ((v + UINT64_C(0x0606060606060606)) >> 4) & UINT64_C(0x0101010101010101); /* 1 where >= 10 */
    return v + UINT64_C(0x3030303030303030) + letters * ('a' - '0' - 10);
}

UTIL_FN inline void dumpfmt__store8(char *at, uint64_t digits)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(at, &digits, 8); /* (one store) */
#else
    int i;
    for (i = 0; i < 8; i++) at[i] = (char)(digits >> (8 * i));
#endif
}

/* How many hex digits v has (at least one) */
UTIL_FN inline unsigned dumpfmt__hex_digits(uint64_t v)
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
UTIL_FN void dumpfmt_hex(dumpfmt_buf *b, uint64_t v, unsigned width)
{
    unsigned n = dumpfmt__hex_digits(v), lead;
    char t[16];
    if (n < width) n = width > 16 ? 16 : width;
    lead = 16 - n; /* (n >= 1) */
    v <<= 4 * lead; /* the digits to print first */
    if (b->len < b->cap && b->cap - b->len > 16) { /* room for all 16: write them, keep n */
        dumpfmt__store8(b->s + b->len, dumpfmt__hex8((uint32_t)(v >> 32)));
        if (n > 8) dumpfmt__store8(b->s + b->len + 8, dumpfmt__hex8((uint32_t)v));
        b->len += n;
        b->s[b->len] = 0;
        return;
    }
    dumpfmt__store8(t, dumpfmt__hex8((uint32_t)(v >> 32)));
    dumpfmt__store8(t + 8, dumpfmt__hex8((uint32_t)v));
    dumpfmt_put(b, t, n);
}

/* "00" to "99", so that decimal numbers are written two digits a step */
#define DUMPFMT__TENS(d) d "0" d "1" d "2" d "3" d "4" d "5" d "6" d "7" d "8" d "9"
static const char dumpfmt__dec_pairs[] = DUMPFMT__TENS("0") DUMPFMT__TENS("1") DUMPFMT__TENS("2") DUMPFMT__TENS("3") DUMPFMT__TENS("4")
    DUMPFMT__TENS("5") DUMPFMT__TENS("6") DUMPFMT__TENS("7") DUMPFMT__TENS("8") DUMPFMT__TENS("9");
#undef DUMPFMT__TENS

/* How many decimal digits v has (at least one) */
UTIL_FN inline unsigned dumpfmt__dec_digits(uint64_t v)
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
UTIL_FN inline void dumpfmt__dec_write(char *end, uint64_t v)
{
    while (v >= 100) {
        end -= 2;
        memcpy(end, dumpfmt__dec_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) memcpy(end - 2, dumpfmt__dec_pairs + 2 * v, 2);
    else end[-1] = (char)('0' + v);
}

UTIL_FN void dumpfmt_dec(dumpfmt_buf *b, uint64_t v)
{
    unsigned n = dumpfmt__dec_digits(v);
    char t[20];
    if (b->len < b->cap && b->cap - b->len > n) {
        dumpfmt__dec_write(b->s + b->len + n, v);
        b->len += n;
        b->s[b->len] = 0;
        return;
    }
    dumpfmt__dec_write(t + n, v);
    dumpfmt_put(b, t, n);
}

/* the branch outcomes, oldest first: `taken` for 1, `not_taken` for 0.
   Eight at a step: multiplying a byte by 0x8040201008040201 puts its bit
   7 - k at bit 7 of byte k (the copies do not overlap, so nothing carries). */
UTIL_FN void dumpfmt_tnt(dumpfmt_buf *b, const ptc_packet *p, char taken, char not_taken)
{
    unsigned count = p->u.tnt.count < 64 ? p->u.tnt.count : 64, k;
    uint64_t v = count ? p->u.tnt.bits << (64 - count) : 0; /* the oldest at bit 63 */
    uint64_t flip = (unsigned char)(taken ^ not_taken), base = UINT64_C(0x0101010101010101) * (unsigned char)not_taken;
    char t[64], *at = b->len < b->cap && b->cap - b->len > 64 ? b->s + b->len : t;
    for (k = 0; k < count; k += 8, v <<= 8) {
        uint64_t ones = (((v >> 56) * UINT64_C(0x8040201008040201)) >> 7) & UINT64_C(0x0101010101010101);
        dumpfmt__store8(at + k, base ^ ones * flip);
    }
    if (at == t) {
        dumpfmt_put(b, t, count);
    } else {
        b->len += count;
        b->s[b->len] = 0;
    }
}

UTIL_FN const char *dumpfmt_cfe_name(unsigned t)
{
    static const char *names[] = { "", "intr", "iret", "smi", "rsm", "sipi", "init", "vmentry",
                                   "vmexit", "vmexit_intr", "shutdown", "", "uintr", "uiret", "swintr", "syscall" };
    return t < sizeof names / sizeof names[0] && names[t][0] ? names[t] : "unknown";
}

/* The CFE types whose vector libipt 2.2's ptdump shows: in decimal (INTR,
   VMEXIT_INTR, UINTR, SWINTR), or in hex (SIPI's start page). */
UTIL_FN int dumpfmt_cfe_vector_decimal(unsigned t) { return t == 1 || t == 9 || t == 12 || t == 14; }
UTIL_FN int dumpfmt_cfe_vector_hex(unsigned t) { return t == 5; }

UTIL_FN const char *dumpfmt_evd_name(unsigned t)
{
    return t == 0 ? "cr2" : t == 1 ? "vmxq" : t == 2 ? "vmxr" : "unknown"; /* (0: the page fault address) */
}

/* The IP as libipt's ptdump shows it: '?' for digits taken from the last IP. */
UTIL_FN void dumpfmt_ip_text(dumpfmt_buf *b, const ptc_packet *p)
{
    uint64_t v = p->u.ip.payload;
    switch (p->u.ip.ipc) {
    case PTC_IPC_SUPPRESSED: dumpfmt_str(b, "0: ????????????????"); break;
    case PTC_IPC_UPDATE_16: dumpfmt_str(b, "1: ????????????"); dumpfmt_hex(b, v, 4); break;
    case PTC_IPC_UPDATE_32: dumpfmt_str(b, "2: ????????"); dumpfmt_hex(b, v, 8); break;
    case PTC_IPC_SEXT_48:
        if (v & (UINT64_C(1) << 47)) v |= ~UINT64_C(0xFFFFFFFFFFFF);
        dumpfmt_str(b, "3: ");
        dumpfmt_hex(b, v, 16);
        break;
    case PTC_IPC_UPDATE_48: dumpfmt_str(b, "4: ????"); dumpfmt_hex(b, v, 12); break;
    default: /* the full IP, and any IPBytes value the SDM reserves */
        dumpfmt_dec(b, p->u.ip.ipc);
        dumpfmt_put(b, ": ", 2);
        dumpfmt_hex(b, v, 16);
        break;
    }
}

/* Comma-separated flags: adds ", " between words. */
UTIL_FN void dumpfmt_flag(dumpfmt_buf *b, int *first, int on, const char *word)
{
    if (!on) return;
    if (!*first) dumpfmt_put(b, ", ", 2);
    dumpfmt_str(b, word);
    *first = 0;
}

/* What starts an item's line, for each packet type (PTC_PACKET_LIST's
   order is the type's value): the text's name column, "%-10s " of libipt's
   name, and JSON's type member. The text is the name and 11 spaces, of
   which a line takes the first 11: every name fits in 10 (and every JSON
   member in json[], for dumpfmt_put_wide), or this does not compile. PTC_NONE
   is "none", as ptc_packet_type_name says. */
typedef struct dumpfmt_type_words { char text[24], json[24]; unsigned json_len; } dumpfmt_type_words;
#define DUMPFMT__WORDS(e, json, dump, min, max, cls) { dump "           ", ",\"type\":\"" json "\"", sizeof(json) + 9 },
static const dumpfmt_type_words dumpfmt_type_words_of[] = {
    { "none           ", ",\"type\":\"none\"", 14 }, PTC_PACKET_LIST(DUMPFMT__WORDS)
};
#undef DUMPFMT__WORDS
#define DUMPFMT__NAME_FITS(e, json, dump, min, max, cls) && sizeof(dump) <= 11 && sizeof(json) + 9 < 24
enum { dumpfmt__names_fit = 1 / (1 PTC_PACKET_LIST(DUMPFMT__NAME_FITS)) }; /* (a division by zero when one does not) */
#undef DUMPFMT__NAME_FITS

UTIL_FN const dumpfmt_type_words *dumpfmt_words(ptc_packet_type t)
{
    return &dumpfmt_type_words_of[(unsigned)t < PTC_PACKET_TYPE_COUNT ? (unsigned)t : 0];
}

/* One text line (without newline) for an item. */
UTIL_FN void dumpfmt_text(dumpfmt_buf *b, const ptc_item *it)
{
    const ptc_packet *p = &it->pkt;
    size_t payload_at;
    int first = 1;
    if (it->error != PTC_OK) {
        dumpfmt_printf(b, "[%llx: error decoding packet: %s (%s)]", (dumpfmt_u64)it->offset,
                  ptc_status_message(it->error), ptc_status_name(it->error));
        return;
    }
    dumpfmt_hex(b, it->offset, 16);
    dumpfmt_put(b, "  ", 2);
    dumpfmt_put_wide(b, dumpfmt_words(p->type)->text, 11, 16);
    payload_at = b->len;
    switch (p->type) {
    case PTC_TNT8: case PTC_TNT64: dumpfmt_tnt(b, p, '!', '.'); break;
    case PTC_TIP: case PTC_TIP_PGE: case PTC_TIP_PGD: case PTC_FUP: dumpfmt_ip_text(b, p); break;
    case PTC_MODE_EXEC:
        dumpfmt_flag(b, &first, p->u.mode_exec.csl, "cs.l");
        dumpfmt_flag(b, &first, p->u.mode_exec.csd, "cs.d");
        dumpfmt_flag(b, &first, p->u.mode_exec.if_flag, "if");
        break;
    case PTC_MODE_TSX:
        dumpfmt_flag(b, &first, p->u.mode_tsx.intx, "intx");
        dumpfmt_flag(b, &first, p->u.mode_tsx.abrt, "abrt");
        break;
    case PTC_PIP:
        dumpfmt_hex(b, p->u.pip.cr3, 0);
        if (p->u.pip.nr) dumpfmt_put(b, ", nr", 4);
        break;
    case PTC_VMCS: dumpfmt_hex(b, p->u.vmcs.base, 0); break;
    case PTC_TSC: dumpfmt_hex(b, p->u.tsc.tsc, 0); break;
    case PTC_TMA:
        dumpfmt_hex(b, p->u.tma.ctc, 0);
        dumpfmt_put(b, ", ", 2);
        dumpfmt_hex(b, p->u.tma.fc, 0);
        break;
    case PTC_MTC: dumpfmt_hex(b, p->u.mtc.ctc, 0); break;
    case PTC_CYC: dumpfmt_hex(b, p->u.cyc.cycles, 0); break;
    case PTC_CBR: dumpfmt_hex(b, p->u.cbr.ratio, 0); break;
    case PTC_MNT: dumpfmt_hex(b, p->u.mnt.payload, 0); break;
    case PTC_PTW:
        dumpfmt_printf(b, "%u: %llx%s", p->u.ptw.bytes == 8 ? 1u : 0u, (dumpfmt_u64)p->u.ptw.payload,
                  p->u.ptw.ip ? ", ip" : "");
        break;
    case PTC_EXSTOP: dumpfmt_flag(b, &first, p->u.exstop.ip, "ip"); break;
    case PTC_BEP: dumpfmt_flag(b, &first, p->u.bep.ip, "ip"); break;
    case PTC_MWAIT: dumpfmt_printf(b, "%08x, %08x", p->u.mwait.hints, p->u.mwait.ext); break;
    case PTC_PWRE:
        dumpfmt_printf(b, "c%u.%u%s", (p->u.pwre.state + 1u) & 15u, (p->u.pwre.sub_state + 1u) & 15u,
                  p->u.pwre.hw ? ", hw" : "");
        break;
    case PTC_PWRX: {
        /* one reason as libipt 2.2 prints it (" st" and " hw" with its
           leading space); none, or more than one, which libipt calls
           "bad", named (SPEC 1.10) */
        unsigned reasons = p->u.pwrx.wake & 0xDu;
        if (reasons == 1u || reasons == 4u || reasons == 8u) {
            dumpfmt_str(b, reasons == 1u ? "int" : reasons == 4u ? " st" : " hw");
        } else {
            dumpfmt_flag(b, &first, reasons & 1u, "int");
            dumpfmt_flag(b, &first, reasons & 4u, "st");
            dumpfmt_flag(b, &first, reasons & 8u, "hw");
        }
        dumpfmt_printf(b, "%s: c%u, c%u", reasons ? "" : "none", (p->u.pwrx.last + 1u) & 15u, (p->u.pwrx.deepest + 1u) & 15u);
        break;
    }
    case PTC_CFE:
        dumpfmt_printf(b, "%u", p->u.cfe.cfe_type);
        if (dumpfmt_cfe_vector_decimal(p->u.cfe.cfe_type)) dumpfmt_printf(b, ": %u", p->u.cfe.vector);
        if (dumpfmt_cfe_vector_hex(p->u.cfe.cfe_type)) dumpfmt_printf(b, ": %x", p->u.cfe.vector);
        if (p->u.cfe.ip) dumpfmt_printf(b, ", ip");
        break;
    case PTC_EVD: dumpfmt_printf(b, "%u: %llx", p->u.evd.evd_type, (dumpfmt_u64)p->u.evd.payload); break;
    case PTC_TRIG:
        dumpfmt_printf(b, "%02x", p->u.trig.trbv);
        if (p->u.trig.ip) dumpfmt_printf(b, ", ip");
        if (p->u.trig.mult) dumpfmt_printf(b, ", mult");
        if (p->u.trig.icntv) dumpfmt_printf(b, ", icnt: %u", p->u.trig.icnt);
        break;
    case PTC_BBP: dumpfmt_printf(b, "%x, %u", p->u.bbp.block_type, p->u.bbp.sz ? 4u : 8u); break;
    case PTC_BIP: dumpfmt_printf(b, "%x: %llx", p->u.bip.id, (dumpfmt_u64)p->u.bip.value); break;
    default: break;
    }
    /* a second column, as libipt 2.2's ptdump prints for some packets: the
       payload padded to 25, a space, a name padded to 5, a value */
    if (p->type == PTC_PIP || p->type == PTC_VMCS || p->type == PTC_CFE || p->type == PTC_EVD) {
        while (b->len < payload_at + 26 && b->len + 1 < b->cap) dumpfmt_put(b, " ", 1);
        if (p->type == PTC_PIP) dumpfmt_put(b, "cr3  ", 5), dumpfmt_hex(b, p->u.pip.cr3, 16);
        if (p->type == PTC_VMCS) dumpfmt_put(b, "vmcs ", 5), dumpfmt_hex(b, p->u.vmcs.base, 16);
        if (p->type == PTC_CFE) dumpfmt_printf(b, "type %s", dumpfmt_cfe_name(p->u.cfe.cfe_type));
        if (p->type == PTC_EVD) dumpfmt_printf(b, "type %s", dumpfmt_evd_name(p->u.evd.evd_type));
    }
    while (b->len > 0 && b->s[b->len - 1] == ' ') b->s[--b->len] = 0;
}

/* ,"k":"v" with v escaped for JSON (it may come from a file: quotes,
   backslashes and control bytes are written as escapes). */
UTIL_FN void dumpfmt_json_string(dumpfmt_buf *b, const char *k, const char *v)
{
    dumpfmt_printf(b, ",\"%s\":\"", k);
    for (; *v; v++) {
        unsigned char ch = (unsigned char)*v;
        if (ch == '"' || ch == '\\') dumpfmt_printf(b, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f) dumpfmt_printf(b, "\\u%04x", ch);
        else dumpfmt_printf(b, "%c", ch);
    }
    dumpfmt_printf(b, "\"");
}

/* JSON values, and members: a key comes written out with its length,
   ,"k": for a literal k being DUMPFMT_KEY("k") */
#define DUMPFMT_KEY(k) ",\"" k "\":", sizeof(",\"" k "\":") - 1
UTIL_FN void dumpfmt_json_hex_value(dumpfmt_buf *b, dumpfmt_u64 v)
{
    dumpfmt_put(b, "\"0x", 3);
    dumpfmt_hex(b, v, 0);
    dumpfmt_put(b, "\"", 1);
}
UTIL_FN void dumpfmt_json_bool_value(dumpfmt_buf *b, unsigned v)
{
    if (v) dumpfmt_put(b, "true", 4); else dumpfmt_put(b, "false", 5);
}
UTIL_FN void dumpfmt_json_bool(dumpfmt_buf *b, const char *key, size_t key_len, unsigned v)
{
    dumpfmt_put(b, key, key_len);
    dumpfmt_json_bool_value(b, v);
}
UTIL_FN void dumpfmt_json_int(dumpfmt_buf *b, const char *key, size_t key_len, dumpfmt_u64 v)
{
    dumpfmt_put(b, key, key_len);
    dumpfmt_dec(b, v);
}
UTIL_FN void dumpfmt_json_hex(dumpfmt_buf *b, const char *key, size_t key_len, dumpfmt_u64 v)
{
    dumpfmt_put(b, key, key_len);
    dumpfmt_json_hex_value(b, v);
}

/* Each field's JSON key written out (,"name":), a row for each row of
   ptfields_fields, so that an object is a walk over its type's rows with one
   wide copy a key. */
typedef struct dumpfmt_key {
    char text[16]; /* (the longest, ,"sub_state":, is 13) */
    unsigned len;
} dumpfmt_key;
#define DUMPFMT__KEY(t, member, field, name, form) { ",\"" name "\":", sizeof(",\"" name "\":") - 1 },
static const dumpfmt_key dumpfmt_keys[] = { PTC_PACKET_FIELD_LIST(DUMPFMT__KEY) };
#undef DUMPFMT__KEY

/* Field row i of a packet, as its form says. *skip: the row before was a
   presence flag that was clear. */
UTIL_FN void dumpfmt_json_field(dumpfmt_buf *b, const ptc_packet *p, size_t i, int *skip)
{
    const ptfields_field *f = &ptfields_fields[i];
    const dumpfmt_key *k = &dumpfmt_keys[i];
    uint64_t v = ptfields_get(p, f);
    if (*skip) { *skip = 0; return; }
    switch (f->form) {
    case PTC_FF_INT: case PTC_FF_RESERVED: /* (a reserved field only when it is set) */
        if (f->form == PTC_FF_INT || v) dumpfmt_put_wide(b, k->text, k->len, sizeof k->text), dumpfmt_dec(b, v);
        break;
    case PTC_FF_HEX: dumpfmt_put_wide(b, k->text, k->len, sizeof k->text); dumpfmt_json_hex_value(b, v); break;
    case PTC_FF_BOOL: dumpfmt_put_wide(b, k->text, k->len, sizeof k->text); dumpfmt_json_bool_value(b, (unsigned)v); break;
    case PTC_FF_PRESENCE: *skip = !v; break;
    case PTC_FF_TNT_BITS:
        dumpfmt_put_wide(b, k->text, k->len, sizeof k->text);
        dumpfmt_put(b, "\"", 1);
        dumpfmt_tnt(b, p, '1', '0');
        dumpfmt_put(b, "\"", 1);
        break;
    }
}

/* One JSON object (without newline) for an item: its offset, size, type
   and the fields of PTC_PACKET_FIELD_LIST (a type's rows are together),
   and for IP packets the IP after decompression when all of it is known. */
UTIL_FN void dumpfmt_json(dumpfmt_buf *b, const ptc_item *it)
{
    const ptc_packet *p = &it->pkt;
    size_t first, n = ptfields_rows_of(p->type, &first), i;
    int skip = 0;
    if (it->error != PTC_OK) {
        dumpfmt_printf(b, "{\"off\":%llu,\"error\":\"%s\",\"msg\":\"%s\"}", (dumpfmt_u64)it->offset,
                  ptc_status_name(it->error), ptc_status_message(it->error));
        return;
    }
    dumpfmt_put(b, "{\"off\":", 7);
    dumpfmt_dec(b, it->offset);
    dumpfmt_put(b, ",\"size\":", 8);
    dumpfmt_dec(b, p->size);
    dumpfmt_put_wide(b, dumpfmt_words(p->type)->json, dumpfmt_words(p->type)->json_len, sizeof dumpfmt_words(p->type)->json);
    for (i = first; i < first + n; i++) dumpfmt_json_field(b, p, i, &skip);
    if (ptc_packet_is_ip(p->type) && it->ip_known) dumpfmt_json_hex(b, DUMPFMT_KEY("full_ip"), it->ip);
    dumpfmt_put(b, "}", 1);
}

/* ptdump --time (SPEC.md 3.9): the time of an item, appended to its line.
   The text column starts at a fixed position so times line up. */
UTIL_FN void dumpfmt_time_text(dumpfmt_buf *b, const ptc_timed_item *t)
{
    static const char spaces[] = "                                                    "; /* 52 */
    if (!t->have_time) return;
    if (b->len < sizeof spaces - 1) dumpfmt_put(b, spaces, sizeof spaces - 1 - b->len);
    dumpfmt_put(b, "  time ", 7);
    dumpfmt_hex(b, t->tsc, 0);
    dumpfmt_put(b, " [", 2);
    dumpfmt_hex(b, t->tsc_lo, 0);
    dumpfmt_put(b, ", ", 2);
    if (t->tsc_hi == UINT64_MAX) dumpfmt_put(b, "?", 1);
    else dumpfmt_hex(b, t->tsc_hi, 0);
    dumpfmt_put(b, "]", 1);
    if (t->have_cycles) {
        dumpfmt_put(b, " cycles ", 8);
        dumpfmt_dec(b, t->cycles);
    }
    if (t->conflict) dumpfmt_put(b, " conflict", 9);
}

UTIL_FN void dumpfmt_time_json(dumpfmt_buf *b, const ptc_timed_item *t)
{
    if (!t->have_time || b->len == 0 || b->s[b->len - 1] != '}') return;
    b->s[--b->len] = 0; /* reopen the object */
    dumpfmt_json_hex(b, DUMPFMT_KEY("time"), t->tsc);
    dumpfmt_json_hex(b, DUMPFMT_KEY("time_lo"), t->tsc_lo);
    if (t->tsc_hi == UINT64_MAX) dumpfmt_put(b, ",\"time_hi\":null", 15);
    else dumpfmt_json_hex(b, DUMPFMT_KEY("time_hi"), t->tsc_hi);
    if (t->have_cycles) dumpfmt_json_int(b, DUMPFMT_KEY("cycles"), t->cycles);
    if (t->conflict) dumpfmt_json_bool(b, DUMPFMT_KEY("conflict"), 1);
    dumpfmt_put(b, "}", 1);
}

#endif

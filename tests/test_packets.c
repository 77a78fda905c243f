/* Part 1 sections 1.1-1.8: status codes, packet formats, single-packet
   decode, encoding and its refusals. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"
#include "../harness/pktgen.h"

#include <string.h>

static const char *spec_path = "SPEC.md";

/* ---- helpers ----------------------------------------------------------- */

static ptc_packet mk(ptc_packet_type t)
{
    ptc_packet p;
    memset(&p, 0, sizeof p);
    p.type = t;
    return p;
}

/* The block context a packet's bytes must be decoded in. */
static ptc_block_ctx ctx_for(const ptc_packet *p)
{
    if (p->type != PTC_BIP) return PTC_BLOCK_NONE;
    return p->u.bip.bytes == 4 ? PTC_BLOCK_4 : PTC_BLOCK_8;
}

/* encode -> decode -> encode: the packet and the bytes survive unchanged,
   and every proper prefix of the bytes is truncated. Returns the size. */
static size_t round_trip(const ptc_packet *in, const char *what)
{
    uint8_t b1[32], b2[32];
    size_t n1 = 0, n2 = 0, k;
    ptc_packet out, want = *in;
    ptc_status st = ptc_encode_packet(in, b1, sizeof b1, &n1);
    CHECK(st == PTC_OK, "%s: encode -> %s", what, ptc_status_name(st));
    if (st != PTC_OK) return 0;
    CHECK(n1 >= 1 && n1 <= PTC_MAX_PACKET_SIZE, "%s: size %zu", what, n1);
    st = ptc_decode_packet(b1, n1, ctx_for(in), &out);
    CHECK(st == PTC_OK, "%s: decode -> %s", what, ptc_status_name(st));
    want.size = (uint8_t)n1;
    CHECK(ptc_packet_equal(&out, &want), "%s: decoded packet differs", what);
    CHECK(out.size == n1, "%s: decoded size %u, encoded %zu", what, out.size, n1);
    st = ptc_encode_packet(&out, b2, sizeof b2, &n2);
    CHECK(st == PTC_OK && n2 == n1 && memcmp(b1, b2, n1) == 0, "%s: re-encoding differs", what);
    for (k = 0; k < n1; k++) {
        ptc_packet tmp;
        st = ptc_decode_packet(b1, k, ctx_for(in), &tmp);
        CHECK(st == PTC_ERR_TRUNCATED, "%s: prefix of %zu/%zu bytes -> %s", what, k, n1,
              ptc_status_name(st));
    }
    return n1;
}

static void refuse(const ptc_packet *p, ptc_status want, const char *what)
{
    uint8_t buf[32];
    size_t w = 99;
    ptc_status st;
    memset(buf, 0xA5, sizeof buf);
    st = ptc_encode_packet(p, buf, sizeof buf, &w);
    CHECK(st == want, "%s: got %s, want %s", what, ptc_status_name(st), ptc_status_name(want));
    CHECK(w == 0, "%s: written = %zu", what, w);
    CHECK(buf[0] == 0xA5 && buf[15] == 0xA5, "%s: refused encode wrote bytes", what);
}

/* ---- 1.1 status codes -------------------------------------------------- */

static void status_names_are_distinct_and_readable(void)
{
    static const ptc_status all[] = {
#define X(e, v, n, m) e,
        PTC_STATUS_LIST(X)
#undef X
    };
    size_t i, j, n = sizeof all / sizeof all[0];
    for (i = 0; i < n; i++) {
        const char *a = ptc_status_name(all[i]);
        CHECK(strlen(a) > 1 && strcmp(a, "unknown_status") != 0, "status %d", (int)all[i]);
        CHECK(strlen(ptc_status_message(all[i])) > 5, "status %d has no message", (int)all[i]);
        for (j = 0; j < i; j++) CHECK(strcmp(a, ptc_status_name(all[j])) != 0, "duplicate %s", a);
    }
    CHECK(strcmp(ptc_status_name((ptc_status)-99), "unknown_status") == 0);
    CHECK(strcmp(ptc_version(), PTCODEC_VERSION_STRING) == 0);
    CHECK(strcmp(ptc_packet_type_name(PTC_TIP_PGE), "tip_pge") == 0);
    CHECK(strcmp(ptc_packet_type_dump_name(PTC_TIP_PGE), "tip.pge") == 0);
    CHECK(strcmp(ptc_packet_type_name((ptc_packet_type)200), "none") == 0);
    CHECK(strcmp(ptc_packet_type_dump_name((ptc_packet_type)200), "none") == 0);
    CHECK(strstr(ptc_status_message((ptc_status)-99), "not a ptcodec") != NULL);
}

/* SPEC.md 1.1's table lists every status of PTC_STATUS_LIST, with its
   name, and no other; its revision history has this version. */
static void spec_agrees_with_the_header(void)
{
    size_t len = 0, rows = 0;
    char *spec = (char *)util_read_file(spec_path, &len), *p, *hist;
    char want[160];
    if (!spec) { CHECK(0, "cannot read %s", spec_path); return; }
#define X(e, v, n, m) \
    snprintf(want, sizeof want, "| `%s` | `%s` |", #e, n); \
    CHECK(strstr(spec, want) != NULL, "SPEC.md 1.1 has no row %s", want);
    PTC_STATUS_LIST(X)
#undef X
    for (p = strstr(spec, "| `PTC_"); p; p = strstr(p + 1, "| `PTC_")) rows++;
    CHECK(rows == (size_t)(-PTC_STATUS_MIN_ + 3), "SPEC.md 1.1 has %zu rows, the header %d codes", rows,
          -PTC_STATUS_MIN_ + 3);
    hist = strstr(spec, "## Revision history");
    snprintf(want, sizeof want, "| %s |", PTCODEC_VERSION_STRING);
    CHECK(hist && strstr(hist, want), "SPEC.md's revision history has no row for %s", PTCODEC_VERSION_STRING);
    free(spec);
}

/* ---- 1.2, 1.3 opcode maps against SPEC.md -------------------------------- */

/* Reads the 16x16 map that follows `marker` in SPEC.md into codes[256]. */
static int read_spec_map(const char *marker, char codes[256][12])
{
    size_t len = 0;
    char *spec = (char *)util_read_file(spec_path, &len), *p, *line;
    int row = 0;
    if (!spec) return 0;
    p = strstr(spec, marker);
    if (!p) { free(spec); return 0; }
    line = strchr(p, '\n');
    while (line && row < 16) {
        char *next = strchr(line + 1, '\n'), *cell;
        int col = -1;
        unsigned hi;
        if (next) *next = 0;
        if (sscanf(line + 1, "| %Xx |", &hi) == 1 && strstr(line + 1, "x |")) {
            CHECK(hi == (unsigned)row, "%s row %d out of order", marker, row);
            cell = strchr(line + 1, '|');
            while (cell && col < 16) {
                char *end = strchr(cell + 1, '|');
                if (!end) break;
                if (col >= 0) {
                    char tmp[32];
                    size_t n = (size_t)(end - cell - 1);
                    if (n >= sizeof tmp) n = sizeof tmp - 1;
                    memcpy(tmp, cell + 1, n);
                    tmp[n] = 0;
                    if (sscanf(tmp, " %11s", codes[row * 16 + col]) != 1) codes[row * 16 + col][0] = 0;
                }
                col++;
                cell = end;
            }
            row++;
        }
        line = next;
    }
    free(spec);
    return row == 16;
}

static const char *code_of(ptc_status st, const ptc_packet *p)
{
    if (st == PTC_ERR_BAD_OPCODE) return "bad";
    if (st == PTC_ERR_BAD_IPBYTES) return "ipc!";
    if (st == PTC_ERR_RESERVED) return "rsv";
    if (st != PTC_OK) return ptc_status_name(st);
    switch (p->type) {
    case PTC_MODE_EXEC: case PTC_MODE_TSX: return "mode";
    case PTC_TIP_PGE: return "pge";
    case PTC_TIP_PGD: return "pgd";
    default: return ptc_packet_type_name(p->type);
    }
}

static void first_byte_map_matches_spec(void)
{
    static char codes[256][12];
    int b;
    if (!read_spec_map("<!-- first-byte-map -->", codes)) { CHECK(0, "no first-byte map in %s", spec_path); return; }
    for (b = 0; b < 256; b++) {
        uint8_t buf[16];
        ptc_packet p;
        ptc_status st;
        const char *want = codes[b], *got;
        if (strcmp(want, "ext") == 0) {
            CHECK(b == 0x02, "ext at %02x", b);
            continue; /* the ext map test covers it */
        }
        memset(buf, 0, sizeof buf);
        buf[0] = (uint8_t)b;
        st = ptc_decode_packet(buf, sizeof buf, PTC_BLOCK_NONE, &p);
        got = code_of(st, &p);
        CHECK(strcmp(got, want) == 0, "first byte %02x: decoder says %s, SPEC says %s", b, got, want);
    }
}

static void bip_overlay_inside_blocks(void)
{
    int b;
    for (b = 0; b < 256; b++) {
        uint8_t buf[16];
        ptc_packet p4, p8, pn;
        ptc_status s4, s8, sn;
        memset(buf, 0, sizeof buf);
        buf[0] = (uint8_t)b;
        s4 = ptc_decode_packet(buf, sizeof buf, PTC_BLOCK_4, &p4);
        s8 = ptc_decode_packet(buf, sizeof buf, PTC_BLOCK_8, &p8);
        sn = ptc_decode_packet(buf, sizeof buf, PTC_BLOCK_NONE, &pn);
        if ((b & 7) == 4) {
            CHECK(s4 == PTC_OK && p4.type == PTC_BIP && p4.size == 5 && p4.u.bip.id == b >> 3, "%02x in 4-byte block", b);
            CHECK(s8 == PTC_OK && p8.type == PTC_BIP && p8.size == 9, "%02x in 8-byte block", b);
        } else {
            CHECK(s4 == sn && s8 == sn && (sn != PTC_OK || (p4.type == pn.type && p8.type == pn.type)),
                  "%02x: block context changed a non-BIP byte", b);
        }
    }
}

static void ext_byte_map_matches_spec(void)
{
    static char codes[256][12];
    int b, c;
    if (!read_spec_map("<!-- ext-byte-map -->", codes)) { CHECK(0, "no ext-byte map in %s", spec_path); return; }
    for (b = 0; b < 256; b++) {
        const char *want = codes[b], *got;
        uint8_t buf[16];
        ptc_packet p;
        ptc_status st;
        int k;
        memset(buf, 0, sizeof buf);
        buf[0] = 0x02;
        buf[1] = (uint8_t)b;
        /* A payload that makes the packet valid, so that only the opcode decides. */
        if (strcmp(want, "psb") == 0)
            for (k = 0; k < 16; k += 2) { buf[k] = 0x02; buf[k + 1] = 0x82; }
        if (strcmp(want, "tnt64") == 0) memset(buf + 2, 0xFF, 6);
        if (strcmp(want, "mnt") == 0) buf[2] = 0x88;
        st = ptc_decode_packet(buf, sizeof buf, PTC_BLOCK_NONE, &p);
        got = code_of(st, &p);
        if (strcmp(want, "ptw!") == 0) want = "rsv";
        CHECK(strcmp(got, want) == 0, "02 %02x: decoder says %s, SPEC says %s", b, got, want);
        if (strcmp(want, "bad") == 0) {
            memset(buf + 2, 0xFF, 14);
            st = ptc_decode_packet(buf, sizeof buf, PTC_BLOCK_NONE, &p);
            CHECK(st == PTC_ERR_BAD_OPCODE, "02 %02x with ff payload: %s", b, ptc_status_name(st));
            /* an undefined opcode is judged without its payload */
            st = ptc_decode_packet(buf, 2, PTC_BLOCK_NONE, &p);
            CHECK(st == PTC_ERR_BAD_OPCODE, "02 %02x alone: %s", b, ptc_status_name(st));
        }
    }
    for (c = 0; c < 256; c++) {
        uint8_t buf[16] = { 0x02, 0xC3 };
        ptc_packet p;
        ptc_status st;
        buf[2] = (uint8_t)c;
        st = ptc_decode_packet(buf, sizeof buf, PTC_BLOCK_NONE, &p);
        if (c == 0x88) CHECK(st == PTC_OK && p.type == PTC_MNT && p.size == 11);
        else CHECK(st == PTC_ERR_BAD_OPCODE, "02 c3 %02x: %s", c, ptc_status_name(st));
    }
}

/* ---- 1.4 formats: known byte vectors ------------------------------------ */

static void decodes_sdm_byte_vectors(void)
{
    ptc_packet p;
    /* TNT-8 0x15 = 0b0001_0101: stop bit 4, branches b3..b1 = 0,1,0 -> "tnnt"?
       bits [3:1] = 010 -> oldest (bit 3) not taken, then taken, then not. */
    static const uint8_t tnt8[] = { 0x15 & 0xFE };
    static const uint8_t tsc[] = { 0x19, 0x45, 0x23, 0x01, 0, 0, 0, 0 };
    static const uint8_t tma[] = { 0x02, 0x73, 0x12, 0x00, 0x00, 0x34, 0x01 };
    static const uint8_t pip[] = { 0x02, 0x43, 0xfb, 0xfa, 0x0a, 0, 0, 0 };
    static const uint8_t cyc[] = { 0x07, 0x01, 0x40 }; /* 0 | 0<<5 | 0x20<<12 */
    static const uint8_t tip_sext[] = { 0x6D, 0x00, 0x10, 0xFF, 0xFF, 0xFF, 0xFF };
    static const uint8_t pwrx[] = { 0x02, 0xA2, 0x05, 0x01, 0, 0, 0 };
    static const uint8_t vmcs[] = { 0x02, 0xC8, 0xCD, 0xAB, 0, 0, 0 };
    CHECK(ptc_decode_packet(tnt8, 1, PTC_BLOCK_NONE, &p) == PTC_OK && p.type == PTC_TNT8 &&
          p.u.tnt.count == 3 && p.u.tnt.bits == 2);
    CHECK(ptc_decode_packet(tsc, 8, PTC_BLOCK_NONE, &p) == PTC_OK && p.u.tsc.tsc == 0x12345);
    CHECK(ptc_decode_packet(tma, 7, PTC_BLOCK_NONE, &p) == PTC_OK && p.u.tma.ctc == 0x12 &&
          p.u.tma.fc == 0x134);
    CHECK(ptc_decode_packet(pip, 8, PTC_BLOCK_NONE, &p) == PTC_OK && p.u.pip.cr3 == 0xafafa0 &&
          p.u.pip.nr == 1);
    CHECK(ptc_decode_packet(cyc, 3, PTC_BLOCK_NONE, &p) == PTC_OK && p.size == 3 &&
          p.u.cyc.cycles == (UINT64_C(0x20) << 12));
    CHECK(ptc_decode_packet(tip_sext, 7, PTC_BLOCK_NONE, &p) == PTC_OK && p.type == PTC_TIP &&
          p.u.ip.ipc == 3 && p.u.ip.payload == UINT64_C(0xFFFFFFFF1000));
    CHECK(ptc_decode_packet(pwrx, 7, PTC_BLOCK_NONE, &p) == PTC_OK && p.u.pwrx.last == 0 &&
          p.u.pwrx.deepest == 5 && p.u.pwrx.wake == 1);
    CHECK(ptc_decode_packet(vmcs, 7, PTC_BLOCK_NONE, &p) == PTC_OK && p.u.vmcs.base == 0xabcd000);
}

static void malformed_packets_are_named(void)
{
    ptc_packet p;
    static const uint8_t tma_rsv4[] = { 0x02, 0x73, 1, 1, 1, 1, 0 };
    static const uint8_t tma_rsv6[] = { 0x02, 0x73, 1, 1, 0, 1, 0x40 };
    static const uint8_t tnt64_0[] = { 0x02, 0xA3, 0, 0, 0, 0, 0, 0 };
    static const uint8_t tnt64_1[] = { 0x02, 0xA3, 1, 0, 0, 0, 0, 0 };
    static const uint8_t mode_leaf2[] = { 0x99, 0x40 };
    static const uint8_t psb_broken[] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x83 };
    static const uint8_t cyc_11[] = { 0x07, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 };
    static const uint8_t cyc_big[] = { 0x07, 1, 1, 1, 1, 1, 1, 1, 1, 0x10 };
    static const uint8_t cyc_max[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0E };
    CHECK(ptc_decode_packet(tma_rsv4, 7, PTC_BLOCK_NONE, &p) == PTC_ERR_RESERVED);
    CHECK(ptc_decode_packet(tma_rsv6, 7, PTC_BLOCK_NONE, &p) == PTC_ERR_RESERVED);
    CHECK(ptc_decode_packet(tnt64_0, 8, PTC_BLOCK_NONE, &p) == PTC_ERR_EMPTY_TNT);
    CHECK(ptc_decode_packet(tnt64_1, 8, PTC_BLOCK_NONE, &p) == PTC_ERR_EMPTY_TNT);
    CHECK(ptc_decode_packet(mode_leaf2, 2, PTC_BLOCK_NONE, &p) == PTC_ERR_RESERVED);
    /* a broken PSB is reported as soon as the bad byte is in view */
    CHECK(ptc_decode_packet(psb_broken, sizeof psb_broken, PTC_BLOCK_NONE, &p) == PTC_ERR_BAD_PSB);
    CHECK(ptc_decode_packet(psb_broken, 5, PTC_BLOCK_NONE, &p) == PTC_ERR_TRUNCATED);
    CHECK(ptc_decode_packet(cyc_11, sizeof cyc_11, PTC_BLOCK_NONE, &p) == PTC_ERR_CYC_OVERFLOW);
    CHECK(ptc_decode_packet(cyc_big, sizeof cyc_big, PTC_BLOCK_NONE, &p) == PTC_ERR_CYC_OVERFLOW);
    CHECK(ptc_decode_packet(cyc_max, sizeof cyc_max, PTC_BLOCK_NONE, &p) == PTC_OK &&
          p.size == 10 && p.u.cyc.cycles == ~UINT64_C(0));
    CHECK(ptc_decode_packet(NULL, 4, PTC_BLOCK_NONE, &p) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_decode_packet(tma_rsv4, 7, PTC_BLOCK_NONE, NULL) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_decode_packet(NULL, 0, PTC_BLOCK_NONE, &p) == PTC_ERR_TRUNCATED);
}

/* ---- 1.4 + 1.8: every packet at its boundary values ----------------------- */

static void every_packet_round_trips_at_boundaries(void)
{
    static const uint64_t cyc_vals[] = {
        0, 1, 31, 32, 4095, 4096, (1u << 19) - 1, 1u << 19, UINT64_C(1) << 26,
        (UINT64_C(1) << 61) - 1, UINT64_C(1) << 61, ~UINT64_C(0) - 1, ~UINT64_C(0)
    };
    static const uint8_t cyc_sizes[] = { 1, 1, 1, 2, 2, 3, 3, 4, 5, 9, 10, 10, 10 };
    static const uint8_t ipcs[] = { 0, 1, 2, 3, 4, 6 };
    static const unsigned ipw[] = { 0, 16, 32, 48, 48, 64 };
    ptc_packet p;
    unsigned c, i, t;
    char what[64];
    /* packets with no fields */
    {
        static const ptc_packet_type plain[] = { PTC_PAD, PTC_PSB, PTC_PSBEND, PTC_OVF, PTC_STOP };
        static const size_t sz[] = { 1, 16, 2, 2, 2 };
        for (i = 0; i < 5; i++) {
            p = mk(plain[i]);
            CHECK(round_trip(&p, ptc_packet_type_name(plain[i])) == sz[i]);
        }
    }
    for (c = 1; c <= 47; c++) {
        uint64_t all = (UINT64_C(1) << c) - 1;
        uint64_t pats[3];
        pats[0] = 0; pats[1] = all; pats[2] = UINT64_C(0x5555555555555555) & all;
        for (i = 0; i < 3; i++) {
            if (c <= 6) {
                p = mk(PTC_TNT8); p.u.tnt.count = (uint8_t)c; p.u.tnt.bits = pats[i];
                snprintf(what, sizeof what, "tnt8 count %u pat %u", c, i);
                CHECK(round_trip(&p, what) == 1);
            }
            p = mk(PTC_TNT64); p.u.tnt.count = (uint8_t)c; p.u.tnt.bits = pats[i];
            snprintf(what, sizeof what, "tnt64 count %u pat %u", c, i);
            CHECK(round_trip(&p, what) == 8);
        }
    }
    for (t = PTC_TIP; t <= PTC_FUP; t++)
        for (i = 0; i < 6; i++) {
            uint64_t maxp = ipw[i] == 64 ? ~UINT64_C(0) : ipw[i] ? (UINT64_C(1) << ipw[i]) - 1 : 0;
            p = mk((ptc_packet_type)t); p.u.ip.ipc = ipcs[i]; p.u.ip.payload = maxp;
            snprintf(what, sizeof what, "%s ipc %u max", ptc_packet_type_name((ptc_packet_type)t), ipcs[i]);
            CHECK(round_trip(&p, what) == 1 + ipw[i] / 8);
            p.u.ip.payload = maxp >> 1;
            CHECK(round_trip(&p, what) == 1 + ipw[i] / 8);
        }
    for (i = 0; i < 32; i++) {
        p = mk(PTC_MODE_EXEC);
        p.u.mode_exec.csl = (uint8_t)(i & 1); p.u.mode_exec.csd = (uint8_t)((i >> 1) & 1);
        p.u.mode_exec.if_flag = (uint8_t)((i >> 2) & 1); p.u.mode_exec.reserved = (uint8_t)(i >> 3);
        CHECK(round_trip(&p, "mode_exec") == 2);
        p = mk(PTC_MODE_TSX);
        p.u.mode_tsx.intx = (uint8_t)(i & 1); p.u.mode_tsx.abrt = (uint8_t)((i >> 1) & 1);
        p.u.mode_tsx.reserved = (uint8_t)(i >> 2);
        CHECK(round_trip(&p, "mode_tsx") == 2);
    }
    p = mk(PTC_PIP); CHECK(round_trip(&p, "pip 0") == 8);
    p.u.pip.cr3 = UINT64_C(0x000FFFFFFFFFFFE0); p.u.pip.nr = 1; CHECK(round_trip(&p, "pip max") == 8);
    p = mk(PTC_VMCS); CHECK(round_trip(&p, "vmcs 0") == 7);
    p.u.vmcs.base = UINT64_C(0x000FFFFFFFFFF000); CHECK(round_trip(&p, "vmcs max") == 7);
    p = mk(PTC_TSC); CHECK(round_trip(&p, "tsc 0") == 8);
    p.u.tsc.tsc = (UINT64_C(1) << 56) - 1; CHECK(round_trip(&p, "tsc max") == 8);
    p = mk(PTC_TMA); p.u.tma.ctc = 0xFFFF; p.u.tma.fc = 0x1FF; CHECK(round_trip(&p, "tma max") == 7);
    p.u.tma.fc = 0x100; CHECK(round_trip(&p, "tma fc bit 8") == 7);
    p = mk(PTC_MTC); CHECK(round_trip(&p, "mtc 0") == 2);
    p.u.mtc.ctc = 255; CHECK(round_trip(&p, "mtc 255") == 2);
    for (i = 0; i < sizeof cyc_vals / sizeof cyc_vals[0]; i++) {
        p = mk(PTC_CYC); p.u.cyc.cycles = cyc_vals[i];
        snprintf(what, sizeof what, "cyc %llu", (unsigned long long)cyc_vals[i]);
        CHECK(round_trip(&p, what) == cyc_sizes[i], "%s: size", what);
        /* every longer, non-minimal length decodes back too */
        for (c = cyc_sizes[i] + 1; c <= 10; c++) {
            p.size = (uint8_t)c;
            CHECK(round_trip(&p, what) == c, "%s at %u bytes", what, c);
        }
    }
    p = mk(PTC_CBR); p.u.cbr.ratio = 255; p.u.cbr.reserved = 255; CHECK(round_trip(&p, "cbr") == 4);
    p = mk(PTC_MNT); p.u.mnt.payload = ~UINT64_C(0); CHECK(round_trip(&p, "mnt") == 11);
    for (i = 0; i < 4; i++) {
        p = mk(PTC_PTW); p.u.ptw.bytes = (i & 1) ? 8 : 4; p.u.ptw.ip = (uint8_t)(i >> 1);
        p.u.ptw.payload = (i & 1) ? ~UINT64_C(0) : 0xFFFFFFFFu;
        CHECK(round_trip(&p, "ptw") == (size_t)(2 + p.u.ptw.bytes));
    }
    for (i = 0; i < 2; i++) {
        p = mk(PTC_EXSTOP); p.u.exstop.ip = (uint8_t)i; CHECK(round_trip(&p, "exstop") == 2);
        p = mk(PTC_BEP); p.u.bep.ip = (uint8_t)i; CHECK(round_trip(&p, "bep") == 2);
    }
    p = mk(PTC_MWAIT); p.u.mwait.hints = 0xFFFFFFFFu; p.u.mwait.ext = 1; CHECK(round_trip(&p, "mwait") == 10);
    p = mk(PTC_PWRE); p.u.pwre.state = 15; p.u.pwre.sub_state = 15; p.u.pwre.hw = 1;
    p.u.pwre.reserved = 0x7F; CHECK(round_trip(&p, "pwre") == 4);
    p = mk(PTC_PWRX); p.u.pwrx.last = 15; p.u.pwrx.deepest = 15; p.u.pwrx.wake = 15;
    p.u.pwrx.reserved = 0x0FFFFFFF; CHECK(round_trip(&p, "pwrx") == 7);
    p = mk(PTC_BBP); p.u.bbp.sz = 1; p.u.bbp.block_type = 31; p.u.bbp.reserved = 3;
    CHECK(round_trip(&p, "bbp") == 3);
    p = mk(PTC_BIP); p.u.bip.id = 31; p.u.bip.bytes = 4; p.u.bip.value = 0xFFFFFFFFu;
    CHECK(round_trip(&p, "bip4") == 5);
    p.u.bip.bytes = 8; p.u.bip.value = ~UINT64_C(0); CHECK(round_trip(&p, "bip8") == 9);
    p = mk(PTC_CFE); p.u.cfe.ip = 1; p.u.cfe.cfe_type = 31; p.u.cfe.vector = 255; p.u.cfe.reserved = 3;
    CHECK(round_trip(&p, "cfe") == 4);
    p = mk(PTC_EVD); p.u.evd.evd_type = 31; p.u.evd.reserved = 7; p.u.evd.payload = ~UINT64_C(0);
    CHECK(round_trip(&p, "evd") == 11);
    p = mk(PTC_TRIG); p.u.trig.trbv = 0xA1; p.u.trig.mult = 1; CHECK(round_trip(&p, "trig") == 3);
    p.u.trig.icntv = 1; p.u.trig.icnt = 0xFFFF; p.u.trig.ip = 1; p.u.trig.reserved = 31;
    CHECK(round_trip(&p, "trig icnt") == 5);
}

static void random_packets_round_trip(void)
{
    pktgen_rng r = pktgen_seed(12345);
    int i, t;
    char what[64];
    for (i = 0; i < 4000; i++)
        for (t = 1; t < PTC_PACKET_TYPE_COUNT; t++) {
            ptc_packet p;
            ptc_block_ctx ctx = (i & 1) ? PTC_BLOCK_4 : PTC_BLOCK_8;
            pktgen_packet(&r, (ptc_packet_type)t, ctx, 0, &p);
            snprintf(what, sizeof what, "random %s #%d", ptc_packet_type_name((ptc_packet_type)t), i);
            round_trip(&p, what);
        }
}

/* Every byte string the decoder accepts re-encodes to itself. Every first
   byte and every extended opcode gets payloads whose bytes are zero half of
   the time, so reserved-bit checks and short fields are both reached. */
static void accepted_bytes_reencode_exactly(void)
{
    pktgen_rng r = pktgen_seed(777);
    int op, rep, accepted = 0;
    for (op = 0; op < 512; op++)
        for (rep = 0; rep < 64; rep++) {
            uint8_t buf[16], out[16];
            ptc_packet p;
            size_t n = 0, k;
            ptc_block_ctx ctx = (ptc_block_ctx)((rep % 3) * 4);
            for (k = 0; k < 16; k++) buf[k] = (pktgen_next(&r) & 1) ? (uint8_t)pktgen_next(&r) : 0;
            if (op < 256) buf[0] = (uint8_t)op;
            else { buf[0] = 0x02; buf[1] = (uint8_t)op; }
            if (buf[0] == 0x02 && buf[1] == 0xC3 && (rep & 1)) buf[2] = 0x88;
            if (ptc_decode_packet(buf, 16, ctx, &p) != PTC_OK) continue;
            accepted++;
            CHECK(ptc_encode_packet(&p, out, sizeof out, &n) == PTC_OK && n == p.size &&
                  memcmp(out, buf, n) == 0, "bytes %02x %02x %02x re-encode differently", buf[0], buf[1], buf[2]);
        }
    CHECK(accepted > 10000, "only %d accepted", accepted);
}

/* With PTC_MAX_PACKET_SIZE bytes at hand the decoder takes its fast paths
   (a table row per first byte, two-byte CYCs); with exactly the packet's
   bytes, its general one. Both read every packet alike, and the exact
   copy lives in a buffer of its own size, so that a read past it shows
   under ASan. */
static void fast_paths_agree_with_the_general_one(void)
{
    pktgen_rng r = pktgen_seed(4242);
    int op, rep, compared = 0, cyc2 = 0;
    for (op = 0; op < 512; op++)
        for (rep = 0; rep < 64; rep++) {
            uint8_t buf[PTC_MAX_PACKET_SIZE], *exact;
            ptc_packet fast, general;
            ptc_status st;
            size_t k;
            for (k = 0; k < sizeof buf; k++) buf[k] = (uint8_t)pktgen_next(&r);
            if (op < 256) buf[0] = (uint8_t)op;
            else { buf[0] = PTC_OP_EXT; buf[1] = (uint8_t)op; }
            if (ptc_decode_packet(buf, sizeof buf, PTC_BLOCK_NONE, &fast) != PTC_OK) continue;
            exact = (uint8_t *)malloc(fast.size);
            if (!exact) continue;
            memcpy(exact, buf, fast.size);
            st = ptc_decode_packet(exact, fast.size, PTC_BLOCK_NONE, &general);
            CHECK(st == PTC_OK && ptc_packet_equal(&fast, &general), "bytes %02x %02x %02x: %s, %s of %u bytes",
                  buf[0], buf[1], buf[2], ptc_status_name(st), ptc_packet_type_name(fast.type), fast.size);
            free(exact);
            compared++;
            cyc2 += fast.type == PTC_CYC && fast.size == 2;
        }
    CHECK(compared > 10000, "only %d compared", compared);
    CHECK(cyc2 > 100, "only %d two-byte CYCs", cyc2);
}

/* ---- 1.8 encoder refusals ------------------------------------------------ */

static void encoder_refuses_what_it_cannot_encode(void)
{
    ptc_packet p;
    uint8_t small[4];
    size_t w = 7;
    p = mk(PTC_TNT8); refuse(&p, PTC_ERR_RANGE, "tnt8 count 0");
    p.u.tnt.count = 7; refuse(&p, PTC_ERR_RANGE, "tnt8 count 7");
    p.u.tnt.count = 2; p.u.tnt.bits = 0xFF; refuse(&p, PTC_ERR_RANGE, "tnt8 bits above count");
    p = mk(PTC_TNT64); refuse(&p, PTC_ERR_RANGE, "tnt64 count 0");
    p.u.tnt.count = 48; refuse(&p, PTC_ERR_RANGE, "tnt64 count 48");
    p.u.tnt.count = 10; p.u.tnt.bits = 1u << 10; refuse(&p, PTC_ERR_RANGE, "tnt64 bits above count");
    p = mk(PTC_TIP); p.u.ip.ipc = 5; refuse(&p, PTC_ERR_RANGE, "tip ipc 5");
    p.u.ip.ipc = 7; refuse(&p, PTC_ERR_RANGE, "tip ipc 7");
    p.u.ip.ipc = 8; refuse(&p, PTC_ERR_RANGE, "tip ipc 8");
    p.u.ip.ipc = 1; p.u.ip.payload = 0x10000; refuse(&p, PTC_ERR_RANGE, "tip update16 too wide");
    p.u.ip.ipc = 3; p.u.ip.payload = UINT64_C(1) << 48; refuse(&p, PTC_ERR_RANGE, "tip sext48 too wide");
    p.u.ip.ipc = 0; p.u.ip.payload = 1; refuse(&p, PTC_ERR_RANGE, "tip suppressed with payload");
    p = mk(PTC_TSC); p.u.tsc.tsc = UINT64_C(1) << 56; refuse(&p, PTC_ERR_RANGE, "tsc 2^56");
    p = mk(PTC_TMA); p.u.tma.fc = 0x200; refuse(&p, PTC_ERR_RANGE, "tma fc 0x200");
    p = mk(PTC_CYC); p.u.cyc.cycles = 32; p.size = 1; refuse(&p, PTC_ERR_RANGE, "cyc size too small");
    p.size = 11; refuse(&p, PTC_ERR_RANGE, "cyc size 11");
    p = mk(PTC_PIP); p.u.pip.cr3 = 0x1F; refuse(&p, PTC_ERR_RANGE, "pip cr3 low bits");
    p.u.pip.cr3 = UINT64_C(1) << 52; refuse(&p, PTC_ERR_RANGE, "pip cr3 bit 52");
    p.u.pip.cr3 = 0; p.u.pip.nr = 2; refuse(&p, PTC_ERR_RANGE, "pip nr 2");
    p = mk(PTC_VMCS); p.u.vmcs.base = 0x800; refuse(&p, PTC_ERR_RANGE, "vmcs low bits");
    p = mk(PTC_PTW); p.u.ptw.bytes = 5; refuse(&p, PTC_ERR_RANGE, "ptw 5 bytes");
    p.u.ptw.bytes = 4; p.u.ptw.payload = UINT64_C(1) << 32; refuse(&p, PTC_ERR_RANGE, "ptw4 too wide");
    p = mk(PTC_BIP); refuse(&p, PTC_ERR_RANGE, "bip 0 bytes");
    p.u.bip.bytes = 8; p.u.bip.id = 32; refuse(&p, PTC_ERR_RANGE, "bip id 32");
    p = mk(PTC_PWRE); p.u.pwre.state = 16; refuse(&p, PTC_ERR_RANGE, "pwre state 16");
    p = mk(PTC_PWRX); p.u.pwrx.reserved = 0x10000000; refuse(&p, PTC_ERR_RANGE, "pwrx reserved 29 bits");
    p = mk(PTC_MODE_EXEC); p.u.mode_exec.csl = 2; refuse(&p, PTC_ERR_RANGE, "mode csl 2");
    p = mk(PTC_TRIG); p.u.trig.icnt = 1; refuse(&p, PTC_ERR_RANGE, "trig icnt without icntv");
    p = mk(PTC_CFE); p.u.cfe.cfe_type = 32; refuse(&p, PTC_ERR_RANGE, "cfe type 32");
    p = mk(PTC_EXSTOP); p.u.exstop.ip = 2; refuse(&p, PTC_ERR_RANGE, "exstop ip 2");
    p = mk(PTC_NONE); refuse(&p, PTC_ERR_BAD_TYPE, "type none");
    p = mk((ptc_packet_type)99); refuse(&p, PTC_ERR_BAD_TYPE, "type 99");
    p = mk(PTC_PSB);
    memset(small, 0xA5, sizeof small);
    CHECK(ptc_encode_packet(&p, small, sizeof small, &w) == PTC_ERR_NO_SPACE && w == 0);
    CHECK(small[0] == 0xA5, "no_space wrote bytes");
    CHECK(ptc_encode_packet(NULL, small, sizeof small, &w) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_encode_packet(&p, NULL, 16, &w) == PTC_ERR_BAD_ARGUMENT);
    p = mk(PTC_PAD);
    CHECK(ptc_encode_packet(&p, small, 1, NULL) == PTC_OK && small[0] == 0);
}

/* ---- 1.6 block context --------------------------------------------------- */

static void block_context_rules(void)
{
    ptc_packet p = mk(PTC_BBP);
    int t;
    CHECK(ptc_block_ctx_after(PTC_BLOCK_NONE, &p) == PTC_BLOCK_8);
    p.u.bbp.sz = 1;
    CHECK(ptc_block_ctx_after(PTC_BLOCK_8, &p) == PTC_BLOCK_4);
    for (t = 1; t < PTC_PACKET_TYPE_COUNT; t++) {
        ptc_packet q = mk((ptc_packet_type)t);
        int keeps = t == PTC_BIP || t == PTC_PAD || t == PTC_TSC || t == PTC_TMA || t == PTC_MTC ||
                    t == PTC_CYC || t == PTC_CBR || t == PTC_FUP || t == PTC_MNT || t == PTC_EXSTOP ||
                    t == PTC_PWRE || t == PTC_PWRX;
        if (t == PTC_BBP) continue;
        CHECK(ptc_block_ctx_after(PTC_BLOCK_4, &q) == (keeps ? PTC_BLOCK_4 : PTC_BLOCK_NONE),
              "%s", ptc_packet_type_name((ptc_packet_type)t));
    }
}

/* ---- 1.2-1.4 the packet list's columns ---------------------------------- */

/* The sizes in PTC_PACKET_LIST are exact: every packet of a type the
   generator makes lies within them, and both ends are reached. */
static void packet_list_sizes_are_exact(void)
{
    pktgen_rng r = pktgen_seed(4242);
    int t, i;
    for (t = 1; t < PTC_PACKET_TYPE_COUNT; t++) {
        unsigned lo = 99, hi = 0;
        for (i = 0; i < 3000; i++) {
            ptc_packet p;
            uint8_t out[PTC_MAX_PACKET_SIZE];
            size_t n = 0;
            pktgen_packet(&r, (ptc_packet_type)t, (i & 1) ? PTC_BLOCK_4 : PTC_BLOCK_8, 0, &p);
            if (t == PTC_CYC && (i & 2)) p.size = (uint8_t)pktgen_range(&r, 0, 10); /* long encodings too */
            if (ptc_encode_packet(&p, out, sizeof out, &n) != PTC_OK) continue;
            if (n < lo) lo = (unsigned)n;
            if (n > hi) hi = (unsigned)n;
        }
        CHECK(lo == ptc_packet_min_size((ptc_packet_type)t) && hi == ptc_packet_max_size((ptc_packet_type)t),
              "%s: sizes %u..%u made, the list says %u..%u", ptc_packet_type_name((ptc_packet_type)t), lo, hi,
              ptc_packet_min_size((ptc_packet_type)t), ptc_packet_max_size((ptc_packet_type)t));
    }
    CHECK(ptc_packet_min_size(PTC_NONE) == 0 && ptc_packet_max_size((ptc_packet_type)99) == 0);
}

/* Names go both ways, for both spellings; anything else is PTC_NONE. */
static void packet_names_round_trip(void)
{
    int t;
    for (t = 1; t < PTC_PACKET_TYPE_COUNT; t++) {
        ptc_packet_type ty = (ptc_packet_type)t;
        CHECK(ptc_packet_type_from_name(ptc_packet_type_name(ty)) == ty, "%s", ptc_packet_type_name(ty));
        CHECK(ptc_packet_type_from_name(ptc_packet_type_dump_name(ty)) == ty, "%s", ptc_packet_type_dump_name(ty));
    }
    CHECK(ptc_packet_type_from_name("none") == PTC_NONE && ptc_packet_type_from_name("") == PTC_NONE &&
          ptc_packet_type_from_name("TIP") == PTC_NONE && ptc_packet_type_from_name(NULL) == PTC_NONE);
}

/* The classes, restated here from the SDM and the seeds (not from the
   list), so that a wrong column fails. */
static void packet_classes_match_the_sdm(void)
{
    int t;
    for (t = 0; t < PTC_PACKET_TYPE_COUNT + 2; t++) {
        ptc_packet_type ty = (ptc_packet_type)t;
        int timing = t == PTC_TSC || t == PTC_TMA || t == PTC_MTC || t == PTC_CYC;
        int ip = t == PTC_TIP || t == PTC_TIP_PGE || t == PTC_TIP_PGD || t == PTC_FUP;
        int tnt = t == PTC_TNT8 || t == PTC_TNT64;
        int eligible = t == PTC_TIP || t == PTC_TIP_PGE || t == PTC_TIP_PGD || t == PTC_MODE_EXEC ||
                       t == PTC_MODE_TSX || t == PTC_PIP || t == PTC_VMCS || t == PTC_OVF || t == PTC_MTC ||
                       t == PTC_TSC || t == PTC_PTW || t == PTC_EXSTOP || t == PTC_MWAIT;
        int retires = tnt || t == PTC_TIP || t == PTC_TIP_PGD || t == PTC_FUP;
        int known = t >= 1 && t < PTC_PACKET_TYPE_COUNT;
        CHECK(ptc_packet_is_timing(ty) == timing, "%d timing", t);
        CHECK(ptc_packet_is_ip(ty) == ip, "%d ip", t);
        CHECK(ptc_packet_is_tnt(ty) == tnt, "%d tnt", t);
        CHECK(ptc_packet_is_cyc_eligible(ty) == eligible, "%d eligible", t);
        CHECK(ptc_packet_is_retires(ty) == retires, "%d retires", t);
        CHECK(ptc_packet_is_dec_state(ty) == (t == PTC_PSB || t == PTC_BBP), "%d dec_state", t);
        CHECK(ptc_packet_is_ntp(ty) == (known && !timing && t != PTC_PAD), "%d ntp", t);
    }
}

/* SPEC.md 1.4's table of classes names, for each class, exactly the types
   whose predicate is true. */
static void spec_classes_match_the_predicates(void)
{
    static const struct { const char *name; int (*is)(ptc_packet_type); } classes[] = {
        { "timing", ptc_packet_is_timing }, { "ip", ptc_packet_is_ip }, { "tnt", ptc_packet_is_tnt },
        { "cyc_eligible", ptc_packet_is_cyc_eligible }, { "keeps_block", ptc_packet_is_keeps_block },
        { "dec_state", ptc_packet_is_dec_state }, { "retires", ptc_packet_is_retires }
    };
    size_t len = 0, c;
    char *spec = (char *)util_read_file(spec_path, &len), *table;
    if (!spec) { CHECK(0, "cannot read %s", spec_path); return; }
    table = strstr(spec, "<!-- packet-classes -->");
    CHECK(table != NULL, "no packet-classes table in %s", spec_path);
    for (c = 0; table && c < sizeof classes / sizeof classes[0]; c++) {
        char key[64], *row, *end, *last, *types;
        int t;
        snprintf(key, sizeof key, "\n| `%s` |", classes[c].name);
        row = strstr(table, key);
        CHECK(row != NULL, "SPEC.md has no row for class %s", classes[c].name);
        if (!row) continue;
        end = strchr(row + 1, '\n');
        if (end) *end = 0;
        last = strrchr(row, '|'); /* the row ends "| types |": find the last cell */
        *last = 0;
        types = strrchr(row, '|');
        for (t = 1; t < PTC_PACKET_TYPE_COUNT; t++) {
            char name[32];
            snprintf(name, sizeof name, "`%s`", ptc_packet_type_name((ptc_packet_type)t));
            CHECK((strstr(types, name) != NULL) == (classes[c].is((ptc_packet_type)t) != 0),
                  "class %s: SPEC.md and ptc_packet_is_%s disagree on %s", classes[c].name, classes[c].name, name);
        }
        *last = '|';
        if (end) *end = '\n';
    }
    free(spec);
}

int main(int argc, char **argv)
{
    if (argc > 1) spec_path = argv[1];
    RUN(status_names_are_distinct_and_readable);
    RUN(spec_agrees_with_the_header);
    RUN(first_byte_map_matches_spec);
    RUN(bip_overlay_inside_blocks);
    RUN(ext_byte_map_matches_spec);
    RUN(decodes_sdm_byte_vectors);
    RUN(malformed_packets_are_named);
    RUN(every_packet_round_trips_at_boundaries);
    RUN(random_packets_round_trip);
    RUN(accepted_bytes_reencode_exactly);
    RUN(fast_paths_agree_with_the_general_one);
    RUN(encoder_refuses_what_it_cannot_encode);
    RUN(block_context_rules);
    RUN(packet_list_sizes_are_exact);
    RUN(packet_names_round_trip);
    RUN(packet_classes_match_the_sdm);
    RUN(spec_classes_match_the_predicates);
    TESTLIB_EXIT();
}

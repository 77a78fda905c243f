/* ptgen - write a synthetic Intel PT packet stream made with ptcodec's
   encoder: a random mix of packets, or one packet of a given type. For
   demos, seeds and benchmarks; the hardware model (ptsim) makes real
   timelines. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/pktgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: ptgen [--mix all|dense|sparse] [--bytes N] [--seed S] [--psb-every N] -o FILE\n"
    "       ptgen --one TYPE -o FILE\n"
    "       ptgen --list-types\n"
    "Write a synthetic Intel PT stream (FILE - is standard output). Its packets\n"
    "are drawn at random: each is valid, but its timing packets do not agree\n"
    "with one another (ptdump --time finds conflicts); ptsim writes timelines.\n"
    "  --mix      all: every packet type; dense: branchy code; sparse: mostly MTC/CYC\n"
    "  --bytes    at most N bytes: the stream ends with the last whole packet\n"
    "             that fits (default 4096)\n"
    "  --seed     random seed (default 1)\n"
    "  --psb-every  a PSB every N bytes (default 4096; 0: only at the start)\n"
    "  --one TYPE a single packet of TYPE (ptdump --jsonl type name) with\n"
    "             fixed, recognisable field values\n"
    "  --list-types  every packet type's name, one a line\n";

/* One packet with field values a test can recognise. */
static int one_packet(const char *name, ptc_packet *p)
{
    memset(p, 0, sizeof *p);
    p->type = ptc_packet_type_from_name(name);
    if (p->type == PTC_NONE) return 0;
    switch (p->type) {
    case PTC_TNT8: p->u.tnt.count = 5; p->u.tnt.bits = 0x11; break;       /* oldest taken ... newest taken */
    case PTC_TNT64: p->u.tnt.count = 40; p->u.tnt.bits = UINT64_C(0x8000000001); break;
    case PTC_TIP: case PTC_TIP_PGE: case PTC_TIP_PGD: case PTC_FUP:
        p->u.ip.ipc = PTC_IPC_FULL; p->u.ip.payload = UINT64_C(0xffffffff81001234); break;
    case PTC_MODE_EXEC: p->u.mode_exec.csl = 1; break;
    case PTC_MODE_TSX: p->u.mode_tsx.intx = 1; break;
    case PTC_PIP: p->u.pip.cr3 = UINT64_C(0x12345000); p->u.pip.nr = 1; break;
    case PTC_VMCS: p->u.vmcs.base = UINT64_C(0xabcd000); break;
    case PTC_TSC: p->u.tsc.tsc = UINT64_C(0x123456789abcde); break;
    case PTC_TMA: p->u.tma.ctc = 0x1234; p->u.tma.fc = 0x1ff; break;
    case PTC_MTC: p->u.mtc.ctc = 0xab; break;
    case PTC_CYC: p->u.cyc.cycles = 4096; break;
    case PTC_CBR: p->u.cbr.ratio = 36; break;
    case PTC_MNT: p->u.mnt.payload = UINT64_C(0x1122334455667788); break;
    case PTC_PTW: p->u.ptw.bytes = 8; p->u.ptw.ip = 1; p->u.ptw.payload = UINT64_C(0xdeadbeefcafe); break;
    case PTC_EXSTOP: p->u.exstop.ip = 1; break;
    case PTC_MWAIT: p->u.mwait.hints = 0x20; p->u.mwait.ext = 1; break;
    case PTC_PWRE: p->u.pwre.state = 5; p->u.pwre.sub_state = 0xf; p->u.pwre.hw = 1; break;
    case PTC_PWRX: p->u.pwrx.last = 0; p->u.pwrx.deepest = 5; p->u.pwrx.wake = 1; break;
    case PTC_BBP: p->u.bbp.sz = 1; p->u.bbp.block_type = 2; break;
    case PTC_BIP: p->u.bip.id = 3; p->u.bip.bytes = 8; p->u.bip.value = UINT64_C(0x400000); break;
    case PTC_BEP: p->u.bep.ip = 1; break;
    case PTC_CFE: p->u.cfe.cfe_type = 1; p->u.cfe.vector = 14; p->u.cfe.ip = 1; break;
    case PTC_EVD: p->u.evd.evd_type = 0; p->u.evd.payload = UINT64_C(0x7fff0000); break;
    case PTC_TRIG: p->u.trig.trbv = 0xa1; p->u.trig.icntv = 1; p->u.trig.icnt = 23; break;
    default: break;
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *mixname = "all", *one = NULL;
    size_t len = 0;
    uint64_t seed = 1, bytes = 4096, psb_every = 4096;
    uint8_t *buf;
    FILE *f;
    int i;
    util_prog = "ptgen";
    for (i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        static const char *const with_value[] = { "-o", "--mix", "--one", "--bytes", "--seed", "--psb-every", NULL };
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { fputs(usage, stdout); return 0; }
        if (strcmp(a, "--list-types") == 0) {
            int t;
            for (t = 1; t < PTC_PACKET_TYPE_COUNT; t++) puts(ptc_packet_type_name((ptc_packet_type)t));
            return 0;
        }
        if (!v) return util_no_value(a, with_value, usage);
        if (strcmp(a, "-o") == 0) out = v;
        else if (strcmp(a, "--mix") == 0) mixname = v;
        else if (strcmp(a, "--one") == 0) one = v;
        else if (strcmp(a, "--bytes") == 0) { if (!util_parse_u64(a, v, UINT64_C(1) << 32, &bytes)) return 2; }
        else if (strcmp(a, "--seed") == 0) { if (!util_parse_u64(a, v, UINT64_MAX, &seed)) return 2; }
        else if (strcmp(a, "--psb-every") == 0) { if (!util_parse_u64(a, v, UINT64_C(1) << 32, &psb_every)) return 2; }
        else { fprintf(stderr, "ptgen: unknown option %s\n%s", a, usage); return 2; }
    }
    if (!out) { fprintf(stderr, "ptgen: no -o FILE\n%s", usage); return 2; }
    buf = (uint8_t *)malloc((size_t)bytes + PTC_MAX_PACKET_SIZE);
    if (!buf) { fprintf(stderr, "ptgen: out of memory\n"); return 2; }
    if (one) {
        ptc_packet p;
        if (!one_packet(one, &p)) { fprintf(stderr, "ptgen: unknown packet type %s\n", one); return 2; }
        if (ptc_encode_packet(&p, buf, PTC_MAX_PACKET_SIZE, &len) != PTC_OK) return 2;
    } else {
        pktgen_rng r = pktgen_seed(seed);
        pktgen_mix mix;
        if (strcmp(mixname, "dense") == 0) pktgen_mix_dense(&mix);
        else if (strcmp(mixname, "sparse") == 0) pktgen_mix_sparse(&mix);
        else if (strcmp(mixname, "all") == 0) pktgen_mix_uniform(&mix, 0);
        else { fprintf(stderr, "ptgen: unknown mix %s\n", mixname); return 2; }
        len = pktgen_stream(&r, &mix, 0, (size_t)psb_every, buf, (size_t)bytes, NULL, NULL, 0, NULL);
    }
    f = strcmp(out, "-") == 0 ? stdout : fopen(out, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || (f != stdout && fclose(f) != 0)) {
        fprintf(stderr, "ptgen: cannot write %s\n", out);
        return 2;
    }
    free(buf);
    return 0;
}

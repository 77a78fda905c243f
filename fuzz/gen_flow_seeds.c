/* gen_flow_seeds: seeds for fuzz_flow (fuzz/fuzz_flow.c), hand-assembled
   code and a trace of it written with ptcodec's encoder: a loop
   (conditional branches), a direct CALL and a compressed RET, an indirect
   JMP (TIP), a SYSCALL leaving the traced context (TIP.PGD) and tracing
   on again (TIP.PGE); an interrupt (FUP, TIP) in the loop; an OVF and the
   FUP after it; the same code in 32-bit mode at 0x1000; a direct CALL out
   of an IP filter range with erratum SKL014's TIP.PGD (no IP). Each input
   is the code, the trace, then the settings fuzz_take reads from the end
   (fuzz/flow_input.h): the filter range's end less one past the base
   (high byte last) when filtered, the filtered bit, the base's bit, and
   the code's length (high byte last).
   usage: gen_flow_seeds DIR */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"

#include <stdio.h>
#include <string.h>

static const uint8_t code64[] = {
    0x48, 0x31, 0xC0,             /* 0x00 xor %rax,%rax */
    0x48, 0xFF, 0xC0,             /* 0x03 inc %rax */
    0x48, 0x83, 0xF8, 0x03,       /* 0x06 cmp $3,%rax */
    0x75, 0xF7,                   /* 0x0a jne 0x03 */
    0xE8, 0x05, 0x00, 0x00, 0x00, /* 0x0c call 0x16 */
    0xFF, 0xE3,                   /* 0x11 jmp *%rbx (to 0x20) */
    0x90, 0x90, 0x90,             /* 0x13 */
    0xC3,                         /* 0x16 ret */
    0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, /* 0x17 */
    0x0F, 0x05,                   /* 0x20 syscall */
    0xEB, 0xDC                    /* 0x22 jmp 0x00 */
};

typedef struct out { uint8_t b[1024]; size_t n; } out;

static void emit(out *o, const ptc_packet *p)
{
    size_t n = 0;
    if (ptc_encode_packet(p, o->b + o->n, sizeof o->b - o->n, &n) == PTC_OK) o->n += n;
}

/* A packet of `type`; for the IP packets with ip compressed as ipc. */
static void put(out *o, ptc_packet_type type, uint64_t ip, unsigned ipc)
{
    ptc_packet p;
    memset(&p, 0, sizeof p);
    p.type = type;
    p.u.ip.ipc = (uint8_t)ipc;
    p.u.ip.payload = ip;
    emit(o, &p);
}

static void tnt(out *o, unsigned count, uint64_t bits)
{
    ptc_packet p;
    memset(&p, 0, sizeof p);
    p.type = PTC_TNT8;
    p.u.tnt.count = (uint8_t)count;
    p.u.tnt.bits = bits;
    emit(o, &p);
}

static void mode(out *o, int bits64)
{
    ptc_packet p;
    memset(&p, 0, sizeof p);
    p.type = PTC_MODE_EXEC;
    p.u.mode_exec.csl = (uint8_t)bits64;
    p.u.mode_exec.csd = (uint8_t)!bits64;
    emit(o, &p);
}

/* PSB+ saying tracing is on at ip */
static void psb(out *o, int bits64, uint64_t ip)
{
    put(o, PTC_PSB, 0, 0);
    mode(o, bits64);
    put(o, PTC_FUP, ip, 6);
    put(o, PTC_PSBEND, 0, 0);
}

/* filter_size 0: not filtered; else the range [base, base + filter_size) */
static int write_seed(const char *dir, const char *name, const out *trace, uint64_t base, unsigned filter_size)
{
    char path[512];
    FILE *f;
    uint8_t tail[6];
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f) return 0;
    if (filter_size) {
        tail[n++] = (uint8_t)((filter_size - 1) & 0xFF);
        tail[n++] = (uint8_t)((filter_size - 1) >> 8);
    }
    tail[n++] = (uint8_t)(filter_size != 0);
    tail[n++] = (uint8_t)(base == 0x1000);
    tail[n++] = (uint8_t)(sizeof code64 & 0xFF);
    tail[n++] = (uint8_t)(sizeof code64 >> 8);
    fwrite(code64, 1, sizeof code64, f);
    fwrite(trace->b, 1, trace->n, f);
    fwrite(tail, 1, n, f);
    return fclose(f) == 0;
}

int main(int argc, char **argv)
{
    out o;
    int ok = 1;
    if (argc != 2) {
        fprintf(stderr, "usage: gen_flow_seeds DIR\n");
        return 2;
    }
    /* the loop three times, the call and its compressed return, the
       indirect jump, the system call out, back in, and once more */
    memset(&o, 0, sizeof o);
    psb(&o, 1, 0x400000);
    tnt(&o, 4, 0xD); /* taken, taken, not taken; the RET: taken */
    put(&o, PTC_TIP, 0x400020, 6);
    put(&o, PTC_TIP_PGD, 0, 0);
    put(&o, PTC_TIP_PGE, 0x400022, 6);
    tnt(&o, 4, 0xD);
    ok &= write_seed(argv[1], "seed-flow-64", &o, 0x400000, 0);
    /* an interrupt at the CMP in the second round: FUP there, TIP away */
    memset(&o, 0, sizeof o);
    psb(&o, 1, 0x400000);
    tnt(&o, 1, 1);
    put(&o, PTC_FUP, 0x400006, 6);
    put(&o, PTC_TIP, 0x400020, 6);
    put(&o, PTC_TIP_PGD, 0, 0);
    ok &= write_seed(argv[1], "seed-flow-interrupt", &o, 0x400000, 0);
    /* an overflow: everything lost, on again at the FUP after it */
    memset(&o, 0, sizeof o);
    psb(&o, 1, 0x400000);
    tnt(&o, 2, 3);
    put(&o, PTC_OVF, 0, 0);
    put(&o, PTC_FUP, 0x400003, 6);
    tnt(&o, 3, 6);
    ok &= write_seed(argv[1], "seed-flow-ovf", &o, 0x400000, 0);
    /* 32-bit mode at 0x1000: the same bytes read as 32-bit code */
    memset(&o, 0, sizeof o);
    psb(&o, 0, 0x1003);
    tnt(&o, 3, 6);
    ok &= write_seed(argv[1], "seed-flow-32", &o, 0x1000, 0);
    /* filtered to [0x400000, 0x400016): the CALL to 0x400016 leaves the
       range, and its TIP.PGD has no IP (erratum SKL014) */
    memset(&o, 0, sizeof o);
    psb(&o, 1, 0x400000);
    tnt(&o, 3, 6); /* taken, taken, not taken */
    put(&o, PTC_TIP_PGD, 0, 0);
    put(&o, PTC_TIP_PGE, 0x400022, 6);
    tnt(&o, 3, 6);
    ok &= write_seed(argv[1], "seed-flow-skl014", &o, 0x400000, 0x16);
    return ok ? 0 : 1;
}

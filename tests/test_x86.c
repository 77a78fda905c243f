/* The x86 decoder (ptcodec.h part 9.1, SPEC 9.1): hand-assembled vectors
   from the SDM's opcode maps for every class, in every mode; lengths at
   the 15-byte limit and cut short; then against decoders we did not
   write (fuzz/x86_oracles.h): Zydis 4.0 on every instruction of the
   executable sections of a fixed sample of this machine's ELF files and on
   random bytes in the three modes, and libipt 2.2's length decoder on the
   same (and on APX's REX2, which Zydis 4.0 does not know). Built with
   -DX86_ORACLE_ZYDIS (libzydis-dev) and -DX86_ORACLE_LIBIPT22 (the shared
   tarball) when they are there; the parts that need them skip otherwise. */
#include "../ptcodec.h"
#include "../fuzz/x86_oracles.h"
#include "testlib.h"

#include <elf.h>

typedef struct vector {
    const char *what;
    ptc_x86_mode mode;
    uint8_t bytes[16];
    size_t len;            /* the instruction's length; 0: it is not one */
    ptc_x86_class iclass;
    uint64_t target;       /* checked for JCC, JMP, CALL and TSX */
} vector;

#define AT 0x401000u
#define M64 PTC_X86_64

static const vector vectors[] = {
    { "je rel8", M64, { 0x74, 0x05 }, 2, PTC_X86_JCC, AT + 7 },
    { "jne rel32 back", M64, { 0x0F, 0x85, 0xF0, 0xFF, 0xFF, 0xFF }, 6, PTC_X86_JCC, AT + 6 - 0x10 },
    { "jg rel32", M64, { 0x0F, 0x8F, 0x10, 0x00, 0x00, 0x00 }, 6, PTC_X86_JCC, AT + 0x16 },
    { "jrcxz", M64, { 0xE3, 0xFE }, 2, PTC_X86_JCC, AT },
    { "loop", M64, { 0xE2, 0x10 }, 2, PTC_X86_JCC, AT + 0x12 },
    { "jmp rel8 to itself", M64, { 0xEB, 0xFE }, 2, PTC_X86_JMP, AT },
    { "jmp rel32", M64, { 0xE9, 0x00, 0x01, 0x00, 0x00 }, 5, PTC_X86_JMP, AT + 0x105 },
    { "bnd jmp rel32", M64, { 0xF2, 0xE9, 0x00, 0x01, 0x00, 0x00 }, 6, PTC_X86_JMP, AT + 0x106 },
    { "jmp rel32 with 66: still rel32 in 64-bit mode", M64, { 0x66, 0xE9, 0x00, 0x01, 0x00, 0x00 }, 6, PTC_X86_JMP, AT + 0x106 },
    { "call rel32", M64, { 0xE8, 0xFB, 0xFF, 0xFF, 0xFF }, 5, PTC_X86_CALL, AT },
    { "call next (zero-length)", M64, { 0xE8, 0x00, 0x00, 0x00, 0x00 }, 5, PTC_X86_CALL, AT + 5 },
    { "call *%rax", M64, { 0xFF, 0xD0 }, 2, PTC_X86_CALL_IND, 0 },
    { "call *%r11", M64, { 0x41, 0xFF, 0xD3 }, 3, PTC_X86_CALL_IND, 0 },
    { "call *rel(%rip)", M64, { 0xFF, 0x15, 0x10, 0x20, 0x00, 0x00 }, 6, PTC_X86_CALL_IND, 0 },
    { "notrack call *%rdx", M64, { 0x3E, 0xFF, 0xD2 }, 3, PTC_X86_CALL_IND, 0 },
    { "jmp *%rax", M64, { 0xFF, 0xE0 }, 2, PTC_X86_JMP_IND, 0 },
    { "notrack jmp *table(,%rax,8)", M64, { 0x3E, 0xFF, 0x24, 0xC5, 0x00, 0x10, 0x40, 0x00 }, 8, PTC_X86_JMP_IND, 0 },
    { "lcall *(%rsp)", M64, { 0xFF, 0x1C, 0x24 }, 3, PTC_X86_FAR_CALL, 0 },
    { "ljmp *(%rax)", M64, { 0xFF, 0x28 }, 2, PTC_X86_FAR_JMP, 0 },
    { "ljmp with a register operand is none", M64, { 0xFF, 0xE8 }, 0, PTC_X86_OTHER, 0 },
    { "ret", M64, { 0xC3 }, 1, PTC_X86_RET, 0 },
    { "repz ret", M64, { 0xF3, 0xC3 }, 2, PTC_X86_RET, 0 },
    { "bnd ret", M64, { 0xF2, 0xC3 }, 2, PTC_X86_RET, 0 },
    { "ret imm16", M64, { 0xC2, 0x08, 0x00 }, 3, PTC_X86_RET, 0 },
    { "lret", M64, { 0xCB }, 1, PTC_X86_FAR_RET, 0 },
    { "lret imm16", M64, { 0xCA, 0x08, 0x00 }, 3, PTC_X86_FAR_RET, 0 },
    { "iretq", M64, { 0x48, 0xCF }, 2, PTC_X86_IRET, 0 },
    { "uiret", M64, { 0xF3, 0x0F, 0x01, 0xEC }, 4, PTC_X86_IRET, 0 },
    { "erets", M64, { 0xF2, 0x0F, 0x01, 0xCA }, 4, PTC_X86_IRET, 0 },
    { "eretu", M64, { 0xF3, 0x0F, 0x01, 0xCA }, 4, PTC_X86_IRET, 0 },
    { "clac (0F 01 CA without F2 or F3)", M64, { 0x0F, 0x01, 0xCA }, 3, PTC_X86_OTHER, 0 },
    { "sysret", M64, { 0x0F, 0x07 }, 2, PTC_X86_SYSRET, 0 },
    { "sysexit", M64, { 0x0F, 0x35 }, 2, PTC_X86_SYSRET, 0 },
    { "syscall", M64, { 0x0F, 0x05 }, 2, PTC_X86_SYSCALL, 0 },
    { "sysenter", M64, { 0x0F, 0x34 }, 2, PTC_X86_SYSCALL, 0 },
    { "int3", M64, { 0xCC }, 1, PTC_X86_INT, 0 },
    { "int 0x80", M64, { 0xCD, 0x80 }, 2, PTC_X86_INT, 0 },
    { "int1", M64, { 0xF1 }, 1, PTC_X86_INT, 0 },
    { "into: not in 64-bit mode", M64, { 0xCE }, 0, PTC_X86_OTHER, 0 },
    { "into", PTC_X86_32, { 0xCE }, 1, PTC_X86_INT, 0 },
    { "vmcall", M64, { 0x0F, 0x01, 0xC1 }, 3, PTC_X86_VMCALL, 0 },
    { "vmlaunch", M64, { 0x0F, 0x01, 0xC2 }, 3, PTC_X86_VM_ENTRY, 0 },
    { "vmresume", M64, { 0x0F, 0x01, 0xC3 }, 3, PTC_X86_VM_ENTRY, 0 },
    { "ptwrite (%rax)", M64, { 0xF3, 0x0F, 0xAE, 0x20 }, 4, PTC_X86_PTWRITE, 0 },
    { "ptwrite %rax", M64, { 0xF3, 0x48, 0x0F, 0xAE, 0xE0 }, 5, PTC_X86_PTWRITE, 0 },
    { "xsave (%rax) (0F AE /4 without F3)", M64, { 0x0F, 0xAE, 0x20 }, 3, PTC_X86_OTHER, 0 },
    { "mov %rax,%cr3", M64, { 0x0F, 0x22, 0xD8 }, 3, PTC_X86_MOV_CR3, 0 },
    { "mov %rax,%cr3 whatever the mod", M64, { 0x0F, 0x22, 0x18 }, 3, PTC_X86_MOV_CR3, 0 },
    { "mov %rax,%cr11: no such register", M64, { 0x44, 0x0F, 0x22, 0xD8 }, 0, PTC_X86_OTHER, 0 },
    { "mov %rax,%cr8", M64, { 0x44, 0x0F, 0x22, 0xC0 }, 4, PTC_X86_OTHER, 0 },
    { "vmptrld (%rax)", M64, { 0x0F, 0xC7, 0x30 }, 3, PTC_X86_VMPTRLD, 0 },
    { "vmclear (%rax) (66 0F C7 /6)", M64, { 0x66, 0x0F, 0xC7, 0x30 }, 4, PTC_X86_OTHER, 0 },
    { "xbegin rel32", M64, { 0xC7, 0xF8, 0x10, 0x00, 0x00, 0x00 }, 6, PTC_X86_TSX, AT + 0x16 },
    { "xbegin rel16 (66)", M64, { 0x66, 0xC7, 0xF8, 0x10, 0x00 }, 5, PTC_X86_TSX, AT + 0x15 },
    { "xend", M64, { 0x0F, 0x01, 0xD5 }, 3, PTC_X86_TSX, 0 },
    { "xabort $1", M64, { 0xC6, 0xF8, 0x01 }, 3, PTC_X86_TSX, 0 },
    { "rep movsb", M64, { 0xF3, 0xA4 }, 2, PTC_X86_REP, 0 },
    { "rep movsq", M64, { 0xF3, 0x48, 0xA5 }, 3, PTC_X86_REP, 0 },
    { "rep stosb", M64, { 0xF3, 0xAA }, 2, PTC_X86_REP, 0 },
    { "repne scasb", M64, { 0xF2, 0xAE }, 2, PTC_X86_REP, 0 },
    { "rep insb", M64, { 0xF3, 0x6C }, 2, PTC_X86_REP, 0 },
    { "movsb, no REP", M64, { 0xA4 }, 1, PTC_X86_OTHER, 0 },
    { "nop", M64, { 0x90 }, 1, PTC_X86_OTHER, 0 },
    { "xchg %ax,%ax", M64, { 0x66, 0x90 }, 2, PTC_X86_OTHER, 0 },
    { "mov %rsp,%rbp", M64, { 0x48, 0x89, 0xE5 }, 3, PTC_X86_OTHER, 0 },
    { "movabs $imm64,%rax", M64, { 0x48, 0xB8, 1, 2, 3, 4, 5, 6, 7, 8 }, 10, PTC_X86_OTHER, 0 },
    { "movabs 0x..,%eax (A1: a 64-bit address)", M64, { 0xA1, 1, 2, 3, 4, 5, 6, 7, 8 }, 9, PTC_X86_OTHER, 0 },
    { "endbr64", M64, { 0xF3, 0x0F, 0x1E, 0xFA }, 4, PTC_X86_OTHER, 0 },
    { "nopl 0(%rax,%rax)", M64, { 0x0F, 0x1F, 0x44, 0x00, 0x00 }, 5, PTC_X86_OTHER, 0 },
    { "inc %eax (FF /0)", M64, { 0xFF, 0xC0 }, 2, PTC_X86_OTHER, 0 },
    { "push (%rax) (FF /6)", M64, { 0xFF, 0x30 }, 2, PTC_X86_OTHER, 0 },
    { "FF /7 is none", M64, { 0xFF, 0x38 }, 0, PTC_X86_OTHER, 0 },
    { "ud2", M64, { 0x0F, 0x0B }, 2, PTC_X86_OTHER, 0 },
    { "lock add %eax,(%rbx)", M64, { 0xF0, 0x01, 0x03 }, 3, PTC_X86_OTHER, 0 },
    { "lock add %eax,%ebx: LOCK needs memory", M64, { 0xF0, 0x01, 0xC3 }, 0, PTC_X86_OTHER, 0 },
    { "lock cmp: not lockable", M64, { 0xF0, 0x39, 0x03 }, 0, PTC_X86_OTHER, 0 },
    { "vzeroupper (no ModRM)", M64, { 0xC5, 0xF8, 0x77 }, 3, PTC_X86_OTHER, 0 },
    { "vpshufd $1,%ymm1,%ymm0 (VEX imm8)", M64, { 0xC5, 0xFD, 0x70, 0xC1, 0x01 }, 5, PTC_X86_OTHER, 0 },
    { "vpaddd (EVEX, disp8)", M64, { 0x62, 0xF1, 0x75, 0x48, 0xFE, 0x40, 0x01 }, 7, PTC_X86_OTHER, 0 },
    { "66 before VEX is none", M64, { 0x66, 0xC5, 0xF8, 0x77 }, 0, PTC_X86_OTHER, 0 },
    { "REX before VEX is none", M64, { 0x48, 0xC5, 0xF8, 0x77 }, 0, PTC_X86_OTHER, 0 },
    { "XOP vpcmov (map 8, imm8)", M64, { 0x8F, 0xE8, 0x78, 0xA2, 0xC1, 0x20 }, 6, PTC_X86_OTHER, 0 },
    { "pop (%rax) (8F /0, not XOP)", M64, { 0x8F, 0x00 }, 2, PTC_X86_OTHER, 0 },
    { "fsin (x87 register form)", M64, { 0xD9, 0xFE }, 2, PTC_X86_OTHER, 0 },
    { "D9 D1 is no x87 instruction", M64, { 0xD9, 0xD1 }, 0, PTC_X86_OTHER, 0 },
    { "REX2 add %r16d,%eax", M64, { 0xD5, 0x40, 0x01, 0xC0 }, 4, PTC_X86_OTHER, 0 },
    { "REX2 map 1: imul", M64, { 0xD5, 0x80, 0xAF, 0xC1 }, 4, PTC_X86_OTHER, 0 },
    { "jmpabs", M64, { 0xD5, 0x00, 0xA1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 }, 11, PTC_X86_JMP, 0x1122334455667788u },
    { "REX2 then Jcc rel8 is none", M64, { 0xD5, 0x00, 0x74, 0x05 }, 0, PTC_X86_OTHER, 0 },
    { "REX2 then jmp rel32 is none", M64, { 0xD5, 0x00, 0xE9, 0, 0, 0, 0 }, 0, PTC_X86_OTHER, 0 },
    { "REX2 then call *%rax", M64, { 0xD5, 0x00, 0xFF, 0xD0 }, 4, PTC_X86_CALL_IND, 0 },
    { "REX then REX2 is none", M64, { 0x48, 0xD5, 0x00, 0x90 }, 0, PTC_X86_OTHER, 0 },
    { "EVEX map 4 (APX) add $1", M64, { 0x62, 0xF4, 0x7C, 0x18, 0x83, 0xC0, 0x01 }, 7, PTC_X86_OTHER, 0 },
    /* 32- and 16-bit modes: the operand size wraps a near branch's target */
    { "32-bit jmp rel32 wraps at 4 GiB", PTC_X86_32, { 0xE9, 0x00, 0x00, 0x00, 0x80 }, 5, PTC_X86_JMP, (AT + 5 + 0x80000000u) & 0xFFFFFFFFu },
    { "32-bit call rel16 (66) wraps at 64 KiB", PTC_X86_32, { 0x66, 0xE8, 0x00, 0x10 }, 4, PTC_X86_CALL, (AT + 4 + 0x1000) & 0xFFFF },
    { "16-bit jne rel16", PTC_X86_16, { 0x0F, 0x85, 0x10, 0x00 }, 4, PTC_X86_JCC, (AT + 0x14) & 0xFFFF },
    { "16-bit jmp rel32 (66)", PTC_X86_16, { 0x66, 0xE9, 0x00, 0x00, 0x01, 0x00 }, 6, PTC_X86_JMP, AT + 6 + 0x10000 },
    { "16-bit mov (bx+si),ax: no SIB", PTC_X86_16, { 0x8B, 0x00 }, 2, PTC_X86_OTHER, 0 },
    { "32-bit les (mod not 11): not VEX", PTC_X86_32, { 0xC4, 0x00 }, 2, PTC_X86_OTHER, 0 },
    { "32-bit VEX (mod 11)", PTC_X86_32, { 0xC5, 0xF8, 0x77 }, 3, PTC_X86_OTHER, 0 },
    { "32-bit ljmp ptr16:32", PTC_X86_32, { 0xEA, 1, 2, 3, 4, 5, 6 }, 7, PTC_X86_FAR_JMP, 0 },
    { "32-bit lcall ptr16:32", PTC_X86_32, { 0x9A, 1, 2, 3, 4, 5, 6 }, 7, PTC_X86_FAR_CALL, 0 },
    { "32-bit salc", PTC_X86_32, { 0xD6 }, 1, PTC_X86_OTHER, 0 },
    { "32-bit inc %eax (40 is no REX)", PTC_X86_32, { 0x40 }, 1, PTC_X86_OTHER, 0 },
    { "32-bit D5 is AAD, not REX2", PTC_X86_32, { 0xD5, 0x0A }, 2, PTC_X86_OTHER, 0 },
};

static void every_vector_is_decoded(void)
{
    size_t i;
    for (i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        const vector *v = &vectors[i];
        ptc_x86_insn in;
        /* in a buffer of 15 bytes, as a decoder in an image has */
        uint8_t bytes[15];
        ptc_status st;
        memset(bytes, 0x90, sizeof bytes);
        memcpy(bytes, v->bytes, v->len ? v->len : sizeof v->bytes < 15 ? sizeof v->bytes : 15);
        st = ptc_x86_decode(bytes, sizeof bytes, v->mode, AT, &in);
        if (!v->len) {
            CHECK(st == PTC_ERR_BAD_INSN, "%s: %s, want bad_insn", v->what, ptc_status_name(st));
            CHECK(in.size == 0 && in.ip == AT, "%s: size %u after an error", v->what, in.size);
            continue;
        }
        CHECK(st == PTC_OK, "%s: %s", v->what, ptc_status_name(st));
        CHECK(in.size == v->len, "%s: size %u, want %zu", v->what, in.size, v->len);
        CHECK(in.iclass == v->iclass, "%s: %s, want %s", v->what, ptc_x86_class_name((ptc_x86_class)in.iclass),
              ptc_x86_class_name(v->iclass));
        CHECK(in.target == v->target, "%s: target %llx, want %llx", v->what, (unsigned long long)in.target,
              (unsigned long long)v->target);
    }
}

/* 15 bytes is the limit: 14 prefixes and a NOP decode, 15 do not; and an
   instruction cut short is cut_insn when fewer than 15 bytes were given,
   read from a buffer of exactly that size (ASan sees any read past it). */
static void the_length_limit_and_cut_bytes(void)
{
    static const uint8_t jne[] = { 0x2E, 0x0F, 0x85, 0xF0, 0xFF }; /* rel16 in 16-bit mode */
    uint8_t bytes[16];
    ptc_x86_insn in;
    size_t n;
    memset(bytes, 0x2E, sizeof bytes);
    bytes[14] = 0x90;
    CHECK(ptc_x86_decode(bytes, 15, PTC_X86_64, 0, &in) == PTC_OK && in.size == 15, "%u", in.size);
    bytes[14] = 0x2E;
    bytes[15] = 0x90;
    CHECK(ptc_x86_decode(bytes, 16, PTC_X86_64, 0, &in) == PTC_ERR_BAD_INSN);
    CHECK(ptc_x86_decode(bytes, 15, PTC_X86_64, 0, &in) == PTC_ERR_BAD_INSN, "15 prefixes: too long, not cut");
    CHECK(ptc_x86_decode(bytes, 14, PTC_X86_64, 0, &in) == PTC_ERR_CUT_INSN, "14 prefixes and no more bytes");
    for (n = 0; n <= sizeof jne; n++) {
        uint8_t *exact = (uint8_t *)malloc(n ? n : 1);
        ptc_status st;
        if (!exact) continue;
        memcpy(exact, jne, n);
        st = ptc_x86_decode(exact, n, PTC_X86_16, 0x100, &in);
        if (n == sizeof jne) CHECK(st == PTC_OK && in.size == n && in.iclass == PTC_X86_JCC, "%s", ptc_status_name(st));
        else CHECK(st == PTC_ERR_CUT_INSN, "%zu bytes: %s", n, ptc_status_name(st));
        free(exact);
    }
    CHECK(ptc_x86_decode(NULL, 1, PTC_X86_64, 0, &in) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_x86_decode(jne, 1, (ptc_x86_mode)8, 0, &in) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_x86_decode(jne, 1, PTC_X86_64, 0, NULL) == PTC_ERR_BAD_ARGUMENT);
    CHECK(strcmp(ptc_x86_class_name(PTC_X86_JMP_IND), "jmp_ind") == 0);
    CHECK(strcmp(ptc_x86_class_name(PTC_X86_CLASS_COUNT), "unknown") == 0);
    CHECK(strcmp(ptc_status_name(PTC_ERR_CUT_INSN), "cut_insn") == 0);
}

#if defined(X86_ORACLE_ZYDIS) || defined(X86_ORACLE_LIBIPT22)
/* What a comparison counted, and its first differences. */
typedef struct tally {
    unsigned long long both, zydis_only, mine_only, refused_by_both, knc, libipt_both;
    int shown;
} tally;

static void show_bytes(tally *t, const char *why, const uint8_t *b, size_t n)
{
    size_t k;
    if (t->shown++ >= 10) return;
    printf("  %s:", why);
    for (k = 0; k < n && k < 15; k++) printf(" %02x", b[k]);
    printf("\n");
}

/* ptcodec against the oracles on the instruction at b: where Zydis
   decodes (outside its Knights Corner readings) the same length, class
   and target; where libipt 2.2 decodes too, the same length and class as
   libipt tells them (fuzz/x86_oracles.h). Returns the length to move on:
   Zydis's, else ptcodec's, else 1. */
static size_t compare_one(tally *t, const uint8_t *b, size_t n, unsigned mode, uint64_t ip)
{
    ptc_x86_insn in;
    ptc_status st = ptc_x86_decode(b, n, (ptc_x86_mode)mode, ip, &in);
    size_t step = st == PTC_OK ? in.size : 1;
#ifdef X86_ORACLE_ZYDIS
    {
        int knc;
        x86_oracle_says z = x86_oracle_zydis(b, n, mode, ip, &knc);
        if (knc) {
            t->knc++;
        } else if (z.decodes && st == PTC_OK) {
            t->both++;
            if (z.size != in.size) show_bytes(t, "length differs from Zydis's", b, z.size), testlib_check_failures++;
            else if (z.iclass != in.iclass) show_bytes(t, "class differs from Zydis's", b, z.size), testlib_check_failures++;
            else if (z.has_target && in.target && !x86_oracle_same_target(&in, z.target))
                show_bytes(t, "target differs from Zydis's", b, z.size), testlib_check_failures++;
        } else if (z.decodes) {
            t->zydis_only++;
            show_bytes(t, "Zydis decodes, ptcodec refuses", b, z.size);
            testlib_check_failures++;
        } else if (st == PTC_OK) {
            t->mine_only++;
        } else {
            t->refused_by_both++;
        }
        if (z.decodes && !knc) step = z.size;
    }
#endif
#ifdef X86_ORACLE_LIBIPT22
    {
        x86_oracle_says l = x86_oracle_libipt22(b, n, mode, ip);
        if (l.decodes && st == PTC_OK && !x86_oracle_libipt22_unknown(&in)) {
            t->libipt_both++;
            if (l.size != in.size) show_bytes(t, "length differs from libipt 2.2's", b, in.size), testlib_check_failures++;
            else if (l.iclass != x86_oracle_libipt_view((ptc_x86_class)in.iclass) && !x86_oracle_libipt22_misreads(&in))
                show_bytes(t, "class differs from libipt 2.2's", b, in.size), testlib_check_failures++;
        }
    }
#endif
    return step;
}

/* A linear sweep of an ELF64 file's executable sections. */
static int sweep_elf(tally *t, const char *path)
{
    size_t n = 0, s;
    unsigned char *b = util_read_file(path, &n);
    const Elf64_Ehdr *e = (const Elf64_Ehdr *)b;
    if (!b || n < sizeof *e || memcmp(b, ELFMAG, 4) != 0 || b[EI_CLASS] != ELFCLASS64 ||
        e->e_shoff > n || e->e_shnum > (n - e->e_shoff) / sizeof(Elf64_Shdr)) {
        free(b);
        return 0;
    }
    for (s = 0; s < e->e_shnum; s++) {
        Elf64_Shdr sh;
        size_t at = 0;
        memcpy(&sh, b + e->e_shoff + s * sizeof sh, sizeof sh);
        if (!(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type != SHT_PROGBITS || sh.sh_offset > n || sh.sh_size > n - sh.sh_offset)
            continue;
        while (at < sh.sh_size)
            at += compare_one(t, b + sh.sh_offset + at, (size_t)(sh.sh_size - at), 64, sh.sh_addr + at);
    }
    free(b);
    return 1;
}

/* The fixed sample: code from gcc, g++, QEMU and the C library, that
   make check's Debian packages install (tools/ensure-deps.sh). The
   one-off run over all of /usr/bin and /usr/lib is in SPEC 9.1. */
static void same_as_the_oracles_on_elf_files(void)
{
    static const char *const sample[] = {
        "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
        "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "/usr/bin/qemu-x86_64", "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
    };
    tally t;
    size_t i, files = 0;
    memset(&t, 0, sizeof t);
    for (i = 0; i < sizeof sample / sizeof sample[0]; i++) {
        if (sweep_elf(&t, sample[i])) files++;
        else printf("  (not here: %s)\n", sample[i]);
    }
    if (files < 3) SKIP("only %zu of the %zu sample files are here", files, sizeof sample / sizeof sample[0]);
    printf("  %zu files: %llu instructions both decode, %llu Knights Corner readings of Zydis's skipped, %llu with libipt 2.2\n",
           files, t.both, t.knc, t.libipt_both);
#ifdef X86_ORACLE_ZYDIS
    CHECK(t.both > 1000000, "%llu", t.both);
#endif
#ifdef X86_ORACLE_LIBIPT22
    CHECK(t.libipt_both > 1000000, "%llu", t.libipt_both);
#endif
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random bytes in each mode; and strings that start with REX2 or EVEX
   map 4 (APX) in 64-bit mode, which only libipt 2.2 knows. Where Zydis refuses what ptcodec
   decodes (finer rules inside an opcode: a prefix, mod, L or W it may not
   have), the share is printed and held under a ceiling, so that losing a
   validity rule fails. */
static void same_as_the_oracles_on_random_bytes(void)
{
    static const unsigned modes[] = { 64, 32, 16 };
    uint64_t seed = 0x9E3779B97F4A7C15u;
    size_t m, i;
    for (m = 0; m < 5; m++) {
        tally t;
        unsigned mode = m < 3 ? modes[m] : 64;
        memset(&t, 0, sizeof t);
        for (i = 0; i < 200000; i++) {
            uint8_t b[16];
            size_t k;
            for (k = 0; k < sizeof b; k++) b[k] = (uint8_t)xorshift(&seed);
            if (m == 3) b[0] = 0xD5;
            if (m == 4) { /* APX's EVEX map 4, whose pp 01 is a 66 */
                b[0] = 0x62;
                b[1] = (uint8_t)((b[1] & 0xF0) | 4);
                b[2] |= 4;
            }
            compare_one(&t, b, sizeof b, mode, 0x7FFFF000u + (xorshift(&seed) & 0xFFF));
        }
        printf("  %s mode %u: both decode %llu, ptcodec only %llu, Zydis only %llu, neither %llu; with libipt 2.2 %llu\n",
               m == 3 ? "REX2 strings," : m == 4 ? "EVEX map 4 strings," : "random bytes,", mode, t.both, t.mine_only, t.zydis_only, t.refused_by_both,
               t.libipt_both);
#ifdef X86_ORACLE_ZYDIS
        if (m < 3) CHECK(t.mine_only * 100 < (t.mine_only + t.refused_by_both) * 12, "ptcodec decodes %llu that Zydis refuses",
                         t.mine_only);
#endif
    }
}
#endif

int main(void)
{
    RUN(every_vector_is_decoded);
    RUN(the_length_limit_and_cut_bytes);
#if defined(X86_ORACLE_ZYDIS) || defined(X86_ORACLE_LIBIPT22)
    RUN(same_as_the_oracles_on_elf_files);
    RUN(same_as_the_oracles_on_random_bytes);
#else
    printf("skip - same_as_the_oracles: built without Zydis (libzydis-dev) and libipt 2.2 (../shared/reference)\n");
#endif
    TESTLIB_EXIT();
}

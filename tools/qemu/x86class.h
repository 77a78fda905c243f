/* x86class.h - what an x86-64 instruction does to control flow, from its
   bytes: the class of change of flow (COFI) that decides which Intel PT
   packets it makes (SDM Vol. 3C 33.4.2), and a direct branch's target.

   Only what the QEMU plugin needs to feed the model: it knows each
   instruction's length from QEMU, so this decodes just the prefixes and
   the opcode, never ModRM addressing beyond the reg field. The opcode
   facts come from the SDM's opcode map (Vol. 2, appendix A).
   tests/test_x86class.c checks every class against hand-assembled bytes. */
#ifndef PTCODEC_X86CLASS_H
#define PTCODEC_X86CLASS_H

#include <stddef.h>
#include <stdint.h>

typedef enum x86_cofi {
    X86_NONE = 0,     /* no change of flow: control goes to the next instruction */
    X86_JCC,          /* conditional branch: Jcc, LOOP*, JrCXZ (TNT bit) */
    X86_JMP,          /* direct near JMP (no packet) */
    X86_JMP_IND,      /* indirect near JMP (TIP) */
    X86_CALL,         /* direct near CALL (no packet; pushed for RET compression) */
    X86_CALL_IND,     /* indirect near CALL (TIP) */
    X86_RET,          /* near RET (TNT bit when compressed, else TIP) */
    X86_FAR,          /* far CALL/JMP/RET, IRET: TIP, the CPL may change */
    X86_TO_KERNEL,    /* SYSCALL, SYSENTER, INT n, INT3, INTO: into the kernel */
    X86_REP,          /* a REP string instruction: may execute again in place */
    X86_COFI_COUNT
} x86_cofi;

typedef struct x86_insn_class {
    x86_cofi cofi;
    uint64_t target; /* direct JMP, Jcc and CALL: where the branch goes */
} x86_insn_class;

static const char *const x86_cofi_names[X86_COFI_COUNT] = {
    "none", "jcc", "jmp", "jmp_ind", "call", "call_ind", "ret", "far", "to_kernel", "rep"
};

static int x86__is_legacy_prefix(uint8_t b)
{
    switch (b) {
    case 0x66: case 0x67: case 0xF0: case 0xF2: case 0xF3:
    case 0x2E: case 0x36: case 0x3E: case 0x26: case 0x64: case 0x65:
        return 1;
    default:
        return 0;
    }
}

static int32_t x86__rel32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* The string instructions REP repeats: INS, OUTS, MOVS, CMPS, STOS, LODS,
   SCAS. */
static int x86__is_string_op(uint8_t op)
{
    return (op >= 0x6C && op <= 0x6F) || (op >= 0xA4 && op <= 0xA7) || (op >= 0xAA && op <= 0xAF);
}

/* Classifies the 64-bit-mode instruction of `len` bytes at `ip`. Bytes
   that do not hold a whole instruction give X86_NONE. */
static x86_insn_class x86_classify(const uint8_t *code, size_t len, uint64_t ip)
{
    x86_insn_class c;
    size_t i = 0;
    int rep = 0;
    uint64_t next = ip + len;
    uint8_t op, reg;
    c.cofi = X86_NONE;
    c.target = 0;
    while (i < len && x86__is_legacy_prefix(code[i])) {
        if (code[i] == 0xF2 || code[i] == 0xF3) rep = 1;
        i++;
    }
    if (i < len && (code[i] & 0xF0) == 0x40) i++; /* REX */
    if (i >= len) return c;
    op = code[i++];
    reg = i < len ? (uint8_t)((code[i] >> 3) & 7) : 0;
    if ((op >= 0x70 && op <= 0x7F) || (op >= 0xE0 && op <= 0xE3)) {
        if (i + 1 > len) return c;
        c.cofi = X86_JCC;
        c.target = next + (uint64_t)(int64_t)(int8_t)code[i];
    } else if (op == 0xEB || op == 0xE9 || op == 0xE8) {
        if (i + (op == 0xEB ? 1u : 4u) > len) return c;
        c.cofi = op == 0xE8 ? X86_CALL : X86_JMP;
        c.target = next + (uint64_t)(int64_t)(op == 0xEB ? (int8_t)code[i] : x86__rel32(code + i));
    } else if (op == 0xFF && i < len) {
        if (reg == 2) c.cofi = X86_CALL_IND;
        else if (reg == 4) c.cofi = X86_JMP_IND;
        else if (reg == 3 || reg == 5) c.cofi = X86_FAR;
    } else if (op == 0xC3 || op == 0xC2) {
        c.cofi = X86_RET;
    } else if (op == 0xCA || op == 0xCB || op == 0xCF || op == 0x9A || op == 0xEA) {
        c.cofi = X86_FAR;
    } else if (op == 0xCC || op == 0xCD || op == 0xCE) {
        c.cofi = X86_TO_KERNEL;
    } else if (op == 0x0F && i < len) {
        uint8_t op2 = code[i++];
        if (op2 >= 0x80 && op2 <= 0x8F) {
            if (i + 4 > len) return c;
            c.cofi = X86_JCC;
            c.target = next + (uint64_t)(int64_t)x86__rel32(code + i);
        } else if (op2 == 0x05 || op2 == 0x34) {
            c.cofi = X86_TO_KERNEL;
        } else if (op2 == 0x07 || op2 == 0x35) {
            c.cofi = X86_FAR; /* SYSRET, SYSEXIT: only the kernel runs them */
        }
    } else if (rep && x86__is_string_op(op)) {
        c.cofi = X86_REP;
    }
    return c;
}

#endif

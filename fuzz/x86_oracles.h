/* x86_oracles.h - decoders we did not write, read the way ptc_x86_decode
   reports (SPEC 9.1): Zydis 4.0 (Debian libzydis-dev) and libipt 2.2's
   instruction length decoder (pt_ild.c of the shared tarball, compiled in).
   tests/test_x86.c and fuzz/fuzz_x86.c hold ptcodec to them.

   Define X86_ORACLE_ZYDIS and/or X86_ORACLE_LIBIPT22 before including;
   with neither, this header gives nothing. X86_ORACLE_LIBIPT22_DIFFERENCES
   alone gives libipt 2.2's known differences without its decoder (the flow
   decoder's differential harness, fuzz/fuzz_flow_libipt22.c, needs only
   those). The known differences are here and nowhere else, each with why
   (SPEC 9.1 lists them). */
#ifndef PTCODEC_X86_ORACLES_H
#define PTCODEC_X86_ORACLES_H

#include "../ptcodec.h"

#if defined(X86_ORACLE_ZYDIS) || defined(X86_ORACLE_LIBIPT22)
#include <string.h>

#if defined(__has_feature)
#  if __has_feature(memory_sanitizer)
#    include <sanitizer/msan_interface.h>
#    define X86_ORACLE_UNPOISON(p, n) __msan_unpoison((p), (n))
#  endif
#endif
#ifndef X86_ORACLE_UNPOISON
#  define X86_ORACLE_UNPOISON(p, n) ((void)0)
#endif

/* What an oracle says of the bytes at an IP: whether they are an
   instruction, its length, its class as ptcodec names classes, and a
   direct branch's target. */
typedef struct x86_oracle_says {
    int decodes;
    unsigned size;
    ptc_x86_class iclass;
    int has_target;
    uint64_t target;
} x86_oracle_says;

/* The classes an oracle cannot tell apart from "other": TSX and REP for
   libipt, which has no such classes. */
static ptc_x86_class x86_oracle_libipt_view(ptc_x86_class c)
{
    return c == PTC_X86_TSX || c == PTC_X86_REP ? PTC_X86_OTHER : c;
}

/* Whether an oracle's target is ptcodec's. Zydis gives a near branch's
   sum unwrapped outside 64-bit mode, where ptcodec wraps it to the
   operand size (16 or 32 bits: test_x86's vectors hold which). */
static int x86_oracle_same_target(const ptc_x86_insn *in, uint64_t target)
{
    if (in->mode == 64) return in->target == target;
    return in->target == (target & 0xFFFFFFFFu) || in->target == (target & 0xFFFFu);
}

#ifdef X86_ORACLE_ZYDIS
#include <Zydis/Zydis.h>

/* Bytes Zydis 4.0 decodes that the SDM says are no instruction (Zydis
   does so with its Knights Corner mode off): VEX.0F 84 and 85, as KNC's
   JKZD and JKNZD rel32, and VEX map 0's 74 and 75, as their rel8; EVEX with P1 bit 2 clear, as KNC's MVEX (APX reads
   that bit as X4: ptcodec decodes it as EVEX); and PTWRITE with a 66
   prefix, which the SDM's PTWRITE page says is #UD. */
static int x86_oracle_zydis_beyond_sdm(const uint8_t *code, size_t size, unsigned mode)
{
    size_t i = 0;
    int osz = 0, rep = 0;
    for (; i < size && i < 15; i++) {
        uint8_t b = code[i];
        if (b == 0x66) osz = 1;
        else if (b == 0xF2 || b == 0xF3) rep = b;
        else if (!(b == 0x67 || b == 0xF0 || b == 0x2E || b == 0x36 || b == 0x3E || b == 0x26 || b == 0x64 || b == 0x65 ||
                   (mode == 64 && (b & 0xF0) == 0x40)))
            break;
    }
    if (i + 3 < size && code[i] == 0xC5 && (code[i + 2] == 0x84 || code[i + 2] == 0x85)) return 1;
    if (i + 4 < size && code[i] == 0xC4 && (code[i + 1] & 0x1F) == 1 && (code[i + 3] == 0x84 || code[i + 3] == 0x85)) return 1;
    if (i + 4 < size && code[i] == 0xC4 && (code[i + 1] & 0x1F) == 0 && (code[i + 3] == 0x74 || code[i + 3] == 0x75)) return 1;
    if (i + 4 < size && code[i] == 0x62 && (mode == 64 || (code[i + 1] & 0xC0) == 0xC0) && !(code[i + 2] & 4)) return 1;
    if (i + 2 < size && osz && rep == 0xF3 && code[i] == 0x0F && code[i + 1] == 0xAE && ((code[i + 2] >> 3) & 7) == 4) return 1;
    return 0;
}

static ptc_x86_class x86_oracle_zydis_class(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
    int far = in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR, rel = ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_JB: case ZYDIS_MNEMONIC_JBE: case ZYDIS_MNEMONIC_JL: case ZYDIS_MNEMONIC_JLE:
    case ZYDIS_MNEMONIC_JNB: case ZYDIS_MNEMONIC_JNBE: case ZYDIS_MNEMONIC_JNL: case ZYDIS_MNEMONIC_JNLE:
    case ZYDIS_MNEMONIC_JNO: case ZYDIS_MNEMONIC_JNP: case ZYDIS_MNEMONIC_JNS: case ZYDIS_MNEMONIC_JNZ:
    case ZYDIS_MNEMONIC_JO: case ZYDIS_MNEMONIC_JP: case ZYDIS_MNEMONIC_JS: case ZYDIS_MNEMONIC_JZ:
    case ZYDIS_MNEMONIC_JCXZ: case ZYDIS_MNEMONIC_JECXZ: case ZYDIS_MNEMONIC_JRCXZ:
    case ZYDIS_MNEMONIC_LOOP: case ZYDIS_MNEMONIC_LOOPE: case ZYDIS_MNEMONIC_LOOPNE: return PTC_X86_JCC;
    case ZYDIS_MNEMONIC_JMP: return far ? PTC_X86_FAR_JMP : rel ? PTC_X86_JMP : PTC_X86_JMP_IND;
    case ZYDIS_MNEMONIC_CALL: return far ? PTC_X86_FAR_CALL : rel ? PTC_X86_CALL : PTC_X86_CALL_IND;
    case ZYDIS_MNEMONIC_RET: return far ? PTC_X86_FAR_RET : PTC_X86_RET;
    case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD: case ZYDIS_MNEMONIC_IRETQ: case ZYDIS_MNEMONIC_UIRET: return PTC_X86_IRET;
    case ZYDIS_MNEMONIC_INT: case ZYDIS_MNEMONIC_INT1: case ZYDIS_MNEMONIC_INT3: case ZYDIS_MNEMONIC_INTO: return PTC_X86_INT;
    case ZYDIS_MNEMONIC_SYSCALL: case ZYDIS_MNEMONIC_SYSENTER: return PTC_X86_SYSCALL;
    case ZYDIS_MNEMONIC_SYSRET: case ZYDIS_MNEMONIC_SYSEXIT: return PTC_X86_SYSRET;
    case ZYDIS_MNEMONIC_VMCALL: return PTC_X86_VMCALL;
    case ZYDIS_MNEMONIC_VMLAUNCH: case ZYDIS_MNEMONIC_VMRESUME: return PTC_X86_VM_ENTRY;
    case ZYDIS_MNEMONIC_PTWRITE: return PTC_X86_PTWRITE;
    case ZYDIS_MNEMONIC_VMPTRLD: return PTC_X86_VMPTRLD;
    case ZYDIS_MNEMONIC_XBEGIN: case ZYDIS_MNEMONIC_XEND: case ZYDIS_MNEMONIC_XABORT: return PTC_X86_TSX;
    case ZYDIS_MNEMONIC_MOV:
        return ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[0].reg.value == ZYDIS_REGISTER_CR3 ? PTC_X86_MOV_CR3 : PTC_X86_OTHER;
    default: break;
    }
    return in->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE) ? PTC_X86_REP : PTC_X86_OTHER;
}

/* Zydis on the instruction at code; *knc is set where it reads beyond the
   SDM (above): no instruction to compare. */
static x86_oracle_says x86_oracle_zydis(const uint8_t *code, size_t size, unsigned mode, uint64_t ip, int *knc)
{
    static const ZydisMachineMode machine[3] = { ZYDIS_MACHINE_MODE_LONG_COMPAT_16, ZYDIS_MACHINE_MODE_LONG_COMPAT_32,
                                                 ZYDIS_MACHINE_MODE_LONG_64 };
    static const ZydisStackWidth stack[3] = { ZYDIS_STACK_WIDTH_16, ZYDIS_STACK_WIDTH_32, ZYDIS_STACK_WIDTH_64 };
    x86_oracle_says says;
    ZydisDecoder dec;
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    unsigned m = mode == 16 ? 0 : mode == 32 ? 1 : 2;
    memset(&says, 0, sizeof says);
    *knc = x86_oracle_zydis_beyond_sdm(code, size, mode);
    ZydisDecoderInit(&dec, machine[m], stack[m]);
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code, size, &in, ops))) return says;
    X86_ORACLE_UNPOISON(&in, sizeof in);
    X86_ORACLE_UNPOISON(ops, sizeof ops);
    says.decodes = 1;
    says.size = in.length;
    says.iclass = x86_oracle_zydis_class(&in, ops);
    if (in.operand_count_visible > 0 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[0].imm.is_relative) {
        ZyanU64 a;
        if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &ops[0], ip, &a))) {
            X86_ORACLE_UNPOISON(&a, sizeof a);
            says.has_target = 1;
            says.target = a;
        }
    }
    return says;
}
#endif /* X86_ORACLE_ZYDIS */

#endif /* X86_ORACLE_ZYDIS || X86_ORACLE_LIBIPT22 */

#if defined(X86_ORACLE_LIBIPT22) || defined(X86_ORACLE_LIBIPT22_DIFFERENCES)
/* What libipt 2.2's length decoder does not know, and reads as something
   else: AMD's XOP (as POP r/m), 3DNow!'s opcode byte after the ModRM of
   0F 0F, and the ModRM of VIA's PadLock 0F A6 and A7. Zydis reads all
   three as ptcodec does. */
static int x86_oracle_libipt22_unknown(const ptc_x86_insn *in)
{
    if (in->encoding == PTC_X86_XOP) return 1;
    return (in->encoding == PTC_X86_LEGACY || in->encoding == PTC_X86_REX2) && in->map == 1 &&
           (in->opcode == 0x0F || in->opcode == 0xA6 || in->opcode == 0xA7);
}

/* Where libipt 2.2's class is not the SDM's: it reads 0F 01 EC as UIRET
   without UIRET's F3 prefix, and VMCLEAR and VMXON (0F C7 /6 with 66 or
   F3) as VMPTRLD. ptcodec calls them "other". */
static int x86_oracle_libipt22_misreads(const ptc_x86_insn *in)
{
    if (in->iclass != PTC_X86_OTHER || in->map != 1) return 0;
    return (in->opcode == 0x01 && in->modrm == 0xEC) ||
           (in->opcode == 0xC7 && (in->modrm >> 6) != 3 && ((in->modrm >> 3) & 7) == 6);
}

#endif

#ifdef X86_ORACLE_LIBIPT22
#include "pt_ild.h"

/* libipt's finer classes as ptcodec's. */
static ptc_x86_class x86_oracle_libipt_class(pti_inst_enum_t c)
{
    switch (c) {
    case PTI_INST_CALL_9A: case PTI_INST_CALL_FFr3: return PTC_X86_FAR_CALL;
    case PTI_INST_CALL_FFr2: return PTC_X86_CALL_IND;
    case PTI_INST_CALL_E8: return PTC_X86_CALL;
    case PTI_INST_INT: case PTI_INST_INT3: case PTI_INST_INT1: case PTI_INST_INTO: return PTC_X86_INT;
    case PTI_INST_IRET: case PTI_INST_UIRET: case PTI_INST_ERETS: case PTI_INST_ERETU: return PTC_X86_IRET;
    case PTI_INST_JMP_E9: case PTI_INST_JMP_EB: case PTI_INST_JMPABS: return PTC_X86_JMP;
    case PTI_INST_JMP_EA: case PTI_INST_JMP_FFr5: return PTC_X86_FAR_JMP;
    case PTI_INST_JMP_FFr4: return PTC_X86_JMP_IND;
    case PTI_INST_JCC: case PTI_INST_JrCXZ: case PTI_INST_LOOP: case PTI_INST_LOOPE: case PTI_INST_LOOPNE: return PTC_X86_JCC;
    case PTI_INST_MOV_CR3: return PTC_X86_MOV_CR3;
    case PTI_INST_RET_C3: case PTI_INST_RET_C2: return PTC_X86_RET;
    case PTI_INST_RET_CB: case PTI_INST_RET_CA: return PTC_X86_FAR_RET;
    case PTI_INST_SYSCALL: case PTI_INST_SYSENTER: return PTC_X86_SYSCALL;
    case PTI_INST_SYSEXIT: case PTI_INST_SYSRET: return PTC_X86_SYSRET;
    case PTI_INST_VMLAUNCH: case PTI_INST_VMRESUME: return PTC_X86_VM_ENTRY;
    case PTI_INST_VMCALL: return PTC_X86_VMCALL;
    case PTI_INST_VMPTRLD: return PTC_X86_VMPTRLD;
    case PTI_INST_PTWRITE: return PTC_X86_PTWRITE;
    default: return PTC_X86_OTHER;
    }
}

/* libipt 2.2's pt_ild_decode on the instruction at code. */
static x86_oracle_says x86_oracle_libipt22(const uint8_t *code, size_t size, unsigned mode, uint64_t ip)
{
    x86_oracle_says says;
    struct pt_insn insn;
    struct pt_insn_ext ext;
    memset(&says, 0, sizeof says);
    memset(&insn, 0, sizeof insn);
    memset(&ext, 0, sizeof ext);
    insn.ip = ip;
    insn.mode = mode == 16 ? ptem_16bit : mode == 32 ? ptem_32bit : ptem_64bit;
    insn.size = (uint8_t)(size < sizeof insn.raw ? size : sizeof insn.raw);
    memcpy(insn.raw, code, insn.size);
    if (pt_ild_decode(&insn, &ext) < 0) return says;
    says.decodes = 1;
    says.size = insn.size;
    says.iclass = x86_oracle_libipt_class(ext.iclass);
    if (ext.variant.branch.is_direct && ext.iclass != PTI_INST_JMPABS) {
        says.has_target = 1;
        says.target = ip + insn.size + (uint64_t)ext.variant.branch.displacement;
    }
    return says;
}
#endif /* X86_ORACLE_LIBIPT22 */

#endif

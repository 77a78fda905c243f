/* The SDM's table "Packet Generation under Different Enable Conditions"
   (Table 36-50 of the 2016 SDM Vol. 3C, pages 36-65 to 36-73), as data:
   one row per case, the facts in our words. tests/test_conform.c reads it
   twice: the model runs every row it can produce and must write the row's
   packets (model_follows_the_sdm_table), and the checker is fed every
   row's packets, in the state the row starts from, and must find nothing
   (the_checker_takes_every_row). SPEC.md 7.5 lists each row: checked,
   modelled, or why not.

   Columns: the case, the operation, PacketEn before and after, ContextEn
   after (SDM_DC: "don't care"), the condition column in short, the
   packets in the SDM's notation ("?" a packet that may be absent; IPs:
   BLIP the branch's target, NLIP the next instruction's, CLIP the current
   one's, () none; "PSB, PSBEND" a whole PSB+; "None" nothing), how the
   model makes it (SDM_MODEL_*; SDM_MODEL_NONE: it does not) and a note.
   Rows whose packets read "NA" (the state cannot happen) or "See WRMSR
   cases" have no packets of their own here (packets NULL).

   Not at hand where this was written: the ends of pages 36-65 (cases 1
   and 2a), 36-66 and 36-67 (2c, 4, 6c's packets, 6d, 7a, 7c, 10b's
   packets, 10c), 36-69 (13a's packets), 36-72 (23c-24d) and 36-73 (30c
   on), and page 36-71 (15c on, 16, 17a-17c, 17e, 18, 19, 20b). */
#ifndef PTCODEC_TESTS_SDM_TABLE_H
#define PTCODEC_TESTS_SDM_TABLE_H

#include "../ptcodec.h"

enum { SDM_DC = -1 };

/* What the model does to make a row's operation (test_conform.c runs it). */
typedef enum sdm_model_op {
    SDM_MODEL_NONE,
    SDM_MODEL_WRMSR_OFF,       /* ptc_model_stop_at */
    SDM_MODEL_CR3,             /* ptc_model_cr3, with OS traced (a PIP needs it) */
    SDM_MODEL_TAKEN,           /* ptc_model_branch, taken */
    SDM_MODEL_TAKEN_NONEMPTY,  /* the same with one branch already in the TNT buffer */
    SDM_MODEL_TAKEN_FILLS,     /* the same as the buffer's last bit */
    SDM_MODEL_NOT_TAKEN,
    SDM_MODEL_NOT_TAKEN_FILLS,
    SDM_MODEL_INDIRECT,        /* ptc_model_jump */
    SDM_MODEL_FAR,             /* ptc_model_mode: a far branch that changes the mode */
    SDM_MODEL_HW_INT,          /* ptc_model_interrupt_cpl after the instruction (NLIP) */
    SDM_MODEL_SW_INT,          /* ptc_model_interrupt_cpl at the INT (CLIP) */
    SDM_MODEL_EXCEPTION,       /* ptc_model_interrupt_cpl at the faulting instruction (CLIP) */
    SDM_MODEL_TSX_BEGIN,       /* ptc_model_tsx: XBEGIN, XEND, an abort to the target */
    SDM_MODEL_TSX_COMMIT,
    SDM_MODEL_TSX_ABORT
} sdm_model_op;

typedef struct sdm_row {
    const char *id, *operation;
    int before, after, ctx_after;
    const char *condition;
    const char *packets;
    sdm_model_op model;
    const char *note;
    const char *breaks;   /* the rule the row's packets, as the SDM prints them, break (NULL: none) */
} sdm_row;

#define SDM_MODE_CHANGED "MODE.Exec if the mode changed since the last MODE.Exec, or none since the last PSB"
#define SDM_MODE_SINCE_PGD "MODE.Exec if the value differs from the last one since the last TIP.PGD"
#define SDM_MODE_LD "MODE.Exec if CS.L/D or IA32_EFER.LMA changes"
#define SDM_PIP "PIP if CR3 changes (a task switch) and OS=1; NR if the target is VMX non-root and not concealed"
#define SDM_STOP "TraceStop if the target is in a TraceStop range"

static const sdm_row sdm_rows[] = {
    { "2b", "WRMSR/XRSTORS/RSM setting TraceEn, PacketByteCnt 0", 0, 0, SDM_DC,
      "TSC if TSCEn; TMA if TSCEn and MTCEn", "PSB, PSBEND", SDM_MODEL_NONE,
      "the model starts a trace with its PSB+ and then TIP.PGE (2e's packets in another order), as every real trace does", NULL },
    { "2d", "WRMSR/XRSTORS/RSM setting TraceEn, PacketByteCnt above 0", 0, 1, 1,
      "TSC if TSCEn; TMA if TSCEn and MTCEn", "TSC?, TMA?, CBR, MODE.Exec, TIP.PGE(NLIP)", SDM_MODEL_NONE,
      "the model's enable is always a first one (PacketByteCnt 0)", NULL },
    { "2e", "WRMSR/XRSTORS/RSM setting TraceEn, PacketByteCnt 0", 0, 1, 1,
      "", "MODE.Exec, TIP.PGE(NLIP), PSB, PSBEND", SDM_MODEL_NONE,
      "the model writes the PSB+ first, then MODE.Exec and TIP.PGE, as every real trace in ../shared starts", NULL },
    { "3a", "WRMSR clearing TraceEn", 0, 0, SDM_DC, "", "None", SDM_MODEL_NONE, "nothing to write", NULL },
    { "3b", "WRMSR clearing TraceEn", 1, 0, SDM_DC, "", "FUP(CLIP), TIP.PGD()", SDM_MODEL_WRMSR_OFF, "", NULL },
    { "5a", "MOV to CR3", 0, 0, 0, "", "None", SDM_MODEL_NONE, "needs CR3 filtering, which the model lacks", NULL },
    { "5f", "MOV to CR3", 0, 0, 1, SDM_STOP, "PIP(NewCR3, NR?), TraceStop?", SDM_MODEL_CR3, "", NULL },
    { "5b", "MOV to CR3", 0, 1, 1, SDM_PIP "; " SDM_MODE_CHANGED, "PIP(NewCR3, NR?), MODE.Exec?, TIP.PGE(NLIP)",
      SDM_MODEL_NONE, "needs CR3 filtering", NULL },
    { "5c", "MOV to CR3", 1, 0, 0, "", "TIP.PGD()", SDM_MODEL_NONE, "needs CR3 filtering", NULL },
    { "5e", "MOV to CR3", 1, 0, 1, SDM_PIP "; " SDM_STOP, "PIP(NewCR3, NR?), TIP.PGD(NLIP), TraceStop?", SDM_MODEL_NONE,
      "needs CR3 filtering; the SDM prints TIP.PGE(NLIP) here, where PacketEn goes from 1 to 0: read as TIP.PGD", NULL },
    { "5d", "MOV to CR3", 1, 1, 1, SDM_PIP, "PIP(NewCR3, NR?)", SDM_MODEL_CR3, "", NULL },
    { "6a", "unconditional direct near jump", 0, 0, SDM_DC, "", "None", SDM_MODEL_NONE,
      "a direct jump is no branch the model takes apart from its target (ptc_model_jump is indirect)", NULL },
    { "6b", "unconditional direct near jump", 1, 0, 1, SDM_STOP, "TIP.PGD(BLIP), TraceStop?", SDM_MODEL_NONE,
      "as 6a", NULL },
    { "7b", "conditional taken jump or compressed RET", 0, 1, 1, SDM_MODE_CHANGED, "MODE.Exec?, TIP.PGE(BLIP)",
      SDM_MODEL_TAKEN, "", NULL },
    { "7e", "conditional taken jump or compressed RET, empty TNT buffer", 1, 0, 1, SDM_STOP, "TIP.PGD(), TraceStop?",
      SDM_MODEL_TAKEN, "", NULL },
    { "7f", "conditional taken jump or compressed RET, non-empty TNT buffer", 1, 0, 1, SDM_STOP,
      "TNT, TIP.PGD(), TraceStop?", SDM_MODEL_TAKEN_NONEMPTY, "", NULL },
    { "7d", "conditional taken jump or compressed RET that fills the TNT buffer", 1, 1, 1, "", "TNT",
      SDM_MODEL_TAKEN_FILLS, "", NULL },
    { "8a", "conditional not-taken jump", 0, 0, SDM_DC, "", "None", SDM_MODEL_NOT_TAKEN, "", NULL },
    { "8d", "conditional not-taken jump that fills the TNT buffer", 1, 1, 1, "", "TNT", SDM_MODEL_NOT_TAKEN_FILLS, "", NULL },
    { "9a", "near indirect jump (JMP, CALL, uncompressed RET)", 0, 0, SDM_DC, "", "None", SDM_MODEL_INDIRECT, "", NULL },
    { "9b", "near indirect jump (JMP, CALL, uncompressed RET)", 0, 1, 1, SDM_MODE_CHANGED, "MODE.Exec?, TIP.PGE(BLIP)",
      SDM_MODEL_INDIRECT, "", NULL },
    { "9c", "near indirect jump (JMP, CALL, uncompressed RET)", 1, 0, 1, SDM_STOP, "TIP.PGD(BLIP), TraceStop?",
      SDM_MODEL_INDIRECT, "", NULL },
    { "9d", "near indirect jump (JMP, CALL, uncompressed RET)", 1, 1, 1, "", "TIP(BLIP)", SDM_MODEL_INDIRECT, "", NULL },
    { "10a", "far branch (CALL/JMP/RET)", 0, 0, 0, "", "None", SDM_MODEL_NONE, "ContextEn 0 after a far branch: the model's far branches stay in context", NULL },
    { "10f", "far branch (CALL/JMP/RET)", 0, 0, 1, SDM_PIP "; " SDM_STOP, "PIP(NewCR3, NR?)?, TraceStop?", SDM_MODEL_NONE,
      "the model's far branches stay where tracing is; the SDM's PIP has no \"?\" here, its condition makes it one", NULL },
    { "10d", "far branch (CALL/JMP/RET)", 1, 0, 1, SDM_PIP "; " SDM_STOP, "PIP(NewCR3, NR?)?, TIP.PGD(BLIP), TraceStop?",
      SDM_MODEL_FAR, "the SDM's PIP has no \"?\" here; its condition makes it one", NULL },
    { "10e", "far branch (CALL/JMP/RET)", 1, 1, 1, SDM_PIP "; " SDM_MODE_LD, "PIP(NewCR3, NR?)?, MODE.Exec?, TIP(BLIP)",
      SDM_MODEL_FAR, "", NULL },
    { "11a", "hardware interrupt", 0, 0, 0, "", "None", SDM_MODEL_HW_INT, "", NULL },
    { "11f", "hardware interrupt", 0, 0, 1, SDM_PIP "; " SDM_STOP, "PIP(NewCR3, NR?)?, TraceStop?", SDM_MODEL_HW_INT,
      "the SDM's PIP has no \"?\" here; its condition makes it one", NULL },
    { "11b", "hardware interrupt", 0, 1, 1, SDM_PIP "; " SDM_MODE_CHANGED, "PIP(NewCR3, NR?)?, MODE.Exec?, TIP.PGE(BLIP)",
      SDM_MODEL_HW_INT, "(as 11f)", NULL },
    { "11c", "hardware interrupt", 1, 0, 0, "", "FUP(NLIP), TIP.PGD()", SDM_MODEL_HW_INT, "", NULL },
    { "11d", "hardware interrupt", 1, 0, 1, SDM_PIP "; " SDM_STOP, "FUP(NLIP), PIP(NewCR3, NR?)?, TIP.PGD(BLIP), TraceStop?",
      SDM_MODEL_HW_INT, "the SDM's TraceStop has no \"?\" here; its condition makes it one", NULL },
    { "11e", "hardware interrupt", 1, 1, 1, SDM_PIP "; " SDM_MODE_LD, "FUP(NLIP), PIP(NewCR3, NR?)?, MODE.Exec?, TIP(BLIP)",
      SDM_MODEL_HW_INT, "", NULL },
    { "12a", "software interrupt", 0, 0, 0, "", "None", SDM_MODEL_SW_INT, "", NULL },
    { "12f", "software interrupt", 0, 0, 1, SDM_PIP "; " SDM_STOP, "PIP(NewCR3, NR?)?, TraceStop?", SDM_MODEL_SW_INT, "", NULL },
    { "12b", "software interrupt", 0, 1, 1, SDM_PIP "; " SDM_MODE_CHANGED, "PIP(NewCR3, NR?)?, MODE.Exec?, TIP.PGE(BLIP)",
      SDM_MODEL_SW_INT, "", NULL },
    { "12c", "software interrupt", 1, 0, 0, "", "FUP(CLIP), TIP.PGD()", SDM_MODEL_SW_INT, "", NULL },
    { "12d", "software interrupt", 1, 0, 1, SDM_PIP "; " SDM_STOP, "FUP(CLIP), PIP(NewCR3, NR?)?, TIP.PGD(BLIP), TraceStop?",
      SDM_MODEL_SW_INT, "", NULL },
    { "12e", "software interrupt", 1, 1, 1, SDM_PIP "; " SDM_MODE_LD,
      "FUP(CLIP), PIP(NewCR3, NR?)?, FUP(NLIP), MODE.Exec?, TIP(BLIP)", SDM_MODEL_NONE,
      "a second FUP that no other row has and neither libipt nor perf expects: the checker holds the first FUP to its "
      "TIP (fup_alone), and the model traces INT n as 12c-12d and 11e do", "fup_alone" },
    { "13f", "exception or fault", 0, 0, 1, SDM_PIP "; " SDM_STOP, "PIP(NewCR3, NR?)?, TraceStop?", SDM_MODEL_EXCEPTION, "", NULL },
    { "13b", "exception or fault", 0, 1, 1, SDM_PIP "; " SDM_MODE_CHANGED, "PIP(NewCR3, NR?)?, MODE.Exec?, TIP.PGE(BLIP)",
      SDM_MODEL_EXCEPTION, "", NULL },
    { "13c", "exception or fault", 1, 0, 0, "", "FUP(CLIP), TIP.PGD()", SDM_MODEL_EXCEPTION, "", NULL },
    { "13d", "exception or fault", 1, 0, 1, SDM_PIP "; " SDM_STOP, "FUP(CLIP), PIP(NewCR3, NR?)?, TIP.PGD(BLIP), TraceStop?",
      SDM_MODEL_EXCEPTION, "", NULL },
    { "13e", "exception or fault", 1, 1, 1, SDM_PIP "; " SDM_MODE_LD, "FUP(CLIP), PIP(NewCR3, NR?)?, MODE.Exec?, TIP(BLIP)",
      SDM_MODEL_EXCEPTION, "", NULL },
    { "14a", "SMI (TraceEn cleared)", 0, 0, SDM_DC, "", "None", SDM_MODEL_NONE, "the model has no SMM", NULL },
    { "14b", "SMI (TraceEn cleared)", 1, 0, 0, "", "FUP(LIP), TIP.PGD()", SDM_MODEL_NONE,
      "the model has no SMM; the FUP's IP is the SMRAM-saved LIP", NULL },
    { "14f", "SMI (TraceEn cleared)", 1, 0, 1, "", NULL, SDM_MODEL_NONE, "NA in the SDM: ContextEn cannot stay 1", NULL },
    { "14c", "SMI (TraceEn cleared)", 1, 1, 1, "", NULL, SDM_MODEL_NONE, "NA in the SDM: PacketEn cannot stay 1", NULL },
    { "15a", "RSM, TraceEn restored to 0", 0, 0, 0, "", "None", SDM_MODEL_NONE, "the model has no SMM", NULL },
    { "15b", "RSM, TraceEn restored to 1", 0, 0, SDM_DC, "", NULL, SDM_MODEL_NONE,
      "the SDM: the WRMSR rows' packets of an enable (2b-2e)", NULL },
    { "17d", "VM entry, the MSR load list sets TraceEn", 0, 1, 1, "", NULL, SDM_MODEL_NONE,
      "the SDM: the WRMSR rows' packets of an enable, with the guest's LIP as the FUP's and TIP.PGE's IP", NULL },
    { "17f", "VM entry, FilterEn 0 to 1", 0, 1, 1,
      "PIP if OF=1 and VM entries are not concealed; " SDM_MODE_SINCE_PGD,
      "PIP(GuestCR3, NR=1)?, MODE.Exec?, TIP.PGE(LIP)", SDM_MODEL_NONE, "the model has no VMX", NULL },
    { "17j", "VM entry, ContextEn 0 to 1", 0, 1, 1, SDM_MODE_SINCE_PGD, "MODE.Exec, TIP.PGE(LIP)", SDM_MODEL_NONE,
      "the model has no VMX", NULL },
    { "17g", "VM entry, the MSR load list clears TraceEn", 1, 0, 0, "PIP if OF=1 and VM entries are not concealed",
      "PIP(GuestCR3, NR=1)?, TIP.PGD()", SDM_MODEL_NONE, "the model has no VMX; the SDM writes TIP.PGD with no IP", NULL },
    { "17h", "VM entry", 1, 0, 1, "PIP if OF=1 and VM entries are not concealed; TraceStop if the guest's LIP is in a TraceStop range",
      "PIP(GuestCR3, NR=1)?, TIP.PGD(LIP), TraceStop?", SDM_MODEL_NONE, "the model has no VMX", NULL },
    { "17i", "VM entry", 1, 1, 1, "PIP if OF=1 and VM entries are not concealed; " SDM_MODE_SINCE_PGD,
      "PIP(GuestCR3, NR=1)?, MODE.Exec, TIP(LIP)", SDM_MODEL_NONE, "the model has no VMX", NULL },
    { "20a", "EENTER/ERESUME to a non-debug enclave", 0, 0, 0, "", "None", SDM_MODEL_NONE, "the model has no SGX", NULL },
    { "20c", "EENTER/ERESUME to a non-debug enclave", 1, 0, 0, "", "FUP(CLIP), TIP.PGD()", SDM_MODEL_NONE,
      "the model has no SGX", NULL },
    { "21a", "EEXIT from a non-debug enclave", 0, 0, SDM_DC, "", "None", SDM_MODEL_NONE, "the model has no SGX", NULL },
    { "21b", "EEXIT from a non-debug enclave", 0, 1, 1, SDM_MODE_SINCE_PGD, "MODE.Exec?, TIP.PGE(BLIP)", SDM_MODEL_NONE,
      "the model has no SGX", NULL },
    { "22a", "AEX/EEE from a non-debug enclave", 0, 0, SDM_DC, "", "None", SDM_MODEL_NONE, "the model has no SGX", NULL },
    { "22b", "AEX/EEE from a non-debug enclave", 0, 1, 1, SDM_MODE_SINCE_PGD, "MODE.Exec?, TIP.PGE(LIP)", SDM_MODEL_NONE,
      "the model has no SGX; the IP is the AEP's", NULL },
    { "23a", "EENTER/ERESUME to a debug enclave", 0, 0, SDM_DC, "", "None", SDM_MODEL_NONE, "the model has no SGX", NULL },
    { "23b", "EENTER/ERESUME to a debug enclave", 0, 1, 1, SDM_MODE_SINCE_PGD, "MODE.Exec?, TIP.PGE(BLIP)", SDM_MODEL_NONE,
      "the model has no SGX", NULL },
    { "24e", "EEXIT from a debug enclave", 1, 1, 1, "", "FUP(CLIP), TIP(BLIP)", SDM_MODEL_NONE, "the model has no SGX", NULL },
    { "25a", "AEX/EEE from a debug enclave", 0, 0, SDM_DC, "", "None", SDM_MODEL_NONE, "the model has no SGX", NULL },
    { "25b", "AEX/EEE from a debug enclave", 0, 1, 1, SDM_MODE_SINCE_PGD, "MODE.Exec?, TIP.PGE(LIP)", SDM_MODEL_NONE,
      "the model has no SGX; the IP is the AEP's", NULL },
    { "25d", "AEX/EEE from a debug enclave", 1, 0, 1, "for an AEX of a trap-like event the FUP may give NLIP",
      "FUP(CLIP), TIP.PGD(LIP)", SDM_MODEL_NONE, "the model has no SGX; the TIP.PGD's IP is the AEP's", NULL },
    { "25e", "AEX/EEE from a debug enclave", 1, 1, 1, SDM_MODE_SINCE_PGD "; for an AEX of a trap-like event the FUP may give NLIP",
      "FUP(CLIP), MODE.Exec?, TIP(LIP)", SDM_MODEL_NONE, "the model has no SGX; the TIP's IP is the AEP's", NULL },
    { "26a", "XBEGIN/XACQUIRE", 0, 0, SDM_DC, "", "None", SDM_MODEL_NONE, "outside the filter the model still writes MODE.TSX (ContextEn is enough)", NULL },
    { "26d", "XBEGIN/XACQUIRE that does not set InTX (nested)", 1, 1, 1, "", "None", SDM_MODEL_NONE,
      "the model's transactions do not nest", NULL },
    { "26e", "XBEGIN/XACQUIRE that sets InTX", 1, 1, 1, "", "MODE(InTX=1, TXAbort=0), FUP(CLIP)", SDM_MODEL_TSX_BEGIN, "", NULL },
    { "27a", "XEND/XRELEASE", 0, 0, SDM_DC, "", "None", SDM_MODEL_NONE, "as 26a", NULL },
    { "27d", "XEND/XRELEASE that does not clear InTX (nested)", 1, 1, 1, "", "None", SDM_MODEL_NONE, "as 26d", NULL },
    { "27e", "XEND/XRELEASE that clears InTX", 1, 1, 1, "", "MODE(InTX=0, TXAbort=0), FUP(CLIP)", SDM_MODEL_TSX_COMMIT, "", NULL },
    { "28a", "XABORT (asynchronous, or other)", 0, 0, 0, "", "None", SDM_MODEL_NONE, "an abort into untraced context", NULL },
    { "28e", "XABORT (asynchronous, or other)", 0, 0, 1, SDM_STOP, "MODE(InTX=0, TXAbort=1), TraceStop?", SDM_MODEL_NONE,
      "the model writes what 28b, 28c and 28d write, but its tests run aborts only inside the filter", NULL },
    { "28b", "XABORT (asynchronous, or other)", 0, 1, 1, "", "MODE(InTX=0, TXAbort=1), TIP.PGE(BLIP)", SDM_MODEL_NONE, "as 28e", NULL },
    { "28c", "XABORT (asynchronous, or other)", 1, 0, 1, SDM_STOP, "MODE(InTX=0, TXAbort=1), TIP.PGD(BLIP), TraceStop?",
      SDM_MODEL_NONE, "the model writes FUP(CLIP) before the TIP.PGD, as 28d before its TIP; the SDM writes none here", NULL },
    { "28d", "XABORT (asynchronous, or other)", 1, 1, 1, "", "MODE(InTX=0, TXAbort=1), FUP(CLIP), TIP(BLIP)",
      SDM_MODEL_TSX_ABORT, "", NULL },
    { "30a", "INIT (BSP)", 0, 0, 0, "", "None", SDM_MODEL_NONE, "the model has no INIT", NULL },
    { "30b", "INIT (BSP)", 0, 0, 1, "TraceStop if RESET.LIP is in a TraceStop range", "PIP(0), TraceStop?", SDM_MODEL_NONE,
      "the model has no INIT; the page prints BIP(0), and INIT clears CR3: read PIP(0)", NULL }
};

#endif

/* The QEMU plugin's change-of-flow classifier (tools/qemu/x86class.h),
   against instructions assembled by hand from the SDM's opcode map: every
   class, the prefixes compilers put before branches, and truncated bytes
   (QEMU hands over the bytes it read before it gave up on an instruction). */
#include "../tools/qemu/x86class.h"
#include "testlib.h"

typedef struct vector {
    const char *what;
    uint8_t bytes[16];
    size_t len;
    x86_cofi cofi;
    uint64_t target; /* checked for the direct branches */
} vector;

#define AT 0x401000u

static const vector vectors[] = {
    { "je rel8", { 0x74, 0x05 }, 2, X86_JCC, AT + 7 },
    { "jne rel32 back", { 0x0F, 0x85, 0xF0, 0xFF, 0xFF, 0xFF }, 6, X86_JCC, AT + 6 - 0x10 },
    { "jg rel32", { 0x0F, 0x8F, 0x10, 0x00, 0x00, 0x00 }, 6, X86_JCC, AT + 0x16 },
    { "jrcxz", { 0xE3, 0xFE }, 2, X86_JCC, AT },
    { "loop", { 0xE2, 0x10 }, 2, X86_JCC, AT + 0x12 },
    { "jmp rel8 to itself", { 0xEB, 0xFE }, 2, X86_JMP, AT },
    { "jmp rel32", { 0xE9, 0x00, 0x01, 0x00, 0x00 }, 5, X86_JMP, AT + 0x105 },
    { "bnd jmp rel32", { 0xF2, 0xE9, 0x00, 0x01, 0x00, 0x00 }, 6, X86_JMP, AT + 0x106 },
    { "call rel32", { 0xE8, 0xFB, 0xFF, 0xFF, 0xFF }, 5, X86_CALL, AT },
    { "call next (zero-length)", { 0xE8, 0x00, 0x00, 0x00, 0x00 }, 5, X86_CALL, AT + 5 },
    { "call *%rax", { 0xFF, 0xD0 }, 2, X86_CALL_IND, 0 },
    { "call *%r11", { 0x41, 0xFF, 0xD3 }, 3, X86_CALL_IND, 0 },
    { "call *rel(%rip)", { 0xFF, 0x15, 0x10, 0x20, 0x00, 0x00 }, 6, X86_CALL_IND, 0 },
    { "notrack call *%rdx", { 0x3E, 0xFF, 0xD2 }, 3, X86_CALL_IND, 0 },
    { "jmp *%rax", { 0xFF, 0xE0 }, 2, X86_JMP_IND, 0 },
    { "notrack jmp *table(,%rax,8)", { 0x3E, 0xFF, 0x24, 0xC5, 0x00, 0x10, 0x40, 0x00 }, 8, X86_JMP_IND, 0 },
    { "lcall *(%rsp)", { 0xFF, 0x1C, 0x24 }, 3, X86_FAR, 0 },
    { "ljmp *(%rax)", { 0xFF, 0x28 }, 2, X86_FAR, 0 },
    { "ret", { 0xC3 }, 1, X86_RET, 0 },
    { "repz ret", { 0xF3, 0xC3 }, 2, X86_RET, 0 },
    { "bnd ret", { 0xF2, 0xC3 }, 2, X86_RET, 0 },
    { "ret imm16", { 0xC2, 0x08, 0x00 }, 3, X86_RET, 0 },
    { "lret", { 0xCB }, 1, X86_FAR, 0 },
    { "lret imm16", { 0xCA, 0x08, 0x00 }, 3, X86_FAR, 0 },
    { "iretq", { 0x48, 0xCF }, 2, X86_FAR, 0 },
    { "sysret", { 0x0F, 0x07 }, 2, X86_FAR, 0 },
    { "sysexit", { 0x0F, 0x35 }, 2, X86_FAR, 0 },
    { "syscall", { 0x0F, 0x05 }, 2, X86_TO_KERNEL, 0 },
    { "sysenter", { 0x0F, 0x34 }, 2, X86_TO_KERNEL, 0 },
    { "int3", { 0xCC }, 1, X86_TO_KERNEL, 0 },
    { "int 0x80", { 0xCD, 0x80 }, 2, X86_TO_KERNEL, 0 },
    { "into", { 0xCE }, 1, X86_TO_KERNEL, 0 },
    { "rep movsb", { 0xF3, 0xA4 }, 2, X86_REP, 0 },
    { "rep movsq", { 0xF3, 0x48, 0xA5 }, 3, X86_REP, 0 },
    { "rep stosb", { 0xF3, 0xAA }, 2, X86_REP, 0 },
    { "repne scasb", { 0xF2, 0xAE }, 2, X86_REP, 0 },
    { "rep insb", { 0xF3, 0x6C }, 2, X86_REP, 0 },
    { "movsb, no REP", { 0xA4 }, 1, X86_NONE, 0 },
    { "nop", { 0x90 }, 1, X86_NONE, 0 },
    { "xchg %ax,%ax", { 0x66, 0x90 }, 2, X86_NONE, 0 },
    { "mov %rsp,%rbp", { 0x48, 0x89, 0xE5 }, 3, X86_NONE, 0 },
    { "endbr64", { 0xF3, 0x0F, 0x1E, 0xFA }, 4, X86_NONE, 0 },
    { "nopl 0(%rax,%rax)", { 0x0F, 0x1F, 0x44, 0x00, 0x00 }, 5, X86_NONE, 0 },
    { "inc %eax (FF /0)", { 0xFF, 0xC0 }, 2, X86_NONE, 0 },
    { "push (%rax) (FF /6)", { 0xFF, 0x30 }, 2, X86_NONE, 0 },
    { "ud2", { 0x0F, 0x0B }, 2, X86_NONE, 0 },
    { "truncated call rel32", { 0xE8, 0x00 }, 2, X86_NONE, 0 },
    { "truncated je rel8", { 0x74 }, 1, X86_NONE, 0 },
    { "truncated jne rel32", { 0x0F, 0x85, 0x00 }, 3, X86_NONE, 0 },
    { "truncated FF", { 0xFF }, 1, X86_NONE, 0 },
    { "truncated 0F", { 0x0F }, 1, X86_NONE, 0 },
    { "prefixes only", { 0x66, 0x2E }, 2, X86_NONE, 0 },
    { "nothing", { 0 }, 0, X86_NONE, 0 },
};

static void every_vector_is_classified(void)
{
    size_t i;
    for (i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        const vector *v = &vectors[i];
        x86_insn_class c = x86_classify(v->bytes, v->len, AT);
        CHECK(c.cofi == v->cofi, "%s: %s, want %s", v->what, x86_cofi_names[c.cofi], x86_cofi_names[v->cofi]);
        if (v->cofi == X86_JCC || v->cofi == X86_JMP || v->cofi == X86_CALL)
            CHECK(c.target == v->target, "%s: target %llx, want %llx", v->what, (unsigned long long)c.target,
                  (unsigned long long)v->target);
    }
}

/* A branch near the top of the address space wraps as the hardware's
   64-bit addition does, and the classifier never reads past len. */
static void targets_wrap_and_reads_stay_inside(void)
{
    static const uint8_t jmp_back[] = { 0xE9, 0x00, 0x00, 0x00, 0x80 };
    uint8_t *exact = (uint8_t *)malloc(6);
    x86_insn_class c = x86_classify(jmp_back, sizeof jmp_back, 0x10);
    size_t n;
    CHECK(c.cofi == X86_JMP && c.target == (uint64_t)0x15 - 0x80000000u, "target %llx", (unsigned long long)c.target);
    /* every prefix of a long instruction in a buffer of exactly that size
       (ASan reports a read past it) */
    for (n = 0; exact && n <= 6; n++) {
        static const uint8_t jne[] = { 0x0F, 0x85, 0xF0, 0xFF, 0xFF, 0xFF };
        uint8_t *b = exact + 6 - n;
        memcpy(b, jne, n);
        c = x86_classify(b, n, AT);
        CHECK(c.cofi == (n == 6 ? X86_JCC : X86_NONE), "%zu bytes: %s", n, x86_cofi_names[c.cofi]);
    }
    free(exact);
}

int main(void)
{
    RUN(every_vector_is_classified);
    RUN(targets_wrap_and_reads_stay_inside);
    TESTLIB_EXIT();
}

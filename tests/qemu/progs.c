/* progs.c - the programs the QEMU plugin is proven on (tests/test_qemu.sh):
   every kind of control flow a compiler and libc produce, one scenario per
   argument. Each prints a checksum, so a broken run shows.

     progs recursion|pointers|switch|longjmp|signals|syscalls|loop|interp|asm|threads|all */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile unsigned long sink;

/* deeper than the 64-entry RET compression stack */
static unsigned long ackermann(unsigned long m, unsigned long n)
{
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

static unsigned long depth(unsigned n) { return n ? 1 + depth(n - 1) * 3 % 1000003 : 0; }

static void recursion(void) { sink = ackermann(2, 300) + depth(500); }

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
static unsigned long twice(unsigned long x) { return 2 * x; }
static unsigned long plus3(unsigned long x) { return x + 3; }
static unsigned long square(unsigned long x) { return x * x % 65521; }

static void pointers(void)
{
    static unsigned long (*const ops[])(unsigned long) = { twice, plus3, square };
    int v[300];
    unsigned i;
    unsigned long acc = 1;
    for (i = 0; i < 300; i++) v[i] = (int)((i * 7919u) % 1009u);
    qsort(v, 300, sizeof v[0], by_value);
    for (i = 0; i < 3000; i++) acc = ops[(acc + i) % 3](acc) % 1000003;
    sink = acc + (unsigned long)v[150];
}

/* dense cases: a jump table */
static int classify(int c)
{
    switch (c) {
    case 0: return 11; case 1: return 7; case 2: return 19; case 3: return 5;
    case 4: return 23; case 5: return 2; case 6: return 31; case 7: return 13;
    case 8: return 3; case 9: return 17; default: return 1;
    }
}

static void jump_table(void)
{
    unsigned long acc = 0;
    int i;
    for (i = 0; i < 20000; i++) acc += (unsigned long)classify((i * 13) % 12);
    sink = acc;
}

static jmp_buf env;
static void deep_then_jump(int n)
{
    if (n == 0) longjmp(env, 42);
    deep_then_jump(n - 1);
    sink++;
}

static void long_jumps(void)
{
    int i, total = 0;
    for (i = 0; i < 50; i++) {
        int r = setjmp(env);
        if (r == 0) deep_then_jump(i % 20);
        else total += r;
    }
    sink = (unsigned long)total;
}

static volatile sig_atomic_t caught;
static void on_signal(int sig) { caught += sig; }

static void signals(void)
{
    int i;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    for (i = 0; i < 20; i++) {
        if (i % 2) raise(SIGUSR1);
        else kill(getpid(), SIGUSR2);
    }
    sink = (unsigned long)caught;
}

static void syscalls(void)
{
    char buf[64];
    unsigned long acc = 0;
    int i;
    FILE *f = fopen("/dev/zero", "rb");
    for (i = 0; i < 100; i++) {
        acc += (unsigned long)syscall(SYS_getpid) % 7;
        if (f && fread(buf, 1, sizeof buf, f) == sizeof buf) acc += (unsigned long)buf[i % 64];
    }
    if (f) fclose(f);
    sink = acc;
}

static void long_loop(void)
{
    unsigned long acc = 0, i;
    for (i = 0; i < 3000000; i++) acc += (i & 7) == 3 ? i : acc >> 3;
    sink = acc;
}

/* a small bytecode interpreter, dispatching with a switch */
enum { OP_PUSH, OP_ADD, OP_MUL, OP_DUP, OP_SWAP, OP_JNZ, OP_DEC, OP_POP, OP_HALT };

static long interpret(const int *code)
{
    long stack[64];
    int sp = 0, pc = 0;
    for (;;) {
        int op = code[pc++];
        switch (op) {
        case OP_PUSH: stack[sp++] = code[pc++]; break;
        case OP_ADD: sp--; stack[sp - 1] += stack[sp]; break;
        case OP_MUL: sp--; stack[sp - 1] = stack[sp - 1] * stack[sp] % 1000003; break;
        case OP_DUP: stack[sp] = stack[sp - 1]; sp++; break;
        case OP_SWAP: { long t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; break; }
        case OP_JNZ: { int to = code[pc++]; if (stack[sp - 1]) pc = to; break; }
        case OP_DEC: stack[sp - 1]--; break;
        case OP_POP: sp--; break;
        default: return stack[0];
        }
    }
}

static void interp(void)
{
    /* acc = 1; n = 5000; do { acc = acc * 3 + n; } while (--n); */
    static const int code[] = { OP_PUSH, 1, OP_PUSH, 5000,
                                /* 4: */ OP_SWAP, OP_PUSH, 3, OP_MUL, OP_SWAP, OP_DUP, OP_SWAP, OP_POP,
                                OP_SWAP, OP_PUSH, 1, OP_ADD, OP_SWAP, OP_DEC, OP_JNZ, 4, OP_HALT };
    sink = (unsigned long)interpret(code);
}

/* What compilers rarely write: a zero-length CALL (reading the IP), a
   RET to somewhere else than the call's next instruction, REP string
   instructions that repeat. */
static void odd_flow(void)
{
#if defined(__x86_64__)
    unsigned long ip, i;
    char src[4096], dst[4096];
    for (i = 0; i < 50; i++) {
        __asm__ volatile("call 1f\n1: pop %0" : "=r"(ip));
        sink += ip & 1;
        __asm__ volatile("lea 2f(%%rip), %%rax\n push %%rax\n ret\n 2:" ::: "rax", "memory");
    }
    memset(src, 7, sizeof src);
    for (i = 0; i < 20; i++) {
        void *d = dst, *s = src;
        unsigned long n = 1000 + i * 100;
        __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
        sink += (unsigned long)dst[i];
    }
#endif
}

static void *worker(void *arg)
{
    unsigned long n = (unsigned long)arg, acc = 0, i;
    for (i = 0; i < 20000 * n; i++) acc += i % (n + 2) ? 1 : ackermann(1, 5);
    return (void *)acc;
}

static void threads(void)
{
    pthread_t t[3];
    unsigned long k, acc = 0;
    for (k = 0; k < 3; k++) pthread_create(&t[k], NULL, worker, (void *)(k + 1));
    for (k = 0; k < 3; k++) {
        void *r;
        pthread_join(t[k], &r);
        acc += (unsigned long)r;
    }
    sink = acc;
}

static const struct { const char *name; void (*run)(void); } scenarios[] = {
    { "recursion", recursion }, { "pointers", pointers }, { "switch", jump_table }, { "longjmp", long_jumps },
    { "signals", signals }, { "syscalls", syscalls }, { "loop", long_loop }, { "interp", interp },
    { "asm", odd_flow }, { "threads", threads },
};

int main(int argc, char **argv)
{
    size_t i;
    int ran = 0;
    for (i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        if (argc > 1 && (strcmp(argv[1], scenarios[i].name) == 0 || (strcmp(argv[1], "all") == 0 && scenarios[i].run != threads))) {
            scenarios[i].run();
            printf("%s %lu\n", scenarios[i].name, sink);
            ran = 1;
        }
    if (!ran) {
        fprintf(stderr, "usage: progs recursion|pointers|switch|longjmp|signals|syscalls|loop|interp|asm|threads|all\n");
        return 2;
    }
    return 0;
}

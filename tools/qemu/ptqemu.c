/* ptqemu.c - software Intel PT for any Linux x86-64 program: a QEMU TCG
   plugin that drives ptcodec's hardware model (SPEC.md part 5) from the
   program's real execution, and writes the trace the model emits, the
   code image a decoder needs, and on request every executed instruction.

     qemu-x86_64 -plugin build/libptcodec-qemu.so,out=prog.pt[,KEY=VALUE...] ./prog args
     qemu-x86_64 -plugin build/libptcodec-qemu.so,help /bin/true   (the settings)

   How execution becomes model events (SPEC.md 5.11): QEMU runs the program
   in translation blocks that end at a change of flow. When a block starts
   executing, the block before it on the same thread is complete, and where
   its last instruction went is the new block's address: a conditional
   branch taken or not, an indirect target, a RET's return address. Each
   block costs `cpi` core cycles per instruction. A system call is a far
   transfer into the kernel (not traced: TIP.PGD) and back (TIP.PGE) after
   `kernel_cycles`; a block that ends somewhere its last instruction cannot
   go is a signal delivered there (FUP, TIP.PGD ... TIP.PGE). */
#define _GNU_SOURCE /* syscall(SYS_gettid) */
#define PTCODEC_IMPLEMENTATION
#include "../../ptcodec.h"
#include "../../harness/util.h"
#include "../modelcfg.h"
#include "qemu_api.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = PQ_QEMU_PLUGIN_VERSION;

/* Where the model's thread runs while the kernel handles a system call or
   delivers a signal: addresses a CPL-0 entry point and exit would have.
   They never reach the trace (the kernel is not traced). */
#define PQ_KERNEL_ENTRY UINT64_C(0xffffffff81000000)
#define PQ_KERNEL_EXIT UINT64_C(0xffffffff81000100)
#define PQ_MAX_VCPUS 256
#define PQ_PAGE 4096u

static const char pq_usage[] =
    "ptcodec QEMU plugin: software Intel PT for the program QEMU runs (SPEC.md 5.11)\n"
    "  qemu-x86_64 -plugin libptcodec-qemu.so,out=FILE[,KEY=VALUE...] PROGRAM [ARGS]\n"
    "writes FILE (the trace of the first thread; FILE.tN for the N-th thread started after it),\n"
    "FILE.json (the model's configuration, as ptsim writes it), FILE.code.dump, FILE.code.addr and FILE.code.json\n"
    "(every executed code byte, and the address ranges they hold)\n"
    "  out=FILE            the trace (required)\n"
    "  insns=FILE          every executed instruction's address, one hex a line (FILE.tN per thread)\n"
    "  truth=FILE          the model's truth as JSON lines, as ptsim --truth writes it (FILE.tN per thread)\n"
    "  perf=FILE           also a perf.data: every thread's trace, with its COMM and the program's mappings\n"
    "                      (perf script --itrace decodes it from the program's own files)\n"
    "  retc=1|0            RET compression (1, the default: DisRETC clear)\n"
    "  cpi=N               core cycles per instruction (1)\n"
    "  kernel_cycles=N     core cycles in the kernel per system call or signal (2000)\n"
    "  cyc=1               CYC packets (the same as cyc_en=1)\n"
    "  policy=off|seed     MTC suppression policy (off); policy.KEY=N sets one of its fields\n"
    "                      (threshold, resume_on_value, resume_value, resume_after, min_burst)\n"
    "  quiet=1             no summary on stderr at exit\n"
    "  KEY=VALUE           any model setting of ptsim --set (mtc_freq, cyc_thresh, psb_freq, long_tnt,\n"
    "                      filter=LO-HI, ...); user-only tracing: os must stay 0\n";

typedef struct pq_settings {
    char out[4096], insns[4096], truth[4096], perf[4096];
    uint64_t cpi, kernel_cycles;
    int quiet;
    ptc_model_config cfg;
} pq_settings;

/* One translated block: where it is, how long, and how its last
   instruction changes the flow. */
typedef struct pq_block {
    uint64_t vaddr, last_ip, next_ip; /* first and last instruction, and the address after it */
    uint64_t target;                  /* a direct branch's target */
    uint32_t ninsns;
    ptc_x86_class iclass;             /* its last instruction's (ptcodec.h part 9.1) */
    char *log;                        /* with insns=: the addresses, one hex a line */
    size_t log_len;
    struct pq_block *older;           /* every block, to free them at exit */
} pq_block;

/* One guest thread: its own trace unit (as one hardware thread). */
typedef struct pq_thread {
    ptc_model m;
    FILE *trace, *insns, *truth;
    const pq_block *prev;             /* the block that ran last; its outcome is pending */
    int prev_repeated;                /* it was its REP instruction again: not logged again */
    unsigned number;                  /* 0 for the first thread, then in order of start */
    uint32_t pid, tid;                /* the guest's (QEMU user mode runs each guest thread on one of its own) */
    uint64_t ninsns, nkernel, nsignals, bytes, suppressed_bytes;
    int write_error;
} pq_thread;

static pq_settings pq_set;
/* The threads that ended, for the perf.data (perf=) */
typedef struct pq_ended { unsigned number; uint32_t pid, tid; } pq_ended;
static pq_ended pq_ended_threads[1024];
static unsigned pq_nended;
static pq_thread *pq_threads[PQ_MAX_VCPUS];
static unsigned pq_nthreads;          /* threads started so far */
static pq_block *pq_blocks;
static pthread_mutex_t pq_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t pq_total_insns, pq_total_bytes, pq_total_signals, pq_total_kernel, pq_total_suppressed;

/* The name of thread `number`'s file: FILE for the first thread, FILE.tN
   for the N-th after it (as ptsim names its threads' traces). */
static void pq_thread_file(char *path, size_t cap, const char *base, unsigned number)
{
    if (number) snprintf(path, cap, "%s.t%u", base, number);
    else snprintf(path, cap, "%s", base);
}

/* QEMU's stderr, kept: programs may close theirs (coreutils do at exit) */
static FILE *pq_err;

/* A thread's file; NULL when not asked for (empty name) or on failure
   (*failed, and said with the file's name and the system's reason). */
static FILE *pq_open_for(const char *base, unsigned number, const char *mode, int *failed)
{
    char path[4200];
    FILE *f;
    if (!*base) return NULL;
    pq_thread_file(path, sizeof path, base, number);
    f = fopen(path, mode);
    if (f) {
        setvbuf(f, NULL, _IOFBF, 1 << 20);
    } else {
        fprintf(pq_err, "ptqemu: cannot write %s: %s\n", path, strerror(errno));
        *failed = 1;
    }
    return f;
}
static struct timespec pq_started; /* for the summary's instructions a second */

/* ---- the code image: every executed code byte, by page ------------------ */

typedef struct pq_page { uint64_t base; uint8_t bytes[PQ_PAGE]; } pq_page;
static pq_page **pq_pages; /* open addressing on base / PQ_PAGE */
static size_t pq_npages, pq_cap_pages;

static size_t pq_page_slot(pq_page **table, size_t cap, uint64_t base)
{
    size_t i = (size_t)((base / PQ_PAGE) * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (cap - 1);
    while (table[i] && table[i]->base != base) i = (i + 1) & (cap - 1);
    return i;
}

static pq_page *pq_page_get(uint64_t base)
{
    size_t i;
    if (2 * (pq_npages + 1) > pq_cap_pages) {
        size_t ncap = pq_cap_pages ? pq_cap_pages * 2 : 1024, k;
        pq_page **nt = (pq_page **)calloc(ncap, sizeof *nt);
        if (!nt) return NULL;
        for (k = 0; k < pq_cap_pages; k++)
            if (pq_pages[k]) nt[pq_page_slot(nt, ncap, pq_pages[k]->base)] = pq_pages[k];
        free(pq_pages);
        pq_pages = nt;
        pq_cap_pages = ncap;
    }
    i = pq_page_slot(pq_pages, pq_cap_pages, base);
    if (!pq_pages[i]) {
        pq_page *p = (pq_page *)calloc(1, sizeof *p);
        if (!p) return NULL;
        p->base = base;
        pq_pages[i] = p;
        pq_npages++;
    }
    return pq_pages[i];
}

/* Called with pq_lock held. An instruction may cross a page. */
static void pq_code_add(uint64_t va, const uint8_t *bytes, size_t n)
{
    size_t k;
    for (k = 0; k < n; k++) {
        pq_page *p = pq_page_get((va + k) & ~(uint64_t)(PQ_PAGE - 1));
        if (p) p->bytes[(va + k) & (PQ_PAGE - 1)] = bytes[k];
    }
}

static int pq_page_order(const void *a, const void *b)
{
    uint64_t x = (*(pq_page *const *)a)->base, y = (*(pq_page *const *)b)->base;
    return x < y ? -1 : x > y;
}

static const char *pq_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* OUT.code.dump: the pages in address order; OUT.code.addr: each page's
   address, a little-endian 64-bit word per page (the two are libxdc's
   page cache: ptdump --insn --pagecache OUT.code); OUT.code.json: the
   ranges of consecutive pages, each with its offset in OUT.code.dump
   (insncheck's index). */
static int pq_write_code(const char *out)
{
    char path[4200], jpath[4200], apath[4200];
    pq_page **list = (pq_page **)malloc((pq_npages ? pq_npages : 1) * sizeof *list);
    size_t n = 0, k, start = 0;
    FILE *f, *j, *a;
    int ok = 1;
    if (!list) return 0;
    for (k = 0; k < pq_cap_pages; k++)
        if (pq_pages[k]) list[n++] = pq_pages[k];
    qsort(list, n, sizeof *list, pq_page_order);
    snprintf(path, sizeof path, "%s.code.dump", out);
    snprintf(jpath, sizeof jpath, "%s.code.json", out);
    snprintf(apath, sizeof apath, "%s.code.addr", out);
    f = fopen(path, "wb");
    j = fopen(jpath, "w");
    a = fopen(apath, "wb");
    if (!f || !j || !a) ok = 0;
    if (ok) fprintf(j, "{\"file\":\"%s\",\"ranges\":[", pq_basename(path));
    for (k = 0; ok && k < n; k++) {
        uint8_t word[8];
        unsigned b;
        for (b = 0; b < 8; b++) word[b] = (uint8_t)(list[k]->base >> (8 * b));
        if (fwrite(list[k]->bytes, 1, PQ_PAGE, f) != PQ_PAGE || fwrite(word, 1, 8, a) != 8) ok = 0;
        if (k + 1 == n || list[k + 1]->base != list[k]->base + PQ_PAGE) {
            fprintf(j, "%s{\"vaddr\":%llu,\"size\":%llu,\"offset\":%llu}", start ? "," : "",
                    (unsigned long long)list[start]->base, (unsigned long long)(k + 1 - start) * PQ_PAGE,
                    (unsigned long long)start * PQ_PAGE);
            start = k + 1;
        }
    }
    if (ok) fprintf(j, "]}\n");
    if (f && fclose(f) != 0) ok = 0;
    if (j && fclose(j) != 0) ok = 0;
    if (a && fclose(a) != 0) ok = 0;
    free(list);
    return ok;
}

/* ---- threads --------------------------------------------------------- */

static void pq_sink_packet(void *user, const uint8_t *bytes, size_t len, const ptc_truth *truth)
{
    pq_thread *t = (pq_thread *)user;
    if (len && fwrite(bytes, 1, len, t->trace) != len) t->write_error = 1;
    t->bytes += len;
    if (truth->fate == PTC_FATE_SUPPRESSED) t->suppressed_bytes += 2; /* an MTC is two bytes */
    if (t->truth) modelcfg_truth_packet(t->truth, truth);
}

static void pq_sink_event(void *user, const ptc_event_truth *e)
{
    pq_thread *t = (pq_thread *)user;
    if (e->traced) modelcfg_truth_event(t->truth, e);
}

static void pq_sink_retire(void *user, const ptc_retire_truth *r)
{
    modelcfg_truth_retire(((pq_thread *)user)->truth, r);
}

static pq_thread *pq_thread_new(void)
{
    ptc_model_sink sink;
    int failed = 0;
    pq_thread *t = (pq_thread *)calloc(1, sizeof *t);
    if (!t) return NULL;
    pthread_mutex_lock(&pq_lock);
    t->number = pq_nthreads++;
    pthread_mutex_unlock(&pq_lock);
    t->pid = (uint32_t)getpid();
    t->tid = (uint32_t)syscall(SYS_gettid);
    t->trace = pq_open_for(pq_set.out, t->number, "wb", &failed);
    t->insns = pq_open_for(pq_set.insns, t->number, "w", &failed);
    t->truth = pq_open_for(pq_set.truth, t->number, "w", &failed);
    memset(&sink, 0, sizeof sink);
    sink.user = t;
    sink.packet = pq_sink_packet;
    if (t->truth) {
        sink.event = pq_sink_event;
        sink.retire = pq_sink_retire;
    }
    if (failed || ptc_model_init(&t->m, &pq_set.cfg, &sink) != PTC_OK) {
        /* (a later thread's file: the trace would miss that thread; said
           once, then QEMU ends, rather than trying again at every block) */
        fprintf(pq_err, "ptqemu: thread %u cannot be traced: stopping\n", t->number);
        fflush(pq_err);
        exit(1);
    }
    return t;
}

/* Before QEMU runs anything: every file the settings name can be written
   (the first thread's, the configuration beside the trace). 0, having
   said which and why, when one cannot; the probe then leaves no file it
   made, and changes none that was there (it opens them to append). */
static int pq_outputs_writable(void)
{
    const char *names[5];
    char jpath[4200];
    int made[5];
    size_t i, n;
    int failed = 0;
    snprintf(jpath, sizeof jpath, "%s.json", pq_set.out);
    names[0] = pq_set.out;
    names[1] = pq_set.insns;
    names[2] = pq_set.truth;
    names[3] = jpath;
    names[4] = pq_set.perf;
    for (n = 0; n < 5 && !failed; n++) {
        FILE *f = *names[n] ? fopen(names[n], "r") : NULL;
        made[n] = *names[n] && !f;
        if (f) fclose(f);
        f = pq_open_for(names[n], 0, "a", &failed);
        if (f) fclose(f);
    }
    if (failed)
        for (i = 0; i + 1 < n; i++)
            if (made[i]) remove(names[i]);
    return !failed;
}

/* A system call (or a trap into the kernel) at ip: into the kernel, and
   back to user space at `back` after kernel_cycles. */
static void pq_kernel_round_trip(pq_thread *t, uint64_t ip, uint64_t back)
{
    ptc_model_privilege(&t->m, ip, PQ_KERNEL_ENTRY, 0);
    ptc_model_idle(&t->m, pq_set.kernel_cycles);
    ptc_model_privilege(&t->m, PQ_KERNEL_EXIT, back, 3);
    t->nkernel++;
}

/* A signal delivered before the instruction at `at` ran: the kernel takes
   the interrupt there and returns to the handler at `to`. */
static void pq_signal(pq_thread *t, uint64_t at, uint64_t to)
{
    ptc_model_interrupt_cpl(&t->m, at, PQ_KERNEL_ENTRY, 0);
    ptc_model_idle(&t->m, pq_set.kernel_cycles);
    ptc_model_privilege(&t->m, PQ_KERNEL_EXIT, to, 3);
    t->nsignals++;
}

/* Block b's instructions, one hex address a line, into the log: the
   first `count` of them. */
static void pq_log(pq_thread *t, const pq_block *b, uint32_t count)
{
    size_t len = b->log_len;
    if (!t->insns || t->prev_repeated) return;
    if (count < b->ninsns) { /* drop the last line */
        len--;
        while (len && b->log[len - 1] != '\n') len--;
    }
    if (fwrite(b->log, 1, len, t->insns) != len) t->write_error = 1;
}

/* The class and direct target of a block's last instruction, from its
   bytes (ptcodec.h part 9.1). QEMU gives a block's last instruction cut
   short when it dropped it (pq_dropped_last): cut_insn there is no
   instruction of the block, "other". Bytes the decoder refuses, or reads
   as another length than QEMU's, are said once: they are "other" too. */
static void pq_classify(pq_block *b, const uint8_t *bytes, size_t size, uint64_t va)
{
    static int said;
    ptc_x86_insn in;
    ptc_status st = ptc_x86_decode(bytes, size, PTC_X86_64, va, &in);
    b->iclass = PTC_X86_OTHER;
    b->target = 0;
    if (st == PTC_OK && in.size == size) {
        b->iclass = (ptc_x86_class)in.iclass;
        b->target = in.target;
    } else if (st != PTC_ERR_CUT_INSN && !said++) {
        fprintf(pq_err, "ptqemu: the x86 decoder reads the %zu bytes QEMU ran at %llx as %s (size %u); taken as no branch\n",
                size, (unsigned long long)va, ptc_status_name(st), in.size);
    }
}

/* Whether an instruction of this class enters the kernel (and comes back
   at the next instruction, to the user-mode program QEMU runs). */
static int pq_into_kernel(ptc_x86_class c)
{
    return c == PTC_X86_INT || c == PTC_X86_SYSCALL || c == PTC_X86_VMCALL;
}

/* QEMU 7.2 (x86) ends a block early when an instruction after the first
   reaches into another page than the block's start: it drops that
   instruction from the block but not from the plugin's list (with the
   bytes read so far as its length), and the next block starts at it.
   A block whose last instruction is where control goes next, and that
   cannot go there itself, lost its last instruction that way. */
static int pq_dropped_last(const pq_block *b, uint64_t next)
{
    if (next != b->last_ip || b->ninsns < 2) return 0;
    return b->iclass != PTC_X86_REP && !((b->iclass == PTC_X86_JMP || b->iclass == PTC_X86_JCC) && b->target == next);
}

/* Block b ran and control arrived at `next`: its cycles and its last
   instruction's event. Returns 1 when `next` is b's REP string
   instruction executing again (the same instruction, not a new one). */
static int pq_follow(pq_thread *t, const pq_block *b, uint64_t next)
{
    ptc_model *m = &t->m;
    uint64_t ip = b->last_ip;
    if (pq_dropped_last(b, next)) {
        ptc_model_idle(m, (b->ninsns - 1) * pq_set.cpi);
        pq_log(t, b, b->ninsns - 1);
        t->ninsns += t->prev_repeated ? 0 : b->ninsns - 1;
        return 0;
    }
    ptc_model_idle(m, b->ninsns * pq_set.cpi);
    pq_log(t, b, b->ninsns);
    t->ninsns += t->prev_repeated ? 0 : b->ninsns;
    switch (b->iclass) {
    case PTC_X86_REP:
        if (next == ip) return 1;
        /* fall through */
    default: /* no change of flow (PTWRITE, MOV CR3, VMPTRLD and TSX are
                not in user-mode programs under QEMU) */
        if (next != b->next_ip) pq_signal(t, b->next_ip, next);
        break;
    case PTC_X86_JCC:
        if (next == b->target || next == b->next_ip) {
            ptc_model_branch(m, ip, next, next == b->target);
        } else { /* a signal right after it: which way it went is unknown here */
            ptc_model_branch(m, ip, b->next_ip, 0);
            pq_signal(t, b->next_ip, next);
        }
        break;
    case PTC_X86_JMP:
        ptc_model_jump(m, ip, b->target, 0);
        if (next != b->target) pq_signal(t, b->target, next);
        break;
    case PTC_X86_CALL:
        ptc_model_call(m, ip, b->target, b->next_ip, 0);
        if (next != b->target) pq_signal(t, b->target, next);
        break;
    case PTC_X86_JMP_IND: ptc_model_jump(m, ip, next, 1); break;
    case PTC_X86_CALL_IND: ptc_model_call(m, ip, next, b->next_ip, 1); break;
    case PTC_X86_RET: ptc_model_ret(m, ip, next); break;
    case PTC_X86_FAR_JMP: case PTC_X86_FAR_CALL: case PTC_X86_FAR_RET: case PTC_X86_IRET: case PTC_X86_SYSRET:
    case PTC_X86_VM_ENTRY:
        ptc_model_privilege(m, ip, next, 3);
        break;
    case PTC_X86_INT: case PTC_X86_SYSCALL: case PTC_X86_VMCALL: pq_kernel_round_trip(t, ip, next); break; /* pq_into_kernel */
    }
    return 0;
}

static void pq_thread_finish(pq_thread *t)
{
    const pq_block *b = t->prev;
    if (b) {
        ptc_model_idle(&t->m, b->ninsns * pq_set.cpi);
        pq_log(t, b, b->ninsns);
        t->ninsns += t->prev_repeated ? 0 : b->ninsns;
        /* the thread's last instruction is normally exit or exit_group */
        if (pq_into_kernel(b->iclass)) ptc_model_privilege(&t->m, b->last_ip, PQ_KERNEL_ENTRY, 0);
        ptc_model_stop(&t->m);
    }
    if (fclose(t->trace) != 0) t->write_error = 1;
    if (t->insns && fclose(t->insns) != 0) t->write_error = 1;
    if (t->truth && fclose(t->truth) != 0) t->write_error = 1;
    if (t->write_error) fprintf(pq_err, "ptqemu: writing the trace of thread %u failed\n", t->number);
    pthread_mutex_lock(&pq_lock);
    if (pq_nended < sizeof pq_ended_threads / sizeof pq_ended_threads[0]) {
        pq_ended_threads[pq_nended].number = t->number;
        pq_ended_threads[pq_nended].pid = t->pid;
        pq_ended_threads[pq_nended].tid = t->tid;
        pq_nended++;
    }
    pq_total_insns += t->ninsns;
    pq_total_bytes += t->bytes;
    pq_total_signals += t->nsignals;
    pq_total_kernel += t->nkernel;
    pq_total_suppressed += t->suppressed_bytes;
    pthread_mutex_unlock(&pq_lock);
    free(t);
}

/* ---- QEMU callbacks ---------------------------------------------------- */

static void pq_on_block(unsigned int vcpu, void *udata)
{
    const pq_block *b = (const pq_block *)udata;
    pq_thread *t;
    int repeated = 0;
    if (vcpu >= PQ_MAX_VCPUS) return;
    t = pq_threads[vcpu];
    if (!t) {
        t = pq_threads[vcpu] = pq_thread_new();
        if (!t) return;
        ptc_model_start(&t->m, b->vaddr);
    } else {
        repeated = pq_follow(t, t->prev, b->vaddr);
    }
    t->prev = b;
    t->prev_repeated = repeated;
}

static void pq_on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb), i, cap = 0;
    pq_block *b = (pq_block *)calloc(1, sizeof *b);
    UTIL_UNUSED(id);
    if (!b || n == 0) { free(b); return; }
    b->vaddr = qemu_plugin_tb_vaddr(tb);
    b->ninsns = (uint32_t)n;
    if (*pq_set.insns) {
        cap = n * 18 + 1; /* 16 hex digits and a newline each */
        b->log = (char *)malloc(cap);
        if (!b->log) { free(b); return; }
    }
    pthread_mutex_lock(&pq_lock);
    for (i = 0; i < n; i++) {
        const struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
        uint64_t va = qemu_plugin_insn_vaddr(in);
        size_t size = qemu_plugin_insn_size(in);
        const uint8_t *bytes = (const uint8_t *)qemu_plugin_insn_data(in);
        pq_code_add(va, bytes, size);
        if (b->log) b->log_len += (size_t)snprintf(b->log + b->log_len, cap - b->log_len, "%llx\n", (unsigned long long)va);
        if (i + 1 == n) {
            b->last_ip = va;
            b->next_ip = va + size;
            pq_classify(b, bytes, size, va);
        }
    }
    b->older = pq_blocks;
    pq_blocks = b;
    pthread_mutex_unlock(&pq_lock);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, pq_on_block, QEMU_PLUGIN_CB_NO_REGS, b);
}

/* ---- the perf.data (perf=) -------------------------------------------- */

/* Whether any executed code page lies in [lo, hi). */
static int pq_code_in(uint64_t lo, uint64_t hi)
{
    size_t k;
    for (k = 0; k < pq_cap_pages; k++)
        if (pq_pages[k] && pq_pages[k]->base < hi && pq_pages[k]->base + PQ_PAGE > lo) return 1;
    return 0;
}

/* The file-backed mappings that hold executed code, from QEMU's own
   /proc/self/maps: in user mode on an x86-64 host a guest address is the
   host address of its bytes, and the guest's files are mapped there
   (with its code readable, not executable: QEMU runs translations). A
   line: "lo-hi perms offset dev inode path". */
static unsigned pq_code_mappings(ptc_perf_mmap *out, char (*names)[512], unsigned cap)
{
    char line[1024];
    unsigned n = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && n < cap && fgets(line, sizeof line, f)) {
        char *dash = strchr(line, '-'), *sp = strchr(line, ' '), *path = strchr(line, '/');
        uint64_t lo, hi, off;
        char *offs;
        size_t plen;
        if (!dash || !sp || !path || dash > sp) continue;
        offs = strchr(sp + 1, ' ');
        if (!offs || !util_parse_digits(line, (size_t)(dash - line), 16, UINT64_MAX, &lo) ||
            !util_parse_digits(dash + 1, (size_t)(sp - dash - 1), 16, UINT64_MAX, &hi) ||
            !util_parse_digits(offs + 1, strcspn(offs + 1, " "), 16, UINT64_MAX, &off) || !pq_code_in(lo, hi))
            continue;
        plen = strcspn(path, "\n");
        if (plen >= sizeof names[0]) continue;
        memcpy(names[n], path, plen);
        names[n][plen] = 0;
        out[n].addr = lo;
        out[n].len = hi - lo;
        out[n].pgoff = off;
        out[n].filename = names[n];
        n++;
    }
    if (f) fclose(f);
    return n;
}

/* Every ended thread's trace, read back, with the program's name and its
   code mappings, as one perf.data whose time is the model's TSC. */
static int pq_write_perf(void)
{
    static ptc_perf_mmap maps[256];
    static char names[256][512];
    static ptc_perf_trace tr[1024];
    ptc_perf_pt_info info;
    uint64_t config;
    uint8_t *buf = NULL;
    size_t need = 0;
    unsigned k, nmaps = pq_code_mappings(maps, names, 256);
    int ok = 1;
    const char *comm = pq_basename(pq_set.out);
    FILE *f;
    memset(tr, 0, sizeof tr);
    /* queue (and cpu) k is thread k: threads can end in any order */
    for (k = 1; k < pq_nended; k++) {
        pq_ended e = pq_ended_threads[k];
        unsigned j = k;
        for (; j > 0 && pq_ended_threads[j - 1].number > e.number; j--) pq_ended_threads[j] = pq_ended_threads[j - 1];
        pq_ended_threads[j] = e;
    }
    for (k = 0; k < pq_nended && ok; k++) {
        char path[4200];
        pq_thread_file(path, sizeof path, pq_set.out, pq_ended_threads[k].number);
        tr[k].bytes = util_read_file(path, &tr[k].len);
        tr[k].pid = pq_ended_threads[k].pid;
        tr[k].tid = pq_ended_threads[k].tid;
        tr[k].start_time = pq_set.cfg.tsc_offset + pq_set.cfg.art_start * pq_set.cfg.trace.ratios.cpuid_15_ebx / pq_set.cfg.trace.ratios.cpuid_15_eax;
        tr[k].comm = comm;
        tr[k].mmaps = maps;
        tr[k].nmmaps = nmaps;
        if (!tr[k].bytes) ok = 0;
    }
    ptc_perf_info_from_model(&info, &config, &pq_set.cfg);
    if (ok) (void)ptc_perf_write(NULL, 0, &need, &info, config, tr, pq_nended, 0, 0, 0);
    buf = ok ? (uint8_t *)malloc(need) : NULL;
    ok = buf && ptc_perf_write(buf, need, &need, &info, config, tr, pq_nended, 0, 0, 0) == PTC_OK;
    f = ok ? fopen(pq_set.perf, "wb") : NULL;
    ok = f && fwrite(buf, 1, need, f) == need;
    if (f && fclose(f) != 0) ok = 0;
    for (k = 0; k < pq_nended; k++) free((void *)tr[k].bytes);
    free(buf);
    return ok;
}

static void pq_on_vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu)
{
    UTIL_UNUSED(id);
    if (vcpu < PQ_MAX_VCPUS && pq_threads[vcpu]) {
        pq_thread_finish(pq_threads[vcpu]);
        pq_threads[vcpu] = NULL;
    }
}

static void pq_on_exit(qemu_plugin_id_t id, void *udata)
{
    char jpath[4200];
    FILE *f;
    unsigned v;
    UTIL_UNUSED(udata);
    for (v = 0; v < PQ_MAX_VCPUS; v++) pq_on_vcpu_exit(id, v);
    snprintf(jpath, sizeof jpath, "%s.json", pq_set.out);
    f = fopen(jpath, "w");
    if (f) {
        modelcfg_write_json(f, &pq_set.cfg, NULL);
        fclose(f);
    }
    if (!f || !pq_write_code(pq_set.out)) fprintf(pq_err, "ptqemu: cannot write %s or the code image\n", jpath);
    if (*pq_set.perf && !pq_write_perf()) fprintf(pq_err, "ptqemu: cannot write the perf.data %s\n", pq_set.perf);
    if (!pq_set.quiet) {
        struct timespec now;
        double secs;
        clock_gettime(CLOCK_MONOTONIC, &now);
        secs = (double)(now.tv_sec - pq_started.tv_sec) + (double)(now.tv_nsec - pq_started.tv_nsec) / 1e9;
        fprintf(pq_err, "ptqemu: %llu instructions in %.2f s (%.1f million a second, trace on), %u thread(s), %llu bytes "
                        "of trace in %s%s (%llu bytes of MTCs suppressed), %llu system calls, %llu signals, %llu code "
                        "pages\n",
                (unsigned long long)pq_total_insns, secs, secs > 0 ? (double)pq_total_insns / secs / 1e6 : 0.0,
                pq_nthreads, (unsigned long long)pq_total_bytes, pq_set.out,
                pq_nthreads > 1 ? " (and .tN)" : "", (unsigned long long)pq_total_suppressed,
                (unsigned long long)pq_total_kernel, (unsigned long long)pq_total_signals,
                (unsigned long long)pq_npages);
    }
    while (pq_blocks) {
        pq_block *older = pq_blocks->older;
        free(pq_blocks->log);
        free(pq_blocks);
        pq_blocks = older;
    }
    for (v = 0; v < pq_cap_pages; v++) free(pq_pages[v]);
    free(pq_pages);
    fflush(pq_err);
}

/* ---- settings ---------------------------------------------------------- */

static int pq_setting(pq_settings *s, const char *key, const char *val, char *err, size_t errlen)
{
    uint64_t v = 0;
    int num;
    uint8_t *pol;
    /* QEMU writes a bare word as word=on ("cyc" is cyc=on), and noword as word=off */
    if (strcmp(val, "on") == 0) val = "1";
    else if (strcmp(val, "off") == 0 && strcmp(key, "policy") != 0) val = "0";
    num = modelcfg_number(val, &v);
    if (strcmp(key, "out") == 0 || strcmp(key, "insns") == 0 || strcmp(key, "truth") == 0 || strcmp(key, "perf") == 0) {
        char *dst = key[0] == 'o' ? s->out : key[0] == 'i' ? s->insns : key[0] == 't' ? s->truth : s->perf;
        if (!*val || strlen(val) >= sizeof s->out) { snprintf(err, errlen, "%s wants a file name", key); return 0; }
        memcpy(dst, val, strlen(val) + 1);
        return 1;
    }
    if (strcmp(key, "retc") == 0 && num && v <= 1) { s->cfg.trace.ctl.dis_retc = (uint8_t)!v; return 1; }
    if (strcmp(key, "cyc") == 0) return modelcfg_set(&s->cfg, "cyc_en", val, err, errlen);
    if (strcmp(key, "cpi") == 0 && num && v >= 1 && v <= 1000) { s->cpi = v; return 1; }
    if (strcmp(key, "kernel_cycles") == 0 && num && v <= 100000000) { s->kernel_cycles = v; return 1; }
    if (strcmp(key, "quiet") == 0 && num && v <= 1) { s->quiet = (int)v; return 1; }
    if (strcmp(key, "policy") == 0) return modelcfg_policy(&s->cfg.trace.policy, val, err, errlen);
    if (strncmp(key, "policy.", 7) == 0 && (pol = modelcfg_policy_field(&s->cfg.trace.policy, key + 7)) != NULL && num && v <= 255) {
        *pol = (uint8_t)v;
        return 1;
    }
    if (strcmp(key, "retc") == 0 || strcmp(key, "cpi") == 0 || strcmp(key, "kernel_cycles") == 0 ||
        strcmp(key, "quiet") == 0 || strncmp(key, "policy.", 7) == 0) {
        snprintf(err, errlen, "%s=%s is out of range", key, val);
        return 0;
    }
    return modelcfg_set(&s->cfg, key, val, err, errlen);
}

static int pq_settings_parse(pq_settings *s, int argc, char **argv, char *err, size_t errlen)
{
    int i;
    memset(s, 0, sizeof *s);
    s->cpi = 1;
    s->kernel_cycles = 2000;
    ptc_model_config_default(&s->cfg);
    s->cfg.trace.ctl.os = 0;
    s->cfg.trace.ctl.user = 1;
    for (i = 0; i < argc; i++) {
        char key[64];
        const char *eq = strchr(argv[i], '=');
        size_t klen = eq ? (size_t)(eq - argv[i]) : 0;
        if (!eq || klen == 0 || klen >= sizeof key) {
            snprintf(err, errlen, "'%s' is not KEY=VALUE", argv[i]);
            return 0;
        }
        memcpy(key, argv[i], klen);
        key[klen] = 0;
        if (!pq_setting(s, key, eq + 1, err, errlen)) return 0;
    }
    if (!*s->out) { snprintf(err, errlen, "out=FILE is required"); return 0; }
    if (s->cfg.trace.ctl.os || !s->cfg.trace.ctl.user) {
        snprintf(err, errlen, "only user-mode tracing (os=0, user=1): QEMU runs no kernel code to trace");
        return 0;
    }
    return 1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    char err[256];
    ptc_model probe;
    int i, fd = dup(2);
    pq_err = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!pq_err) pq_err = stderr;
    for (i = 0; i < argc; i++) /* QEMU passes a bare "help" as "help=on" */
        if (strcmp(argv[i], "help") == 0 || strncmp(argv[i], "help=", 5) == 0) {
            fputs(pq_usage, stderr);
            return -1;
        }
    if (info->system_emulation || strcmp(info->target_name, "x86_64") != 0) {
        fprintf(pq_err, "ptqemu: only qemu-x86_64 (user mode) is supported, not %s%s\n", info->target_name,
                info->system_emulation ? " system emulation" : "");
        return -1;
    }
    if (!pq_settings_parse(&pq_set, argc, argv, err, sizeof err)) {
        fprintf(pq_err, "ptqemu: %s (try -plugin libptcodec-qemu.so,help)\n", err);
        return -1;
    }
    if (ptc_model_init(&probe, &pq_set.cfg, NULL) != PTC_OK) {
        fprintf(pq_err, "ptqemu: the model refuses the setting %s\n", ptc_model_error_field(&probe));
        return -1;
    }
    if (!pq_outputs_writable()) return -1;
    clock_gettime(CLOCK_MONOTONIC, &pq_started);
    qemu_plugin_register_vcpu_tb_trans_cb(id, pq_on_translate);
    qemu_plugin_register_vcpu_exit_cb(id, pq_on_vcpu_exit);
    qemu_plugin_register_atexit_cb(id, pq_on_exit, NULL);
    return 0;
}

/* testlib.h - the smallest test harness that does the job.

   Each test is a function; RUN(fn) runs it and prints one line:
       ok - fn
       FAIL - fn            (after the failed checks, each with file:line)
       skip - fn: reason    (SKIP(...) inside the test)
   tests/run.sh counts these lines over every test program. A test program
   exits 1 if any test failed. */
#ifndef PTCODEC_TESTLIB_H
#define PTCODEC_TESTLIB_H

#if defined(__GNUC__) || defined(__clang__)
#define TL_FN static __attribute__((unused))
#else
#define TL_FN static
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tl_check_failures; /* in the running test */
static int tl_skipped;
static int tl_tests_failed;   /* in this program */
static char tl_skip_reason[256];

TL_FN void tl_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
    va_list ap;
    if (++tl_check_failures > 20) return; /* the first twenty tell enough */
    fprintf(stdout, "  %s:%d: check failed: %s", file, line, expr);
    if (fmt && *fmt) {
        fputs(" -- ", stdout);
        va_start(ap, fmt);
        vfprintf(stdout, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stdout);
}

/* CHECK(condition) or CHECK(condition, "printf format", args...) */
#define CHECK(...) TL_CHECK_(__VA_ARGS__, "")
#define TL_CHECK_(cond, ...) \
    do { if (!(cond)) tl_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)

#define SKIP(...) \
    do { snprintf(tl_skip_reason, sizeof tl_skip_reason, __VA_ARGS__); tl_skipped = 1; return; } while (0)

/* Runs fn(arg) as the test called name. */
TL_FN void tl_run_arg(const char *name, void (*fn)(const void *), const void *arg)
{
    static char tagged[300];
    const char *tag = getenv("TL_TAG"); /* e.g. the compiler, when a suite runs twice */
    if (tag && *tag) {
        snprintf(tagged, sizeof tagged, "[%s] %s", tag, name);
        name = tagged;
    }
    tl_check_failures = 0;
    tl_skipped = 0;
    fn(arg);
    if (tl_skipped && !tl_check_failures) {
        printf("skip - %s: %s\n", name, tl_skip_reason);
    } else if (tl_check_failures) {
        printf("FAIL - %s (%d failed checks)\n", name, tl_check_failures);
        tl_tests_failed++;
    } else {
        printf("ok - %s\n", name);
    }
    fflush(stdout);
}

static void tl_call_plain(const void *fn)
{
    void (*f)(void);
    memcpy(&f, fn, sizeof f);
    f();
}

TL_FN void tl_run(const char *name, void (*fn)(void))
{
    tl_run_arg(name, tl_call_plain, &fn);
}

#define RUN(fn) tl_run(#fn, fn)
#define TL_EXIT() return tl_tests_failed ? 1 : 0

/* Reads a whole file; returns NULL if it cannot. Caller frees. */
TL_FN unsigned char *tl_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f) return NULL;
    for (;;) {
        size_t got;
        if (n == cap) {
            unsigned char *nb;
            cap = cap ? cap * 2 : 65536;
            nb = (unsigned char *)realloc(buf, cap);
            if (!nb) { free(buf); fclose(f); return NULL; }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    *len = n;
    return buf;
}


/* One of libipt's test vectors in dir: NAME.pt, and NAME.ptdump.exp and
   NAME.ptdump.opts as NUL-terminated text. Returns 0, with nothing left
   to free, if any of the three cannot be read. Caller frees the three. */
TL_FN int tl_read_golden(const char *dir, const char *name, unsigned char **pt, size_t *pt_len, char **exp_text,
                         char **opts)
{
    static const char *const ext[3] = { "pt", "ptdump.exp", "ptdump.opts" };
    unsigned char *got[3];
    size_t len[3] = { 0, 0, 0 };
    char path[1024];
    int i;
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext[i]);
        got[i] = tl_read_file(path, &len[i]);
        if (got[i] && i > 0) { /* text: room for the NUL (tl_read_file's buffer may be full) */
            unsigned char *t = (unsigned char *)realloc(got[i], len[i] + 1);
            if (t) t[len[i]] = 0;
            else free(got[i]);
            got[i] = t;
        }
    }
    if (!got[0] || !got[1] || !got[2]) {
        for (i = 0; i < 3; i++) free(got[i]);
        return 0;
    }
    *pt = got[0];
    *pt_len = len[0];
    *exp_text = (char *)got[1];
    *opts = (char *)got[2];
    return 1;
}

#include <sys/stat.h>

/* Where the project's shared reference data lives: $PTCODEC_SHARED, else
   ../shared (beside the repository), else /work/shared. NULL when none of
   them exists; tests that need it then skip and say so. */
TL_FN const char *tl_shared_dir(void)
{
    static const char *cands[3];
    struct stat st;
    int i;
    cands[0] = getenv("PTCODEC_SHARED");
    cands[1] = "../shared";
    cands[2] = "/work/shared";
    for (i = 0; i < 3; i++)
        if (cands[i] && stat(cands[i], &st) == 0 && S_ISDIR(st.st_mode)) return cands[i];
    return NULL;
}

#endif

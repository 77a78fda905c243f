/* testlib.h - the smallest test harness that does the job.

   Each test is a function; RUN(fn) runs it and prints one line:
       ok - fn
       FAIL - fn            (after the failed checks, each with file:line)
       skip - fn: reason    (SKIP(...) inside the test)
   tests/run.sh counts these lines over every test program. A test program
   exits 1 if any test failed. */
#ifndef PTCODEC_TESTLIB_H
#define PTCODEC_TESTLIB_H

#include "../harness/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The long grids of configurations (workload x policy x settings) visit
   one cell in TESTLIB_GRID_STRIDE of the ones they would: the portable
   128-bit build (PTC_NO_INT128, make check's second run of the clock's and
   the model's tests) runs the same arithmetic in every cell, and a quarter
   of the grid still gives every setting and every policy. */
#ifdef PTC_NO_INT128
#define TESTLIB_GRID_STRIDE 4
#else
#define TESTLIB_GRID_STRIDE 1
#endif

static int testlib_check_failures; /* in the running test */
static int testlib_skipped;
static int testlib_tests_failed;   /* in this program */
static char testlib_skip_reason[256];

UTIL_FN void testlib_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
    va_list ap;
    if (++testlib_check_failures > 20) return; /* the first twenty tell enough */
    fprintf(stdout, "  %s:%d: check failed: %s", file, line, expr);
    if (fmt && *fmt) {
        fputs(" -- ", stdout);
        va_start(ap, fmt);
        vfprintf(stdout, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stdout);
}

UTIL_FN void testlib_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(testlib_skip_reason, sizeof testlib_skip_reason, fmt, ap);
    va_end(ap);
    testlib_skipped = 1;
}

/* CHECK(condition) or CHECK(condition, "printf format", args...) */
#define CHECK(...) TESTLIB_CHECK_(__VA_ARGS__, "")
#define TESTLIB_CHECK_(cond, ...) \
    do { if (!(cond)) testlib_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)

/* SKIP("printf format", args...): the test ends here, skipped, saying why
   (cut to the reason's size: a long path still tells enough). */
#define SKIP(...) \
    do { testlib_skip(__VA_ARGS__); return; } while (0)

/* Runs fn(arg) as the test called name. */
UTIL_FN void testlib_run_arg(const char *name, void (*fn)(const void *), const void *arg)
{
    static char tagged[300];
    const char *tag = getenv("TESTLIB_TAG"); /* e.g. the compiler, when a suite runs twice */
    if (tag && *tag) {
        snprintf(tagged, sizeof tagged, "[%.40s] %.250s", tag, name);
        name = tagged;
    }
    testlib_check_failures = 0;
    testlib_skipped = 0;
    fn(arg);
    if (testlib_skipped && !testlib_check_failures) {
        printf("skip - %s: %s\n", name, testlib_skip_reason);
    } else if (testlib_check_failures) {
        printf("FAIL - %s (%d failed checks)\n", name, testlib_check_failures);
        testlib_tests_failed++;
    } else {
        printf("ok - %s\n", name);
    }
    fflush(stdout);
}

static void testlib_call_plain(const void *fn)
{
    void (*f)(void);
    memcpy(&f, fn, sizeof f);
    f();
}

UTIL_FN void testlib_run(const char *name, void (*fn)(void))
{
    testlib_run_arg(name, testlib_call_plain, &fn);
}

#define RUN(fn) testlib_run(#fn, fn)
#define TESTLIB_EXIT() return testlib_tests_failed ? 1 : 0

/* One of libipt's test vectors in dir: NAME.pt, and NAME.ptdump.exp and
   NAME.ptdump.opts as NUL-terminated text. Returns 0, with nothing left
   to free, if any of the three cannot be read. Caller frees the three. */
UTIL_FN int testlib_read_golden(const char *dir, const char *name, unsigned char **pt, size_t *pt_len, char **exp_text,
                         char **opts)
{
    static const char *const ext[3] = { "pt", "ptdump.exp", "ptdump.opts" };
    unsigned char *got[3];
    size_t len[3] = { 0, 0, 0 };
    char path[1024];
    int i;
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext[i]);
        got[i] = util_read_file(path, &len[i]); /* NUL-terminated: the texts need nothing more */
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
UTIL_FN const char *testlib_shared_dir(void)
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

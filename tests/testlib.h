/* testlib.h - the smallest test harness that does the job.

   Each test is a function; RUN(fn) runs it and prints one line:
       ok - fn
       FAIL - fn            (after the failed checks, each with file:line)
       skip - fn: reason    (SKIP(...) inside the test)
   tests/run.sh counts these lines over every test program. A test program
   exits 1 if any test failed. */
#ifndef PTCODEC_TESTLIB_H
#define PTCODEC_TESTLIB_H

#include "../tools/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tl_check_failures; /* in the running test */
static int tl_skipped;
static int tl_tests_failed;   /* in this program */
static char tl_skip_reason[256];

UT_FN void tl_fail(const char *file, int line, const char *expr, const char *fmt, ...)
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

UT_FN void tl_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tl_skip_reason, sizeof tl_skip_reason, fmt, ap);
    va_end(ap);
    tl_skipped = 1;
}

/* CHECK(condition) or CHECK(condition, "printf format", args...) */
#define CHECK(...) TL_CHECK_(__VA_ARGS__, "")
#define TL_CHECK_(cond, ...) \
    do { if (!(cond)) tl_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)

/* SKIP("printf format", args...): the test ends here, skipped, saying why
   (cut to the reason's size: a long path still tells enough). */
#define SKIP(...) \
    do { tl_skip(__VA_ARGS__); return; } while (0)

/* Runs fn(arg) as the test called name. */
UT_FN void tl_run_arg(const char *name, void (*fn)(const void *), const void *arg)
{
    static char tagged[300];
    const char *tag = getenv("TL_TAG"); /* e.g. the compiler, when a suite runs twice */
    if (tag && *tag) {
        snprintf(tagged, sizeof tagged, "[%.40s] %.250s", tag, name);
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

UT_FN void tl_run(const char *name, void (*fn)(void))
{
    tl_run_arg(name, tl_call_plain, &fn);
}

#define RUN(fn) tl_run(#fn, fn)
#define TL_EXIT() return tl_tests_failed ? 1 : 0

/* One of libipt's test vectors in dir: NAME.pt, and NAME.ptdump.exp and
   NAME.ptdump.opts as NUL-terminated text. Returns 0, with nothing left
   to free, if any of the three cannot be read. Caller frees the three. */
UT_FN int tl_read_golden(const char *dir, const char *name, unsigned char **pt, size_t *pt_len, char **exp_text,
                         char **opts)
{
    static const char *const ext[3] = { "pt", "ptdump.exp", "ptdump.opts" };
    unsigned char *got[3];
    size_t len[3] = { 0, 0, 0 };
    char path[1024];
    int i;
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext[i]);
        got[i] = ut_read_file(path, &len[i]); /* NUL-terminated: the texts need nothing more */
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
UT_FN const char *tl_shared_dir(void)
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

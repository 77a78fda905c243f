/* progress.h - how far long work has got, as one line on standard error
   that rewrites itself about once a second, only when standard error is a
   terminal: a pipe, a file or a test's capture gets nothing. ptsim shows
   the cycles simulated, ptdump the bytes read. */
#ifndef PTCODEC_PROGRESS_H
#define PTCODEC_PROGRESS_H

#include <time.h>

#include "../harness/util.h"

#ifdef _WIN32
#include <io.h>
#define UTIL_ISATTY _isatty
#else
int isatty(int fd); /* POSIX <unistd.h>'s, declared so that -std=c99 needs no feature macro */
#define UTIL_ISATTY isatty
#endif

typedef struct util_progress {
    const char *unit; /* "cycles", "bytes" */
    uint64_t total;   /* 0: not known */
    time_t last;      /* when the line was last written */
    unsigned calls;   /* the clock is read every `every` calls (a power of 2), */
    unsigned every;   /*   so that a caller in a hot loop pays one test a call */
    int on, shown;
} util_progress;

UTIL_FN void util_progress_start(util_progress *p, const char *unit, uint64_t total, unsigned every)
{
    memset(p, 0, sizeof *p);
    p->unit = unit;
    p->every = every;
    p->total = total;
    p->last = time(NULL);
    p->on = UTIL_ISATTY(2) != 0;
}

UTIL_FN void util_progress_at(util_progress *p, uint64_t done)
{
    time_t now;
    if (!p || !p->on || (++p->calls & (p->every - 1)) != 0 || (now = time(NULL)) == p->last) return;
    p->last = now;
    p->shown = 1;
    if (p->total)
        fprintf(stderr, "\r%s: %llu of %llu %s (%u%%)", util_prog, (unsigned long long)done, (unsigned long long)p->total,
                p->unit, (unsigned)(done >= p->total ? 100 : done / (p->total / 100 + 1)));
    else
        fprintf(stderr, "\r%s: %llu %s", util_prog, (unsigned long long)done, p->unit);
    fflush(stderr);
}

/* Clears the line, so that what the tool says next starts clean. */
UTIL_FN void util_progress_end(util_progress *p)
{
    if (p && p->shown) fprintf(stderr, "\r\033[K");
    if (p) p->shown = 0;
}

#endif

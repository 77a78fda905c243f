/* workpool.h - jobs 0..n-1 run on worker threads, their results taken by
   the calling thread in job order. ptdump -j decodes a trace's segments
   so (SPEC.md 1.13): workers decode and format, the caller writes.

   At most `window` jobs are claimed and not yet taken, so a caller that
   gives each of `window` slots its own buffers (job j uses slot
   j % window) needs no more memory than that, however long the trace.
   POSIX threads; link with -pthread. */
#ifndef PTCODEC_WORKPOOL_H
#define PTCODEC_WORKPOOL_H

#include <pthread.h>
#include <stdlib.h>

#include "util.h"

/* run: a job's work, on a worker thread. take: its result, on the
   calling thread, in order; non-zero stops the pool (no more jobs are
   started) and is what wp_run returns. */
typedef void (*wp_run_fn)(void *ctx, size_t job);
typedef int (*wp_take_fn)(void *ctx, size_t job);

typedef struct wp_pool {
    pthread_mutex_t mu;
    pthread_cond_t changed;  /* a job done, taken, or the pool stopping */
    size_t n, window;
    size_t next;             /* the next job to claim */
    size_t taken;            /* jobs [0, taken) are taken */
    unsigned char *done;     /* done[j]: job j finished */
    int stop;
    wp_run_fn run;
    void *ctx;
} wp_pool;

UT_FN void *wp_worker(void *arg)
{
    wp_pool *p = (wp_pool *)arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        size_t job;
        while (!p->stop && p->next < p->n && p->next >= p->taken + p->window) pthread_cond_wait(&p->changed, &p->mu);
        if (p->stop || p->next >= p->n) break;
        job = p->next++;
        pthread_mutex_unlock(&p->mu);
        p->run(p->ctx, job);
        pthread_mutex_lock(&p->mu);
        p->done[job] = 1;
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Runs jobs 0..n-1 on `threads` workers (at least 1) with at most `window`
   (at least 1) in flight. Returns 0, the first non-zero `take`, or -1
   when no thread could be started or memory ran out (nothing was run). */
UT_FN int wp_run(size_t n, unsigned threads, size_t window, wp_run_fn run, wp_take_fn take, void *ctx)
{
    wp_pool p;
    pthread_t *tid;
    unsigned started = 0, t;
    size_t j;
    int rc = 0;
    if (n == 0) return 0;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.window = window ? window : 1;
    p.run = run;
    p.ctx = ctx;
    p.done = (unsigned char *)calloc(n, 1);
    tid = (pthread_t *)malloc((threads ? threads : 1) * sizeof *tid);
    if (!p.done || !tid || pthread_mutex_init(&p.mu, NULL) != 0) {
        free(p.done);
        free(tid);
        return -1;
    }
    pthread_cond_init(&p.changed, NULL);
    for (t = 0; t < (threads ? threads : 1); t++)
        if (pthread_create(&tid[t], NULL, wp_worker, &p) == 0) started++;
    if (started == 0) rc = -1;
    for (j = 0; j < n && rc == 0; j++) {
        pthread_mutex_lock(&p.mu);
        while (!p.done[j]) pthread_cond_wait(&p.changed, &p.mu);
        pthread_mutex_unlock(&p.mu);
        rc = take(ctx, j);
        pthread_mutex_lock(&p.mu);
        p.taken = j + 1;
        if (rc) p.stop = 1;
        pthread_cond_broadcast(&p.changed);
        pthread_mutex_unlock(&p.mu);
    }
    pthread_mutex_lock(&p.mu);
    p.stop = 1;
    pthread_cond_broadcast(&p.changed);
    pthread_mutex_unlock(&p.mu);
    for (t = 0; t < started; t++) pthread_join(tid[t], NULL);
    pthread_cond_destroy(&p.changed);
    pthread_mutex_destroy(&p.mu);
    free(p.done);
    free(tid);
    return rc;
}

#endif

/* perfaux.h - the Intel PT traces in a perf.data, for the tools (SPEC.md
   part 6): every AUXTRACE payload and every sample's AUX data as a chunk,
   sorted into queues (per CPU or per thread, as the file's AUXTRACE_INFO
   says; each AUX sample a queue of its own), and the clock's settings
   from the file. */
#ifndef PTCODEC_PERFAUX_H
#define PTCODEC_PERFAUX_H

#include "../ptcodec.h"
#include "../harness/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A piece of trace: an AUXTRACE record's payload, or a sample's AUX data. */
typedef struct perf_chunk {
    uint64_t queue;        /* cpu or idx; an AUX sample's: its number */
    int sample;
    uint64_t offset, size; /* in the queue's AUX stream, and the bytes here */
    const uint8_t *data;   /* into the file's buffer */
    uint32_t cpu, tid;     /* UINT32_MAX: not known */
    size_t order;          /* file order, kept within a queue */
} perf_chunk;

/* A sideband record a reader of the trace wants beside it (ptdump
   --sideband): when (perf time), whose (cpu, tid), and what, in words. */
typedef struct perfaux_side {
    uint64_t time;
    int have_time;
    uint32_t cpu, tid;     /* UINT32_MAX: not known */
    size_t order;
    char text[300];
} perfaux_side;

typedef struct perfaux_file {
    perf_chunk *chunks;    /* sorted by (sample, queue, file order); free() it */
    size_t n;
    perfaux_side *side;         /* COMM, MMAP, ITRACE_START, SWITCH records, by time; free() it */
    size_t nside;
    ptc_perf_mmap *mmaps;  /* every MMAP and MMAP2 record, in file order (names in the file's buffer); free() it */
    size_t nmmaps;
    ptc_perf_pt_info info; /* the AUXTRACE_INFO (perf time from TSC), when there is one */
    int have_info;         /* the file has Intel PT's AUXTRACE_INFO: cc and conf are what it records */
    ptc_clock_config cc;   /* what the file says (ptc_clock_config_from_perf), else the defaults */
    ptc_conform_config conf; /* what the conformance checker can know from it (nothing, without AUXTRACE_INFO) */
    int snapshot;          /* snapshot mode: a queue's chunks may overlap */
    int cut_short;         /* the file ends before its data section does */
    int features_cut;      /* the file ends inside the feature sections after the data */
    ptc_status end;        /* PTC_END, or why the rest of the file cannot be read */
    uint64_t end_offset;   /*   and where */
} perfaux_file;

/* Called for every record that was skipped or says data was lost, and
   for an AUXTRACE cut short (len: the bytes there are). */
typedef void (*perfaux_record_fn)(void *user, const ptc_perf_record *r, uint64_t len);

static int perfaux_chunk_order(const void *a, const void *b)
{
    const perf_chunk *x = (const perf_chunk *)a, *y = (const perf_chunk *)b;
    if (x->sample != y->sample) return x->sample - y->sample;
    if (x->queue != y->queue) return x->queue < y->queue ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int perfaux_is_loss(const ptc_perf_record *r)
{
    return r->error != PTC_OK || r->type == PTC_PERF_AUX || r->type == PTC_PERF_LOST || r->type == PTC_PERF_AUXTRACE_ERROR;
}

/* The chunk a record carries, if any. */
static int perfaux_chunk_of(const ptc_perf_reader *rd, const ptc_perf_record *r, size_t samples, perf_chunk *c)
{
    memset(c, 0, sizeof *c);
    if (r->type == PTC_PERF_AUXTRACE && (r->error == PTC_OK || r->error == PTC_ERR_TRUNCATED)) {
        c->queue = rd->have_info && rd->info.per_cpu_mmaps ? r->u.auxtrace.cpu : r->u.auxtrace.idx;
        c->offset = r->u.auxtrace.offset;
        c->size = r->u.auxtrace.size;
        c->data = r->u.auxtrace.data;
        c->cpu = r->u.auxtrace.cpu;
        c->tid = r->u.auxtrace.tid;
        return 1;
    }
    if (r->type == PTC_PERF_SAMPLE && r->error == PTC_OK && r->u.sample.aux) {
        c->sample = 1;
        c->queue = samples;
        c->size = r->u.sample.aux_size;
        c->data = r->u.sample.aux;
        c->cpu = r->u.sample.have_cpu ? r->u.sample.cpu : UINT32_MAX;
        c->tid = r->u.sample.have_tid ? r->u.sample.tid : UINT32_MAX;
        return 1;
    }
    return 0;
}

/* The words for a sideband record (1), or 0 for another kind. */
static int perfaux_side_of(const ptc_perf_record *r, perfaux_side *e)
{
    memset(e, 0, sizeof *e);
    e->have_time = r->sid.have_time;
    e->time = r->sid.time;
    e->cpu = r->sid.have_cpu ? r->sid.cpu : UINT32_MAX;
    e->tid = r->sid.have_tid ? r->sid.tid : UINT32_MAX;
    if (r->error != PTC_OK) return 0;
    switch (r->type) {
    case PTC_PERF_COMM:
        snprintf(e->text, sizeof e->text, "comm %u/%u %s", r->u.comm.pid, r->u.comm.tid, r->u.comm.comm);
        return 1;
    case PTC_PERF_MMAP: case PTC_PERF_MMAP2:
        snprintf(e->text, sizeof e->text, "%s %u/%u [%llx, %llx) @%llx %s", ptc_perf_record_name(r->type), r->u.mmap.pid,
                 r->u.mmap.tid, (unsigned long long)r->u.mmap.addr, (unsigned long long)(r->u.mmap.addr + r->u.mmap.len),
                 (unsigned long long)r->u.mmap.pgoff, r->u.mmap.filename);
        return 1;
    case PTC_PERF_ITRACE_START:
        snprintf(e->text, sizeof e->text, "itrace_start %u/%u", r->u.itrace_start.pid, r->u.itrace_start.tid);
        return 1;
    case PTC_PERF_SWITCH: case PTC_PERF_SWITCH_CPU_WIDE:
        snprintf(e->text, sizeof e->text, "switch %s%s", r->misc & (1u << 13) ? "out" : "in",
                 r->type == PTC_PERF_SWITCH ? "" : " (cpu wide)");
        return 1;
    default:
        return 0;
    }
}

static int perfaux_side_order(const void *a, const void *b)
{
    const perfaux_side *x = (const perfaux_side *)a, *y = (const perfaux_side *)b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Whether sideband e belongs to the queue of chunk c: its cpu's, or in a
   per-thread recording its thread's. */
UTIL_FN int perfaux_side_of_queue(const perfaux_side *e, const perf_chunk *c)
{
    return c->cpu != UINT32_MAX ? e->cpu == c->cpu : e->tid == c->tid;
}

/* Keeps a sideband record; 0 when out of memory. */
static int perfaux_keep_side(perfaux_file *f, size_t *cap, const perfaux_side *e)
{
    if (f->nside == *cap) {
        perfaux_side *w = (perfaux_side *)realloc(f->side, (*cap = *cap ? 2 * *cap : 64) * sizeof *w);
        if (!w) return 0;
        f->side = w;
    }
    f->side[f->nside] = *e;
    f->side[f->nside].order = f->nside;
    f->nside++;
    return 1;
}

/* Gives back what perfaux_collect kept. */
UTIL_FN void perfaux_free(perfaux_file *f)
{
    free(f->chunks);
    free(f->side);
    free(f->mmaps);
    f->chunks = NULL;
    f->side = NULL;
    f->mmaps = NULL;
}

/* Keeps an MMAP record's mapping; 0 when out of memory. */
static int perfaux_keep_mmap(perfaux_file *f, size_t *cap, const ptc_perf_record *r)
{
    if (f->nmmaps == *cap) {
        ptc_perf_mmap *w = (ptc_perf_mmap *)realloc(f->mmaps, (*cap = *cap ? 2 * *cap : 16) * sizeof *w);
        if (!w) return 0;
        f->mmaps = w;
    }
    f->mmaps[f->nmmaps].addr = r->u.mmap.addr;
    f->mmaps[f->nmmaps].len = r->u.mmap.len;
    f->mmaps[f->nmmaps].pgoff = r->u.mmap.pgoff;
    f->mmaps[f->nmmaps].filename = r->u.mmap.filename;
    f->nmmaps++;
    return 1;
}

/* Gives back what was collected; 0, for perfaux_collect to return. */
static int perfaux_out_of_memory(perfaux_file *f)
{
    fprintf(stderr, "%s: out of memory\n", util_prog);
    perfaux_free(f);
    return 0;
}

/* Reads the perf.data in buf. Returns 0, having said why on standard
   error, when it cannot be read at all. */
UTIL_FN int perfaux_collect(const uint8_t *buf, size_t len, perfaux_file *f, perfaux_record_fn on_record, void *user, const char *path)
{
    ptc_perf_reader rd;
    ptc_perf_record r;
    size_t cap = 0, samples = 0, side_cap = 0, mmap_cap = 0;
    ptc_status st = ptc_perf_open(&rd, buf, len);
    memset(f, 0, sizeof *f);
    if (st != PTC_OK) {
        fprintf(stderr, "%s: %s: %s at offset %llu (%s)\n", util_prog, path, ptc_status_name(st),
                (unsigned long long)rd.error_offset, ptc_status_message(st));
        return 0;
    }
    f->cut_short = rd.cut_short;
    f->features_cut = rd.features_cut;
    while ((st = ptc_perf_next(&rd, &r)) == PTC_OK) {
        perf_chunk c;
        perfaux_side e;
        int has = perfaux_chunk_of(&rd, &r, samples, &c);
        if (on_record && perfaux_is_loss(&r)) on_record(user, &r, has ? c.size : 0);
        if (perfaux_side_of(&r, &e) && !perfaux_keep_side(f, &side_cap, &e)) return perfaux_out_of_memory(f);
        if (r.error == PTC_OK && (r.type == PTC_PERF_MMAP || r.type == PTC_PERF_MMAP2) && !perfaux_keep_mmap(f, &mmap_cap, &r))
            return perfaux_out_of_memory(f);
        if (!has) continue;
        samples += c.sample;
        if (f->n == cap) {
            perf_chunk *w = (perf_chunk *)realloc(f->chunks, (cap = cap ? 2 * cap : 64) * sizeof *w);
            if (!w) return perfaux_out_of_memory(f);
            f->chunks = w;
        }
        c.order = f->n;
        f->chunks[f->n++] = c;
    }
    f->end = st;
    f->end_offset = rd.error_offset;
    f->have_info = ptc_clock_config_from_perf(&f->cc, &rd) == PTC_OK;
    if (!f->have_info) ptc_clock_config_default(&f->cc);
    (void)ptc_conform_config_from_perf(&f->conf, &rd); /* (zeroed: nothing known, when it fails) */
    f->snapshot = rd.have_info && rd.info.snapshot_mode;
    if (rd.have_info) f->info = rd.info;
    if (f->n) qsort(f->chunks, f->n, sizeof *f->chunks, perfaux_chunk_order);
    if (f->nside) qsort(f->side, f->nside, sizeof *f->side, perfaux_side_order);
    return 1;
}

/* Whether chunk c[i] of a queue goes on where c[i - 1] ended: no AUX
   bytes missing between them, none given twice. */
UTIL_FN int perfaux_follows(const perf_chunk *c, size_t i)
{
    return c[i].offset == c[i - 1].offset + c[i - 1].size;
}

/* The bytes of chunks c[from..to) one after another, in out (which holds
   them all): how many. */
UTIL_FN size_t perfaux_join(const perf_chunk *c, size_t from, size_t to, uint8_t *out)
{
    size_t at = 0, k;
    for (k = from; k < to; k++) {
        memcpy(out + at, c[k].data, (size_t)c[k].size);
        at += (size_t)c[k].size;
    }
    return at;
}

/* A perf.data's first 8 bytes, in either byte order. */
static int perfaux_is_perf_magic(const void *head8)
{
    return memcmp(head8, "PERFILE2", 8) == 0 || memcmp(head8, "2ELIFREP", 8) == 0;
}

/* The first bytes of the file at path say it is a perf.data. */
static int perfaux_is_perf_data(const char *path)
{
    char magic[8];
    return util_read_head(path, magic, 8) && perfaux_is_perf_magic(magic);
}

#endif

/* bench_flow - the flow decoder (SPEC.md 9.3, 9.5) against libipt's
   instruction and block decoders and libxdc on libxdc's real traces with
   their page caches (../shared: pt-traces/ and flow/), one core, best of
   five decodes of each trace. Built against Debian's libipt 2.0.5, and as
   bench_flow_libipt22 against 2.2 from the shared tarball; it prints
   which.
     bench_flow SHARED_DIR
   Two tables. The instruction listing: ptcodec's ptc_flow_next without a
   cache and through a warm block cache, against libipt's instruction
   flow decoder (libipt reads the code from the page cache's dump file, its
   sections as pt_image_add_file makes them). Edges: ptcodec's coverage map
   (ptc_coverage_flow) cold (a fresh decoder and an empty cache of 65 536
   blocks and 16 384 runs, the first decode) and warm (the cache kept),
   and warm through a cache that keeps no runs (blocks alone: "no runs"),
   against libipt's block decoder
   and libxdc's bitmap, cold (libxdc_init for the decode) and warm (its
   caches kept). MB/s of trace; where a decoder stops early (libipt on
   avscript_32), what it decoded counts. Beside them, the packets alone:
   the batch decoder (ptc_decoder_next_batch) over the trace, the fastest
   way ptcodec has to read its packets, which bounds any edge decoder
   built on them. Built with -DBENCH_FLOW_LIBXDC
   (the Makefile does when libxdc's tarball and capstone are there). */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/util.h"

#include <intel-pt.h>
#ifdef BENCH_FLOW_LIBXDC
#include <libxdc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static ptc_flow_cached_block cache_blocks[1 << 16], plain_blocks[1 << 16];
static ptc_flow_cached_run cache_runs[1 << 14];
static ptc_flow_cache cache, plain_cache; /* with runs kept, and blocks alone */
static uint8_t map[1 << 16];

/* ptcodec's instructions; through the cache when it is given */
static uint64_t ptcodec_insns(const ptc_image *img, const uint8_t *trace, size_t n, ptc_flow_cache *c)
{
    static ptc_flow flow;
    ptc_flow_insn in;
    ptc_status st;
    uint64_t k = 0;
    ptc_flow_init(&flow, NULL, img, trace, n);
    ptc_flow_use_cache(&flow, c);
    while ((st = ptc_flow_next(&flow, &in)) != PTC_END) k += st == PTC_OK;
    return k;
}

/* ptcodec's coverage map through cache c */
static uint64_t ptcodec_edges_through(const ptc_image *img, const uint8_t *trace, size_t n, ptc_flow_cache *c)
{
    static ptc_flow flow;
    ptc_coverage cov;
    ptc_flow_init(&flow, NULL, img, trace, n);
    ptc_flow_use_cache(&flow, c);
    ptc_coverage_init(&cov, map, sizeof map);
    ptc_coverage_flow(&cov, &flow);
    return cov.edges;
}

/* ptcodec's coverage map through the cache with runs kept; cold: set up
   (and so emptied) first */
static uint64_t ptcodec_edges(const ptc_image *img, const uint8_t *trace, size_t n, int cold)
{
    if (cold) {
        ptc_flow_cache_init(&cache, cache_blocks, sizeof cache_blocks / sizeof cache_blocks[0]);
        ptc_flow_cache_keep_runs(&cache, cache_runs, sizeof cache_runs / sizeof cache_runs[0]);
    }
    return ptcodec_edges_through(img, trace, n, &cache);
}

/* libipt's image: the sections, each from its place in the dump file */
static void libipt_image(struct pt_image *image, const ptc_image *img, const uint8_t *dump, const char *dump_path)
{
    size_t i;
    for (i = 0; i < img->count; i++)
        pt_image_add_file(image, dump_path, (uint64_t)(img->sections[i].bytes - dump), img->sections[i].size, NULL,
                          img->sections[i].base);
}

/* The packets alone, through the batch decoder: the records read */
static uint64_t packets_alone(const uint8_t *trace, size_t n)
{
    static ptc_record recs[256];
    ptc_decoder dec;
    size_t got;
    uint64_t k = 0;
    ptc_decoder_init_buffer(&dec, 0, trace, n);
    while (ptc_decoder_next_batch(&dec, recs, 256, &got) == PTC_OK && got) k += got;
    return k;
}

/* libipt's block decoder: the instructions of its blocks, events taken as
   they come */
static uint64_t libipt_blocks(const ptc_image *img, const uint8_t *dump, const char *dump_path, uint8_t *trace, size_t n)
{
    struct pt_config cfg;
    struct pt_block_decoder *dec;
    uint64_t k = 0;
    int status;
    pt_config_init(&cfg);
    cfg.begin = trace;
    cfg.end = trace + n;
    dec = pt_blk_alloc_decoder(&cfg);
    if (!dec) return 0;
    libipt_image(pt_blk_get_image(dec), img, dump, dump_path);
    for (status = pt_blk_sync_forward(dec); status >= 0;) {
        struct pt_block block;
        while (status >= 0 && (status & pts_event_pending)) {
            struct pt_event ev;
            status = pt_blk_event(dec, &ev, sizeof ev);
        }
        if (status < 0) break;
        status = pt_blk_next(dec, &block, sizeof block);
        if (status < 0) {
            if (status == -pte_eos) break;
            status = pt_blk_sync_forward(dec);
            continue;
        }
        k += block.ninsn;
    }
    pt_blk_free_decoder(dec);
    return k;
}

#ifdef BENCH_FLOW_LIBXDC
static const ptc_image *xdc_image;
static void *xdc_fetch(void *ctx, uint64_t page, bool *found)
{
    size_t i;
    (void)ctx;
    page &= ~(uint64_t)0xFFF;
    for (i = 0; i < xdc_image->count; i++) {
        const ptc_image_section *s = &xdc_image->sections[i];
        if (s->base <= page && page - s->base < s->size) {
            *found = true;
            return (void *)(s->bytes + (page - s->base));
        }
    }
    *found = false;
    return NULL;
}
#endif

/* libipt's instruction flow decoder: the instructions */
static uint64_t libipt_insns(const ptc_image *img, const uint8_t *dump, const char *dump_path, uint8_t *trace, size_t n)
{
    struct pt_config cfg;
    struct pt_insn_decoder *dec;
    uint64_t k = 0;
    int status;
    pt_config_init(&cfg);
    cfg.begin = trace;
    cfg.end = trace + n;
    dec = pt_insn_alloc_decoder(&cfg);
    if (!dec) return 0;
    libipt_image(pt_insn_get_image(dec), img, dump, dump_path);
    for (status = pt_insn_sync_forward(dec); status >= 0 || status == -pte_nosync;) {
        struct pt_insn insn;
        if (status < 0) break;
        while (status >= 0 && (status & pts_event_pending)) {
            struct pt_event ev;
            status = pt_insn_event(dec, &ev, sizeof ev);
        }
        if (status < 0) {
            status = pt_insn_sync_forward(dec);
            continue;
        }
        status = pt_insn_next(dec, &insn, sizeof insn);
        if (status < 0) {
            status = pt_insn_sync_forward(dec);
            continue;
        }
        k++;
    }
    pt_insn_free_decoder(dec);
    return k;
}

/* The best of five runs of `what` on one trace, in seconds; *count gets
   what the last run counted. */
#define BEST_OF_5(best, count, call)                     \
    do {                                                  \
        int r_;                                           \
        for (r_ = 0, best = 1e30; r_ < 5; r_++) {         \
            double t0_ = now(), t_;                       \
            count = (call);                               \
            t_ = now() - t0_;                             \
            if (t_ < best) best = t_;                     \
        }                                                 \
    } while (0)

int main(int argc, char **argv)
{
    static const struct { const char *trace, *image; uint64_t filter_start, filter_end; } pairs[] = {
        { "mruby_trace", "mruby__data", 0x400000, 0x4b6000 },
        { "Unzip_trace", "Unzip__data", 0x400000, 0x427000 },
        { "foo_trace", "foo__data", 0x7ffff7819000, 0x7ffff79ca000 },
        { "qemu_trace1", "qemu__page_cache", 0x555555554000, 0x555555d60000 },
        { "avscript_32_failed_trace_12709_1", "avscript_32__page_cache", 0x1000, 0x7ffffffff000 },
    };
    static struct { double insn_plain, insn_warm, insn_libipt, cold, warm, warm_blocks, blocks, xdc_cold, xdc_warm, packets; uint64_t insns, edges; } row[5];
    size_t p;
    util_prog = "bench_flow";
    if (argc != 2) {
        fprintf(stderr, "usage: bench_flow SHARED_DIR\n");
        return 2;
    }
    for (p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        static ptc_image_section storage[4096];
        char tp[600], ap[600], dp[600];
        size_t tn = 0, an = 0, dn = 0;
        unsigned char *t, *a, *d;
        ptc_image img;
        uint64_t k, kl;
        double best;
        snprintf(tp, sizeof tp, "%s/pt-traces/libxdc_experiments__%s.pt", argv[1], pairs[p].trace);
        snprintf(ap, sizeof ap, "%s/flow/%s.addr", argv[1], pairs[p].image);
        snprintf(dp, sizeof dp, "%s/flow/%s.dump", argv[1], pairs[p].image);
        t = util_read_file(tp, &tn);
        a = util_read_file(ap, &an);
        d = util_read_file(dp, &dn);
        ptc_image_init(&img, storage, 4096);
        if (!t || !a || !d || ptc_image_add_pagecache(&img, a, an, d, dn) != PTC_OK) {
            fprintf(stderr, "bench_flow: cannot read %s with %s\n", tp, ap);
            return 2;
        }
        BEST_OF_5(best, row[p].insns, ptcodec_insns(&img, t, tn, NULL));
        row[p].insn_plain = tn / best / 1e6;
        ptcodec_edges(&img, t, tn, 1);
        BEST_OF_5(best, k, ptcodec_insns(&img, t, tn, &cache));
        row[p].insn_warm = tn / best / 1e6;
        BEST_OF_5(best, kl, libipt_insns(&img, d, dp, t, tn));
        /* where libipt stops early, the share of the trace it decoded */
        row[p].insn_libipt = tn * ((double)kl / (double)row[p].insns) / best / 1e6;
        BEST_OF_5(best, row[p].edges, ptcodec_edges(&img, t, tn, 1));
        row[p].cold = tn / best / 1e6;
        BEST_OF_5(best, k, ptcodec_edges(&img, t, tn, 0));
        row[p].warm = tn / best / 1e6;
        ptc_flow_cache_init(&plain_cache, plain_blocks, sizeof plain_blocks / sizeof plain_blocks[0]);
        ptcodec_edges_through(&img, t, tn, &plain_cache);
        BEST_OF_5(best, k, ptcodec_edges_through(&img, t, tn, &plain_cache));
        row[p].warm_blocks = tn / best / 1e6;
        BEST_OF_5(best, k, packets_alone(t, tn));
        row[p].packets = tn / best / 1e6;
        BEST_OF_5(best, kl, libipt_blocks(&img, d, dp, t, tn));
        row[p].blocks = tn * ((double)kl / (double)row[p].insns) / best / 1e6;
#ifdef BENCH_FLOW_LIBXDC
        {
            uint64_t filter[4][2] = { { 0, 0 } };
            unsigned char *padded = malloc(tn + 16);
            libxdc_t *x;
            if (!padded) return 2;
            memcpy(padded, t, tn);
            memset(padded + tn, PT_TRACE_END, 16); /* libxdc reads to PT_TRACE_END bytes */
            filter[0][0] = pairs[p].filter_start;
            filter[0][1] = pairs[p].filter_end;
            xdc_image = &img;
            BEST_OF_5(best, k, (x = libxdc_init(filter, xdc_fetch, NULL, map, sizeof map), libxdc_decode(x, padded, tn),
                                libxdc_free(x), 0));
            row[p].xdc_cold = tn / best / 1e6;
            x = libxdc_init(filter, xdc_fetch, NULL, map, sizeof map);
            libxdc_decode(x, padded, tn);
            BEST_OF_5(best, k, ((void)libxdc_decode(x, padded, tn), 0));
            row[p].xdc_warm = tn / best / 1e6;
            libxdc_free(x);
            free(padded);
        }
#endif
        (void)k;
        free(t);
        free(a);
        free(d);
    }
    printf("libipt %u.%u (its columns)\n\n", pt_library_version().major, pt_library_version().minor);
    printf("The instruction listing on libxdc's real traces (one core, best of 5; MB/s of trace):\n");
    printf("%-34s %10s | %9s %9s | %9s | %6s %6s\n", "trace", "insns", "ptcodec", "warm", "libipt", "ratio", "warm");
    for (p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
        printf("%-34s %10llu | %9.1f %9.1f | %9.1f | %5.2fx %5.2fx\n", pairs[p].trace, (unsigned long long)row[p].insns,
               row[p].insn_plain, row[p].insn_warm, row[p].insn_libipt, row[p].insn_plain / row[p].insn_libipt,
               row[p].insn_warm / row[p].insn_libipt);
    printf("\nEdges (ptc_coverage_flow) against libipt's block decoder and libxdc (MB/s of trace):\n");
    printf("%-34s %9s | %9s %9s %9s | %9s | %9s %9s | %9s | %s\n", "trace", "edges", "cold", "warm", "no runs",
           "libipt", "xdc cold", "xdc warm", "packets", "cold/xdc, cold/libipt, warm/xdc, packets/xdc");
    for (p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        printf("%-34s %9llu | %9.1f %9.1f %9.1f | %9.1f | ", pairs[p].trace, (unsigned long long)row[p].edges,
               row[p].cold, row[p].warm, row[p].warm_blocks, row[p].blocks);
#ifdef BENCH_FLOW_LIBXDC
        printf("%9.1f %9.1f | %9.1f | %.2fx ", row[p].xdc_cold, row[p].xdc_warm, row[p].packets, row[p].cold / row[p].xdc_cold);
#else
        printf("%9s %9s | %9.1f | - ", "-", "-", row[p].packets);
#endif
        if (row[p].blocks > 0) printf("%.2fx ", row[p].cold / row[p].blocks);
        else printf("(libipt stops at the start) ");
#ifdef BENCH_FLOW_LIBXDC
        printf("%.2fx %.2fx\n", row[p].warm / row[p].xdc_warm, row[p].packets / row[p].xdc_warm);
#else
        printf("- -\n");
#endif
    }
#ifndef BENCH_FLOW_LIBXDC
    printf("(libxdc's columns need its tarball in ../shared/reference and libcapstone-dev)\n");
#endif
    return 0;
}

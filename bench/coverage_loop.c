/* coverage_loop - one trace's coverage map decoded again and again through
   one block cache, as a PT-guided fuzzer decodes its target's traces: the
   warm loop of bench_flow's edges, alone, with the cache's counts, for
   profiling it (perf record) and for before-and-after figures
   (bench/README.md, "Control flow").
     coverage_loop TRACE PAGECACHE_PREFIX DECODES [--no-runs]
   The code comes from libxdc's page cache PREFIX.addr and PREFIX.dump
   (SPEC.md 9.2); the cache has 65 536 blocks and, without --no-runs,
   16 384 runs. Each decode starts from a zeroed 64 KiB map; the first is
   the cold one. Prints the best decode's time and MB/s, the edges, a hash
   of the map (the same with or without runs: SPEC.md 9.5), and a warm
   decode's lookups: runs found and recorded, blocks looked up. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static ptc_flow_cached_block blocks[1 << 16];
static ptc_flow_cached_run runs[1 << 14];
static ptc_flow_cache cache;
static uint8_t map[1 << 16];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* FNV-1a over the map: equal maps, equal hashes */
static uint64_t map_hash(void)
{
    uint64_t h = 0xCBF29CE484222325ull;
    size_t i;
    for (i = 0; i < sizeof map; i++) h = (h ^ map[i]) * 0x100000001B3ull;
    return h;
}

static ptc_status one_decode(const ptc_image *img, const unsigned char *trace, size_t n, uint64_t *edges)
{
    static ptc_flow flow;
    ptc_coverage cov;
    ptc_status st;
    memset(map, 0, sizeof map);
    ptc_coverage_init(&cov, map, sizeof map);
    st = ptc_flow_init(&flow, NULL, img, trace, n);
    if (st != PTC_OK) return st;
    ptc_flow_use_cache(&flow, &cache);
    st = ptc_coverage_flow(&cov, &flow);
    *edges = cov.edges;
    return st;
}

int main(int argc, char **argv)
{
    static ptc_image_section sections[4096];
    char addr_path[4096], dump_path[4096];
    unsigned char *trace, *addr, *dump;
    size_t tn = 0, an = 0, dn = 0;
    uint64_t decodes, k, edges = 0, hits = 0, misses = 0, lookups = 0;
    ptc_image img;
    ptc_status st = PTC_OK;
    double best = 1e30;
    int with_runs = 1;
    util_prog = "coverage_loop";
    if (argc == 5 && strcmp(argv[4], "--no-runs") == 0) {
        with_runs = 0;
    } else if (argc != 4) {
        fprintf(stderr, "usage: coverage_loop TRACE PAGECACHE_PREFIX DECODES [--no-runs]\n");
        return 2;
    }
    if (!util_parse_u64("DECODES", argv[3], 1000000, &decodes)) return 2;
    if (decodes < 2) {
        fprintf(stderr, "coverage_loop: DECODES: %llu, but the first decode is the cold one: at least 2\n",
                (unsigned long long)decodes);
        return 2;
    }
    snprintf(addr_path, sizeof addr_path, "%s.addr", argv[2]);
    snprintf(dump_path, sizeof dump_path, "%s.dump", argv[2]);
    trace = util_read_file(argv[1], &tn);
    addr = util_read_file(addr_path, &an);
    dump = util_read_file(dump_path, &dn);
    ptc_image_init(&img, sections, sizeof sections / sizeof sections[0]);
    if (!trace || !addr || !dump) {
        fprintf(stderr, "coverage_loop: cannot read %s\n", !trace ? argv[1] : !addr ? addr_path : dump_path);
        return 2;
    }
    st = ptc_image_add_pagecache(&img, addr, an, dump, dn);
    if (st != PTC_OK) {
        fprintf(stderr, "coverage_loop: %s and %s: %s\n", addr_path, dump_path, ptc_status_name(st));
        return 2;
    }
    ptc_flow_cache_init(&cache, blocks, sizeof blocks / sizeof blocks[0]);
    if (with_runs) ptc_flow_cache_keep_runs(&cache, runs, sizeof runs / sizeof runs[0]);
    for (k = 0; k < decodes; k++) {
        uint64_t h0 = cache.run_hits, m0 = cache.run_misses, l0 = cache.hits + cache.misses;
        double t0 = now(), t;
        st = one_decode(&img, trace, tn, &edges);
        t = now() - t0;
        if (t < best) best = t;
        hits = cache.run_hits - h0;
        misses = cache.run_misses - m0;
        lookups = cache.hits + cache.misses - l0;
    }
    printf("%s: %llu edges, map %016llx, %s; best of %llu decodes %.3f ms, %.1f MB/s; the last: %llu runs found, "
           "%llu recorded, %llu blocks looked up%s\n",
           argv[1], (unsigned long long)edges, (unsigned long long)map_hash(), ptc_status_name(st),
           (unsigned long long)decodes, best * 1e3, (double)tn / best / 1e6, (unsigned long long)hits,
           (unsigned long long)misses, (unsigned long long)lookups, with_runs ? "" : " (no runs)");
    free(trace);
    free(addr);
    free(dump);
    return st == PTC_OK ? 0 : 1;
}

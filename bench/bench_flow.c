/* bench_flow - the flow decoder (SPEC.md §9.3) against libipt's instruction
   flow decoder on libxdc's real traces with their page caches (../shared:
   pt-traces/ and flow/), one core, best of five decodes of each trace.
   libipt reads the code from the page cache's dump file, its sections as
   pt_image_add_file makes them; ptcodec from the same bytes in memory.
     bench_flow SHARED_DIR
   Prints a table: per trace, instructions, MB/s of trace and millions of
   instructions a second for each decoder, and ptcodec's ratio. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/util.h"

#include <intel-pt.h>
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

static uint64_t ptcodec_once(const ptc_image *img, const uint8_t *trace, size_t n)
{
    static ptc_flow flow;
    ptc_flow_insn in;
    ptc_status st;
    uint64_t k = 0;
    ptc_flow_init(&flow, NULL, img, trace, n);
    while ((st = ptc_flow_next(&flow, &in)) != PTC_END) k += st == PTC_OK;
    return k;
}

/* libipt's sections: the image's, each from its place in the dump file. */
static uint64_t libipt_once(const ptc_image *img, const uint8_t *dump, const char *dump_path, uint8_t *trace, size_t n)
{
    struct pt_config cfg;
    struct pt_insn_decoder *dec;
    struct pt_image *image;
    uint64_t k = 0;
    size_t i;
    int status;
    pt_config_init(&cfg);
    cfg.begin = trace;
    cfg.end = trace + n;
    dec = pt_insn_alloc_decoder(&cfg);
    if (!dec) return 0;
    image = pt_insn_get_image(dec);
    for (i = 0; i < img->count; i++)
        pt_image_add_file(image, dump_path, (uint64_t)(img->sections[i].bytes - dump), img->sections[i].size, NULL,
                          img->sections[i].base);
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

int main(int argc, char **argv)
{
    static const char *const pairs[][2] = {
        { "mruby_trace", "mruby__data" }, { "Unzip_trace", "Unzip__data" }, { "foo_trace", "foo__data" },
        { "qemu_trace1", "qemu__page_cache" }, { "avscript_32_failed_trace_12709_1", "avscript_32__page_cache" },
    };
    size_t p;
    util_prog = "bench_flow";
    if (argc != 2) {
        fprintf(stderr, "usage: bench_flow SHARED_DIR\n");
        return 2;
    }
    printf("The flow decoder on libxdc's real traces (one core, best of 5): MB/s of trace, millions of instructions a second\n");
    printf("%-34s %10s | %8s %8s | %8s %8s | %6s\n", "trace", "insns", "ptcodec", "Minsn/s", "libipt", "Minsn/s", "ratio");
    for (p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        static ptc_image_section storage[4096];
        char tp[600], ap[600], dp[600];
        size_t tn = 0, an = 0, dn = 0;
        unsigned char *t, *a, *d;
        ptc_image img;
        double best_p = 1e30, best_l = 1e30;
        uint64_t kp = 0, kl = 0;
        int r;
        snprintf(tp, sizeof tp, "%s/pt-traces/libxdc_experiments__%s.pt", argv[1], pairs[p][0]);
        snprintf(ap, sizeof ap, "%s/flow/%s.addr", argv[1], pairs[p][1]);
        snprintf(dp, sizeof dp, "%s/flow/%s.dump", argv[1], pairs[p][1]);
        t = util_read_file(tp, &tn);
        a = util_read_file(ap, &an);
        d = util_read_file(dp, &dn);
        ptc_image_init(&img, storage, 4096);
        if (!t || !a || !d || ptc_image_add_pagecache(&img, a, an, d, dn) != PTC_OK) {
            fprintf(stderr, "bench_flow: cannot read %s with %s\n", tp, ap);
            return 2;
        }
        for (r = 0; r < 5; r++) {
            double t0 = now(), t1, t2;
            kp = ptcodec_once(&img, t, tn);
            t1 = now();
            kl = libipt_once(&img, d, dp, t, tn);
            t2 = now();
            if (t1 - t0 < best_p) best_p = t1 - t0;
            if (t2 - t1 < best_l) best_l = t2 - t1;
        }
        printf("%-34s %10llu | %8.1f %8.1f | %8.1f %8.1f | %5.2fx%s\n", pairs[p][0], (unsigned long long)kp, tn / best_p / 1e6,
               kp / best_p / 1e6, tn / best_l / 1e6, kl / best_l / 1e6, best_l / best_p,
               kp == kl ? "" : " (libipt decodes another number of instructions)");
        free(t);
        free(a);
        free(d);
    }
    return 0;
}

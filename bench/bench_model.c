/* bench_model - how fast the hardware model simulates, in core cycles per
   second of wall time, for each built-in workload under the seed's policy
   (one core, jumping from event to event). Not a test; --quick (make
   check, under the sanitizers) runs a thousandth of the cycles once, to
   show that it runs through. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static uint64_t bytes_out;
static void count(void *u, const uint8_t *b, size_t len, const ptc_truth *t) { UTIL_UNUSED(u); UTIL_UNUSED(b); UTIL_UNUSED(t); bytes_out += len; }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int wi, quick = argc == 2 && !strcmp(argv[1], "--quick");
    if (argc > 1 && !quick) {
        fprintf(stderr, "usage: bench_model [--quick]\n");
        return 2;
    }
    printf("ptcodec %s hardware model: simulated core cycles per second (seed policy, best of %d)\n\n", ptc_version(),
           quick ? 1 : 3);
    printf("%-10s %14s %12s %14s\n", "workload", "cycles", "M cycles/s", "trace MB/s");
    for (wi = 0; wi < WORKLOAD_COUNT; wi++) {
        /* sparse workloads cover far more cycles in the same time */
        uint64_t cycles = (wi == 1 || wi == 2 || wi == 3) ? UINT64_C(20000000000) : UINT64_C(200000000);
        double best = 1e30;
        uint64_t bytes = 0;
        int r;
        if (quick) cycles /= 1000;
        for (r = 0; r < (quick ? 1 : 3); r++) {
            ptc_model_config cfg;
            ptc_model m;
            ptc_model_sink sink;
            double t0, t;
            char err[64];
            ptc_model_config_default(&cfg);
            workload_configure(wi, &cfg);
            modelcfg_policy(&cfg.trace.policy, "seed", err, sizeof err);
            memset(&sink, 0, sizeof sink); /* no user, no event or retire callback */
            sink.packet = count;
            bytes_out = 0;
            if (ptc_model_init(&m, &cfg, &sink) != PTC_OK) {
                fprintf(stderr, "bench_model: the %s workload's configuration is refused\n", workload_names[wi]);
                return 1;
            }
            t0 = now();
            workload_run_workload(wi, &m, cycles, 1);
            t = now() - t0;
            if (t < best) { best = t; bytes = bytes_out; }
        }
        printf("%-10s %14llu %12.0f %14.1f\n", workload_names[wi], (unsigned long long)cycles, (double)cycles / best / 1e6,
               (double)bytes / best / 1e6);
    }
    return 0;
}

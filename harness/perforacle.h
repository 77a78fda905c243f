/* perforacle.h - Linux perf's time for each packet of a raw trace, as an
   outside reader to hold ptcodec's clock against (bench/timecmp, and
   tests/test_realtraces on the real recordings).

   The trace goes into a perf.data with the settings it was recorded with
   (written by ptcodec's ptc_perf_write; perf time = TSC) and is decoded by
   `perf script --itrace=d`. perf's decoder log lists every packet it
   reaches and each timestamp it sets, so a packet's time is the last one
   set when perf reached it, or the one it sets itself. Needs POSIX
   (mkdtemp, system): define _POSIX_C_SOURCE 200809L first. */
#ifndef PTCODEC_PERFORACLE_H
#define PTCODEC_PERFORACLE_H

#include "../ptcodec.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What perf records of how a trace was made, and the decoder needs. */
typedef struct perforacle_settings {
    uint8_t mtc_freq, nom_freq, cyc_en, cyc_thresh;
    uint32_t cpuid_15_eax, cpuid_15_ebx;
} perforacle_settings;

/* The trace in bytes[0, len) as a one-queue perf.data at path. */
UTIL_FN int perforacle_write_perf_data(const char *path, const uint8_t *bytes, size_t len, const perforacle_settings *st,
                             uint64_t start_tsc)
{
    ptc_perf_pt_info info;
    ptc_perf_trace tr;
    size_t need = 0;
    uint8_t *file;
    uint64_t config;
    FILE *f;
    int ok;
    memset(&info, 0, sizeof info);
    memset(&tr, 0, sizeof tr);
    info.pmu_type = 8;
    info.time_mult = 1; /* perf time = TSC */
    info.cap_user_time_zero = 1;
    info.tsc_bit = PTC_PERF_PT_TSC;
    info.mtc_bit = PTC_PERF_PT_MTC;
    info.mtc_freq_bits = 15u << PTC_PERF_PT_MTC_SHIFT;
    info.cyc_bit = PTC_PERF_PT_CYC;
    info.per_cpu_mmaps = 1;
    info.tsc_ctc_n = st->cpuid_15_ebx;
    info.tsc_ctc_d = st->cpuid_15_eax;
    info.max_nonturbo_ratio = st->nom_freq;
    config = PTC_PERF_PT_BRANCH | PTC_PERF_PT_TSC | PTC_PERF_PT_MTC | ((uint64_t)st->mtc_freq << PTC_PERF_PT_MTC_SHIFT) |
             (st->cyc_en ? PTC_PERF_PT_CYC | ((uint64_t)st->cyc_thresh << PTC_PERF_PT_CYC_THRESH_SHIFT) : 0);
    tr.bytes = bytes;
    tr.len = len;
    tr.pid = tr.tid = 1000;
    tr.start_time = start_tsc;
    (void)ptc_perf_write(NULL, 0, &need, &info, config, &tr, 1, 0, 0, 0);
    file = (uint8_t *)malloc(need);
    ok = file && ptc_perf_write(file, need, &need, &info, config, &tr, 1, 0, 0, 0) == PTC_OK &&
         (f = fopen(path, "wb")) != NULL;
    if (ok) {
        int written = fwrite(file, 1, need, f) == need;
        ok = (fclose(f) == 0) && written; /* closed either way */
    }
    free(file);
    return ok;
}

/* perf's time for each of the n packets (items, decoded from bytes) in
   est (UINT64_MAX: perf never reached it). Returns 0 when perf cannot run
   here. */
UTIL_FN int perforacle_perf_times(const uint8_t *bytes, size_t len, const perforacle_settings *st, const ptc_item *items, size_t n,
                        uint64_t *est)
{
    char dir[] = "/tmp/ptcodec-perf-XXXXXX", cmd[512], path[256];
    uint8_t *log;
    size_t loglen = 0, k = 0, i;
    uint64_t now = UINT64_MAX, start = 0;
    const char *line;
    size_t last = SIZE_MAX; /* the packet on the log's line before, if it is one of ours */
    int ok;
    for (i = 0; i < n; i++) est[i] = UINT64_MAX;
    if (!mkdtemp(dir)) return 0;
    for (i = 0; i < n && !start; i++)
        if (items[i].error == PTC_OK && items[i].pkt.type == PTC_TSC) start = items[i].pkt.u.tsc.tsc;
    snprintf(path, sizeof path, "%s/s.data", dir);
    ok = perforacle_write_perf_data(path, bytes, len, st, start);
    snprintf(cmd, sizeof cmd, "cd %s && perf script -F time --itrace=d -i s.data > /dev/null 2>&1", dir);
    ok = ok && system(cmd) == 0;
    snprintf(path, sizeof path, "%s/intel_pt.log", dir);
    log = ok ? util_read_file(path, &loglen) : NULL;
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    (void)system(cmd);
    if (!log) return 0;
    for (line = (const char *)log; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        uint64_t off;
        if (strncmp(line, "Setting timestamp to 0x", 23) == 0 &&
            util_parse_u64_n(line + 21, strspn(line + 21, "0123456789abcdefx"), UINT64_MAX, &now)) {
            if (last != SIZE_MAX) est[last] = now; /* the packet that set it is at its new time */
        } else if (line[0] == ' ' && line[1] == ' ' && strnlen(line, 12) > 11 && line[10] == ':' && /* not strlen: the log is megabytes */
                   util_parse_digits(line + 2, 8, 16, UINT64_MAX, &off)) { /* "  0000002c:  1b   CYC 0x3" */
            while (k < n && items[k].offset < off) k++;
            last = k < n && items[k].offset == off ? k : SIZE_MAX;
            if (last != SIZE_MAX) est[k++] = now;
        }
    }
    free(log);
    return 1;
}

#endif

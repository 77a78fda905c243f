/* test_perf - the perf.data reader and writer (SPEC.md part 6): round
   trips of the model's traces, every malformation the reader names, and
   the real recordings in shared/pt-traces-timed (perf 4.14 to 6.1, file
   and pipe mode, AUX areas and AUX samples; skipped when absent). */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"
#include "../harness/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../harness/modelrec.h"

#include <string.h>

/* A buffer written by ptc_perf_write: two queues of the model's trace. */
typedef struct written { uint8_t *bytes; size_t len; modelrec_trace tr; ptc_model_config cfg; } written;

static const ptc_perf_mmap sideband_maps[2] = { { 0x400000, 0x3000, 0, "/usr/bin/prog" },
                                                { 0x7f0000001000, 0x1d3000, 0x26000, "/usr/lib/x86_64-linux-gnu/libc.so.6" } };

static int write_model_trace(int wi, const char *settings, written *w)
{
    ptc_model_sink sink;
    ptc_perf_pt_info in;
    ptc_perf_trace t[2];
    char err[200];
    uint64_t config;
    memset(w, 0, sizeof *w);
    sink = modelrec_start(&w->tr, 1);
    if (!workload_run_configured(wi, "off", settings, 400000, 3, &sink, &w->cfg, err, sizeof err)) {
        CHECK(0, "%s", err);
        return 0;
    }
    memset(t, 0, sizeof t);
    ptc_perf_info_from_model(&in, &config, &w->cfg);
    CHECK(in.max_nonturbo_ratio == ptc_model_nom_freq(&w->cfg) && ((config >> 14) & 15) == w->cfg.trace.ctl.mtc_freq);
    t[0].bytes = w->tr.bytes;
    t[0].len = w->tr.len;
    t[0].pid = t[0].tid = 4242;
    t[0].start_time = w->cfg.tsc_offset;
    t[1] = t[0];
    t[1].len = w->tr.len / 3;
    /* the second thread's sideband, as the QEMU plugin writes it */
    t[1].tid = 4243;
    t[1].comm = "worker";
    t[1].mmaps = sideband_maps;
    t[1].nmmaps = 2;
    CHECK(ptc_perf_write(NULL, 0, &w->len, &in, config, t, 2, 6, 85, 4) == PTC_ERR_NO_SPACE && w->len > w->tr.len);
    w->bytes = (uint8_t *)malloc(w->len);
    CHECK(ptc_perf_write(w->bytes, w->len, &w->len, &in, config, t, 2, 6, 85, 4) == PTC_OK);
    return 1;
}

static void written_free(written *w) { free(w->bytes); modelrec_free(&w->tr); }

/* Read back: the records, the payloads byte for byte, the clock's settings
   from the file, and the truth inside every interval of queue 0. */
static void round_trip(const void *arg)
{
    const char *settings = (const char *)arg;
    static ptc_clock clk;
    written w;
    ptc_perf_reader rd;
    ptc_perf_record r;
    ptc_clock_config cc;
    ptc_decoder dec;
    ptc_item it;
    ptc_timed_item t;
    size_t queues = 0, k = 0, outside = 0, conflicts = 0, timed = 0, comms = 0, mmaps = 0;
    const uint8_t *q0 = NULL;
    uint64_t q0_len = 0;
    ptc_status st;
    if (!write_model_trace(0, settings, &w)) return;
    CHECK(ptc_perf_open(&rd, w.bytes, w.len) == PTC_OK && !rd.pipe && rd.nattrs == 1);
    CHECK(rd.have_cpuid && rd.family == 6 && rd.model == 85 && rd.stepping == 4);
    while ((st = ptc_perf_next(&rd, &r)) == PTC_OK) {
        CHECK(r.error == PTC_OK, "%s record at %llu: %s", ptc_perf_record_name(r.type), (unsigned long long)r.offset,
              ptc_status_name(r.error));
        if (r.type == PTC_PERF_AUXTRACE) {
            size_t want = queues == 0 ? w.tr.len : w.tr.len / 3;
            CHECK(r.u.auxtrace.size == ((want + 7) & ~(size_t)7) && r.u.auxtrace.cpu == queues &&
                  memcmp(r.u.auxtrace.data, w.tr.bytes, want) == 0, "queue %zu", queues);
            if (!queues) { q0 = r.u.auxtrace.data; q0_len = r.u.auxtrace.size; }
            queues++;
        }
        if (r.type == PTC_PERF_ITRACE_START) CHECK(r.u.itrace_start.pid == 4242);
        if (r.type == PTC_PERF_COMM) {
            CHECK(r.u.comm.tid == 4243 && strcmp(r.u.comm.comm, "worker") == 0 && queues == 1, "COMM");
            /* its sample id: the second trace's thread, start time and cpu */
            CHECK(r.sid.have_tid && r.sid.tid == 4243 && r.sid.have_time && r.sid.time == w.cfg.tsc_offset &&
                      r.sid.have_cpu && r.sid.cpu == 1,
                  "COMM sample id: tid %u time %llu cpu %u", r.sid.tid, (unsigned long long)r.sid.time, r.sid.cpu);
            comms++;
        }
        if (r.type == PTC_PERF_MMAP) { /* before the second thread's AUXTRACE */
            const ptc_perf_mmap *mm = &sideband_maps[mmaps++ % 2];
            CHECK(r.u.mmap.tid == 4243 && r.u.mmap.addr == mm->addr && r.u.mmap.len == mm->len &&
                      r.u.mmap.pgoff == mm->pgoff && strcmp(r.u.mmap.filename, mm->filename) == 0 && queues == 1,
                  "MMAP %zu", mmaps);
        }
    }
    CHECK(st == PTC_END && queues == 2 && comms == 1 && mmaps == 2, "%zu queues, %zu COMM, %zu MMAP", queues, comms, mmaps);
    CHECK(rd.have_info && rd.info.nfields == PTC_PERF_PT_INFO_FIELDS && rd.info.tsc_ctc_n == w.cfg.trace.ratios.cpuid_15_ebx && ptc_perf_pt_attr(&rd) != NULL);
    CHECK(ptc_clock_config_from_perf(&cc, &rd) == PTC_OK);
    CHECK(cc.trace.ctl.mtc_freq == w.cfg.trace.ctl.mtc_freq && cc.trace.ratios.cpuid_15_eax == w.cfg.trace.ratios.cpuid_15_eax && cc.trace.ratios.cpuid_15_ebx == w.cfg.trace.ratios.cpuid_15_ebx &&
          cc.trace.ratios.nom_num == ptc_model_nom_freq(&w.cfg) && !cc.trace.ratios.nom_exact && cc.trace.ctl.cyc_en == w.cfg.trace.ctl.cyc_en &&
          cc.trace.ctl.cyc_thresh == w.cfg.trace.ctl.cyc_thresh && cc.trace.errata == ptc_errata_for_cpu(6, 85, 4),
          "clock settings from the file");
    {   /* the whole IA32_RTIT_CTL but the privilege levels goes out and back */
        ptc_trace_config t;
        ptc_rtit_ctl want = w.cfg.trace.ctl;
        CHECK(ptc_perf_trace_config(&rd, &t) == PTC_OK);
        want.os = want.user = 0;
        CHECK(memcmp(&t.ctl, &want, sizeof want) == 0 &&
                  t.known == ((PTC_KNOW_CTL & ~(uint32_t)(PTC_KNOW_OS | PTC_KNOW_USER)) | PTC_KNOW_CPU) &&
                  t.errata == cc.trace.errata,
              "IA32_RTIT_CTL from the file: known %#x", (unsigned)t.known);
    }
    /* the model's own jitter and the hardware's tolerances: the file's
       settings must hold the truth */
    if (cc.real.mtc_jitter < w.cfg.mtc_jitter) cc.real.mtc_jitter = w.cfg.mtc_jitter;
    CHECK(ptc_clock_init(&clk, &cc) == PTC_OK);
    ptc_decoder_init_buffer(&dec, 0, q0, (size_t)q0_len);
    for (;;) {
        int more = ptc_decoder_next(&dec, &it) == PTC_OK;
        if (more) CHECK(ptc_clock_push(&clk, &it) == PTC_OK);
        else ptc_clock_finish(&clk);
        while (ptc_clock_pop(&clk, &t) == PTC_OK) {
            const ptc_truth *tr;
            while (k < w.tr.nt && w.tr.t[k].fate != PTC_FATE_EMITTED) k++;
            if (k == w.tr.nt) break; /* the padding after the trace */
            tr = &w.tr.t[k++];
            CHECK(t.item.offset == tr->offset);
            if (!t.have_time) continue;
            timed++;
            conflicts += t.conflict;
            outside += !(t.tsc_lo <= tr->time.tsc && (tr->time.tsc < t.tsc_hi || (tr->time.tsc == t.tsc_hi && !tr->time.num)));
        }
        if (!more) break;
    }
    CHECK(timed > 1000 && outside == 0 && conflicts == 0, "%s: %zu timed, %zu outside, %zu conflicts", settings, timed,
          outside, conflicts);
    written_free(&w);
}

/* ---- malformed input: every error named, at its offset, nothing read past the end ---- */

static ptc_status open_copy(const uint8_t *src, size_t len, ptc_perf_reader *rd, uint8_t **copy)
{
    /* an exact-size heap copy, so ASan sees any read past the end */
    *copy = (uint8_t *)malloc(len ? len : 1);
    if (len) memcpy(*copy, src, len);
    return ptc_perf_open(rd, *copy, len);
}

static void put32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }
static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

/* The data records of a pipe-mode file: its 16-byte header, then recs. */
static size_t pipe_file(uint8_t *buf, const uint8_t *recs, size_t n)
{
    memcpy(buf, "PERFILE2", 8);
    memset(buf + 8, 0, 8);
    buf[8] = 16;
    memcpy(buf + 16, recs, n);
    return 16 + n;
}

static void malformed_input_is_named(void)
{
    written w;
    ptc_perf_reader rd;
    ptc_perf_record r;
    uint8_t *c, buf[512], rec[256];
    size_t n, i;
    memset(buf, 0, sizeof buf);
    CHECK(ptc_perf_open(NULL, buf, 1) == PTC_ERR_BAD_ARGUMENT && ptc_perf_next(NULL, &r) == PTC_ERR_BAD_ARGUMENT);
    CHECK(open_copy((const uint8_t *)"", 0, &rd, &c) == PTC_ERR_BAD_PERF); free(c);
    CHECK(open_copy((const uint8_t *)"PERFILE3xxxxxxxxxxxx", 20, &rd, &c) == PTC_ERR_BAD_PERF && rd.error_offset == 0); free(c);
    CHECK(open_copy((const uint8_t *)"2ELIFREPxxxxxxxxxxxx", 20, &rd, &c) == PTC_ERR_UNSUPPORTED); free(c);
    if (!write_model_trace(1, "cyc_en=1,cyc_thresh=2", &w)) return;
    /* every prefix of a good file: an error or a clean end, never a read past it */
    for (n = 0; n < w.len; n += n < 400 ? 1 : 997) {
        if (open_copy(w.bytes, n, &rd, &c) == PTC_OK) {
            ptc_status st;
            while ((st = ptc_perf_next(&rd, &r)) == PTC_OK) {}
            CHECK(st == PTC_END || st == PTC_ERR_BAD_PERF, "prefix %zu: %s", n, ptc_status_name(st));
        }
        free(c);
    }
    /* cut inside the data section: read up to the cut, the record there named */
    CHECK(open_copy(w.bytes, 300, &rd, &c) == PTC_OK && rd.cut_short && ptc_perf_next(&rd, &r) == PTC_ERR_BAD_PERF &&
          rd.error_offset == 256 && ptc_perf_next(&rd, &r) == PTC_END);
    free(c);
    /* whole: every feature section there; one byte short: the data is
       whole, the feature sections (the CPUID) are cut, and the reader says so */
    CHECK(open_copy(w.bytes, w.len, &rd, &c) == PTC_OK && !rd.cut_short && !rd.features_cut && rd.have_cpuid);
    free(c);
    CHECK(open_copy(w.bytes, w.len - 1, &rd, &c) == PTC_OK && !rd.cut_short && rd.features_cut && !rd.have_cpuid);
    free(c);
    /* cut before its attributes: nothing to read */
    CHECK(open_copy(w.bytes, 104, &rd, &c) == PTC_ERR_BAD_PERF && rd.error_offset == 40); free(c);
    /* compressed records: named, not misread */
    c = (uint8_t *)malloc(w.len);
    memcpy(c, w.bytes, w.len);
    c[72 + 27 / 8] |= 1u << (27 % 8);
    CHECK(ptc_perf_open(&rd, c, w.len) == PTC_ERR_UNSUPPORTED && rd.error_offset == 72);
    free(c);
    /* pipe mode: a COMM without its NUL is skipped and named, the LOST
       after it is read; then a header of size 4 ends it */
    memset(rec, 0, sizeof rec);
    put32(rec, PTC_PERF_COMM); put16(rec + 6, 24);
    memset(rec + 16, 'x', 8);
    put32(rec + 24, PTC_PERF_LOST); put16(rec + 30, 24);
    rec[40] = 7;
    put32(rec + 48, PTC_PERF_LOST); put16(rec + 54, 4);
    n = pipe_file(buf, rec, 56);
    CHECK(open_copy(buf, n, &rd, &c) == PTC_OK && rd.pipe);
    CHECK(ptc_perf_next(&rd, &r) == PTC_OK && r.type == PTC_PERF_COMM && r.error == PTC_ERR_BAD_PERF && r.offset == 16);
    CHECK(ptc_perf_next(&rd, &r) == PTC_OK && r.type == PTC_PERF_LOST && r.error == PTC_OK && r.u.lost.lost == 7);
    CHECK(ptc_perf_next(&rd, &r) == PTC_ERR_BAD_PERF && rd.error_offset == 64);
    CHECK(ptc_perf_next(&rd, &r) == PTC_END);
    free(c);
    /* an AUXTRACE whose payload runs past the end: what is there, named truncated */
    memset(rec, 0, sizeof rec);
    put32(rec, PTC_PERF_AUXTRACE); put16(rec + 6, 48);
    rec[8] = 100; /* size */
    for (i = 0; i < 20; i++) rec[48 + i] = 0; /* 20 PADs */
    n = pipe_file(buf, rec, 68);
    CHECK(open_copy(buf, n, &rd, &c) == PTC_OK);
    CHECK(ptc_perf_next(&rd, &r) == PTC_OK && r.error == PTC_ERR_TRUNCATED && r.u.auxtrace.size == 20);
    CHECK(ptc_perf_next(&rd, &r) == PTC_END);
    free(c);
    /* a sample with AUX whose size runs past its record */
    CHECK(ptc_clock_config_from_perf(NULL, &rd) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_clock_config_from_perf((ptc_clock_config *)(void *)buf, &rd) == PTC_ERR_NOT_FOUND);
    CHECK(strcmp(ptc_perf_record_name(PTC_PERF_AUXTRACE), "auxtrace") == 0 &&
          strcmp(ptc_perf_record_name(12345), "unknown_record") == 0);
    written_free(&w);
}

static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

/* A sample with every variable-size field perf can put before its AUX
   data: the reader finds the AUX data where it is, in a record of each
   layout; and a record cut anywhere is named, never read past. */
static void sample_layouts_place_the_aux_data(void)
{
    enum { S_IP = 1, S_TID = 2, S_TIME = 4, S_READ = 16, S_CALLCHAIN = 32, S_CPU = 128, S_RAW = 1024,
           S_BRANCH_STACK = 2048, S_REGS_USER = 4096, S_STACK_USER = 8192, S_WEIGHT = 16384, S_REGS_INTR = 1 << 18,
           S_AUX = 1 << 20, S_CGROUP = 1 << 21, S_DATA_PAGE_SIZE = 1 << 22 };
    static const uint64_t layouts[] = {
        S_TID | S_TIME | S_CPU | S_AUX,
        S_IP | S_TID | S_TIME | S_READ | S_CPU | S_AUX,
        S_TID | S_TIME | S_CALLCHAIN | S_RAW | S_BRANCH_STACK | S_CPU | S_AUX,
        S_TID | S_TIME | S_CPU | S_REGS_USER | S_STACK_USER | S_WEIGHT | S_REGS_INTR | S_AUX,
        S_TID | S_TIME | S_CPU | S_READ | S_BRANCH_STACK | S_REGS_USER | S_STACK_USER | S_REGS_INTR | S_CGROUP |
            S_DATA_PAGE_SIZE | S_AUX,
    };
    static const uint8_t aux[16] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };
    size_t li;
    for (li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
        static uint8_t recs[1024], buf[1100];
        uint64_t st = layouts[li];
        size_t at = 0, n, body, cut;
        ptc_perf_reader rd;
        ptc_perf_record r;
        uint8_t *c;
        memset(recs, 0, sizeof recs);
        /* HEADER_ATTR: a 104-byte attribute (read_format: group, enabled,
           id; branch stacks with hw_idx; 2 user and 3 interrupt registers) */
        put32(recs, PTC_PERF_HEADER_ATTR); put16(recs + 6, 8 + 104);
        put32(recs + 8 + 4, 104);
        put64(recs + 8 + 24, st);
        put64(recs + 8 + 32, 8 | 1 | 4);
        put64(recs + 8 + 72, (uint64_t)1 << 17);
        put64(recs + 8 + 80, 0x5);
        put64(recs + 8 + 96, 0x70);
        at = 8 + 104;
        body = at + 8;
        #define F(v) (put64(recs + body, (v)), body += 8)
        if (st & S_IP) F(0x401000);
        F(((uint64_t)42 << 32) | 77);                                   /* pid 77, tid 42 */
        F(123456789);                                                   /* time */
        if (st & S_CPU) F(3);
        if (st & S_READ) { F(2); F(1000); F(1); F(11); F(2); F(12); }   /* nr, enabled, 2 x (value, id) */
        if (st & S_CALLCHAIN) { F(2); F(1); F(2); }
        if (st & S_RAW) { put32(recs + body, 12); body += 16; }         /* u32 size 12 + 12 bytes */
        if (st & S_BRANCH_STACK) { F(1); F(9); F(1); F(2); F(3); }      /* nr 1, hw_idx, one entry */
        if (st & S_REGS_USER) { F(2); F(10); F(11); }                   /* abi, 2 registers */
        if (st & S_STACK_USER) { F(16); F(0); F(0); F(16); }            /* size 16, bytes, dyn_size */
        if (st & S_WEIGHT) F(5);
        if (st & S_REGS_INTR) { F(2); F(1); F(2); F(3); }               /* abi, 3 registers */
        if (st & S_CGROUP) F(1);
        if (st & S_DATA_PAGE_SIZE) F(4096);
        F(sizeof aux);
        memcpy(recs + body, aux, sizeof aux);
        body += sizeof aux;
        #undef F
        put32(recs + at, PTC_PERF_SAMPLE); put16(recs + at + 6, (uint16_t)(body - at));
        n = pipe_file(buf, recs, body);
        CHECK(open_copy(buf, n, &rd, &c) == PTC_OK && ptc_perf_next(&rd, &r) == PTC_OK && r.type == PTC_PERF_HEADER_ATTR);
        CHECK(ptc_perf_next(&rd, &r) == PTC_OK && r.type == PTC_PERF_SAMPLE && r.error == PTC_OK, "layout %zu", li);
        CHECK(r.u.sample.aux && r.u.sample.aux_size == sizeof aux && memcmp(r.u.sample.aux, aux, sizeof aux) == 0 &&
                  r.u.sample.tid == 42 && r.u.sample.time == 123456789 && r.u.sample.cpu == 3,
              "layout %zu: AUX %llu bytes, tid %u, cpu %u", li, (unsigned long long)r.u.sample.aux_size, r.u.sample.tid,
              r.u.sample.cpu);
        free(c);
        /* the sample's size cut down 8 bytes at a time: named, never a wrong AUX */
        for (cut = body - 8; cut > at + 8; cut -= 8) {
            put16(recs + at + 6, (uint16_t)(cut - at));
            n = pipe_file(buf, recs, cut);
            CHECK(open_copy(buf, n, &rd, &c) == PTC_OK && ptc_perf_next(&rd, &r) == PTC_OK);
            CHECK(ptc_perf_next(&rd, &r) == PTC_OK && r.type == PTC_PERF_SAMPLE &&
                      (r.error == PTC_ERR_BAD_PERF || !r.u.sample.aux),
                  "layout %zu cut to %zu: %s", li, cut - at, ptc_status_name(r.error));
            free(c);
        }
    }
}

/* perf's conversion: ns = zero + (tsc >> shift) * mult + ((tsc & mask) * mult >> shift),
   against the exact product in long double */
static void tsc_to_perf_time(void)
{
    ptc_perf_pt_info in;
    uint64_t tsc = UINT64_C(0xbc4cd2cfe8);
    long double exact;
    uint64_t ns;
    memset(&in, 0, sizeof in);
    in.time_shift = 31;
    in.time_mult = 1789569706;
    in.time_zero = UINT64_C(1000000);
    ns = ptc_perf_tsc_to_ns(&in, tsc);
    exact = (long double)tsc * (long double)in.time_mult / 2147483648.0L + (long double)in.time_zero;
    CHECK((long double)ns <= exact + 1 && (long double)ns >= exact - 2, "%llu vs %.1Lf", (unsigned long long)ns, exact);
    in.time_shift = 0;
    in.time_mult = 1;
    in.time_zero = 0;
    CHECK(ptc_perf_tsc_to_ns(&in, tsc) == tsc && ptc_perf_tsc_to_ns(NULL, tsc) == 0);
}

/* ---- the real recordings ---- */

static const struct recording {
    const char *file;
    unsigned chunks, samples;
    uint64_t bytes;                     /* of the AUXTRACE payloads or the AUX samples */
    unsigned eax, ebx, nom, family, model;
} recordings[] = {
    { "google_perf_data_converter__perf.data.intel_pt-4.14", 2, 0, 12240 + 137728, 2, 100, 12, 6, 78 },
    { "google_perf_data_converter__perf.data.piped.intel_pt-4.14", 2, 0, 76400 + 68192, 2, 100, 12, 6, 78 },
    { "farzamdorostkar_tmon__perf.data", 2, 0, 192 + 112, 2, 110, 21, 6, 151 },
    { "pnnl_memgaze__ubench-500k_O3.data", 0, 252, 252 * 8192, 3, 234, 15, 6, 122 },
    { "pnnl_memgaze__bin_.data", 0, 253, 253 * 8192, 3, 234, 15, 6, 122 },
    { "pnnl_memgaze__bin_.data.old", 0, 253, 253 * 8192, 3, 234, 15, 6, 122 },
};

/* Each recording read whole, as the README there describes it, and every
   chunk timed with the settings the file gives: no conflict. */
static void recording_reads_and_times(const void *arg)
{
    const struct recording *rc = (const struct recording *)arg;
    static ptc_clock clk;
    char path[1024];
    size_t len = 0, chunks = 0, samples = 0, timed = 0, conflicts = 0;
    uint64_t bytes = 0;
    unsigned char *buf;
    ptc_perf_reader rd;
    ptc_perf_record r;
    ptc_clock_config cc;
    ptc_status st;
    if (!testlib_shared_dir()) SKIP("shared/ is not there");
    snprintf(path, sizeof path, "%s/pt-traces-timed/%s", testlib_shared_dir(), rc->file);
    buf = util_read_file(path, &len);
    if (!buf) SKIP("pt-traces-timed/%s is not there", rc->file);
    CHECK(ptc_perf_open(&rd, buf, len) == PTC_OK);
    /* the settings come with the first records: a first pass finds them */
    while ((st = ptc_perf_next(&rd, &r)) == PTC_OK && !rd.have_info) {}
    CHECK(ptc_clock_config_from_perf(&cc, &rd) == PTC_OK);
    CHECK(cc.trace.ratios.cpuid_15_eax == rc->eax && cc.trace.ratios.cpuid_15_ebx == rc->ebx && cc.trace.ratios.nom_num == rc->nom && cc.trace.ctl.mtc_freq == 3,
          "%s: eax %u ebx %u nom %llu mtc_freq %u", rc->file, cc.trace.ratios.cpuid_15_eax, cc.trace.ratios.cpuid_15_ebx,
          (unsigned long long)cc.trace.ratios.nom_num, cc.trace.ctl.mtc_freq);
    CHECK(ptc_perf_open(&rd, buf, len) == PTC_OK);
    while ((st = ptc_perf_next(&rd, &r)) == PTC_OK) {
        const uint8_t *data = NULL;
        uint64_t size = 0;
        CHECK(r.error == PTC_OK, "%s: %s record at %llu: %s", rc->file, ptc_perf_record_name(r.type),
              (unsigned long long)r.offset, ptc_status_name(r.error));
        if (r.type == PTC_PERF_AUXTRACE) { data = r.u.auxtrace.data; size = r.u.auxtrace.size; chunks++; }
        if (r.type == PTC_PERF_SAMPLE && r.u.sample.aux) { data = r.u.sample.aux; size = r.u.sample.aux_size; samples++; }
        if (!data) continue;
        bytes += size;
        {
            ptc_decoder dec;
            ptc_item it;
            ptc_timed_item t;
            CHECK(ptc_clock_init(&clk, &cc) == PTC_OK);
            ptc_decoder_init_buffer(&dec, 0, data, (size_t)size);
            for (;;) {
                int more = ptc_decoder_next(&dec, &it) == PTC_OK;
                if (more) (void)ptc_clock_push(&clk, &it);
                else ptc_clock_finish(&clk);
                while (ptc_clock_pop(&clk, &t) == PTC_OK) {
                    timed += t.have_time;
                    conflicts += t.conflict;
                }
                if (!more) break;
            }
        }
    }
    CHECK(st == PTC_END, "%s: %s at %llu", rc->file, ptc_status_name(st), (unsigned long long)rd.error_offset);
    CHECK(chunks == rc->chunks && samples == rc->samples && bytes == rc->bytes, "%s: %zu chunks, %zu samples, %llu bytes",
          rc->file, chunks, samples, (unsigned long long)bytes);
    CHECK(rd.have_cpuid && rd.family == rc->family && rd.model == rc->model, "%s: cpu %u/%u", rc->file, rd.family, rd.model);
    CHECK(timed > 100 && conflicts == 0, "%s: %zu of %zu timed items in conflict", rc->file, conflicts, timed);
    printf("  %-60s %6zu timed items, 0 conflicts\n", rc->file, timed);
    free(buf);
}

/* Names that a 16-bit record size cannot carry are refused, and so is a
   list of mappings that is not there. */
static void writer_refuses_what_it_cannot_write(void)
{
    static char long_name[PTC_PERF_NAME_MAX + 2];
    ptc_perf_pt_info in;
    ptc_model_config cfg;
    ptc_perf_trace t;
    ptc_perf_mmap mm;
    uint64_t config;
    size_t need = 0;
    ptc_model_config_default(&cfg);
    ptc_perf_info_from_model(&in, &config, &cfg);
    memset(long_name, 'x', sizeof long_name - 1);
    memset(&t, 0, sizeof t);
    t.comm = long_name;
    CHECK(ptc_perf_write(NULL, 0, &need, &in, config, &t, 1, 0, 0, 0) == PTC_ERR_BAD_ARGUMENT, "a long COMM");
    long_name[PTC_PERF_NAME_MAX] = 0; /* the longest that fits */
    CHECK(ptc_perf_write(NULL, 0, &need, &in, config, &t, 1, 0, 0, 0) == PTC_ERR_NO_SPACE && need > PTC_PERF_NAME_MAX,
          "measured, %zu bytes", need);
    t.comm = NULL;
    t.nmmaps = 1;
    CHECK(ptc_perf_write(NULL, 0, &need, &in, config, &t, 1, 0, 0, 0) == PTC_ERR_BAD_ARGUMENT, "no mappings");
    memset(&mm, 0, sizeof mm);
    t.mmaps = &mm;
    CHECK(ptc_perf_write(NULL, 0, &need, &in, config, &t, 1, 0, 0, 0) == PTC_ERR_BAD_ARGUMENT, "a mapping without a name");
    t.nmmaps = 0;
    t.nsnaps = 1;
    CHECK(ptc_perf_write(NULL, 0, &need, &in, config, &t, 1, 0, 0, 0) == PTC_ERR_BAD_ARGUMENT, "no snapshot list");
}

/* Snapshot mode (SPEC 6.4): one AUXTRACE per snapshot, each the ring's
   bytes before its point, at their AUX offset - they overlap; points
   must grow and stay inside the trace, and the ring must have a size. */
static void writer_takes_snapshots(void)
{
    static const uint8_t trace[100] = { 0x02, 0x82 };
    const uint64_t at[3] = { 30, 70, 100 }, bad_order[2] = { 70, 30 }, past[1] = { 101 };
    ptc_perf_pt_info in;
    ptc_model_config cfg;
    ptc_perf_trace t;
    ptc_perf_reader rd;
    ptc_perf_record r;
    uint64_t config;
    uint8_t *buf;
    size_t need = 0, k = 0;
    ptc_model_config_default(&cfg);
    ptc_perf_info_from_model(&in, &config, &cfg);
    in.snapshot_mode = 1;
    memset(&t, 0, sizeof t);
    t.bytes = trace;
    t.len = sizeof trace;
    t.ring = 48;
    t.snap_at = bad_order;
    t.nsnaps = 2;
    CHECK(ptc_perf_write(NULL, 0, &need, &in, config, &t, 1, 0, 0, 0) == PTC_ERR_BAD_ARGUMENT, "points going back");
    t.snap_at = past;
    t.nsnaps = 1;
    CHECK(ptc_perf_write(NULL, 0, &need, &in, config, &t, 1, 0, 0, 0) == PTC_ERR_BAD_ARGUMENT, "a point past the end");
    t.snap_at = at;
    t.nsnaps = 3;
    t.ring = 0;
    CHECK(ptc_perf_write(NULL, 0, &need, &in, config, &t, 1, 0, 0, 0) == PTC_ERR_BAD_ARGUMENT, "a ring of no size");
    t.ring = 48;
    CHECK(ptc_perf_write(NULL, 0, &need, &in, config, &t, 1, 0, 0, 0) == PTC_ERR_NO_SPACE);
    buf = (uint8_t *)malloc(need);
    CHECK(ptc_perf_write(buf, need, &need, &in, config, &t, 1, 0, 0, 0) == PTC_OK);
    CHECK(ptc_perf_open(&rd, buf, need) == PTC_OK);
    while (ptc_perf_next(&rd, &r) == PTC_OK) {
        uint64_t from;
        if (r.type != PTC_PERF_AUXTRACE || k == 3) continue;
        from = at[k] > 48 ? at[k] - 48 : 0;
        CHECK(r.u.auxtrace.offset == from && r.u.auxtrace.size == ((at[k] - from + 7) & ~(uint64_t)7) &&
                  r.u.auxtrace.cpu == 0 && memcmp(r.u.auxtrace.data, trace + from, (size_t)(at[k] - from)) == 0,
              "snapshot %zu: offset %llu size %llu", k, (unsigned long long)r.u.auxtrace.offset,
              (unsigned long long)r.u.auxtrace.size);
        k++;
    }
    CHECK(k == 3 && rd.have_info && rd.info.snapshot_mode == 1, "%zu snapshots", k);
    free(buf);
}

int main(void)
{
    static const char *settings[] = { "mtc_freq=3", "cyc_en=1,cyc_thresh=2,mtc_freq=1", "mtc_jitter=4,jitter_seed=3,mtc_lost=1",
                                      "pwr_evt_en=1,ptw_en=1,fup_on_ptw=1,dis_retc=1,psb_freq=5" };
    size_t i;
    for (i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        char label[96];
        snprintf(label, sizeof label, "round_trip [%s]", settings[i]);
        testlib_run_arg(label, round_trip, settings[i]);
    }
    RUN(malformed_input_is_named);
    RUN(writer_refuses_what_it_cannot_write);
    RUN(writer_takes_snapshots);
    RUN(sample_layouts_place_the_aux_data);
    RUN(tsc_to_perf_time);
    for (i = 0; i < sizeof recordings / sizeof recordings[0]; i++) {
        char label[128];
        snprintf(label, sizeof label, "recording %s", recordings[i].file);
        testlib_run_arg(label, recording_reads_and_times, &recordings[i]);
    }
    TESTLIB_EXIT();
}

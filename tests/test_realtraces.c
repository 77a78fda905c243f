/* Parts 1 and 3 against real hardware. Every trace in shared/pt-traces
   decodes without an error, and its packet listing agrees with Linux perf
   6.1's (`perf script -D`, in shared/pt-traces/expected_perf_dump): same
   offsets, sizes and packet types. perf folds up to 7 zero bytes that
   follow a packet into that packet's line (its dump stops at 8 bytes); we
   check that those bytes are PAD packets in our listing.
   The raw traces with timing packets in shared/pt-traces-timed are timed
   by the clock with the hardware defaults (SPEC 3.11) and their recording
   configuration: no item may be in conflict, and nothing may go back;
   with the SDM's idealized clocks instead, conflicts show that the
   tolerances are needed. Linux perf, given each of those traces in a
   perf.data, never times a packet past its interval. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"
#include "../harness/perforacle.h"

#include <dirent.h>
#include <string.h>

static char traces[512];

/* perf's name for a packet type (first word of its description). */
static const char *perf_name(const ptc_packet *p)
{
    switch (p->type) {
    case PTC_TNT8: case PTC_TNT64: return "TNT";
    case PTC_TIP_PGE: return "TIP.PGE";
    case PTC_TIP_PGD: return "TIP.PGD";
    case PTC_MODE_EXEC: return "MODE.Exec";
    case PTC_MODE_TSX: return "MODE.TSX";
    case PTC_STOP: return "TRACESTOP";
    case PTC_PTW: return "PTWRITE";
    default: {
        static char up[16];
        const char *n = ptc_packet_type_name(p->type);
        size_t i;
        for (i = 0; n[i] && i + 1 < sizeof up; i++) up[i] = (char)(n[i] >= 'a' && n[i] <= 'z' ? n[i] - 32 : n[i]);
        up[i] = 0;
        return up;
    }
    }
}

static void check_trace(const void *arg)
{
    const char *name = (const char *)arg;
    char path[1024], cmd[1200], line[4096];
    unsigned char *pt;
    size_t len = 0, nitems = 0, cap = 0, k = 0, perf_lines = 0, i;
    ptc_item *items = NULL, it;
    ptc_decoder dec;
    FILE *perf;
    size_t errors = 0;

    snprintf(path, sizeof path, "%.500s/%.400s.pt", traces, name);
    pt = util_read_file(path, &len);
    CHECK(pt != NULL, "cannot read %s", path);
    if (!pt) return;
    ptc_decoder_init_buffer(&dec, 0, pt, len);
    while (ptc_decoder_next(&dec, &it) == PTC_OK) {
        if (nitems == cap) {
            cap = cap ? cap * 2 : 4096;
            items = (ptc_item *)realloc(items, cap * sizeof *items);
        }
        items[nitems++] = it;
        if (it.error != PTC_OK && ++errors <= 3)
            CHECK(0, "%s: %s at offset %llx", name, ptc_status_name(it.error), (unsigned long long)it.offset);
    }
    CHECK(errors == 0, "%s: %zu decode errors", name, errors);

    if ((size_t)snprintf(cmd, sizeof cmd, "zcat '%s/expected_perf_dump/%s.perf61_dump.tsv.gz'", traces, name) >= sizeof cmd) {
        CHECK(0, "%s: the path to perf's dump is too long", name);
        free(pt);
        free(items);
        return;
    }
    perf = popen(cmd, "r");
    CHECK(perf != NULL);
    if (!perf) { free(pt); free(items); return; }
    while (fgets(line, sizeof line, perf)) {
        unsigned long long off;
        char hex[256], desc[64];
        size_t plen, end;
        if (sscanf(line, "%llx\t%255s\t%63s", &off, hex, desc) != 3) continue; /* header */
        perf_lines++;
        plen = strlen(hex) / 2;
        end = off + plen < len ? (size_t)(off + plen) : len; /* perf pads the file to 8 bytes */
        for (i = 0; off + i < end; i++) {
            unsigned byte;
            sscanf(hex + 2 * i, "%2x", &byte);
            if (byte != pt[off + i]) { CHECK(0, "%s: perf bytes at %llx differ from the file", name, off); break; }
        }
        if (off >= len) continue;
        if (k >= nitems) { CHECK(0, "%s: perf has a packet at %llx, we have none", name, off); break; }
        if (items[k].offset != off || strcmp(perf_name(&items[k].pkt), desc) != 0) {
            CHECK(0, "%s: at %llx perf says %s, we say %s at %llx", name, off, desc,
                  perf_name(&items[k].pkt), (unsigned long long)items[k].offset);
            break;
        }
        for (k++; k < nitems && items[k].offset < end; k++)
            if (items[k].pkt.type != PTC_PAD) {
                CHECK(0, "%s: %s at %llx inside perf's %s line at %llx", name, perf_name(&items[k].pkt),
                      (unsigned long long)items[k].offset, desc, off);
                break;
            }
    }
    pclose(perf);
    CHECK(perf_lines > 0, "%s: empty perf listing", name);
    CHECK(k == nitems, "%s: %zu of our %zu packets matched perf's listing", name, k, nitems);
    free(pt);
    free(items);
}

/* The DynamoRIO raw traces (shared/pt-traces-timed/README.md) and the
   configuration each was recorded with: mtc_freq 3 (the perf default),
   nom_freq and the CPUID 0x15 ratio. ad6a637b and d9e0e666 come with
   theirs (2/308, 37); for the others the TSC and TMA of their two PSB+s
   give the ratio, 154 or 125 TSC ticks per ART tick (the CTC delta times
   the ratio is the TSC delta, to the tick), and perf's time_mult the TSC
   frequency, 3.7 or 3.0 GHz. 2aad718d and f80d7df0 have one PSB+ only:
   their CYC counts per MTC fit both; they are timed as 316e5058 is. */
static const struct timed_trace { const char *file; unsigned nom, eax, ebx; } timed_traces[] = {
    { "DynamoRIO_dynamorio__test_simple.raw_pt.ad6a637b.bin", 37, 2, 308 },
    { "DynamoRIO_dynamorio__test_simple.raw_pt.d9e0e666.bin", 37, 2, 308 },
    { "DynamoRIO_dynamorio__test_simple.tracedir_pt.af553eb7.bin", 30, 2, 250 },
    { "DynamoRIO_dynamorio__test_simple.tracedir_pt.b598b46a.bin", 37, 2, 308 },
    { "DynamoRIO_dynamorio__test_simple.tracedir_pt.2aad718d.bin", 37, 2, 308 },
    { "DynamoRIO_dynamorio__test_simple.tracedir_pt.f80d7df0.bin", 37, 2, 308 },
    { "DynamoRIO_dynamorio__drptpostprocessor_test_simple.tracedir_pt.316e5058.bin", 37, 2, 308 },
};

typedef struct time_stats { size_t items, timed, conflicts, back, bounded; uint64_t width; } time_stats;

static void time_buffer(const unsigned char *pt, size_t len, const ptc_clock_config *cc, time_stats *s)
{
    static ptc_clock clk;
    ptc_decoder dec;
    ptc_item it;
    ptc_timed_item t;
    ptc_clock_order order;
    int more = 1;
    memset(s, 0, sizeof *s);
    ptc_clock_order_init(&order);
    CHECK(ptc_clock_init(&clk, cc) == PTC_OK);
    ptc_decoder_init_buffer(&dec, 0, pt, len);
    while (more) {
        more = ptc_decoder_next(&dec, &it) == PTC_OK;
        if (more) CHECK(ptc_clock_push(&clk, &it) == PTC_OK);
        else ptc_clock_finish(&clk);
        while (ptc_clock_pop(&clk, &t) == PTC_OK) {
            s->items++;
            if (!t.have_time) continue;
            s->timed++;
            s->conflicts += t.conflict;
            s->back += !ptc_clock_order_next(&order, &t);
            if (t.tsc_hi != UINT64_MAX) {
                s->bounded++;
                s->width += t.tsc_hi - t.tsc_lo;
            }
            /* a TSC's value is the time it was sampled, at or before its packet */
            if (t.item.error == PTC_OK && t.item.pkt.type == PTC_TSC)
                CHECK(t.tsc_hi >= t.item.pkt.u.tsc.tsc, "TSC %llx above its interval", (unsigned long long)t.item.pkt.u.tsc.tsc);
        }
    }
}

static void timed_trace_has_no_conflict(const void *arg)
{
    const struct timed_trace *tt = (const struct timed_trace *)arg;
    char path[1024];
    unsigned char *pt;
    size_t len = 0;
    ptc_clock_config cc;
    time_stats hw, sdm, errata;
    snprintf(path, sizeof path, "%s/pt-traces-timed/%s", testlib_shared_dir(), tt->file);
    pt = util_read_file(path, &len);
    if (!pt) SKIP("%s is not there", path);
    ptc_clock_config_default(&cc);
    cc.trace.ctl.mtc_freq = 3;
    cc.trace.ratios.nom_num = tt->nom;
    cc.trace.ratios.nom_den = 1;
    cc.trace.ratios.cpuid_15_eax = tt->eax;
    cc.trace.ratios.cpuid_15_ebx = tt->ebx;
    time_buffer(pt, len, &cc, &hw);
    CHECK(hw.timed > 1000 && hw.conflicts == 0 && hw.back == 0, "%s: %zu of %zu timed items in conflict, %zu steps back",
          tt->file, hw.conflicts, hw.timed, hw.back);
    /* with the errata of the recording CPU (6/85, README there: SKZ84) */
    cc.trace.errata = ptc_errata_for_cpu(6, 85, 4);
    CHECK(cc.trace.errata != 0);
    time_buffer(pt, len, &cc, &errata);
    CHECK(errata.timed > 1000 && errata.conflicts == 0 && errata.back == 0, "%s with errata %x: %zu conflicts", tt->file,
          cc.trace.errata, errata.conflicts);
    cc.trace.errata = 0;
    cc.real.mtc_jitter = 0;
    cc.real.psb_early_tsc = 0;
    cc.real.rate_ppm = 0;
    cc.real.mtc_lost = 0;
    time_buffer(pt, len, &cc, &sdm);
    printf("  %-78s %6zu items, %zu conflicts, mean width %.1f ticks (with the SDM's ideal clocks: %zu conflicts)\n",
           tt->file, hw.items, hw.conflicts, hw.bounded ? (double)hw.width / (double)hw.bounded : 0.0, sdm.conflicts);
    free(pt);
}

/* Linux perf as an outside reader of the same trace (harness/perforacle.h):
   its time for a packet comes from the timing packets up to it, so it is
   never later than the packet, and past the clock's upper bound it would
   show the interval too tight (or perf wrong). Below the lower bound is no
   fault: the clock also bounds a packet by the timing packets after it and
   puts a CYC at the packet it times, where perf keeps its older estimate;
   those are counted. */
static void perf_times_not_past_intervals(const void *arg)
{
    static ptc_clock clk;
    const struct timed_trace *tt = (const struct timed_trace *)arg;
    char path[1024];
    unsigned char *pt;
    size_t len = 0, n = 0, k = 0, i, compared = 0, below = 0, above = 0;
    ptc_item *items;
    ptc_timed_item *timed;
    uint64_t *est;
    ptc_clock_config cc;
    ptc_decoder dec;
    perforacle_settings st;
    snprintf(path, sizeof path, "%s/pt-traces-timed/%s", testlib_shared_dir(), tt->file);
    pt = util_read_file(path, &len);
    if (!pt) SKIP("%s is not there", path);
    items = (ptc_item *)malloc((len + 1) * sizeof *items);
    timed = (ptc_timed_item *)malloc((len + 1) * sizeof *timed);
    est = (uint64_t *)malloc((len + 1) * sizeof *est);
    CHECK(items && timed && est);
    ptc_decoder_init_buffer(&dec, 0, pt, len);
    while (n <= len && ptc_decoder_next(&dec, &items[n]) == PTC_OK) n++;
    memset(&st, 0, sizeof st);
    st.mtc_freq = 3;
    st.nom_freq = (uint8_t)tt->nom;
    st.cyc_en = 1;
    st.cpuid_15_eax = tt->eax;
    st.cpuid_15_ebx = tt->ebx;
    if (!perforacle_perf_times(pt, len, &st, items, n, est)) {
        free(pt), free(items), free(timed), free(est);
        SKIP("perf (Debian's linux-perf) cannot run here");
    }
    ptc_clock_config_default(&cc);
    cc.trace.ctl.mtc_freq = st.mtc_freq;
    cc.trace.ratios.nom_num = tt->nom;
    cc.trace.ratios.nom_den = 1;
    cc.trace.ratios.cpuid_15_eax = tt->eax;
    cc.trace.ratios.cpuid_15_ebx = tt->ebx;
    CHECK(ptc_clock_init(&clk, &cc) == PTC_OK);
    for (i = 0; i <= n; i++) {
        if (i < n) CHECK(ptc_clock_push(&clk, &items[i]) == PTC_OK);
        else ptc_clock_finish(&clk);
        while (k < n && ptc_clock_pop(&clk, &timed[k]) == PTC_OK) k++;
    }
    for (i = 0; i < k; i++) {
        /* not a TNT: its interval is its first branch's, which may come
           before timing packets that perf counts before the TNT packet */
        if (est[i] == UINT64_MAX || !timed[i].have_time ||
            (items[i].error == PTC_OK && ptc_packet_is_tnt(items[i].pkt.type)))
            continue;
        compared++;
        below += est[i] < timed[i].tsc_lo;
        above += est[i] > timed[i].tsc_hi;
    }
    CHECK(k == n && compared > 1000 && above == 0, "%s: of %zu packets perf timed, %zu past the interval", tt->file,
          compared, above);
    printf("  %-78s %6zu packets perf timed, %zu past the interval, %zu before it\n", tt->file, compared, above, below);
    free(pt), free(items), free(timed), free(est);
}

static int by_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static void shared_data_present(void)
{
    if (!testlib_shared_dir()) SKIP("no shared reference data (set PTCODEC_SHARED or put it in ../shared)");
}

int main(void)
{
    const char *shared = testlib_shared_dir();
    DIR *d;
    struct dirent *e;
    char names[64][256];
    int n = 0, i;
    if (!shared) {
        RUN(shared_data_present);
        TESTLIB_EXIT();
    }
    snprintf(traces, sizeof traces, "%s/pt-traces", shared);
    d = opendir(traces);
    if (!d) {
        RUN(shared_data_present);
        TESTLIB_EXIT();
    }
    while ((e = readdir(d)) != NULL && n < 64) {
        size_t l = strlen(e->d_name);
        if (l > 3 && strcmp(e->d_name + l - 3, ".pt") == 0 && l - 3 < sizeof names[0]) {
            memcpy(names[n], e->d_name, l - 3);
            names[n][l - 3] = 0;
            n++;
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    for (i = 0; i < n; i++) {
        char label[300];
        snprintf(label, sizeof label, "real_trace_%.200s", names[i]);
        testlib_run_arg(label, check_trace, names[i]);
    }
    for (i = 0; i < (int)(sizeof timed_traces / sizeof timed_traces[0]); i++) {
        char label[300];
        snprintf(label, sizeof label, "timed_real_trace_%.40s", strstr(timed_traces[i].file, "__") + 2);
        testlib_run_arg(label, timed_trace_has_no_conflict, &timed_traces[i]);
        snprintf(label, sizeof label, "perf_times_not_past_intervals_%.40s", strstr(timed_traces[i].file, "__") + 2);
        testlib_run_arg(label, perf_times_not_past_intervals, &timed_traces[i]);
    }
    TESTLIB_EXIT();
}

/* Part 1 against real hardware: every trace in shared/pt-traces decodes
   without an error, and its packet listing agrees with Linux perf 6.1's
   (`perf script -D`, in shared/pt-traces/expected_perf_dump): same offsets,
   sizes and packet types. perf folds up to 7 zero bytes that follow a
   packet into that packet's line (its dump stops at 8 bytes); we check
   that those bytes are PAD packets in our listing. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"

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

    snprintf(path, sizeof path, "%s/%s.pt", traces, name);
    pt = ut_read_file(path, &len);
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

    snprintf(cmd, sizeof cmd, "zcat '%s/expected_perf_dump/%s.perf61_dump.tsv.gz'", traces, name);
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

static int by_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static void shared_data_present(void)
{
    if (!tl_shared_dir()) SKIP("no shared reference data (set PTCODEC_SHARED or put it in ../shared)");
}

int main(void)
{
    const char *shared = tl_shared_dir();
    DIR *d;
    struct dirent *e;
    char names[64][256];
    int n = 0, i;
    if (!shared) {
        RUN(shared_data_present);
        TL_EXIT();
    }
    snprintf(traces, sizeof traces, "%s/pt-traces", shared);
    d = opendir(traces);
    if (!d) {
        RUN(shared_data_present);
        TL_EXIT();
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
        snprintf(label, sizeof label, "real_trace_%s", names[i]);
        tl_run_arg(label, check_trace, names[i]);
    }
    TL_EXIT();
}

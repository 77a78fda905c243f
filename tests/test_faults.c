/* Fault injection into the stream decoder (SPEC.md 1.9 rule 2): one bit
   flipped at a time in model traces and in the real traces of
   shared/pt-traces, every bit of the small ones and a random sample of the
   large ones. For every flip, against the decode of the clean trace:
   - nothing crashes (the tests run under ASan and UBSan);
   - every item before the damaged packet is decoded exactly as before, and
     the first item that differs is at or after the damaged packet;
   - the decoder falls back into step: from the first PSB after the first
     error it reports, every item is exactly the clean one (rule 2).
   It prints what it measured: flips, how often the damage showed at the
   damaged packet itself, how often everything after the next PSB survived,
   and the worst loss in packets and bytes. fuzz/README.md quotes these lines. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"
#include "../harness/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../harness/modelrec.h"

#include <dirent.h>
#include <string.h>

typedef struct items { ptc_item *it; size_t n, cap; } items;

/* Decodes b[0..n), whose first byte is at stream offset base. */
static void decode_into(const uint8_t *b, size_t n, uint64_t base, items *out)
{
    ptc_decoder d;
    ptc_item it;
    out->n = 0;
    ptc_decoder_init(&d, 0, base);
    if (ptc_decoder_feed(&d, b, n) != PTC_OK) abort();
    ptc_decoder_finish(&d);
    while (ptc_decoder_next(&d, &it) == PTC_OK) {
        if (out->n == out->cap) {
            out->cap = out->cap * 2 + 1024;
            out->it = (ptc_item *)realloc(out->it, out->cap * sizeof *out->it);
            if (!out->it) abort();
        }
        out->it[out->n++] = it;
    }
}

static int same_item(const ptc_item *a, const ptc_item *b)
{
    if (a->offset != b->offset || a->error != b->error) return 0;
    return a->error != PTC_OK || (ptc_packet_equal(&a->pkt, &b->pkt) && a->ip == b->ip && a->ip_known == b->ip_known);
}

typedef struct tally {
    unsigned long flips, invisible, shown_at_packet, next_psb_kept, errors_seen;
    size_t worst_packets, worst_bytes;
    char worst_where[160];
} tally;

static items clean_items, hurt_items;

/* One flip of bit `bit` of byte x, decoded in the window buf[w0..w1)
   (w0 at a PSB or 0, w1 at a PSB or the end); ci: the clean items of the
   window. */
static int one_flip(uint8_t *buf, size_t w0, size_t w1, size_t x, unsigned bit, const items *ci, tally *t,
                    const char *name)
{
    const items *di = &hurt_items;
    size_t n = w1;
    size_t i = 0, s = x, ce, de, j, first_err = (size_t)-1, psb_after;
    uint64_t damaged_end = x + 1, resume;
    int ok = 1;
    /* the clean packet that holds byte x */
    while (i < ci->n && ci->it[i].offset + (ci->it[i].error ? 1 : ci->it[i].pkt.size) <= x) i++;
    if (i < ci->n && ci->it[i].offset <= x) {
        s = (size_t)ci->it[i].offset;
        damaged_end = ci->it[i].offset + (ci->it[i].error ? 1 : ci->it[i].pkt.size);
    }
    buf[x] ^= (uint8_t)(1u << bit);
    decode_into(buf + w0, w1 - w0, w0, &hurt_items);
    buf[x] ^= (uint8_t)(1u << bit);
    t->flips++;
    /* everything before the damaged packet is as it was */
    for (j = 0; j < i; j++)
        if (j >= di->n || !same_item(&ci->it[j], &di->it[j])) {
            CHECK(0, "%s: bit %u of byte %zu changed item %zu at %llu, before the damage at %zu", name, bit, x, j,
                  (unsigned long long)ci->it[j].offset, s);
            return 0;
        }
    if (i < di->n && (i >= ci->n || !same_item(&ci->it[i], &di->it[i]))) {
        if (di->it[i].offset == s) t->shown_at_packet++;
    }
    /* the common tail: from K on, damaged and clean agree item for item */
    ce = ci->n;
    de = di->n;
    while (ce > i && de > i && same_item(&ci->it[ce - 1], &di->it[de - 1])) { ce--; de--; }
    if (ce == i && de == i) t->invisible++; /* e.g. a byte before the first PSB */
    {
        uint64_t k = ce < ci->n ? ci->it[ce].offset : n;
        size_t lost = ce - i, bytes = (size_t)(k > s ? k - s : 0);
        if (lost > t->worst_packets || (lost == t->worst_packets && bytes > t->worst_bytes)) {
            t->worst_packets = lost;
            t->worst_bytes = bytes;
            snprintf(t->worst_where, sizeof t->worst_where, "%s bit %u of byte %zu", name, bit, x);
        }
        /* the next PSB after the damaged packet, and all after it, survived? */
        for (psb_after = i; psb_after < ci->n; psb_after++)
            if (ci->it[psb_after].error == PTC_OK && ci->it[psb_after].pkt.type == PTC_PSB &&
                ci->it[psb_after].offset >= damaged_end)
                break;
        if (psb_after >= ce) t->next_psb_kept++;
        /* rule 2: decoding is back in step from the first PSB after the
           first error it reported */
        for (j = i; j < di->n; j++)
            if (di->it[j].error != PTC_OK) { first_err = j; break; }
        if (first_err != (size_t)-1) {
            t->errors_seen++;
            resume = di->it[first_err].offset;
            for (j = i; j < ci->n; j++)
                if (ci->it[j].error == PTC_OK && ci->it[j].pkt.type == PTC_PSB && ci->it[j].offset > resume) break;
            if (j < ce) {
                CHECK(0, "%s: bit %u of byte %zu: error at %llu, but the clean PSB at %llu and the items after it "
                         "are not all back (in step from %llu)",
                      name, bit, x, (unsigned long long)resume, (unsigned long long)ci->it[j].offset,
                      (unsigned long long)k);
                ok = 0;
            }
        }
    }
    return ok;
}

/* The window around byte x: from the last PSB that ends at or before it
   (or the start; a damaged PSB itself must be seen by a decoder already in
   step) to the fourth PSB after it (or the end), and its clean items. */
static void window_of(const items *all, size_t n, size_t x, size_t *w0, size_t *w1, items *win)
{
    size_t i, first = 0, after = 0;
    *w0 = 0;
    *w1 = n;
    for (i = 0; i < all->n; i++) {
        const ptc_item *it = &all->it[i];
        if (it->error != PTC_OK || it->pkt.type != PTC_PSB) continue;
        if (it->offset + it->pkt.size <= x) { *w0 = (size_t)it->offset; first = i; }
        else if (++after == 4) { *w1 = (size_t)it->offset; break; }
    }
    if (*w0 == 0) first = 0;
    win->it = all->it + first;
    for (win->n = 0; first + win->n < all->n && all->it[first + win->n].offset < *w1; win->n++) {}
}

static void flip_trace(const uint8_t *src, size_t n, unsigned long sample, uint64_t seed, tally *t, const char *name)
{
    uint8_t *buf = (uint8_t *)malloc(n ? n : 1);
    size_t x, w0, w1;
    unsigned bit;
    items win;
    uint64_t r = seed * 0x9E3779B97F4A7C15u + 1;
    unsigned long k, total = sample && sample < 8 * (unsigned long)n ? sample : 8 * (unsigned long)n;
    if (!buf) abort();
    memcpy(buf, src, n);
    decode_into(buf, n, 0, &clean_items);
    for (k = 0; k < total; k++) {
        if (total == 8 * (unsigned long)n) { /* every bit */
            x = k / 8;
            bit = (unsigned)(k % 8);
        } else {
            r ^= r << 13; r ^= r >> 7; r ^= r << 17;
            x = (size_t)(r % n);
            bit = (unsigned)(r >> 40) % 8;
        }
        window_of(&clean_items, n, x, &w0, &w1, &win);
        if (!one_flip(buf, w0, w1, x, bit, &win, t, name)) break;
    }
    free(buf);
}

static void report(const char *what, const tally *t)
{
    unsigned long seen = t->flips - t->invisible;
    printf("# %s: %lu flips, %lu changed nothing decoded; of the rest, the first difference is at the damaged "
           "packet in %lu (%.2f%%); everything from the next PSB kept in %lu of %lu flips (%.2f%%); worst loss %zu "
           "packets, %zu bytes (%s)\n",
           what, t->flips, t->invisible, t->shown_at_packet, seen ? 100.0 * t->shown_at_packet / seen : 0.0,
           t->next_psb_kept, t->flips, t->flips ? 100.0 * t->next_psb_kept / t->flips : 0.0, t->worst_packets,
           t->worst_bytes, t->worst_where);
}

/* Every workload, with suppression and CYC, PSB every 2 KiB: every bit of
   the first 3 KiB, and 3000 random flips in a larger trace. */
static void model_traces(void)
{
    tally all;
    int wi;
    memset(&all, 0, sizeof all);
    for (wi = 0; wi < WORKLOAD_COUNT; wi++) {
        ptc_model_config cfg;
        ptc_model m;
        modelrec_trace c;
        ptc_model_sink sink = modelrec_start(&c, 1);
        char err[100];
        ptc_model_config_default(&cfg);
        workload_configure(wi, &cfg);
        CHECK(modelcfg_set_list(&cfg, "cyc_en=1,psb_freq=1", err, sizeof err), "%s", err);
        CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
        workload_run_workload(wi, &m, 3000000, 11);
        flip_trace(c.bytes, c.len < 3072 ? c.len : 3072, 0, 0, &all, workload_names[wi]);
        flip_trace(c.bytes, c.len < (1u << 18) ? c.len : (1u << 18), 3000, (uint64_t)wi + 1, &all, workload_names[wi]);
        modelrec_free(&c);
    }
    report("model traces", &all);
    CHECK(all.flips > 100000, "%lu flips", all.flips);
}

static void real_traces(void)
{
    const char *shared = testlib_shared_dir();
    char dir[512];
    DIR *d;
    struct dirent *e;
    tally all;
    memset(&all, 0, sizeof all);
    if (!shared) SKIP("no shared reference data (set PTCODEC_SHARED or put it in ../shared)");
    snprintf(dir, sizeof dir, "%s/pt-traces", shared);
    d = opendir(dir);
    if (!d) SKIP("no %s", dir);
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name), len = 0;
        char path[1024];
        uint8_t *pt;
        if (l <= 3 || strcmp(e->d_name + l - 3, ".pt") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        pt = util_read_file(path, &len);
        CHECK(pt != NULL, "cannot read %s", path);
        if (!pt) continue;
        /* every bit up to 1 KiB; else 4000 flips in the first 256 KiB */
        flip_trace(pt, len < (1u << 18) ? len : (1u << 18), len <= 1024 ? 0 : 4000, l, &all, e->d_name);
        free(pt);
    }
    closedir(d);
    report("real traces", &all);
    CHECK(all.flips > 10000, "%lu flips", all.flips);
}

int main(void)
{
    RUN(model_traces);
    RUN(real_traces);
    free(clean_items.it);
    free(hurt_items.it);
    TESTLIB_EXIT();
}

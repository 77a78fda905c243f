/* Part 9's memory images (SPEC 9.2): sections added, replaced and split;
   reads across sections and through the callback; ELF files against
   readelf's program headers (binutils, not ours); libxdc's page caches of
   ../shared/flow read back page by page; and malformed files refused by
   name. The flow decoder (SPEC 9.3) on libxdc's real traces with their
   page caches: built with -DTEST_FLOW_LIBIPT (Debian's libipt-dev), the
   same instructions as libipt's instruction flow decoder, reading code
   through the same image, where libipt decodes; where libipt stops, what
   ptcodec decodes. */
#define _POSIX_C_SOURCE 200809L /* popen */
#include "../ptcodec.h"
#include "testlib.h"
#ifdef TEST_FLOW_LIBIPT
#include <intel-pt.h>
#endif
#ifdef TEST_FLOW_LIBXDC
#include <libxdc.h>
#endif

static uint8_t pattern_a[0x4000], pattern_b[0x800];

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = (uint8_t)(i * 7u + seed);
}

/* The sections are sorted, disjoint and non-empty. */
static int well_formed(const ptc_image *img)
{
    size_t i;
    for (i = 0; i < img->count; i++) {
        const ptc_image_section *s = &img->sections[i];
        if (!s->size || s->base + s->size < s->base) return 0;
        if (i && img->sections[i - 1].base + img->sections[i - 1].size > s->base) return 0;
    }
    return 1;
}

static void a_later_section_replaces_what_it_overlaps(void)
{
    ptc_image_section storage[4];
    ptc_image img;
    uint8_t buf[0x3000];
    uint32_t gen;
    fill(pattern_a, sizeof pattern_a, 1);
    fill(pattern_b, sizeof pattern_b, 99);
    ptc_image_init(&img, storage, 4);
    CHECK(ptc_image_add(&img, 0x1000, pattern_a, 0x3000) == PTC_OK && img.count == 1);
    gen = img.generation;
    /* inside: the first is split around it */
    CHECK(ptc_image_add(&img, 0x1800, pattern_b, sizeof pattern_b) == PTC_OK && img.count == 3, "%zu", img.count);
    CHECK(img.generation != gen && well_formed(&img));
    CHECK(ptc_image_read(&img, 0x1000, buf, sizeof buf) == sizeof buf && well_formed(&img));
    CHECK(memcmp(buf, pattern_a, 0x800) == 0 && memcmp(buf + 0x800, pattern_b, 0x800) == 0 &&
          memcmp(buf + 0x1000, pattern_a + 0x1000, 0x2000) == 0, "the bytes read across three sections");
    /* one after them fills the fourth slot; splitting the third would need
       a sixth: refused, nothing changed */
    CHECK(ptc_image_add(&img, 0x4000, pattern_b, 0x10) == PTC_OK && img.count == 4);
    gen = img.generation;
    CHECK(ptc_image_add(&img, 0x2800, pattern_b, 0x10) == PTC_ERR_NO_SPACE && img.count == 4 && img.generation == gen);
    /* over all of them: one section */
    CHECK(ptc_image_add(&img, 0x800, pattern_a, sizeof pattern_a) == PTC_OK && img.count == 1 && well_formed(&img),
          "%zu", img.count);
    CHECK(img.generation != gen);
    CHECK(ptc_image_add(&img, UINT64_MAX - 0xF, pattern_b, 0x10) == PTC_ERR_BAD_IMAGE, "up to 2^64 wraps");
    CHECK(ptc_image_add(&img, 0, pattern_b, 0) == PTC_OK && img.count == 1, "size 0 adds nothing");
    CHECK(ptc_image_add(&img, 0, NULL, 1) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_image_add(NULL, 0, pattern_b, 1) == PTC_ERR_BAD_ARGUMENT);
}

static size_t from_callback(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
    size_t i;
    ++*(int *)ctx;
    for (i = 0; i < n; i++) buf[i] = (uint8_t)(addr + i);
    return n;
}

static void reads_stop_at_a_gap_and_ask_the_callback_for_the_rest(void)
{
    ptc_image_section storage[2];
    ptc_image img;
    uint8_t buf[64];
    int calls = 0;
    ptc_image_init(&img, storage, 2);
    CHECK(ptc_image_add(&img, 0x1000, pattern_b, 16) == PTC_OK);
    CHECK(ptc_image_add(&img, 0x1020, pattern_b, 16) == PTC_OK);
    CHECK(ptc_image_read(&img, 0x1008, buf, sizeof buf) == 8, "stops at the gap at 0x1010");
    CHECK(ptc_image_read(&img, 0x1010, buf, sizeof buf) == 0, "no section, no callback");
    img.read = from_callback;
    img.ctx = &calls;
    CHECK(ptc_image_read(&img, 0x1010, buf, 4) == 4 && buf[3] == 0x13 && calls == 1);
    CHECK(ptc_image_read(&img, 0x1000, buf, 4) == 4 && calls == 1, "a section first");
    CHECK(ptc_image_read(&img, 0x1000, NULL, 4) == 0 && ptc_image_read(NULL, 0x1000, buf, 4) == 0);
}

/* A little-endian ELF of the given class with two PT_LOAD segments and a
   PT_NOTE between them. */
static size_t make_elf(uint8_t *f, int is64)
{
    size_t eh = is64 ? 64 : 52, ph = is64 ? 56 : 32, k;
    static const uint64_t vaddr[3] = { 0x400000, 0, 0x401000 }, offset[3] = { 0x200, 0, 0x300 }, filesz[3] = { 0x40, 0, 0x20 };
    static const uint32_t type[3] = { 1, 4, 1 };
    memset(f, 0, 0x400);
    memcpy(f, "\177ELF", 4);
    f[4] = (uint8_t)(is64 ? 2 : 1);
    f[5] = 1;
    f[6] = 1;
    if (is64) {
        f[32] = (uint8_t)eh;
        f[54] = (uint8_t)ph;
        f[56] = 3;
    } else {
        f[28] = (uint8_t)eh;
        f[42] = (uint8_t)ph;
        f[44] = 3;
    }
    for (k = 0; k < 3; k++) {
        uint8_t *p = f + eh + k * ph;
        unsigned w = is64 ? 8 : 4, i;
        p[0] = (uint8_t)type[k];
        for (i = 0; i < w; i++) {
            p[(is64 ? 8 : 4) + i] = (uint8_t)(offset[k] >> (8 * i));
            p[(is64 ? 16 : 8) + i] = (uint8_t)(vaddr[k] >> (8 * i));
            p[(is64 ? 32 : 16) + i] = (uint8_t)(filesz[k] >> (8 * i));
        }
    }
    fill(f + 0x200, 0x200, 5);
    return 0x400;
}

static void elf_segments_as_ptxed_loads_them(void)
{
    uint8_t f[0x400];
    int is64;
    for (is64 = 0; is64 < 2; is64++) {
        ptc_image_section storage[4];
        ptc_image img;
        uint8_t b[4];
        size_t n = make_elf(f, is64);
        ptc_image_init(&img, storage, 4);
        CHECK(ptc_image_add_elf(&img, f, n, 0) == PTC_OK && img.count == 2, "ELF%d: %zu sections", is64 ? 64 : 32, img.count);
        CHECK(storage[0].base == 0x400000 && storage[0].size == 0x40 && storage[0].bytes == f + 0x200);
        CHECK(storage[1].base == 0x401000 && storage[1].size == 0x20 && storage[1].bytes == f + 0x300);
        /* with a base: the lowest segment moves there, the others with it */
        ptc_image_init(&img, storage, 4);
        CHECK(ptc_image_add_elf(&img, f, n, 0x7f0000000000u) == PTC_OK && img.count == 2);
        CHECK(storage[0].base == 0x7f0000000000u && storage[1].base == 0x7f0000001000u);
        CHECK(ptc_image_read(&img, 0x7f0000001000u, b, 4) == 4 && memcmp(b, f + 0x300, 4) == 0);
        /* malformed: cut inside the program headers, a segment past the end, big-endian, not ELF */
        CHECK(ptc_image_add_elf(&img, f, is64 ? 100 : 80, 0) == PTC_ERR_BAD_IMAGE);
        CHECK(ptc_image_add_elf(&img, f, 0x310, 0) == PTC_ERR_BAD_IMAGE && img.count == 2, "nothing added");
        f[5] = 2;
        CHECK(ptc_image_add_elf(&img, f, n, 0) == PTC_ERR_UNSUPPORTED);
        f[5] = 1;
        f[1] = 'X';
        CHECK(ptc_image_add_elf(&img, f, n, 0) == PTC_ERR_BAD_IMAGE);
        CHECK(ptc_image_add_elf(&img, f, 10, 0) == PTC_ERR_BAD_IMAGE);
    }
}

/* readelf -lW's LOAD lines, "LOAD 0xOFFSET 0xVADDR 0xPADDR 0xFILESZ ...",
   against the sections of the same file. */
static void elf_segments_are_readelfs(void)
{
    static const char *const files[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6", "/bin/ls" };
    size_t i;
    int compared = 0;
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        char cmd[256], line[512];
        FILE *p;
        size_t n = 0, seen = 0;
        unsigned char *f = util_read_file(files[i], &n);
        ptc_image_section storage[16];
        ptc_image img;
        if (!f) continue;
        snprintf(cmd, sizeof cmd, "readelf -lW %s 2>/dev/null", files[i]);
        p = popen(cmd, "r");
        if (!p) { free(f); continue; }
        ptc_image_init(&img, storage, 16);
        CHECK(ptc_image_add_elf(&img, f, n, 0) == PTC_OK, "%s", files[i]);
        while (fgets(line, sizeof line, p)) {
            unsigned long long off, va, pa, fsz;
            size_t k;
            int found = 0;
            if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx", &off, &va, &pa, &fsz) != 4) continue;
            if (!fsz) continue;
            seen++;
            for (k = 0; k < img.count; k++)
                found |= storage[k].base == va && storage[k].size == fsz && storage[k].bytes == f + off;
            CHECK(found, "%s: readelf's LOAD at 0x%llx (0x%llx bytes from 0x%llx) is no section", files[i], va, fsz, off);
        }
        pclose(p);
        CHECK(seen == img.count, "%s: readelf has %zu loads with bytes, the image %zu sections", files[i], seen, img.count);
        compared += seen > 0;
        free(f);
    }
    if (!compared) SKIP("readelf (binutils) or the sample files are missing");
}

static void pagecache_rules(void)
{
    /* pages 0x1000, 0x2000 (adjacent), an unmapped one, 0x1000 again
       (a duplicate: the first is kept), 0x9000 */
    uint8_t addr[5 * 8], dump[5 * 4096], b[8];
    static const uint64_t words[5] = { 0x1000, 0x2000, 0x5001, 0x1000, 0x9000 };
    ptc_image_section storage[4];
    ptc_image img;
    size_t i, k;
    for (i = 0; i < 5; i++)
        for (k = 0; k < 8; k++) addr[8 * i + k] = (uint8_t)(words[i] >> (8 * k));
    for (i = 0; i < 5; i++) memset(dump + 4096 * i, (int)(0xA0 + i), 4096);
    ptc_image_init(&img, storage, 4);
    CHECK(ptc_image_add_pagecache(&img, addr, sizeof addr, dump, sizeof dump) == PTC_OK);
    CHECK(img.count == 2 && storage[0].base == 0x1000 && storage[0].size == 0x2000 && storage[1].base == 0x9000,
          "%zu sections", img.count);
    CHECK(ptc_image_read(&img, 0x1FFC, b, 8) == 8 && b[0] == 0xA0 && b[7] == 0xA1, "across the merged pages");
    CHECK(ptc_image_read(&img, 0x5000, b, 1) == 0, "the unmapped page is not there");
    CHECK(ptc_image_read(&img, 0x9000, b, 1) == 1 && b[0] == 0xA4);
    ptc_image_init(&img, storage, 4);
    CHECK(ptc_image_add_pagecache(&img, addr, sizeof addr - 1, dump, sizeof dump) == PTC_ERR_BAD_IMAGE);
    CHECK(ptc_image_add_pagecache(&img, addr, sizeof addr, dump, sizeof dump - 1) == PTC_ERR_BAD_IMAGE && img.count == 0,
          "the last page is cut: refused before anything is added");
}

/* libxdc's page caches of ../shared/flow: every mapped page reads back as
   its bytes in the dump, unless an earlier copy of it is kept. */
static void the_shared_pagecaches_read_back(void)
{
    static const char *const names[] = { "Unzip__data", "foo__data", "mruby__data", "qemu__page_cache", "dyn_test__page_cache",
                                         "avscript_32__page_cache", "icelake_tip__pagecache" };
    const char *shared = testlib_shared_dir();
    char dir[400];
    size_t i, pages_checked = 0;
    struct stat st;
    if (!shared) SKIP("../shared is not here");
    snprintf(dir, sizeof dir, "%s/flow", shared);
    if (stat(dir, &st) != 0) SKIP("%s is not here", dir);
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        char pa[512], pd[512];
        size_t na = 0, nd = 0, p, q;
        unsigned char *a, *d;
        static ptc_image_section storage[1024];
        ptc_image img;
        snprintf(pa, sizeof pa, "%s/%s.addr", dir, names[i]);
        snprintf(pd, sizeof pd, "%s/%s.dump", dir, names[i]);
        a = util_read_file(pa, &na);
        d = util_read_file(pd, &nd);
        CHECK(a && d, "%s", pa);
        ptc_image_init(&img, storage, 1024);
        CHECK(a && d && ptc_image_add_pagecache(&img, a, na, d, nd) == PTC_OK, "%s", names[i]);
        CHECK(well_formed(&img), "%s", names[i]);
        for (p = 0; a && d && p < na / 8; p++) {
            uint64_t w = 0;
            uint8_t page[4096];
            int earlier = 0;
            for (q = 0; q < 8; q++) w |= (uint64_t)a[8 * p + q] << (8 * q);
            if (w & 0xFFF) continue;
            for (q = 0; q < p; q++) earlier |= memcmp(a + 8 * q, a + 8 * p, 8) == 0;
            if (earlier) continue;
            CHECK(ptc_image_read(&img, w, page, sizeof page) == sizeof page && memcmp(page, d + 4096 * p, 4096) == 0,
                  "%s: page %zu at %llx", names[i], p, (unsigned long long)w);
            pages_checked++;
        }
        free(a);
        free(d);
    }
    printf("  %zu pages of %zu page caches read back\n", pages_checked, sizeof names / sizeof names[0]);
}

/* A trace of ../shared/pt-traces and its page cache in ../shared/flow,
   read whole into *trace and an image over *addr and *dump (the caller
   frees the three). 0 when they are not there. */
static int load_libxdc_pair(const char *shared, const char *trace_name, const char *image_name, unsigned char **trace,
                            size_t *trace_n, unsigned char **addr, unsigned char **dump, ptc_image *img)
{
    char path[600];
    size_t na = 0, nd = 0;
    snprintf(path, sizeof path, "%s/pt-traces/libxdc_experiments__%s.pt", shared, trace_name);
    *trace = util_read_file(path, trace_n);
    snprintf(path, sizeof path, "%s/flow/%s.addr", shared, image_name);
    *addr = util_read_file(path, &na);
    snprintf(path, sizeof path, "%s/flow/%s.dump", shared, image_name);
    *dump = util_read_file(path, &nd);
    if (!*trace || !*addr || !*dump) return 0;
    return ptc_image_add_pagecache(img, *addr, na, *dump, nd) == PTC_OK;
}

static const struct libxdc_pair {
    const char *trace, *image;
    int libipt_decodes;   /* libipt 2.0.5 decodes it to the end */
    int libipt22_refuses; /* libipt 2.2 stops at a PSB+ that says tracing is on and
                             the TIP.PGE after it (bad status update; SPEC 9.3) */
    uint64_t filter_start, filter_end; /* what it was recorded with (../shared/flow/README.md) */
} libxdc_pairs[] = {
    { "mruby_trace", "mruby__data", 1, 0, 0x400000, 0x4b6000 },
    { "Unzip_trace", "Unzip__data", 1, 1, 0x400000, 0x427000 },
    { "foo_trace", "foo__data", 1, 0, 0x7ffff7819000, 0x7ffff79ca000 },
    { "qemu_trace1", "qemu__page_cache", 1, 1, 0x555555554000, 0x555555d60000 },
    { "avscript_32_failed_trace_12709_1", "avscript_32__page_cache", 0, 0, 0x1000, 0x7ffffffff000 },
    { "icelake_tip_ptlog", "icelake_tip__pagecache", 0, 0, 0x1000, 0xfffffffffffff000 },
    { "dyn_test_sample_raw_0", "dyn_test__page_cache", 0, 0, 0x1000, 0x7ffffffff000 },
};

/* fn on each of libxdc's traces that ../shared holds, with its image;
   the test skips, saying why, when there is none. */
typedef void (*pair_test)(const struct libxdc_pair *p, const uint8_t *trace, size_t n, const ptc_image *img);
static void on_libxdc_pairs(pair_test fn)
{
    const char *shared = testlib_shared_dir();
    size_t i, done = 0;
    if (!shared) SKIP("../shared is not here");
    for (i = 0; i < sizeof libxdc_pairs / sizeof libxdc_pairs[0]; i++) {
        static ptc_image_section storage[1024];
        ptc_image img;
        unsigned char *trace = NULL, *addr = NULL, *dump = NULL;
        size_t n = 0;
        ptc_image_init(&img, storage, 1024);
        if (load_libxdc_pair(shared, libxdc_pairs[i].trace, libxdc_pairs[i].image, &trace, &n, &addr, &dump, &img)) {
            fn(&libxdc_pairs[i], trace, n, &img);
            done++;
        }
        free(trace);
        free(addr);
        free(dump);
    }
    if (!done) SKIP("libxdc's traces are not in %s", shared);
}

#ifdef TEST_FLOW_LIBIPT
static const ptc_image *libipt_reads;
static int read_through_image(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip, void *context)
{
    size_t n = ptc_image_read(libipt_reads, ip, buffer, size);
    (void)asid;
    (void)context;
    return n ? (int)n : -pte_nomap;
}

/* libipt's next instruction, the events pending before it taken first:
   its status. */
static int libipt_next(struct pt_insn_decoder *dec, int status, struct pt_insn *li)
{
    while (status >= 0 && (status & pts_event_pending)) {
        struct pt_event ev;
        status = pt_insn_event(dec, &ev, sizeof ev);
    }
    return status < 0 ? status : pt_insn_next(dec, li, sizeof *li);
}

/* libipt's instructions, one after another, up to its first error or the
   end; ptcodec's next instruction must be each of them. */
static void the_same_as_libipt_on(const struct libxdc_pair *p, const uint8_t *trace, size_t n, const ptc_image *img)
{
    static ptc_flow flow;
    struct pt_config cfg;
    struct pt_insn_decoder *dec;
    uint64_t k = 0, off = 0;
    int status;
    ptc_flow_insn in;
    ptc_status st = PTC_OK;
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)trace;
    cfg.end = (uint8_t *)trace + n;
    dec = pt_insn_alloc_decoder(&cfg);
    libipt_reads = img;
    CHECK(dec && pt_image_set_callback(pt_insn_get_image(dec), read_through_image, NULL) == 0);
    if (!dec) return;
    CHECK(ptc_flow_init(&flow, NULL, img, trace, n) == PTC_OK);
    for (status = pt_insn_sync_forward(dec); status >= 0;) {
        struct pt_insn li;
        status = libipt_next(dec, status, &li);
        if (status < 0) break;
        st = ptc_flow_next(&flow, &in);
        if (st != PTC_OK || in.ip != li.ip) break;
        k++;
    }
    pt_insn_get_offset(dec, &off);
#if LIBIPT_VERSION >= 0x202
    if (p->libipt22_refuses) {
        CHECK(status == -pte_bad_status_update && k > 0, "%s: libipt 2.2: %s at offset %llu after %llu", p->trace,
              pt_errstr(pt_errcode(status)), (unsigned long long)off, (unsigned long long)k);
        printf("  %s: %llu instructions the same as libipt 2.2's, which stops at offset %llu: %s\n", p->trace,
               (unsigned long long)k, (unsigned long long)off, pt_errstr(pt_errcode(status)));
        pt_insn_free_decoder(dec);
        return;
    }
#endif
    if (p->libipt_decodes) {
        CHECK(status == -pte_eos, "%s: libipt stopped at offset %llu: %s", p->trace, (unsigned long long)off,
              pt_errstr(pt_errcode(status)));
        CHECK(st == PTC_OK && ptc_flow_next(&flow, &in) == PTC_END, "%s: after %llu instructions the same, ptcodec %s at %llx",
              p->trace, (unsigned long long)k, ptc_status_name(st), (unsigned long long)in.ip);
    } else {
        CHECK(k == 0 && status < 0 && status != -pte_eos, "%s: libipt decodes %llu instructions", p->trace,
              (unsigned long long)k);
    }
    printf("  %s: %llu instructions the same as libipt %d.%d's%s\n", p->trace, (unsigned long long)k, LIBIPT_VERSION >> 8,
           LIBIPT_VERSION & 0xFF,
           p->libipt_decodes ? ", to the end" : "; libipt stops at the start");
    pt_insn_free_decoder(dec);
}
#endif

/* ptcodec's flow on libxdc's traces: instructions without an error but on
   dyn_test, whose page cache lacks pages the trace runs (libxdc's hash
   for it is 0 too), and the same as libipt's where libipt decodes. */
static void flow_of(const struct libxdc_pair *p, const uint8_t *trace, size_t n, const ptc_image *img)
{
    static ptc_flow flow;
    uint64_t insns = 0, errors = 0, no_code = 0;
    ptc_flow_insn in;
    ptc_status st;
    CHECK(ptc_flow_init(&flow, NULL, img, trace, n) == PTC_OK);
    while ((st = ptc_flow_next(&flow, &in)) != PTC_END) {
        if (st == PTC_OK) insns++;
        else errors++, no_code += st == PTC_ERR_NO_CODE;
    }
    CHECK(insns > 0, "%s", p->trace);
    if (strcmp(p->image, "dyn_test__page_cache") == 0) CHECK(errors == no_code, "%s: %llu errors", p->trace,
                                                              (unsigned long long)errors);
    else CHECK(errors == 0, "%s: %llu errors", p->trace, (unsigned long long)errors);
    printf("  %s: %llu instructions, %llu errors\n", p->trace, (unsigned long long)insns, (unsigned long long)errors);
#ifdef TEST_FLOW_LIBIPT
    the_same_as_libipt_on(p, trace, n, img);
#endif
}

static void the_flow_of_libxdcs_traces(void)
{
    on_libxdc_pairs(flow_of);
#ifndef TEST_FLOW_LIBIPT
    printf("  (built without libipt: -DTEST_FLOW_LIBIPT compares with its instruction flow decoder)\n");
#endif
}

/* A flow decoder given out one instruction at a time three ways: by
   ptc_flow_next, by ptc_flow_next_block's blocks taken apart, or by both
   in turn. */
typedef struct flow_way {
    ptc_flow flow;
    enum { BY_INSN, BY_BLOCK, BY_BOTH } by;
    ptc_flow_block block;
    unsigned given, calls;
} flow_way;

static ptc_status flow_way_next(flow_way *w, ptc_flow_insn *in)
{
    ptc_status st;
    if (w->by == BY_INSN || (w->by == BY_BOTH && w->given >= w->block.count && w->calls++ % 2)) {
        w->given = w->block.count = 0;
        return ptc_flow_next(&w->flow, in);
    }
    if (w->given >= w->block.count) {
        w->given = 0;
        st = ptc_flow_next_block(&w->flow, &w->block);
        if (st != PTC_OK) {
            memset(in, 0, sizeof *in);
            in->ip = w->block.ip;
            in->offset = w->block.offset;
            w->block.count = 0;
            return st;
        }
        CHECK(w->block.count >= 1 && w->block.count <= PTC_FLOW_BLOCK_MAX);
    }
    memset(in, 0, sizeof *in);
    {
        unsigned k = w->given++, j;
        uint64_t ip = w->block.ip;
        for (j = 0; j < k; j++) ip += (w->block.sizes >> (4 * j)) & 15;
        in->ip = ip;
        in->size = (uint8_t)((w->block.sizes >> (4 * k)) & 15);
        in->iclass = (uint8_t)(k + 1u == w->block.count ? w->block.end_class : PTC_X86_OTHER);
        in->mode = w->block.mode;
        in->offset = w->block.offset;
        in->flags = (uint8_t)(k ? 0 : w->block.flags & PTC_FLOW_RESUMED);
        if (k + 1u == w->block.count) CHECK(ip == w->block.end_ip, "end_ip %llx, the sizes say %llx",
                                            (unsigned long long)w->block.end_ip, (unsigned long long)ip);
    }
    return PTC_OK;
}

/* One way against ptc_flow_next without a cache, in lockstep: the same
   statuses and instructions, field by field. Returns the instructions. */
static uint64_t flow_ways_agree(const char *name, const char *what, flow_way *w, const ptc_image *img, const uint8_t *trace,
                                size_t n)
{
    static ptc_flow plain;
    ptc_flow_insn a, b;
    ptc_status sa, sb;
    uint64_t k = 0;
    CHECK(ptc_flow_init(&plain, NULL, img, trace, n) == PTC_OK);
    do {
        sa = ptc_flow_next(&plain, &a);
        sb = flow_way_next(w, &b);
        if (sa != sb || a.ip != b.ip || a.offset != b.offset || a.size != b.size || a.iclass != b.iclass ||
            a.mode != b.mode || a.flags != b.flags) {
            CHECK(0, "%s, %s: instruction %llu: %s at %llx (size %u, class %u, flags %u) against %s at %llx (size %u, "
                  "class %u, flags %u)", name, what, (unsigned long long)k, ptc_status_name(sa), (unsigned long long)a.ip,
                  a.size, a.iclass, a.flags, ptc_status_name(sb), (unsigned long long)b.ip, b.size, b.iclass, b.flags);
            return k;
        }
        k++;
    } while (sa != PTC_END);
    return k - 1;
}

/* On libxdc's traces: blocks, blocks and instructions in turn, and the
   instructions through a cache (cold, warm, and one too small for the
   code, so that blocks push each other out) give what ptc_flow_next gives
   without a cache; an image that changes empties the cache. */
static ptc_flow_cached_block big_blocks[1 << 16], small_blocks[64];
static ptc_flow_cache big_cache, small_cache;

static void blocks_and_caches_on(const struct libxdc_pair *p, const uint8_t *trace, size_t n, const ptc_image *img)
{
    static flow_way w;
    uint64_t k, hits, misses;
    memset(&w, 0, sizeof w);
    w.by = BY_BLOCK;
    CHECK(ptc_flow_init(&w.flow, NULL, img, trace, n) == PTC_OK);
    ptc_flow_use_cache(&w.flow, &small_cache);
    k = flow_ways_agree(p->trace, "blocks, a cache of 64", &w, img, trace, n);
    if (n > (1u << 20)) { /* qemu_trace1's 9.6 M instructions: one way is enough */
        printf("  %s: %llu instructions the same by blocks\n", p->trace, (unsigned long long)k);
        return;
    }
    memset(&w, 0, sizeof w);
    w.by = BY_BLOCK;
    CHECK(ptc_flow_init(&w.flow, NULL, img, trace, n) == PTC_OK);
    flow_ways_agree(p->trace, "blocks", &w, img, trace, n);
    memset(&w, 0, sizeof w);
    w.by = BY_BOTH;
    CHECK(ptc_flow_init(&w.flow, NULL, img, trace, n) == PTC_OK);
    ptc_flow_use_cache(&w.flow, &big_cache);
    flow_ways_agree(p->trace, "blocks and instructions, cold cache", &w, img, trace, n);
    hits = big_cache.hits;
    misses = big_cache.misses;
    memset(&w, 0, sizeof w);
    w.by = BY_INSN;
    CHECK(ptc_flow_init(&w.flow, NULL, img, trace, n) == PTC_OK);
    ptc_flow_use_cache(&w.flow, &big_cache);
    flow_ways_agree(p->trace, "instructions, warm cache", &w, img, trace, n);
    /* the warm decode decodes only what pushed each other out */
    CHECK(big_cache.misses - misses < (big_cache.hits - hits) / 100 + 64, "%s: warm: %llu misses, %llu hits", p->trace,
          (unsigned long long)(big_cache.misses - misses), (unsigned long long)(big_cache.hits - hits));
    printf("  %s: %llu instructions the same four ways; warm: %llu lookups, %llu decoded\n", p->trace,
           (unsigned long long)k, (unsigned long long)(big_cache.hits - hits),
           (unsigned long long)(big_cache.misses - misses));
}

static void blocks_and_caches_give_the_same_flow(void)
{
    static flow_way w;
    ptc_flow_cache zeroed;
    /* a cache never set up is none: the flow decodes without one */
    memset(&zeroed, 0, sizeof zeroed);
    memset(&w, 0, sizeof w);
    w.by = BY_BLOCK;
    {
        static uint8_t code[] = { 0x90, 0xC3 };
        static const uint8_t trace[] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                                         0x02, 0x82, 0x02, 0x82, 0x7D, 0x00, 0x10, 0, 0, 0, 0, 0x02, 0x23, 0x01 };
        ptc_image_section sections[1];
        ptc_image img;
        ptc_image_init(&img, sections, 1);
        CHECK(ptc_image_add(&img, 0x1000, code, sizeof code) == PTC_OK);
        CHECK(ptc_flow_init(&w.flow, NULL, &img, trace, sizeof trace) == PTC_OK);
        ptc_flow_use_cache(&w.flow, &zeroed);
        CHECK(flow_ways_agree("hand-made", "a zeroed cache", &w, &img, trace, sizeof trace) == 2);
    }
    CHECK(ptc_flow_cache_init(&small_cache, small_blocks, 48) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_flow_cache_init(&small_cache, small_blocks, 1) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_flow_cache_init(&small_cache, small_blocks, 0) == PTC_ERR_BAD_ARGUMENT);
    CHECK(ptc_flow_cache_init(&small_cache, small_blocks, 64) == PTC_OK);
    CHECK(ptc_flow_cache_init(&big_cache, big_blocks, 1 << 16) == PTC_OK);
    on_libxdc_pairs(blocks_and_caches_on);
}

/* A cache is emptied when its image changes: the same address then holds
   other code, and the blocks are decoded anew. */
static void a_changed_image_empties_the_cache(void)
{
    /* PSB, PSBEND; TIP.PGE 0x1000; TNT 1,0 ; TIP.PGD */
    static const uint8_t trace[] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                                     0x02, 0x82, 0x02, 0x23, 0x71, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                     0x0A, 0x01 };
    /* at 0x1000: nop; jz +0 (to 0x1003); jz +0; ret  */
    static uint8_t code_a[] = { 0x90, 0x74, 0x00, 0x74, 0x00, 0xC3 };
    /* at 0x1000: nop; nop; jz +0; jz +0; ret */
    static uint8_t code_b[] = { 0x90, 0x90, 0x74, 0x00, 0x74, 0x00, 0xC3 };
    ptc_image_section storage[4];
    ptc_flow_cached_block blocks[16];
    ptc_flow_cache cache;
    ptc_image img;
    static flow_way w;
    ptc_image_init(&img, storage, 4);
    CHECK(ptc_image_add(&img, 0x1000, code_a, sizeof code_a) == PTC_OK);
    CHECK(ptc_flow_cache_init(&cache, blocks, 16) == PTC_OK);
    memset(&w, 0, sizeof w);
    w.by = BY_BLOCK;
    CHECK(ptc_flow_init(&w.flow, NULL, &img, trace, sizeof trace) == PTC_OK);
    ptc_flow_use_cache(&w.flow, &cache);
    CHECK(flow_ways_agree("hand-made", "code a", &w, &img, trace, sizeof trace) >= 3);
    CHECK(cache.misses > 0);
    CHECK(ptc_image_add(&img, 0x1000, code_b, sizeof code_b) == PTC_OK);
    memset(&w, 0, sizeof w);
    w.by = BY_BLOCK;
    CHECK(ptc_flow_init(&w.flow, NULL, &img, trace, sizeof trace) == PTC_OK);
    ptc_flow_use_cache(&w.flow, &cache);
    CHECK(flow_ways_agree("hand-made", "code b", &w, &img, trace, sizeof trace) >= 3);
}

/* Coverage through a cache takes its common blocks without
   ptc_flow_next_block, and with runs kept, a TNT packet's blocks with one
   lookup (SPEC 9.5): the map, the edges and the errors are what the
   flow's blocks without a cache give. */
typedef struct coverage_result {
    uint64_t edges, errors, map_sum;
    ptc_status st;
} coverage_result;

static uint8_t coverage_map[1 << 16], reference_map[1 << 16];

static void count_edge_calls(void *ctx, uint64_t from, uint64_t to)
{
    (void)from;
    (void)to;
    (*(uint64_t *)ctx)++;
}

static coverage_result coverage_of(const uint8_t *trace, size_t n, const ptc_image *img, ptc_flow_cache *cache,
                                   int with_on_edge)
{
    static ptc_flow flow;
    coverage_result r;
    ptc_coverage cov;
    uint64_t calls = 0;
    size_t i;
    memset(coverage_map, 0, sizeof coverage_map);
    CHECK(ptc_coverage_init(&cov, coverage_map, sizeof coverage_map) == PTC_OK);
    if (with_on_edge) cov.on_edge = count_edge_calls;
    cov.ctx = &calls;
    CHECK(ptc_flow_init(&flow, NULL, img, trace, n) == PTC_OK);
    ptc_flow_use_cache(&flow, cache);
    r.st = ptc_coverage_flow(&cov, &flow);
    if (with_on_edge) CHECK(calls == cov.edges, "on_edge called %llu times for %llu edges", (unsigned long long)calls,
                            (unsigned long long)cov.edges);
    r.edges = cov.edges;
    r.errors = cov.errors;
    for (i = 0, r.map_sum = 0; i < sizeof coverage_map; i++) r.map_sum += coverage_map[i];
    return r;
}

static ptc_flow_cached_run big_runs[1 << 14], small_runs[2];

/* way: what was used; want: the reference, whose map is reference_map */
static void coverage_agrees(const char *name, const char *way, coverage_result got, coverage_result want)
{
    CHECK(got.st == want.st && got.edges == want.edges && got.errors == want.errors &&
              !memcmp(coverage_map, reference_map, sizeof coverage_map),
          "%s, %s: %s, %llu edges, %llu errors, the map %s; without a cache: %s, %llu edges, %llu errors", name, way,
          ptc_status_name(got.st), (unsigned long long)got.edges, (unsigned long long)got.errors,
          memcmp(coverage_map, reference_map, sizeof coverage_map) ? "differs" : "the same", ptc_status_name(want.st),
          (unsigned long long)want.edges, (unsigned long long)want.errors);
}

static uint64_t run_hits(const ptc_flow_cache *c) { return c->run_hits; }

static coverage_result coverage_ways_agree(const char *name, const uint8_t *trace, size_t n, const ptc_image *img)
{
    coverage_result want = coverage_of(trace, n, img, NULL, 0), got;
    uint64_t hits;
    memcpy(reference_map, coverage_map, sizeof reference_map);
    CHECK(ptc_flow_cache_init(&big_cache, big_blocks, 1 << 16) == PTC_OK);
    CHECK(ptc_flow_cache_init(&small_cache, small_blocks, 64) == PTC_OK);
    got = coverage_of(trace, n, img, &big_cache, 0);
    coverage_agrees(name, "a block cache, cold", got, want);
    got = coverage_of(trace, n, img, &big_cache, 0);
    coverage_agrees(name, "a block cache, warm", got, want);
    CHECK(ptc_flow_cache_keep_runs(&big_cache, big_runs, 1 << 14) == PTC_OK);
    got = coverage_of(trace, n, img, &big_cache, 0);
    coverage_agrees(name, "runs, cold", got, want);
    hits = run_hits(&big_cache);
    got = coverage_of(trace, n, img, &big_cache, 0);
    coverage_agrees(name, "runs, warm", got, want);
    /* a warm decode finds its runs: no more recorded than found */
    CHECK(big_cache.run_hits - hits >= big_cache.run_misses / 2, "%s: warm, %llu runs found, %llu recorded in all", name,
          (unsigned long long)(big_cache.run_hits - hits), (unsigned long long)big_cache.run_misses);
    got = coverage_of(trace, n, img, &big_cache, 1);
    coverage_agrees(name, "runs kept and on_edge set (no run used)", got, want);
    CHECK(ptc_flow_cache_keep_runs(&small_cache, small_runs, 2) == PTC_OK);
    got = coverage_of(trace, n, img, &small_cache, 0);
    coverage_agrees(name, "64 blocks and 2 runs, pushing each other out", got, want);
    got = coverage_of(trace, n, img, &small_cache, 0);
    coverage_agrees(name, "64 blocks and 2 runs, again", got, want);
    return want;
}

static void coverage_ways_on(const struct libxdc_pair *p, const uint8_t *trace, size_t n, const ptc_image *img)
{
    coverage_result want = coverage_ways_agree(p->trace, trace, n, img);
    printf("  %s: %llu edges, %llu errors, the same seven ways; %llu runs found\n", p->trace,
           (unsigned long long)want.edges, (unsigned long long)want.errors, (unsigned long long)big_cache.run_hits);
}

static void coverage_through_caches_and_runs_is_the_blocks(void)
{
    /* at 0x1000: jz 0x1003; nop; call 0x100b; jz 0x1000; ret;
       at 0x100b: jz 0x100d; ret (compressed: back to 0x1008) */
    static uint8_t code[] = { 0x74, 0x01, 0x90, 0xE8, 0x03, 0x00, 0x00, 0x00, 0x74, 0xF6, 0xC3, 0x74, 0x00, 0xC3 };
    /* PSB, PSBEND, TIP.PGE 0x1000, TNT 101110, TNT 10, TIP.PGD, padding */
    static const uint8_t trace[] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                                     0x02, 0x82, 0x02, 0x23, 0x71, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0xDC, 0x0C, 0x01,
                                     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    ptc_image_section storage[1];
    ptc_image img;
    coverage_result want;
    uint64_t hits;
    ptc_image_init(&img, storage, 1);
    CHECK(ptc_image_add(&img, 0x1000, code, sizeof code) == PTC_OK);
    want = coverage_ways_agree("hand-made", trace, sizeof trace, &img);
    /* from 0 to 0x1000, then twice: the JZ taken, the CALL, the JZ not
       taken, the RET, the JZ at 0x1008 (taken, then not) */
    CHECK(want.st == PTC_OK && want.edges == 11, "%s, %llu edges", ptc_status_name(want.st), (unsigned long long)want.edges);
    /* the run from 0x1000 holds the CALL: its return address is pushed for the RET */
    hits = big_cache.run_hits;
    coverage_agrees("hand-made", "runs, once more", coverage_of(trace, sizeof trace, &img, &big_cache, 0), want);
    CHECK(big_cache.run_hits > hits);
    CHECK(ptc_flow_cache_keep_runs(&big_cache, big_runs, 3) == PTC_ERR_BAD_ARGUMENT && !big_cache.runs);
    CHECK(ptc_flow_cache_keep_runs(&big_cache, NULL, 4) == PTC_ERR_BAD_ARGUMENT);
    on_libxdc_pairs(coverage_ways_on);
}

/* A transaction's begin writes MODE.TSX and a FUP that are no event (the
   flow goes on through the XBEGIN); an abort's MODE.TSX and FUP are one
   (the instruction at the FUP does not run: the TIP says where it went). */
static void a_tsx_fup_is_an_event_only_for_an_abort_and_the_end_says_nothing(void)
{
    /* at 0x1000: nop; nop; jz +0 (to 0x1004); ret */
    static uint8_t code[] = { 0x90, 0x90, 0x74, 0x00, 0xC3 };
    static const uint8_t psb_plus[] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                                        0x02, 0x82, 0x02, 0x82, 0x7D, 0x00, 0x10, 0, 0, 0, 0, 0x02, 0x23 };
    /* MODE.TSX, FUP 0x1001, then: TNT (1 taken), TIP.PGD() */
    static const uint8_t begin[] = { 0x99, 0x21, 0x7D, 0x01, 0x10, 0, 0, 0, 0, 0x06, 0x01 };
    /* MODE.TSX abort, FUP 0x1001, TIP 0x1004, TIP.PGD() */
    static const uint8_t abort_[] = { 0x99, 0x22, 0x7D, 0x01, 0x10, 0, 0, 0, 0, 0x6D, 0x04, 0x10, 0, 0, 0, 0, 0x01 };
    static const uint64_t after_begin[] = { 0x1000, 0x1001, 0x1002, 0x1004 }, after_abort[] = { 0x1000, 0x1004 };
    const uint8_t *tails[2] = { begin, abort_ };
    size_t tail_sizes[2] = { sizeof begin, sizeof abort_ }, counts[2] = { 4, 2 }, t, k;
    const uint64_t *want[2] = { after_begin, after_abort };
    ptc_image_section storage[2];
    ptc_image img;
    static ptc_flow flow;
    ptc_image_init(&img, storage, 2);
    CHECK(ptc_image_add(&img, 0x1000, code, sizeof code) == PTC_OK);
    for (t = 0; t < 2; t++) {
        uint8_t trace[64];
        ptc_flow_insn in;
        ptc_status st;
        memcpy(trace, psb_plus, sizeof psb_plus);
        memcpy(trace + sizeof psb_plus, tails[t], tail_sizes[t]);
        CHECK(ptc_flow_init(&flow, NULL, &img, trace, sizeof psb_plus + tail_sizes[t]) == PTC_OK);
        for (k = 0; (st = ptc_flow_next(&flow, &in)) != PTC_END; k++) {
            CHECK(st == PTC_OK && k < counts[t] && in.ip == want[t][k], "%s: instruction %zu: %s at %llx",
                  t ? "abort" : "begin", k, ptc_status_name(st), (unsigned long long)in.ip);
            if (k >= counts[t]) break;
        }
        CHECK(k == counts[t], "%s: %zu instructions", t ? "abort" : "begin", k);
    }
    /* the begin without its TIP.PGD: the RET is the last block, and where it
       went the trace does not say */
    {
        uint8_t trace[64];
        ptc_flow_block b, last;
        memcpy(trace, psb_plus, sizeof psb_plus);
        memcpy(trace + sizeof psb_plus, begin, sizeof begin - 1);
        CHECK(ptc_flow_init(&flow, NULL, &img, trace, sizeof psb_plus + sizeof begin - 1) == PTC_OK);
        memset(&last, 0, sizeof last);
        while (ptc_flow_next_block(&flow, &b) == PTC_OK) last = b;
        CHECK(last.end_ip == 0x1004 && last.end_class == PTC_X86_RET && last.next_ip == 0 && !(last.flags & PTC_FLOW_STOPPED),
              "the last block ends at %llx (%s), next_ip %llx, flags %u", (unsigned long long)last.end_ip,
              ptc_x86_class_name(last.end_class), (unsigned long long)last.next_ip, last.flags);
    }
}

/* Where a TIP.PGD binds (SPEC 9.3): with its IP, where execution reaches
   it (a direct branch or the code itself leaving the IP filter ranges);
   without, at a MOV CR3 (a context left); with erratum SKL014 and the
   ranges known, at a direct branch whose target they leave out. Each case
   as libipt's instruction decoder has it (built with -DTEST_FLOW_LIBIPT:
   the same trace, code and filter configuration). */
typedef struct pgd_case {
    const char *name;
    uint64_t start;          /* the PSB+'s FUP */
    uint8_t pgd[8];          /* the TIP.PGD */
    size_t pgd_size;
    int filtered;            /* the filter [0x1000, 0x1100) and SKL014 known */
    uint64_t stopped_at;     /* the last block's next_ip: the TIP.PGD's IP, 0 without one */
    uint64_t want[5];
    size_t count;
    /* libipt 2.0.5's, where it is not 2.2's (which is want): it binds a
       TIP.PGD with an IP at the next conditional branch, not at its IP,
       and gives up before the branch where nothing says where it stopped */
    uint64_t libipt205[5];
    size_t libipt205_count;
} pgd_case;

static size_t pgd_trace(const pgd_case *c, uint8_t *trace)
{
    static const uint8_t psb[16] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                                     0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };
    size_t n = 0;
    int i;
    memcpy(trace, psb, sizeof psb);
    n += sizeof psb;
    trace[n++] = 0x99; /* MODE.Exec, 64-bit (libipt needs to be told) */
    trace[n++] = 0x01;
    trace[n++] = 0x7D; /* FUP, 6 bytes sign-extended */
    for (i = 0; i < 6; i++) trace[n++] = (uint8_t)(c->start >> (8 * i));
    trace[n++] = 0x02;
    trace[n++] = 0x23;
    memcpy(trace + n, c->pgd, c->pgd_size);
    return n + c->pgd_size;
}

#ifdef TEST_FLOW_LIBIPT
static size_t libipt_ips(const uint8_t *trace, size_t n, const ptc_image *img, int filtered, uint64_t *ips, size_t cap)
{
    struct pt_config cfg;
    struct pt_insn_decoder *dec;
    size_t k = 0;
    int status;
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)trace;
    cfg.end = (uint8_t *)trace + n;
    if (filtered) {
        cfg.addr_filter.config.ctl.addr0_cfg = 1; /* ADDRn_CFG 1: a filter range */
        cfg.addr_filter.addr0_a = 0x1000;
        cfg.addr_filter.addr0_b = 0x10FF; /* (libipt's ranges hold their last byte) */
        cfg.errata.skl014 = 1;
    }
    dec = pt_insn_alloc_decoder(&cfg);
    libipt_reads = img;
    if (!dec || pt_image_set_callback(pt_insn_get_image(dec), read_through_image, NULL) != 0) return (size_t)-1;
    for (status = pt_insn_sync_forward(dec); status >= 0 && k < cap;) {
        struct pt_insn li;
        status = libipt_next(dec, status, &li);
        if (status < 0) break;
        ips[k++] = li.ip;
    }
    pt_insn_free_decoder(dec);
    return k;
}
#endif

static void a_tip_pgd_binds_where_tracing_stopped(void)
{
    /* 0x1000 nop; jmp 0x2000; 0x1006 mov cr3, rax; nop; jz +0; ret
       0x2000 nop; jz +0; ret */
    static uint8_t code[0x1004];
    static const uint8_t low[] = { 0x90, 0xE9, 0xFA, 0x0F, 0x00, 0x00, 0x0F, 0x22, 0xD8, 0x90, 0x74, 0x00, 0xC3 };
    static const uint8_t high[] = { 0x90, 0x74, 0x00, 0xC3 };
    static const pgd_case cases[] = {
        { "a direct JMP out, TIP.PGD(0x2000)", 0x1000, { 0x61, 0x00, 0x20, 0, 0, 0, 0 }, 7, 0, 0x2000, { 0x1000, 0x1001 }, 2,
          { 0 }, 0 },
        { "the code runs out, TIP.PGD(0x2001)", 0x2000, { 0x61, 0x01, 0x20, 0, 0, 0, 0 }, 7, 0, 0x2001, { 0x2000 }, 1,
          { 0x2000, 0x2001 }, 2 },
        { "a MOV CR3, TIP.PGD()", 0x1006, { 0x01 }, 1, 0, 0, { 0x1006 }, 1, { 0 }, 0 },
        { "a direct JMP out, TIP.PGD(), SKL014", 0x1000, { 0x01 }, 1, 1, 0, { 0x1000, 0x1001 }, 2, { 0 }, 0 },
        { "a direct JMP out, TIP.PGD(), nothing known", 0x1000, { 0x01 }, 1, 0, 0, { 0x1000, 0x1001, 0x2000, 0x2001 }, 4,
          { 0x1000, 0x1001, 0x2000 }, 3 },
    };
    ptc_image_section storage[2];
    ptc_image img;
    static ptc_flow flow;
    size_t c;
    memcpy(code, low, sizeof low);
    memcpy(code + 0x1000, high, sizeof high);
    ptc_image_init(&img, storage, 2);
    CHECK(ptc_image_add(&img, 0x1000, code, sizeof code) == PTC_OK);
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const pgd_case *pc = &cases[c];
        uint8_t trace[64];
        size_t n = pgd_trace(pc, trace), k;
        ptc_trace_config tc;
        ptc_flow_block b, last;
        ptc_flow_insn in;
        ptc_status st;
        memset(&tc, 0, sizeof tc);
        if (pc->filtered) {
            tc.known = PTC_KNOW_FILTERS | PTC_KNOW_CPU;
            tc.filters.count = 1;
            tc.filters.lo[0] = 0x1000;
            tc.filters.hi[0] = 0x1100;
            tc.errata = PTC_ERRATUM_SKL014;
        }
        CHECK(ptc_flow_init(&flow, &tc, &img, trace, n) == PTC_OK);
        for (k = 0; (st = ptc_flow_next(&flow, &in)) != PTC_END && k <= pc->count; k++)
            CHECK(st == PTC_OK && k < pc->count && in.ip == pc->want[k], "%s: instruction %zu: %s at %llx", pc->name, k,
                  ptc_status_name(st), (unsigned long long)in.ip);
        CHECK(k == pc->count, "%s: %zu instructions, not %zu", pc->name, k, pc->count);
        /* the last block says tracing stopped, and where */
        CHECK(ptc_flow_init(&flow, &tc, &img, trace, n) == PTC_OK);
        memset(&last, 0, sizeof last);
        while (ptc_flow_next_block(&flow, &b) == PTC_OK) last = b;
        CHECK((last.flags & PTC_FLOW_STOPPED) && last.next_ip == pc->stopped_at,
              "%s: the last block's flags %u, next_ip %llx", pc->name, last.flags, (unsigned long long)last.next_ip);
#ifdef TEST_FLOW_LIBIPT
        {
            uint64_t ips[8];
            size_t m = libipt_ips(trace, n, &img, pc->filtered, ips, 8), i;
            const uint64_t *want = pc->want;
            size_t count = pc->count;
#if LIBIPT_VERSION < 0x202
            if (pc->libipt205_count) {
                want = pc->libipt205;
                count = pc->libipt205_count;
            }
#endif
            CHECK(m == count, "%s: libipt gives %zu instructions", pc->name, m);
            for (i = 0; i < m && i < count; i++)
                CHECK(ips[i] == want[i], "%s: libipt's instruction %zu at %llx", pc->name, i, (unsigned long long)ips[i]);
        }
#endif
    }
}

#ifdef TEST_FLOW_LIBXDC
/* Edges, as libxdc's callback and ptc_coverage's give them. */
typedef struct edge { uint64_t from, to; } edge;
typedef struct edge_set { edge *e; size_t n, cap; } edge_set;

static void edge_add(void *ctx, uint64_t from, uint64_t to)
{
    edge_set *s = (edge_set *)ctx;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1 << 16;
        s->e = (edge *)realloc(s->e, s->cap * sizeof *s->e);
        if (!s->e) abort();
    }
    s->e[s->n].from = from;
    s->e[s->n].to = to;
    s->n++;
}

static int edge_order(const void *a, const void *b)
{
    const edge *x = (const edge *)a, *y = (const edge *)b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

/* Sorted, each once, without the edges from or to where tracing starts
   and stops (libxdc's INIT_TRACE_IP, all ones; ptcodec's 0). */
static void edge_set_settle(edge_set *s)
{
    size_t i, k = 0;
    qsort(s->e, s->n, sizeof *s->e, edge_order);
    for (i = 0; i < s->n; i++) {
        if (s->e[i].from == 0 || s->e[i].from == UINT64_MAX || s->e[i].to == UINT64_MAX) continue;
        if (k && edge_order(&s->e[k - 1], &s->e[i]) == 0) continue;
        s->e[k++] = s->e[i];
    }
    s->n = k;
}

static int edge_in(const edge_set *s, uint64_t from, uint64_t to)
{
    edge key;
    key.from = from;
    key.to = to;
    return s->n && bsearch(&key, s->e, s->n, sizeof key, edge_order) != NULL;
}

static const ptc_image *xdc_image;
static void *xdc_fetch(void *ctx, uint64_t page, bool *found)
{
    ptc_image_section probe;
    size_t i;
    (void)ctx;
    page &= ~(uint64_t)0xFFF;
    *found = false;
    for (i = 0; i < xdc_image->count; i++) {
        probe = xdc_image->sections[i];
        if (probe.base <= page && page - probe.base < probe.size) {
            *found = true;
            return (void *)(probe.bytes + (page - probe.base));
        }
    }
    return NULL;
}

/* The edges libxdc and ptcodec's coverage give on libxdc's traces, as sets:
   every edge of ptcodec's is libxdc's too, where libipt decodes the trace;
   libxdc's others are no step of the instruction flow (libipt's, which
   ptcodec's is: the_flow_of_libxdcs_traces), but edges libxdc makes up at
   enable and disable points (SPEC 9.5). */
/* Marks the edges of `of` that are steps of libipt's instruction flow:
   one instruction right after another, libipt taking up the trace again
   at the next PSB after each of its errors (where it stops at the start
   of a trace, it decodes the rest so), a step not counted across where
   tracing was enabled again or overflowed. Returns how many are. */
static size_t libipt_steps_among(const edge_set *of, const uint8_t *trace, size_t n, const ptc_image *img)
{
    struct pt_config cfg;
    struct pt_insn_decoder *dec;
    uint8_t *seen = (uint8_t *)calloc(of->n + 1, 1);
    uint64_t prev = 0;
    size_t found = 0, i;
    int status;
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)trace;
    cfg.end = (uint8_t *)trace + n;
    dec = pt_insn_alloc_decoder(&cfg);
    libipt_reads = img;
    CHECK(dec && seen && pt_image_set_callback(pt_insn_get_image(dec), read_through_image, NULL) == 0);
    if (!dec || !seen) return 0;
    for (status = pt_insn_sync_forward(dec); status != -pte_eos;) {
        struct pt_insn li;
        while (status >= 0 && (status & pts_event_pending)) {
            struct pt_event ev;
            status = pt_insn_event(dec, &ev, sizeof ev);
            if (status >= 0 && (ev.type == ptev_enabled || ev.type == ptev_overflow)) prev = 0;
        }
        if (status >= 0) status = pt_insn_next(dec, &li, sizeof li);
        if (status < 0) {
            prev = 0;
            status = status == -pte_eos ? status : pt_insn_sync_forward(dec);
            continue;
        }
        for (i = 0; prev && i < of->n; i++)
            if (!seen[i] && of->e[i].from == prev && of->e[i].to == li.ip) seen[i] = 1, found++;
        prev = li.ip;
    }
    pt_insn_free_decoder(dec);
    free(seen);
    return found;
}

static void edges_on(const struct libxdc_pair *p, const uint8_t *trace, size_t n, const ptc_image *img)
{
    static uint8_t xdc_map[1 << 16], our_map[1 << 16];
    static ptc_flow flow;
    ptc_coverage cov;
    edge_set xdc = { NULL, 0, 0 }, ours = { NULL, 0, 0 }, xdc_only = { NULL, 0, 0 }, ours_only_set = { NULL, 0, 0 };
    uint64_t filter[4][2] = { { 0, 0 } };
    unsigned char *padded;
    size_t a, b, ours_only = 0, both = 0, steps = 0;
    libxdc_t *x;
    if (strcmp(p->image, "dyn_test__page_cache") == 0) return; /* its image lacks pages: libxdc stops at the first */
    /* libxdc reads a trace that ends in PT_TRACE_END bytes */
    padded = (unsigned char *)malloc(n + 16);
    CHECK(padded != NULL);
    if (!padded) return;
    memcpy(padded, trace, n);
    memset(padded + n, PT_TRACE_END, 16);
    filter[0][0] = p->filter_start;
    filter[0][1] = p->filter_end;
    xdc_image = img;
    x = (libxdc_t *)libxdc_init(filter, xdc_fetch, NULL, xdc_map, sizeof xdc_map);
    CHECK(x != NULL, "%s: libxdc_init", p->trace);
    if (!x) return;
    libxdc_register_edge_callback(x, edge_add, &xdc);
    libxdc_enable_tracing(x);
    CHECK(libxdc_decode(x, padded, n) <= decoder_success_pt_overflow, "%s: libxdc does not decode it", p->trace);
    libxdc_free(x);
    CHECK(ptc_coverage_init(&cov, our_map, sizeof our_map) == PTC_OK);
    cov.on_edge = edge_add;
    cov.ctx = &ours;
    CHECK(ptc_flow_init(&flow, NULL, img, trace, n) == PTC_OK);
    CHECK(ptc_coverage_flow(&cov, &flow) == PTC_OK, "%s: %s", p->trace, ptc_status_name(cov.first_error));
    edge_set_settle(&xdc);
    edge_set_settle(&ours);
    for (a = b = 0; a < xdc.n || b < ours.n;) {
        int c = a == xdc.n ? 1 : b == ours.n ? -1 : edge_order(&xdc.e[a], &ours.e[b]);
        if (c == 0) both++, a++, b++;
        else if (c < 0) edge_add(&xdc_only, xdc.e[a].from, xdc.e[a].to), a++;
        else edge_add(&ours_only_set, ours.e[b].from, ours.e[b].to), ours_only++, b++;
    }
    if (p->libipt_decodes) {
        ptc_flow_insn in;
        ptc_status st;
        uint64_t prev = 0;
        CHECK(ours_only == 0, "%s: %zu edges of ptcodec's are not libxdc's", p->trace, ours_only);
        /* libxdc's others: none is a step of the flow */
        CHECK(ptc_flow_init(&flow, NULL, img, trace, n) == PTC_OK);
        while ((st = ptc_flow_next(&flow, &in)) != PTC_END) {
            if (st != PTC_OK) {
                prev = 0;
                continue;
            }
            if (prev && !(in.flags & PTC_FLOW_RESUMED) && edge_in(&xdc_only, prev, in.ip)) steps++;
            prev = in.ip;
        }
        CHECK(steps == 0, "%s: %zu of libxdc's edges that ptcodec lacks are steps of the flow", p->trace, steps);
    } else {
        /* libipt stops at the start: taken up again after its errors, its
           flow has every step of ptcodec's that libxdc lacks */
        size_t judged = libipt_steps_among(&ours_only_set, trace, n, img);
        CHECK(judged == ours_only, "%s: %zu edges of ptcodec's are not libxdc's, of which libipt has %zu", p->trace,
              ours_only, judged);
    }
    CHECK(both > 0 && xdc_only.n <= both / 10 + 2, "%s: %zu edges the same, libxdc %zu more", p->trace, both, xdc_only.n);
    printf("  %s: %zu distinct edges the same as libxdc's; libxdc has %zu more%s, ptcodec %zu more%s\n", p->trace, both,
           xdc_only.n, p->libipt_decodes ? " (none a step of the flow)" : "", ours_only,
           ours_only ? " (each a step of libipt's flow)" : "");
    free(xdc.e);
    free(ours.e);
    free(xdc_only.e);
    free(ours_only_set.e);
    free(padded);
}

static void the_same_edges_as_libxdc(void)
{
    on_libxdc_pairs(edges_on);
}
#endif

int main(void)
{
#ifdef TEST_FLOW_LIBXDC /* the rest runs in the build without libxdc */
    RUN(the_same_edges_as_libxdc);
    TESTLIB_EXIT();
#endif
    RUN(a_later_section_replaces_what_it_overlaps);
    RUN(reads_stop_at_a_gap_and_ask_the_callback_for_the_rest);
    RUN(elf_segments_as_ptxed_loads_them);
    RUN(elf_segments_are_readelfs);
    RUN(pagecache_rules);
    RUN(the_shared_pagecaches_read_back);
    RUN(the_flow_of_libxdcs_traces);
    RUN(blocks_and_caches_give_the_same_flow);
    RUN(a_changed_image_empties_the_cache);
    RUN(coverage_through_caches_and_runs_is_the_blocks);
    RUN(a_tsx_fup_is_an_event_only_for_an_abort_and_the_end_says_nothing);
    RUN(a_tip_pgd_binds_where_tracing_stopped);
    TESTLIB_EXIT();
}

/* fuzz_image: memory images (ptcodec.h part 9.2, SPEC 9.2) from any bytes.

   The input's last byte picks what the rest is:
   0 - an ELF file, added at a base drawn from the input's end, over an
       image that already holds two sections (so that it replaces and
       splits them);
   1 - libxdc's page cache: an .addr file of a length drawn from the end,
       and the .dump after it;
   2 - additions: (base, size, offset) records of 5 bytes each, added into
       a 4 KiB space from a buffer of 4 KiB, held byte for byte to a
       reference of what the newest section says at every address.
   Oracles: only the statuses SPEC 9.2 allows; the sections sorted,
   disjoint, non-empty, their bytes inside what the target gave; an error
   that says nothing was added left the image as it was; reads give the
   sections' bytes and stop at a gap. */
#include "../ptcodec.h"
#include "fuzz_helpers.h"

#include <string.h>

enum { CAPACITY = 8 };

static void hold_sections(const ptc_image *img, const uint8_t *lo, size_t n, const uint8_t *lo2, size_t n2)
{
    size_t i;
    for (i = 0; i < img->count; i++) {
        const ptc_image_section *s = &img->sections[i];
        int inside = (s->bytes >= lo && s->size <= n && s->bytes - lo <= (ptrdiff_t)(n - s->size)) ||
                     (lo2 && s->bytes >= lo2 && s->size <= n2 && s->bytes - lo2 <= (ptrdiff_t)(n2 - s->size));
        FUZZ_ASSERT(s->size > 0 && s->base + s->size > s->base, "section %zu: %llx + %llx", i,
                    (unsigned long long)s->base, (unsigned long long)s->size);
        FUZZ_ASSERT(inside, "section %zu's bytes are outside what was given", i);
        FUZZ_ASSERT(i == 0 || img->sections[i - 1].base + img->sections[i - 1].size <= s->base, "sections %zu and %zu overlap",
                    i - 1, i);
    }
    FUZZ_ASSERT(img->count <= img->capacity, "%zu sections in %zu", img->count, img->capacity);
}

/* Each section reads back, and a read from its last byte gives 1 byte
   unless the next section follows without a gap. */
static void hold_reads(const ptc_image *img)
{
    size_t i;
    for (i = 0; i < img->count; i++) {
        const ptc_image_section *s = &img->sections[i];
        uint8_t b[16];
        size_t k = s->size < sizeof b ? (size_t)s->size : sizeof b, got;
        int next_adjacent = i + 1 < img->count && img->sections[i + 1].base == s->base + s->size;
        FUZZ_ASSERT(ptc_image_read(img, s->base, b, k) == k && memcmp(b, s->bytes, k) == 0, "section %zu reads back", i);
        got = ptc_image_read(img, s->base + s->size - 1, b, 2);
        FUZZ_ASSERT(got == (next_adjacent ? 2u : 1u), "read at a section's end: %zu", got);
    }
}

static void elf(const uint8_t *data, size_t n, uint64_t base)
{
    static const uint8_t filler[64];
    ptc_image_section storage[CAPACITY], before[CAPACITY];
    ptc_image img;
    size_t count;
    ptc_status st;
    ptc_image_init(&img, storage, CAPACITY);
    FUZZ_ASSERT(ptc_image_add(&img, 0x400000, filler, sizeof filler) == PTC_OK, "setup");
    FUZZ_ASSERT(ptc_image_add(&img, 0x7f0000001000u, filler, sizeof filler) == PTC_OK, "setup");
    memcpy(before, storage, sizeof before);
    count = img.count;
    st = ptc_image_add_elf(&img, data, n, base);
    FUZZ_ASSERT(st == PTC_OK || st == PTC_ERR_BAD_IMAGE || st == PTC_ERR_UNSUPPORTED || st == PTC_ERR_NO_SPACE, "%s",
                ptc_status_name(st));
    if (st == PTC_ERR_BAD_IMAGE || st == PTC_ERR_UNSUPPORTED)
        FUZZ_ASSERT(img.count == count && memcmp(before, storage, count * sizeof *storage) == 0, "%s changed the image",
                    ptc_status_name(st));
    hold_sections(&img, data, n, filler, sizeof filler);
    hold_reads(&img);
}

static void pagecache(const uint8_t *data, size_t n, size_t addr_size)
{
    ptc_image_section storage[CAPACITY];
    ptc_image img;
    ptc_status st;
    if (addr_size > n) addr_size = n;
    ptc_image_init(&img, storage, CAPACITY);
    st = ptc_image_add_pagecache(&img, data, addr_size, data + addr_size, n - addr_size);
    FUZZ_ASSERT(st == PTC_OK || st == PTC_ERR_BAD_IMAGE || st == PTC_ERR_NO_SPACE, "%s", ptc_status_name(st));
    if (st == PTC_ERR_BAD_IMAGE) FUZZ_ASSERT(img.count == 0, "bad_image after adding %zu sections", img.count);
    hold_sections(&img, data + addr_size, n - addr_size, NULL, 0);
    hold_reads(&img);
}

/* What the newest addition says at every address of a 4 KiB space: the
   offset into the buffer, or -1. */
enum { SPACE = 4096 };
static void additions(const uint8_t *data, size_t n)
{
    static uint8_t buffer[4096];
    static int32_t truth[SPACE];
    ptc_image_section storage[CAPACITY];
    ptc_image img;
    size_t i, a;
    for (i = 0; i < sizeof buffer; i++) buffer[i] = (uint8_t)(i * 13u + (i >> 8));
    for (a = 0; a < SPACE; a++) truth[a] = -1;
    ptc_image_init(&img, storage, CAPACITY);
    for (i = 0; i + 5 <= n; i += 5) {
        uint64_t base = ((uint64_t)data[i] << 8 | data[i + 1]) % SPACE;
        uint64_t size = ((uint64_t)data[i + 2] << 4 | data[i + 3] >> 4) % 1024;
        size_t offset = ((size_t)(data[i + 3] & 15) << 8 | data[i + 4]) % 2048;
        size_t before = img.count;
        ptc_status st;
        if (base + size > SPACE) size = SPACE - base;
        st = ptc_image_add(&img, base, buffer + offset, size);
        FUZZ_ASSERT(st == PTC_OK || st == PTC_ERR_NO_SPACE, "%s", ptc_status_name(st));
        if (st == PTC_OK)
            for (a = 0; a < size; a++) truth[base + a] = (int32_t)(offset + a);
        else
            FUZZ_ASSERT(img.count == before, "no_space changed the image");
        hold_sections(&img, buffer, sizeof buffer, NULL, 0);
    }
    for (a = 0; a < SPACE; a++) {
        uint8_t b;
        size_t got = ptc_image_read(&img, a, &b, 1);
        FUZZ_ASSERT(got == (truth[a] >= 0), "at %zx: %zu bytes, the reference %s", a, got, truth[a] >= 0 ? "has one" : "none");
        FUZZ_ASSERT(!got || b == buffer[truth[a]], "at %zx: %02x, the newest section says %02x", a, b, buffer[truth[a]]);
    }
    hold_reads(&img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    unsigned what;
    if (size < 1 || size > FUZZ_MAX_INPUT) return 0;
    in.data = data;
    in.size = size;
    what = fuzz_take(&in, 0, 255) % 3;
    if (what == 0) {
        uint64_t base = fuzz_take(&in, 0, 3) == 0 ? 0 : (uint64_t)fuzz_take(&in, 0, 0xFFFFFFFFu) << 12;
        elf(data, in.size, base);
    } else if (what == 1) {
        size_t addr_size = fuzz_take(&in, 0, 0xFFFF);
        pagecache(data, in.size, addr_size);
    } else {
        additions(data, in.size);
    }
    return 0;
}

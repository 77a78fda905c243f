/* fuzz_perfdata: arbitrary bytes as a perf.data (SPEC.md part 6): the
   reader, then every trace in it through the stream decoder and the clock
   with the settings the file gives.

   The input is copied into an exact-size allocation, so a read past the
   end is caught by the sanitizer. Oracles:
   - ptc_perf_open and ptc_perf_next return only the statuses SPEC 6.1
     allows, and records come in increasing file order, each inside the
     input (an AUXTRACE's payload too);
   - pointers the reader hands out (payloads, AUX data, strings) lie
     inside the input; strings end inside their record;
   - the clock takes the file's settings or says which are not usable;
     with them, points never go back and every interval is ordered;
   - what ptdump --time says of the settings (tools/clockcheck.h) from
     every timed item of the file is one line that fits its buffer. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_helpers.h"
#include "../tools/clockcheck.h"

#include <string.h>

static int inside(const uint8_t *buf, size_t len, const void *p, uint64_t n)
{
    const uint8_t *q = (const uint8_t *)p;
    return q >= buf && (uint64_t)(q - buf) <= len && n <= len - (uint64_t)(q - buf);
}

static void time_trace(const ptc_clock_config *cc, const uint8_t *data, uint64_t size, clockcheck_witness *ck)
{
    static ptc_clock clk;
    ptc_decoder dec;
    ptc_item it;
    ptc_timed_item t;
    ptc_clock_order order;
    if (ptc_clock_init(&clk, cc) != PTC_OK) return;
    ptc_clock_order_init(&order);
    ptc_decoder_init_buffer(&dec, 0, data, (size_t)size);
    clockcheck_new_stream(ck);
    for (;;) {
        int more = ptc_decoder_next(&dec, &it) == PTC_OK;
        if (more) FUZZ_ASSERT(ptc_clock_push(&clk, &it) == PTC_OK, "push refused with the window drained");
        else ptc_clock_finish(&clk);
        while (ptc_clock_pop(&clk, &t) == PTC_OK) {
            clockcheck_item(ck, &t.item, &t);
            if (!t.have_time) continue;
            FUZZ_ASSERT(t.tsc_lo <= t.tsc && t.tsc <= t.tsc_hi, "point outside its interval at %llu",
                      (unsigned long long)t.item.offset);
            FUZZ_ASSERT(ptc_clock_order_next(&order, &t), "time went back at %llu", (unsigned long long)t.item.offset);
        }
        if (!more) break;
    }
}

static void check_record(const uint8_t *buf, size_t len, const ptc_perf_record *r)
{
    FUZZ_ASSERT(inside(buf, len, r->bytes, r->size), "record at %llu is not inside the input", (unsigned long long)r->offset);
    if (r->error != PTC_OK && r->error != PTC_ERR_TRUNCATED) return;
    switch (r->type) {
    case PTC_PERF_AUXTRACE:
        FUZZ_ASSERT(inside(buf, len, r->u.auxtrace.data, r->u.auxtrace.size), "auxtrace payload outside the input");
        break;
    case PTC_PERF_SAMPLE:
        if (r->u.sample.aux) FUZZ_ASSERT(inside(buf, len, r->u.sample.aux, r->u.sample.aux_size), "AUX data outside its record");
        if (r->u.sample.aux) FUZZ_ASSERT(inside(r->bytes, r->size, r->u.sample.aux, r->u.sample.aux_size), "AUX data outside its record");
        break;
    case PTC_PERF_COMM:
        FUZZ_ASSERT(inside(r->bytes, r->size, r->u.comm.comm, strlen(r->u.comm.comm) + 1), "comm runs out of its record");
        break;
    case PTC_PERF_MMAP: case PTC_PERF_MMAP2:
        FUZZ_ASSERT(inside(r->bytes, r->size, r->u.mmap.filename, strlen(r->u.mmap.filename) + 1), "filename runs out");
        break;
    case PTC_PERF_AUXTRACE_INFO:
        if (r->u.info.filter) FUZZ_ASSERT(inside(r->bytes, r->size, r->u.info.filter, r->u.info.filter_str_len + 1), "filter runs out");
        break;
    default:
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf;
    ptc_perf_reader rd;
    ptc_perf_record r;
    ptc_clock_config cc;
    ptc_status st;
    uint64_t last_offset = 0;
    int have_config = 0, first = 1;
    clockcheck_witness ck;
    char line[512];
    if (size > FUZZ_MAX_INPUT) return 0;
    buf = (uint8_t *)malloc(size ? size : 1);
    if (size) memcpy(buf, data, size);
    st = ptc_perf_open(&rd, buf, size);
    FUZZ_ASSERT(st == PTC_OK || st == PTC_ERR_BAD_PERF || st == PTC_ERR_UNSUPPORTED, "open: %s", ptc_status_name(st));
    if (st != PTC_OK) { free(buf); return 0; }
    clockcheck_init(&ck);
    while ((st = ptc_perf_next(&rd, &r)) == PTC_OK) {
        FUZZ_ASSERT(first || r.offset > last_offset, "records went back: %llu after %llu", (unsigned long long)r.offset,
                  (unsigned long long)last_offset);
        first = 0;
        last_offset = r.offset;
        check_record(buf, size, &r);
        if (!have_config && rd.have_info) have_config = ptc_clock_config_from_perf(&cc, &rd) == PTC_OK;
        if (r.error != PTC_OK && r.error != PTC_ERR_TRUNCATED) continue;
        if (!have_config) ptc_clock_config_default(&cc);
        if (r.type == PTC_PERF_AUXTRACE) time_trace(&cc, r.u.auxtrace.data, r.u.auxtrace.size, &ck);
        if (r.type == PTC_PERF_SAMPLE && r.u.sample.aux) time_trace(&cc, r.u.sample.aux, r.u.sample.aux_size, &ck);
    }
    FUZZ_ASSERT(st == PTC_END || st == PTC_ERR_BAD_PERF, "next: %s", ptc_status_name(st));
    if (have_config) {
        memset(line, 'x', sizeof line);
        if (clockcheck_report_line(&ck, &cc, line, sizeof line))
            FUZZ_ASSERT(memchr(line, 0, sizeof line) != NULL && strstr(line, "most likely wrong: ") != NULL, "%s", line);
        FUZZ_ASSERT(ck.conflicts || !clockcheck_report_line(&ck, &cc, line, sizeof line), "a line without conflicts");
        if (clockcheck_errata_line(&ck, &cc, line, sizeof line)) FUZZ_ASSERT(memchr(line, 0, sizeof line) != NULL, "unterminated");
    }
    free(buf);
    return 0;
}

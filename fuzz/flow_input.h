/* flow_input.h - the input of fuzz_flow and fuzz_flow_libipt22, read once:
   code, then a trace; the code's length, its base (0x400000, or 0x1000)
   and whether the trace was filtered drawn from the input's last bytes
   (fuzz_take). A filtered trace's configuration has one IP filter range,
   from the base to a point drawn in the code, and erratum SKL014. */
#ifndef PTCODEC_FLOW_INPUT_H
#define PTCODEC_FLOW_INPUT_H

#include "../ptcodec.h"
#include "fuzz_helpers.h"

#include <string.h>

/* An image over storage[0..2) holding the code, the trace after it, and
   the trace's configuration. */
static void flow_input(const uint8_t *data, size_t size, ptc_image *img, ptc_image_section storage[2],
                       const uint8_t **trace, size_t *trace_size, ptc_trace_config *tc)
{
    fuzz_input in;
    size_t code_size;
    uint64_t base;
    in.data = data;
    in.size = size;
    code_size = fuzz_take(&in, 0, 0xFFFF);
    base = fuzz_take(&in, 0, 1) ? 0x1000 : 0x400000;
    memset(tc, 0, sizeof *tc);
    if (fuzz_take(&in, 0, 1)) {
        tc->known = PTC_KNOW_FILTERS | PTC_KNOW_CPU;
        tc->errata = PTC_ERRATUM_SKL014;
        tc->filters.count = 1;
        tc->filters.lo[0] = base;
        tc->filters.hi[0] = base + 1 + fuzz_take(&in, 0, 0xFFFF);
    }
    if (code_size > in.size) code_size = in.size;
    ptc_image_init(img, storage, 2);
    FUZZ_ASSERT(ptc_image_add(img, base, data, code_size) == PTC_OK, "the image");
    *trace = data + code_size;
    *trace_size = in.size - code_size;
}

#endif

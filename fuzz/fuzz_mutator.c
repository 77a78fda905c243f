/* fuzz_mutator: the PT-aware mutator (harness/ptmutator.h) on any input.

   The input's last bytes choose the seed, the room the engine gives
   (max_size: the input's size plus 0 to 255 bytes) and whether a second
   input is there for "splice" (then it is the first third of the data).
   Oracles:
   - the output is never larger than max_size, and nothing is written
     outside [0, max_size) (the buffer is exactly that large: ASan);
   - the same seed and input give the same output and operator;
   - on a stream of whole packets (every byte decodes, from offset 0), an
     operator that only moves whole valid packets (ptm_op_keeps_packets_whole:
     all but splice, cut and bytes) gives a stream of whole packets again,
     up to its first BBP (ptm_whole_packets says why). */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/ptmutator.h"
#include "fuzz_helpers.h"

#include <string.h>

static ptm_mutator ma, mb;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = { data, size };
    uint32_t seed = fuzz_take(&in, 0, UINT32_MAX);
    size_t room = fuzz_take(&in, 0, 255), max_size, na, nb, other_size = 0;
    int with_other = (int)fuzz_take(&in, 0, 1);
    const uint8_t *other = NULL;
    uint8_t *a, *b;
    if (in.size > 8192) return 0;
    if (with_other) {
        other_size = in.size / 3;
        other = in.data;
        in.data += other_size;
        in.size -= other_size;
    }
    max_size = in.size + room;
    if (!max_size) return 0;
    a = (uint8_t *)malloc(max_size);
    b = (uint8_t *)malloc(max_size);
    FUZZ_ASSERT(a && b, "out of memory");
    memcpy(a, in.data, in.size);
    memcpy(b, in.data, in.size);
    ptm_init(&ma, seed);
    ptm_init(&mb, seed);
    na = ptm_mutate(&ma, a, in.size, max_size, other, other_size);
    nb = ptm_mutate(&mb, b, in.size, max_size, other, other_size);
    FUZZ_ASSERT(na <= max_size, "%zu bytes out of %zu room", na, max_size);
    FUZZ_ASSERT(na == nb && !memcmp(a, b, na) && ma.last_op == mb.last_op, "seed %u: two outputs (%s)", seed,
              ptm_op_name(ma.last_op));
    if (ptm_op_keeps_packets_whole(ma.last_op) && ptm_whole_packets(in.data, in.size) == PTM_WHOLE)
        FUZZ_ASSERT(ptm_whole_packets(a, na) != PTM_BROKEN, "%s broke a stream of whole packets (seed %u)", ptm_op_name(ma.last_op), seed);
    free(a);
    free(b);
    return 0;
}

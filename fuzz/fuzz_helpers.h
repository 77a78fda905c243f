/* fuzz_helpers.h - what every ptcodec fuzz target shares.

   FUZZ_ASSERT is always on (NDEBUG or not): it prints the target, file, line
   and a message, then aborts, so every fuzzing engine records a crash.

   fuzz_take draws parameters from the END of the input and leaves the front
   as data, in the style of zstd's tests/fuzz data producer: a mutation of
   the data bytes does not shift the parameters, and a short input simply
   gets the smallest values. */
#ifndef PTCODEC_FUZZ_HELPERS_H
#define PTCODEC_FUZZ_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_ASSERT(cond, ...)                                                        \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: FUZZ_ASSERT(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
            abort();                                                                \
        }                                                                           \
    } while (0)

/* Inputs larger than this are not interesting and only slow a campaign. */
#define FUZZ_MAX_INPUT (1u << 20)

typedef struct fuzz_input { const uint8_t *data; size_t size; } fuzz_input;

/* Helpers a target may not use all of. */
#include "../harness/util.h"

/* A value in [min, max] from the last bytes of the input (as few bytes as
   the range needs). Returns min when the input is used up. */
UTIL_FN uint32_t fuzz_take(fuzz_input *in, uint32_t min, uint32_t max)
{
    uint64_t range = (uint64_t)max - min, v = 0;
    while (range && in->size) {
        v = (v << 8) | in->data[--in->size];
        range >>= 8;
    }
    return (uint32_t)(min + v % ((uint64_t)max - min + 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif

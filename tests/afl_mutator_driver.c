/* afl_mutator_driver.c - drives build/afl/ptcodec-mutator.so through
   AFL++'s custom mutator entry points alone, as any other driver would
   (dlopen, no AFL++ state: a NULL afl pointer), for
   tests/test_mutator_engines.sh. Each output is the next call's input,
   the input file the first.
   usage: afl_mutator_driver LIBRARY SEED CALLS INPUT
   prints a hash of every output, in order, and each operator's count as
   afl_custom_describe named it; fails when an operator that keeps whole
   packets whole (harness/ptmutator.h) broke a stream of whole packets. The
   library is only called; ptmutator.h here only names the operators and
   reads the packets. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/ptmutator.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *(*init_fn)(void *afl, unsigned int seed);
typedef size_t (*fuzz_fn)(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                          size_t add_buf_size, size_t max_size);
typedef const char *(*describe_fn)(void *data, size_t max_description_len);
typedef void (*deinit_fn)(void *data);

enum { MAX_SIZE = 8192, MAX_NAMES = 32 };

/* The operator afl_custom_describe named "ptm-<name>"; PTM_OP_COUNT for none. */
static ptm_op op_named(const char *described)
{
    int op;
    if (!described || strncmp(described, "ptm-", 4)) return PTM_OP_COUNT;
    for (op = 0; op < PTM_OP_COUNT; op++)
        if (!strcmp(described + 4, ptm_op_name((ptm_op)op))) return (ptm_op)op;
    return PTM_OP_COUNT;
}

int main(int argc, char **argv)
{
    static uint8_t buf[MAX_SIZE];
    uint8_t *first;
    char names[MAX_NAMES][32];
    unsigned long counts[MAX_NAMES];
    size_t len, first_len, n = 0, i, broken = 0;
    uint64_t seed, calls;
    uint64_t hash = 1469598103934665603u; /* FNV-1a over every output */
    void *lib, *state;
    init_fn init;
    fuzz_fn fuzz;
    describe_fn describe;
    deinit_fn deinit;
    util_prog = "afl_mutator_driver";
    if (argc != 5) {
        fprintf(stderr, "usage: %s LIBRARY SEED CALLS INPUT\n", argv[0]);
        return 2;
    }
    if (!(lib = dlopen(argv[1], RTLD_NOW))) {
        fprintf(stderr, "%s: %s\n", argv[1], dlerror());
        return 1;
    }
    init = (init_fn)(uintptr_t)dlsym(lib, "afl_custom_init");
    fuzz = (fuzz_fn)(uintptr_t)dlsym(lib, "afl_custom_fuzz");
    describe = (describe_fn)(uintptr_t)dlsym(lib, "afl_custom_describe");
    deinit = (deinit_fn)(uintptr_t)dlsym(lib, "afl_custom_deinit");
    if (!init || !fuzz || !describe || !deinit) {
        fprintf(stderr, "%s: an afl_custom_* entry point is missing\n", argv[1]);
        return 1;
    }
    if (!util_parse_u64("SEED", argv[2], UINT32_MAX, &seed) || !util_parse_u64("CALLS", argv[3], 1000000, &calls)) return 2;
    if (!(first = util_read_file(argv[4], &first_len))) {
        perror(argv[4]);
        return 1;
    }
    len = first_len < MAX_SIZE ? first_len : MAX_SIZE;
    memcpy(buf, first, len);
    state = init(NULL, (unsigned)seed);
    if (!state) return 1;
    for (i = 0; i < calls; i++) {
        uint8_t *out = NULL;
        int was_whole = ptm_whole_packets(buf, len) == PTM_WHOLE;
        size_t k = fuzz(state, buf, len, &out, first, first_len, MAX_SIZE), j;
        const char *name = describe(state, 32);
        if (!out || k > MAX_SIZE) {
            fprintf(stderr, "call %zu: %zu bytes, out %p\n", i, k, (void *)out);
            return 1;
        }
        for (j = 0; j < k; j++) hash = (hash ^ out[j]) * 1099511628211u;
        if (was_whole && ptm_op_keeps_packets_whole(op_named(name)) && ptm_whole_packets(out, k) == PTM_BROKEN) {
            fprintf(stderr, "call %zu: %s broke a stream of whole packets\n", i, name);
            broken++;
        }
        memmove(buf, out, k);
        len = k ? k : 1; /* (an empty output: go on from one byte) */
        for (j = 0; j < n && strcmp(names[j], name ? name : "?"); j++)
            ;
        if (j == n && n < MAX_NAMES) {
            snprintf(names[n], sizeof names[n], "%s", name ? name : "?");
            counts[n++] = 0;
        }
        if (j < n) counts[j]++;
    }
    deinit(state);
    free(first);
    printf("hash %016llx\n", (unsigned long long)hash);
    for (i = 0; i < n; i++) printf("%s %lu\n", names[i], counts[i]);
    return broken ? 1 : 0;
}

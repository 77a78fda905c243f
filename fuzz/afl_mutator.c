/* afl_mutator.c - harness/ptmutator.h as an AFL++ custom mutator library.
   make fuzz builds it as build/afl/ptcodec-mutator.so:

     AFL_CUSTOM_MUTATOR_LIBRARY=build/afl/ptcodec-mutator.so afl-fuzz ...

   (add AFL_CUSTOM_MUTATOR_ONLY=1 to turn AFL++'s own mutations off). It
   uses only the documented entry points and never looks into AFL++'s
   state, so any driver can call it through the same functions:
     afl_custom_init(afl, seed)   the state; the same seed gives the same
                                  outputs for the same inputs, in order
     afl_custom_fuzz              one mutation; add_buf (another input) is
                                  what "splice" splices in
     afl_custom_describe          the operator just applied, for the
                                  names of queue entries
     afl_custom_deinit
   Trimming is left to AFL++: its byte-chunk trimming keeps what changes
   coverage, and a packet-aware trim would remove the same bytes. Its copy
   of ptcodec is static: the library exports the four entry points only. */
#define PTCODEC_STATIC
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "../harness/ptmutator.h"

#include <stdlib.h>

typedef struct afl_ptm {
    ptm_mutator m;
    uint8_t *out;   /* the output buffer handed to AFL++; grows to the largest max_size asked */
    size_t out_cap;
    char describe[32];
} afl_ptm;

void *afl_custom_init(void *afl, unsigned int seed);
size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                       size_t add_buf_size, size_t max_size);
const char *afl_custom_describe(void *data, size_t max_description_len);
void afl_custom_deinit(void *data);

void *afl_custom_init(void *afl, unsigned int seed)
{
    afl_ptm *s = (afl_ptm *)calloc(1, sizeof *s);
    UTIL_UNUSED(afl);
    if (!s) return NULL;
    ptm_init(&s->m, seed);
    /* PTCODEC_MUTATOR_LIBIPT205=1: only packets Debian's libipt 2.0.5 knows */
    if (getenv("PTCODEC_MUTATOR_LIBIPT205")) s->m.pktgen_flags = PKTGEN_LIBIPT_205;
    return s;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                       size_t add_buf_size, size_t max_size)
{
    afl_ptm *s = (afl_ptm *)data;
    if (max_size > s->out_cap) {
        uint8_t *nb = (uint8_t *)realloc(s->out, max_size);
        if (!nb) { /* no room to mutate: hand the input back unchanged */
            *out_buf = buf;
            return buf_size;
        }
        s->out = nb;
        s->out_cap = max_size;
    }
    if (buf_size > max_size) buf_size = max_size;
    memcpy(s->out, buf, buf_size);
    *out_buf = s->out;
    return ptm_mutate(&s->m, s->out, buf_size, max_size, add_buf, add_buf_size);
}

const char *afl_custom_describe(void *data, size_t max_description_len)
{
    afl_ptm *s = (afl_ptm *)data;
    size_t n = max_description_len < sizeof s->describe ? max_description_len : sizeof s->describe;
    if (!n) return NULL;
    snprintf(s->describe, n, "ptm-%s", ptm_op_name(s->m.last_op));
    return s->describe;
}

void afl_custom_deinit(void *data)
{
    afl_ptm *s = (afl_ptm *)data;
    if (!s) return;
    free(s->out);
    free(s);
}

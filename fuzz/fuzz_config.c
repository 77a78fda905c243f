/* fuzz_config: the configuration reader of ptdump --config and ptnav
   --config (tools/modelcfg.h and its JSON reader, SPEC.md 5.6) reads only
   the bytes it is given, and never takes what it cannot give back.

   The whole input is the file's text (no NUL after it, so reading one byte
   too far is an ASan report). A refusal must say why. A configuration it
   accepts, written as ptsim writes it (modelcfg_write_json) and read again, must
   be accepted and be the same configuration: every field, filter, policy
   value and ring_written. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_helpers.h"
#include "../tools/modelcfg.h"

#include <string.h>

static void same_config(const ptc_model_config *a, const ptc_model_config *b)
{
    unsigned i;
#define MODELCFG_FIELD(k, fld, least, most) FUZZ_ASSERT(a->fld == b->fld, "%s changed on the way back", k);
    MODELCFG_FIELDS
#undef MODELCFG_FIELD
    FUZZ_ASSERT(a->trace.errata == b->trace.errata, "the errata changed on the way back");
    FUZZ_ASSERT(a->trace.filters.count == b->trace.filters.count, "the filter count changed");
    for (i = 0; i < a->trace.filters.count; i++)
        FUZZ_ASSERT(a->trace.filters.lo[i] == b->trace.filters.lo[i] && a->trace.filters.hi[i] == b->trace.filters.hi[i], "filter %u changed", i);
    FUZZ_ASSERT(memcmp(&a->trace.policy, &b->trace.policy, sizeof a->trace.policy) == 0, "the policy changed");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ptc_model_config first, again;
    uint64_t ring, ring_again;
    char err[200], *text = NULL;
    size_t len = 0;
    FILE *f;
    if (size > FUZZ_MAX_INPUT) return 0;
    err[0] = 0;
    if (!modelcfg_read_json((const char *)data, size, &first, &ring, err, sizeof err)) {
        FUZZ_ASSERT(err[0] != 0, "refused without a reason");
        return 0;
    }
    f = open_memstream(&text, &len);
    FUZZ_ASSERT(f != NULL, "open_memstream");
    modelcfg_write_json(f, &first, ring == UINT64_MAX ? NULL : &ring);
    FUZZ_ASSERT(fclose(f) == 0, "writing the configuration back");
    FUZZ_ASSERT(modelcfg_read_json(text, len, &again, &ring_again, err, sizeof err), "its own output refused: %s\n%s", err,
              text);
    same_config(&first, &again);
    FUZZ_ASSERT(ring == ring_again, "ring_written changed");
    free(text);
    return 0;
}

/* The PT-aware mutator as a harness includes it (harness/ptmutator.h, with
   libFuzzer's hooks), and the differential template beside it
   (harness/ptdiff.h), for tests/compile_matrix.sh: C and C++. */
#define PTCODEC_IMPLEMENTATION
#include "../../ptcodec.h"
#define PTM_LIBFUZZER_HOOKS
#include "../../harness/ptmutator.h"
#include "../../harness/ptdiff.h"

#ifdef __cplusplus
extern "C"
#endif
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return ptm_whole_packets(data, size) == PTM_BROKEN;
}

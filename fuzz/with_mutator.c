/* with_mutator.c - any fuzz target with ptcodec's PT-aware mutator
   (tools/ptmutator.h) as libFuzzer's custom mutator and crossover:
     clang -fsanitize=fuzzer -DPTM_TARGET='"fuzz_stream.c"' fuzz/with_mutator.c
   make builds build/libfuzzer/<target>+ptm this way. The target brings
   ptcodec.h with its implementation; the mutator's hooks come after it. */
#include PTM_TARGET

#define PTM_LIBFUZZER_HOOKS
#include "../tools/ptmutator.h"

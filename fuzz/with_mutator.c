/* with_mutator.c - ptcodec's PT-aware mutator (harness/ptmutator.h) as
   libFuzzer's custom mutator and crossover, in a file of its own, to link
   into any fuzz target:
     clang -O2 -c fuzz/with_mutator.c                  (no -fsanitize here)
     clang -fsanitize=fuzzer,address fuzz/fuzz_stream.c with_mutator.o
   make builds build/libfuzzer/<target>+ptm this way. Compiled without the
   fuzzer's instrumentation and the sanitizers, the mutator runs at its own
   speed (a few microseconds a call) instead of several times slower, and
   its branches are not mistaken for the target's coverage. Its copy of
   ptcodec is static (PTCODEC_STATIC), so it does not clash with the
   target's. */
#define PTCODEC_STATIC
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#define PTM_LIBFUZZER_HOOKS
#include "../harness/ptmutator.h"

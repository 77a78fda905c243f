#!/bin/sh
# The PT-aware mutator under the engines that use it (harness/ptmutator.h;
# fuzz/README.md, "Fuzzing your decoder"):
#   - AFL++'s library, build/afl/ptcodec-mutator.so, called through its
#     entry points alone (tests/afl_mutator_driver.c): the same seed gives
#     the same outputs, another seed others, every operator is applied, and
#     those that keep whole packets whole do;
#   - afl-fuzz with it alone (AFL_CUSTOM_MUTATOR_ONLY) on fuzz_stream for
#     a few seconds: it runs, crashes nothing, and its queue holds inputs
#     the mutator made (named ptm-<operator> by afl_custom_describe);
#   - libFuzzer with its hooks (fuzz_stream+ptm): it runs, and inputs it
#     kept came from the custom mutator.
# usage: tests/test_mutator_engines.sh BUILD
b=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
seed=corpus/fuzz_stream/stream-dense-1
lib=$b/afl/ptcodec-mutator.so
mkdir -p "$tmp/in"
cp "$seed" corpus/fuzz_stream/one-psb corpus/fuzz_stream/model-dense-1 "$tmp/in/"

if [ ! -f "$lib" ]; then
  echo "FAIL - afl_mutator_abi: $lib was not built"; fail=1
elif ! ${CC:-cc} -std=c99 -O1 -g -Wall -Wextra -Werror -pedantic -o "$tmp/driver" tests/afl_mutator_driver.c -ldl; then
  echo "FAIL - afl_mutator_abi: tests/afl_mutator_driver.c does not build"; fail=1
else
  ok=1
  "$tmp/driver" "$lib" 1 3000 "$seed" > "$tmp/a" 2> "$tmp/a.err" || { cat "$tmp/a.err"; ok=0; }
  "$tmp/driver" "$lib" 1 3000 "$seed" > "$tmp/b" 2>&1 || ok=0
  "$tmp/driver" "$lib" 2 3000 "$seed" > "$tmp/c" 2>&1 || ok=0
  cmp -s "$tmp/a" "$tmp/b" || { echo "  seed 1 twice: two different runs"; ok=0; }
  [ "$(head -1 "$tmp/a")" != "$(head -1 "$tmp/c")" ] || { echo "  seeds 1 and 2: the same outputs"; ok=0; }
  ops=$(grep -c '^ptm-' "$tmp/a")
  [ "$ops" = 14 ] || { echo "  $ops of 14 operators applied:"; cat "$tmp/a"; ok=0; }
  if [ $ok = 1 ]; then echo "ok - afl_mutator_abi: 14 operators in 3000 calls, the same outputs for the same seed"
  else echo "FAIL - afl_mutator_abi"; fail=1; fi
fi

if ! command -v afl-fuzz > /dev/null; then
  echo "skip - afl_fuzz_with_mutator: afl++ is not installed"
elif [ ! -x "$b/afl/fuzz_stream" ] || [ ! -f "$lib" ]; then
  echo "FAIL - afl_fuzz_with_mutator: $b/afl/fuzz_stream or $lib was not built"; fail=1
else
  AFL_CUSTOM_MUTATOR_LIBRARY=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib") AFL_CUSTOM_MUTATOR_ONLY=1 \
    AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
    afl-fuzz -V 6 -i "$tmp/in" -o "$tmp/out" -- "$b/afl/fuzz_stream" > "$tmp/afl.log" 2>&1
  st=$?
  stats=$tmp/out/default/fuzzer_stats
  execs=$(sed -n 's/^execs_done *: *//p' "$stats" 2>/dev/null)
  crashes=$(sed -n 's/^saved_crashes *: *//p' "$stats" 2>/dev/null)
  made=$(ls "$tmp/out/default/queue" 2>/dev/null | grep -c 'ptm-')
  if [ "$st" = 0 ] && [ "${execs:-0}" -gt 0 ] && [ "$crashes" = 0 ] && [ "$made" -gt 0 ]; then
    echo "ok - afl_fuzz_with_mutator: $execs executions, $made queue entries made by the mutator"
  else
    tail -20 "$tmp/afl.log"; echo "FAIL - afl_fuzz_with_mutator (status $st, $execs executions, $crashes crashes, $made made)"; fail=1
  fi
fi

if [ ! -x "$b/libfuzzer/fuzz_stream+ptm" ]; then
  echo "skip - libfuzzer_with_mutator: clang with libFuzzer is not installed"
else
  mkdir -p "$tmp/lf"
  "$b/libfuzzer/fuzz_stream+ptm" -runs=20000 -seed=1 -max_len=4096 "$tmp/lf" "$tmp/in" > "$tmp/lf.log" 2>&1
  st=$?
  custom=$(grep -c 'MS: [0-9]* Custom' "$tmp/lf.log")
  if [ "$st" = 0 ] && [ "$custom" -gt 0 ]; then echo "ok - libfuzzer_with_mutator: $custom inputs kept from the custom mutator"
  else tail -20 "$tmp/lf.log"; echo "FAIL - libfuzzer_with_mutator (status $st)"; fail=1; fi
fi
exit $fail

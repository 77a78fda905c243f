#!/bin/sh
# make coverage: clang source-based coverage of ptcodec.h over the unit
# tests and the replay of every corpus file through its fuzz target.
# Prints line and branch coverage of ptcodec.h, all together and for each
# fuzz target's corpus alone, and writes the lines never run to
# OUT/uncovered.txt (llvm-cov show format).
# usage: tools/coverage.sh OUT "TESTS" "FUZZ_TARGETS"
set -eu
out=$1; tests=$2; targets=$3
cov=""
for v in "" -14; do command -v "llvm-cov$v" >/dev/null 2>&1 && command -v "llvm-profdata$v" >/dev/null 2>&1 && cov=$v; done
command -v "llvm-cov$cov" >/dev/null 2>&1 || { echo "coverage: llvm-cov and llvm-profdata are needed (Debian: llvm-14)"; exit 1; }
CLANG=${CLANG:-clang}
flags="-std=c99 -g -O0 -fprofile-instr-generate -fcoverage-mapping"
rm -rf "$out"; mkdir -p "$out/prof"
objs=""
for t in $tests; do
  libs=""; [ "$t" = test_libipt ] && libs=-lipt
  $CLANG $flags -o "$out/$t" "tests/$t.c" $libs
  objs="$objs -object $out/$t"
done
for t in $targets; do
  libs=""; [ "$t" = fuzz_diff_libipt ] && libs=-lipt
  $CLANG $flags -o "$out/$t" "fuzz/$t.c" fuzz/replay.c $libs
  objs="$objs -object $out/$t"
done
for t in $tests; do
  LLVM_PROFILE_FILE="$out/prof/$t.profraw" "$out/$t" SPEC.md > "$out/$t.log" 2>&1 || echo "coverage: $t failed (see $out/$t.log)"
done
for t in $targets; do
  LLVM_PROFILE_FILE="$out/prof/$t.profraw" "$out/$t" "corpus/$t" > "$out/$t.log" 2>&1 || echo "coverage: replay of $t failed"
done
"llvm-profdata$cov" merge -sparse -o "$out/all.profdata" "$out"/prof/*.profraw
# shellcheck disable=SC2086 # objs is a list of -object options
first=$(echo $objs | cut -d' ' -f2)
rest=$(echo $objs | cut -d' ' -f3-)
# shellcheck disable=SC2086
"llvm-cov$cov" report "$first" $rest -instr-profile="$out/all.profdata" -show-branch-summary ptcodec.h > "$out/report.txt"
# shellcheck disable=SC2086
"llvm-cov$cov" show "$first" $rest -instr-profile="$out/all.profdata" ptcodec.h > "$out/show.txt"
grep -E '^ *[0-9]+\| *0\|' "$out/show.txt" > "$out/uncovered.txt" || true
summary() { # label report
  awk -v l="$1" '/ptcodec.h/ { printf "%s: lines %s (%d of %d not run), branches %s (%d of %d not taken)\n", l, $10, $9, $8, $13, $12, $11 }' "$2"
}
for t in $targets; do
  "llvm-profdata$cov" merge -sparse -o "$out/$t.profdata" "$out/prof/$t.profraw"
  "llvm-cov$cov" report "$out/$t" -instr-profile="$out/$t.profdata" -show-branch-summary ptcodec.h > "$out/report-$t.txt"
  summary "  corpus/$t alone" "$out/report-$t.txt"
done
summary "ptcodec.h, unit tests and every corpus" "$out/report.txt"
echo "uncovered lines: $out/uncovered.txt"

#!/bin/sh
# fuzz/build.sh as OSS-Fuzz runs it (CC, CFLAGS, LIB_FUZZING_ENGINE, OUT),
# here with clang + libFuzzer + ASan/UBSan: every target of `make check`
# is built, has its dictionary, .options and a seed zip holding its whole
# corpus, and the binary runs 100 of those seeds, spread over the zip
# (tests/run.sh's replays run every one: all of them here took 380 s).
# usage: tests/test_ossfuzz.sh OUT_DIR BUILD/fuzz-targets
out=$1
targets=$2
if ! command -v zip >/dev/null 2>&1 || ! command -v unzip >/dev/null 2>&1; then
  echo "skip - ossfuzz_build: zip/unzip are not installed"; exit 0
fi
if ! command -v bash >/dev/null 2>&1; then echo "skip - ossfuzz_build: no bash"; exit 0; fi
rm -rf "$out"
if ! OUT="$out" CC=clang CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link" \
     LIB_FUZZING_ENGINE=-fsanitize=fuzzer bash fuzz/build.sh > "$out.log" 2>&1; then
  tail -20 "$out.log"; echo "FAIL - ossfuzz_build: fuzz/build.sh failed"; exit 1
fi
fail=0
while read -r t dict; do
  for f in "$out/$t" "$out/$t.dict" "$out/$t.options" "$out/${t}_seed_corpus.zip"; do
    [ -e "$f" ] || { echo "FAIL - ossfuzz_build: $f is missing"; fail=1; }
  done
  cmp -s "$out/$t.dict" "$dict" || { echo "FAIL - ossfuzz_build: $t.dict is not $dict"; fail=1; }
  [ $fail = 0 ] || continue
  rm -rf "$out/seeds-$t"; mkdir -p "$out/seeds-$t"
  unzip -q "$out/${t}_seed_corpus.zip" -d "$out/seeds-$t"
  n_zip=$(ls "$out/seeds-$t" | wc -l); n_dir=$(ls "corpus/$t" | wc -l)
  [ "$n_zip" = "$n_dir" ] || { echo "FAIL - ossfuzz_build: $t zip has $n_zip seeds, corpus/$t $n_dir"; fail=1; continue; }
  rm -rf "$out/some-$t"; mkdir -p "$out/some-$t"
  ls "$out/seeds-$t" | awk -v k=$(( (n_zip + 99) / 100 )) 'NR % k == 0' | while read -r f; do
    mv "$out/seeds-$t/$f" "$out/some-$t/"
  done
  if ! "$out/$t" -runs=0 "$out/some-$t" > "$out/run-$t.log" 2>&1; then
    tail -20 "$out/run-$t.log"; echo "FAIL - ossfuzz_build: $t crashed on its seeds"; fail=1
  fi
done < "$targets"
[ $fail = 0 ] && echo "ok - ossfuzz_build: $(wc -l < "$targets") targets with dictionaries, options and seed zips"
exit $fail

#!/bin/sh
# One fuzzing campaign, as fuzz/README.md's tables report them, then its
# finds merged: `-merge=1` of what the engine kept into corpus/TARGET.
#   libFuzzer (the default): the ASan+UBSan build for SECONDS of wall time
#     from corpus/TARGET. TARGET+ptm is TARGET with the PT-aware mutator
#     (fuzz/with_mutator.c), on TARGET's corpus.
#   --afl: AFL++ on both cores, from corpus/TARGET for SECONDS each: a main
#     instance (-M) with the cmplog build (-c) and a secondary (-S), both on
#     the ASan+UBSan AFL++ build, niced so that the day's work goes first.
# Its row goes into fuzz/campaigns.tsv, and fuzz/README.md's two tables are
# written again from it:
#   | version | target | engine | minutes | executions | exec/s | edges | features | found | merged |
#   | target | libFuzzer | libFuzzer, ptmutator | AFL++ -M/-S, cmplog |   (minutes and executions)
# "found" names the crash files the engine wrote (none: nothing; they are
# kept in BUILD/fuzz-work/TARGET-crashes, or -afl-crashes), and for AFL++
# the inputs it timed out on. The logs stay in BUILD/fuzz-work/.
# usage: fuzz/campaign.sh [--afl] TARGET SECONDS DICT [BUILD]
#   (make fuzz-run TARGET=... SECONDS=... [ENGINE=afl] runs it with the target's dictionary)
#        fuzz/campaign.sh --table    prints the campaigns' table from fuzz/campaigns.tsv
#        fuzz/campaign.sh --totals   prints the totals per target and engine
#        fuzz/campaign.sh --readme   writes fuzz/README.md's two tables again
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runs=fuzz/campaigns.tsv readme=fuzz/README.md

rows() { grep -v '^#' "$runs"; }

# Every campaign, from the rows of campaigns.tsv (tab-separated, '#' comments).
table() {
  echo '| version | target | engine | minutes | executions | exec/s | edges | features | found | merged |'
  echo '|---|---|---|---|---|---|---|---|---|---|'
  rows | awk -F '\t' '{ printf "| %s | `%s` |", $1, $2; for (i = 3; i <= 10; i++) printf " %s |", $i; print "" }'
}

# Minutes and executions summed per target, a column for each engine; a row
# that recorded no figure ('-') adds nothing to the sums.
totals() {
  echo '| target | libFuzzer | libFuzzer, ptmutator | AFL++ -M/-S, cmplog |'
  echo '|---|---:|---:|---:|'
  rows | awk -F '\t' '
    BEGIN { engines[1] = "libFuzzer"; engines[2] = "libFuzzer, ptmutator"; engines[3] = "AFL++ -M/-S, cmplog" }
    { if (!($2 in seen)) { seen[$2] = 1; targets[++n] = $2 }
      k = $2 SUBSEP $3; if ($4 != "-") min[k] += $4; if ($5 != "-") ex[k] += $5 }
    END { for (i = 1; i <= n; i++) { t = targets[i]; printf "| `%s` |", t
            for (e = 1; e <= 3; e++) { k = t SUBSEP engines[e]
              if (k in min) printf " %d min, %.0f |", min[k], ex[k]; else printf " - |" }
            print "" } }' | sort
}

# fuzz/README.md with the lines between each pair of markers made anew.
rewrite_between() { # MARKER COMMAND
  "$2" > "$readme.table"
  awk -v t="$readme.table" -v m="$1" '
    $0 ~ "^<!-- " m ": begin" { print; while ((getline l < t) > 0) print l; skip = 1; next }
    $0 ~ "^<!-- " m ": end" { skip = 0 }
    !skip' "$readme" > "$readme.new"
  rm -f "$readme.table"
  mv "$readme.new" "$readme"
}
rewrite_readme() { rewrite_between campaigns table; rewrite_between totals totals; }

case "${1:-}" in
  --table) table; exit 0 ;;
  --totals) totals; exit 0 ;;
  --readme) rewrite_readme; exit 0 ;;
  --afl) engine="AFL++ -M/-S, cmplog"; shift ;;
  *) engine=libFuzzer ;;
esac
t=$1 secs=$2 dict=$3 b=${4:-build}
case $t in *+ptm) engine="libFuzzer, ptmutator" ;; esac
target=${t%+ptm}
corpus=corpus/$target work=$b/fuzz-work/$t crashes=$b/fuzz-work/$t-crashes
case $engine in AFL*) crashes=$b/fuzz-work/$t-afl-crashes ;; esac # (not libFuzzer's finds)
mkdir -p "$crashes"
before=$(ls "$corpus" | wc -l)
status=0
started=$(date +%s)

# libFuzzer: the run's figures from the last status line and the Done line.
run_libfuzzer() {
  [ -x "$b/libfuzzer/$t" ] && [ -f "$dict" ] || { echo "campaign: $b/libfuzzer/$t or $dict is missing: run make fuzz" >&2; exit 2; }
  log=$work.log
  mkdir -p "$work"
  "$b/libfuzzer/$t" -max_total_time="$secs" -max_len=4096 -dict="$dict" -artifact_prefix="$crashes/" \
    "$work" "$corpus" > "$log" 2>&1 || status=$?
  elapsed=$(( $(date +%s) - started ))
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  edges=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  features=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  execs=$(sed -n 's/^Done \([0-9]*\) runs in .*/\1/p' "$log" | tail -1)
  # (a crash ends libFuzzer early, with no Done line: the runs so far)
  [ -n "$execs" ] || execs=$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
  found=$(ls "$crashes" | tr '\n' ' ' | sed 's/ $//')
  merge_from=$work
}

# One value of an AFL++ instance's fuzzer_stats.
afl_stat() { sed -n "s/^$2 *: *//p" "$1/fuzzer_stats"; }

# AFL++: two instances side by side; executions summed, edges the larger
# count; crashes copied to a folder of their own, time-outs counted.
run_afl() {
  for f in "$b/afl/$target" "$b/afl/$target.cmplog" "$dict"; do
    [ -e "$f" ] || { echo "campaign: $f is missing: run make fuzz (AFL++ must be installed)" >&2; exit 2; }
  done
  out=$work.afl log=$work.afl.log
  rm -rf "$out"
  set -- AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
  env "$@" nice afl-fuzz -M main -c "$b/afl/$target.cmplog" -x "$dict" -t 1000+ -V "$secs" \
    -i "$corpus" -o "$out" -- "$b/afl/$target" > "$log" 2>&1 &
  main=$!
  sleep 5 # (the secondary finds the output folder the main one made)
  env "$@" nice afl-fuzz -S second -x "$dict" -t 1000+ -V "$secs" \
    -i "$corpus" -o "$out" -- "$b/afl/$target" > "$log.second" 2>&1 || status=$?
  wait "$main" || status=$?
  elapsed=$(( $(date +%s) - started ))
  execs=0 edges=0 hangs=0
  for i in main second; do
    [ -f "$out/$i/fuzzer_stats" ] || { echo "campaign: AFL++'s $i instance wrote no statistics (see $log)" >&2; exit 1; }
    execs=$(( execs + $(afl_stat "$out/$i" execs_done) ))
    e=$(afl_stat "$out/$i" edges_found); [ "$e" -le "$edges" ] || edges=$e
    hangs=$(( hangs + $(ls "$out/$i/hangs" | grep -c '^id:' || true) ))
    for c in "$out/$i"/crashes/id:*; do
      [ -e "$c" ] && cp "$c" "$crashes/afl-$i-$(basename "$c" | cut -d, -f1 | tr : -)"
    done
  done
  features=-
  found=$(ls "$crashes" | tr '\n' ' ' | sed 's/ $//')
  [ "$hangs" = 0 ] || found="${found:+$found, }$hangs time-outs (in $out/*/hangs)"
  merge_from=$work.afl-queue
  rm -rf "$merge_from"
  for i in main second; do mkdir -p "$merge_from/$i"; cp "$out/$i"/queue/id:* "$merge_from/$i/"; done
}

if [ "$engine" = "AFL++ -M/-S, cmplog" ]; then run_afl; else run_libfuzzer; fi
[ -x "$b/libfuzzer/$target" ] || make -s "$b/libfuzzer/$target"
"$b/libfuzzer/$target" -merge=1 "$corpus" "$merge_from" > "$work.merge.log" 2>&1
merged=$(( $(ls "$corpus" | wc -l) - before ))
version=$(sed -n 's/^#define PTCODEC_VERSION_STRING "\(.*\)"/\1/p' ptcodec.h)
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$version" "$target" "$engine" "$(( (elapsed + 30) / 60 ))" "$execs" \
  "$(( execs / (elapsed > 0 ? elapsed : 1) ))" "$edges" "$features" "${found:-nothing}" "$merged" >> "$runs"
rewrite_readme
table | tail -1
[ "$status" = 0 ] || [ -n "$found" ] || { echo "campaign: the engine exited $status (see $log)" >&2; exit 1; }

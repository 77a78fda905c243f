#!/bin/sh
# Does the PT-aware mutator help? The same libFuzzer harness, built as it
# is (byte-level mutation) and with harness/ptmutator.h (<target>+ptm), runs
# ROUNDS times each for SECONDS from the same seeds (SEEDS, a folder or one
# file; default corpus/TARGET), with the same -seed per round; the two builds of a round run side
# by side, so that both see the same machine. Prints each run's edges,
# features and executions (libFuzzer's last status line), their means and
# the ratio of the means. Not part of make check: it takes ROUNDS x SECONDS.
# usage: fuzz/compare_mutators.sh TARGET SECONDS ROUNDS [SEEDS [BUILD]]
#   e.g. fuzz/compare_mutators.sh fuzz_libipt22 600 3   (make fuzz-libipt22 first)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ $# -ge 3 ] || { echo "usage: $0 TARGET SECONDS ROUNDS [SEEDS [BUILD]]" >&2; exit 2; }
t=$1 secs=$2 rounds=$3 seeds=${4:-corpus/$1} b=${5:-build}
for bin in "$b/libfuzzer/$t" "$b/libfuzzer/$t+ptm"; do
  [ -x "$bin" ] || { echo "compare_mutators: $bin is missing (make $bin)" >&2; exit 2; }
done
[ -e "$seeds" ] || { echo "compare_mutators: $seeds is missing" >&2; exit 2; }
work=$b/compare/$t-$(basename "$seeds")
rm -rf "$work"
mkdir -p "$work"
if [ -f "$seeds" ]; then # one file: a folder of its own (libFuzzer fuzzes from folders)
  mkdir -p "$work/seeds" && cp "$seeds" "$work/seeds/" && seeds=$work/seeds
fi

# edges, features and executions from a libFuzzer log's last status line
last_status() {
  grep -E '^#[0-9]+' "$1" | tail -1 | sed -n 's/^#\([0-9]*\).* cov: \([0-9]*\) ft: \([0-9]*\).*/\2 \3 \1/p'
}

echo "target $t, $rounds rounds of $secs s, seeds from $seeds ($(ls "$seeds" | wc -l) files)"
echo "round mutator edges features executions"
r=1
while [ "$r" -le "$rounds" ]; do
  for kind in bytes ptm; do
    bin=$b/libfuzzer/$t
    [ "$kind" = ptm ] && bin=$bin+ptm
    mkdir -p "$work/$kind-$r" "$work/crashes-$kind-$r"
    "$bin" -seed="$r" -max_total_time="$secs" -max_len=4096 -dict=fuzz/ptcodec.dict \
      -artifact_prefix="$work/crashes-$kind-$r/" "$work/$kind-$r" "$seeds" > "$work/$kind-$r.log" 2>&1 &
  done
  wait || true
  for kind in bytes ptm; do
    set -- $(last_status "$work/$kind-$r.log")
    echo "$r $kind $1 $2 $3" | tee -a "$work/rows"
    found=$(ls "$work/crashes-$kind-$r")
    [ -z "$found" ] || echo "  found: $work/crashes-$kind-$r/$found"
  done
  r=$((r + 1))
done
awk '{ e[$2] += $3; f[$2] += $4; x[$2] += $5; n[$2]++ }
  END {
    for (k in n) printf "mean %s: %.0f edges, %.0f features, %.0f executions\n", k, e[k] / n[k], f[k] / n[k], x[k] / n[k]
    if (n["bytes"] && e["bytes"] && f["bytes"])
      printf "ptm / bytes: %.2fx edges, %.2fx features\n", e["ptm"] / e["bytes"], f["ptm"] / f["bytes"]
  }' "$work/rows"

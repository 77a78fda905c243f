#!/bin/sh
# One fuzzing campaign, as fuzz/README.md's table reports them: libFuzzer
# on TARGET for SECONDS of wall time from corpus/TARGET (ASan+UBSan build),
# then `-merge=1` of what it kept into corpus/TARGET, then the table's row
# on standard output:
#   | target | executions | exec/s | edges | features | found | merged |
# "found" names the crash files libFuzzer wrote (none: nothing). The log
# stays in BUILD/fuzz-work/TARGET.log.
# usage: fuzz/campaign.sh TARGET SECONDS DICT [BUILD]
#   (make fuzz-run TARGET=... SECONDS=... runs it with the target's dictionary)
set -eu
t=$1 secs=$2 dict=$3 b=${4:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -x "$b/libfuzzer/$t" ] && [ -f "$dict" ] || { echo "campaign: $b/libfuzzer/$t or $dict is missing: run make fuzz" >&2; exit 2; }
work=$b/fuzz-work/$t log=$b/fuzz-work/$t.log
mkdir -p "$work" "$b/fuzz-work/$t-crashes"
before=$(ls "corpus/$t" | wc -l)
status=0
"$b/libfuzzer/$t" -max_total_time="$secs" -max_len=4096 -dict="$dict" -artifact_prefix="$b/fuzz-work/$t-crashes/" \
  "$work" "corpus/$t" > "$log" 2>&1 || status=$?
runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 \2/p' "$log" | tail -1)
last=$(grep -E '^#[0-9]+' "$log" | tail -1)
edges=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
features=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
found=$(ls "$b/fuzz-work/$t-crashes" 2>/dev/null | tr '\n' ' ')
if [ -z "$runs" ]; then runs="$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p') $secs"; fi
"$b/libfuzzer/$t" -merge=1 "corpus/$t" "$work" > "$log.merge" 2>&1
merged=$(( $(ls "corpus/$t" | wc -l) - before ))
set -- $runs
printf '| `%s` | %s | %s | %s | %s | %s | %s |\n' "$t" "$1" "$(( $1 / ($2 > 0 ? $2 : 1) ))" "$edges" "$features" \
  "${found:-nothing}" "$merged"
[ "$status" = 0 ] || [ -n "$found" ] || { echo "campaign: libFuzzer exited $status (see $log)" >&2; exit 1; }

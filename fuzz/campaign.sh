#!/bin/sh
# One fuzzing campaign, as fuzz/README.md's table reports them: libFuzzer
# on TARGET for SECONDS of wall time from corpus/TARGET (ASan+UBSan build),
# then `-merge=1` of what it kept into corpus/TARGET. TARGET+ptm is TARGET
# with the PT-aware mutator (fuzz/with_mutator.c), on TARGET's corpus. Its row goes into
# fuzz/campaigns.tsv, and fuzz/README.md's table is written again from it:
#   | version | target | minutes | executions | exec/s | edges | features | found | merged |
# "found" names the crash files libFuzzer wrote (none: nothing). The log
# stays in BUILD/fuzz-work/TARGET.log.
# usage: fuzz/campaign.sh TARGET SECONDS DICT [BUILD]
#   (make fuzz-run TARGET=... SECONDS=... runs it with the target's dictionary)
#        fuzz/campaign.sh --table   prints the table from fuzz/campaigns.tsv
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runs=fuzz/campaigns.tsv readme=fuzz/README.md

# The table, from the rows of campaigns.tsv (tab-separated, '#' comments).
table() {
  echo '| version | target | minutes | executions | exec/s | edges | features | found | merged |'
  echo '|---|---|---|---|---|---|---|---|---|'
  grep -v '^#' "$runs" | awk -F '\t' '{ printf "| %s | `%s` |", $1, $2; for (i = 3; i <= 9; i++) printf " %s |", $i; print "" }'
}

# fuzz/README.md with the lines between its two markers made by table().
rewrite_readme() {
  table > "$readme.table"
  awk -v t="$readme.table" '
    /^<!-- campaigns: begin/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
    /^<!-- campaigns: end/ { skip = 0 }
    !skip' "$readme" > "$readme.new"
  rm -f "$readme.table"
  mv "$readme.new" "$readme"
}

if [ "${1:-}" = --table ]; then table; exit 0; fi
t=$1 secs=$2 dict=$3 b=${4:-build}
[ -x "$b/libfuzzer/$t" ] && [ -f "$dict" ] || { echo "campaign: $b/libfuzzer/$t or $dict is missing: run make fuzz" >&2; exit 2; }
work=$b/fuzz-work/$t log=$b/fuzz-work/$t.log corpus=corpus/${t%+ptm}
mkdir -p "$work" "$b/fuzz-work/$t-crashes"
before=$(ls "$corpus" | wc -l)
status=0
started=$(date +%s)
"$b/libfuzzer/$t" -max_total_time="$secs" -max_len=4096 -dict="$dict" -artifact_prefix="$b/fuzz-work/$t-crashes/" \
  "$work" "$corpus" > "$log" 2>&1 || status=$?
elapsed=$(( $(date +%s) - started ))
done_line=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 \2/p' "$log" | tail -1)
last=$(grep -E '^#[0-9]+' "$log" | tail -1)
edges=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
features=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
found=$(ls "$b/fuzz-work/$t-crashes" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
# (a crash ends libFuzzer early, with no Done line: the runs so far, in the time it ran)
if [ -z "$done_line" ]; then done_line="$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\).*/\1/p') $elapsed"; fi
"$b/libfuzzer/$t" -merge=1 "$corpus" "$work" > "$log.merge" 2>&1
merged=$(( $(ls "$corpus" | wc -l) - before ))
set -- $done_line
version=$(sed -n 's/^#define PTCODEC_VERSION_STRING "\(.*\)"/\1/p' ptcodec.h)
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$version" "$t" "$(( ($2 + 30) / 60 ))" "$1" \
  "$(( $1 / ($2 > 0 ? $2 : 1) ))" "$edges" "$features" "${found:-nothing}" "$merged" >> "$runs"
rewrite_readme
table | tail -1
[ "$status" = 0 ] || [ -n "$found" ] || { echo "campaign: libFuzzer exited $status (see $log)" >&2; exit 1; }

#!/bin/sh
# ptdump's speed (make bench; bench/README.md "Tools"): a 64 MiB trace from
# ptgen printed as text, as JSON lines, as --stats, with --time (text) and
# with --check, on one thread and on two (-j), best of three runs each, and
# the library's batch decoder on the same file (bench_decode --stream), which
# --stats should keep up with.
# With a second ptdump (an older build, say), its one-thread speed too, and
# how many times faster this one is.
# usage: bench/bench_tools.sh BUILD_DIR [OTHER_PTDUMP]   (BUILD_DIR holds ptdump, ptgen, bench_decode)
b=$1
other=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
size=67108864
"$b/ptgen" --mix dense --bytes $size --seed 1 -o "$tmp/t.pt" || exit 1
bytes=$(wc -c < "$tmp/t.pt" | tr -d ' ')

# best of three wall-clock seconds of a command, its output thrown away
best() {
  best_s=""
  for run in 1 2 3; do
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>&1
    t1=$(date +%s.%N)
    best_s=$(awk -v a="$t0" -v b="$t1" -v m="$best_s" 'BEGIN { d = b - a; if (m == "" || d < m) m = d; print m }')
  done
  echo "$best_s"
}
mbs() { awk -v n="$bytes" -v s="$1" 'BEGIN { printf "%.0f", n / s / 1e6 }'; }

echo "ptdump on a $((size >> 20)) MiB trace (ptgen --mix dense --seed 1), MB/s, best of 3"
echo
printf '%-10s %10s %10s %12s' "output" "-j 1" "-j 2" "-j 2 / -j 1"
[ -n "$other" ] && printf ' %12s %14s' "other" "-j 1 / other"
echo
for mode in text jsonl stats time check; do
  case $mode in text) opt="";; jsonl) opt="--jsonl";; stats) opt="--stats";; time) opt="--time";; check) opt="--check";; esac
  s1=$(best "$b/ptdump" -j 1 $opt "$tmp/t.pt")
  s2=$(best "$b/ptdump" -j 2 $opt "$tmp/t.pt")
  printf '%-10s %10s %10s %11.2fx' "$mode" "$(mbs "$s1")" "$(mbs "$s2")" "$(awk -v a="$s1" -v b="$s2" 'BEGIN { print a / b }')"
  if [ -n "$other" ]; then
    s0=$(best "$other" $opt "$tmp/t.pt")
    printf ' %12s %13.2fx' "$(mbs "$s0")" "$(awk -v a="$s0" -v b="$s1" 'BEGIN { print a / b }')"
  fi
  echo
done
echo
echo "The library on the same file (bench_decode --stream):"
"$b/bench_decode" --stream "$tmp/t.pt" | grep -E '^(decoder|ptcodec batch)'

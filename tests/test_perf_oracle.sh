#!/bin/sh
# Linux perf as an outside reader of perf.data (SPEC.md part 6): on every
# perf.data ptsim writes (each workload, CYC off and on, two hardware
# threads) and on the real file-mode recordings in shared/pt-traces-timed,
# `perf report -D` must list the same packets, at the same offsets, as
# ptdump. PADs are left out (perf prints their bytes on the line of the
# packet before them). Not the AUX-sample recordings: perf -D decodes each
# sample from its first byte without looking for a PSB, ptdump from its
# first PSB. On the real recordings perf's time for each packet must also
# be no later than ptdump --time's interval (perf_times_not_past below).
# Skips when perf is not installed.
# usage: tests/test_perf_oracle.sh BUILD_DIR
b=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v perf >/dev/null 2>&1 || ! perf version >/dev/null 2>&1; then
  echo "skip - perf_lists_the_same_packets: perf (Debian's linux-perf) is not installed"; exit 0
fi
# (offset packet) lines, offsets in decimal, from each side
hexfn='function hex(s,   i, v) { v = 0; s = tolower(s); for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }'
perf_packets() {
  perf report -D -i "$1" 2>/dev/null | awk "$hexfn"'
    /^\.  [0-9a-f]+:  / && length($2) == 9 {
      split(substr($0, 63), a, " "); n = tolower(a[1])
      if (n == "ptwrite") n = "ptw"; if (n == "tracestop") n = "stop"
      if (n != "pad") print hex(substr($2, 1, 8)), n }'
}
ptdump_packets() {
  "$b/ptdump" "$1" | awk "$hexfn"'!/^\[/ { n = $2; if (n ~ /^tnt/) n = "tnt"; if (n != "pad") print hex($1), n }'
}
failed=0
# perf's time for every packet its decoder reaches (the last timestamp it
# set, the packet's own when it sets one; its log, one queue at a time)
# against ptdump --time's interval for that packet. perf's time comes from
# the timing packets up to the packet, so it cannot be later than the
# packet: past the interval's upper bound it would show the interval too
# tight (or perf wrong), and fails. Below the lower bound is no fault:
# ptcodec also bounds a packet by the timing packets after it, and puts a
# CYC at the packet it times, where perf keeps its older estimate. Those
# are counted, not failed. Not TNTs: a TNT's interval is its first
# branch's, which may come before timing packets perf counts before the
# TNT packet.
perf_times_not_past() { # label file
  abs=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") # (perf writes its log where it runs)
  (cd "$tmp" && rm -f intel_pt.log && perf script -F time --itrace=d -i "$abs" > /dev/null 2>&1)
  "$b/ptdump" --time "$2" > "$tmp/timed.txt"
  awk "$hexfn"'
    FNR == 1 { file++ }
    file == 1 && /^queue [0-9]+ (decoding|processing|getting)/ { q = $2; next }
    file == 1 && /^Setting timestamp to 0x/ { now[q] = hex(substr($4, 3)); if (last_q == q && last != "") t[last] = now[q]; next }
    file == 1 && /^  [0-9a-f]+:  / && length($1) == 9 { last = ""
      if (q in now) { last = q SUBSEP hex(substr($1, 1, 8)); last_q = q; t[last] = now[q] }
      next }
    file == 2 && /^\[perf.data queue / { q = $3; next }
    file == 2 && / time [0-9a-f]+ \[/ && $2 !~ /^tnt/ && (q SUBSEP hex($1)) in t {
      for (i = 1; i < NF && $i != "time"; i++) {}
      lo = $(i + 2); gsub(/[[,]/, "", lo); lo = hex(lo); h = $(i + 3); sub(/\]$/, "", h); p = t[q, hex($1)]; n++
      if (p < lo) below++; else if (h != "?" && p > hex(h)) above++ }
    END { printf "%d %d %d\n", n, below + 0, above + 0 }' "$tmp/intel_pt.log" "$tmp/timed.txt" > "$tmp/inside.txt"
  read -r n below above < "$tmp/inside.txt"
  if [ "$n" -gt 10 ] && [ "$above" = 0 ]; then
    echo "ok - perf_times_not_past_ptcodec_intervals: $1 ($n packets; $below before their interval)"
  else
    echo "FAIL - perf_times_not_past_ptcodec_intervals: $1: of $n packets perf timed, $above past the interval"
    failed=1
  fi
}
compare() { # label file
  perf_packets "$2" > "$tmp/perf.txt"
  ptdump_packets "$2" > "$tmp/ptc.txt"
  n=$(wc -l < "$tmp/ptc.txt")
  if [ "$n" -gt 10 ] && cmp -s "$tmp/perf.txt" "$tmp/ptc.txt"; then echo "ok - perf_lists_the_same_packets: $1 ($n packets)"
  else
    echo "FAIL - perf_lists_the_same_packets: $1 (perf $(wc -l < "$tmp/perf.txt"), ptdump $n)"
    diff "$tmp/perf.txt" "$tmp/ptc.txt" | head -6 | sed 's/^/  /'
    failed=1
  fi
}
# perf's decoder takes $tmp/s.data: its only complaint is that the synthetic
# code has no image, and its log shows it timing the trace
perf_decodes() { # label
  (cd "$tmp" && rm -f intel_pt.log && perf script -F time --itrace=d -i s.data > /dev/null 2> perf.err); st=$?
  other=$(grep '^ERROR' "$tmp/intel_pt.log" 2>/dev/null | grep -v 'has no map for\|Failed to get instruction' | head -1)
  if [ $st = 0 ] && [ -z "$other" ] && grep -q 'Setting timestamp' "$tmp/intel_pt.log"; then
    echo "ok - perf_decodes_without_error: $1"
  else echo "FAIL - perf_decodes_without_error: $1: status $st, $other $(head -2 "$tmp/perf.err")"; failed=1; fi
}
for w in dense sparse filtered ptwrite idle dvfs mixed; do
  for cyc in 0 1; do
    "$b/ptsim" --quiet --workload $w --cycles 2000000 --set cyc_en=$cyc --threads 2 -o "$tmp/s.pt" --perf-data "$tmp/s.data" ||
      { echo "FAIL - perf_lists_the_same_packets: ptsim $w"; failed=1; continue; }
    compare "$w, cyc_en=$cyc, 2 queues" "$tmp/s.data"
    perf_decodes "$w, cyc_en=$cyc"
  done
done
# snapshot mode: overlapping copies of the AUX ring (perf finds the overlaps
# itself, so its -D listing is not ptdump's, whose copies are read each alone)
if "$b/ptsim" --quiet --workload dense --cycles 2000000 --set cyc_en=1 --threads 2 -o "$tmp/s.pt" --perf-data "$tmp/s.data" \
     --perf-snapshot 16384,6000; then perf_decodes "dense in snapshot mode"
else echo "FAIL - perf_decodes_without_error: ptsim in snapshot mode"; failed=1; fi
shared=""
for d in "${PTCODEC_SHARED:-}" ../shared /work/shared; do [ -n "$d" ] && [ -d "$d/pt-traces-timed" ] && { shared=$d; break; }; done
if [ -n "$shared" ]; then
  for f in google_perf_data_converter__perf.data.intel_pt-4.14 farzamdorostkar_tmon__perf.data; do
    [ -f "$shared/pt-traces-timed/$f" ] || continue
    compare "$f" "$shared/pt-traces-timed/$f"
    perf_times_not_past "$f" "$shared/pt-traces-timed/$f"
  done
else
  echo "skip - perf_lists_the_same_packets on real recordings: shared/pt-traces-timed is not there"
fi
[ $failed = 0 ]

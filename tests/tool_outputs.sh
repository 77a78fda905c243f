#!/bin/sh
# The tools' outputs on the real traces and on the model's workloads, one
# file per run, for comparing two builds of ptdump, ptsim, ptnav and ptgen
# byte for byte (a change that should change nothing a user sees):
#   sh tests/tool_outputs.sh OLD_BIN_DIR /tmp/out_old
#   sh tests/tool_outputs.sh NEW_BIN_DIR /tmp/out_new
#   diff -r /tmp/out_old /tmp/out_new
# ptsim's lines name the output directory and its speed: those differ.
# Needs ../shared (the real traces); not part of make check.
b=$1 o=$2 s=${SHARED:-$(dirname "$0")/../../shared}
[ -n "$b" ] && [ -n "$o" ] || { echo "usage: $0 BIN_DIR OUT_DIR" >&2; exit 2; }
[ -d "$s/pt-traces" ] || { echo "$0: $s/pt-traces is missing (set SHARED)" >&2; exit 2; }
rm -rf "$o" && mkdir -p "$o" || exit 2
n=0
run() { n=$((n + 1)); name=$1; shift; "$@" > "$o/$name.out" 2> "$o/$name.err"; echo $? > "$o/$name.rc"; }
clock="--mtc-freq 3 --nom-freq 24 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 200"
for f in "$s"/pt-traces/*.pt "$s"/pt-traces-timed/*.bin; do
  t=$(basename "$f")
  run "$t.plain" "$b/ptdump" -j 1 "$f"
  run "$t.check" "$b/ptdump" --check "$f"
  run "$t.checkcpu" "$b/ptdump" --check --cpu 6/85 "$f"
  run "$t.time" "$b/ptdump" --time "$f"
  run "$t.timeclk" "$b/ptdump" --time --check $clock "$f"
  run "$t.timethr" "$b/ptdump" --time --cyc-thresh 2 $clock "$f"
  run "$t.events" "$b/ptdump" --events $clock "$f"
  run "$t.pol" "$b/ptdump" --check --policy seed --mtc-freq 3 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 200 "$f"
done
for f in "$s"/pt-traces-timed/*perf.data*; do
  t=$(basename "$f")
  run "$t.plain" "$b/ptdump" "$f"
  run "$t.time" "$b/ptdump" --time "$f"
  run "$t.check" "$b/ptdump" --check "$f"
  run "$t.checkpol" "$b/ptdump" --check --policy seed "$f"
done
for w in dense sparse mixed idle ptwrite; do
  for set in "" "cyc_en=1,cyc_thresh=3" "mtc_lost=2,mtc_jitter=3,rate_ppm=2000" "skl168=1,cyc_en=1" \
             "filter=0x401000-0x402000,psb_freq=2"; do
    t=$w.$(echo "$set" | tr '=,' '__')
    run "sim.$t" "$b/ptsim" --workload $w --cycles 300000 ${set:+--set $set} --policy seed --truth "$o/$t.truth" -o "$o/$t.pt"
    run "simj.$t" cat "$o/$t.pt.json"
    run "simt.$t" sh -c 'cksum < "$1"' - "$o/$t.truth"
    run "d.$t" "$b/ptdump" --config "$o/$t.pt.json" --time --check "$o/$t.pt"
    run "e.$t" "$b/ptdump" --config "$o/$t.pt.json" --events "$o/$t.pt"
    run "n.$t" "$b/ptnav" --config "$o/$t.pt.json" --tsc 0x1010000 "$o/$t.pt"
    run "r.$t" "$b/ptnav" --config "$o/$t.pt.json" --retire 1000 "$o/$t.pt"
    rm -f "$o/$t.pt" "$o/$t.truth"
  done
done
run gen "$b/ptgen" --seed 5 --bytes 20000 -o "$o/gen.pt"
run gend "$b/ptdump" --check --time "$o/gen.pt"
echo "$n runs into $o"

#!/bin/sh
# Writes the seed corpora of the fuzz targets from ptcodec's own encoder
# (tools/ptgen: one file per packet type, and mixed streams) and its
# hardware model (tools/ptsim: every workload under four suppression
# policies, with and without CYC), and for the model-driven targets one
# workload program per workload and policy kind (fuzz/gen_model_seeds.c).
# Seeds are deterministic; what the fuzzers found lives beside them as
# found-<what>.
# usage: fuzz/gen_seeds.sh PTGEN PTSIM GEN_MODEL_SEEDS CORPUS_DIR
set -eu
ptgen=$1
ptsim=$2
genmodel=$3
corpus=$4
types="pad psb psbend tnt8 tnt64 tip tip_pge tip_pgd fup mode_exec mode_tsx pip vmcs ovf tsc tma
mtc cyc cbr mnt ptw exstop mwait pwre pwrx stop bbp bip bep cfe evd trig"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in $types; do "$ptgen" --one "$t" -o "$tmp/one-$t"; done
for mix in all dense sparse; do
  for seed in 1 2 3; do
    "$ptgen" --mix $mix --seed $seed --bytes $((seed * 700)) --psb-every 512 -o "$tmp/stream-$mix-$seed"
  done
done
# model traces: the first 4 KiB of every workload under every policy
i=0
for w in dense sparse filtered ptwrite idle dvfs mixed; do
  for pol in off seed threshold=3,resume_value=0,resume_after=0 threshold=1,resume_after=16,min_burst=3; do
    i=$((i + 1))
    "$ptsim" --quiet --workload $w --policy $pol --set cyc_en=$((i % 2)) --cycles 3000000 -o "$tmp/sim.pt"
    head -c 4096 "$tmp/sim.pt" > "$tmp/model-$w-$i"
  done
done
rm -f "$tmp/sim.pt" "$tmp/sim.pt.json"
# fuzz_model, fuzz_clock, fuzz_checker, fuzz_nav, fuzz_events,
# fuzz_libipt22_time: any bytes are a workload program (their last bytes the
# settings; fuzz_events takes some as raw bytes instead); the streams' first
# 600 bytes make varied ones
for t in fuzz_model fuzz_clock fuzz_checker fuzz_nav fuzz_events fuzz_libipt22_time; do
  mkdir -p "$corpus/$t"
  for f in "$tmp"/stream-*; do head -c 600 "$f" > "$corpus/$t/program-$(basename "$f")"; done
  "$genmodel" "$corpus/$t"
done
# fuzz_stream, fuzz_diff_libipt, fuzz_libipt22, fuzz_mutator: the streams
# themselves (all but fuzz_diff_libipt take their parameters from the last
# bytes); fuzz_events: those it reads as bytes
for f in "$tmp"/model-*; do cp "$f" "$corpus/fuzz_events/bytes-$(basename "$f")"; done
for t in fuzz_stream fuzz_diff_libipt fuzz_libipt22 fuzz_mutator; do
  mkdir -p "$corpus/$t"
  for f in "$tmp"/*; do cp "$f" "$corpus/$t/"; done
done
mkdir -p "$corpus/fuzz_roundtrip"
# fuzz_roundtrip: the last byte picks the mode (0 bytes, 1 structured, 2 raw struct)
for f in "$tmp"/*; do
  b=$(basename "$f")
  for mode in 0 1 2; do
    cp "$f" "$corpus/fuzz_roundtrip/$b-mode$mode"
    printf "\\$(printf %o $mode)" >> "$corpus/fuzz_roundtrip/$b-mode$mode"
  done
done
# fuzz_perfdata: perf.data files ptsim writes (small runs, one and two
# queues, CYC on and off), under the 4 KiB the campaigns use
mkdir -p "$corpus/fuzz_perfdata"
i=0
for w in dense sparse ptwrite dvfs; do
  for th in 1 2; do
    i=$((i + 1))
    "$ptsim" --quiet --workload $w --policy off --set cyc_en=$((i % 2)),psb_freq=0 --cycles 12000 --threads $th \
      -o "$tmp/sim.pt" --perf-data "$corpus/fuzz_perfdata/ptsim-$w-$th.data"
  done
done
# snapshot mode: a queue's AUX ring copied out several times, overlapping
"$ptsim" --quiet --workload dense --policy off --set cyc_en=1,psb_freq=0 --cycles 12000 \
  -o "$tmp/sim.pt" --perf-data "$corpus/fuzz_perfdata/ptsim-dense-snapshot.data" --perf-snapshot 500,300
# and the structures ptsim does not write (pipe mode, AUX samples, sideband)
python3 "$(dirname "$0")/gen_perf_seeds.py" "$corpus/fuzz_perfdata/ptsim-dense-1.data" "$corpus/fuzz_perfdata"
# fuzz_x86: instruction bytes one after another, then a mode byte (0: 64-bit,
# 1: 32-bit, 2: 16-bit): every change-of-flow class, with and without
# prefixes; VEX, EVEX, XOP and REX2 (with JMPABS); x87; cut short at the end
mkdir -p "$corpus/fuzz_x86"
x86=$corpus/fuzz_x86
printf '\164\005\017\205\360\377\377\377\343\376\353\376\351\000\001\000\000\000' > "$x86/seed-jumps"
printf '\350\373\377\377\377\377\320\101\377\323\076\377\322\303\362\303\302\010\000\000' > "$x86/seed-calls-rets"
printf '\313\110\317\017\007\017\005\017\064\314\315\200\017\001\301\017\001\302\363\017\001\354\000' > "$x86/seed-far-kernel"
printf '\363\244\363\110\245\362\256\244\220\110\211\345\363\017\036\372\363\017\256\040\017\042\330\307\370\020\000\000\000\000' > "$x86/seed-rep-pt"
printf '\305\370\167\305\375\160\301\001\142\361\165\110\376\100\001\217\350\170\242\301\040\331\376\000' > "$x86/seed-vex-evex-xop-x87"
printf '\325\100\001\300\325\000\241\210\167\146\125\104\063\042\021\142\364\174\030\203\300\001\000' > "$x86/seed-apx"
printf '\316\232\001\002\003\004\005\006\146\350\000\020\326\001' > "$x86/seed-32bit"
printf '\017\205\020\000\213\000\146\351\000\000\001\000\002' > "$x86/seed-16bit"
printf '\350\000\000\164\002\017\205\000\000\377\000' > "$x86/seed-cut"
# fuzz_flow: hand-assembled code and traces of it (fuzz/gen_flow_seeds.c,
# built beside gen_model_seeds)
mkdir -p "$corpus/fuzz_flow"
"$(dirname "$3")/gen_flow_seeds" "$corpus/fuzz_flow"
# fuzz_image: ELF files, a page cache and lists of additions
mkdir -p "$corpus/fuzz_image"
python3 "$(dirname "$0")/gen_image_seeds.py" "$corpus/fuzz_image"
# fuzz_config: the configuration files ptsim writes (default, filtered with
# a policy and CYC, a snapshot ring's), one laid out on lines, and the
# smallest one
mkdir -p "$corpus/fuzz_config"
"$ptsim" --quiet -o "$tmp/c.pt" --cycles 20000 && cp "$tmp/c.pt.json" "$corpus/fuzz_config/seed-default.json"
"$ptsim" --quiet --workload filtered --policy threshold=3,resume_value=0 --set cyc_en=1,mtc_freq=4 -o "$tmp/c.pt" \
  --cycles 20000 && cp "$tmp/c.pt.json" "$corpus/fuzz_config/seed-filtered.json"
"$ptsim" --quiet --snapshot auto -o "$tmp/c.pt" --cycles 20000 && cp "$tmp/c.pt.json" "$corpus/fuzz_config/seed-ring.json"
sed 's/,"/,\n  "/g; s/{/{\n  /; s/}}/}\n}/' "$corpus/fuzz_config/seed-filtered.json" > "$corpus/fuzz_config/seed-lines.json"
printf '{ }' > "$corpus/fuzz_config/seed-empty.json"

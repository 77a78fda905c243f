#!/bin/sh
# Writes the seed corpora of the packet-layer fuzz targets from ptcodec's own
# encoder (tools/ptgen): one file per packet type, and mixed streams. Seeds
# are deterministic; crash reproducers live beside them as crash-<what>.
# usage: fuzz/gen_seeds.sh PTGEN CORPUS_DIR
set -eu
ptgen=$1
corpus=$2
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
# fuzz_stream: the stream itself; its last bytes double as parameters
mkdir -p "$corpus/fuzz_stream" "$corpus/fuzz_roundtrip" "$corpus/fuzz_model"
# fuzz_model: any bytes are an event program; the streams' first 600 bytes
# make varied ones
for f in "$tmp"/stream-*; do head -c 600 "$f" > "$corpus/fuzz_model/program-$(basename "$f")"; done
for f in "$tmp"/*; do cp "$f" "$corpus/fuzz_stream/"; done
# fuzz_roundtrip: the last byte picks the mode (0 bytes, 1 structured, 2 raw struct)
for f in "$tmp"/*; do
  b=$(basename "$f")
  for mode in 0 1 2; do
    cp "$f" "$corpus/fuzz_roundtrip/$b-mode$mode"
    printf "\\$(printf %o $mode)" >> "$corpus/fuzz_roundtrip/$b-mode$mode"
  done
done

#!/bin/sh
# ptdump's listing against libipt 2.2's ptdump, byte for byte (SPEC 1.10):
# on libipt's own test vectors (its .ptt files, assembled by its pttc, which
# needs yasm) and on every raw real trace in ../shared, with and without
# --no-sync. The differences SPEC 1.10 allows are taken out of both listings
# first: PWRE's hw bit (the two read different bits, SPEC 1.11) and the text
# of an error line (ptcodec names its own, finer status); the offset of every
# error stays compared. A vector where the two decoders read the bytes
# differently is named below with the section that says why.
# usage: tests/test_ptdump22.sh BUILD_DIR  (ptdump in BUILD_DIR/san)
b=${1:-build}
ours=$b/san/ptdump
l22=$b/libipt-2.2/b/bin
vectors=$b/libipt-2.2/test/src
fails=0
pass() { echo "ok - $1"; }
fail() { echo "FAIL - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -12 | sed 's/^/  /'; fails=$((fails + 1)); }
if [ ! -x "$l22/ptdump" ]; then
  echo "skip - ptdump_as_libipt22: libipt 2.2's ptdump is not built (make check builds it from ../shared/reference/libipt-2.2.tar.gz with cmake)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The listing with the allowed differences taken out.
normalized() { # tool file args...
  tool=$1 file=$2; shift 2
  "$tool" "$@" "$file" 2>/dev/null |
    sed -E -e 's/^([0-9a-f]{16}  pwre +c[0-9]+\.[0-9]+), hw$/\1/' \
           -e 's/^\[([0-9a-f]+): error decoding packet: .*\]$/[\1: error decoding packet]/'
}

# Compares one file both ways; prints the first lines that differ.
same_listing() { # file args...
  normalized "$l22/ptdump" "$@" > "$tmp/libipt.txt"
  normalized "$ours" "$@" > "$tmp/ours.txt"
  diff "$tmp/libipt.txt" "$tmp/ours.txt" > "$tmp/diff" && return 0
  return 1
}

# Vectors the decoders read differently, and why.
known_difference() { # vector name
  case $1 in
    ptdump-trunc-resync) # an MNT whose bytes would run into the PSB after it:
      # libipt decodes it through the PSB's first bytes, ptcodec stops with
      # psb_overlap and resumes at the PSB (SPEC 1.9 rule 2)
      return 0 ;;
  esac
  return 1
}

# libipt's vectors
if ! command -v yasm > /dev/null 2>&1 || [ ! -x "$l22/pttc" ] || [ ! -d "$vectors" ]; then
  echo "skip - ptdump_as_libipt22_vectors: libipt 2.2's pttc and yasm are needed to assemble its vectors (apt-get install yasm)"
else
  n=0 same=0
  pttc=$(cd "$l22" && pwd)/pttc
  vectors=$(cd "$vectors" && pwd)
  for ptt in "$vectors"/*.ptt; do
    name=$(basename "$ptt" .ptt)
    ( cd "$tmp" && "$pttc" "$ptt" > /dev/null 2>&1 )
    if [ ! -f "$tmp/$name.pt" ]; then fail "ptdump_as_libipt22_vector_$name" "pttc made no $name.pt"; continue; fi
    n=$((n + 1))
    if same_listing "$tmp/$name.pt" --no-sync && same_listing "$tmp/$name.pt"; then
      same=$((same + 1))
    elif known_difference "$name" && "$ours" "$tmp/$name.pt" 2>/dev/null | grep -q '(psb_overlap)\]$'; then
      same=$((same + 1))
    else
      fail "ptdump_as_libipt22_vector_$name" "$(cat "$tmp/diff")"
    fi
  done
  if [ "$n" -ge 200 ] && [ "$same" = "$n" ]; then pass "ptdump_as_libipt22_vectors: $n of libipt's vectors listed as its ptdump lists them"
  else fail "ptdump_as_libipt22_vectors" "$same of $n the same (at least 200 expected)"; fi
fi

# the real traces (raw ones: libipt's ptdump reads no perf.data)
shared=""
for d in ${PTCODEC_SHARED:-} ../shared /work/shared; do [ -d "$d/pt-traces" ] && { shared=$d; break; }; done
if [ -z "$shared" ]; then
  echo "skip - ptdump_as_libipt22_real_traces: ../shared/pt-traces is not there"
else
  for f in "$shared"/pt-traces/*.pt "$shared"/pt-traces-timed/*.bin; do
    [ -f "$f" ] || continue
    name=$(basename "$f" | sed 's/[^A-Za-z0-9_]/_/g')
    if same_listing "$f"; then pass "ptdump_as_libipt22_$name"; else fail "ptdump_as_libipt22_$name" "$(cat "$tmp/diff")"; fi
  done
fi
[ "$fails" = 0 ]

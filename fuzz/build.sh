#!/bin/bash -eu
# OSS-Fuzz build script (also run by `make check` with local settings).
# Builds every fuzz target with $CC $CFLAGS $LIB_FUZZING_ENGINE into $OUT,
# with its dictionary, its .options and its seed corpus as
# <target>_seed_corpus.zip. fuzz_diff_libipt needs libipt (libipt-dev in
# the Dockerfile); it is left out when libipt is missing and under MSan,
# since libipt itself is not instrumented.
root=$(cd "$(dirname "$0")/.." && pwd)
: "${OUT:?set OUT}" "${CC:?set CC}" "${LIB_FUZZING_ENGINE:?set LIB_FUZZING_ENGINE}"
CFLAGS=${CFLAGS:-}
packet_targets="fuzz_stream fuzz_roundtrip fuzz_perfdata fuzz_x86 fuzz_image fuzz_flow fuzz_config fuzz_mutator"
model_targets="fuzz_model fuzz_clock fuzz_checker fuzz_nav fuzz_events"
if [ -f /usr/include/intel-pt.h ] && [ "${SANITIZER:-}" != memory ]; then
  packet_targets="$packet_targets fuzz_diff_libipt"
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# the implementation compiled once and linked into every target (as make
# check does: PTCODEC_IMPLEMENTATION_ONCE), but fuzz_checker's, which
# reads private functions
impl="$OUT/ptcodec-impl.o"
# shellcheck disable=SC2086
$CC $CFLAGS -std=c99 -DPTCODEC_IMPLEMENTATION -x c -c "$root/ptcodec.h" -o "$impl"
for t in $packet_targets $model_targets; do
  libs=""
  [ "$t" = fuzz_diff_libipt ] && libs="-lipt"
  linked="-DPTCODEC_IMPLEMENTATION_ONCE $impl"
  [ "$t" = fuzz_checker ] && linked=""
  # shellcheck disable=SC2086 # CFLAGS, LIB_FUZZING_ENGINE and linked are word lists
  $CC $CFLAGS -std=c99 -I"$root" "$root/fuzz/$t.c" $linked -o "$OUT/$t" $LIB_FUZZING_ENGINE $libs
  case " $model_targets " in
    *" $t "*) cp "$root/fuzz/modelprog.dict" "$OUT/$t.dict" ;;
    *) own="$root/fuzz/${t#fuzz_}.dict"
       if [ -f "$own" ]; then cp "$own" "$OUT/$t.dict"; else cp "$root/fuzz/ptcodec.dict" "$OUT/$t.dict"; fi ;;
  esac
  printf '[libfuzzer]\nmax_len = 4096\ndict = %s.dict\n' "$t" > "$OUT/$t.options"
  rm -f "$OUT/${t}_seed_corpus.zip"
  (cd "$root/corpus/$t" && zip -q -X "$OUT/${t}_seed_corpus.zip" -- *)
done
rm -f "$impl"

#!/bin/sh
# The header the way users drop it in: gcc, clang, g++ and clang++; C99, C11
# and C++11/17; two translation units linked together; -Wall -Wextra -Werror
# -pedantic. The plain C99 and C++11 builds at -O2 (some warnings need the
# optimiser); at -O0, which keeps CI short, the same code under the newer
# standards and the variants of C99 and C++11: PTCODEC_STATIC, PTCDEF set by
# the user, and for gcc's C99 and clang++'s C++11 the parts left out
# (PTCODEC_NO_MODEL, PTCODEC_NO_PERF, both with PTCODEC_NO_FLOW), after which a use of a part
# left out must not compile. One test per combination; and the same for the
# mutator header a fuzzing harness includes (harness/ptmutator.h), with the
# differential template (harness/ptdiff.h).
cd "$(dirname "$0")/.." || exit 1
out=${BUILD:-build}/compile
mkdir -p "$out"
failed=0
# One compiler and standard: its lines on standard output, 1 when any failed.
one_combo() {
  cc=$1 std=$2 bad=0
  if ! command -v "$cc" >/dev/null 2>&1; then echo "skip - compile_${cc}_${std}: $cc not installed"; return 0; fi
  lang=""
  case $cc in *++) lang="-x c++";; esac
  # PTCODEC_STATIC and PTCDEF with the oldest standard of each language
  # (what they change is the same in the newer one)
  variants='"" "-DPTCODEC_STATIC" "-DPTCDEF=extern"'
  case $cc-$std in gcc-c99|clang++-c++11)
    variants="$variants"' "-DPTCODEC_NO_MODEL" "-DPTCODEC_NO_PERF" "-DPTCODEC_NO_MODEL -DPTCODEC_NO_PERF -DPTCODEC_NO_FLOW"';; esac
  case $std in c11|c++17) variants='""';; esac
  eval "set -- $variants"
  for static in "$@"; do
    case $static in -DPTCODEC_STATIC) suffix=_static;; -DPTCDEF*) suffix=_ptcdef;;
      "-DPTCODEC_NO_MODEL -DPTCODEC_NO_PERF -DPTCODEC_NO_FLOW") suffix=_no_model_perf_flow;; -DPTCODEC_NO_MODEL) suffix=_no_model;;
      -DPTCODEC_NO_PERF) suffix=_no_perf;; *) suffix="";; esac
    name="compile_${cc}_${std}${suffix}"
    exe="$out/$(echo "$name" | tr '+' 'p')"
    # (the parts left out at -O0: what -O2 adds is the same warnings over less code)
    # -O2 (what the optimiser warns of) for the plain build of C99 and
    # C++11; the variants and the newer standards change linkage, parts or
    # the standard over the same code: -O0
    opt=-O0; [ -z "$static" ] && case $std in c99|c++11) opt=-O2;; esac
    if $cc $lang -std=$std $opt -Wall -Wextra -Werror -pedantic $static tests/compile/tu_impl.c tests/compile/tu_use.c \
         -o "$exe" >"$exe.log" 2>&1 && "$exe"; then
      echo "ok - $name"
    else
      echo "FAIL - $name"; sed 's/^/  /' "$exe.log" | head -20; bad=1
    fi
  done
  # a part left out is gone: its names do not compile
  case $cc-$std in gcc-c99|clang++-c++11)
    for part in MODEL:ptc_model_config_default PERF:ptc_perf_open FLOW:ptc_x86_decode; do
      name="compile_${cc}_${std}_no_$(echo "${part%%:*}" | tr 'A-Z' 'a-z')_leaves_out_${part#*:}"
      printf '#include "'"$PWD"'/ptcodec.h"\nint main(void) { return (int)(sizeof &%s); }\n' "${part#*:}" > "$out/left_out.c"
      if $cc $lang -std=$std -DPTCODEC_NO_${part%%:*} -c "$out/left_out.c" -o "$out/left_out.o" > /dev/null 2>&1; then
        echo "FAIL - $name: it compiled"; bad=1
      elif $cc $lang -std=$std -c "$out/left_out.c" -o "$out/left_out.o" > /dev/null 2>&1; then
        echo "ok - $name"
      else
        echo "FAIL - $name: the probe does not compile with the part either"; bad=1
      fi
    done;; esac
  # the mutator header a fuzzing harness includes, with libFuzzer's hooks, and ptdiff.h
  name="compile_mutator_${cc}_${std}"
  obj="$out/$(echo "$name" | tr '+' 'p').o"
  opt=-O0; case $std in c99|c++11) opt=-O2;; esac
  if $cc $lang -std=$std $opt -Wall -Wextra -Werror -pedantic -c tests/compile/mutator_hooks.c -o "$obj" >"$obj.log" 2>&1; then
    echo "ok - $name"
  else
    echo "FAIL - $name"; sed 's/^/  /' "$obj.log" | head -20; bad=1
  fi
  return $bad
}

# Two combinations at a time (the machine's two cores), printed in order;
# a combination's status is in its .status file, since wait on several
# jobs gives only the last one's.
# (paired by length: the two with the parts left out, the two other
# oldest standards, then the short ones)
set -- "gcc c99" "clang++ c++11" "clang c99" "g++ c++11" "gcc c11" "clang c11" "g++ c++17" "clang++ c++17"
i=0
while [ $# -gt 0 ]; do
  for combo in "$1" "${2:-}"; do
    [ -n "$combo" ] || continue
    i=$((i + 1))
    ( one_combo $combo > "$out/combo$i.txt" 2>&1; echo $? > "$out/combo$i.status" ) &
  done
  wait
  shift; [ $# -gt 0 ] && shift
done
for j in $(seq 1 $i); do
  cat "$out/combo$j.txt"
  [ "$(cat "$out/combo$j.status")" = 0 ] || failed=1
done
exit $failed

#!/bin/sh
# The header the way users drop it in: gcc, clang, g++ and clang++; C99, C11
# and C++11/17; with and without PTCODEC_STATIC, and with PTCDEF set by
# the user; two translation units
# linked together; -O2 (some warnings need the optimiser) -Wall -Wextra
# -Werror -pedantic. One test per combination; and the same for the
# mutator header a fuzzing harness includes (tools/ptmutator.h).
cd "$(dirname "$0")/.." || exit 1
out=${BUILD:-build}/compile
mkdir -p "$out"
failed=0
for combo in "gcc c99" "gcc c11" "clang c99" "clang c11" "g++ c++11" "g++ c++17" "clang++ c++11" "clang++ c++17"; do
  set -- $combo
  cc=$1 std=$2
  if ! command -v "$cc" >/dev/null 2>&1; then echo "skip - compile_${cc}_${std}: $cc not installed"; continue; fi
  lang=""
  case $cc in *++) lang="-x c++";; esac
  for static in "" "-DPTCODEC_STATIC" "-DPTCDEF=extern"; do
    case $static in -DPTCODEC_STATIC) suffix=_static;; -DPTCDEF*) suffix=_ptcdef;; *) suffix="";; esac
    name="compile_${cc}_${std}${suffix}"
    exe="$out/$(echo "$name" | tr '+' 'p')"
    if $cc $lang -std=$std -O2 -Wall -Wextra -Werror -pedantic $static tests/compile/tu_impl.c tests/compile/tu_use.c \
         -o "$exe" >"$exe.log" 2>&1 && "$exe"; then
      echo "ok - $name"
    else
      echo "FAIL - $name"; sed 's/^/  /' "$exe.log" | head -20; failed=1
    fi
  done
  # the mutator header a fuzzing harness includes, with libFuzzer's hooks
  name="compile_mutator_${cc}_${std}"
  obj="$out/$(echo "$name" | tr '+' 'p').o"
  if $cc $lang -std=$std -O2 -Wall -Wextra -Werror -pedantic -c tests/compile/mutator_hooks.c -o "$obj" >"$obj.log" 2>&1; then
    echo "ok - $name"
  else
    echo "FAIL - $name"; sed 's/^/  /' "$obj.log" | head -20; failed=1
  fi
done
exit $failed

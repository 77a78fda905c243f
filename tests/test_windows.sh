#!/bin/sh
# ptcodec on Windows, from this machine: the header compiles clean with
# MinGW-w64 as C and C++ (with and without PTCODEC_STATIC, and as a DLL with
# PTCODEC_DLL), and the packet and stream unit tests, built for Windows,
# pass under wine.
# usage: tests/test_windows.sh OUT_DIR
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$1" && out=$(cd "$1" && pwd) || exit 1 # absolute: wine wants one
failed=0
WARN="-O2 -Wall -Wextra -Werror -pedantic"
# the GCC runtime linked in, so that wine needs no MinGW DLLs
LINK="-static"
if ! command -v x86_64-w64-mingw32-gcc > /dev/null 2>&1; then
  echo "skip - windows: MinGW-w64 (gcc-mingw-w64-x86-64) is not installed"; exit 0
fi
have_wine=0
command -v wine > /dev/null 2>&1 && have_wine=1
export WINEDEBUG=-all WINEPREFIX="$out/wineprefix"
# runs a Windows program under wine, or only builds it when there is none
run_exe() { # name exe args...
  name=$1; shift
  if [ $have_wine = 0 ]; then echo "skip - $name: wine is not installed (built only)"; return 0; fi
  wine "$@" > "$out/$name.out" 2>&1 && return 0
  sed 's/^/  /' "$out/$name.out" | tail -20
  return 1
}
check() { # name: the compile command follows
  name=$1; shift
  if "$@" > "$out/$name.log" 2>&1; then return 0; fi
  echo "FAIL - $name"; sed 's/^/  /' "$out/$name.log" | head -20; failed=1; return 1
}
for combo in "x86_64-w64-mingw32-gcc c99" "x86_64-w64-mingw32-g++ c++11"; do
  set -- $combo
  cc=$1 std=$2
  lang=""; case $cc in *++) lang="-x c++";; esac
  for static in "" "-DPTCODEC_STATIC"; do
    name="mingw_${std}${static:+_static}"
    check "$name" $cc $lang -std=$std $WARN $static tests/compile/tu_impl.c tests/compile/tu_use.c $LINK -o "$out/$name.exe" || continue
    if run_exe "$name" "$out/$name.exe"; then echo "ok - $name"; else echo "FAIL - $name (run under wine)"; failed=1; fi
  done
done
# a DLL that exports the API, and a program that imports it
if check mingw_dll x86_64-w64-mingw32-gcc -std=c99 $WARN -DPTCODEC_DLL -shared $LINK tests/compile/dll_impl.c \
     -o "$out/ptcodec.dll" -Wl,--out-implib,"$out/libptcodec.dll.a" &&
   check mingw_dll_use x86_64-w64-mingw32-gcc -std=c99 $WARN -DPTCODEC_DLL tests/compile/dll_use.c \
     $LINK -o "$out/dll_use.exe" "$out/libptcodec.dll.a"; then
  if x86_64-w64-mingw32-objdump -p "$out/ptcodec.dll" | grep -q ' ptc_decode_packet$' &&
     x86_64-w64-mingw32-objdump -p "$out/dll_use.exe" | grep -q 'DLL Name: ptcodec.dll'; then
    if run_exe mingw_dll "$out/dll_use.exe"; then echo "ok - mingw_dll: exported, imported and run"; else echo "FAIL - mingw_dll (run)"; failed=1; fi
  else
    echo "FAIL - mingw_dll: ptc_decode_packet is not exported, or dll_use.exe does not import ptcodec.dll"; failed=1
  fi
fi
# the packet and stream unit tests, as Windows programs
for t in test_packets test_stream; do
  check "win_$t" x86_64-w64-mingw32-gcc -std=c99 -O1 -Wall -Wextra -Werror -pedantic "tests/$t.c" $LINK -o "$out/$t.exe" || continue
  if [ $have_wine = 0 ]; then echo "skip - win_$t: wine is not installed (built only)"; continue; fi
  wine "$out/$t.exe" SPEC.md > "$out/$t.out" 2>&1; st=$?
  sed -n 's/^\(ok\|FAIL\|skip\) - /\1 - [windows] /p' "$out/$t.out"
  n=$(grep -c '^ok - ' "$out/$t.out")
  if [ $st != 0 ] || grep -q '^FAIL - ' "$out/$t.out" || [ "$n" = 0 ]; then
    grep -v '^ok - ' "$out/$t.out" | head -20; echo "FAIL - win_$t (exit status $st)"; failed=1
  fi
done
exit $failed

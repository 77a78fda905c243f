#!/bin/sh
# make install as a user runs it, into a staging directory (DESTDIR), then
# two programs built against what was installed, the way users build them:
# one with `pkg-config --cflags ptcodec`, one with CMake's find_package.
# Then the man pages render and make uninstall leaves nothing behind.
# usage: tests/test_install.sh WORK_DIR
cd "$(dirname "$0")/.." || exit 1
rm -rf "$1"; mkdir -p "$1" && w=$(cd "$1" && pwd) || exit 1 # absolute: CMake and pkg-config want one
stage=$w/stage
prefix=/usr/local
failed=0
pass() { echo "ok - $1"; }
fail() { echo "FAIL - $1"; [ -n "${2:-}" ] && printf '  %s\n' "$2"; failed=1; }
if make --no-print-directory install DESTDIR="$stage" PREFIX="$prefix" BUILD="$w/build" > "$w/install.log" 2>&1; then
  missing=""
  for f in include/ptcodec.h bin/ptdump bin/ptsim bin/ptgen bin/ptnav share/man/man1/ptdump.1 share/man/man1/ptsim.1 \
           share/man/man1/ptgen.1 share/man/man1/ptnav.1 share/pkgconfig/ptcodec.pc share/cmake/ptcodec/ptcodecConfig.cmake \
           share/cmake/ptcodec/ptcodecConfigVersion.cmake include/ptcodec/ptmutator.h include/ptcodec/ptfields.h include/ptcodec/ptdiff.h include/ptcodec/pktgen.h \
           include/ptcodec/modelprog.h include/ptcodec/util.h lib/ptcodec/ptcodec-mutator.so; do
    [ -f "$stage$prefix/$f" ] || missing="$missing $f"
  done
  [ -z "$missing" ] && pass "install_files" || fail install_files "not installed:$missing"
  "$stage$prefix/bin/ptsim" --quiet --cycles 100000 -o "$w/t.pt" && "$stage$prefix/bin/ptdump" "$w/t.pt" > /dev/null \
    && pass install_tools_run || fail install_tools_run "the installed ptsim and ptdump did not run"
else
  fail install_files "$(tail -5 "$w/install.log")"
fi

# pkg-config: PKG_CONFIG_SYSROOT_DIR maps the .pc file's prefix into the stage
if command -v pkg-config > /dev/null 2>&1; then
  cflags=$(PKG_CONFIG_PATH="$stage$prefix/share/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage" pkg-config --cflags ptcodec)
  version=$(PKG_CONFIG_PATH="$stage$prefix/share/pkgconfig" pkg-config --modversion ptcodec)
  want=$(sed -n 's/^#define PTCODEC_VERSION_STRING "\(.*\)"/\1/p' ptcodec.h)
  if [ "$version" = "$want" ] && cc -std=c99 -Wall -Wextra -Werror -pedantic $cflags tests/install/consumer.c -o "$w/pc-consumer" \
       > "$w/pc.log" 2>&1 && "$w/pc-consumer" > /dev/null; then
    pass "install_pkg_config_consumer: $cflags"
  else
    fail install_pkg_config_consumer "version '$version' (want $want), cflags '$cflags': $(head -5 "$w/pc.log")"
  fi
else
  echo "skip - install_pkg_config_consumer: pkg-config is not installed"
fi

# CMake: find_package(ptcodec 0.3) gives ptcodec::ptcodec; a newer minor version is refused
if command -v cmake > /dev/null 2>&1; then
  if cmake -S tests/install -B "$w/cmake" -DCMAKE_PREFIX_PATH="$stage$prefix" > "$w/cmake.log" 2>&1 \
     && cmake --build "$w/cmake" >> "$w/cmake.log" 2>&1 && "$w/cmake/consumer" > /dev/null; then
    pass install_cmake_consumer
  else
    fail install_cmake_consumer "$(tail -8 "$w/cmake.log")"
  fi
  mkdir -p "$w/cmake-new"
  sed 's/find_package(ptcodec 0.3 REQUIRED)/find_package(ptcodec 0.99 REQUIRED)/' tests/install/CMakeLists.txt > "$w/cmake-new/CMakeLists.txt"
  cp tests/install/consumer.c "$w/cmake-new/"
  if cmake -S "$w/cmake-new" -B "$w/cmake-new/b" -DCMAKE_PREFIX_PATH="$stage$prefix" > "$w/cmake-new.log" 2>&1; then
    fail install_cmake_version_check "find_package(ptcodec 0.99) accepted version $(sed -n 's/^#define PTCODEC_VERSION_STRING "\(.*\)"/\1/p' ptcodec.h)"
  elif grep -q 'compatible with requested version' "$w/cmake-new.log"; then
    pass install_cmake_version_check
  else
    fail install_cmake_version_check "find_package(ptcodec 0.99) failed for another reason: $(tail -5 "$w/cmake-new.log")"
  fi
else
  echo "skip - install_cmake_consumer: cmake is not installed"
fi

# the mutator: a harness built from the include directory alone, and the
# AFL++ library exporting its four entry points and nothing else
if cc -std=c99 -Wall -Wextra -Werror -pedantic -I"$stage$prefix/include" tests/install/mutator_consumer.c \
     -o "$w/mutator-consumer" > "$w/mutator.log" 2>&1 && "$w/mutator-consumer" > /dev/null &&
   [ "$(nm -D --defined-only "$stage$prefix/lib/ptcodec/ptcodec-mutator.so" | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')" = \
     "afl_custom_deinit afl_custom_describe afl_custom_fuzz afl_custom_init " ]; then
  pass install_mutator
else
  fail install_mutator "$(head -5 "$w/mutator.log")"
fi

# fuzz/README.md's snippets for a decoder's authors, as printed: each C
# block that includes <ptcodec/...> compiles against the installed headers
# alone (the adaptors they declare are the user's: only compiled, not linked)
mkdir -p "$w/snippets"
awk -v dir="$w/snippets" '/^```c$/ { inblock = 1; n++; f = dir "/snippet" n ".c"; next }
     /^```$/ { inblock = 0; next } inblock { print > f }' fuzz/README.md
tried=0 bad=""
for f in "$w"/snippets/snippet*.c; do
  grep -q '#include <ptcodec/' "$f" || continue
  tried=$((tried + 1))
  cc -std=c99 -c -I"$stage$prefix/include" "$f" -o "$f.o" > "$f.log" 2>&1 || bad="$bad $(basename "$f"): $(grep -m1 error "$f.log")"
done
[ "$tried" -ge 3 ] && [ -z "$bad" ] && pass "install_fuzz_readme_snippets: $tried compile as printed" ||
  fail install_fuzz_readme_snippets "$tried tried;$bad"

# the man pages: roff without warnings, and man finds them by name
bad=""
for t in ptdump ptsim ptgen ptnav; do
  groff -man -ww -z "$stage$prefix/share/man/man1/$t.1" > "$w/man.log" 2>&1 && [ ! -s "$w/man.log" ] || bad="$bad $t"
  if command -v man > /dev/null 2>&1; then
    MANPATH="$stage$prefix/share/man" man -P cat "$t" 2>/dev/null | grep -q "^NAME" || bad="$bad $t(man)"
  fi
  grep -q "^\.TH .* \"ptcodec $(sed -n 's/^#define PTCODEC_VERSION_STRING "\(.*\)"/\1/p' ptcodec.h)\"" "tools/$t.1" || bad="$bad $t(version)"
done
[ -z "$bad" ] && pass install_man_pages || fail install_man_pages "do not render, or name another version:$bad"

make --no-print-directory uninstall DESTDIR="$stage" PREFIX="$prefix" BUILD="$w/build" > "$w/uninstall.log" 2>&1
left=$(find "$stage" -type f | sed "s|^$stage||")
[ -z "$left" ] && pass install_uninstall || fail install_uninstall "left behind: $left"
exit $failed

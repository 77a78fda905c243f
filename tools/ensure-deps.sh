#!/bin/sh
# Makes sure the Debian packages that `make check` needs are installed. As
# root it installs what is missing with apt-get and says what; otherwise it
# lists what is missing, and the tests that need it skip with a reason.
want="gcc g++ make gzip clang libclang-rt-14-dev llvm libipt-dev afl++ zip unzip cmake pkg-config man-db groff-base
      gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine wine64 linux-perf qemu-user yasm libzydis-dev libcapstone-dev"
if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "ensure-deps: not a Debian system; not checking packages ($want)"
  exit 0
fi
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "ensure-deps: missing Debian packages:$missing (run as root to install them; tests that need them will skip)"
  exit 0
fi
echo "ensure-deps: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends $missing >/dev/null \
  || { echo "ensure-deps: apt-get could not install:$missing"; exit 1; }
echo "ensure-deps: installed:$missing"

#!/bin/sh
# Runs every test of `make check` and prints the tally. Each test program
# prints "ok - NAME", "FAIL - NAME" or "skip - NAME: why" lines; a program
# that dies without saying so counts as one failed test. The last line is
# "N passed, N failed".
# usage: tests/run.sh BUILD_DIR
b=${1:-build}
log=$(mktemp)
run_started=$(date +%s)
trap 'rm -f "$log" "$log".*' EXIT
# (run_scratch: the file a step's lines go to first; the second lane below
# has its own)
run() { # label command...
  label=$1; shift
  one=${run_scratch:-$log.one}
  started=$(date +%s)
  "$@" >"$one" 2>&1; st=$?
  echo "$(( $(date +%s) - started )) $label" >> "$log.seconds"
  cat "$one"
  cat "$one" >> "$log"
  if [ $st != 0 ] && ! grep -q '^FAIL - ' "$one"; then
    echo "FAIL - $label (exit status $st)" | tee -a "$log"
  fi
  # a runner must say a failure with its exit status too
  if [ $st = 0 ] && grep -q '^FAIL - ' "$one"; then
    echo "FAIL - $label: reported failures but exited 0" | tee -a "$log"
  fi
}
# SPEC 3.10: on every standard workload (with and without suppression and CYC,
# and with real clocks) and on 60 streams libipt's encoder wrote, ptcodec's
# maximum and mean time errors are no worse than libipt's nor Linux perf's,
# every truth is inside its interval and nothing goes back (at a quarter of
# make bench's sizes, which make bench checks: about 65 s of one core
# sanitized, against 300 to 410 s at the full sizes)
# timecmp22 holds ptcodec to libipt 2.2's query decoder likewise on both
# encoders' streams (the model's rows and perf's are timecmp's: the same)
timecmp() { # name program args...
  name=$1; shift
  if "$@" --check > "$log.tc" 2>&1; then echo "ok - $name: $(tail -1 "$log.tc")"
  else grep -B3 -e 'does worse' -e 'break G1' "$log.tc" | head -20; tail -3 "$log.tc"; echo "FAIL - $name"; return 1; fi
}
# A long step that uses one core runs beside the others (which use one core
# each): bg_start NAME command... starts it; bg_report NAME LABEL waits for it
# and reports its output and exit status as run() would have.
bg_start() { # name command...
  bg_name=$1; shift
  ( "$@" > "$log.bg-$bg_name" 2>&1; echo $? > "$log.bgst-$bg_name" ) < /dev/null &
  eval "bg_pid_$bg_name=\$!"
}
bg_saved() { cat "$log.bg-$1"; return "$(cat "$log.bgst-$1")"; }
bg_report() { # name label
  eval "wait \"\$bg_pid_$1\""
  run "$2" bg_saved "$1"
}
# One unit test program, as its build asks.
run_test() { # program
  name=${1#"$b"/test/}
  case $name in
    */timecmp) run time_accuracy_vs_libipt_and_perf timecmp time_accuracy_vs_libipt_and_perf "$1" --real-clocks \
                 --cycles 5000000 --events 50000 ;;
    */timecmp22) run time_accuracy_vs_libipt22 timecmp time_accuracy_vs_libipt22 "$1" --encoder-only --whole-only --no-perf ;;
    gcc/*_noi128) run "$name" env TESTLIB_TAG="gcc, portable 128-bit" "$1" SPEC.md ;;
    *) run "$name" env TESTLIB_TAG="${name%%/*}" "$1" SPEC.md ;;
  esac
}
# The second lane: long one-core steps run one after another beside the
# others (which use one core each); their lines join the tally as they
# finish and are printed by lane_report. The split keeps the lanes near
# even (build/check-seconds; the clean-clone run of f5c63088 ended the
# lanes at 764 and 892 s): the time comparisons (about 110 s), the
# portable 128-bit builds (about 190 s, a quarter of the long grids:
# TESTLIB_GRID_STRIDE), the clock's and the faults' unit tests (about
# 225 s), then, with make check, the QEMU programs (about 160 s), the
# mutator under both engines (about 75 s) and compile_matrix (about 140 s).
lane_progs=$(grep -E '/timecmp(22)?$|_noi128$|/clang/test_clock$|/clang/test_faults$' "$b/test-programs")
( run_scratch=$log.one-lane; for prog in $lane_progs; do run_test "$prog"; done
  if [ -z "${UNIT_ONLY:-}" ]; then
    run test_qemu sh tests/test_qemu.sh "$b"
    run test_mutator_engines sh tests/test_mutator_engines.sh "$b"
    run compile_matrix env BUILD="$b" sh tests/compile_matrix.sh
  fi
  echo "$(( $(date +%s) - run_started )) =second-lane-ends-at" >> "$log.seconds" ) > "$log.lane" 2>&1 < /dev/null &
lane_pid=$!
lane_report() { wait "$lane_pid"; cat "$log.lane"; }
# Every unit test program the build made, from the Makefile's one list.
: > "$log.ran"
while read -r prog; do
  case " $(echo $lane_progs) " in *" $prog "*) ;; *) run_test "$prog" ;; esac
  echo "$prog" >> "$log.ran"
done < "$b/test-programs"
[ -x "$b/test/clang/test_libipt" ] || echo "skip - test_libipt, time_accuracy_vs_libipt_and_perf: libipt-dev is not installed" | tee -a "$log"
# A test that is built but not run would pass unseen: none may exist. Nor
# may a test program's source (tests/test_*.c) that the list leaves out.
for prog in "$b"/test/*/*; do
  [ -f "$prog" ] && [ -x "$prog" ] || continue
  grep -qxF "$prog" "$log.ran" || echo "FAIL - built_but_not_run: $prog is not in the Makefile's test list" | tee -a "$log"
done
for src in tests/test_*.c; do
  name=$(basename "$src" .c)
  grep -q "/$name\(_noi128\)\{0,1\}\$" "$log.ran" ||
    echo "FAIL - never_built: $src is in no list of the Makefile, so make check never runs it" | tee -a "$log"
done
run test_cli sh tests/test_cli.sh "$b/san"
run test_ptdump22 sh tests/test_ptdump22.sh "$b"
run test_sources sh tests/test_sources.sh
# make test: the unit tests, the tools' and the sources' checks, and no more
if [ -n "${UNIT_ONLY:-}" ]; then
  lane_report
  passed=$(grep -c '^ok - ' "$log"); failed=$(grep -c '^FAIL - ' "$log"); skipped=$(grep -c '^skip - ' "$log")
  [ "$skipped" != 0 ] && echo "($skipped skipped)"
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]; exit
fi
run test_perf_oracle sh tests/test_perf_oracle.sh "$b/san"
run test_windows sh tests/test_windows.sh "$b/windows"
run test_install sh tests/test_install.sh "$b/install"
# make bench's programs at a fraction of their sizes, sanitized: they run
# through, and bench_decode's decoders agree on every stream's packet count
# (the figures are make bench's business)
bench_quick() { # program
  if "$b/san/$1" --quick > "$log.r" 2>&1; then echo "ok - bench_quick_$1: $(grep -c . "$log.r") lines of figures"
  else tail -20 "$log.r"; echo "FAIL - bench_quick_$1"; return 1; fi
}
run bench_quick_bench_model bench_quick bench_model
# bench_decode --stream on a raw trace ptsim wrote, with libipt's clock
# flags: all eight decoders' rows, and the same packet count from both sides
# and from the batch decoder on one thread and two
bench_stream() {
  "$b/san/ptsim" --workload dense --cycles 300000 --set cyc_en=1 -o "$log.stream.pt" --quiet &&
    "$b/san/bench_decode" --stream "$log.stream.pt" --mtc-freq 3 --nom-freq 24 --cpuid-0x15.eax 2 \
      --cpuid-0x15.ebx 200 --cyc-thresh 0 > "$log.r" 2>&1
  rows=$(grep -cE ' (packets|answers) +[0-9.]+x$' "$log.r")
  if [ "$rows" = 8 ] && ! grep -q 'counts differ\|WARNING' "$log.r"; then echo "ok - bench_stream: $rows decoders on one raw trace"
  else tail -20 "$log.r"; echo "FAIL - bench_stream"; return 1; fi
}
if [ -x "$b/san/bench_decode" ]; then
  run bench_quick_bench_decode bench_quick bench_decode
  run bench_stream bench_stream
else echo "skip - bench_quick_bench_decode: libipt-dev is not installed" | tee -a "$log"; fi
# fuzz/build.sh as OSS-Fuzz runs it, with this machine's clang (about a
# minute of one core), beside the corpus runs below
bg_start ossfuzz sh tests/test_ossfuzz.sh "$b/ossfuzz" "$b/fuzz-targets"
# Every corpus file through its target, engine-free: gcc with ASan+UBSan,
# and clang with MSan (every target but the libipt differential one).
replay() { # build-dir target
  if "$b/$1/$2" "corpus/$2" > "$log.r" 2>&1; then echo "ok - $1_$2: $(tail -1 "$log.r")"
  else tail -20 "$log.r"; echo "FAIL - $1_$2"; return 1; fi
}
# A short libFuzzer run, so a regression shows up quickly. It starts from
# at most 400 of the corpus's inputs, spread over it: libFuzzer runs every
# seed before its clock starts (1 839 of fuzz_nav's took 50 s), and the
# replays above have run them all already.
smoke_seeds() { # target -> a folder of seeds
  rm -rf "$b/smoke-seeds-$1"; mkdir -p "$b/smoke-seeds-$1"
  n=$(ls "corpus/$1" | wc -l)
  ls "corpus/$1" | awk -v k=$(( (n + 399) / 400 )) 'NR % k == 0' | while read -r f; do
    cp "corpus/$1/$f" "$b/smoke-seeds-$1/"
  done
}
smoke() { # target dictionary
  mkdir -p "$b/smoke-$1"
  smoke_seeds "$1"
  if "$b/libfuzzer/$1" -max_total_time="${SMOKE_SECONDS:-8}" -max_len=4096 -dict="$2" \
       -artifact_prefix="$b/" "$b/smoke-$1" "$b/smoke-seeds-$1" > "$log.f" 2>&1; then
    echo "ok - fuzz_smoke_$1: $(grep -o '#[0-9]*[[:space:]]*DONE.*' "$log.f" | head -1)"
  else
    grep -A20 -E 'ERROR|FUZZ_ASSERT|runtime error' "$log.f" | head -40; echo "FAIL - fuzz_smoke_$1"; return 1
  fi
}
while read -r t dict; do
  run "replay_$t" replay replay "$t"
  if [ -x "$b/msan/$t" ]; then run "msan_$t" replay msan "$t"
  elif [ "$t" != fuzz_diff_libipt ]; then echo "FAIL - msan_$t: not built" | tee -a "$log"; fi
  if [ -x "$b/libfuzzer/$t" ]; then run "fuzz_smoke_$t" smoke "$t" "$dict"
  else echo "skip - fuzz_smoke_$t: clang with libFuzzer is not installed" | tee -a "$log"; fi
done < "$b/fuzz-targets"
# AFL++'s builds: fuzz_stream's, with its cmplog pass (the Makefile's
# AFL_CHECK_TARGETS; make fuzz builds every target)
if [ -x "$b/afl/fuzz_stream" ] && [ -x "$b/afl/fuzz_stream.cmplog" ]; then echo "ok - afl_build_fuzz_stream" | tee -a "$log"
else echo "skip - afl_build_fuzz_stream: afl++ is not installed" | tee -a "$log"; fi
# libipt 2.2's decoders on fuzz_libipt22's corpus, against the release
# build of the shared tarball (fuzz/fuzz_libipt22.c: no crash, and its
# packet decoder reads ptcodec's packets up to the allowlist), and its query
# decoder's times on fuzz_libipt22_time's (fuzz/fuzz_libipt22_time.c: no
# time at no packet, none going back before news), and its instruction flow
# decoder against ptcodec's on fuzz_flow_libipt22's (fuzz/fuzz_flow_libipt22.c)
# fuzz_x86's corpus through the x86 decoder's oracles, Zydis and libipt
# 2.2's length decoder (fuzz/x86_oracles.h; the Makefile builds it with
# those of them that are there)
run replay_oracles_fuzz_x86 replay oracles fuzz_x86
for t in fuzz_libipt22 fuzz_libipt22_time fuzz_flow_libipt22; do
  if [ -x "$b/replay/$t" ]; then run "replay_$t" replay replay "$t"
  else echo "skip - replay_$t: ../shared/reference/libipt-2.2.tar.gz or cmake is missing" | tee -a "$log"; fi
done
bg_report ossfuzz ossfuzz_build
echo "$(( $(date +%s) - run_started )) =first-lane-ends-at" >> "$log.seconds"
lane_report
# where the time went (CI has 30 minutes; the build before this is the rest)
echo "# the tests took $(( $(date +%s) - run_started )) s; the slowest steps: $(sort -rn "$log.seconds" | head -8 |
  awk '{ printf "%s%s %d s", (NR > 1 ? ", " : ""), $2, $1 }')"
# every step's seconds, for whoever trims CI next
sort -rn "$log.seconds" > "$b/check-seconds"
passed=$(grep -c '^ok - ' "$log")
failed=$(grep -c '^FAIL - ' "$log")
skipped=$(grep -c '^skip - ' "$log")
[ "$skipped" != 0 ] && echo "($skipped skipped)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

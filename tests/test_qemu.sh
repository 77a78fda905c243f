#!/bin/sh
# The model on real programs (SPEC.md 5.11): each program runs under QEMU
# with ptcodec's plugin, and libipt's instruction flow decoder, given the
# trace and the plugin's code image, must reconstruct exactly the
# instructions the plugin logged (build/insncheck), for every thread's
# trace and under every setting below. ptcodec's own tools must read the
# same traces cleanly (ptdump, ptdump --time, ptdump --check against the
# policy), and its navigation by retirement must land where libipt's
# instruction flow says. Skips when qemu-x86_64 or libipt is missing.
# usage: tests/test_qemu.sh BUILD_DIR
b=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v qemu-x86_64 >/dev/null 2>&1; then
  echo "skip - qemu_libipt_decodes_every_instruction: qemu-x86_64 (Debian's qemu-user) is not installed"; exit 0
fi
if [ ! -x "$b/insncheck" ] || [ ! -f "$b/libptcodec-qemu.so" ]; then
  echo "skip - qemu_libipt_decodes_every_instruction: libipt-dev is not installed, so the plugin's checker is not built"; exit 0
fi
plugin=$(cd "$b" && pwd)/libptcodec-qemu.so
failed=0
fail() { echo "FAIL - $1"; failed=1; }

# The settings every program runs under: RET compression on and off, short
# and long TNTs, CYC off and on (with a threshold), MTC suppression on, and
# (C) an MTC every 2 ART ticks, a PSB+ every 2 KiB and 3 cycles an
# instruction, so suppression, PSBs and CYC wraps all happen.
A="retc=1,policy=seed"
B="retc=0,long_tnt=1,cyc=1,policy=seed"
C="retc=1,long_tnt=1,cyc=1,cyc_thresh=3,mtc_freq=1,psb_freq=0,cpi=3,policy=seed"

# record LABEL SETTINGS PROGRAM ARGS...: the trace and its checks
record() {
  label=$1; settings=$2; shift 2
  rm -f "$tmp"/p.pt* "$tmp"/p.insns*
  if ! qemu-x86_64 -plugin "$plugin,out=$tmp/p.pt,insns=$tmp/p.insns,quiet=1,$settings" "$@" > "$tmp/stdout" 2> "$tmp/stderr"; then
    fail "qemu_runs: $label [$settings]: $(head -3 "$tmp/stderr")"; return
  fi
  traces=0; insns=0; flows=0
  for trace in "$tmp"/p.pt "$tmp"/p.pt.t[0-9]*; do
    [ -f "$trace" ] || continue
    suffix=${trace#"$tmp/p.pt"}
    thread=${suffix#.t}
    traces=$((traces + 1))
    if ! "$b/insncheck" "$trace" "$tmp/p.pt.code.json" "$tmp/p.insns$suffix" --retirements "$tmp/ret" > "$tmp/check" 2>&1; then
      fail "qemu_libipt_decodes_every_instruction: $label [$settings] thread ${thread:-0}"; sed 's/^/  /' "$tmp/check" | head -8
      continue
    fi
    insns=$((insns + $(sed 's/.*: \([0-9]*\) instructions.*/\1/' "$tmp/check")))
    flow_is_every_instruction "$label [$settings] thread ${thread:-0}" "$trace" "$tmp/p.insns$suffix" && flows=$((flows + 1))
    tools_agree "$label [$settings] thread ${thread:-0}" "$trace"
  done
  [ $traces -gt 0 ] && echo "ok - qemu_libipt_decodes_every_instruction: $label [$settings]: $insns instructions, $traces trace(s)"
  [ $traces -gt 0 ] && [ $flows -eq $traces ] &&
    echo "ok - qemu_ptcodec_flow_is_every_instruction: $label [$settings]: $traces trace(s), the same $insns instructions"
}

# flow_is_every_instruction LABEL TRACE INSNS: ptdump --insn (SPEC 9.4) over
# the plugin's page cache gives exactly the instructions QEMU ran, and
# --blocks (through the block cache, SPEC 9.3) the same lines. The -O2
# build: under the sanitizers the 40 runs took 235 s more than the rest of
# this script (tests/test_flow and fuzz_flow's replay run the flow decoder
# under them)
flow_is_every_instruction() {
  if ! "$b/ptdump" --insn --pagecache "$tmp/p.pt.code" "$2" > "$tmp/flow" 2> "$tmp/flow.err"; then
    fail "qemu_ptcodec_flow_is_every_instruction: $1: ptdump --insn failed"; grep -m3 error "$tmp/flow" "$tmp/flow.err"; return 1
  fi
  if ! sed 's/^0*//' "$tmp/flow" | cmp -s - "$3"; then
    fail "qemu_ptcodec_flow_is_every_instruction: $1"; sed 's/^0*//' "$tmp/flow" | diff - "$3" | head -6; return 1
  fi
  if ! "$b/ptdump" --blocks --pagecache "$tmp/p.pt.code" "$2" | cmp -s - "$tmp/flow"; then
    fail "qemu_ptcodec_flow_is_every_instruction: $1: --blocks prints other lines than --insn"; return 1
  fi
  return 0
}

# tools_agree LABEL TRACE: ptcodec's tools on the trace; the retirements
# insncheck wrote from libipt's flow (in $tmp/ret) against ptnav's
tools_agree() {
  cfg="$tmp/p.pt.json"
  if ! "$b/san/ptdump" "$2" > "$tmp/dump" 2>&1; then fail "qemu_ptdump_clean: $1"; tail -3 "$tmp/dump"; return; fi
  if ! "$b/san/ptdump" --time --config "$cfg" "$2" > "$tmp/dump" 2>&1 || grep -q conflict "$tmp/dump"; then
    fail "qemu_ptdump_time_clean: $1"; grep -m3 'conflict\|error' "$tmp/dump"; return
  fi
  if ! "$b/san/ptdump" --check --config "$cfg" "$2" > "$tmp/dump" 2>&1; then
    fail "qemu_ptdump_check_passes: $1"; grep -m3 violation "$tmp/dump"; return
  fi
  total=$(wc -l < "$tmp/ret")
  [ "$total" -gt 0 ] || return
  for k in 0 1 2 3 4 5 6 7; do
    n=$(( (total - 1) * k / 7 ))
    want=$(sed -n "$((n + 1))p" "$tmp/ret")
    got=$("$b/san/ptnav" --config "$cfg" "$2" --retire "$n" 2>&1)
    case "$want" in
      "tnt 1"|"ret "*) ok_tnt='"taken":true' ;;
      "tnt 0") ok_tnt='"taken":false' ;;
      *) ok_tnt='no TNT' ;;
    esac
    ip=0x${want#* }
    case "$got" in
      *\"type\":\"tnt*"$ok_tnt"*) ;;
      *\"type\":\"tip\"*\"ip\":\"$ip\"*) [ "${want%% *}" != tnt ] || got="$got (a TIP for a conditional branch)" ;;
      *) fail "qemu_navigation_lands_on_libipts_retirement: $1: retirement $n is '$want' by libipt, ptnav: $got"; return ;;
    esac
  done
}

p=$b/qemu/progs
for s in recursion pointers switch longjmp signals syscalls loop interp asm threads; do
  for set in "$A" "$B" "$C"; do record "progs $s" "$set" "$p" "$s"; done
done
for set in "$A" "$B" "$C"; do
  record "progs-static all" "$set" "$b/qemu/progs-static" all
  record "throw (C++ exceptions)" "$set" "$b/qemu/throw"
  record "/bin/ls -l /usr/lib" "$set" /bin/ls -l /usr/lib
done
# (python3 runs 57 million instructions: under the default settings only,
# which compress its deep returns; the others are the small programs')
if [ -x /usr/bin/python3 ]; then
  record "python3 -c" "$A" /usr/bin/python3 -c 'import json; print(len(json.dumps(list(range(500)))))'
fi

# The model's truth of a real program's trace (truth=): ptdump --time puts
# every packet's true time inside its interval, for every thread
times_inside() { # label settings program args...
  label=$1; settings=$2; shift 2
  rm -f "$tmp"/t.pt* "$tmp"/t.truth*
  qemu-x86_64 -plugin "$plugin,out=$tmp/t.pt,truth=$tmp/t.truth,quiet=1,$settings" "$@" > /dev/null 2> "$tmp/stderr" ||
    { fail "qemu_truth_inside_intervals: $label: $(head -3 "$tmp/stderr")"; return; }
  for trace in "$tmp"/t.pt "$tmp"/t.pt.t[0-9]*; do
    [ -f "$trace" ] || continue
    "$b/san/ptdump" --time --jsonl --config "$tmp/t.pt.json" "$trace" > "$tmp/t.time"; st=$?
    grep '^{"off"' "$tmp/t.truth${trace#"$tmp/t.pt"}" | paste - "$tmp/t.time" | awk -f "$(dirname "$0")/time_inside.awk" > "$tmp/t.awk"
    if [ $st = 0 ] && grep -q ' timed, 0 outside$' "$tmp/t.awk"; then
      echo "ok - qemu_truth_inside_intervals: $label [$settings] ${trace##*/}: $(cat "$tmp/t.awk")"
    else fail "qemu_truth_inside_intervals: $label [$settings] ${trace##*/}: status $st: $(head -c 400 "$tmp/t.awk")"; fi
  done
}
times_inside "progs threads" "$B" "$p" threads
times_inside "progs signals" "$C" "$p" signals
times_inside "/bin/ls -l /usr/lib" "$A,cyc=1" /bin/ls -l /usr/lib

# Linux perf as a second decoder (SPEC.md 6.4): the plugin's perf.data
# (perf=) names the program's own files in MMAP records, and perf script
# --itrace=i1i, decoding every thread's queue with perf's own instruction
# decoder from those files, must list exactly the instructions QEMU ran
perf_agrees() { # label settings program args...
  label=$1; settings=$2; shift 2
  rm -f "$tmp"/f.pt* "$tmp"/f.insns* "$tmp"/f.data
  qemu-x86_64 -plugin "$plugin,out=$tmp/f.pt,insns=$tmp/f.insns,perf=$tmp/f.data,quiet=1,$settings" "$@" > /dev/null 2> "$tmp/stderr" ||
    { fail "perf_decodes_every_instruction: $label: $(head -3 "$tmp/stderr")"; return; }
  (cd "$tmp" && perf script -i f.data --itrace=i1i -F cpu,ip > perf.out 2> perf.err) ||
    { fail "perf_decodes_every_instruction: $label: perf script failed: $(head -3 "$tmp/perf.err")"; return; }
  k=0; total=0
  for log in "$tmp"/f.insns "$tmp"/f.insns.t[0-9]*; do
    [ -f "$log" ] || continue
    awk -v c="$(printf '[%03d]' $k)" '$1 == c { print $2 }' "$tmp/perf.out" > "$tmp/perf.ips"
    if ! cmp -s "$tmp/perf.ips" "$log"; then
      fail "perf_decodes_every_instruction: $label [$settings] thread $k: perf $(wc -l < "$tmp/perf.ips") instructions, QEMU ran $(wc -l < "$log")"
      cmp "$tmp/perf.ips" "$log" | head -2; grep -m3 -i 'error\|warn' "$tmp/perf.err"; return
    fi
    total=$((total + $(wc -l < "$log"))); k=$((k + 1))
  done
  echo "ok - perf_decodes_every_instruction: $label [$settings]: $total instructions in $k thread(s), the same as QEMU ran"
  # ptdump --insn on the same perf.data (SPEC.md 9.4): the code from its
  # MMAP records' files, each queue's instructions those its thread ran
  "$b/san/ptdump" --insn "$tmp/f.data" > "$tmp/ours.out" 2> "$tmp/ours.err" ||
    { fail "ptdump_insn_from_perf_data: $label: status $?: $(head -3 "$tmp/ours.err")"; return; }
  k=0
  for log in "$tmp"/f.insns "$tmp"/f.insns.t[0-9]*; do
    [ -f "$log" ] || continue
    awk -v q=$k 'BEGIN { cur = -1 } /^\[perf.data queue / { cur = $3 + 0; next } cur == q { sub(/^0+/, ""); print }' \
      "$tmp/ours.out" > "$tmp/ours.ips"
    if ! cmp -s "$tmp/ours.ips" "$log"; then
      fail "ptdump_insn_from_perf_data: $label [$settings] thread $k: $(wc -l < "$tmp/ours.ips") instructions, QEMU ran $(wc -l < "$log")"
      cmp "$tmp/ours.ips" "$log" | head -2; return
    fi
    k=$((k + 1))
  done
  echo "ok - ptdump_insn_from_perf_data: $label [$settings]: $total instructions in $k thread(s), the same as QEMU ran"
}
if command -v perf >/dev/null 2>&1 && perf version >/dev/null 2>&1; then
  for set in "$A" "$B"; do
    perf_agrees "progs threads" "$set" "$p" threads
    perf_agrees "progs interp" "$set" "$p" interp
    perf_agrees "progs signals" "$set" "$p" signals
    perf_agrees "progs asm" "$set" "$p" asm
    perf_agrees "throw (C++ exceptions)" "$set" "$b/qemu/throw"
    perf_agrees "/bin/ls -l /usr/lib" "$set" /bin/ls -l /usr/lib
  done
else
  echo "skip - perf_decodes_every_instruction: perf (Debian's linux-perf) is not installed"
fi

# RET compression is on by default and changes the trace: the same run
# with retc=0 has more than twice the TIPs (one per RET) and more bytes
size_of() { wc -c < "$tmp/p.pt"; }
tips_of() { "$b/san/ptdump" "$tmp/p.pt" | grep -c ' tip ' ; }
qemu-x86_64 -plugin "$plugin,out=$tmp/p.pt,quiet=1" "$p" recursion > /dev/null && s1=$(size_of) && t1=$(tips_of)
qemu-x86_64 -plugin "$plugin,out=$tmp/p.pt,quiet=1,retc=0" "$p" recursion > /dev/null && s0=$(size_of) && t0=$(tips_of)
if [ -n "$t1" ] && [ -n "$t0" ] && [ "$t0" -gt $((t1 * 2)) ] && [ "$s0" -gt "$s1" ]; then
  echo "ok - qemu_ret_compression_saves_tips: recursion: $t1 TIPs ($s1 bytes) with it, $t0 ($s0 bytes) without"
else fail "qemu_ret_compression_saves_tips: $t1 TIPs / $s1 bytes with, $t0 / $s0 without"; fi

# the plugin's settings are checked and named
if qemu-x86_64 -plugin "$plugin,out=$tmp/x.pt,os=1" /bin/true 2> "$tmp/err" || ! grep -q 'user-mode' "$tmp/err"; then
  fail "qemu_plugin_refuses_bad_settings: os=1 was not refused: $(cat "$tmp/err")"
elif qemu-x86_64 -plugin "$plugin,out=$tmp/x.pt,mtc_freq=99" /bin/true 2> "$tmp/err" || ! grep -q 'mtc_freq' "$tmp/err"; then
  fail "qemu_plugin_refuses_bad_settings: mtc_freq=99 was not refused: $(cat "$tmp/err")"
elif qemu-x86_64 -plugin "$plugin,out=$tmp/x.pt,bogus=1" /bin/true 2> "$tmp/err" || ! grep -q "unknown setting 'bogus'" "$tmp/err"; then
  fail "qemu_plugin_refuses_bad_settings: bogus=1 was not refused: $(cat "$tmp/err")"
elif qemu-x86_64 -plugin "$plugin,help" /bin/true 2> "$tmp/err" || ! grep -q 'retc=1|0' "$tmp/err"; then
  fail "qemu_plugin_refuses_bad_settings: help printed no usage"
else echo "ok - qemu_plugin_refuses_bad_settings: os=1, mtc_freq=99, an unknown key, and help"; fi

# a file it cannot write is refused once, named with the system's reason,
# before the program runs; QEMU ends non-zero and no file is left behind
rm -f "$tmp"/w.pt*
if qemu-x86_64 -plugin "$plugin,out=$tmp/w.pt,insns=/nonexistent/x" /bin/true 2> "$tmp/err" ||
   ! grep -q '^ptqemu: cannot write /nonexistent/x: No such file or directory$' "$tmp/err" ||
   [ "$(grep -c 'ptqemu:' "$tmp/err")" != 1 ] || ls "$tmp"/w.pt* > /dev/null 2>&1; then
  fail "qemu_plugin_refuses_unwritable_files: insns=/nonexistent/x: $(head -c 300 "$tmp/err"); $(ls "$tmp" | head -3)"
elif qemu-x86_64 -plugin "$plugin,out=$tmp" /bin/true 2> "$tmp/err" || ! grep -q "cannot write $tmp: Is a directory" "$tmp/err"; then
  fail "qemu_plugin_refuses_unwritable_files: out=a directory: $(head -c 300 "$tmp/err")"
else echo "ok - qemu_plugin_refuses_unwritable_files: a missing folder and a directory, each named once"; fi
exit $failed

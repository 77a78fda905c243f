#!/bin/sh
# tools/ptdump from the outside (SPEC.md 1.10): options, exit status, the
# JSON lines of one packet of every type, standard input; ptsim and
# ptdump --check (7.4); ptdump --time against ptsim's truth (3.9).
# usage: tests/test_cli.sh BUILD_DIR   (holds ptdump and ptgen)
b=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "ok - $1"; }
# every failure is also counted in a file, so one in a subshell counts too
fail() { echo "FAIL - $1"; [ -n "${2:-}" ] && printf '  %s\n' "$2"; echo "$1" >> "$tmp/failures"; }
expect_status() { # name want cmd...
  name=$1 want=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
  if [ "$got" = "$want" ]; then pass "$name"; else fail "$name" "exit $got, want $want: $(head -c 300 "$tmp/err")"; fi
}

# every tool: -h and --help exit 0; an unknown flag is named as unknown, a
# known one given no value says so
for t in ptdump ptsim ptnav ptgen; do
  if "$b/$t" -h > /dev/null && "$b/$t" --help > /dev/null; then pass "${t}_help_exits_0"; else fail "${t}_help_exits_0"; fi
  "$b/$t" --bogus > /dev/null 2> "$tmp/err"; st=$?
  if [ $st = 2 ] && head -1 "$tmp/err" | grep -q "^$t: unknown option --bogus$"; then pass "${t}_names_unknown_flag"
  else fail "${t}_names_unknown_flag" "status $st: $(head -1 "$tmp/err")"; fi
done
# each option is described in the man page, and --help lists the same
# options (those its lines start with) and the tool takes each: none is
# "unknown" given alone
src=$(cd "$(dirname "$0")/.." && pwd)
opts() { grep -o -- '--[a-z0-9][a-z0-9.-]*[a-z0-9]' | sort -u; }
for t in ptdump ptsim ptnav ptgen; do
  sed -n '/^\.SH OPTIONS/,/^\.SH [^O]/p' "$src/tools/$t.1" | grep -E '^(\.BI? |\\fB)\\-' | sed 's/\\-/-/g; s/\\f[BIRP]//g' \
    | opts > "$tmp/man.opts"
  "$b/$t" --help | grep -E '^ *--' | sed 's/(.*//' | opts > "$tmp/help.opts"
  unknown=""
  for o in $(cat "$tmp/man.opts"); do
    "$b/$t" "$o" 2>&1 | grep -q "unknown option" && unknown="$unknown $o"
  done
  if [ -s "$tmp/man.opts" ] && cmp -s "$tmp/man.opts" "$tmp/help.opts" && [ -z "$unknown" ]; then pass "${t}_options_man_help_agree"
  else fail "${t}_options_man_help_agree" "man/help: $(diff "$tmp/man.opts" "$tmp/help.opts" | grep '^[<>]' | tr '\n' ' ') unknown:$unknown"; fi
done
"$b/ptsim" -o > /dev/null 2> "$tmp/err"
head -1 "$tmp/err" | grep -q '^ptsim: -o needs a value$' && pass cli_flag_needs_a_value || fail cli_flag_needs_a_value "$(head -1 "$tmp/err")"
expect_status cli_help 0 "$b/ptdump" --help
grep -q "usage: ptdump" "$tmp/out" && grep -q -- "--no-sync" "$tmp/out" && grep -q -- "--jsonl" "$tmp/out" \
  && pass cli_help_text || fail cli_help_text "help text incomplete"
expect_status cli_no_file 2 "$b/ptdump"
expect_status cli_unknown_option 2 "$b/ptdump" --bogus x
expect_status cli_two_files 2 "$b/ptdump" a b
expect_status cli_missing_file 2 "$b/ptdump" "$tmp/does-not-exist"
expect_status cli_directory 2 "$b/ptdump" "$tmp"
grep -q "cannot read $tmp: Is a directory" "$tmp/err" && pass cli_directory_named || fail cli_directory_named "$(cat "$tmp/err")"
# numbers are strict (harness/util.h): junk, a sign, overflow and out-of-range
# values are refused with the option named
for bad in "ptgen --bytes abc" "ptgen --bytes 12x" "ptgen --seed 99999999999999999999" "ptsim --cycles -5" \
           "ptsim --threads 9" "ptdump --mtc-freq 16" "ptdump --cyc-thresh 16" "ptnav --cycle 0x"; do
  set -- $bad
  tool=$1 opt=$2 val=$3
  "$b/$tool" "$opt" "$val" -o "$tmp/num.out" "$tmp/none" > /dev/null 2> "$tmp/num.err"; st=$?
  if [ $st = 2 ] && grep -q "^$tool: $opt: '$val' is not a whole number" "$tmp/num.err"; then pass "cli_strict_number: $bad"
  else fail "cli_strict_number: $bad" "exit $st: $(head -c 200 "$tmp/num.err")"; fi
done

# one packet of every type: exactly one JSON line, that packet
# (the type names come from the header's packet list, through ptgen)
"$b/ptgen" --list-types > "$tmp/types" && [ "$(wc -l < "$tmp/types")" -gt 30 ] && pass cli_list_types \
  || fail cli_list_types "$(head -3 "$tmp/types")"
for t in $(grep -vx bip "$tmp/types"); do
  "$b/ptgen" --one $t -o "$tmp/$t.pt" || { fail "cli_one_$t" "ptgen failed"; continue; }
  size=$(wc -c < "$tmp/$t.pt" | tr -d ' ')
  "$b/ptdump" --jsonl --no-sync "$tmp/$t.pt" > "$tmp/$t.json"; st=$?
  lines=$(wc -l < "$tmp/$t.json" | tr -d ' ')
  if [ $st = 0 ] && [ "$lines" = 1 ] && grep -q "^{\"off\":0,\"size\":$size,\"type\":\"$t\"[,}]" "$tmp/$t.json"; then
    pass "cli_one_$t"
  else
    fail "cli_one_$t" "status $st, $lines lines: $(head -c 200 "$tmp/$t.json")"
  fi
done
# (a BIP exists only inside a BBP block, so a file holding one BIP is not a packet: see SPEC 1.6)

# the exact fields of the packets the issue names
check_line() { # type expected-json
  if [ "$(cat "$tmp/$1.json")" = "$2" ]; then pass "cli_fields_$1"; else fail "cli_fields_$1" "got $(cat "$tmp/$1.json")"; fi
}
check_line tnt8 '{"off":0,"size":1,"type":"tnt8","count":5,"bits":"10001"}'
check_line tnt64 '{"off":0,"size":8,"type":"tnt64","count":40,"bits":"1000000000000000000000000000000000000001"}'
check_line tip '{"off":0,"size":9,"type":"tip","ipc":6,"ip":"0xffffffff81001234","full_ip":"0xffffffff81001234"}'
check_line fup '{"off":0,"size":9,"type":"fup","ipc":6,"ip":"0xffffffff81001234","full_ip":"0xffffffff81001234"}'
check_line tsc '{"off":0,"size":8,"type":"tsc","tsc":"0x123456789abcde"}'
check_line mtc '{"off":0,"size":2,"type":"mtc","ctc":171}'
check_line tma '{"off":0,"size":7,"type":"tma","ctc":4660,"fc":511}'
check_line cyc '{"off":0,"size":3,"type":"cyc","cyc":4096}'
check_line cbr '{"off":0,"size":4,"type":"cbr","ratio":36}'
check_line pip '{"off":0,"size":8,"type":"pip","cr3":"0x12345000","nr":true}'
check_line ptw '{"off":0,"size":10,"type":"ptw","bytes":8,"ip":true,"payload":"0xdeadbeefcafe"}'
check_line pwre '{"off":0,"size":4,"type":"pwre","state":5,"sub_state":15,"hw":true}'
check_line trig '{"off":0,"size":5,"type":"trig","trbv":161,"ip":false,"mult":false,"icnt":23}'

# errors: exit 1 and a JSON error line at the right offset
printf '\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202\311' > "$tmp/bad.pt"
"$b/ptdump" --jsonl "$tmp/bad.pt" > "$tmp/bad.json"; st=$?
if [ $st = 1 ] && sed -n 2p "$tmp/bad.json" | grep -q '^{"off":16,"error":"bad_opcode","msg":"[^"]*"}$'; then
  pass cli_error_line; else fail cli_error_line "status $st: $(cat "$tmp/bad.json")"; fi
"$b/ptdump" "$tmp/bad.pt" > "$tmp/bad.txt"; st=$?
if [ $st = 1 ] && grep -q '^\[10: error decoding packet: .* (bad_opcode)\]$' "$tmp/bad.txt"; then
  pass cli_error_text; else fail cli_error_text "status $st: $(cat "$tmp/bad.txt")"; fi
"$b/ptdump" --jsonl "$tmp/tsc.pt" > "$tmp/nosync.json"; st=$?
if [ $st = 1 ] && grep -q '"error":"no_psb"' "$tmp/nosync.json"; then
  pass cli_no_psb; else fail cli_no_psb "status $st: $(cat "$tmp/nosync.json")"; fi

# standard input gives the same output as the file, in any read sizes
"$b/ptgen" --mix all --bytes 200000 --seed 9 -o "$tmp/big.pt"
"$b/ptdump" --jsonl "$tmp/big.pt" > "$tmp/big1.json"; s1=$?
cat "$tmp/big.pt" | "$b/ptdump" --jsonl - > "$tmp/big2.json"; s2=$?
if [ $s1 = 0 ] && [ $s2 = 0 ] && cmp -s "$tmp/big1.json" "$tmp/big2.json" && [ "$(wc -l < "$tmp/big1.json")" -gt 10000 ]; then
  pass cli_stdin; else fail cli_stdin "status $s1/$s2"; fi

# -j N prints exactly what -j 1 prints (SPEC.md 1.10, 1.13), with the same
# exit status and standard error: every output, on a clean trace with many
# PSBs and on a damaged one (flipped bytes, a run of PSB pairs), large enough
# to be cut into units for 3 threads
"$b/ptgen" --mix all --bytes 600000 --seed 3 --psb-every 2000 -o "$tmp/par.pt"
cp "$tmp/par.pt" "$tmp/pard.pt"
for off in 1000 50000 123457 300001 450000; do
  printf '\377' | dd of="$tmp/pard.pt" bs=1 seek=$off conv=notrunc 2> /dev/null
done
printf '\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202' |
  dd of="$tmp/pard.pt" bs=1 seek=200000 conv=notrunc 2> /dev/null
par_ok=1
for f in par pard; do
  for opts in "" "--jsonl" "--stats" "--stats --jsonl" "--events" "--no-sync" "--time" "--check" "--time --jsonl" "--check --jsonl"; do
    "$b/ptdump" -j 1 $opts "$tmp/$f.pt" > "$tmp/j1" 2> "$tmp/j1.err"; s1=$?
    "$b/ptdump" -j 3 $opts "$tmp/$f.pt" > "$tmp/j3" 2> "$tmp/j3.err"; s3=$?
    if [ $s1 != $s3 ] || [ ! -s "$tmp/j1" ] || ! cmp -s "$tmp/j1" "$tmp/j3" || ! cmp -s "$tmp/j1.err" "$tmp/j3.err"; then
      fail "jobs_print_what_one_prints: $f $opts" "status $s1/$s3: $(cmp "$tmp/j1" "$tmp/j3" 2>&1)"; par_ok=0
    fi
  done
done
# (standard input, --time and --check run on two threads, not cut at PSBs)
for opts in "" "--time" "--check"; do
  "$b/ptdump" -j 1 $opts "$tmp/pard.pt" > "$tmp/j1" 2> /dev/null; s1=$?
  "$b/ptdump" -j 3 $opts - < "$tmp/pard.pt" > "$tmp/j3" 2> /dev/null; s3=$?
  if [ $s1 != $s3 ] || [ ! -s "$tmp/j1" ] || ! cmp -s "$tmp/j1" "$tmp/j3"; then
    fail "jobs_print_what_one_prints: standard input $opts" "status $s1/$s3: $(cmp "$tmp/j1" "$tmp/j3" 2>&1)"; par_ok=0
  fi
done
"$b/ptdump" -j 1 "$tmp/pard.pt" > /dev/null 2>&1; s1=$?
[ $par_ok = 1 ] && [ $s1 = 1 ] && pass "jobs_print_what_one_prints: 2 traces, 10 outputs, and 3 from standard input"
[ $s1 = 1 ] || fail jobs_damaged_trace_has_errors "status $s1"
expect_status jobs_zero_refused 2 "$b/ptdump" -j 0 "$tmp/par.pt"
grep -q "^ptdump: -j 0: the number of threads is 1 to 256" "$tmp/err" && pass jobs_zero_named || fail jobs_zero_named "$(cat "$tmp/err")"
expect_status jobs_not_a_number 2 "$b/ptdump" -j x "$tmp/par.pt"

# nothing decoded is no success, and is said; errors are counted on stderr too;
# --time with no settings says what it assumed (SPEC.md 1.10, 3.9)
: > "$tmp/empty.pt"
expect_status dump_empty_input 1 "$b/ptdump" "$tmp/empty.pt"
grep -q "ptdump: $tmp/empty.pt is empty: nothing to decode" "$tmp/err" && pass dump_empty_input_said || fail dump_empty_input_said "$(cat "$tmp/err")"
printf '\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202\311' > "$tmp/bad1.pt"
expect_status dump_errors_counted 1 "$b/ptdump" "$tmp/bad1.pt"
grep -q "ptdump: 1 error in $tmp/bad1.pt (in the listing)" "$tmp/err" && pass dump_errors_counted_on_stderr \
  || fail dump_errors_counted_on_stderr "$(cat "$tmp/err")"
"$b/ptgen" --mix sparse --bytes 20000 -o "$tmp/g.pt"
"$b/ptdump" --time "$tmp/g.pt" > /dev/null 2> "$tmp/err"
"$b/ptdump" --time --mtc-freq 3 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 200 --nom-freq 24 "$tmp/g.pt" > /dev/null 2> "$tmp/err2"
grep -q 'no clock settings given' "$tmp/err" && ! grep -q 'no clock settings' "$tmp/err2" && pass time_says_what_it_assumed \
  || fail time_says_what_it_assumed "$(cat "$tmp/err")"

# ---- ptsim and ptdump --check (SPEC.md 2.2, 5.6) ----
expect_status sim_help 0 "$b/ptsim" --help
grep -q "resume_after=N" "$tmp/out" && grep -q -- "--compare-policy" "$tmp/out" && pass sim_help_text || fail sim_help_text
expect_status sim_no_output 2 "$b/ptsim" --workload dense
expect_status sim_unwritable_output 2 "$b/ptsim" --cycles 10 -o "$tmp/no-such-dir/x.pt"
grep -q "cannot write $tmp/no-such-dir/x.pt: No such file or directory" "$tmp/err" && pass sim_unwritable_output_named \
  || fail sim_unwritable_output_named "$(cat "$tmp/err")"
expect_status sim_bad_workload 2 "$b/ptsim" --workload nope -o "$tmp/x.pt"
expect_status sim_bad_policy 2 "$b/ptsim" --policy threshold=2,bogus=1 -o "$tmp/x.pt"
expect_status sim_unbounded_policy 2 "$b/ptsim" --policy threshold=2,resume_after=0 -o "$tmp/x.pt"
grep -q "policy.resume" "$tmp/err" && pass sim_unbounded_policy_named || fail sim_unbounded_policy_named "$(cat "$tmp/err")"
expect_status sim_bad_setting 2 "$b/ptsim" --set mtc_freq=99 -o "$tmp/x.pt"
# long work says how far it got on standard error when that is a terminal
# (script(1) gives it one), and says nothing into a pipe or a file
if command -v script > /dev/null 2>&1; then
  script -qc "'$b/ptsim' --cycles 150000000 --quiet -o '$tmp/p.pt'" /dev/null < /dev/null | tr '\r' '\n' > "$tmp/tty.out"
  "$b/ptsim" --cycles 150000000 --quiet -o "$tmp/p.pt" 2> "$tmp/err"
  if grep -q "^ptsim: [0-9]* of 150000000 cycles ([0-9]*%)" "$tmp/tty.out" && [ ! -s "$tmp/err" ]; then pass sim_progress_on_a_terminal_only
  else fail sim_progress_on_a_terminal_only "tty: $(head -c 200 "$tmp/tty.out"); pipe: $(head -c 200 "$tmp/err")"; fi
else
  echo "skip - sim_progress_on_a_terminal_only: script(1) is not installed"
fi
# the keys OUT.pt.json gives for decoders are named as such, not as unknown
expect_status sim_set_derived_key 2 "$b/ptsim" --set nom_freq=24 -o "$tmp/x.pt"
grep -q "nom_freq is not a setting.*art_hz" "$tmp/err" && pass sim_set_derived_key_explained \
  || fail sim_set_derived_key_explained "$(head -c 200 "$tmp/err")"
# ptgen says its mixes are random, not timelines, and that --bytes is a maximum
"$b/ptgen" --help > "$tmp/out"
grep -q "timing packets do not agree" "$tmp/out" && grep -q -- "--bytes    at most N bytes" "$tmp/out" \
  && pass ptgen_help_says_what_it_writes || fail ptgen_help_says_what_it_writes "$(head -5 "$tmp/out")"

"$b/ptsim" --workload filtered --cycles 3000000 -o "$tmp/f.pt" --truth "$tmp/f.truth" --compare-policy off > "$tmp/sim.out"; st=$?
if [ $st = 0 ] && grep -q '"mtc_freq":3,"cpuid_0x15_eax":2,"cpuid_0x15_ebx":200,"nom_freq":24' "$tmp/f.pt.json" \
   && grep -q '"policy":{"threshold":2' "$tmp/f.pt.json"; then pass sim_writes_config; else fail sim_writes_config "status $st"; fi
grep -q "bytes saved by threshold=2" "$tmp/sim.out" && grep -q "ptdump --config" "$tmp/sim.out" \
  && pass sim_compare_summary || fail sim_compare_summary "$(head -c 400 "$tmp/sim.out")"
# one truth line per packet in the trace, at the same offsets
"$b/ptdump" --jsonl "$tmp/f.pt" | sed 's/.*"off":\([0-9]*\),"size":[0-9]*,"type":"\([a-z_0-9]*\)".*/\1 \2/' > "$tmp/dump.ot"
grep '^{"off"' "$tmp/f.truth" | sed 's/{"off":\([0-9]*\),"type":"\([a-z_0-9]*\)".*/\1 \2/' > "$tmp/truth.ot"
if cmp -s "$tmp/dump.ot" "$tmp/truth.ot" && [ "$(wc -l < "$tmp/truth.ot")" -gt 50 ] && grep -q '^{"suppressed":"mtc"' "$tmp/f.truth"; then
  pass sim_truth_matches_trace; else fail sim_truth_matches_trace "$(diff "$tmp/dump.ot" "$tmp/truth.ot" | head -5)"; fi
# a configuration file is strict JSON with known keys (SPEC 5.6): each bad
# one is refused by ptdump and ptnav with the key or the place named
cfg_refused() { # name text what-the-message-names
  printf '%s' "$2" > "$tmp/bad.json"
  for t in ptdump ptnav; do
    query=""; [ $t = ptnav ] && query="--tsc 0"
    # shellcheck disable=SC2086 # the query is two words or none
    "$b/$t" --config "$tmp/bad.json" "$tmp/f.pt" $query > /dev/null 2> "$tmp/err"; st=$?
    if [ $st = 2 ] && grep -q -- "$3" "$tmp/err"; then pass "config_refused_${1}_$t"
    else fail "config_refused_${1}_$t" "status $st: $(head -c 300 "$tmp/err")"; fi
  done
}
cfg_refused random_bytes "$(head -c 64 "$tmp/f.pt" | tr -d '\000')" "line 1, column 1:"
cfg_refused unclosed '{"mtc_freq":3' "expected ',' or '}'"
cfg_refused misspelt_key '{"mtc_frq":3}' 'unknown key "mtc_frq"'
cfg_refused misspelt_policy_key '{"policy":{"treshold":2}}' 'unknown key "treshold"'
cfg_refused wrong_type '{"cyc_en":true}' "cyc_en must be a whole number from 0 to 1, not true or false"
cfg_refused string_number '{"mtc_freq":"3"}' "mtc_freq must be a whole number from 0 to 15, not a string"
cfg_refused out_of_range '{"psb_freq":16}' "psb_freq must be a whole number from 0 to 15"
cfg_refused twice '{"os":1,"os":0}' '"os" is given twice'
cfg_refused trailing_comma '{"os":1,}' "a comma before '}'"
cfg_refused after_object '{"os":1}{}' "text after the end"
cfg_refused bad_filter '{"filters":[[1]]}' "a filter is \[lo, hi\]"
cfg_refused below_range '{"art_hz":0}' "art_hz must be a whole number from 1 to 100000000"
cfg_refused model_narrows '{"cpuid_0x15_eax":0,"cpuid_0x15_ebx":0}' "the model refuses this cpuid_0x15_eax"
cfg_refused model_refuses '{"cpuid_0x15_eax":1,"cpuid_0x15_ebx":600}' "the model refuses this cpuid_0x15_ebx"
cfg_refused nom_freq_disagrees '{"nom_freq":7}' "nom_freq is 7, but"
sed 's/,"/,\n  "/g' "$tmp/f.pt.json" > "$tmp/lines.json"
if "$b/ptdump" --check --config "$tmp/lines.json" "$tmp/f.pt" > "$tmp/out" && "$b/ptdump" --check --config "$tmp/f.pt.json" "$tmp/f.pt" | cmp -s - "$tmp/out"
then pass config_on_lines_reads_the_same; else fail config_on_lines_reads_the_same "$(head -2 "$tmp/out")"; fi
expect_status check_with_config 0 "$b/ptdump" --check --config "$tmp/f.pt.json" "$tmp/f.pt"
grep -q '^\[check: [0-9]* packets; 0 violations, 0 suspicious' "$tmp/out" && [ "$(wc -l < "$tmp/out")" = 1 ] \
  && pass check_prints_findings_only || fail check_prints_findings_only "$(head -3 "$tmp/out")"
expect_status check_wrong_policy 1 "$b/ptdump" --check --jsonl --policy off "$tmp/f.pt"
grep -q '"rule":"missing_mtc","severity":"violation","sdm":"US 12,386,726"' "$tmp/out" && pass check_names_violation \
  || fail check_names_violation "$(head -2 "$tmp/out")"
# ---- ptdump --check with no settings, and --rules (SPEC.md 7.4) ----
expect_status check_without_settings 0 "$b/ptdump" --check "$tmp/f.pt"
expect_status check_refuses_time 2 "$b/ptdump" --check --time "$tmp/f.pt"
expect_status check_refuses_sideband 2 "$b/ptdump" --check --sideband "$tmp/f.pt"
# --stats counts what the listing lists, type by type, and the bytes are the file's
expect_status stats_refuses_check 2 "$b/ptdump" --stats --check "$tmp/f.pt"
"$b/ptdump" --jsonl "$tmp/f.pt" | sed -n 's/.*"type":"\([a-z0-9_]*\)".*/\1/p' | sort | uniq -c |
  awk '{ print $2, $1 }' > "$tmp/listed"
"$b/ptdump" --stats "$tmp/f.pt" | awk 'NR > 1 && !/^\[/ { print $1, $2 }' | sort > "$tmp/counted"
"$b/ptdump" --stats --time --config "$tmp/f.pt.json" --jsonl "$tmp/f.pt" | tail -1 > "$tmp/total"
if [ -s "$tmp/counted" ] && cmp -s "$tmp/listed" "$tmp/counted" &&
   grep -q "\"bytes\":$(wc -c < "$tmp/f.pt" | tr -d ' '),\"errors\":0,.*\"time_last\"" "$tmp/total"
then pass "stats_count_the_listing: $(wc -l < "$tmp/counted") types"
else fail stats_count_the_listing "$(diff "$tmp/listed" "$tmp/counted" | head -5) $(cat "$tmp/total")"; fi
# --events (SPEC 3.13): the listing without the timing packets; with --time the
# events decoder times the same events, each interval holding the listing's point
expect_status events_refuse_check 2 "$b/ptdump" --check --events "$tmp/f.pt"
"$b/ptdump" --jsonl "$tmp/f.pt" | grep -v '"type":"\(pad\|mtc\|cyc\|tsc\|tma\)"' > "$tmp/listed"
"$b/ptdump" --jsonl --events "$tmp/f.pt" > "$tmp/events"
"$b/ptdump" --jsonl --time --config "$tmp/f.pt.json" "$tmp/f.pt" | grep -v '"type":"\(pad\|mtc\|cyc\|tsc\|tma\)"' |
  sed 's/,"time.*//; s/}$//' > "$tmp/full"
"$b/ptdump" --jsonl --time --events --config "$tmp/f.pt.json" "$tmp/f.pt" > "$tmp/timed"
if [ -s "$tmp/events" ] && cmp -s "$tmp/listed" "$tmp/events" && sed 's/,"time.*//; s/}$//' "$tmp/timed" | cmp -s - "$tmp/full" &&
   [ "$(grep -c '"time_lo"' "$tmp/timed")" -gt "$(($(wc -l < "$tmp/timed") / 2))" ]
then pass "events_are_the_listing_without_timing_packets: $(wc -l < "$tmp/timed") events"
else fail events_are_the_listing_without_timing_packets "$(diff "$tmp/listed" "$tmp/events" | head -3)"; fi
expect_status rules_listed 0 "$b/ptdump" --rules
# the catalogue has one row a rule in SPEC.md 7.3: as many as --rules prints
spec_rows=$(sed -n '/<!-- rule-catalogue -->/,/^$/p' "$(dirname "$0")/../SPEC.md" | grep -c '^| `')
[ "$(wc -l < "$tmp/out")" = "$spec_rows" ] && grep -q '^psb_no_cbr  *violation  *\[36.4.2.10\]' "$tmp/out" \
  && pass rules_match_spec || fail rules_match_spec "$(wc -l < "$tmp/out") rules printed, $spec_rows in SPEC.md"
"$b/ptdump" --rules --jsonl | grep -c '^{"rule":"[a-z_]*","severity":"[a-z]*","sdm":"[^"]*","msg":"[^"]*"}$' > "$tmp/n"
[ "$(cat "$tmp/n")" = "$spec_rows" ] && pass rules_jsonl || fail rules_jsonl "$(cat "$tmp/n") of $spec_rows"
# a PSB+ without CBR (nor FUP), then a TNT: psb_no_cbr at 0, flow_while_off at the TNT; exit 1
printf '\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\043\006' > "$tmp/nocbr.pt"
expect_status check_breaking_stream 1 "$b/ptdump" --check "$tmp/nocbr.pt"
head -1 "$tmp/out" | grep -q '^0000000000000000  violation   psb_no_cbr  *\[36.4.2.10\]  a PSB+ without a CBR$' \
  && sed -n 2p "$tmp/out" | grep -q '^0000000000000012  violation   flow_while_off ' \
  && tail -1 "$tmp/out" | grep -q '^\[check: 3 packets; 2 violations.*0 malformed' && pass check_names_offset_and_rule \
  || fail check_names_offset_and_rule "$(cat "$tmp/out")"
cat "$tmp/nocbr.pt" | "$b/ptdump" --check --jsonl - > "$tmp/out"
grep -q '^{"off":0,"rule":"psb_no_cbr","severity":"violation","sdm":"36.4.2.10","msg":"a PSB+ without a CBR"}$' "$tmp/out" \
  && grep -q '^{"packets":3,"violation":2,"suspicious":0,"erratum":0,"malformed":0}$' "$tmp/out" \
  && pass check_jsonl_stdin || fail check_jsonl_stdin "$(cat "$tmp/out")"
# --cyc-thresh alone gives --check where CYCs go (SPEC.md 7.3.5): the
# threshold the trace was written with passes, a higher one is refused
"$b/ptsim" --workload dense --cycles 300000 --set cyc_en=1,cyc_thresh=3 -o "$tmp/ct.pt" --quiet
"$b/ptdump" --check --cyc-thresh 3 "$tmp/ct.pt" > "$tmp/ct3"; st3=$?
"$b/ptdump" --check --cyc-thresh 5 "$tmp/ct.pt" > "$tmp/ct5"; st5=$?
if [ $st3 = 0 ] && [ $st5 = 1 ] && grep -q '  violation   cyc_under_threshold ' "$tmp/ct5"; then pass check_cyc_thresh_alone
else fail check_cyc_thresh_alone "status $st3/$st5: $(tail -1 "$tmp/ct3") $(tail -1 "$tmp/ct5")"; fi
# a cut trace is no violation; a malformed packet is
head -c 17 "$tmp/f.pt" > "$tmp/cut.pt"
expect_status check_cut_trace 0 "$b/ptdump" --check "$tmp/cut.pt"
cp "$tmp/nocbr.pt" "$tmp/bad.pt"; printf '\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202\003\040\000\002\043\311' >> "$tmp/bad.pt"
expect_status check_malformed 1 "$b/ptdump" --check "$tmp/bad.pt"

# ---- ptdump --time (SPEC.md 3.9): every true time inside its interval ----
time_inside() { # name ptdump-args...
  name=$1; shift
  "$b/ptdump" --time --jsonl "$@" "$tmp/m.pt" > "$tmp/m.time"; st=$?
  grep '^{"off"' "$tmp/m.truth" | paste - "$tmp/m.time" | awk -f "$(dirname "$0")/time_inside.awk" > "$tmp/m.awk"
  if [ $st = 0 ] && grep -q ' timed, 0 outside$' "$tmp/m.awk"; then pass "$name: $(cat "$tmp/m.awk")"; else fail "$name" "status $st: $(head -c 600 "$tmp/m.awk")"; fi
}
"$b/ptsim" --workload mixed --cycles 3000000 --set cyc_en=1,cyc_thresh=3 -o "$tmp/m.pt" --truth "$tmp/m.truth" --quiet
time_inside time_with_config --config "$tmp/m.pt.json"
time_inside time_with_libipt_flags --mtc-freq 3 --nom-freq 24 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 200 --cyc-bits 12 --policy seed
time_inside time_with_cyc_thresh --mtc-freq 3 --nom-freq 24 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 200 --cyc-bits 12 --policy seed --cyc-thresh 3
expect_status time_refuses_cyc_bits_0 2 "$b/ptdump" --time --mtc-freq 3 --cyc-bits 0 "$tmp/f.pt"
grep -q -- "--cyc-bits: the cycle counter is 1 to 64 bits wide" "$tmp/err" && pass time_names_cyc_bits_0 \
  || fail time_names_cyc_bits_0 "$(head -c 200 "$tmp/err")"
time_inside time_policy_unknown --config "$tmp/m.pt.json" --policy unknown
"$b/ptdump" --time "$tmp/m.pt" | grep -m1 ' tsc ' > "$tmp/line"
grep -q '^[0-9a-f]\{16\}  tsc        1000000 *  time 1000000 \[1000000, 1000001\]$' "$tmp/line" \
  && pass time_text_column || fail time_text_column "$(cat "$tmp/line")"
expect_status time_bad_config 2 "$b/ptdump" --time --cpuid-0x15.eax 3 "$tmp/m.pt"
expect_status time_bad_number 2 "$b/ptdump" --time --mtc-freq 16 "$tmp/m.pt"

# a scenario on standard input
printf 'set mtc_freq=0\npolicy threshold=2\nstart 0x401000\nidle-mtc 5\nindirect 0x401000 0x402000\nstop\n' \
  | "$b/ptsim" --scenario - -o "$tmp/s.pt" --quiet; st=$?
if [ $st = 0 ] && [ "$("$b/ptdump" --jsonl "$tmp/s.pt" | grep -c '"type":"mtc"')" = 2 ] && grep -q '"mtc_freq":0' "$tmp/s.pt.json"; then
  pass sim_scenario_stdin; else fail sim_scenario_stdin "status $st"; fi
printf 'start 0x401000\nfly 3\n' | "$b/ptsim" --scenario - -o "$tmp/s2.pt" --quiet 2>"$tmp/err"; st=$?
[ $st = 2 ] && grep -q "line 2: unknown command 'fly'" "$tmp/err" && pass sim_scenario_error || fail sim_scenario_error "$(cat "$tmp/err")"

# ---- ptnav (SPEC.md 4.4) against ptsim's truth ----
"$b/ptsim" --workload dense --cycles 1000000 --set cyc_en=1 -o "$tmp/n.pt" --truth "$tmp/n.truth" --quiet
grep '^{"retire"' "$tmp/n.truth" | sed 's/[{}"]//g; s/[a-z_]*://g; s/,/ /g' > "$tmp/n.rt" # retire cycle off tsc
total=$(wc -l < "$tmp/n.rt" | tr -d ' ')
bad=0; n=0
for i in $(awk -v t="$total" 'BEGIN { for (i = 0; i < t; i += int(t / 25) + 1) print i }'); do
  cyc=$(awk -v i="$i" '$1 == i { print $2 }' "$tmp/n.rt")
  # the answer: the last retirement whose true cycle is at most cyc
  want=$(awk -v c="$cyc" '$2 <= c { w = $1 } END { print w }' "$tmp/n.rt")
  line=$("$b/ptnav" --config "$tmp/n.pt.json" "$tmp/n.pt" --cycle "$cyc")
  lo=$(echo "$line" | sed 's/.*"retire_min":\([0-9]*\).*/\1/'); hi=$(echo "$line" | sed 's/^{"retire":\([0-9]*\).*/\1/')
  n=$((n + 1))
  [ "$lo" -le "$want" ] && [ "$want" -le "$hi" ] || { bad=$((bad + 1)); echo "  cycle $cyc: want $want, got $line"; }
done
[ $n -gt 20 ] && [ $bad = 0 ] && pass "nav_cycle_lands_on_truth: $n queries" || fail nav_cycle_lands_on_truth "$bad of $n wrong"
i=$((total / 2)); off=$(awk -v i="$i" '$1 == i { print $3 }' "$tmp/n.rt")
"$b/ptnav" --config "$tmp/n.pt.json" "$tmp/n.pt" --retire "$i" --back 2 > "$tmp/n.out"; st=$?
if [ $st = 0 ] && [ "$(wc -l < "$tmp/n.out" | tr -d ' ')" = 3 ] && head -1 "$tmp/n.out" | grep -q "^{\"retire\":$i,\"retire_min\":$i,\"off\":$off," \
   && sed -n 3p "$tmp/n.out" | grep -q "^{\"retire\":$((i - 2)),\"off\":$(awk -v i="$((i - 2))" '$1 == i { print $3 }' "$tmp/n.rt"),"; then
  pass nav_retire_and_back; else fail nav_retire_and_back "status $st: $(cat "$tmp/n.out")"; fi
expect_status nav_help 0 "$b/ptnav" --help
expect_status nav_no_query 2 "$b/ptnav" --config "$tmp/n.pt.json" "$tmp/n.pt"
expect_status nav_two_queries 2 "$b/ptnav" --config "$tmp/n.pt.json" "$tmp/n.pt" --cycle 1 --tsc 1
expect_status nav_bad_number 2 "$b/ptnav" --config "$tmp/n.pt.json" "$tmp/n.pt" --cycle -3
expect_status nav_no_pebs_records 1 "$b/ptnav" --config "$tmp/n.pt.json" "$tmp/n.pt" --pebs 0
expect_status nav_cycle_needs_cyc 2 "$b/ptnav" --config "$tmp/s.pt.json" "$tmp/s.pt" --cycle 1
expect_status nav_missing_trace 2 "$b/ptnav" --config "$tmp/n.pt.json" "$tmp/nope.pt" --cycle 1
expect_status nav_before_anything 1 "$b/ptnav" --config "$tmp/n.pt.json" "$tmp/n.pt" --tsc 0
# a raw trace with no --config: the clock flags as ptdump takes them, read
# here from the trace's own configuration; the answer is the same retirement
num() { sed 's/.*"'"$1"'":\([0-9]*\).*/\1/' "$tmp/n.pt.json"; }
flags="--mtc-freq $(num mtc_freq) --nom-freq $(num nom_freq) --cpuid-0x15.eax $(num cpuid_0x15_eax) --cpuid-0x15.ebx $(num cpuid_0x15_ebx)"
with_config=$("$b/ptnav" --config "$tmp/n.pt.json" "$tmp/n.pt" --retire 500 | cut -d, -f1-5)
# shellcheck disable=SC2086 # flags is a list of words
raw=$("$b/ptnav" $flags "$tmp/n.pt" --retire 500 2> "$tmp/err" | cut -d, -f1-5); st=$?
if [ -n "$raw" ] && [ "$raw" = "$with_config" ] && [ ! -s "$tmp/err" ]; then pass nav_raw_trace_with_clock_flags
else fail nav_raw_trace_with_clock_flags "'$raw' vs '$with_config': $(head -c 200 "$tmp/err")"; fi
"$b/ptnav" "$tmp/n.pt" --retire 500 > /dev/null 2> "$tmp/err"
grep -q "^ptnav: no clock settings given" "$tmp/err" && pass nav_raw_trace_says_what_is_assumed \
  || fail nav_raw_trace_says_what_is_assumed "$(head -c 200 "$tmp/err")"
expect_status nav_raw_trace_cycle_needs_config 2 "$b/ptnav" "$tmp/n.pt" --cycle 5
# --cyc-thresh says a raw trace was recorded with CYC: --cycle then answers as with --config
with_config=$("$b/ptnav" --config "$tmp/n.pt.json" "$tmp/n.pt" --cycle "$cyc" | cut -d, -f1-5)
# shellcheck disable=SC2086 # flags is a list of words
raw=$("$b/ptnav" $flags --cyc-thresh "$(num cyc_thresh)" "$tmp/n.pt" --cycle "$cyc" 2> "$tmp/err" | cut -d, -f1-5)
if [ -n "$raw" ] && [ "$raw" = "$with_config" ]; then pass nav_raw_trace_cycle_with_cyc_thresh
else fail nav_raw_trace_cycle_with_cyc_thresh "'$raw' vs '$with_config': $(head -c 200 "$tmp/err")"; fi
expect_status nav_bad_clock_flag 2 "$b/ptnav" --mtc-freq 16 "$tmp/n.pt" --retire 1
grep -q -- "--mtc-freq" "$tmp/err" && pass nav_bad_clock_flag_named || fail nav_bad_clock_flag_named "$(head -c 200 "$tmp/err")"
# every path frees what it took: a query with no answer (LeakSanitizer in the sanitized build)
for q in "--retire 999999999" "--tsc 0" "--pebs 0"; do
  # shellcheck disable=SC2086 # the query is two words
  "$b/ptnav" --config "$tmp/n.pt.json" "$tmp/n.pt" $q > /dev/null 2> "$tmp/err"; st=$?
  name="nav_no_answer_frees_all_$(echo "${q#--}" | cut -d' ' -f1)"
  if [ $st = 1 ] && ! grep -q "LeakSanitizer" "$tmp/err" && grep -q "has [0-9][0-9]* retirements over [0-9][0-9]* cycles)" "$tmp/err"; then pass "$name"
  else fail "$name" "status $st: $(head -c 300 "$tmp/err")"; fi
done
grep -q "not_found" "$tmp/err" && pass nav_not_found_named || fail nav_not_found_named "$(cat "$tmp/err")"

# ---- snapshot capture around a trigger (SPEC.md 4.5, 5.7) ----
"$b/ptsim" --workload dense --cycles 2000000 --set cyc_en=1,trigger_ip=0x4013f0,trigger_nth=1000,trigger_fup=1 \
  --snapshot auto --history 8000 --after 2000 -o "$tmp/r.pt" --truth "$tmp/r.truth" --quiet
trig=$(grep '"type":"trig"' "$tmp/r.truth" | sed 's/^{"off":\([0-9]*\),.*/\1/')
"$b/ptdump" --jsonl --config "$tmp/r.pt.json" "$tmp/r.pt" > "$tmp/r.dump"; st=$?
from=$(tail -1 "$tmp/r.dump" | sed 's/.*"decoded_from":\([0-9]*\).*/\1/')
written=$(tail -1 "$tmp/r.dump" | sed 's/.*"ring_written":\([0-9]*\).*/\1/')
if [ $st = 0 ] && [ -n "$trig" ] && [ $((trig - from)) -ge 8000 ] && [ $((written - trig)) -ge 2000 ] \
   && [ "$(grep -c '"type":"trig"' "$tmp/r.dump")" = 1 ]; then
  pass "snapshot_keeps_history: TRIG at $trig, decoded from $from"; else fail snapshot_keeps_history "status $st, trig $trig, from $from, written $written"; fi
first=$(grep '^{"retire"' "$tmp/r.truth" | sed 's/[{}"]//g; s/[a-z_]*://g; s/,/ /g' | awk -v f="$from" '$3 >= f { print $3; exit }')
"$b/ptnav" --config "$tmp/r.pt.json" "$tmp/r.pt" --retire 0 > "$tmp/r.nav"; st=$?
[ $st = 0 ] && grep -q "\"off\":$first," "$tmp/r.nav" && pass nav_over_snapshot || fail nav_over_snapshot "status $st, want off $first: $(cat "$tmp/r.nav")"
expect_status sim_bad_snapshot 2 "$b/ptsim" --snapshot 0 -o "$tmp/x.pt"

# ---- counters, threads, PEBS via PT (SPEC.md 5.8) ----
"$b/ptsim" --workload dense --cycles 1000000 --set cyc_en=1 --threads 2 -o "$tmp/c.pt" --truth "$tmp/c.truth" \
  --counter indirect,pebs=1,start=1099511627770 --counter branch,outcome=1,threads=2 > "$tmp/c.out"; st=$?
if [ $st = 0 ] && [ -s "$tmp/c.pt.t1" ] && grep -q "^counter 0 (indirect): [0-9]*, 1 overflows$" "$tmp/c.out" \
   && grep -q "^counter 1 (branch): [1-9][0-9]*, 0 overflows$" "$tmp/c.out"; then pass sim_counters_threads
else fail sim_counters_threads "status $st: $(tail -3 "$tmp/c.out")"; fi
"$b/ptnav" --config "$tmp/c.pt.json" "$tmp/c.pt" --pebs 0 > "$tmp/c.nav"; st=$?
off=$(sed 's/.*"off":\([0-9]*\),.*/\1/' "$tmp/c.nav"); pip=$(sed 's/.*"pebs_ip":"\(0x[0-9a-f]*\)".*/\1/' "$tmp/c.nav")
if [ $st = 0 ] && grep -q "\"type\":\"fup\",\"ip\":\"$pip\"" "$tmp/c.nav" && grep -q "^{\"retire\":[0-9]*,\"cycle\":[0-9]*,\"off\":$off," "$tmp/c.truth" \
   && grep -q "^{\"event\":\"indirect\".*\"ip\":\"$pip\"" "$tmp/c.truth"; then pass nav_pebs_to_instruction
else fail nav_pebs_to_instruction "status $st: $(cat "$tmp/c.nav")"; fi
expect_status sim_bad_counter 2 "$b/ptsim" --counter nope -o "$tmp/x.pt"
# a counter spec too long to hold is refused, not cut short and read as another: its
# first 255 characters are a good spec, the bad value after them must not go unread
long_counter="branch$(printf ',usr=1%.0s' $(seq 4))$(printf ',os=1%.0s' $(seq 45)),usr=7"
expect_status sim_counter_too_long 2 "$b/ptsim" --cycles 1000 --counter "$long_counter" -o "$tmp/x.pt"
expect_status sim_threads_scenario 2 "$b/ptsim" --threads 2 --scenario "$tmp/none" -o "$tmp/x.pt"
printf 'counter privilege,os=0\ncounter branch,os=1,usr=0\nset os=1\nstart 0x401000\nprivilege 0x401000 0xffffffff81000000 0\nbranch 0xffffffff81000000 0xffffffff81000040 taken\nprivilege 0xffffffff81000040 0x401010 3\nstop\n' \
  | "$b/ptsim" --scenario - -o "$tmp/k.pt" > "$tmp/k.out"; st=$?
if [ $st = 0 ] && grep -q "^counter 0 (privilege): 1, 0 overflows$" "$tmp/k.out" && grep -q "^counter 1 (branch): 1, 0 overflows$" "$tmp/k.out"; then
  pass sim_scenario_privilege_counters; else fail sim_scenario_privilege_counters "status $st: $(tail -3 "$tmp/k.out")"; fi
# ---- ptdump --time on a real trace (SPEC.md 3.11): the hardware defaults
# leave no conflict; the SDM's ideal clocks (no jitter, no lost MTC, no
# wobble) do ----
shared=""
for d in "${PTCODEC_SHARED:-}" ../shared /work/shared; do [ -n "$d" ] && [ -d "$d/pt-traces-timed" ] && { shared=$d; break; }; done
real="$shared/pt-traces-timed/DynamoRIO_dynamorio__test_simple.raw_pt.d9e0e666.bin"
if [ -n "$shared" ] && [ -f "$real" ]; then
  cfg="--mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308"
  "$b/ptdump" --time $cfg "$real" > "$tmp/real.txt"; st=$?
  "$b/ptdump" --time $cfg --mtc-jitter 0 --rate-ppm 0 --mtc-lost 0 "$real" > "$tmp/real_sdm.txt"
  n=$(grep -c conflict "$tmp/real.txt"); m=$(grep -c conflict "$tmp/real_sdm.txt")
  if [ $st = 0 ] && [ "$n" = 0 ] && [ "$m" -gt 100 ]; then pass "time_real_trace_no_conflict: 0 conflicts ($m with ideal clocks)"
  else fail time_real_trace_no_conflict "status $st, $n conflicts, $m with ideal clocks"; fi
  # with the recording CPU's errata (6/85: skz84, SPEC.md 3.12) as libipt's --cpu gives them
  "$b/ptdump" --time $cfg --cpu 6/85/4 "$real" > "$tmp/real_cpu.txt"; st=$?
  "$b/ptdump" --time $cfg --errata skz84 "$real" > "$tmp/real_errata.txt"
  n=$(grep -c conflict "$tmp/real_cpu.txt")
  if [ $st = 0 ] && [ "$n" = 0 ] && cmp -s "$tmp/real_cpu.txt" "$tmp/real_errata.txt" && ! cmp -s "$tmp/real_cpu.txt" "$tmp/real.txt"
  then pass time_real_trace_with_cpu_errata; else fail time_real_trace_with_cpu_errata "status $st, $n conflicts"; fi
else
  echo "skip - time_real_trace_no_conflict: shared/pt-traces-timed is not there"
fi

# ---- wrong clock settings are said, and which one (SPEC.md 3.9): a real
# trace timed with each setting wrong in turn names that setting on stderr;
# with its own settings stderr is empty; --stats --time counts them; SKZ84
# says what it costs ----
af="$shared/pt-traces-timed/DynamoRIO_dynamorio__test_simple.tracedir_pt.af553eb7.bin"
if [ -n "$shared" ] && [ -f "$af" ]; then
  right="--mtc-freq 3 --nom-freq 30 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 250"
  "$b/ptdump" --time $right "$af" > /dev/null 2> "$tmp/right.err"; st=$?
  if [ $st = 0 ] && [ ! -s "$tmp/right.err" ]; then pass time_right_settings_quiet
  else fail time_right_settings_quiet "status $st: $(cat "$tmp/right.err")"; fi
  for wrong in "--cpuid-0x15.eax/.ebx 2/308|--mtc-freq 3 --nom-freq 30 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308" \
               "--mtc-freq 2|--mtc-freq 2 --nom-freq 30 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 250" \
               "--mtc-freq 5|--mtc-freq 5 --nom-freq 30 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 250" \
               "--nom-freq 37.0|--mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 250"; do
    named=${wrong%%|*}; flags=${wrong#*|}
    # shellcheck disable=SC2086
    "$b/ptdump" --time $flags "$af" > "$tmp/wrong.txt" 2> "$tmp/wrong.err"; st=$?
    lines=$(grep -c . "$tmp/wrong.err"); n=$(grep -c 'conflict$' "$tmp/wrong.txt")
    if [ $st = 0 ] && [ "$lines" = 1 ] && grep -q "^ptdump: --time: $n of [0-9]* timed items conflict: .*most likely wrong: $named (" "$tmp/wrong.err"
    then pass "time_wrong_setting_named: $named ($n conflicts)"
    else fail "time_wrong_setting_named: $named" "status $st, $n conflicts: $(cat "$tmp/wrong.err")"; fi
  done
  # (the last wrong flags above: their listing's conflicts)
  # shellcheck disable=SC2086
  "$b/ptdump" --stats --time $flags "$af" > "$tmp/st.txt" 2>/dev/null
  "$b/ptdump" --stats --time $right "$af" > "$tmp/st0.txt" 2>/dev/null
  if [ "$n" -gt 1000 ] && grep -q ", $n conflicts\]" "$tmp/st.txt" && grep -q ", 0 conflicts\]" "$tmp/st0.txt"
  then pass "time_stats_count_conflicts: $n"
  else fail time_stats_count_conflicts "$n in the listing: $(tail -1 "$tmp/st.txt") / $(tail -1 "$tmp/st0.txt")"; fi
  "$b/ptdump" --time $right --cpu 6/85/4 "$af" > /dev/null 2> "$tmp/skz.err"
  if grep -q "^ptdump: --time: erratum skz84 .* the 2264 MTCs of this trace time nothing" "$tmp/skz.err"; then pass time_erratum_cost_said
  else fail time_erratum_cost_said "$(cat "$tmp/skz.err")"; fi
  # --check with the clock (SPEC.md 7.3.5): the right settings are clean; a
  # wrong ratio makes the TSC and TMA contradict the MTCs, a wrong nom the
  # CYCs the TSCs and the MTCs, a wrong MTCFreq the CYCs the MTCs
  # shellcheck disable=SC2086
  "$b/ptdump" --check $right "$af" > "$tmp/ck.txt"; st=$?
  "$b/ptdump" --check --mtc-freq 3 --nom-freq 30 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308 "$af" > "$tmp/ck1.txt"; st1=$?
  "$b/ptdump" --check --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 250 "$af" > "$tmp/ck2.txt"; st2=$?
  "$b/ptdump" --check --mtc-freq 2 --nom-freq 30 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 250 "$af" > "$tmp/ck3.txt"; st3=$?
  if [ $st = 0 ] && [ $st1 = 1 ] && [ $st2 = 1 ] && [ $st3 = 1 ] && grep -q '^00000000000043b6  violation   tsc_before_mtcs ' "$tmp/ck1.txt" &&
     grep -q '^00000000000043c6  violation   tma_ctc_mismatch ' "$tmp/ck1.txt" &&
     grep -q '^00000000000043b6  violation   cyc_over_tsc ' "$tmp/ck2.txt" && grep -q '  violation   cyc_over_mtcs ' "$tmp/ck2.txt" &&
     [ "$(grep -vc '^\[check' "$tmp/ck3.txt")" = "$(grep -c '  violation   cyc_over_mtcs ' "$tmp/ck3.txt")" ] &&
     grep -q '  violation   cyc_over_mtcs ' "$tmp/ck3.txt"
  then pass check_time_rules_name_wrong_clock
  else fail check_time_rules_name_wrong_clock "status $st/$st1/$st2/$st3: $(cat "$tmp/ck.txt" "$tmp/ck1.txt" "$tmp/ck2.txt" "$tmp/ck3.txt")"; fi
else
  echo "skip - time_wrong_setting_named: shared/pt-traces-timed is not there"
fi

# ---- every real trace passes ptdump --check with no settings (SPEC.md 7.5); libipt's
# synthetic loop-tnt (pttc) lacks a CBR in its PSB+ ----
if [ -n "$shared" ]; then
  bad=""; n=0
  for t in "$shared"/pt-traces/*.pt "$shared"/pt-traces-timed/*.bin "$shared"/pt-traces-timed/*perf.data* \
           "$shared"/pt-traces-timed/*.data*; do
    [ -f "$t" ] || continue
    n=$((n + 1)); want=0
    case $t in *loop-tnt.pt) want=1 ;; esac
    "$b/ptdump" --check "$t" > "$tmp/chk" 2>&1; st=$?
    [ "$st" = "$want" ] || bad="$bad $(basename "$t"):$st"
  done
  [ -z "$bad" ] && [ "$n" -ge 20 ] && pass "check_real_traces: $n traces" || fail check_real_traces "$bad"
  # BDM70 on a recorded Skylake (6/78) is an erratum there, suspicious where the CPU is unknown
  perf="$shared/pt-traces-timed/google_perf_data_converter__perf.data.intel_pt-4.14"
  "$b/ptdump" --check "$perf" | grep -c 'erratum     pge_while_on.*(erratum bdm70)$' > "$tmp/n"
  libxdc="$shared/pt-traces/libxdc_experiments__Kernel_trace.pt"
  if [ "$(cat "$tmp/n")" = 2 ] && "$b/ptdump" --check "$libxdc" | grep -q 'suspicious  pge_while_on.*(erratum bdm70)$' &&
     "$b/ptdump" --check --cpu 6/92 "$libxdc" | grep -q 'violation   pge_while_on' &&
     "$b/ptdump" --check --cpu 6/78 "$libxdc" | grep -q 'erratum     pge_while_on'
  then pass check_bdm70_by_cpu; else fail check_bdm70_by_cpu "$(cat "$tmp/n") in the perf.data"; fi
else
  echo "skip - check_real_traces: shared/pt-traces is not there"
fi

expect_status dump_bad_cpu 2 "$b/ptdump" --time --cpu 6/x "$tmp/x.pt"
"$b/ptsim" --quiet --workload sparse --cycles 20000 -o "$tmp/raw.pt"
expect_status dump_cpu_queue_on_a_raw_trace 2 "$b/ptdump" --cpu 6 "$tmp/raw.pt"
expect_status dump_unknown_erratum 2 "$b/ptdump" --time --errata skl168,nope "$tmp/x.pt"

# erratum SKD007 (SPEC.md 1.9 rule 5): the model cuts CYCs at OVFs; ptdump reads each as
# cut_cyc when told of the erratum (by the model's configuration, --errata or --cpu), else not
"$b/ptsim" --quiet --workload dense --cycles 1000000 --set cyc_en=1,cyc_thresh=7,fifo_bytes=128,drain_bytes=1,drain_cycles=16,skd007=1 \
  -o "$tmp/skd.pt" --truth "$tmp/skd.jsonl"
cuts=$(grep -c '"cut":true' "$tmp/skd.jsonl")
by_config=$("$b/ptdump" --config "$tmp/skd.pt.json" "$tmp/skd.pt" | grep -c 'cut_cyc')
by_name=$("$b/ptdump" --errata skd007 "$tmp/skd.pt" | grep -c 'cut_cyc')
by_cpu=$("$b/ptdump" --time --cpu 6/94 "$tmp/skd.pt" | grep -c 'cut_cyc')
untold=$("$b/ptdump" "$tmp/skd.pt" | grep -c 'cut_cyc')
if [ "$cuts" -gt 0 ] && [ "$by_config" = "$cuts" ] && [ "$by_name" = "$cuts" ] && [ "$by_cpu" = "$cuts" ] && [ "$untold" = 0 ]
then pass dump_skd007_cut_cyc; else fail dump_skd007_cut_cyc "$cuts cut, read $by_config/$by_name/$by_cpu, untold $untold"; fi

# erratum SKZ84 (SPEC.md 1.9 rule 6, 5.1): the model corrupts TMAs in a VMX guest (docs/time-accuracy.md's
# command); ptdump reads each as corrupt_tma when told (configuration, name, CPU), else not,
# and times each at its TSC's instant with no conflict
printf 'set skz84=1,psb_freq=0\nstart 0x401000\nvmptrld 0x401000 0x3000\nvmentry 0x401008 0x401800 0x7000\nidle 20000000\nstop\n' |
  "$b/ptsim" --quiet --policy off --scenario - -o "$tmp/skz.pt" --truth "$tmp/skz.jsonl"
corrupt=$(grep -c '"corrupt":true' "$tmp/skz.jsonl")
by_config=$("$b/ptdump" --config "$tmp/skz.pt.json" "$tmp/skz.pt" | grep -c 'corrupt_tma')
by_name=$("$b/ptdump" --errata skz84 "$tmp/skz.pt" | grep -c 'corrupt_tma')
by_cpu=$("$b/ptdump" --cpu 6/85 "$tmp/skz.pt" | grep -c 'corrupt_tma')
untold=$("$b/ptdump" "$tmp/skz.pt" | grep -c 'corrupt_tma')
timed=$("$b/ptdump" --time --config "$tmp/skz.pt.json" "$tmp/skz.pt" | grep -c '(corrupt_tma)\]  time ')
conflicts=$("$b/ptdump" --time --config "$tmp/skz.pt.json" "$tmp/skz.pt" | grep -c 'conflict')
if [ "$corrupt" -gt 0 ] && [ "$by_config" = "$corrupt" ] && [ "$by_name" = "$corrupt" ] && [ "$by_cpu" = "$corrupt" ] &&
   [ "$untold" = 0 ] && [ "$timed" = "$corrupt" ] && [ "$conflicts" = 0 ]
then pass dump_skz84_corrupt_tma; else
  fail dump_skz84_corrupt_tma "$corrupt corrupt, read $by_config/$by_name/$by_cpu, untold $untold, timed $timed, $conflicts conflicts"; fi

# ---- perf.data (SPEC.md part 6): ptsim writes one, ptdump reads it back ----
"$b/ptsim" --quiet --workload dense --cycles 300000 --threads 2 -o "$tmp/p.pt" --perf-data "$tmp/p.data"; st=$?
"$b/ptdump" --time "$tmp/p.data" > "$tmp/p.txt"; st2=$?
"$b/ptdump" --time --config "$tmp/p.pt.json" "$tmp/p.pt" > "$tmp/p_raw.txt"
q0=$(grep -c '^\[perf.data queue 0 (cpu 0, tid 1000)' "$tmp/p.txt"); q1=$(grep -c '^\[perf.data queue 1 (cpu 1, tid 1001)' "$tmp/p.txt")
n_raw=$(grep -vc '^\[' "$tmp/p_raw.txt"); n_q0=$(awk '/^\[perf.data queue 1/{exit} !/^\[/' "$tmp/p.txt" | grep -vc ' pad ')
n_raw_nopad=$(grep -v '^\[' "$tmp/p_raw.txt" | grep -vc ' pad ')
if [ $st = 0 ] && [ $st2 = 0 ] && [ "$q0" = 1 ] && [ "$q1" = 1 ] && [ "$n_q0" = "$n_raw_nopad" ] && ! grep -q conflict "$tmp/p.txt"
then pass "perf_data_round_trip: 2 queues, queue 0 has the $n_raw_nopad packets of OUT.pt"
else fail perf_data_round_trip "status $st/$st2, queues $q0/$q1, packets $n_q0 vs $n_raw_nopad of $n_raw"; fi
# on standard input too (`perf record -o -` writes there), and a raw trace
# there still decodes from its first byte on
"$b/ptdump" --time - < "$tmp/p.data" > "$tmp/p_stdin.txt"; st=$?
if [ $st = 0 ] && cmp -s "$tmp/p.txt" "$tmp/p_stdin.txt"; then pass perf_data_on_stdin
else fail perf_data_on_stdin "status $st: $(diff "$tmp/p.txt" "$tmp/p_stdin.txt" | head -3)"; fi
"$b/ptdump" --time --config "$tmp/p.pt.json" - < "$tmp/p.pt" > "$tmp/p_raw_stdin.txt"
"$b/ptdump" --no-sync - < "$tmp/p.pt" > "$tmp/p_raw_nosync.txt"; st=$?
if cmp -s "$tmp/p_raw.txt" "$tmp/p_raw_stdin.txt" && [ $st = 0 ] && head -1 "$tmp/p_raw_nosync.txt" | grep -q '^0000000000000000  psb'
then pass raw_trace_on_stdin; else fail raw_trace_on_stdin "status $st: $(head -1 "$tmp/p_raw_nosync.txt")"; fi
"$b/ptdump" --jsonl --cpu 1 "$tmp/p.data" > "$tmp/p1.jsonl"; st=$?
if [ $st = 0 ] && ! grep -q '"queue":0' "$tmp/p1.jsonl" && [ "$(grep -vc '^{"queue":1,"cpu":1,"tid":1001,' "$tmp/p1.jsonl")" = 0 ]
then pass perf_data_select_queue_jsonl; else fail perf_data_select_queue_jsonl "status $st: $(head -2 "$tmp/p1.jsonl")"; fi
# one time base with perf: --time on a perf.data also gives perf's nanoseconds
# (ptsim's perf.data converts TSC to ns as 1:1), and a raw trace does not
"$b/ptdump" --time --jsonl "$tmp/p.data" | grep -m1 '"perf_ns"' > "$tmp/ns.json"
t_hex=$(sed 's/.*"time":"0x\([0-9a-f]*\)".*/\1/' "$tmp/ns.json"); ns=$(sed 's/.*"perf_ns":\([0-9]*\)}.*/\1/' "$tmp/ns.json")
if [ -n "$ns" ] && [ "$((0x$t_hex))" = "$ns" ] && ! grep -q perf_ns "$tmp/p_raw.txt" && grep -q ' perf [0-9]*\.[0-9]\{9\}$' "$tmp/p.txt"
then pass perf_data_time_in_perf_ns; else fail perf_data_time_in_perf_ns "$(head -c 300 "$tmp/ns.json")"; fi
expect_status perf_data_no_such_queue 2 "$b/ptdump" --cpu 7 "$tmp/p.data"
grep -q "cpu 7: $tmp/p.data has no AUX queue of that cpu" "$tmp/err" && [ ! -s "$tmp/out" ] && pass perf_data_no_such_queue_named \
  || fail perf_data_no_such_queue_named "$(cat "$tmp/err")"
# --check on a perf.data: each queue on its own, with the file's settings (SPEC.md 7.4)
expect_status check_perf_data 0 "$b/ptdump" --check "$tmp/p.data"
[ "$(grep -c '^\[perf.data queue' "$tmp/out")" = 2 ] && tail -1 "$tmp/out" | grep -q ' 0 violations, 0 suspicious' \
  && pass check_perf_data_queues || fail check_perf_data_queues "$(head -4 "$tmp/out")"
# --sideband: each queue's ITRACE_START and COMM (its thread's, at the
# trace's start time) before its first timed packet, and only its own
"$b/ptdump" --time --sideband "$tmp/p.data" > "$tmp/ps.txt"; st=$?
s0=$(awk '/^\[perf.data queue 1/{exit} /^\[sideband /' "$tmp/ps.txt" | tr '\n' '|')
first_timed=$(grep -n ' time ' "$tmp/ps.txt" | head -1 | cut -d: -f1); last_side=$(grep -n '^\[sideband .*1000/1000 ptsim' "$tmp/ps.txt" | cut -d: -f1)
if [ $st = 0 ] && [ "$s0" = "[sideband 16777216: itrace_start 1000/1000]|[sideband 16777216: comm 1000/1000 ptsim]|" ] &&
   [ "$(grep -c '^\[sideband .*1000/1001' "$tmp/ps.txt")" = 2 ] && [ -n "$last_side" ] && [ "$last_side" -lt "$first_timed" ]
then pass perf_data_sideband_by_time
else fail perf_data_sideband_by_time "status $st: '$s0', line $last_side vs first timed $first_timed"; fi
"$b/ptdump" --jsonl --sideband --cpu 1 "$tmp/p.data" | grep -c '^{"queue":1,"cpu":1,"tid":1001,"sideband_time":16777216,"sideband":"comm 1000/1001 ptsim"}$' > "$tmp/n"
[ "$(cat "$tmp/n")" = 1 ] && pass perf_data_sideband_jsonl || fail perf_data_sideband_jsonl "$(cat "$tmp/n") lines"
head -c 3000 "$tmp/p.data" > "$tmp/cut.data"
"$b/ptdump" "$tmp/cut.data" > "$tmp/cut.txt" 2>&1; st=$?
if [ $st = 1 ] && grep -q 'cut short\|bad_perf_data' "$tmp/cut.txt"; then pass perf_data_truncated_is_named
else fail perf_data_truncated_is_named "status $st: $(tail -2 "$tmp/cut.txt")"; fi
# snapshot mode (SPEC.md 6.3, 6.4): overlapping copies of each queue's AUX
# ring, each decoded on its own from its first PSB, none taken for a gap or a
# loss; the last copy of queue 0 holds OUT.pt's packets at their offsets
"$b/ptsim" --quiet --workload dense --cycles 300000 --set cyc_en=1 --threads 2 -o "$tmp/sn.pt" \
  --perf-data "$tmp/sn.data" --perf-snapshot 4096,1500; st=$?
"$b/ptdump" --time "$tmp/sn.data" > "$tmp/sn.txt"; st2=$?
more=$(sed -n 's/^\[perf.data queue .* in \([0-9]*\) chunks\]$/\1/p' "$tmp/sn.txt" | awk '{ s += $1 - 1 } END { print s + 0 }')
snaps=$(grep -c '^\[snapshot at AUX offset' "$tmp/sn.txt")
bad=$(grep -c 'gap\|error\|conflict\|lost' "$tmp/sn.txt")
awk '/^\[perf.data queue 1/{exit} /^\[snapshot at/{last = ""; next} !/^\[/{last = last $1 " " $2 "\n"}
     END {printf "%s", last}' "$tmp/sn.txt" > "$tmp/sn_last.txt"
first=$(head -1 "$tmp/sn_last.txt" | cut -d' ' -f1)
"$b/ptdump" "$tmp/sn.pt" | awk -v from="$first" '!/^\[/ && ($1 "") >= (from "") { print $1, $2 }' > "$tmp/sn_raw.txt"
if [ $st = 0 ] && [ $st2 = 0 ] && [ "$more" -gt 4 ] && [ "$snaps" = "$more" ] && [ "$bad" = 0 ] &&
   [ -s "$tmp/sn_last.txt" ] && cmp -s "$tmp/sn_last.txt" "$tmp/sn_raw.txt"
then pass "perf_data_snapshot_mode: $snaps overlapping copies, the last one as in OUT.pt"
else fail perf_data_snapshot_mode "status $st/$st2, $snaps snapshot lines for $more later chunks, $bad errors, last copy from $first: $(wc -l < "$tmp/sn_last.txt") vs $(wc -l < "$tmp/sn_raw.txt") packets"; fi
expect_status perf_snapshot_needs_perf_data 2 "$b/ptsim" --perf-snapshot 4096 -o "$tmp/x.pt"
expect_status perf_snapshot_bad_size 2 "$b/ptsim" --perf-snapshot 8 --perf-data "$tmp/x.data" -o "$tmp/x.pt"
expect_status perf_snapshot_bad_every 2 "$b/ptsim" --perf-snapshot 4096,0 --perf-data "$tmp/x.data" -o "$tmp/x.pt"
# ptnav on the perf.data lands where it lands on the raw trace (its times are
# wider: nom is the file's rounded ratio)
"$b/ptsim" --quiet --workload dense --cycles 300000 --set cyc_en=1 -o "$tmp/n.pt" --perf-data "$tmp/n.data"
a=$("$b/ptnav" --config "$tmp/n.pt.json" "$tmp/n.pt" --retire 500 | sed 's/,"tsc_lo".*//')
c=$("$b/ptnav" "$tmp/n.data" --retire 500 | sed 's/,"tsc_lo".*//')
if [ -n "$a" ] && [ "$a" = "$c" ]; then pass perf_data_nav_same_retirement; else fail perf_data_nav_same_retirement "$a / $c"; fi
expect_status perf_data_nav_no_such_queue 2 "$b/ptnav" --cpu 9 "$tmp/n.data" --retire 5
grep -q "has no AUX queue of cpu (or idx) 9" "$tmp/err" && pass perf_data_nav_no_such_queue_named \
  || fail perf_data_nav_no_such_queue_named "$(cat "$tmp/err")"
# a recording of AUX samples has no queue to navigate: said, not "queue -1"
samples="$shared/pt-traces-timed/pnnl_memgaze__bin_.data"
if [ -n "$shared" ] && [ -f "$samples" ]; then
  expect_status perf_data_nav_samples_only 2 "$b/ptnav" "$samples" --retire 0
  grep -q "holds AUX samples only (253," "$tmp/err" && pass perf_data_nav_samples_only_named \
    || fail perf_data_nav_samples_only_named "$(cat "$tmp/err")"
else
  echo "skip - perf_data_nav_samples_only: shared/pt-traces-timed is not there"
fi
printf 'PERFILE2\150\0\0\0\0\0\0\0garbage' > "$tmp/bad.data"
expect_status perf_data_bad_header 2 "$b/ptdump" "$tmp/bad.data"
grep -q "bad_perf_data at offset 8" "$tmp/err" && pass perf_data_bad_header_offset || fail perf_data_bad_header_offset "$(cat "$tmp/err")"
# --check on a perf.data that holds no trace, or is cut short, is no clean trace:
# exit 1 as plain ptdump and --stats give (the whole file: 0)
pdata="$shared/pt-traces-timed/google_perf_data_converter__perf.data.intel_pt-4.14"
if [ -n "$shared" ] && [ -f "$pdata" ]; then
  head -c 1000 "$pdata" > "$tmp/cut1000.data"; head -c 100000 "$pdata" > "$tmp/cut100k.data"
  expect_status check_perf_data_no_trace 1 "$b/ptdump" --check "$tmp/cut1000.data"
  expect_status check_perf_data_cut_short 1 "$b/ptdump" --check "$tmp/cut100k.data"
  expect_status check_perf_data_whole 0 "$b/ptdump" --check "$pdata"
  # cut after its data, inside the feature sections: the CPU may be lost, and it says so
  fdata="$shared/pt-traces-timed/farzamdorostkar_tmon__perf.data"
  head -c 30000 "$fdata" > "$tmp/cutfeatures.data"
  expect_status check_perf_data_features_cut 1 "$b/ptdump" --check "$tmp/cutfeatures.data"
  grep -q "ends inside its feature sections" "$tmp/out" && pass check_perf_data_features_cut_named ||
    fail check_perf_data_features_cut_named "$(head -3 "$tmp/out")"
else
  echo "skip - check_perf_data_no_trace: shared/pt-traces-timed is not there"
fi

# --insn (SPEC.md 9.4): the code is required and every image option names
# what it cannot use; a trace of hand-assembled code gives its flow
"$b/ptgen" --mix all --bytes 2000 --seed 3 -o "$tmp/insn.pt"
printf '\353\376' > "$tmp/loop.bin"
insn_refuses() { # name needle args...
  n=$1; needle=$2; shift 2
  "$b/ptdump" "$@" > /dev/null 2> "$tmp/err"; st=$?
  if [ $st = 2 ] && grep -q -- "$needle" "$tmp/err"; then pass "insn_refuses_$n"
  else fail "insn_refuses_$n" "status $st: $(head -c 300 "$tmp/err")"; fi
}
insn_refuses no_code "--insn needs the code" --insn "$tmp/insn.pt"
insn_refuses image_without_insn "none of which is given" --image "$tmp/loop.bin:0x1000" "$tmp/insn.pt"
insn_refuses image_without_address "FILE:ADDR" --insn --image "$tmp/loop.bin" "$tmp/insn.pt"
insn_refuses missing_file "cannot read $tmp/nothere.addr" --insn --pagecache "$tmp/nothere" "$tmp/insn.pt"
insn_refuses bad_elf "bad_image" --insn --elf "$tmp/loop.bin" "$tmp/insn.pt"
insn_refuses with_time "does not go with --time" --insn --time --image "$tmp/loop.bin:0x1000" "$tmp/insn.pt"
insn_refuses bad_address "is not a whole number" --insn --image "$tmp/loop.bin:12zz" "$tmp/insn.pt"
# ptgen's packets over code that is one JMP to itself: the flow stops with a
# named error or at the end, never hangs (timeout), and prints only IPs and errors
timeout 20 "$b/ptdump" --insn --image "$tmp/loop.bin:0x1000" "$tmp/insn.pt" > "$tmp/insn.out" 2>&1; st=$?
if [ $st -le 1 ] && ! grep -qv '^[0-9a-f]\{16\}$\|^\[error: [a-z_]*: offset [0-9]*, ip [0-9a-f]\{16\}\]$' "$tmp/insn.out"; then pass insn_any_trace_ends
else fail insn_any_trace_ends "status $st: $(grep -v '^[0-9a-f]\{16\}$' "$tmp/insn.out" | head -3)"; fi
# --blocks prints what --insn prints; --coverage (SPEC.md 9.5) writes a
# map of --map-size bytes, from the flow with an image, else the packets
insn_refuses blocks_no_code "--blocks needs the code" --blocks "$tmp/insn.pt"
insn_refuses one_listing "one listing at a time" --insn --blocks --image "$tmp/loop.bin:0x1000" "$tmp/insn.pt"
insn_refuses coverage_with_insn "does not go with --insn" --insn --coverage "$tmp/map" --image "$tmp/loop.bin:0x1000" "$tmp/insn.pt"
insn_refuses coverage_with_check "does not go with --check" --coverage "$tmp/map" --check "$tmp/insn.pt"
insn_refuses map_size_alone "which is not given" --map-size 1024 "$tmp/insn.pt"
insn_refuses map_size_odd "a power of two" --coverage "$tmp/map" --map-size 1000 "$tmp/insn.pt"
insn_refuses map_size_zero "a power of two" --coverage "$tmp/map" --map-size 0 "$tmp/insn.pt"
insn_refuses coverage_unwritable "cannot write $tmp/no/map" --coverage "$tmp/no/map" "$tmp/insn.pt"
insn_refuses coverage_no_value "--coverage" "$tmp/insn.pt" --coverage
# --filter (the trace's IP filter ranges, for the flow): LO-HI, LO below HI,
# at most four, and only for the flow; a clock setting has no use there
insn_refuses filter_not_a_range "is not LO-HI" --insn --filter 0x2000 --image "$tmp/loop.bin:0x1000" "$tmp/insn.pt"
insn_refuses filter_backwards "is not LO-HI with LO below HI" --insn --filter 0x2000-0x1000 --image "$tmp/loop.bin:0x1000" "$tmp/insn.pt"
insn_refuses filter_five "at most 4 filter ranges" --insn --filter 1-2 --filter 3-4 --filter 5-6 --filter 7-8 --filter 9-10 \
  --image "$tmp/loop.bin:0x1000" "$tmp/insn.pt"
insn_refuses filter_without_flow "none of which is given" --filter 0x1000-0x2000 "$tmp/insn.pt"
insn_refuses insn_with_clock "--mtc-freq is a clock setting" --insn --mtc-freq 3 --image "$tmp/loop.bin:0x1000" "$tmp/insn.pt"
# --insn on a perf.data takes the code from its MMAP records; ptsim's has none:
# said, and every instruction needed is no_code (exit 1)
"$b/ptsim" --workload dense --cycles 200000 -o "$tmp/sim.pt" --perf-data "$tmp/sim.data" --quiet
"$b/ptdump" --insn "$tmp/sim.data" > "$tmp/out" 2> "$tmp/err"; st=$?
if [ $st = 1 ] && grep -q "has no MMAP record" "$tmp/err" && grep -q '^\[perf.data queue 0 ' "$tmp/out" &&
   grep -q '^\[error: no_code: ' "$tmp/out"; then pass insn_perf_data_without_mmaps
else fail insn_perf_data_without_mmaps "status $st: $(head -c 300 "$tmp/err")"; fi
timeout 20 "$b/ptdump" --blocks --image "$tmp/loop.bin:0x1000" "$tmp/insn.pt" > "$tmp/blocks.out" 2>&1
if cmp -s "$tmp/insn.out" "$tmp/blocks.out"; then pass blocks_print_what_insn_prints
else fail blocks_print_what_insn_prints "$(diff "$tmp/insn.out" "$tmp/blocks.out" | head -3)"; fi
for from in packets flow; do
  rm -f "$tmp/map"
  if [ $from = flow ]; then set -- --image "$tmp/loop.bin:0x1000"; else set --; fi
  "$b/ptdump" --coverage "$tmp/map" --map-size 4096 "$@" "$tmp/insn.pt" > "$tmp/cov.out" 2>&1; st=$?
  edges=$(sed -n 's/^coverage (the [a-z]*): \([0-9]*\) edges, \([0-9]*\) of 4096 slots set, .*/\1 \2/p' "$tmp/cov.out")
  set_slots=$(od -An -v -tu1 "$tmp/map" 2>/dev/null | tr -s ' ' '\n' | grep -c '^[1-9]')
  if [ $st -le 1 ] && [ "$(wc -c < "$tmp/map")" = 4096 ] && [ -n "$edges" ] && [ "${edges#* }" = "$set_slots" ] &&
     [ "${edges% *}" -ge "$set_slots" ]; then pass "coverage_from_the_$from"
  else fail "coverage_from_the_$from" "status $st, '$edges', $set_slots slots set: $(head -c 300 "$tmp/cov.out")"; fi
done

# the exit status says what the lines said
[ ! -s "$tmp/failures" ]

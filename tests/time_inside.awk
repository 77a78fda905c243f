# time_inside.awk - every true time inside its interval (SPEC.md 3.9).
# Input: lines "TRUTH<TAB>PTDUMP", the model's truth of each emitted packet
# (ptsim --truth, the QEMU plugin's truth=) beside `ptdump --time --jsonl`'s
# line for the same packet. Prints "N timed, M outside" (and the first
# packets outside; "(too few)" under 1000). Hex strings become numbers:
# exact below 2^53, plenty for a simulated trace.
function hex(s,  v, i) {
  v = 0; s = tolower(substr(s, 3))
  for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
  return v
}
{
  split($0, f, "\t"); tof = f[1]; sub(/^{"off":/, "", tof); sub(/,.*/, "", tof)
  oof = f[2]; sub(/^{"off":/, "", oof); sub(/,.*/, "", oof)
  if (tof != oof) { print "misaligned at " tof " / " oof; bad++; exit }
  t = f[1]; sub(/.*"tsc":/, "", t); sub(/,.*/, "", t)
  exact = (f[1] ~ /"tsc_frac":"0\//)
  if (f[2] !~ /"time_lo"/) next
  lo = f[2]; sub(/.*"time_lo":"/, "", lo); sub(/".*/, "", lo)
  hi = f[2]; sub(/.*"time_hi":/, "", hi); sub(/[,}].*/, "", hi); gsub(/"/, "", hi)
  n++
  if (t + 0 < hex(lo) || (hi != "null" && (t + 0 > hex(hi) || (t + 0 == hex(hi) && !exact)))) {
    if (bad++ < 3) print "outside: " f[1] " / " f[2]
  }
}
END { print n " timed, " bad + 0 " outside" (n < 1000 ? " (too few)" : "") }

#!/bin/sh
# Rules of the sources that a compiler does not check:
# - no opcode is written as a number in ptcodec.h outside ptc_opcode: the
#   values are read from the enum itself, and every other line (comments
#   aside) is searched for them. Values below 0x08 and the masks 0x1F, 0x7F
#   are also ordinary bit counts and masks, so only the others are sought.
# - every tool, test and fuzz driver reads files and numbers through
#   harness/util.h: no fopen-read loop, strtoull or atoi of its own.
# - ptcodec.h's sections follow the data: no section uses a name that a
#   later section defines (the interface's types and functions, the
#   implementation's functions, tables and macros; comments aside).
# - README's examples compile, documents named exist, and fuzz/README.md's
#   campaign table is the one fuzz/campaign.sh makes.
cd "$(dirname "$0")/.." || exit 1
failed=0
enum=$(sed -n '/^typedef enum ptc_opcode {/,/^} ptc_opcode;/p' ptcodec.h)
values=$(printf '%s\n' "$enum" | grep -o '= 0x[0-9A-Fa-f][0-9A-Fa-f]' | sed 's/= //' | sort -u |
         grep -viE '^0x0[0-7]$|^0x1f$|^0x7f$')
[ -n "$values" ] || { echo "FAIL - opcodes_only_in_enum: no ptc_opcode enum found"; exit 1; }
pattern=$(printf '%s\n' $values | paste -sd'|')
# the header outside the enum and outside part 9 (whose bytes are x86
# opcodes, not PT's), with /* */ comments removed
hits=$(awk '/^typedef enum ptc_opcode \{/ || /^#ifndef PTCODEC_NO_FLOW/ { skip = 1 } !skip { print NR": "$0 }
            /^\} ptc_opcode;/ || /^#endif \/\* PTCODEC_NO_FLOW \*\// { skip = 0 }' ptcodec.h |
       sed 's|/\*.*\*/||g' | grep -iE "\\b($pattern)\\b")
if [ -z "$hits" ]; then echo "ok - opcodes_only_in_enum: $(printf '%s\n' $values | wc -l) opcode values, none written outside it"
else echo "FAIL - opcodes_only_in_enum: opcode values outside ptc_opcode:"; printf '%s\n' "$hits" | head -10 | sed 's/^/  /'; failed=1; fi
own=$(grep -nE '\b(strtoull|strtoul|strtol|atoi|atol)\(|fread\(' tools/*.c tools/*.h harness/*.h tools/qemu/*.c tools/qemu/*.h \
        tests/*.c tests/*.h fuzz/*.c fuzz/*.h bench/*.c |
      grep -v '^harness/util.h:')
if [ -z "$own" ]; then echo "ok - one_reader_one_parser: only harness/util.h reads files and parses numbers"
else echo "FAIL - one_reader_one_parser: reading or parsing outside harness/util.h:"; printf '%s\n' "$own" | head -10 | sed 's/^/  /'; failed=1; fi
# Section order. Pass 1 notes where each name is defined; pass 2 reports a
# use in an earlier section. Sections are the banners "/* N. ..." of the
# interface and "/* ---- N. ..." of the implementation, counted in order.
order=$(awk '
  function strip(line) { # comments out, keeping a comment that continues
    out = ""
    while (line != "") {
      if (incomment) { e = index(line, "*/"); if (!e) return out; line = substr(line, e + 2); incomment = 0 }
      else { b = index(line, "/*"); if (!b) return out line; out = out substr(line, 1, b - 1); line = substr(line, b + 2); incomment = 1 }
    }
    return out
  }
  FNR == 1 { pass++; isec = 0; msec = 0; impl = 0; incomment = 0 }
  /^#if defined\(PTCODEC_IMPLEMENTATION\)/ { impl = 1 }
  /^\/\* [0-9][0-9.-]* [A-Z]/ && !impl { isec++ }
  /^\/\* ---- [0-9]/ { msec++ }
  {
    code = strip($0)
    sec = impl ? 100 + msec : isec
    if (pass == 1) {
      if (!impl && match(code, /^typedef (struct|enum) [a-z_0-9]+/)) { n = substr(code, RSTART, RLENGTH); sub(/.* /, "", n); def[n] = sec }
      if (!impl && match(code, /^} [a-z_0-9]+;/)) { n = substr(code, 3, RLENGTH - 3); def[n] = sec }
      if (impl && match(code, /^(PTCDEF|static)[^;=(]*[ *](ptc_[a-z_0-9]+|ptc__[a-z_0-9]+)(\(|\[)/)) {
        n = substr(code, RSTART, RLENGTH - 1); sub(/.*[ *]/, "", n); if (!(n in def)) def[n] = sec
      }
      if (impl && match(code, /^#define (PTC__[A-Z_0-9]+)/)) { n = substr(code, 9, RLENGTH - 8); if (!(n in def)) def[n] = sec }
      next
    }
    rest = code
    while (match(rest, /(ptc_|PTC__)[A-Za-z_0-9]*/)) {
      n = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
      if ((n in def) && def[n] > sec && (def[n] >= 100) == (sec >= 100)) print FNR ": " n " (section " sec " uses section " def[n] ")"
    }
  }' ptcodec.h ptcodec.h)
if [ -z "$order" ]; then echo "ok - sections_follow_the_data: no section of ptcodec.h uses a later one"
else echo "FAIL - sections_follow_the_data:"; printf '%s\n' "$order" | head -10 | sed 's/^/  /'; failed=1; fi
# README's C examples compile as they stand, all in one file, clean
tmpc=$(mktemp -d)
awk '/^```c$/ { on = 1; next } /^```$/ { on = 0 } on' README.md > "$tmpc/readme.c"
n=$(grep -c '^```c$' README.md)
if [ "$n" -ge 5 ] && gcc -std=c99 -Wall -Wextra -Werror -pedantic -I. -c "$tmpc/readme.c" -o "$tmpc/readme.o" 2> "$tmpc/err"
then echo "ok - readme_examples_compile: $n examples"
else echo "FAIL - readme_examples_compile: $n examples"; head -5 "$tmpc/err" | sed 's/^/  /'; failed=1; fi
rm -rf "$tmpc"
# Every header of the tools, the harness, the tests, fuzz/ and bench/
# compiles as the first and only include of a file (POSIX declared, as the
# programs that use perf and threads do): each includes what it needs, and
# defines no function its includer must use
alone=""
for h in tools/*.h harness/*.h tests/*.h fuzz/*.h bench/*.h; do
  printf '#include "%s"\n' "$PWD/$h" |
    gcc -std=c99 -Wall -Wextra -Werror -pedantic -D_POSIX_C_SOURCE=200809L -fsyntax-only -x c - > /dev/null 2>&1 ||
    alone="$alone $h"
done
if [ -z "$alone" ]; then echo "ok - headers_compile_alone: $(ls tools/*.h harness/*.h tests/*.h fuzz/*.h bench/*.h | wc -l) headers"
else echo "FAIL - headers_compile_alone:$alone"; failed=1; fi
# Documents the sources and documents name exist: links in the Markdown
# files, and every *.md path written in code, tests and SPEC; and a
# "README's X" or "README, X" names a section README has.
dangling=""
for f in README.md TESTING.md SPEC.md fuzz/README.md bench/README.md docs/*.md; do
  dir=$(dirname "$f")
  for link in $(grep -o '](\([^)#]*\.md\)' "$f" | sed 's/^](//'); do
    [ -f "$dir/$link" ] || dangling="$dangling $f->$link"
  done
done
for ref in $(grep -ohE '\b(TESTING|CHANGELOG|SPEC|(docs|fuzz|bench)/[A-Za-z0-9_.-]+)\.md\b' ptcodec.h tools/*.c tools/*.h harness/*.h tools/qemu/*.c \
               tests/*.c tests/*.h tests/*.sh fuzz/*.c fuzz/*.h bench/*.c Makefile SPEC.md | sort -u); do
  [ -f "$ref" ] || dangling="$dangling $ref"
done
for sec in $(grep -ohE "README('s|,) [A-Z][a-z]+" ptcodec.h tools/*.c tests/*.c tests/*.sh fuzz/*.c bench/*.c SPEC.md | sed -E "s/README('s|,) //" | sort -u); do
  grep -q "^## $sec" README.md || dangling="$dangling README:$sec"
done
if [ -z "$dangling" ]; then echo "ok - no_dangling_document_references"
else echo "FAIL - no_dangling_document_references:$dangling"; failed=1; fi
# fuzz/README.md's campaign table is fuzz/campaigns.tsv as fuzz/campaign.sh
# writes it: nobody edits the table by hand
shown=$(sed -n '/^<!-- campaigns: begin/,/^<!-- campaigns: end/p' fuzz/README.md | sed '1d;$d')
made=$(sh fuzz/campaign.sh --table)
rows=$(grep -vc '^#' fuzz/campaigns.tsv)
if [ -n "$shown" ] && [ "$shown" = "$made" ]; then echo "ok - campaign_table_is_generated: $rows campaigns"
else echo "FAIL - campaign_table_is_generated: fuzz/README.md's table is not what sh fuzz/campaign.sh --table prints"
     failed=1; fi
exit $failed

# ptcodec - the reference codec for Intel PT timing. See README.md.
#
#   make           the tools: build/ptdump, build/ptsim, build/ptgen
#   make demo      ptsim on the filtered workload, with and without MTC suppression
#   make demo-qemu a real program traced under QEMU, and decoded by libipt
#   make check     every test (installs missing Debian packages as root, and
#                  says which; builds on JOBS cores, all up to 8 by default)
#   make test      the unit tests, tools and sources only, installing nothing
#   make bench     decoder throughput against libipt, the model's speed, and
#                  time accuracy against libipt and perf (bench/timecmp, with real clocks too)
#   make fuzz      every fuzz target for libFuzzer, AFL++ (+ cmplog) and replay,
#                  the PT-aware mutator for both engines, and fuzz_libipt22
#   make fuzz-run TARGET=fuzz_stream SECONDS=60   (TARGET=<t>+ptm: with the mutator;
#                  ENGINE=afl: AFL++ -M/-S with cmplog)
#   make corpus    regenerate the seed corpora
#   make coverage  line and branch coverage of ptcodec.h (tests + corpus replay)
#   make install   the header, the tools, their man pages, a pkg-config file,
#                  a CMake package, and the fuzzing headers and AFL++ library
#                  under $(DESTDIR)$(PREFIX); make uninstall
#   make clean

BUILD   ?= build
CC      ?= cc
CLANG   ?= clang
WARN    := -Wall -Wextra -Werror -pedantic
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
TESTCFLAGS := -std=c99 -g -O1 $(WARN) $(SAN)
HDR     := ptcodec.h
# the tools' headers, and the harness's (the kit for programs that test
# decoders: SPEC part 8's installed headers and the tests' own)
HARNESSHDR := $(wildcard harness/*.h)
# of them, the ones make install puts in include/ptcodec/ (SPEC part 8)
MUTATOR_HDRS := harness/ptmutator.h harness/ptfields.h harness/ptdiff.h harness/pktgen.h harness/modelprog.h harness/util.h
TOOLHDR := $(wildcard tools/*.h) $(HARNESSHDR)
TESTHDR := tests/testlib.h tests/sdm_table.h $(TOOLHDR)
TOOLS   := ptdump ptsim ptgen ptnav
# The unit test programs. This one list drives both what `make check`
# builds and what tests/run.sh runs ($(BUILD)/test-programs); run.sh fails
# when a program under $(BUILD)/test was built but not run.
CLANG_TESTS  := test_packets test_stream test_golden test_realtraces test_model test_clock test_nav test_perf test_faults \
                test_x86 test_flow test_conform test_events test_mutator
GCC_TESTS    := test_packets test_stream test_model test_conform
NOI128_TESTS := test_model test_clock
LIBIPT_TESTS := test_libipt test_conform_libipt timecmp
FUZZHDR := fuzz/fuzz_helpers.h fuzz/fuzz_modelrun.h fuzz/x86_oracles.h fuzz/flow_input.h $(TOOLHDR)
FUZZLIBS = $(if $(filter fuzz_diff_libipt%,$*),-lipt)
# targets whose input is a workload program, not PT bytes: their own dictionary
MODEL_FUZZ_TARGETS := fuzz_model fuzz_clock fuzz_checker fuzz_nav fuzz_events fuzz_libipt22_time
# the other targets' dictionaries: fuzz/<target without fuzz_>.dict, else PT's
fuzz_dict = $(if $(filter $(MODEL_FUZZ_TARGETS),$(1)),fuzz/modelprog.dict,$(firstword $(wildcard fuzz/$(patsubst fuzz_%,%,$(1)).dict) fuzz/ptcodec.dict))

HAVE_LIBIPT := $(shell test -f /usr/include/intel-pt.h && echo yes)
FUZZ_TARGETS := fuzz_stream fuzz_roundtrip fuzz_model fuzz_clock fuzz_checker fuzz_nav fuzz_events fuzz_perfdata fuzz_x86 fuzz_image fuzz_flow fuzz_config \
                fuzz_mutator \
                $(if $(HAVE_LIBIPT),fuzz_diff_libipt)
# MemorySanitizer needs every byte's producer instrumented; libipt is not
MSAN_TARGETS := $(filter-out fuzz_diff_libipt,$(FUZZ_TARGETS))
HAVE_AFL    := $(shell command -v afl-clang-fast >/dev/null 2>&1 && echo yes)
HAVE_LIBFUZZER := $(shell printf 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){(void)d;(void)n;return 0;}' \
                   | $(CLANG) -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null && echo yes)

.PHONY: all tools qemu demo demo-qemu check check-build test deps bench fuzz fuzz-run fuzz-libipt22 corpus coverage install uninstall clean

all: tools
tools: $(addprefix $(BUILD)/,$(TOOLS))

$(BUILD) $(BUILD)/san $(BUILD)/test/clang $(BUILD)/test/gcc $(BUILD)/replay $(BUILD)/msan $(BUILD)/libfuzzer $(BUILD)/afl $(BUILD)/cov:
	mkdir -p $@

$(addprefix $(BUILD)/,$(TOOLS)): $(BUILD)/%: tools/%.c $(HDR) $(TOOLHDR) | $(BUILD)
	$(CC) -std=c99 -O2 $(WARN) -pthread -o $@ $<

# ---- QEMU: software Intel PT for real programs (SPEC 5.11) ------------------
# the plugin; insncheck, libipt's instruction flow against the plugin's log;
# and the programs tests/test_qemu.sh proves it on
QEMUHDR := tools/qemu/qemu_api.h
QEMU_BIN := $(BUILD)/libptcodec-qemu.so $(BUILD)/insncheck $(BUILD)/qemu/progs $(BUILD)/qemu/progs-static $(BUILD)/qemu/throw
qemu: $(QEMU_BIN)

$(BUILD)/libptcodec-qemu.so: tools/qemu/ptqemu.c $(HDR) $(TOOLHDR) $(QEMUHDR) | $(BUILD)
	$(CC) -std=c99 -O2 $(WARN) -fPIC -shared -fvisibility=hidden -o $@ $< -lpthread

$(BUILD)/insncheck: tools/qemu/insncheck.c harness/util.h $(HDR) | $(BUILD)
	$(CC) -std=c99 -O2 $(WARN) -o $@ $< -lipt

$(BUILD)/qemu:
	mkdir -p $@

$(BUILD)/qemu/progs: tests/qemu/progs.c | $(BUILD)/qemu
	$(CC) -O1 -g -pthread -o $@ $<

$(BUILD)/qemu/progs-static: tests/qemu/progs.c | $(BUILD)/qemu
	$(CC) -O2 -static -pthread -o $@ $<

$(BUILD)/qemu/throw: tests/qemu/throw.cc | $(BUILD)/qemu
	g++ -O1 -g -o $@ $<

# ---- demo -----------------------------------------------------------------
# The seed's main case: a rarely called function traced through an IP
# filter, with and without MTC suppression.
demo: tools
	@$(BUILD)/ptsim --workload filtered --cycles 100000000 -o $(BUILD)/demo.pt --svg $(BUILD)/demo.svg \
	  --truth $(BUILD)/demo.truth.jsonl --compare-policy off
	@echo "== the first packets (ptdump $(BUILD)/demo.pt):"
	@$(BUILD)/ptdump $(BUILD)/demo.pt | head -24
	@echo "== the stream checked against every rule of the SDM and its MTC policy (ptdump --check --config $(BUILD)/demo.pt.json):"
	@$(BUILD)/ptdump --check --config $(BUILD)/demo.pt.json $(BUILD)/demo.pt > $(BUILD)/demo.check; \
	  echo "   exit status $$?: $$(tail -1 $(BUILD)/demo.check)"
	@echo "== the same trace with two bytes overwritten: a PSBEND (02 23) at the demo's first TIP.PGE"
	@off=$$($(BUILD)/ptdump --jsonl $(BUILD)/demo.pt | grep -m1 '"type":"tip_pge"' | sed 's/{"off":\([0-9]*\),.*/\1/'); \
	  cp $(BUILD)/demo.pt $(BUILD)/demo-broken.pt; printf '\002\043' | dd of=$(BUILD)/demo-broken.pt bs=1 seek=$$off conv=notrunc 2>/dev/null; \
	  $(BUILD)/ptdump --check $(BUILD)/demo-broken.pt | head -4
	@echo "== a timeline of the first packets: $(BUILD)/demo.svg; the true time of every packet: $(BUILD)/demo.truth.jsonl"
	@echo "== capture around a trigger (SPEC 4.5, 5.7): the 1000th retirement of the instruction at 0x4013f0 fires TRIG;"
	@echo "   the trace wraps in a ring sized to keep 8000 bytes before it, which stops 2000 bytes after it"
	@$(BUILD)/ptsim --workload dense --cycles 2000000 --set cyc_en=1,trigger_ip=0x4013f0,trigger_nth=1000,trigger_fup=1 \
	  --snapshot auto --history 8000 --after 2000 -o $(BUILD)/snap.pt | head -1
	@$(BUILD)/ptdump --config $(BUILD)/snap.pt.json $(BUILD)/snap.pt | grep -A1 ' trig '
	@$(BUILD)/ptdump --config $(BUILD)/snap.pt.json $(BUILD)/snap.pt | tail -1
	@echo "== from a PEBS record to its instruction (SPEC 5.8): a counter of indirect jumps overflows and writes a"
	@echo "   PEBS-via-PT record; ptnav --pebs 0 lands on the instruction's retirement, --back 2 the two before it"
	@$(BUILD)/ptsim --quiet --workload dense --cycles 2000000 --set cyc_en=1 --counter indirect,pebs=1,start=1099511627700 \
	  -o $(BUILD)/pebs.pt --truth $(BUILD)/pebs.truth.jsonl
	@$(BUILD)/ptnav --config $(BUILD)/pebs.pt.json $(BUILD)/pebs.pt --pebs 0 --back 2
	@echo "   the truth of that retirement (ptsim --truth):"
	@off=$$($(BUILD)/ptnav --config $(BUILD)/pebs.pt.json $(BUILD)/pebs.pt --pebs 0 | sed 's/.*"off":\([0-9]*\),.*/\1/'); \
	  grep "^{\"retire\":[0-9]*,\"cycle\":[0-9]*,\"off\":$$off," $(BUILD)/pebs.truth.jsonl

# A real program under QEMU (SPEC 5.11): its trace, libipt's decode of it
# against the instructions QEMU ran, and what MTC suppression saves on it.
DEMO_PROG ?= /bin/ls -l /usr/share
demo-qemu: tools qemu
	@command -v qemu-x86_64 >/dev/null || { echo "demo-qemu needs qemu-x86_64: apt-get install qemu-user (make deps does, as root)"; exit 1; }
	@echo "== $(DEMO_PROG), under QEMU with the ptcodec plugin (CYC on, the seed's MTC suppression):"
	@qemu-x86_64 -plugin $(BUILD)/libptcodec-qemu.so,out=$(BUILD)/demo-qemu.pt,insns=$(BUILD)/demo-qemu.insns,cyc=1,policy=seed \
	  $(DEMO_PROG) > /dev/null
	@echo "== the first packets (ptdump --time --config $(BUILD)/demo-qemu.pt.json $(BUILD)/demo-qemu.pt):"
	@$(BUILD)/ptdump --time --config $(BUILD)/demo-qemu.pt.json $(BUILD)/demo-qemu.pt | head -16
	@echo "== libipt's instruction flow decoder on it, with the plugin's code image, against every instruction QEMU ran:"
	@$(BUILD)/insncheck $(BUILD)/demo-qemu.pt $(BUILD)/demo-qemu.pt.code.json $(BUILD)/demo-qemu.insns
	@echo "== the same run without MTC suppression:"
	@qemu-x86_64 -plugin $(BUILD)/libptcodec-qemu.so,out=$(BUILD)/demo-qemu-off.pt,cyc=1,policy=off,quiet=1 $(DEMO_PROG) > /dev/null
	@on=$$(wc -c < $(BUILD)/demo-qemu.pt); off=$$(wc -c < $(BUILD)/demo-qemu-off.pt); \
	  echo "   $$off bytes without suppression, $$on with it: $$((off - on)) bytes saved"

# ---- tests ----------------------------------------------------------------
deps:
	@sh tools/ensure-deps.sh

# the binaries check-build makes do not depend on one another: one job per core
# (on the 2-core development machine the build takes 1m47s instead of 3m46s),
# at most 8, as a sanitized fuzz build takes about 270 MB
JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -gt 8 ] && n=8; echo $$n)

check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) check-build
	@sh tests/run.sh $(BUILD)

# the unit tests, the tools' and the sources' checks, under the sanitizers,
# installing nothing (tests that need what is missing skip, saying so)
test:
	@$(MAKE) --no-print-directory -j$(JOBS) $(TEST_PROGRAMS) $(addprefix $(BUILD)/san/,$(TOOLS))
	@printf '%s\n' $(TEST_PROGRAMS) > $(BUILD)/test-programs
	@UNIT_ONLY=1 sh tests/run.sh $(BUILD)

TEST_PROGRAMS := $(addprefix $(BUILD)/test/clang/,$(CLANG_TESTS)) \
                 $(addprefix $(BUILD)/test/gcc/,$(GCC_TESTS)) \
                 $(patsubst %,$(BUILD)/test/gcc/%_noi128,$(NOI128_TESTS))
# make bench's programs, sanitized, for their --quick run in make check
BENCH_SAN := $(BUILD)/san/bench_model
ifeq ($(HAVE_LIBIPT),yes)
TEST_PROGRAMS += $(addprefix $(BUILD)/test/clang/,$(LIBIPT_TESTS))
CHECK_QEMU := $(QEMU_BIN) $(BUILD)/ptdump
BENCH_SAN += $(BUILD)/san/bench_decode
endif
# libipt 2.2, built from the shared reference tarball into $(BUILD) (nothing
# installed), for test_conform_libipt against its event decoder too
# a real trace for bench_decode --stream (make bench), when the shared data is there
REAL_TRACE := $(firstword $(foreach d,$(PTCODEC_SHARED) ../shared /work/shared,$(wildcard $(d)/pt-traces/libxdc_experiments__mruby_trace.pt)))
LIBIPT22_TAR := $(firstword $(foreach d,$(PTCODEC_SHARED) ../shared /work/shared,$(wildcard $(d)/reference/libipt-2.2.tar.gz)))
LIBIPT22_DIR := $(BUILD)/libipt-2.2
LIBIPT22 := $(LIBIPT22_DIR)/b/lib/libipt.so
ifneq ($(LIBIPT22_TAR),)
ifneq ($(shell command -v cmake 2>/dev/null),)
TEST_PROGRAMS += $(BUILD)/test/clang/test_conform_libipt22 $(BUILD)/test/clang/timecmp22 $(BUILD)/test/clang/test_flow22
# and fuzz_libipt22's, fuzz_libipt22_time's and fuzz_flow_libipt22's corpora replayed against it (tests/run.sh)
LIBIPT22_REPLAY := $(BUILD)/replay/fuzz_libipt22 $(BUILD)/replay/fuzz_libipt22_time $(BUILD)/replay/fuzz_flow_libipt22
endif
endif
# (defined before the test they decide: make reads an ifneq where it stands)
LIBXDC_TAR := $(firstword $(foreach d,$(PTCODEC_SHARED) ../shared /work/shared,$(wildcard $(d)/reference/libxdc-*.tar.gz)))
HAVE_CAPSTONE := $(shell test -f /usr/include/capstone/capstone.h && echo yes)
ifneq ($(and $(LIBXDC_TAR),$(HAVE_CAPSTONE),$(HAVE_LIBIPT)),)
TEST_PROGRAMS += $(BUILD)/test/gcc/test_flow_xdc
endif
CHECK_BIN := $(TEST_PROGRAMS) $(CHECK_QEMU) $(BENCH_SAN) $(LIBIPT22_REPLAY) $(BUILD)/oracles/fuzz_x86 \
             $(addprefix $(BUILD)/san/,$(TOOLS)) \
             $(addprefix $(BUILD)/replay/,$(FUZZ_TARGETS)) \
             $(addprefix $(BUILD)/msan/,$(MSAN_TARGETS))
# the PT-aware mutator for AFL++, and one target with it for libFuzzer
# (tests/test_mutator_engines.sh)
CHECK_BIN += $(BUILD)/afl/ptcodec-mutator.so
ifeq ($(HAVE_LIBFUZZER),yes)
CHECK_BIN += $(addprefix $(BUILD)/libfuzzer/,$(FUZZ_TARGETS)) $(BUILD)/libfuzzer/fuzz_stream+ptm
endif
# AFL++'s instrumentation, and its cmplog pass, on fuzz_stream (the mutator's
# engine test runs it): the other targets are the same sources through the
# same compiler as their libFuzzer builds, and make fuzz and fuzz-run build
# them (13 targets twice fewer kept CI under 30 minutes)
AFL_CHECK_TARGETS := fuzz_stream
ifeq ($(HAVE_AFL),yes)
CHECK_BIN += $(addprefix $(BUILD)/afl/,$(AFL_CHECK_TARGETS)) $(BUILD)/afl/fuzz_stream.cmplog
endif

check-build: $(CHECK_BIN) | $(BUILD)
	@printf '%s\n' $(foreach t,$(FUZZ_TARGETS),"$(t) $(call fuzz_dict,$(t))") > $(BUILD)/fuzz-targets
	@printf '%s\n' $(TEST_PROGRAMS) > $(BUILD)/test-programs

# The implementation compiled once for each set of flags and linked into
# every program built with that set: with -DPTCODEC_IMPLEMENTATION_ONCE
# (ptcodec.h's build options) a file's own #define PTCODEC_IMPLEMENTATION
# gives only the interface. Compiling the implementation under the
# sanitizers again for each of some 60 programs was two thirds of make
# check's build. The programs that test private functions (OWN_IMPL)
# compile it themselves, as do the builds with one program each.
OWN_IMPL := test_clock test_conform fuzz_checker
IMPL_CLANG  := $(BUILD)/impl/clang-san.o
IMPL_GCC    := $(BUILD)/impl/gcc-san.o
IMPL_MSAN   := $(BUILD)/impl/msan.o
IMPL_FUZZER := $(BUILD)/impl/libfuzzer.o
MSANFLAGS   := -std=c99 -g -O1 $(WARN) -fsanitize=memory -fsanitize-memory-track-origins -fno-sanitize-recover=all
FUZZERFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# linked NAME OBJECT: the flag and the object for program NAME, or nothing
linked = $(if $(filter $(OWN_IMPL),$(1)),,-DPTCODEC_IMPLEMENTATION_ONCE $(2))
$(BUILD)/impl:
	mkdir -p $@
$(IMPL_CLANG): $(HDR) | $(BUILD)/impl
	$(CLANG) $(TESTCFLAGS) -DPTCODEC_IMPLEMENTATION -x c -c -o $@ $<
$(IMPL_GCC): $(HDR) | $(BUILD)/impl
	gcc $(TESTCFLAGS) -DPTCODEC_IMPLEMENTATION -x c -c -o $@ $<
$(IMPL_MSAN): $(HDR) | $(BUILD)/impl
	$(CLANG) $(MSANFLAGS) -DPTCODEC_IMPLEMENTATION -x c -c -o $@ $<
$(IMPL_FUZZER): $(HDR) | $(BUILD)/impl
	$(CLANG) $(subst fuzzer,fuzzer-no-link,$(FUZZERFLAGS)) -DPTCODEC_IMPLEMENTATION -x c -c -o $@ $<

$(BUILD)/test/clang/%: tests/%.c $(HDR) $(TESTHDR) $(IMPL_CLANG) | $(BUILD)/test/clang
	$(CLANG) $(TESTCFLAGS) -o $@ $< $(call linked,$*,$(IMPL_CLANG)) $(if $(filter test_libipt test_conform_libipt,$*),-lipt) \
	  $(if $(and $(filter test_flow,$*),$(HAVE_LIBIPT)),-DTEST_FLOW_LIBIPT -lipt)

$(BUILD)/test/gcc/%: tests/%.c $(HDR) $(TESTHDR) $(IMPL_GCC) | $(BUILD)/test/gcc
	gcc $(TESTCFLAGS) -o $@ $< $(call linked,$*,$(IMPL_GCC)) $(if $(filter test_libipt test_conform_libipt,$*),-lipt)

$(LIBIPT22): $(LIBIPT22_TAR) | $(BUILD)
	rm -rf $(LIBIPT22_DIR) && tar xzf $(LIBIPT22_TAR) -C $(BUILD)
	cmake -S $(LIBIPT22_DIR) -B $(LIBIPT22_DIR)/b -DCMAKE_BUILD_TYPE=Release -DPTDUMP=ON -DPTTC=ON > $(BUILD)/libipt-2.2.log 2>&1
	cmake --build $(LIBIPT22_DIR)/b -j2 >> $(BUILD)/libipt-2.2.log 2>&1

# libxdc, the decoder of kAFL and Nyx, built from the shared reference tarball
# into $(BUILD) with its own flags and Debian's capstone (libcapstone-dev):
# test_flow_xdc holds ptcodec's coverage edges to its, bench_flow times both
LIBXDC := $(BUILD)/libxdc/libxdc.a
$(LIBXDC): $(LIBXDC_TAR) | $(BUILD)
	rm -rf $(BUILD)/libxdc && tar xzf $(LIBXDC_TAR) -C $(BUILD)
	$(MAKE) -C $(BUILD)/libxdc libxdc.a > $(BUILD)/libxdc.log 2>&1
# its objects are gcc's link-time IR (-flto): linked by gcc with -flto
$(BUILD)/test/gcc/test_flow_xdc: tests/test_flow.c $(HDR) $(TESTHDR) $(LIBXDC) $(IMPL_GCC) | $(BUILD)/test/gcc
	gcc $(TESTCFLAGS) -DTEST_FLOW_LIBXDC -DTEST_FLOW_LIBIPT -I$(BUILD)/libxdc -o $@ $< $(call linked,,$(IMPL_GCC)) \
	  -flto $(LIBXDC) -lcapstone -lipt

$(BUILD)/test/clang/test_conform_libipt22: tests/test_conform_libipt.c $(HDR) $(TESTHDR) $(LIBIPT22) $(IMPL_CLANG) | $(BUILD)/test/clang
	$(CLANG) $(TESTCFLAGS) -I$(LIBIPT22_DIR)/b/libipt/include -o $@ $< $(call linked,,$(IMPL_CLANG)) -L$(LIBIPT22_DIR)/b/lib \
	  -Wl,-rpath,$(abspath $(LIBIPT22_DIR)/b/lib) -lipt

# The x86 decoder against decoders we did not write (fuzz/x86_oracles.h):
# Zydis 4.0 (libzydis-dev) and libipt 2.2's length decoder, pt_ild.c of the
# shared tarball compiled in (UBSan's alignment check off for it: libipt
# loads displacements through misaligned pointers). test_x86 and the
# libFuzzer build of fuzz_x86 use them; $(BUILD)/oracles/fuzz_x86 replays
# fuzz_x86's corpus through them (tests/run.sh).
HAVE_ZYDIS := $(shell test -f /usr/include/Zydis/Zydis.h && echo yes)
HAVE_LIBIPT22 := $(if $(and $(LIBIPT22_TAR),$(shell command -v cmake 2>/dev/null)),yes)
X86_ORACLE_FLAGS := $(if $(HAVE_ZYDIS),-DX86_ORACLE_ZYDIS) \
  $(if $(HAVE_LIBIPT22),-DX86_ORACLE_LIBIPT22 -Dpt_export= -I$(LIBIPT22_DIR)/b/libipt/include -I$(LIBIPT22_DIR)/libipt/internal/include)
X86_ORACLE_LIBS := $(if $(HAVE_ZYDIS),-lZydis)
X86_ILD_FLAGS := -g -O1 -Dpt_export= -I$(LIBIPT22_DIR)/b/libipt/include -I$(LIBIPT22_DIR)/include -I$(LIBIPT22_DIR)/libipt/internal/include
$(BUILD)/oracles:
	mkdir -p $@
$(BUILD)/oracles/pt_ild-%.o: $(LIBIPT22) | $(BUILD)/oracles
	$(if $(filter clang,$*),$(CLANG) $(SAN),$(if $(filter gcc,$*),gcc $(SAN),$(CLANG) -fsanitize=fuzzer-no-link,address,undefined)) \
	  -fno-sanitize=alignment $(X86_ILD_FLAGS) -c -o $@ $(LIBIPT22_DIR)/libipt/src/pt_ild.c
X86_ILD = $(if $(HAVE_LIBIPT22),$(BUILD)/oracles/pt_ild-$(1).o)

$(BUILD)/test/clang/test_x86: tests/test_x86.c $(HDR) $(TESTHDR) fuzz/x86_oracles.h $(IMPL_CLANG) $(call X86_ILD,clang) | $(BUILD)/test/clang
	$(CLANG) $(TESTCFLAGS) $(X86_ORACLE_FLAGS) -o $@ $< $(call linked,,$(IMPL_CLANG)) $(call X86_ILD,clang) $(X86_ORACLE_LIBS)

$(BUILD)/oracles/fuzz_x86: fuzz/fuzz_x86.c fuzz/replay.c $(HDR) $(FUZZHDR) $(IMPL_GCC) $(call X86_ILD,gcc) | $(BUILD)/oracles
	gcc $(TESTCFLAGS) $(X86_ORACLE_FLAGS) -o $@ $< fuzz/replay.c $(call linked,,$(IMPL_GCC)) $(call X86_ILD,gcc) $(X86_ORACLE_LIBS)

$(BUILD)/libfuzzer/fuzz_x86: fuzz/fuzz_x86.c $(HDR) $(FUZZHDR) $(IMPL_FUZZER) $(call X86_ILD,fuzz) | $(BUILD)/libfuzzer
	$(CLANG) $(FUZZERFLAGS) $(X86_ORACLE_FLAGS) -o $@ $< $(call linked,,$(IMPL_FUZZER)) $(call X86_ILD,fuzz) $(X86_ORACLE_LIBS)

# the flow decoder against libipt 2.2's instruction flow decoder too
$(BUILD)/test/clang/test_flow22: tests/test_flow.c $(HDR) $(TESTHDR) $(LIBIPT22) $(IMPL_CLANG) | $(BUILD)/test/clang
	$(CLANG) $(TESTCFLAGS) -DTEST_FLOW_LIBIPT -I$(LIBIPT22_DIR)/b/libipt/include -o $@ $< $(call linked,,$(IMPL_CLANG)) \
	  -L$(LIBIPT22_DIR)/b/lib -Wl,-rpath,$(abspath $(LIBIPT22_DIR)/b/lib) -lipt

# the time accuracy comparison, sanitized, for make check (make bench runs the -O2 one);
# timecmp22 the same against libipt 2.2's query decoder
TIMECMP_SRC := bench/timecmp.c bench/encgen.h bench/encwhole.h $(HDR) $(TOOLHDR)
$(BUILD)/test/clang/timecmp: $(TIMECMP_SRC) $(IMPL_CLANG) | $(BUILD)/test/clang
	$(CLANG) $(TESTCFLAGS) -o $@ $< $(call linked,,$(IMPL_CLANG)) -lipt
$(BUILD)/test/clang/timecmp22: $(TIMECMP_SRC) $(LIBIPT22) $(IMPL_CLANG) | $(BUILD)/test/clang
	$(CLANG) $(TESTCFLAGS) -I$(LIBIPT22_DIR)/b/libipt/include -o $@ $< $(call linked,,$(IMPL_CLANG)) -L$(LIBIPT22_DIR)/b/lib \
	  -Wl,-rpath,$(abspath $(LIBIPT22_DIR)/b/lib) -lipt

# the model's and the clock's exact arithmetic through the portable 128-bit code
$(BUILD)/test/gcc/%_noi128: tests/%.c $(HDR) $(TESTHDR) | $(BUILD)/test/gcc
	gcc $(TESTCFLAGS) -DPTC_NO_INT128 -o $@ $<

$(addprefix $(BUILD)/san/,$(TOOLS)): $(BUILD)/san/%: tools/%.c $(HDR) $(TOOLHDR) $(IMPL_CLANG) | $(BUILD)/san
	$(CLANG) $(TESTCFLAGS) -pthread -o $@ $< $(call linked,,$(IMPL_CLANG))

$(BUILD)/san/bench_model: bench/bench_model.c $(HDR) $(TOOLHDR) $(IMPL_CLANG) | $(BUILD)/san
	$(CLANG) $(TESTCFLAGS) -o $@ $< $(call linked,,$(IMPL_CLANG))

$(BUILD)/san/bench_decode: bench/bench_decode.c bench/encgen.h $(HDR) harness/pktgen.h $(IMPL_CLANG) | $(BUILD)/san
	$(CLANG) $(TESTCFLAGS) -pthread -o $@ $< $(call linked,,$(IMPL_CLANG)) -lipt

# ---- fuzzing --------------------------------------------------------------
# replay: engine-free driver, gcc + ASan/UBSan, exact-size inputs
$(BUILD)/replay/%: fuzz/%.c fuzz/replay.c $(HDR) $(FUZZHDR) $(IMPL_GCC) | $(BUILD)/replay
	gcc $(TESTCFLAGS) -o $@ $< fuzz/replay.c $(call linked,$*,$(IMPL_GCC)) $(FUZZLIBS)

# the same replay under MemorySanitizer (clang), for reads of uninitialized memory
$(BUILD)/msan/%: fuzz/%.c fuzz/replay.c $(HDR) $(FUZZHDR) $(IMPL_MSAN) | $(BUILD)/msan
	$(CLANG) $(MSANFLAGS) -o $@ $< fuzz/replay.c $(call linked,$*,$(IMPL_MSAN))

$(BUILD)/libfuzzer/%: fuzz/%.c $(HDR) $(FUZZHDR) $(IMPL_FUZZER) | $(BUILD)/libfuzzer
	$(CLANG) $(FUZZERFLAGS) -o $@ $< $(call linked,$*,$(IMPL_FUZZER)) $(FUZZLIBS)

# AFL++ through its libFuzzer-compatible driver (persistent mode, poisoned
# tail: over-reads are caught), plus a cmplog build for -c
$(BUILD)/afl/%.cmplog: fuzz/%.c $(HDR) $(FUZZHDR) | $(BUILD)/afl
	AFL_QUIET=1 AFL_LLVM_CMPLOG=1 afl-clang-fast -g -O1 -fsanitize=fuzzer -o $@ $< $(FUZZLIBS)

$(BUILD)/afl/%: fuzz/%.c $(HDR) $(FUZZHDR) | $(BUILD)/afl
	AFL_QUIET=1 AFL_USE_ASAN=1 AFL_USE_UBSAN=1 afl-clang-fast -g -O1 -fsanitize=fuzzer -o $@ $< $(FUZZLIBS)

# any target with the PT-aware mutator (harness/ptmutator.h) as libFuzzer's
# custom mutator: build/libfuzzer/<target>+ptm (the mutator compiled apart,
# without instrumentation: fuzz/with_mutator.c)
$(BUILD)/libfuzzer/with_mutator.o: fuzz/with_mutator.c $(HDR) $(FUZZHDR) | $(BUILD)/libfuzzer
	$(CLANG) -std=c99 -O2 -g $(WARN) -c -o $@ $<

$(BUILD)/libfuzzer/%+ptm: fuzz/%.c $(BUILD)/libfuzzer/with_mutator.o $(HDR) $(FUZZHDR) $(IMPL_FUZZER) | $(BUILD)/libfuzzer
	$(CLANG) $(FUZZERFLAGS) -o $@ $< $(BUILD)/libfuzzer/with_mutator.o $(call linked,$*,$(IMPL_FUZZER)) $(FUZZLIBS)

# the mutator for AFL++ (AFL_CUSTOM_MUTATOR_LIBRARY); any C compiler builds it
AFL_MUTATOR := $(BUILD)/afl/ptcodec-mutator.so
$(AFL_MUTATOR): fuzz/afl_mutator.c $(HDR) $(MUTATOR_HDRS) | $(BUILD)/afl
	$(CC) -std=c99 -O2 -g $(WARN) -shared -fPIC -o $@ $<

# libipt 2.2 built for fuzzing: its sources compiled with the fuzzer's
# instrumentation and ASan+UBSan into one archive, so that a campaign sees
# its branches and its memory errors (fuzz/fuzz_libipt22.c). Without UBSan's
# alignment check: its length decoder reads displacements and immediates
# through misaligned pointers (pt_ild.c, fuzz_flow_libipt22's first
# finding), undefined in C but what x86 does
LIBIPT22_FUZZ := $(BUILD)/libipt-2.2-fuzz/libipt.a
LIBIPT22_FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=alignment -fno-sanitize-recover=all \
  -DPT_VERSION_MAJOR=2 -DPT_VERSION_MINOR=2 -DPT_VERSION_PATCH=0 -DPT_VERSION_BUILD=0 -DPT_VERSION_EXT='""' \
  -D_POSIX_C_SOURCE=200809L -Dpt_export= -I$(abspath $(LIBIPT22_DIR))/b/libipt/include \
  -I$(abspath $(LIBIPT22_DIR))/include -I$(abspath $(LIBIPT22_DIR))/libipt/internal/include \
  -I$(abspath $(LIBIPT22_DIR))/libipt/internal/include/posix
$(LIBIPT22_FUZZ): $(LIBIPT22)
	rm -rf $(@D) && mkdir -p $(@D)
	cd $(@D) && for f in $(abspath $(LIBIPT22_DIR))/libipt/src/*.c $(abspath $(LIBIPT22_DIR))/libipt/src/posix/*.c; do \
	  $(CLANG) $(LIBIPT22_FUZZ_CFLAGS) -c "$$f" || exit 1; done
	ar rcs $@ $(@D)/*.o

# fuzz_libipt22 (its packet, query and event decoders on PT bytes),
# fuzz_libipt22_time (its query decoder's times against the model's truth)
# and fuzz_flow_libipt22 (its instruction flow decoder against ptcodec's)
LIBIPT22_TARGETS := fuzz_libipt22 fuzz_libipt22_time fuzz_flow_libipt22
LIBIPT22_INC := -I$(LIBIPT22_DIR)/b/libipt/include
# (the replay links libipt 2.2's release build: its corpus in make check)
$(addprefix $(BUILD)/replay/,$(LIBIPT22_TARGETS)): $(BUILD)/replay/%: fuzz/%.c fuzz/replay.c $(HDR) $(FUZZHDR) $(LIBIPT22) $(IMPL_GCC) | $(BUILD)/replay
	gcc $(TESTCFLAGS) $(LIBIPT22_INC) -o $@ $< fuzz/replay.c $(call linked,$*,$(IMPL_GCC)) -L$(LIBIPT22_DIR)/b/lib \
	  -Wl,-rpath,$(abspath $(LIBIPT22_DIR)/b/lib) -lipt

$(addprefix $(BUILD)/libfuzzer/,$(LIBIPT22_TARGETS)): $(BUILD)/libfuzzer/%: fuzz/%.c $(HDR) $(FUZZHDR) $(LIBIPT22_FUZZ) $(IMPL_FUZZER) | $(BUILD)/libfuzzer
	$(CLANG) $(FUZZERFLAGS) $(LIBIPT22_INC) -o $@ $< $(call linked,$*,$(IMPL_FUZZER)) $(LIBIPT22_FUZZ)

$(BUILD)/libfuzzer/fuzz_libipt22+ptm: fuzz/fuzz_libipt22.c $(BUILD)/libfuzzer/with_mutator.o $(HDR) $(FUZZHDR) $(LIBIPT22_FUZZ) $(IMPL_FUZZER) | $(BUILD)/libfuzzer
	$(CLANG) $(FUZZERFLAGS) $(LIBIPT22_INC) -o $@ $< $(BUILD)/libfuzzer/with_mutator.o \
	  $(call linked,fuzz_libipt22,$(IMPL_FUZZER)) $(LIBIPT22_FUZZ)

# libipt 2.2's decoders under the mutator, and its times (make fuzz-libipt22;
# needs the shared tarball and cmake)
fuzz-libipt22: $(addprefix $(BUILD)/libfuzzer/,$(LIBIPT22_TARGETS)) $(BUILD)/libfuzzer/fuzz_libipt22+ptm

fuzz: deps
	@$(MAKE) --no-print-directory $(addprefix $(BUILD)/replay/,$(FUZZ_TARGETS)) \
	  $(addprefix $(BUILD)/libfuzzer/,$(FUZZ_TARGETS)) $(BUILD)/libfuzzer/fuzz_stream+ptm $(AFL_MUTATOR) \
	  $(if $(HAVE_AFL),$(addprefix $(BUILD)/afl/,$(FUZZ_TARGETS) $(addsuffix .cmplog,$(FUZZ_TARGETS)))) \
	  $(if $(LIBIPT22_TAR),fuzz-libipt22)

TARGET  ?= fuzz_stream
SECONDS ?= 60
ENGINE  ?= libfuzzer
# one campaign, merged into corpus/, and its row of fuzz/README.md's tables
ifeq ($(ENGINE),afl)
fuzz-run: $(BUILD)/afl/$(TARGET) $(BUILD)/afl/$(TARGET).cmplog $(BUILD)/libfuzzer/$(TARGET)
	@sh fuzz/campaign.sh --afl $(TARGET) $(SECONDS) $(call fuzz_dict,$(TARGET)) $(BUILD)
else ifeq ($(ENGINE),libfuzzer)
fuzz-run: $(BUILD)/libfuzzer/$(TARGET)
	@sh fuzz/campaign.sh $(TARGET) $(SECONDS) $(call fuzz_dict,$(TARGET)) $(BUILD)
else
fuzz-run:
	@echo "make fuzz-run: ENGINE=$(ENGINE) is neither libfuzzer nor afl" >&2; exit 2
endif

$(BUILD)/gen_model_seeds: fuzz/gen_model_seeds.c $(HDR) $(FUZZHDR) | $(BUILD)
	$(CC) -std=c99 -O2 $(WARN) -o $@ $<

$(BUILD)/gen_flow_seeds: fuzz/gen_flow_seeds.c $(HDR) | $(BUILD)
	$(CC) -std=c99 -O2 $(WARN) -o $@ $<

corpus: $(BUILD)/ptgen $(BUILD)/ptsim $(BUILD)/gen_model_seeds $(BUILD)/gen_flow_seeds
	sh fuzz/gen_seeds.sh $(BUILD)/ptgen $(BUILD)/ptsim $(BUILD)/gen_model_seeds corpus

# ---- coverage -------------------------------------------------------------
# clang source-based coverage of ptcodec.h over the unit tests and the
# corpus replay; prints line and branch coverage (tools/coverage.sh).
COV_TESTS := $(filter-out test_faults,$(CLANG_TESTS))
coverage: deps
	@sh tools/coverage.sh $(BUILD)/cov "$(COV_TESTS)" "$(FUZZ_TARGETS)"

# ---- benchmark ------------------------------------------------------------
$(BUILD)/bench_decode: bench/bench_decode.c bench/encgen.h $(HDR) harness/pktgen.h | $(BUILD)
	$(CC) -std=c99 -O2 -DNDEBUG $(WARN) -pthread -o $@ $< -lipt

# the same, against libipt 2.2 built from the shared tarball (make bench runs both)
$(BUILD)/bench_decode_libipt22: bench/bench_decode.c bench/encgen.h $(HDR) harness/pktgen.h $(LIBIPT22) | $(BUILD)
	$(CC) -std=c99 -O2 -DNDEBUG $(WARN) -pthread -I$(LIBIPT22_DIR)/b/libipt/include -o $@ $< -L$(LIBIPT22_DIR)/b/lib \
	  -Wl,-rpath,$(abspath $(LIBIPT22_DIR)/b/lib) -lipt

# the flow decoder against libipt's instruction and block decoders and libxdc
# on libxdc's traces
BENCH_XDC := $(if $(and $(LIBXDC_TAR),$(HAVE_CAPSTONE)),yes)
$(BUILD)/bench_flow: bench/bench_flow.c $(HDR) harness/util.h $(if $(BENCH_XDC),$(LIBXDC)) | $(BUILD)
	gcc -std=c99 -O2 -DNDEBUG $(WARN) -o $@ $< -lipt $(if $(BENCH_XDC),-DBENCH_FLOW_LIBXDC -I$(BUILD)/libxdc -flto $(LIBXDC) -lcapstone)
# the same, against libipt 2.2 built from the shared tarball (make bench runs both)
$(BUILD)/bench_flow_libipt22: bench/bench_flow.c $(HDR) harness/util.h $(LIBIPT22) $(if $(BENCH_XDC),$(LIBXDC)) | $(BUILD)
	gcc -std=c99 -O2 -DNDEBUG $(WARN) -I$(LIBIPT22_DIR)/b/libipt/include -o $@ $< -L$(LIBIPT22_DIR)/b/lib \
	  -Wl,-rpath,$(abspath $(LIBIPT22_DIR)/b/lib) -lipt $(if $(BENCH_XDC),-DBENCH_FLOW_LIBXDC -I$(BUILD)/libxdc -flto $(LIBXDC) -lcapstone)
# one trace's coverage decoded again and again through one cache (the warm
# loop alone, for perf record; bench/README.md)
$(BUILD)/coverage_loop: bench/coverage_loop.c $(HDR) harness/util.h | $(BUILD)
	$(CC) -std=c99 -O2 -DNDEBUG $(WARN) -o $@ $<
SHARED_DIR := $(firstword $(foreach d,$(PTCODEC_SHARED) ../shared /work/shared,$(wildcard $(d)/flow)))

$(BUILD)/bench_model: bench/bench_model.c $(HDR) $(TOOLHDR) | $(BUILD)
	$(CC) -std=c99 -O2 -DNDEBUG $(WARN) -o $@ $<

$(BUILD)/timecmp: $(TIMECMP_SRC) | $(BUILD)
	$(CC) -std=c99 -O2 -DNDEBUG $(WARN) -pthread -o $@ $< -lipt
$(BUILD)/timecmp22: $(TIMECMP_SRC) $(LIBIPT22) | $(BUILD)
	$(CC) -std=c99 -O2 -DNDEBUG $(WARN) -pthread -I$(LIBIPT22_DIR)/b/libipt/include -o $@ $< -L$(LIBIPT22_DIR)/b/lib \
	  -Wl,-rpath,$(abspath $(LIBIPT22_DIR)/b/lib) -lipt

BENCH22 := $(if $(and $(LIBIPT22_TAR),$(shell command -v cmake 2>/dev/null)),$(BUILD)/bench_decode_libipt22)
TIMECMP22 := $(if $(BENCH22),$(BUILD)/timecmp22)
BENCH_FLOW22 := $(if $(BENCH22),$(BUILD)/bench_flow_libipt22)
# the model's clock settings by libipt's names (ptsim's defaults), for its traces
BENCH_MODEL_CLOCK := --mtc-freq 3 --nom-freq 24 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 200 --cyc-thresh 0
bench: deps
	@$(MAKE) --no-print-directory $(BUILD)/bench_decode $(BUILD)/bench_model $(BUILD)/bench_flow $(BUILD)/coverage_loop $(BUILD)/timecmp $(BENCH22) $(TIMECMP22) $(BENCH_FLOW22) \
	  $(BUILD)/ptdump $(BUILD)/ptgen $(BUILD)/ptsim
	@$(BUILD)/bench_decode
	@echo
	@sh bench/bench_tools.sh $(BUILD)
	@echo
	@$(if $(REAL_TRACE),$(BUILD)/bench_decode --stream $(REAL_TRACE),echo "bench_decode --stream: shared/pt-traces not found, skipped")
	@echo
	@for w in dense mixed; do \
	  $(BUILD)/ptsim --workload $$w --cycles 200000000 --set cyc_en=1 -o $(BUILD)/bench-$$w.pt --quiet || exit 1; \
	  echo "The model's $$w workload (ptsim --workload $$w --cycles 200000000 --set cyc_en=1):"; \
	  $(BUILD)/bench_decode --stream $(BUILD)/bench-$$w.pt $(BENCH_MODEL_CLOCK) || exit 1; echo; \
	done
	@$(if $(BENCH22),$(BENCH22) && echo && $(if $(REAL_TRACE),$(BENCH22) --stream $(REAL_TRACE) && echo,true),echo "libipt 2.2: ../shared/reference/libipt-2.2.tar.gz or cmake missing, its rows skipped")
	@$(BUILD)/bench_model
	@echo
	@$(if $(SHARED_DIR),$(BUILD)/bench_flow $(dir $(SHARED_DIR)) && echo,echo "bench_flow: ../shared/flow not found, skipped")
	@$(if $(and $(SHARED_DIR),$(BENCH_FLOW22)),$(BENCH_FLOW22) $(dir $(SHARED_DIR)) && echo,echo "bench_flow against libipt 2.2: ../shared/flow, its tarball or cmake missing, skipped")
	@$(BUILD)/timecmp --real-clocks --check
	@$(if $(TIMECMP22),echo && $(TIMECMP22) --encoder-only --whole-only --no-perf,echo "timecmp against libipt 2.2: its tarball or cmake missing, skipped")

# ---- install ----------------------------------------------------------------
# ptcodec is one header: the pkg-config file and the CMake package
# (find_package(ptcodec) -> INTERFACE target ptcodec::ptcodec) only add its
# include directory. The version comes from the header, its one place.
PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^\#define PTCODEC_VERSION_STRING "\(.*\)"/\1/p' $(HDR))
INCDIR  := $(PREFIX)/include
BINDIR  := $(PREFIX)/bin
MAN1DIR := $(PREFIX)/share/man/man1
PCDIR   := $(PREFIX)/share/pkgconfig
CMAKEDIR := $(PREFIX)/share/cmake/ptcodec
# the PT-aware mutator and the differential template (MUTATOR_HDRS, at the
# top), side by side in include/ptcodec/ as in harness/ (#include
# <ptcodec/ptmutator.h>: it includes ../ptcodec.h), and the mutator's AFL++ library
MUTINCDIR := $(INCDIR)/ptcodec
MUTLIBDIR := $(PREFIX)/lib/ptcodec
INSTALLED := $(INCDIR)/ptcodec.h $(addprefix $(BINDIR)/,$(TOOLS)) $(patsubst %,$(MAN1DIR)/%.1,$(TOOLS)) \
             $(PCDIR)/ptcodec.pc $(CMAKEDIR)/ptcodecConfig.cmake $(CMAKEDIR)/ptcodecConfigVersion.cmake \
             $(addprefix $(MUTINCDIR)/,$(notdir $(MUTATOR_HDRS))) $(MUTLIBDIR)/ptcodec-mutator.so

$(BUILD)/ptcodec.pc: $(HDR) Makefile | $(BUILD)
	@printf '%s\n' 'prefix=$(PREFIX)' 'includedir=$${prefix}/include' '' 'Name: ptcodec' \
	  'Description: Intel Processor Trace packet codec, clock recovery and hardware model (one header)' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' > $@

# relocatable: the include directory is found from where the file lies
$(BUILD)/ptcodecConfig.cmake: $(HDR) Makefile | $(BUILD)
	@printf '%s\n' '# ptcodec $(VERSION): a single-header library; link ptcodec::ptcodec for its include directory' \
	  'get_filename_component(_ptcodec_prefix "$${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)' \
	  'if(NOT TARGET ptcodec::ptcodec)' \
	  '  add_library(ptcodec::ptcodec INTERFACE IMPORTED)' \
	  '  set_target_properties(ptcodec::ptcodec PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$${_ptcodec_prefix}/include")' \
	  'endif()' 'unset(_ptcodec_prefix)' > $@

# A request for version W is met by this version H when W <= H, with the
# same major version, and, before 1.0, the same minor version too.
$(BUILD)/ptcodecConfigVersion.cmake: $(HDR) Makefile | $(BUILD)
	@printf '%s\n' 'set(PACKAGE_VERSION "$(VERSION)")' \
	  'string(REGEX MATCH "^[0-9]+\\.[0-9]+" _ptcodec_have "$${PACKAGE_VERSION}")' \
	  'string(REGEX MATCH "^[0-9]+\\.[0-9]+" _ptcodec_want "$${PACKAGE_FIND_VERSION}")' \
	  'set(PACKAGE_VERSION_COMPATIBLE TRUE)' \
	  'if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)' \
	  '  set(PACKAGE_VERSION_COMPATIBLE FALSE)' \
	  'elseif(PACKAGE_FIND_VERSION AND NOT PACKAGE_FIND_VERSION_MAJOR EQUAL $(firstword $(subst ., ,$(VERSION))))' \
	  '  set(PACKAGE_VERSION_COMPATIBLE FALSE)' \
	  'elseif(PACKAGE_FIND_VERSION AND PACKAGE_FIND_VERSION_MAJOR EQUAL 0 AND NOT _ptcodec_want VERSION_EQUAL _ptcodec_have)' \
	  '  set(PACKAGE_VERSION_COMPATIBLE FALSE)' \
	  'endif()' \
	  'if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)' '  set(PACKAGE_VERSION_EXACT TRUE)' 'endif()' \
	  'unset(_ptcodec_have)' 'unset(_ptcodec_want)' > $@

install: tools $(BUILD)/ptcodec.pc $(BUILD)/ptcodecConfig.cmake $(BUILD)/ptcodecConfigVersion.cmake $(BUILD)/afl/ptcodec-mutator.so
	install -d $(DESTDIR)$(INCDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(PCDIR) $(DESTDIR)$(CMAKEDIR) \
	  $(DESTDIR)$(MUTINCDIR) $(DESTDIR)$(MUTLIBDIR)
	install -m 644 $(HDR) $(DESTDIR)$(INCDIR)/
	install -m 644 $(MUTATOR_HDRS) $(DESTDIR)$(MUTINCDIR)/
	install -m 755 $(BUILD)/afl/ptcodec-mutator.so $(DESTDIR)$(MUTLIBDIR)/
	install -m 755 $(addprefix $(BUILD)/,$(TOOLS)) $(DESTDIR)$(BINDIR)/
	install -m 644 $(patsubst %,tools/%.1,$(TOOLS)) $(DESTDIR)$(MAN1DIR)/
	install -m 644 $(BUILD)/ptcodec.pc $(DESTDIR)$(PCDIR)/
	install -m 644 $(BUILD)/ptcodecConfig.cmake $(BUILD)/ptcodecConfigVersion.cmake $(DESTDIR)$(CMAKEDIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(MUTINCDIR) $(DESTDIR)$(MUTLIBDIR) 2>/dev/null

clean:
	rm -rf $(BUILD)

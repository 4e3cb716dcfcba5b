#!/usr/bin/env bats
# Conventions every pf tool keeps (doc/style.md): -h/--help, --version, exit 2
# with one line and the synopsis on misuse, exit 3 on a missing input, and
# every long option of --help documented in the tool's man page.

load test_helper

# missing_input_args TOOL: arguments that make TOOL read a file that does
# not exist.  Each tool names its own way in.
missing_input_args() {
	case $1 in
	pf-fold|pf-report|pf-svg) echo "/nonexistent/pf-input" ;;
	pf-classify|pf-precheck) echo "--proc-root /nonexistent/pf-proc" ;;
	pf-record|pf-offcpu) echo "-d 1 -o /nonexistent/dir/out.txt -- true" ;;
	*) return 1 ;;
	esac
}

man_page() {
	local m
	for m in "$PF_ROOT"/man/"$1".[18]; do
		[ -e "$m" ] && { echo "$m"; return 0; }
	done
	return 1
}

@test "every tool builds to bin/" {
	local t n=0
	for t in $(pf_tools); do
		[ -x "$PF_BIN_DIR/$t" ] || fail "$t: not built in $PF_BIN_DIR"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || fail "no tools found under bin/"
}

# cli_tools: every command a user runs: the tools of bin/ and the runbook
# scripts installed beside them.
cli_tools() {
	pf_tools
	echo pf-triage
	echo pf-bundle
}

# cli_path TOOL: where this checkout's TOOL is.
cli_path() {
	case $1 in
	pf-triage|pf-bundle) echo "$PF_ROOT/scripts/$1" ;;
	*) echo "$PF_BIN_DIR/$1" ;;
	esac
}

# help_problems TOOL TEXT: what TEXT, TOOL's --help, lacks, one per line:
# the synopsis, a blank line, then one line per option the synopsis names.
help_problems() {
	local t=$1 text=$2 synopsis options opt
	synopsis=$(printf '%s\n' "$text" | sed '/^$/q')
	options=$(printf '%s\n' "$text" | sed '1,/^$/d')
	[ -n "$options" ] || { echo "no blank line then option lines after the synopsis"; return; }
	for opt in $(printf '%s\n' "$synopsis" | grep -oE -- '(^|[[ |])--?[A-Za-z][A-Za-z0-9-]*' |
	    grep -oE -- '--?[A-Za-z][A-Za-z0-9-]*' | sort -u); do
		printf '%s\n' "$options" | grep -qE -- "^ +(-[A-Za-z0-9], )?$opt([ ,=]|\$)" ||
			echo "$opt is in the synopsis but has no line of its own"
	done
}

# The usage convention (doc/style.md), one row per invocation:
# ARGS | status | what stdout holds | what stderr holds.
@test "every tool and script keeps the --help, --version and misuse convention" {
	local t row args want out err bad=()
	local -a rows=(
		"--help|0|usage|empty"
		"-h|0|usage|empty"
		"--version|0|version|empty"
		"--no-such-option|2|empty|why+synopsis"
	)
	for t in $(cli_tools); do
		for row in "${rows[@]}"; do
			IFS='|' read -r args want out err <<<"$row"
			# shellcheck disable=SC2086 # ARGS may be several words
			run --separate-stderr "$(cli_path "$t")" $args
			[ "$status" -eq "$want" ] || bad+=("$t $args: status $status, want $want")
			case $out in
			usage)
				[[ "${lines[0]:-}" == "usage: $t"* ]] ||
					bad+=("$t $args: stdout does not start with 'usage: $t'")
				while read -r p; do
					[ -z "$p" ] || bad+=("$t $args: $p")
				done <<<"$(help_problems "$t" "$output")" ;;
			version)
				[[ "$output" =~ ^$t\ [0-9]+\.[0-9]+\.[0-9]+$ ]] ||
					bad+=("$t $args: stdout '$output', want '$t VERSION'") ;;
			empty)
				[ -z "$output" ] || bad+=("$t $args: wrote to stdout: ${lines[0]}") ;;
			esac
			case $err in
			empty)
				[ -z "$stderr" ] || bad+=("$t $args: wrote to stderr: ${stderr_lines[0]}") ;;
			why+synopsis)
				[[ "${stderr_lines[0]:-}" == "$t: "* ]] ||
					bad+=("$t $args: stderr's first line '${stderr_lines[0]:-}', want '$t: why'")
				[[ "${stderr_lines[1]:-}" == "usage: $t"* ]] ||
					bad+=("$t $args: the synopsis does not follow the one line on stderr") ;;
			esac
		done
	done
	[ "${#bad[@]}" -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

# needs_arg_option TOOL: one of TOOL's options that takes a value.
needs_arg_option() {
	case $1 in
	pf-fold) echo --time ;;
	pf-precheck|pf-classify) echo --pid ;;
	pf-record|pf-offcpu) echo --duration ;;
	pf-report) echo --rows ;;
	pf-svg) echo --title ;;
	*) return 1 ;;
	esac
}

# The words of lib/common/msg.c's pf_usage_getopt, so that every tool says
# the same thing about the same mistake.
@test "every tool words getopt misuse alike: unknown, ambiguous, missing or unwanted argument" {
	local t row args want opt bad=()
	for t in $(pf_tools); do
		opt=$(needs_arg_option "$t") || { bad+=("$t: add it to needs_arg_option"); continue; }
		local -a rows=(
			"-Q|$t: -Q: unknown option"
			"--no-such-option|$t: --no-such-option: unknown or ambiguous option"
			"--version=1|$t: --version=1: takes no argument"
			"--help=x|$t: --help=x: takes no argument"
			"$opt|$t: $opt: needs an argument"
		)
		for row in "${rows[@]}"; do
			IFS='|' read -r args want <<<"$row"
			# shellcheck disable=SC2086 # ARGS may be several words
			run --separate-stderr "$t" $args
			[ "$status" -eq 2 ] || bad+=("$t $args: status $status, want 2")
			[ "${stderr_lines[0]:-}" = "$want" ] ||
				bad+=("$t $args: '${stderr_lines[0]:-}', want '$want'")
			[ "${#stderr_lines[@]}" -ge 2 ] && [[ "${stderr_lines[1]}" == "usage: $t"* ]] ||
				bad+=("$t $args: no synopsis after the one line")
		done
	done
	[ "${#bad[@]}" -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

@test "a missing input file exits 3 naming the file" {
	local t args
	for t in $(pf_tools); do
		args=$(missing_input_args "$t") || fail "$t: add it to missing_input_args"
		# shellcheck disable=SC2086
		run --separate-stderr "$t" $args
		[ "$status" -eq 3 ] || fail "$t $args: status $status, want 3 ($stderr)"
		[[ "$stderr" == *"/nonexistent/"* ]] || fail "$t: error does not name the path: $stderr"
	done
}

@test "every long option in --help is documented in the man page" {
	local t m opt
	for t in $(pf_tools); do
		m=$(man_page "$t") || fail "$t: no man page man/$t.[18]"
		for opt in $("$t" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
			grep -qE -- "Fl -${opt#--}([^a-z0-9-]|\$)" "$m" ||
				fail "$t: $opt is in --help but not in $m"
		done
	done
}

@test "every man page is mandoc -Tlint clean" {
	require_cmd mandoc
	local m
	for m in "$PF_ROOT"/man/*.[1-8]; do
		run mandoc -Tlint -W warning "$m"
		[ "$status" -eq 0 ] || fail "$m: $output"
	done
}

@test "every tool links only libc, libm, libelf, libdw and libcap" {
	require_cmd readelf
	local t lib
	for t in $(pf_tools); do
		for lib in $(readelf -d "$PF_BIN_DIR/$t" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $lib in
			libc.so.*|libm.so.*|libelf.so.*|libdw.so.*|libcap.so.*) ;;
			# Sanitizer runtimes, only in SANITIZE builds.
			libasan.so.*|libubsan.so.*|libstdc++.so.*|libgcc_s.so.*)
				[[ "$PF_BIN_DIR" == */build-san/* ]] || fail "$t needs $lib" ;;
			*) fail "$t needs $lib" ;;
			esac
		done
	done
}

@test "no tracked file points at a document the repository does not hold" {
	git -C "$PF_ROOT" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout: no list of tracked files"
	local hits ref bad=()
	# Design notes, style and design documents kept outside the tree.
	hits=$(git -C "$PF_ROOT" grep -nIE -e 'research/[A-Za-z0-9_-]+\.md' \
		-e '(^|[^A-Za-z0-9_])(STYLE|DESIGN)\.md') || true
	[ -z "$hits" ] || bad+=("outside documents named:" "$hits")
	# Every page of doc/ that a file names must exist.
	while IFS= read -r ref; do
		[ -n "$ref" ] || continue
		[ -f "$PF_ROOT/$ref" ] || bad+=("$ref is named but does not exist")
	done <<<"$(git -C "$PF_ROOT" grep -ohIE -e '(^|[^/A-Za-z0-9_.-])doc/[A-Za-z0-9_-]+\.md' |
		sed 's/^[^d]*//' | sort -u)"
	[ "${#bad[@]}" -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

# SAFETY.md's last column names the tests that enforce each rule, as
# `SUITE.bats`: "NAME", "NAME"...  A name cut short ends (or is cut in
# the middle) with "…", which stands for the rest.  A section headed by
# a tool (## pf-record) may leave its own suite out: in that column, a
# name before any suite is a test of pf-record.bats.  A section that is
# not a tool's has no suite of its own, so there every name needs one.
# A test renamed or moved without its citation leaves a rule that names
# no test.
@test "every test SAFETY.md cites exists, under that name, in that suite" {
	local f names
	names=$BATS_TEST_TMPDIR/names
	for f in "$PF_ROOT"/tests/bats/*.bats; do
		# One-line tests too ({ body; } on the @test line).
		sed -n 's/^@test "\(.*\)" {\( .*\)\{0,1\}$/\1/p' "$f" | sed 's/\\"/"/g' |
		    sed "s|^|${f##*/}\t|"
	done > "$names"
	# shellcheck disable=SC2016 # an awk program
	run -0 awk -F '\t' '
		FNR == NR { n[$1] = n[$1] "\n" $2; next }
		# cited SUITE NAME: whether a test of SUITE matches NAME, whose
		# "…" stand for any text.
		function cited(suite, name,    list, k, i, p, parts, at, first, last) {
			list = n[suite]
			k = split(list, t, "\n")
			np = split(name, parts, "…")
			for (i = 2; i <= k; i++) {
				at = 1; ok = 1
				for (p = 1; p <= np && ok; p++) {
					if (parts[p] == "") continue
					j = index(substr(t[i], at), parts[p])
					if (j == 0 || (p == 1 && j != 1)) ok = 0
					else at += j - 1 + length(parts[p])
				}
				if (ok && (parts[np] == "" || at == length(t[i]) + 1)) return 1
			}
			return 0
		}
		/^## / { own = ""; if ($0 ~ /^## pf-[a-z]+$/) own = substr($0, 4) ".bats" }
		/^\|/ {
			# The row ends in "|", so the proved-by column is the
			# last cell but one (an escaped \| in a cell only adds
			# cells before it).
			nc = split($0, cell, "|")
			for (c = 1; c <= nc; c++) {
				rest = cell[c]; suite = c == nc - 1 ? own : ""; implied = suite != ""
				while (match(rest, /[a-z0-9-]+\.bats|"[^"]+"/)) {
					tok = substr(rest, RSTART, RLENGTH)
					rest = substr(rest, RSTART + RLENGTH)
					if (tok ~ /\.bats$/) { suite = tok; implied = 0; continue }
					if (c == nc - 1 && suite == "")
						print "SAFETY.md:" FNR ": " tok " names no suite, and the section has none of its own"
					if (suite == "") continue
					tok = substr(tok, 2, length(tok) - 2)
					cites++
					owns += implied
					if (!(suite in n)) print "SAFETY.md:" FNR ": no suite " suite
					else if (!cited(suite, tok)) print "SAFETY.md:" FNR ": " suite " has no test \"" tok "\""
				}
			}
		}
		END { print cites " citations, " owns " by their section" }' "$names" "$PF_ROOT/SAFETY.md"
	# The check can fail: it read citations, those of a section's own
	# suite among them, and every one matched.
	[[ ${lines[-1]} =~ ^([0-9]+)\ citations,\ ([0-9]+)\ by ]] || fail "$output"
	[ "${BASH_REMATCH[1]}" -gt 100 ] || fail "only $output"
	[ "${BASH_REMATCH[2]}" -gt 10 ] || fail "only $output"
	[ "${#lines[@]}" -eq 1 ] || fail "$output"
}

@test "every tool and lib/common module has its line in doc/modules.md, and no other" {
	local m f name bad=()
	m="$PF_ROOT/doc/modules.md"
	[ -f "$m" ] || fail "doc/modules.md is missing"
	for f in "$PF_ROOT"/bin/pf-*.c "$PF_ROOT"/lib/common/*.c; do
		name=${f#"$PF_ROOT"/}
		name=${name%.c}
		grep -qF -- "- \`$name\` — " "$m" || bad+=("$name: no line in doc/modules.md")
	done
	# shellcheck disable=SC2016 # the backquotes are the page's, not the shell's
	for name in $(grep -oE -- '^- `(bin|lib/common)/[^`]+`' "$m" | tr -d '`' | cut -c3-); do
		case $name in
		*.h) [ -f "$PF_ROOT/$name" ] ;;
		*) [ -f "$PF_ROOT/$name.c" ] ;;
		esac || bad+=("doc/modules.md names $name, which is gone")
	done
	[ "${#bad[@]}" -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

# Library code reports through its return value (-1 with errno, a struct
# pf_result); only msg.c prints or exits, for the tool that calls it.
# Output is not diagnostics: a recording written to the descriptor the
# caller chose (STDOUT_FILENO without -o) and an SVG written through the
# caller's sink (flame.h) are the product, and asking whether stderr is a
# terminal (isatty) writes nothing.  Each allowed exception is listed here
# with its reason, as file:code.
@test "no lib/common code outside msg.c prints or exits" {
	local f line code bad=() calls allowed
	calls='exit|_exit|_Exit|quick_exit|abort|printf|vprintf|fprintf|vfprintf|dprintf|vdprintf'
	calls+='|puts|fputs|putchar|putc|fputc|fwrite|perror|psignal|syslog'
	calls+='|warn|warnx|vwarn|vwarnx|err|errx|verr|verrx'
	calls+='|pf_warn|pf_warnx|pf_die|pf_diex|pf_usage_error|pf_usage_getopt'
	calls+='|pf_print_version|pf_exit_checked|pf_say|pf_result_exit'
	# spawn.c: the forked child leaves with _exit when the exec fails or the
	# parent gives up; it must not run the parent's atexit handlers.  A
	# command's stdout may be made its recorder's stderr (--cmd-output).
	# recorder.c's test build only (PF_TEST_HOOKS, pf-record-hook) aborts
	# where a sample is formatted, as libdw's assertions do there.
	# mapfile.c: the recorder's file helper, a forked child too, leaves the
	# same way when it cannot set itself up (1) or its recorder is done (0).
	allowed='spawn.c:_exit(127);'
	allowed+=' mapfile.c:_exit(1); mapfile.c:_exit(0);'
	allowed+=' spawn.c:return dup2(STDERR_FILENO, STDOUT_FILENO) == -1 ? -1 : 0;'
	allowed+=' recorder.c:abort();'
	for f in "$PF_ROOT"/lib/common/*.[ch]; do
		case ${f##*/} in msg.[ch]) continue ;; esac
		# String literals and comments are not calls.
		while IFS= read -r line; do
			code=$(printf '%s\n' "$line" | sed -E 's/^[[:space:]]+//')
			case " $allowed " in
			*" ${f##*/}:$code "*) continue ;;
			esac
			bad+=("lib/common/${f##*/}: $code")
		done < <(sed -E -e 's/"([^"\\]|\\.)*"/""/g' -e 's,/\*.*\*/,,g' -e 's,//.*$,,' \
		    -e '/^[[:space:]]*(\/\*|\*)/d' "$f" |
		    sed -E -e 's/__attribute__[[:space:]]*\(\(format\(printf,[^)]*\)\)\)//g' \
			-e 's/isatty[[:space:]]*\([[:space:]]*STDERR_FILENO[[:space:]]*\)/isatty()/g' |
		    grep -E "(^|[^A-Za-z0-9_>.])($calls)[[:space:]]*\(|(^|[^A-Za-z0-9_])(stdout|stderr|STDERR_FILENO)([^A-Za-z0-9_]|\$)|(^|[^A-Za-z0-9_])write[[:space:]]*\([[:space:]]*[12][[:space:]]*," || true)
	done
	[ "${#bad[@]}" -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

# What a run keeps lives in a struct main owns, handed to the callbacks
# (doc/style.md): these tools hold no file-scope or static local variable
# that is not const.  The compiler says what is writable: each file is
# compiled alone at -O0 (nothing dropped, -fno-common) and every object
# in a writable data section fails the test; const tables, even those
# holding pointers (.data.rel.ro), do not.
@test "pf-offcpu keeps no mutable state outside main: only const tables at file scope" {
	local t o objs name sec n bad=()
	# pf-record still keeps its -F in a static: not on the list yet.
	local tools=(pf-offcpu)
	require_cmd cc objdump
	for t in "${tools[@]}"; do
		o="$BATS_TEST_TMPDIR/$t.o"
		# shellcheck disable=SC2046 # pkg-config's flags are words
		cc -std=gnu11 -O0 -fno-common -I"$PF_ROOT/lib/common" \
		    $(pkg-config --cflags libelf libdw 2>/dev/null) \
		    -c -o "$o" "$PF_ROOT/bin/$t.c" || fail "$t.c does not compile"
		# "ADDRESS FLAGS... SECTION SIZE NAME"; the last flag is O for an object.
		objs=$(objdump -t "$o" | awk 'NF >= 5 && $(NF-3) == "O" { print $NF, $(NF-2) }') ||
		    fail "objdump -t $o failed"
		n=0
		while read -r name sec; do
			[ -n "$name" ] || continue
			n=$((n + 1))
			case $sec in
			.data.rel.ro|.data.rel.ro.*) ;;
			.data|.data.*|.bss|.bss.*|.tdata|.tdata.*|.tbss|.tbss.*|'*COM*')
				bad+=("bin/$t.c: $name ($sec)") ;;
			esac
		done <<<"$objs"
		# Its synopsis, help and option tables at least: the listing was read.
		[ "$n" -ge 3 ] || fail "$t.o: only $n objects in objdump -t: $objs"
	done
	[ "${#bad[@]}" -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

# An array grows through pf_grow (lib/common/grow.h), which checks its byte
# size: a realloc of n * size written by hand can wrap to a short block.  The
# byte buffers are their own primitives: buf.c (pf_buf, which keeps a NUL
# and checks its sizes) and linereader.c (bounded by its 64 MiB line cap).
@test "arrays grow through pf_grow: no realloc in the tools or lib/common outside grow.c, buf.c and linereader.c" {
	local hits
	hits=$(cd "$PF_ROOT" && grep -nE '(^|[^A-Za-z0-9_])(realloc|reallocarray)[[:space:]]*\(' \
	    lib/common/*.c bin/*.c | grep -vE '^lib/common/(grow|buf|linereader)\.c:') || true
	[ -z "$hits" ] || fail "grown by hand, not through pf_grow:"$'\n'"$hits"
}

# The library's names are one namespace, pf_ (doc/style.md): every
# function, object, type, enumerator and macro a lib/common header
# declares starts with pf_ or PF_, so no tool's or libc's name can clash
# with one, and a name says it is the library's.  tests/header-names.pl
# lists them; the known names below prove it read each kind.
@test "every name a lib/common header declares carries pf_ (PF_ for macros and enumerators)" {
	local names bad want
	require_cmd perl
	names=$(cd "$PF_ROOT/lib/common" && perl "$PF_ROOT/tests/header-names.pl" ./*.h) ||
	    fail "tests/header-names.pl failed"
	for want in 'grow.h function pf_grow' 'intern.h function pf_intern_add' \
	    'symbolize.h function pf_sym_frame' 'buf.h tag pf_buf' 'pf.h enumerator PF_EXIT_FAIL' \
	    'intern.h macro PF_INTERN_MAX' 'kallsyms.h tag pf_kallsyms'; do
		grep -qxF -- "$want" <<<"$names" || fail "the listing lacks '$want': $names"
	done
	[ "$(wc -l <<<"$names")" -ge 500 ] || fail "only $(wc -l <<<"$names") names: $names"
	bad=$(grep -vE ' (pf_|PF_)[A-Za-z0-9_]+$' <<<"$names") || true
	[ -z "$bad" ] || fail "named outside pf_:"$'\n'"$bad"
}

# doc/modules.md keeps each list in name order (its own rule), so a module
# is found where it should be and a second line for one stands beside it.
@test "doc/modules.md lists the tools and each group of lib/common modules in name order" {
	local m group bad=() n=0
	m="$PF_ROOT/doc/modules.md"
	# Each run of bin/ or lib/common lines between headings is a group.
	while IFS= read -r group; do
		n=$((n + 1))
		LC_ALL=C sort -c <<<"${group//,/$'\n'}" 2>/dev/null || bad+=("out of order: $group")
	done < <(awk '/^#/ { if (g != "") print g; g = "" }
	    match($0, /^- `(bin|lib\/common)\/[^`]+`/) {
		name = substr($0, 4, RLENGTH - 4); g = g == "" ? name : g "," name }
	    END { if (g != "") print g }' "$m")
	[ "$n" -ge 7 ] || fail "only $n groups found in $m"
	[ "${#bad[@]}" -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

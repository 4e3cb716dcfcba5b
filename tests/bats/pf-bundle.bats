#!/usr/bin/env bats
# scripts/pf-bundle: one tarball with a manifest and checksums.

load test_helper

BUNDLE="$PF_SCRIPTS/pf-bundle"

setup() {
	mkdir -p "$BATS_TEST_TMPDIR/ev/sub"
	printf 'stack 1\n' > "$BATS_TEST_TMPDIR/ev/cpu.folded"
	printf 'x\n' > "$BATS_TEST_TMPDIR/ev/sub/b.txt"
	printf 'pf-record -p 42 -d 5\n' > "$BATS_TEST_TMPDIR/ev/commands.log"
}

@test "the bundle holds the inputs, a manifest and checksums that verify" {
	run -0 --separate-stderr "$BUNDLE" -o "$BATS_TEST_TMPDIR/b.tgz" "$BATS_TEST_TMPDIR/ev"
	assert_output "$BATS_TEST_TMPDIR/b.tgz"
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/b.tgz")" = 600 ]
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -C "$BATS_TEST_TMPDIR/x" -xzf "$BATS_TEST_TMPDIR/b.tgz"
	cd "$BATS_TEST_TMPDIR"/x/pf-bundle-*
	run -0 sha256sum -c SHA256SUMS
	assert_line --partial "ev/sub/b.txt: OK"
	run -0 cat MANIFEST
	assert_line "host $(uname -n)"
	assert_line "kernel $(uname -r)"
	assert_line "command pf-record -p 42 -d 5"
	assert_line "file 8 ./ev/cpu.folded"
	assert_line --regexp '^created [0-9]{8}T[0-9]{6}Z$'
}

@test "the MANIFEST lists the build-ids each recording lists, from its header only, once each" {
	local a=0123456789abcdef0123456789abcdef01234567 b=93ac61ec5a8eb1396f9fbd350e3169a558528a40
	printf '%s\n' "# pf-record 2 host=h target=pid:1 freq=99 start=x" \
		"# build-id $a /opt/my\\x20app/bin/server 1000:401000:2000" \
		"# build-id $b /usr/lib/x86_64-linux-gnu/libc.so.6 26000:26000:1550fc" \
		"# build-id 0a0 /odd/digits" "# build-id 0A0B /upper/case" \
		"server 1/1 [000] 1.000000: 10 cpu-clock: " "	1130 [unknown] (/opt/my app/bin/server)" "" \
		"# build-id 0c0d /after/a/sample" >"$BATS_TEST_TMPDIR/ev/cpu.perf"
	printf '%s\n' "# pf-offcpu 2 host=h target=pid:1 start=x" \
		"# build-id $b /usr/lib/x86_64-linux-gnu/libc.so.6 26000:26000:1550fc" \
		"# build-id 0e0f /lib/ld"$'\001'"forged" >"$BATS_TEST_TMPDIR/ev/sub/off.perf"
	# Not a recording: its lines are not a recorder's.
	printf '%s\n' "stack 1" "# build-id 1111 /not/a/stream" >"$BATS_TEST_TMPDIR/ev/sub/notes.txt"
	run -0 --separate-stderr "$BUNDLE" -o "$BATS_TEST_TMPDIR/b.tgz" "$BATS_TEST_TMPDIR/ev"
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -C "$BATS_TEST_TMPDIR/x" -xzf "$BATS_TEST_TMPDIR/b.tgz"
	run -0 grep '^build-id ' "$BATS_TEST_TMPDIR"/x/pf-bundle-*/MANIFEST
	assert_output "build-id $a /opt/my\x20app/bin/server
build-id $b /usr/lib/x86_64-linux-gnu/libc.so.6"
	cd "$BATS_TEST_TMPDIR"/x/pf-bundle-*
	run -0 sha256sum -c SHA256SUMS
}

@test "the MANIFEST names the pf version, the one pf.h and --version give" {
	local want
	want=$(pf_version)
	run -0 --separate-stderr "$BUNDLE" --version
	assert_output "pf-bundle $want"
	run -0 --separate-stderr "$BUNDLE" -o "$BATS_TEST_TMPDIR/b.tgz" "$BATS_TEST_TMPDIR/ev"
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -C "$BATS_TEST_TMPDIR/x" -xzf "$BATS_TEST_TMPDIR/b.tgz"
	run -0 grep -c '^pf-version ' "$BATS_TEST_TMPDIR"/x/pf-bundle-*/MANIFEST
	assert_output 1
	run -0 cat "$BATS_TEST_TMPDIR"/x/pf-bundle-*/MANIFEST
	assert_line "pf-version $want"
}

@test "an existing output is never replaced without -f" {
	printf 'old' > "$BATS_TEST_TMPDIR/b.tgz"
	run -3 --separate-stderr "$BUNDLE" -o "$BATS_TEST_TMPDIR/b.tgz" "$BATS_TEST_TMPDIR/ev"
	[[ "$stderr" == *"File exists"* ]]
	[ "$(cat "$BATS_TEST_TMPDIR/b.tgz")" = old ]
	[ ! -e "$BATS_TEST_TMPDIR/b.tgz.sha256" ]
	run -0 --separate-stderr "$BUNDLE" -f -o "$BATS_TEST_TMPDIR/b.tgz" "$BATS_TEST_TMPDIR/ev"
	run -0 tar -tzf "$BATS_TEST_TMPDIR/b.tgz"
	assert_line --partial "/MANIFEST"
}

@test "a symlink at the output path is refused even with -f" {
	ln -s "$BATS_TEST_TMPDIR/target" "$BATS_TEST_TMPDIR/b.tgz"
	run -3 --separate-stderr "$BUNDLE" -f -o "$BATS_TEST_TMPDIR/b.tgz" "$BATS_TEST_TMPDIR/ev"
	[ ! -e "$BATS_TEST_TMPDIR/target" ]
	[ ! -e "$BATS_TEST_TMPDIR/b.tgz.sha256" ]
}

@test "TARBALL.sha256 beside the tarball: mode 0600, the line sha256sum writes for its base name, and it verifies" {
	local o d b
	mkdir "$BATS_TEST_TMPDIR/out"
	cd "$BATS_TEST_TMPDIR"
	# A backslash is escaped in sha256sum's format, and a file named - must
	# be written ./- there, or sha256sum -c would read its standard input.
	for o in "$BATS_TEST_TMPDIR/out/b.tgz" "out/it's a\\b.tar.gz" "out/-"; do
		run -0 --separate-stderr "$BUNDLE" -o "$o" ev
		# The output is still the tarball's path alone (pf-triage prints it).
		assert_output "$o"
		[ -f "$o.sha256" ]
		[ ! -L "$o.sha256" ]
		[ "$(stat -c %a "$o.sha256")" = 600 ]
		d=$(dirname -- "$o") b=$(basename -- "$o")
		[ "$b" != - ] || b=./-
		[ "$(cat "$o.sha256")" = "$(cd "$d" && sha256sum -- "$b")" ] ||
			fail "$o.sha256: $(cat "$o.sha256")"
		# shellcheck disable=SC2016 # the inner sh expands $1 and $2
		run -0 sh -c 'cd "$1" && sha256sum -c --strict -- "$2"' sh "$d" "$(basename -- "$o").sha256"
		assert_output "$b: OK"
	done
	# The default name gets one too.
	mkdir "$BATS_TEST_TMPDIR/def"
	cd "$BATS_TEST_TMPDIR/def"
	run -0 --separate-stderr "$BUNDLE" ../ev
	[[ "$output" == ./pf-bundle-*.tar.gz ]]
	o=$output
	run -0 sha256sum -c --strict "$o.sha256"
	assert_output "${o#./}: OK"
	[ "$(find . -mindepth 1 -maxdepth 1 | wc -l)" -eq 2 ]
}

@test "a symlink planted at TARBALL.sha256 is never followed, with or without -f; nothing is written" {
	local f
	cd "$BATS_TEST_TMPDIR"
	printf 'root-owned\n' > victim
	for f in "" -f; do
		ln -s victim b.tgz.sha256
		# A dangling link too: writing through it would create its target.
		ln -s "$BATS_TEST_TMPDIR/created" c.tgz.sha256
		# shellcheck disable=SC2086 # $f is no option or one
		run -3 --separate-stderr "$BUNDLE" $f -o b.tgz ev
		if [ -z "$f" ]; then
			[ "$stderr" = "pf-bundle: b.tgz.sha256: File exists (use -f to replace)" ] || fail "$stderr"
		else
			[ "$stderr" = "pf-bundle: b.tgz.sha256: not a regular file" ] || fail "$stderr"
		fi
		# shellcheck disable=SC2086
		run -3 --separate-stderr "$BUNDLE" $f -o c.tgz ev
		[ "$(cat victim)" = root-owned ]
		[ ! -e created ]
		[ ! -L created ]
		[ -L b.tgz.sha256 ]
		[ -L c.tgz.sha256 ]
		[ ! -e b.tgz ]
		[ ! -e c.tgz ]
		[ -z "$(find . -maxdepth 1 -name '.pf-bundle.*')" ]
		rm b.tgz.sha256 c.tgz.sha256
	done
}

@test "an existing TARBALL.sha256 is kept without -f, and with -f its name is replaced, not its content" {
	cd "$BATS_TEST_TMPDIR"
	printf 'old\n' > b.tgz.sha256
	# A second hard link to it: -f renames over the name, never writes the file.
	ln b.tgz.sha256 keep
	run -3 --separate-stderr "$BUNDLE" -o b.tgz ev
	[ "$stderr" = "pf-bundle: b.tgz.sha256: File exists (use -f to replace)" ] || fail "$stderr"
	[ "$(cat b.tgz.sha256)" = old ]
	[ ! -e b.tgz ]
	run -0 --separate-stderr "$BUNDLE" -f -o b.tgz ev
	run -0 sha256sum -c --strict b.tgz.sha256
	assert_output "b.tgz: OK"
	[ "$(stat -c %a b.tgz.sha256)" = 600 ]
	[ "$(cat keep)" = old ]
	# With both there, -f replaces the pair.
	run -0 --separate-stderr "$BUNDLE" -f -o b.tgz ev
	run -0 sha256sum -c --strict b.tgz.sha256
	assert_output "b.tgz: OK"
	[ -z "$(find . -maxdepth 1 -name '.pf-bundle.*')" ]
}

@test "a failure or a signal before TARBALL.sha256 is in place takes the tarball away again, and only it" {
	local f tool
	# ln and mv that refuse a name ending in .sha256, as when something
	# takes that name between the check and the link; with SWAP set, that
	# something first puts its own file at the tarball's name too; with
	# TERM_PARENT set, pf-bundle gets SIGTERM there instead.
	mkdir "$BATS_TEST_TMPDIR/fake"
	for tool in ln mv; do
		cat > "$BATS_TEST_TMPDIR/fake/$tool" <<-EOF
		#!/bin/sh
		for a; do :; done
		case \$a in
		*.sha256)
			[ -z "\${TERM_PARENT:-}" ] || { kill -TERM \$PPID; exit 0; }
			[ -z "\${SWAP:-}" ] || $(command -v mv) -f -- "\$SWAP" "\${a%.sha256}"
			echo "$tool: refused by the test" >&2
			exit 1 ;;
		esac
		exec $(command -v "$tool") "\$@"
		EOF
		chmod +x "$BATS_TEST_TMPDIR/fake/$tool"
	done
	cd "$BATS_TEST_TMPDIR"
	for f in "" -f; do
		# shellcheck disable=SC2086 # $f is no option or one
		run -3 --separate-stderr env PATH="$BATS_TEST_TMPDIR/fake:$PATH" "$BUNDLE" $f -o b.tgz ev
		[[ "$stderr" == *"pf-bundle: b.tgz.sha256: "* ]] || fail "$stderr"
		[ ! -e b.tgz ]
		[ ! -e b.tgz.sha256 ]
		[ -z "$(find . -maxdepth 1 -name '.pf-bundle.*')" ]
		# A file that took the tarball's name meanwhile is not this run's:
		# it stays.
		printf 'theirs\n' > theirs
		# shellcheck disable=SC2086
		run -3 --separate-stderr env SWAP="$BATS_TEST_TMPDIR/theirs" \
		    PATH="$BATS_TEST_TMPDIR/fake:$PATH" "$BUNDLE" $f -o b.tgz ev
		[ "$(cat b.tgz)" = theirs ]
		[ ! -e b.tgz.sha256 ]
		rm b.tgz
		# A signal between the two.
		# shellcheck disable=SC2086
		run -3 --separate-stderr env TERM_PARENT=1 \
		    PATH="$BATS_TEST_TMPDIR/fake:$PATH" "$BUNDLE" $f -o b.tgz ev
		[ ! -e b.tgz ]
		[ ! -e b.tgz.sha256 ]
		[ -z "$(find . -maxdepth 1 -name '.pf-bundle.*')" ]
	done
}

@test "a missing input exits 3 naming it and writes nothing" {
	run -3 --separate-stderr "$BUNDLE" -o "$BATS_TEST_TMPDIR/b.tgz" /nonexistent/evidence
	[[ "$stderr" == *"/nonexistent/evidence"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/b.tgz" ]
}

@test "no inputs is a usage error" {
	run -2 --separate-stderr "$BUNDLE"
	[[ "$stderr" == *"usage: pf-bundle"* ]]
}

# unpack TARBALL: extract into $BATS_TEST_TMPDIR/x and cd into the bundle.
unpack() {
	rm -rf "$BATS_TEST_TMPDIR/x"
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -C "$BATS_TEST_TMPDIR/x" -xzf "$1"
	cd "$BATS_TEST_TMPDIR"/x/pf-bundle-* || fail "no pf-bundle-* directory in $1"
}

@test "a symlink planted at the old partial name, or at any name the bundle writes, is never followed" {
	printf 'root-owned\n' > "$BATS_TEST_TMPDIR/victim"
	mkdir "$BATS_TEST_TMPDIR/shared" "$BATS_TEST_TMPDIR/tmp"
	chmod 1777 "$BATS_TEST_TMPDIR/shared"
	# exec keeps the pid, so the planted name is the one pf-bundle's $$ gives.
	# shellcheck disable=SC2016 # the inner sh expands $1, $2 and $$
	run -0 --separate-stderr env TMPDIR="$BATS_TEST_TMPDIR/tmp" sh -c '
		ln -s "$1/victim" "$1/shared/b.tgz.partial.$$"
		exec "$2" -o "$1/shared/b.tgz" "$1/ev"' sh "$BATS_TEST_TMPDIR" "$BUNDLE"
	[ "$(cat "$BATS_TEST_TMPDIR/victim")" = root-owned ]
	[ -f "$BATS_TEST_TMPDIR/shared/b.tgz" ]
	[ ! -L "$BATS_TEST_TMPDIR/shared/b.tgz" ]
	[ -f "$BATS_TEST_TMPDIR/shared/b.tgz.sha256" ]
	[ ! -L "$BATS_TEST_TMPDIR/shared/b.tgz.sha256" ]
	run -0 tar -tzf "$BATS_TEST_TMPDIR/shared/b.tgz"
	# Nothing else is left beside the output, its .sha256 and the planted
	# link, or in TMPDIR.
	[ "$(find "$BATS_TEST_TMPDIR/shared" -mindepth 1 -maxdepth 1 | wc -l)" -eq 3 ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp")" ]
	# The bundle's own MANIFEST and SHA256SUMS cannot be brought in as links.
	ln -s "$BATS_TEST_TMPDIR/victim" "$BATS_TEST_TMPDIR/MANIFEST"
	ln -s "$BATS_TEST_TMPDIR/victim" "$BATS_TEST_TMPDIR/SHA256SUMS"
	for f in MANIFEST SHA256SUMS; do
		run -2 --separate-stderr "$BUNDLE" -o "$BATS_TEST_TMPDIR/m.tgz" \
		    "$BATS_TEST_TMPDIR/ev" "$BATS_TEST_TMPDIR/$f"
		[[ "$stderr" == *"$f is the bundle's own file"* ]]
		[ "$(cat "$BATS_TEST_TMPDIR/victim")" = root-owned ]
		[ ! -e "$BATS_TEST_TMPDIR/m.tgz" ]
	done
}

@test "names with a space and a quote go through to the tarball and its MANIFEST" {
	mkdir -p "$BATS_TEST_TMPDIR/inc 42/it's here"
	printf 'one\n' > "$BATS_TEST_TMPDIR/inc 42/it's here/a \"b\" c"
	printf 'pf-fold '\''inc 42/cpu.perf'\''\n' > "$BATS_TEST_TMPDIR/inc 42/commands.log"
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr "$BUNDLE" -o "inc 42's.tar.gz" "inc 42"
	assert_output "inc 42's.tar.gz"
	unpack "$BATS_TEST_TMPDIR/inc 42's.tar.gz"
	run -0 sha256sum -c SHA256SUMS
	assert_line "./inc 42/it's here/a \"b\" c: OK"
	assert_line "./MANIFEST: OK"
	run -0 cat MANIFEST
	assert_line "inputs inc 42"
	assert_line "command pf-fold 'inc 42/cpu.perf'"
	assert_line "file 4 ./inc 42/it's here/a \"b\" c"
}

@test "a backslash in a name is written as it is: no escape forges or cuts a MANIFEST line, the path or a message" {
	# Printable, so allowed; dash's echo would turn \n into a newline (a
	# forged command line) and stop at \c.
	local f='ev/a\ncommand rm -rf \c' o='o\tx.tgz'
	cd "$BATS_TEST_TMPDIR"
	printf 'z' > "$f"
	run -0 --separate-stderr "$BUNDLE" -o "$o" ev
	assert_output "$o"
	unpack "$BATS_TEST_TMPDIR/$o"
	run -0 cat MANIFEST
	assert_line "file 1 ./$f"
	assert_line "file 2 ./ev/sub/b.txt"
	refute_line --regexp '^command rm'
	run -0 sha256sum -c --strict SHA256SUMS
	assert_line "./$f: OK"
	cd "$BATS_TEST_TMPDIR"
	run -3 --separate-stderr "$BUNDLE" -o "$o" 'no\nsuch\c'
	[ "$stderr" = 'pf-bundle: no\nsuch\c: No such file or directory' ] || fail "$stderr"
}

@test "a newline or control character in a name is refused with exit 2 before anything is written" {
	local nl
	nl=$(printf 'a\nb')
	mkdir "$BATS_TEST_TMPDIR/$nl"
	run -2 --separate-stderr "$BUNDLE" -o "$BATS_TEST_TMPDIR/b.tgz" "$BATS_TEST_TMPDIR/$nl"
	[[ "${stderr_lines[0]}" == "pf-bundle: $BATS_TEST_TMPDIR/a?b: a newline or control character in the name" ]]
	[[ "${stderr_lines[1]}" == "usage: pf-bundle"* ]]
	# Inside an input directory too, and in the output name.
	printf 'x' > "$BATS_TEST_TMPDIR/ev/sub/$(printf 'tab\there')"
	run -2 --separate-stderr "$BUNDLE" -o "$BATS_TEST_TMPDIR/b.tgz" "$BATS_TEST_TMPDIR/ev"
	[[ "$stderr" == *"ev/sub/tab?here: a newline or control character in a name inside"* ]]
	rm "$BATS_TEST_TMPDIR/ev/sub/$(printf 'tab\there')"
	run -2 --separate-stderr "$BUNDLE" -o "$BATS_TEST_TMPDIR/$nl.tgz" "$BATS_TEST_TMPDIR/ev"
	[ ! -e "$BATS_TEST_TMPDIR/b.tgz" ] && [ ! -e "$BATS_TEST_TMPDIR/$nl.tgz" ]
}

@test "two inputs with the same name are refused rather than merged" {
	mkdir -p "$BATS_TEST_TMPDIR/other/ev"
	run -2 --separate-stderr "$BUNDLE" -o "$BATS_TEST_TMPDIR/b.tgz" \
	    "$BATS_TEST_TMPDIR/ev" "$BATS_TEST_TMPDIR/other/ev"
	[[ "$stderr" == *"two inputs named ev"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/b.tgz" ]
}

@test "-h and --help print the usage to stdout, --version the version of pf.h" {
	assert_usage_version "$BUNDLE" pf-bundle "usage: pf-bundle [-f] [-o OUT.tar.gz] PATH..."
}

@test "misuse is one line saying why, then the synopsis, on stderr, exit 2" {
	local args
	for args in "--no-such-option" "-x ev" "-o" "" "-f"; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr "$BUNDLE" $args
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 2 ] || fail "$args: $stderr"
		[[ "${stderr_lines[0]}" == "pf-bundle: "* ]]
		[ "${stderr_lines[1]}" = "usage: pf-bundle [-f] [-o OUT.tar.gz] PATH..." ]
	done
}

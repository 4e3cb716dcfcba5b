#!/usr/bin/env bats
# scripts/pf-bundle: one tarball with a manifest and checksums.

load test_helper

BUNDLE="$PF_ROOT/scripts/pf-bundle"

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

@test "an existing output is never replaced without -f" {
	printf 'old' > "$BATS_TEST_TMPDIR/b.tgz"
	run -3 --separate-stderr "$BUNDLE" -o "$BATS_TEST_TMPDIR/b.tgz" "$BATS_TEST_TMPDIR/ev"
	[[ "$stderr" == *"File exists"* ]]
	[ "$(cat "$BATS_TEST_TMPDIR/b.tgz")" = old ]
	run -0 --separate-stderr "$BUNDLE" -f -o "$BATS_TEST_TMPDIR/b.tgz" "$BATS_TEST_TMPDIR/ev"
	run -0 tar -tzf "$BATS_TEST_TMPDIR/b.tgz"
	assert_line --partial "/MANIFEST"
}

@test "a symlink at the output path is refused even with -f" {
	ln -s "$BATS_TEST_TMPDIR/target" "$BATS_TEST_TMPDIR/b.tgz"
	run -3 --separate-stderr "$BUNDLE" -f -o "$BATS_TEST_TMPDIR/b.tgz" "$BATS_TEST_TMPDIR/ev"
	[ ! -e "$BATS_TEST_TMPDIR/target" ]
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

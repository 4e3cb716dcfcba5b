#!/usr/bin/env bats
# make static: glibc-static binaries that need nothing beside them.  The
# whole pipeline runs inside an empty root holding only the binaries, a
# statically linked workload, /proc, /sys and /tmp; the tarball carries
# its checksum and the licence notices.
# shellcheck disable=SC2016 # in_root's scripts expand in the namespace's own shell

load test_helper

STATIC_DIR="$PF_ROOT/build/static"

# Once for the file: `make static` (about 30 s from scratch on a loaded
# 2-CPU host, nothing when up to date) and the empty root.
setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	make_static >&3 2>&1 || return 1
	ROOT="$BATS_FILE_TMPDIR/root"
	mkdir -p "$ROOT/bin" "$ROOT/proc" "$ROOT/sys" "$ROOT/tmp"
	cp "$STATIC_DIR"/pf-* "$ROOT/bin/"
	cc -static -O1 -g -fno-omit-frame-pointer -fno-inline -o "$ROOT/split" \
		"$PF_ROOT/tests/workloads/pprof-split.c"
	cc -static -O1 -g -fno-omit-frame-pointer -fno-inline -o "$ROOT/sleeper" \
		"$PF_ROOT/tests/workloads/cls-sleeper.c" -lpthread
	export ROOT
}

setup() {
	require_root
	require_cmd unshare chroot
	[ -x "$STATIC_DIR/pf-record" ] || fail "make static wrote no $STATIC_DIR/pf-record"
}

# The mounts live in a private mount namespace that ends with in_root's
# shell; should one have leaked onto the root's directories, undo it.
teardown() {
	local m
	for m in proc sys tmp; do
		if [ -n "${ROOT:-}" ] && mountpoint -q "$ROOT/$m"; then umount -l "$ROOT/$m"; fi
	done
}

# in_root SCRIPT: run the shell SCRIPT in a private mount namespace where
# the empty root has /proc, /sys and a fresh /tmp; SCRIPT runs outside
# the root and enters it with "chroot $ROOT ...".  Results are copied out
# through $OUT.
in_root() {
	OUT="$BATS_TEST_TMPDIR" ROOT="$ROOT" unshare --mount --propagation private --fork sh -ec '
		mount -t proc proc "$ROOT/proc"
		mount -t sysfs sysfs "$ROOT/sys"
		mount -t tmpfs -o mode=1777 tmpfs "$ROOT/tmp"
		'"$1"
}

@test "make static writes binaries with no interpreter and no shared library, saying static" {
	local t f bad=()
	for t in $(pf_tools); do
		f="$STATIC_DIR/$t"
		[ -x "$f" ] || { bad+=("$t: not built"); continue; }
		readelf -l "$f" | grep -q 'INTERP' && bad+=("$t: has a program interpreter")
		readelf -d "$f" | grep -q '(NEEDED)' && bad+=("$t: needs $(readelf -d "$f" | grep NEEDED)")
		[ "$("$f" --version)" = "$t $(pf_version) (static)" ] ||
			bad+=("$t: --version says $("$f" --version)")
	done
	# libdw's debuginfod client (a dlopen) is replaced, not linked.
	nm "$STATIC_DIR/pf-record" | grep -q 'fp_debuginfod_find' &&
		bad+=("pf-record links libdw's debuginfod client")
	[ "${#bad[@]}" -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

@test "in an empty root, pf-record -- CMD | pf-fold | pf-svg names the target's functions" {
	in_root '
		chroot "$ROOT" /bin/pf-record -F 499 -d 20 -o /tmp/rec.txt -- /split 3
		chroot "$ROOT" /bin/pf-fold /tmp/rec.txt >"$OUT/folded"
		chroot "$ROOT" /bin/pf-svg <"$OUT/folded" >"$OUT/cpu.svg"
		cp "$ROOT/tmp/rec.txt" "$OUT/rec.txt"'
	head -n 1 "$BATS_TEST_TMPDIR/rec.txt" | grep -q '^# pf-record 2 .* target=cmd:split ' ||
		fail "no header: $(head -n 3 "$BATS_TEST_TMPDIR/rec.txt")"
	grep -q '^# pf-record: samples=[1-9][0-9]* .* stop=target-exit ' "$BATS_TEST_TMPDIR/rec.txt" ||
		fail "no trailer of a complete recording: $(tail -n 2 "$BATS_TEST_TMPDIR/rec.txt")"
	grep -q '^# pf-record: confined seccomp=yes ' "$BATS_TEST_TMPDIR/rec.txt" ||
		fail "not confined: $(grep confined "$BATS_TEST_TMPDIR/rec.txt")"
	local f
	for f in pp_sixty pp_quarter pp_fifteen; do
		grep -q "^split;.*;main;pp_round;$f [0-9]*$" "$BATS_TEST_TMPDIR/folded" ||
			fail "no stack main;pp_round;$f: $(cat "$BATS_TEST_TMPDIR/folded")"
	done
	require_cmd xmllint
	xmllint --noout "$BATS_TEST_TMPDIR/cpu.svg"
	grep -q 'pp_sixty' "$BATS_TEST_TMPDIR/cpu.svg"
}

@test "in an empty root, pf-record -p and -g dwarf unwind the target with the linked-in libdw" {
	in_root '
		chroot "$ROOT" /split 8 &
		pid=$!
		# Until chroot has entered the root and exec-ed the workload.
		n=0
		while [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != split ] && [ "$n" -lt 100 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		chroot "$ROOT" /bin/pf-record -g dwarf -F 199 -d 2 -o /tmp/rec.txt -p "$pid"
		kill "$pid"
		chroot "$ROOT" /bin/pf-fold /tmp/rec.txt >"$OUT/folded"'
	grep -q '^split;.*main;pp_round;pp_sixty [0-9]*$' "$BATS_TEST_TMPDIR/folded" ||
		fail "no unwound stack through main: $(cat "$BATS_TEST_TMPDIR/folded")"
}

@test "the static pf-record names a running python3.11's Python functions, its helper reading them" {
	local pid
	[ -x /usr/bin/python3.11 ] || fail "Debian's python3.11 is not installed: run scripts/install-deps --test"
	/usr/bin/python3.11 "$PF_ROOT/tests/workloads/py/shares.py" 20 & pid=$!
	wait_exec "$pid" python3.11
	run --separate-stderr "$STATIC_DIR/pf-record" -p "$pid" -d 2 --no-progress -o "$BATS_TEST_TMPDIR/py.txt"
	kill "$pid" 2>/dev/null || true
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	grep -Eq "^# python pid=$pid version=3[.]11[.][0-9]+ frames=read\$" "$BATS_TEST_TMPDIR/py.txt" ||
		fail "no python line: $(grep '^#' "$BATS_TEST_TMPDIR/py.txt" | head -n 20)"
	"$STATIC_DIR/pf-fold" "$BATS_TEST_TMPDIR/py.txt" > "$BATS_TEST_TMPDIR/py.folded"
	grep -q ';py::serve:[^;]*;py::handler:' "$BATS_TEST_TMPDIR/py.folded" ||
		fail "no py::serve;py::handler: $(head -c 800 "$BATS_TEST_TMPDIR/py.folded")"
}

@test "in an empty root, pf-offcpu records blocked time and pf-fold --pprof makes a profile of it" {
	in_root '
		chroot "$ROOT" /bin/pf-offcpu -d 20 -o /tmp/off.txt -- /sleeper 10 2
		chroot "$ROOT" /bin/pf-fold /tmp/off.txt >"$OUT/folded"
		chroot "$ROOT" /bin/pf-fold --pprof /tmp/off.txt >"$OUT/off.pb"'
	grep -q '^sleeper;.*;main;.*nanosleep.*;schedule [0-9]*$' "$BATS_TEST_TMPDIR/folded" ||
		fail "no blocked stack from main into nanosleep: $(cat "$BATS_TEST_TMPDIR/folded")"
	command -v go >/dev/null 2>&1 || skip "go not installed: the profile is not read back"
	HOME="$BATS_TEST_TMPDIR" run go tool pprof -top "$BATS_TEST_TMPDIR/off.pb"
	assert_success
	assert_line 'Type: offcpu'
	assert_line 'File: sleeper'
}

@test "a static pf-svg without gconv modules refuses a non-built-in --encoding and says why" {
	in_root '
		rc=0
		echo "a;b 1" | chroot "$ROOT" /bin/pf-svg --encoding ISO-8859-1 >/dev/null \
			2>"$OUT/err" || rc=$?
		echo "$rc" >"$OUT/rc"'
	[ "$(cat "$BATS_TEST_TMPDIR/rc")" -eq 2 ]
	grep -q '^pf-svg: --encoding: ISO-8859-1: .*static build.*iconv(1)' "$BATS_TEST_TMPDIR/err" ||
		fail "$(cat "$BATS_TEST_TMPDIR/err")"
}

@test "make static-dist writes a versioned tarball, its sha256 and the licence notices" {
	local v tgz
	v=$(pf_version)
	tgz="pf-$v-static-$(uname -m).tar.gz"
	make -s -C "$PF_ROOT" static-dist >/dev/null
	(cd "$PF_ROOT/build" && sha256sum -c "$tgz.sha256")
	run tar -tzf "$PF_ROOT/build/$tgz"
	assert_success
	assert_line "pf-$v-static-$(uname -m)/bin/pf-record"
	assert_line "pf-$v-static-$(uname -m)/bin/pf-triage"
	assert_line "pf-$v-static-$(uname -m)/LICENSE"
	assert_line "pf-$v-static-$(uname -m)/NOTICE"
	assert_line "pf-$v-static-$(uname -m)/licenses/libdw-dev.copyright"
	run tar -xzOf "$PF_ROOT/build/$tgz" "pf-$v-static-$(uname -m)/NOTICE"
	assert_output --partial "elfutils"
	assert_output --partial "complete corresponding source"
}

# Two clones at paths of different lengths build the same tarball, byte
# for byte: nothing of the checkout's path reaches the binaries (their
# debug information, and so their build-ids, -ffile-prefix-map) or the
# archive (names sorted, owners, times and gzip's header fixed).  Each
# clone builds its kit from nothing (about 30 s each with -j2 on a busy
# 2-CPU host): the tree's own build/ cannot stand in for one, since it may
# hold a working tree's uncommitted changes.
@test "make static-dist in two clones at different paths writes the same tarball" {
	local v tgz a b
	v=$(pf_version)
	tgz="build/pf-$v-static-$(uname -m).tar.gz"
	b="$BATS_TEST_TMPDIR/a-clone-at-a-longer-path/pf"
	# A checkout holding nothing but its commit (CI's fresh clone) is the
	# first clone: its static kit is built already (setup_file), and a
	# build of it costs CI's budget some 17 s of CPU for nothing.  One
	# with changes or new files would not build the commit: then a clone.
	if [ -z "$(git -C "$PF_ROOT" status --porcelain 2>/dev/null)" ] &&
	    [ "$(git -C "$PF_ROOT" rev-parse --show-toplevel 2>/dev/null)" = "$PF_ROOT" ]; then
		a=$PF_ROOT
		flock "$PF_ROOT/build/.static.lock" make -s -C "$a" static-dist >/dev/null
	else
		a="$BATS_TEST_TMPDIR/a"
		git clone -q "$PF_ROOT" "$a"
		make -s -j2 -C "$a" static-dist >/dev/null
	fi
	git clone -q "$PF_ROOT" "$b"
	make -s -j2 -C "$b" static-dist >/dev/null
	cmp "$a/$tgz" "$b/$tgz" || {
		mkdir "$BATS_TEST_TMPDIR/xa" "$BATS_TEST_TMPDIR/xb"
		tar -C "$BATS_TEST_TMPDIR/xa" -xzf "$a/$tgz"
		tar -C "$BATS_TEST_TMPDIR/xb" -xzf "$b/$tgz"
		fail "the tarballs differ ($a, $b): $(diff -r "$BATS_TEST_TMPDIR/xa" "$BATS_TEST_TMPDIR/xb" 2>&1 | head -n 5)"
	}
}

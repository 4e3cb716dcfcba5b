#!/usr/bin/env bats
# pf-precheck: the permission rules on fixture proc roots (as root and as
# nobody without capabilities), the disk floor on a nearly full tmpfs,
# memlock, targets that exited or are zombies, a JVM-named process, live
# CPython interpreters (whether their frames will be named), stripped
# binaries, I/O load and container hints.

load test_helper

setup() {
	# nobody must read the fixtures and run the tool: bats' own tmpdir
	# is private, and so may be this checkout.
	user_dir --data
	FXD=$USER_DIR/fx
	mkdir -m 755 "$FXD"
	PATH="$USER_DIR/bin:$PATH"
	MNT=
	KIDS=
}

teardown() {
	local p
	for p in $KIDS; do kill "$p" 2>/dev/null || true; done
	[ -z "$MNT" ] || umount "$MNT" 2>/dev/null || true
	user_dir_cleanup
	rm -f "/tmp/perf-${JAVA_PID:-none}.map"
}

# mkproc DIR PARANOID KPTR [MLOCK_KB] [BLOCKED]: a fixture proc root.
mkproc() {
	local d=$1
	mkdir -p "$d/sys/kernel" "$d/pressure"
	echo "$2" >"$d/sys/kernel/perf_event_paranoid"
	echo "$3" >"$d/sys/kernel/kptr_restrict"
	echo "${4:-516}" >"$d/sys/kernel/perf_event_mlock_kb"
	cat >"$d/stat" <<-EOF
	cpu  31355 744 18923 203257 1012 0 373 0 0 0
	cpu0 15383 334 8911 102965 115 0 156 0 0 0
	cpu1 15971 410 10012 100292 897 0 216 0 0 0
	ctxt 1000
	procs_running 1
	procs_blocked ${5:-0}
	EOF
	printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' >"$d/pressure/io"
	chmod -R a+rX "$d"
}

# level CHECK: the ok/warn/fail word of CHECK's line in $output.
level() {
	awk -v c="$1" '$2 == c { print $1; exit }' <<<"$output"
}

@test "perf_event_paranoid -1..4 decides each mode for a caller without capabilities" {
	require_root
	# mode paranoid -> expected level of the paranoid line and exit status
	local -a cases=(
		"oncpu -1 ok 0" "oncpu 0 ok 0" "oncpu 1 ok 0" "oncpu 2 warn 0" "oncpu 3 fail 1" "oncpu 4 fail 1"
		"offcpu -1 ok 0" "offcpu 0 ok 0" "offcpu 1 ok 0" "offcpu 2 fail 1" "offcpu 3 fail 1" "offcpu 4 fail 1"
		"system -1 ok 0" "system 0 ok 0" "system 1 fail 1" "system 2 fail 1" "system 3 fail 1" "system 4 fail 1"
	)
	local c mode par lvl st
	for c in "${cases[@]}"; do
		read -r mode par lvl st <<<"$c"
		mkproc "$FXD/p$par" "$par" 0
		run as_nobody pf-precheck --mode "$mode" --proc-root "$FXD/p$par" -o /tmp --min-free 0
		[ "$status" -eq "$st" ] || fail "$mode paranoid $par: status $status, want $st: $output"
		[ "$(level paranoid)" = "$lvl" ] || fail "$mode paranoid $par: $(level paranoid), want $lvl: $output"
		if [ "$lvl" != ok ]; then
			grep -A1 '^[a-z]* paranoid' <<<"$output" | grep -q '^  fix: .*\(perf_event_paranoid\|CAP_PERFMON\)' ||
				fail "$mode paranoid $par: no fix line: $output"
		fi
	done
}

@test "root passes every paranoid level in every mode" {
	require_root
	local mode par
	for mode in oncpu offcpu system; do
		for par in -1 2 4; do
			mkproc "$FXD/r$par" "$par" 0
			run -0 pf-precheck --mode "$mode" --proc-root "$FXD/r$par" -o /tmp --min-free 0
			[ "$(level paranoid)" = ok ] || fail "$mode $par: $output"
		done
	done
}

@test "kptr_restrict 0/1/2 is explained for root and for nobody" {
	require_root
	# who kptr -> level
	local -a cases=("root 0 ok" "root 1 ok" "root 2 warn" "nobody 0 ok" "nobody 1 warn" "nobody 2 warn")
	local c who k lvl
	for c in "${cases[@]}"; do
		read -r who k lvl <<<"$c"
		mkproc "$FXD/k$k" 1 "$k"
		if [ "$who" = root ]; then
			run -0 pf-precheck --proc-root "$FXD/k$k" -o /tmp --min-free 0
		else
			run -0 as_nobody pf-precheck --proc-root "$FXD/k$k" -o /tmp --min-free 0
		fi
		[ "$(level kptr_restrict)" = "$lvl" ] || fail "$who kptr_restrict $k: $(level kptr_restrict), want $lvl: $output"
	done
	run -0 as_nobody pf-precheck --proc-root "$FXD/k1" -o /tmp --min-free 0
	assert_line --partial "fix: run as root (CAP_SYSLOG), or sysctl -w kernel.kptr_restrict=0"
	run -0 pf-precheck --proc-root "$FXD/k2" -o /tmp --min-free 0
	assert_line --partial "hidden from everyone"
	assert_line --partial "fix: sysctl -w kernel.kptr_restrict=1"
}

@test "a fixture proc root skips the live probe and says so" {
	mkproc "$FXD/p" 2 0
	run -0 pf-precheck --proc-root "$FXD/p" -o /tmp --min-free 0
	assert_line "warn probe skipped: the proc or sys root is not the live system"
	run -0 pf-precheck --no-probe -o /tmp --min-free 0
	assert_line "warn probe skipped: --no-probe"
}

@test "the disk floor fails on a nearly full filesystem with the fix" {
	require_root
	MNT=$FXD/mnt
	mkdir "$MNT"
	mount -t tmpfs -o size=8m tmpfs "$MNT" || skip "cannot mount a tmpfs here"
	run -0 pf-precheck -o "$MNT" --min-free 2M --no-probe
	[ "$(level disk)" = ok ]
	dd if=/dev/zero of="$MNT/fill" bs=1M count=7 status=none
	run -1 pf-precheck -o "$MNT" --min-free 2M --no-probe
	[ "$(level disk)" = fail ]
	assert_line --regexp "^fail disk $MNT: .* below the floor of 2.0M \(--min-free\)$"
	assert_line --partial "  fix: free space there, or write elsewhere"
	run -0 pf-precheck -o "$MNT" --min-free 512K --no-probe
	run -1 pf-precheck -o "$MNT" --min-free 50% --no-probe
	# The default floor, max(1G, 5%), as pf-record applies it.
	run -1 pf-precheck -o "$MNT" --no-probe
	assert_line --partial "below the floor of 1.0G (max(1G, 5%))"
	run -1 pf-precheck -o "$FXD/missing" --no-probe
	[ "$(level disk)" = fail ]
	# Read-only: nothing was created where the output would land.
	[ "$(ls -A "$MNT")" = fill ]
}

@test "memlock room is checked against perf_event_mlock_kb and RLIMIT_MEMLOCK" {
	require_root
	# mlock_kb -> level for nobody with ulimit -l 0 (2 CPUs in the fixture)
	local -a cases=("516 ok 0" "8 warn 0" "0 fail 1")
	local c kb lvl st
	for c in "${cases[@]}"; do
		read -r kb lvl st <<<"$c"
		mkproc "$FXD/m$kb" 1 0 "$kb"
		run prlimit --memlock=0:0 setpriv --reuid=nobody --regid=nogroup --clear-groups \
			pf-precheck -g fp --proc-root "$FXD/m$kb" -o /tmp --min-free 0
		[ "$status" -eq "$st" ] || fail "mlock_kb $kb: status $status: $output"
		[ "$(level memlock)" = "$lvl" ] || fail "mlock_kb $kb: $(level memlock), want $lvl: $output"
	done
	# Root has CAP_IPC_LOCK.
	run -0 prlimit --memlock=0:0 pf-precheck -g fp --proc-root "$FXD/m0" -o /tmp --min-free 0
	assert_line --partial "ok memlock"
}

@test "as nobody without capabilities: user sampling of its own command is safe, off-CPU is not" {
	require_root
	require_perf_events
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -eq 2 ] || skip "expects perf_event_paranoid 2 here"
	run -0 as_nobody pf-precheck -o /tmp --min-free 0
	assert_line --regexp '^ok caps none \(uid 65534\)$'
	# -g auto, the default, judges a command by the C library (Debian's has no frame pointers).
	assert_line --regexp '^ok unwind -g auto: pf-record will record with -g dwarf \(libc\.so\.6 has no frame pointers\)$'
	assert_line --partial "ok probe perf_event_open cpu-clock on a command (user stacks, user stack copies) succeeded"
	run -0 as_nobody pf-precheck -g fp -o /tmp --min-free 0
	assert_line --partial "ok probe perf_event_open cpu-clock on a command (user stacks) succeeded"
	run -1 as_nobody pf-precheck --mode offcpu -o /tmp --min-free 0
	assert_line --regexp '^fail probe perf_event_open context-switches'
	# Another user's process.
	run -1 as_nobody pf-precheck -p 1 -o /tmp --min-free 0
	assert_line --regexp '^fail target pid 1 .* belongs to uid 0'
}

@test "root can probe a live target in every mode" {
	require_root
	require_perf_events
	sleep 30 &
	KIDS=$!
	run -0 pf-precheck -p "$KIDS" -o /tmp --min-free 0
	assert_line --partial "ok probe perf_event_open cpu-clock on the target (user and kernel stacks, user stack copies) succeeded"
	run -0 pf-precheck -g fp -p "$KIDS" -o /tmp --min-free 0
	assert_line --partial "ok probe perf_event_open cpu-clock on the target (user and kernel stacks) succeeded"
	run -0 pf-precheck --mode offcpu -p "$KIDS" -o /tmp --min-free 0
	run -0 pf-precheck --mode system -o /tmp --min-free 0
	# -a judges the host's C library, as pf-record -a will (Debian's has no frame pointers).
	assert_line "ok unwind -g auto: pf-record -a will record with -g dwarf at up to 99 Hz (the host's libc.so.6 has no frame pointers)"
	# pf-offcpu's default is auto too, but a command's switch rate is unknown.
	run -0 pf-precheck --mode offcpu -o /tmp --min-free 0
	assert_line "ok unwind -g auto: pf-offcpu will record a command with -g fp (its context switches cannot be counted before it runs; -g dwarf if it blocks at a modest rate)"
}

@test "--mode offcpu: a target switching above 50,000 times a second is said to be recorded with -g fp, as pf-offcpu decides" {
	require_root
	require_perf_events
	# Real-time, as in pf-offcpu.bats: at its normal priority beside other
	# live work it may switch less often than that.
	"${REALTIME[@]}" "$WORKLOADS/off-switch" 30 > /dev/null &
	KIDS=$!
	wait_exec "$KIDS" off-switch
	run -0 pf-precheck --mode offcpu -p "$KIDS" -o /tmp --min-free 0
	assert_line --regexp '^ok unwind -g auto: pf-offcpu will record with -g fp \([0-9]+ context switches a second, above 50000: a stack copy at each would cost too much\)$'
	# Without a switch rate to weigh, the files decide.
	sleep 30 &
	KIDS="$KIDS $!"
	run -0 pf-precheck --mode offcpu -p "${KIDS##* }" -o /tmp --min-free 0
	assert_line --partial "ok unwind -g auto: pf-offcpu will record with -g dwarf ("
}

@test "a target that exited fails with what to do" {
	sleep 30 &
	local p=$!
	# Killed before it execs, the forked shell may hold bats' own TERM
	# trap and live on as sleep for the whole 30 s.
	wait_exec "$p" sleep
	kill "$p"
	wait "$p" || true
	run -1 pf-precheck -p "$p" -o /tmp --min-free 0
	assert_line "fail target pid $p: no such process"
	assert_line --partial "  fix: the process is gone"
	assert_line --regexp '^fail verdict oncpu: '
}

@test "a zombie target fails and names its parent" {
	zombie
	run -1 pf-precheck -p "$Z" -o /tmp --min-free 0
	assert_line "fail target pid $Z (sleep) is a zombie"
	assert_line --partial "parent pid ${KIDS##* } has not reaped it"
}

# zombie: a zombie child of a live sleep 30 (in KIDS), its pid in Z; skips
# when the machine does not let one form in 10 s.
zombie() {
	local _
	sh -c 'sleep 0.1 & echo $! >"$1"; exec sleep 30' sh "$FXD/zpid" &
	KIDS="$KIDS $!"
	wait_exec "$!" sleep
	Z=$(cat "$FXD/zpid")
	# The child sleeps 0.1 s; on a busy machine it may take longer to end.
	for _ in $(seq 100); do
		[ "$(awk '{ print $3 }' "/proc/$Z/stat")" != Z ] || break
		sleep 0.1
	done
	[ "$(awk '{ print $3 }' "/proc/$Z/stat")" = Z ] || skip "no zombie formed"
}

@test "a list of three live processes: the host checked once, each process by its pid" {
	local a b c
	sleep 30 &
	a=$!
	"$WORKLOADS/cls-sleeper" 1000 30 &
	b=$!
	"$WORKLOADS/nofp-sleeper" 30 1000000 &
	c=$!
	KIDS="$a $b $c"
	wait_exec "$a" sleep
	wait_exec "$b" cls-sleeper
	wait_exec "$c" nofp-sleeper
	run -0 pf-precheck -p "$a,$b,$c" -o /tmp --min-free 0 --no-probe
	assert_line --regexp "^ok target pid $a \(sleep\) state S threads 1$"
	assert_line --regexp "^ok target pid $b \(cls-sleeper\) state S threads 1$"
	assert_line --regexp "^ok target pid $c \(nofp-sleeper\) state S threads 1$"
	assert_line "ok runtime pid $a: native (sleep): no JIT map needed"
	assert_line "ok runtime pid $b: native (cls-sleeper): no JIT map needed"
	assert_line "ok runtime pid $c: native (nofp-sleeper): no JIT map needed"
	assert_line "ok symbols pid $b: $WORKLOADS/cls-sleeper: has a symbol table"
	assert_line --regexp "^ok unwind pid $c: $WORKLOADS/nofp-sleeper: no frame pointers "
	assert_line --regexp "^(ok|warn) container pid $a: "
	assert_line --regexp "^(ok|warn) container pid $c: "
	# -g auto is chosen once for the list: nofp-sleeper lacks frame pointers.
	assert_line --regexp "^ok unwind -g auto: pf-record will record with -g dwarf \(pid [0-9]+: [^ ]+ has no frame pointers\)$"
	assert_line --regexp "^ok fds [0-9]+ descriptors \(3 threads of 3 processes x [0-9]+ CPUs?, and 16 of its own\)"
	# Once each: the host's checks, the probe skipped and the verdict.
	local once
	once=$(awk '{ n[$2]++ } END { for (c in n) if (n[c] != 1) print c, n[c] }' \
		<(grep -E '^(ok|warn|fail) (paranoid|kptr_restrict|caps|probe|disk|load|memlock|fds|verdict) ' <<<"$output"))
	[ -z "$once" ] || fail "checked more than once: $once"
	[ "$(grep -c '^ok target ' <<<"$output")" -eq 3 ]
	[ "$(grep -c '^ok runtime ' <<<"$output")" -eq 3 ]
	assert_line --regexp '^ok verdict oncpu: safe to run pf-record, '
	# Each per-process line of a list names its pid.
	local bad
	bad=$(grep -E '^(ok|warn|fail) (target|runtime|symbols|unwind|container) ' <<<"$output" |
		grep -v -e '-g auto:' | grep -vE "^[a-z]+ [a-z]+ pid ($a|$b|$c)[: ]" || true)
	[ -z "$bad" ] || fail "lines naming no pid: $bad"
}

@test "a zombie in a list fails the verdict; the live processes of the list pass their checks" {
	local a
	sleep 30 &
	a=$!
	KIDS=$a
	wait_exec "$a" sleep
	zombie
	run -1 pf-precheck -p "$a,$Z,${KIDS##* }" -o /tmp --min-free 0 --no-probe
	assert_line "fail target pid $Z (sleep) is a zombie"
	assert_line --partial "parent pid ${KIDS##* } has not reaped it"
	assert_line --regexp "^ok target pid $a \(sleep\) "
	assert_line --regexp "^ok target pid ${KIDS##* } \(sleep\) "
	assert_line "ok runtime pid $a: native (sleep): no JIT map needed"
	refute_line --regexp "^[a-z]+ runtime pid $Z:"
	assert_line --regexp '^fail verdict oncpu: 1 check failed, '
	# The same list without the zombie passes.
	run -0 pf-precheck -p "$a,${KIDS##* }" -o /tmp --min-free 0 --no-probe
}

@test "fds counts the threads of every process of a list (fixture tree)" {
	local p n
	mkproc "$FXD/l" 1 0
	for p in 4242:5 4343:7; do
		n=${p#*:} p=${p%:*}
		mkdir -p "$FXD/l/$p"
		echo "$p (app) S 1 $p $p 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 $n 0 500 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0" >"$FXD/l/$p/stat"
		printf 'Name:\tapp\nUid:\t0\t0\t0\t0\n' >"$FXD/l/$p/status"
	done
	run -0 pf-precheck -p 4242,4343 --proc-root "$FXD/l" -o /tmp --min-free 0
	assert_line --regexp '^ok fds 40 descriptors \(12 threads of 2 processes x 2 CPUs, and 16 of its own\)'
	# A pid given twice is one process.
	run -0 pf-precheck -p 4242,4343,4242 --proc-root "$FXD/l" -o /tmp --min-free 0
	assert_line --regexp '^ok fds 40 descriptors \(12 threads of 2 processes x 2 CPUs'
	[ "$(grep -c '^ok target ' <<<"$output")" -eq 2 ]
	# One pid: the line as it always was.
	run -0 pf-precheck -p 4343 --proc-root "$FXD/l" -o /tmp --min-free 0
	assert_line --regexp '^ok fds 30 descriptors \(7 threads x 2 CPUs, and 16 of its own\)'
	# A process of the list gone: its threads are not counted, the verdict fails.
	run -1 pf-precheck -p 4242,4343,4444 --proc-root "$FXD/l" -o /tmp --min-free 0
	assert_line "fail target pid 4444: no such process"
	assert_line --regexp '^ok fds 40 descriptors \(12 threads of 2 processes x 2 CPUs'
}

@test "a bad pid list is a usage error worded as pf-record words it" {
	pid_list_misuse pf-precheck
	pid_list_misuse pf-record -d 1 -o "$BATS_TEST_TMPDIR/r"
	# 64 pids are a list (none of these exists: a finding, not misuse).
	run -1 pf-precheck -p "$(seq -s, 4000000 4000063)" --no-probe -o /tmp --min-free 0
	[ "$(grep -c '^fail target pid 40000[0-9][0-9]: no such process$' <<<"$output")" -eq 64 ]
}

@test "a target's name (its comm, its executable's path) forges no line and sends no escape sequence" {
	local name=$'x\nok verdict \e]0;t\a' _
	mkdir "$FXD/d"
	cp /bin/sleep "$FXD/d/$name"
	"$FXD/d/$name" 30 &
	KIDS=$!
	sleep 30 &
	KIDS="$KIDS $!"
	wait_exec "${KIDS##* }" sleep
	for _ in $(seq 100); do
		[ "$(cat "/proc/${KIDS%% *}/comm" 2>/dev/null)" = "${name:0:15}" ] && break
		sleep 0.1
	done
	# The comm is the name's first 15 bytes: x, newline, "ok verdict ", ESC, ].
	run -0 pf-precheck -p "${KIDS%% *},${KIDS##* }" -o /tmp --min-free 0 --no-probe
	[ "$(grep -cE '^[a-z]+ verdict ' <<<"$output")" -eq 1 ] || fail "a verdict forged: $output"
	assert_line --regexp "^ok target pid ${KIDS%% *} \(x\?ok verdict \?\]\) state S "
	assert_line --regexp "^[a-z]+ symbols pid ${KIDS%% *}: $FXD/d/x\?ok verdict \?\]0;t\?: "
	! grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$output" || fail "a control byte: $output"
	run -0 pf-precheck -p "${KIDS%% *}" -o /tmp --min-free 0 --no-probe
	[ "$(grep -cE '^[a-z]+ verdict ' <<<"$output")" -eq 1 ] || fail "a verdict forged: $output"
	assert_line --regexp "^ok target pid ${KIDS%% *} \(x\?ok verdict \?\]\) state S "
}

@test "a process named java gets the perf-map hint, and ok once the map exists" {
	cp /bin/sleep "$FXD/java"
	"$FXD/java" 30 &
	JAVA_PID=$!
	KIDS=$JAVA_PID
	wait_exec "$JAVA_PID" java
	run -0 pf-precheck -p "$JAVA_PID" -o /tmp --min-free 0
	assert_line "warn runtime Java (java): no /tmp/perf-$JAVA_PID.map, JIT frames will show as [unknown]"
	assert_line --partial "  fix: jcmd PID Compiler.perfmap"
	touch "/tmp/perf-$JAVA_PID.map"
	run -0 pf-precheck -p "$JAVA_PID" -o /tmp --min-free 0
	assert_line --regexp "^ok runtime Java \(java\): JIT map .*perf-$JAVA_PID.map present$"
}

# start_python CMD...: CMD (a Python interpreter, perhaps under setpriv or
# env, commands that exec it: a shell function would leave its subshell's
# pid) running a script that leaves a file once its libraries are loaded,
# then sleeps 30 s; its pid in PY, and in KIDS.  The file goes where
# nobody may write too.
start_python() {
	local up _
	[ -d "$FXD/up" ] || mkdir -m 1777 "$FXD/up"
	up=$(mktemp -u "$FXD/up/py.XXXXXX")
	"$@" -c 'import sys, time; open(sys.argv[1], "w").close(); time.sleep(30)' "$up" &
	PY=$!
	KIDS="$KIDS $PY"
	for _ in $(seq 100); do
		[ -e "$up" ] && return 0
		sleep 0.1
	done
	fail "$* did not start in 10 s"
}

# pyenv_python MINOR: the path of pyenv's python3.MINOR, or status 1.
pyenv_python() {
	local b
	for b in /root/.pyenv/versions/3."$1".*/bin/python3."$1"; do
		if [ -x "$b" ]; then
			echo "$b"
			return 0
		fi
	done
	return 1
}

# python_named MINOR: a live pyenv CPython 3.MINOR (its interpreter in its
# libpython) is found by pf-precheck, whose line says its frames will be
# named; skipped, saying so, when that version is absent.
python_named() {
	local b
	require_root
	b=$(pyenv_python "$1") || skip "pyenv's CPython 3.$1 is absent (no /root/.pyenv/versions/3.$1.*/bin/python3.$1)"
	start_python "$b"
	run -0 pf-precheck -p "$PY" --no-probe -o /tmp --min-free 0
	assert_line "ok python CPython 3.$1 (${b%/bin/*}/lib/libpython3.$1.so.1.0): its frames will be named (pf-record reads them through its helper)"
	[ "$(grep -c '^[a-z]* python ' <<<"$output")" -eq 1 ] || fail "not one python line: $output"
}

@test "python: Debian's python3.11 (the interpreter in its executable) is found, and its frames will be named; no -X perf advice" {
	require_root
	[ -x /usr/bin/python3.11 ] || fail "/usr/bin/python3.11 is missing: scripts/install-deps --test installs it"
	start_python /usr/bin/python3.11
	run -0 pf-precheck -p "$PY" --no-probe -o /tmp --min-free 0
	assert_line "ok python CPython 3.11 (/usr/bin/python3.11): its frames will be named (pf-record reads them through its helper)"
	assert_line "ok runtime Python (python3.11): an interpreter, no JIT map needed"
	refute_output --partial "-X perf"
	run -0 pf-precheck --mode offcpu -p "$PY" --no-probe -o /tmp --min-free 0
	assert_line "ok python CPython 3.11 (/usr/bin/python3.11): its frames will be named (pf-offcpu reads them through its helper)"
}

@test "python: pyenv's CPython 3.9 is found and will be named" {
	python_named 9
}

@test "python: pyenv's CPython 3.10 is found and will be named" {
	python_named 10
}

@test "python: pyenv's CPython 3.11 is found and will be named" {
	python_named 11
}

@test "python: pyenv's CPython 3.12 is found and will be named" {
	python_named 12
}

@test "python: pyenv's CPython 3.13 is found and will be named" {
	python_named 13
}

@test "python: without CAP_SYS_PTRACE, or as a user without capabilities, the stacks stay native and the line says why" {
	require_root
	start_python /usr/bin/python3.11
	run -0 setpriv --inh-caps=-sys_ptrace --bounding-set=-sys_ptrace pf-precheck -p "$PY" --no-probe -o /tmp --min-free 0
	assert_line "warn python CPython 3.11 (/usr/bin/python3.11): its stacks will stay native: pf-record reads the frames from its memory through its file helper, which takes CAP_SYS_PTRACE to read and CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE to start; uid 0 lacks CAP_SYS_PTRACE"
	assert_line "  fix: run pf-record as root, with CAP_SYS_PTRACE and CAP_SYS_ADMIN, to name its Python functions"
	# nobody's own interpreter, checked by nobody: the target is its own.
	start_python setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3.11
	run -0 as_nobody_nocaps pf-precheck -p "$PY" --no-probe -o /tmp --min-free 0
	assert_line --regexp "^ok target pid $PY \(python3.11\) "
	assert_line "warn python CPython 3.11 (/usr/bin/python3.11): its stacks will stay native: pf-record reads the frames from its memory through its file helper, which takes CAP_SYS_PTRACE to read and CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE to start; uid 65534 lacks CAP_SYS_PTRACE and CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE"
}

@test "python: an interpreter pf does not read (3.8, 2.7, one whose file says no version) stays native, and the line says why" {
	local b
	require_root
	require_cmd cc
	# A library named python holding a _PyRuntime, and no version anywhere.
	printf 'char _PyRuntime[4096];\nint pyx(void) { return 0; }\n' |
		cc -shared -fPIC -x c - -o "$FXD/libpythonx.so"
	start_python env LD_PRELOAD="$FXD/libpythonx.so" /usr/bin/python3.11
	run -0 pf-precheck -p "$PY" --no-probe -o /tmp --min-free 0
	assert_line "warn python CPython of unknown version ($FXD/libpythonx.so): its stacks will stay native (the interpreter's C functions): no version to read its frames by"
	# The interpreter itself is still named.
	assert_line --regexp '^ok python CPython 3.11 \(/usr/bin/python3.11\): '
	if b=$(pyenv_python 8); then
		start_python "$b"
		run -0 pf-precheck -p "$PY" --no-probe -o /tmp --min-free 0
		assert_line "warn python CPython 3.8 (${b%/bin/*}/lib/libpython3.8.so.1.0): its stacks will stay native (the interpreter's C functions): pf reads the frames of CPython 3.9 to 3.13"
		assert_line "  fix: to see its Python functions, run it on CPython 3.9 to 3.13"
	else
		echo "# pyenv's CPython 3.8 is absent: its case not run" >&3
	fi
	b=$(echo /root/.pyenv/versions/2.7.*/bin/python2.7)
	if [ -x "$b" ]; then
		start_python "$b"
		run -0 pf-precheck -p "$PY" --no-probe -o /tmp --min-free 0
		assert_line "warn python no CPython runtime (_PyRuntime) in the python files it maps (python2.7, libpython2.7.so.1.0): its stacks will stay native"
	else
		echo "# pyenv's CPython 2.7 is absent: its case not run" >&3
	fi
}

@test "python: 3.9 and 3.10 find their threads by the C library's _thread_db_pthread_tid: without it, or without a C library, the stacks stay native (fixture tree)" {
	local b lib libc ino w
	b=$(pyenv_python 9) || skip "pyenv's CPython 3.9 is absent (no /root/.pyenv/versions/3.9.*/bin/python3.9)"
	lib=${b%/bin/*}/lib/libpython3.9.so.1.0
	libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
	for w in glibc other none; do
		mkproc "$FXD/$w" 1 0
		mkdir -p "$FXD/$w/4242/root/lib"
		echo '4242 (python3.9) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 500 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0' >"$FXD/$w/4242/stat"
		printf 'Name:\tpython3.9\nUid:\t0\t0\t0\t0\n' >"$FXD/$w/4242/status"
		printf '%s\n' "7f1000000000-7f1000100000 r-xp 00000000 08:01 $(stat -c %i "$lib") $lib" >"$FXD/$w/4242/maps"
	done
	printf '%s\n' "7f2000000000-7f2000100000 r-xp 00000000 08:01 $(stat -c %i "$libc") $libc" >>"$FXD/glibc/4242/maps"
	# Another C library: an ELF file without the symbol, in the target's root.
	cp /bin/true "$FXD/other/4242/root/lib/libc.so.6"
	ino=$(stat -c %i "$FXD/other/4242/root/lib/libc.so.6")
	printf '%s\n' "7f2000000000-7f2000100000 r-xp 00000000 08:01 $ino /lib/libc.so.6" >>"$FXD/other/4242/maps"
	run -0 pf-precheck -p 4242 --proc-root "$FXD/glibc" -o /tmp --min-free 0
	assert_line "ok python CPython 3.9 ($lib): its frames will be named (pf-record reads them through its helper)"
	run -0 pf-precheck -p 4242 --proc-root "$FXD/other" -o /tmp --min-free 0
	assert_line "warn python CPython 3.9 ($lib): its stacks will stay native: 3.9 knows a thread by its pthread_t, and its C library /lib/libc.so.6 has no _thread_db_pthread_tid to find the thread's id by"
	assert_line "  fix: glibc's libc.so.6 publishes _thread_db_pthread_tid for debuggers; with another C library, run it on CPython 3.11 to 3.13"
	run -0 pf-precheck -p 4242 --proc-root "$FXD/none" -o /tmp --min-free 0
	assert_line "warn python CPython 3.9 ($lib): its stacks will stay native: 3.9 knows a thread by its pthread_t, and no C library is mapped to find its thread id by (_thread_db_pthread_tid)"
}

@test "python: an interpreter in a program named otherwise (Debian's python3.11 copied as embsvc) is found by being the target's own executable" {
	require_root
	[ -x /usr/bin/python3.11 ] || fail "/usr/bin/python3.11 is missing: scripts/install-deps --test installs it"
	cp /usr/bin/python3.11 "$FXD/embsvc"
	start_python "$FXD/embsvc"
	run -0 pf-precheck -p "$PY" --no-probe -o /tmp --min-free 0
	assert_line "ok python CPython 3.11 ($FXD/embsvc): its frames will be named (pf-record reads them through its helper)"
}

@test "python: a process without Python gets no python line" {
	sleep 30 &
	KIDS=$!
	wait_exec "$KIDS" sleep
	run -0 pf-precheck -p "$KIDS" --no-probe -o /tmp --min-free 0
	assert_line "ok runtime native (sleep): no JIT map needed"
	refute_line --regexp '^[a-z]+ python '
}

@test "a stripped binary without debuginfo is a warning, one with symbols is ok" {
	require_cmd strip
	strip -o "$FXD/stripped" "$WORKLOADS/cls-sleeper"
	"$FXD/stripped" 10 30 &
	KIDS=$!
	wait_exec "$KIDS" stripped
	"$WORKLOADS/cls-sleeper" 10 30 &
	KIDS="$KIDS $!"
	wait_exec "${KIDS##* }" cls-sleeper
	run -0 pf-precheck -p "${KIDS%% *}" -o /tmp --min-free 0
	assert_line --regexp "^warn symbols $FXD/stripped: stripped \(no .symtab\) and no debuginfo found"
	assert_line --partial "  fix: install its debug symbols"
	run -0 pf-precheck -p "${KIDS##* }" -o /tmp --min-free 0
	assert_line "ok symbols $WORKLOADS/cls-sleeper: has a symbol table"
}

@test "unwind: a frame-pointer workload gets no warning, one without frame pointers gets the -g dwarf fix" {
	"$WORKLOADS/rec-split" 10 &
	KIDS=$!
	"$WORKLOADS/nofp-split" 10 &
	KIDS="$KIDS $!"
	sleep 0.2
	run -0 pf-precheck -g fp -p "${KIDS%% *}" -o /tmp --min-free 0 --no-probe
	assert_line --regexp "^ok unwind $WORKLOADS/rec-split: keeps frame pointers \([0-9]+ of [0-9]+ probed addresses have rbp frames\)$"
	refute_line --regexp '^warn unwind '
	# libc is judged too (Debian builds it without frame pointers).
	assert_line --regexp '^ok unwind /.*/libc\.so\.6: (no frame pointers|keeps frame pointers) '

	run -0 pf-precheck -g fp -p "${KIDS##* }" -o /tmp --min-free 0 --no-probe
	assert_line --regexp "^warn unwind $WORKLOADS/nofp-split: no frame pointers \(.eh_frame CFA rules never use rbp: [0-9]+ of [0-9]+ probed addresses\): -g fp stacks lose callers$"
	assert_line "  fix: use pf-record -g auto or -g dwarf (or rebuild with -fno-omit-frame-pointer)"
	# pf-offcpu -g fp gets the fix; its default, -g auto, will unwind it.
	run -0 pf-precheck --mode offcpu -g fp -p "${KIDS##* }" -o /tmp --min-free 0 --no-probe
	assert_line "  fix: use pf-offcpu -g auto or -g dwarf (or rebuild with -fno-omit-frame-pointer)"
	run -0 pf-precheck --mode offcpu -p "${KIDS##* }" -o /tmp --min-free 0 --no-probe
	assert_line "ok unwind -g auto: pf-offcpu will record with -g dwarf (nofp-split has no frame pointers)"
	refute_line --regexp '^warn unwind '
	# pf-record's default, -g auto, will unwind it: no warning.
	run -0 pf-precheck -p "${KIDS##* }" -o /tmp --min-free 0 --no-probe
	assert_line "ok unwind -g auto: pf-record will record with -g dwarf (nofp-split has no frame pointers)"
	assert_line --regexp "^ok unwind $WORKLOADS/nofp-split: no frame pointers \([0-9]+ of [0-9]+ probed addresses have rbp frames\); -g dwarf unwinds it from .eh_frame$"
	refute_line --regexp '^warn unwind '
	# Planned with -g dwarf, the same file is fine.
	run -0 pf-precheck -g dwarf -p "${KIDS##* }" -o /tmp --min-free 0 --no-probe
	assert_line --regexp "^ok unwind $WORKLOADS/nofp-split: no frame pointers \([0-9]+ of [0-9]+ probed addresses have rbp frames\); -g dwarf unwinds it from .eh_frame$"
	refute_line --regexp '^warn unwind '
}

@test "unwind: a mapped file whose .eh_frame is garbage is judged or said unjudgeable, never a crash" {
	require_cmd readelf
	local _ off size pid
	for _ in 1 2 3 4 5 6 7 8; do
		cp "$WORKLOADS/nofp-split" "$FXD/badeh"
		# Random bytes over .eh_frame_hdr and .eh_frame (the program never throws).
		while read -r _ off size; do
			head -c "$((16#$size))" /dev/urandom |
				dd of="$FXD/badeh" bs=1 seek="$((16#$off))" conv=notrunc status=none
		done < <(readelf -SW "$FXD/badeh" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 ~ /^\.eh_frame/ { print $1, $4, $5 }')
		"$FXD/badeh" 5 &
		pid=$!
		KIDS="$KIDS $pid"
		sleep 0.1
		run -0 pf-precheck -p "$pid" -o /tmp --min-free 0 --no-probe
		assert_line --regexp "^(ok|warn) unwind $FXD/badeh: "
		kill "$pid"
		wait "$pid" 2>/dev/null || true
	done
}

@test "-g dwarf sizes the memlock check by the dwarf rings and says what they hold" {
	require_root
	local kb
	for kb in 516 16; do mkproc "$FXD/m$kb" 1 0 "$kb"; done
	# 2 CPUs x 1 + 512 pages do not fit 2 x 516 KiB: rings of 128 pages, ~30 samples.
	run -0 prlimit --memlock=0:0 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		pf-precheck -g dwarf --proc-root "$FXD/m516" -o /tmp --min-free 0
	assert_line --regexp '^warn memlock 4\.0M of rings for 2 CPUs exceeds 1\.0M \(perf_event_mlock_kb 516 x 2 \+ RLIMIT_MEMLOCK\): pf-record will use rings of 128 pages and may lose samples; -g dwarf: rings of 128 pages hold some [0-9]+ samples of 65528 stack bytes each$'
	assert_line "  fix: ulimit -l unlimited (or larger), sysctl -w kernel.perf_event_mlock_kb=2052, or run as root"
	# The same room is enough for the frame-pointer rings.
	run -0 prlimit --memlock=0:0 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		pf-precheck -g fp --proc-root "$FXD/m516" -o /tmp --min-free 0
	assert_line --regexp '^ok memlock 1\.0M of rings for 2 CPUs within 1\.0M '
	# 16 KiB per CPU holds no dwarf sample at all, but a small fp ring.
	run -1 prlimit --memlock=0:0 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		pf-precheck -g dwarf --proc-root "$FXD/m16" -o /tmp --min-free 0
	assert_line --regexp '^fail memlock even the smallest rings that hold one -g dwarf sample \(264\.0K for 2 CPUs\) exceed 32\.0K$'
	run -0 prlimit --memlock=0:0 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		pf-precheck -g fp --proc-root "$FXD/m16" -o /tmp --min-free 0
	assert_line --regexp '^warn memlock .* will use rings of 2 pages and may lose samples$'
}

@test "symbols: debuginfo found where the recorders look (a debug link into .debug beside the binary)" {
	require_cmd objcopy
	objcopy --only-keep-debug "$WORKLOADS/cls-sleeper" "$FXD/sl.debug"
	strip -o "$FXD/sl" "$WORKLOADS/cls-sleeper"
	objcopy --remove-section=.gnu_debuglink "$FXD/sl"
	(cd "$FXD" && objcopy --add-gnu-debuglink=sl.debug sl)
	mkdir "$FXD/.debug"
	mv "$FXD/sl.debug" "$FXD/.debug/"
	"$FXD/sl" 10 30 &
	KIDS=$!
	sleep 0.2
	run -0 pf-precheck -p "$KIDS" -o /tmp --min-free 0
	assert_line "ok symbols $FXD/sl: stripped, debug symbols in $FXD/.debug/sl.debug"
	rm "$FXD/.debug/sl.debug"
	run -0 pf-precheck -p "$KIDS" -o /tmp --min-free 0
	assert_line --regexp "^warn symbols $FXD/sl: stripped \(no .symtab\) and no debuginfo found"
}

@test "tasks blocked on I/O say classify first" {
	mkproc "$FXD/io" 1 0 516 5
	run -0 pf-precheck --proc-root "$FXD/io" -o /tmp --min-free 0
	assert_line "warn load iowait 0.0%, 5 tasks blocked on I/O, io pressure avg10 0.0%"
	assert_line "  fix: classify first: pf-classify (time waiting for I/O is off-CPU: pf-offcpu, not pf-record)"
	mkproc "$FXD/quiet" 1 0 516 0
	run -0 pf-precheck --proc-root "$FXD/quiet" -o /tmp --min-free 0
	[ "$(level load)" = ok ]
}

@test "a target in a container cgroup and pid namespace gets the container hint" {
	mkproc "$FXD/c" 1 0
	mkdir -p "$FXD/c/4242"
	echo '4242 (nginx) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 500 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0' >"$FXD/c/4242/stat"
	printf 'Name:\tnginx\nUid:\t0\t0\t0\t0\nNSpid:\t4242\t7\n' >"$FXD/c/4242/status"
	echo '0::/docker/abc123' >"$FXD/c/4242/cgroup"
	run -0 pf-precheck -p 4242 --proc-root "$FXD/c" --sys-root "$FXD/sys" -o /tmp --min-free 0
	assert_line "warn container pid 4242: cgroup /docker/abc123, pid namespace (pid 7 inside)"
	assert_line --partial "  fix: binaries and JIT maps are read through /proc/PID/root"
	[ "$(level target)" = ok ]
}

@test "-g auto decides from the target's mapped files, read through its root: fp when all keep frame pointers" {
	local w ino
	for w in keep:rec-split lack:nofp-split none:; do
		mkproc "$FXD/$w" 1 0
		mkdir -p "$FXD/$w/4242/root/opt"
		echo '4242 (app) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 500 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0' >"$FXD/$w/4242/stat"
		printf 'Name:\tapp\nUid:\t0\t0\t0\t0\n' >"$FXD/$w/4242/status"
		[ -z "${w#*:}" ] && continue	# no maps file
		# The path in maps is the target's view: only its root has the file,
		# and it is taken there only as the inode the maps name.
		cp "$WORKLOADS/${w#*:}" "$FXD/$w/4242/root/opt/app"
		ino=$(stat -c %i "$FXD/$w/4242/root/opt/app")
		printf '%s\n' "00400000-00401000 r--p 00000000 08:01 $ino /opt/app" \
			"00401000-00480000 r-xp 00001000 08:01 $ino /opt/app" \
			'7f0000000000-7f0000001000 r-xp 00000000 00:00 0 ' >"$FXD/$w/4242/maps"
	done
	run -0 pf-precheck -p 4242 --proc-root "$FXD/keep:rec-split" -o /tmp --min-free 0
	assert_line "ok unwind -g auto: pf-record will record with -g fp (the files judged keep frame pointers)"
	run -0 pf-precheck -p 4242 --proc-root "$FXD/lack:nofp-split" -o /tmp --min-free 0
	assert_line "ok unwind -g auto: pf-record will record with -g dwarf (app has no frame pointers)"
	run -0 pf-precheck -p 4242 --proc-root "$FXD/none:" -o /tmp --min-free 0
	assert_line "ok unwind -g auto: pf-record will record with -g fp (the target's mappings cannot be read)"
	# pf-offcpu's default is auto too (the fixture's status has no switch counts to weigh).
	run -0 pf-precheck --mode offcpu -p 4242 --proc-root "$FXD/lack:nofp-split" -o /tmp --min-free 0
	assert_line "ok unwind -g auto: pf-offcpu will record with -g dwarf (app has no frame pointers)"
}

@test "-g auto: a Go program (its build-id note) is recorded with -g dwarf, and -g fp warns why" {
	local ino
	if [ ! -x "$WORKLOADS/go-split" ]; then
		command -v go >/dev/null 2>&1 || skip "go not installed: the Go workload (go-split) is not built"
		fail "$WORKLOADS/go-split not built: run make"
	fi
	mkproc "$FXD/go" 1 0
	mkdir -p "$FXD/go/4242/root/opt"
	echo '4242 (app) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 500 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0' >"$FXD/go/4242/stat"
	printf 'Name:\tapp\nUid:\t0\t0\t0\t0\n' >"$FXD/go/4242/status"
	cp "$WORKLOADS/go-split" "$FXD/go/4242/root/opt/app"
	ln -s /opt/app "$FXD/go/4242/exe"
	ino=$(stat -c %i "$FXD/go/4242/root/opt/app")
	printf '%s\n' "00400000-00401000 r--p 00000000 08:01 $ino /opt/app" \
		"00401000-00480000 r-xp 00001000 08:01 $ino /opt/app" >"$FXD/go/4242/maps"
	run -0 pf-precheck -p 4242 --proc-root "$FXD/go" -o /tmp --min-free 0
	assert_line "ok unwind -g auto: pf-record will record with -g dwarf (app is Go code, whose assembly uses rbp as a general register)"
	assert_line "ok unwind /opt/app: Go code (its build-id note or .go.buildinfo), whose assembly uses rbp as a general register; -g dwarf unwinds it from .debug_frame"
	run -0 pf-precheck -g fp -p 4242 --proc-root "$FXD/go" -o /tmp --min-free 0
	assert_line "warn unwind /opt/app: Go code (its build-id note or .go.buildinfo), whose assembly uses rbp as a general register: -g fp stacks lose the callers of a sample there"
	assert_line "  fix: use pf-record -g auto or -g dwarf"
	# Without .debug_frame (go build -ldflags=-w, or strip) it cannot be
	# judged: -g auto takes dwarf, which follows frame pointers where it
	# has no tables, rather than trust them unjudged.  The file is
	# rewritten in place: the inode the maps name is still its own.
	objcopy --remove-section .debug_frame "$WORKLOADS/go-split" "$BATS_TEST_TMPDIR/app"
	cat "$BATS_TEST_TMPDIR/app" >"$FXD/go/4242/root/opt/app"
	run -0 pf-precheck -p 4242 --proc-root "$FXD/go" -o /tmp --min-free 0
	assert_line "ok unwind -g auto: pf-record will record with -g dwarf (app could not be judged)"
}

@test "a zombie in a fixture tree fails the target check" {
	mkproc "$FXD/z" 1 0
	mkdir -p "$FXD/z/99"
	echo '99 (worker) Z 42 99 99 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 500 0 0 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0' >"$FXD/z/99/stat"
	run -1 pf-precheck -p 99 --proc-root "$FXD/z" -o /tmp --min-free 0
	assert_line "fail target pid 99 (worker) is a zombie"
	assert_line "  fix: nothing runs to sample: the process exited; parent pid 42 has not reaped it"
}

@test "a missing perf_event_paranoid fails: no perf events" {
	mkproc "$FXD/n" 1 0
	rm "$FXD/n/sys/kernel/perf_event_paranoid"
	run -1 pf-precheck --proc-root "$FXD/n" -o /tmp --min-free 0
	[ "$(level paranoid)" = fail ]
}

# many_threads N: start the many-threads workload with N threads in the
# background (its pid in KIDS and MT) and wait until all run.
many_threads() {
	local _
	[ -x "$WORKLOADS/many-threads" ] || fail "$WORKLOADS/many-threads not built: run make"
	"$WORKLOADS/many-threads" "$1" 120 >"$BATS_TEST_TMPDIR/mt.out" &
	MT=$! KIDS="$KIDS $!"
	for _ in $(seq 100); do
		grep -q '^ready' "$BATS_TEST_TMPDIR/mt.out" && return 0
		sleep 0.1
	done
	fail "many-threads did not start its $1 threads"
}

@test "2001 threads under a hard RLIMIT_NOFILE of 1024 fail the fds check with the numbers and the fix" {
	require_root
	require_cmd prlimit
	many_threads 2001
	local ncpu need
	ncpu=$(getconf _NPROCESSORS_ONLN)
	need=$((2001 * ncpu + 16))
	run -1 prlimit --nofile=1024:1024 pf-precheck -p "$MT" -o /tmp --min-free 0
	assert_line "fail fds pf-record needs $need descriptors (2001 threads x $ncpu CPU$([ "$ncpu" -eq 1 ] || echo s), and 16 of its own), above RLIMIT_NOFILE's hard limit 1024"
	assert_line "  fix: raise the hard limit: prlimit --nofile=$need:$need -p \$\$ or ulimit -Hn $need as root"
	assert_line --regexp '^fail verdict oncpu: '
	# The same target with room for its descriptors passes the check.
	run prlimit --nofile=$((need + 100)):$((need + 100)) pf-precheck -p "$MT" -o /tmp --min-free 0
	assert_line --regexp "^ok fds $need descriptors \(2001 threads x $ncpu CPUs?, and 16 of its own\) within RLIMIT_NOFILE's hard limit $((need + 100))$"
	# A system-wide recording needs one per CPU only.
	run prlimit --nofile=1024:1024 pf-precheck --mode system -o /tmp --min-free 0
	assert_line --regexp "^ok fds $((ncpu + 16)) descriptors"
}

@test "every warn and fail line is followed by a fix line" {
	mkproc "$FXD/p" 4 2 0 5
	run -1 pf-precheck --proc-root "$FXD/p" -o "$FXD/missing"
	local bad
	bad=$(awk 'prev ~ /^(warn|fail) / && $2 != "verdict" && $0 !~ /^  fix: / { print prev } { prev = $0 }' <<<"$output")
	[ -z "$bad" ] || fail "no fix after: $bad"
	# and every line is a check or a fix
	bad=$(grep -vE '^(ok|warn|fail) [a-z_]+ |^  fix: ' <<<"$output" || true)
	[ -z "$bad" ] || fail "stray line: $bad"
}

@test "bad options are usage errors" {
	local a
	for a in "--mode bogus" "--min-free 5x" "--min-free 101%" "-p abc" "-p 0" "--mode system -p 1" "extra" "-g lbr" "-g"; do
		# shellcheck disable=SC2086
		run --separate-stderr -2 pf-precheck $a
		[[ "${stderr_lines[0]}" == "pf-precheck: "* ]] || fail "$a: ${stderr_lines[0]}"
	done
}

@test "a proc root that does not exist is a runtime failure naming it" {
	run --separate-stderr -3 pf-precheck --proc-root /nonexistent/pf-proc
	[[ "$stderr" == *"/nonexistent/pf-proc"* ]]
}

@test "a full stdout is a failure, not success" {
	run -3 sh -c "pf-precheck --no-probe -o /tmp --min-free 0 >/dev/full"
}

@test "unwind: a mapped file that cannot be opened to judge is listed by name, not passed over" {
	require_root
	local d="$USER_DIR/hidden" pid
	# nobody's process maps a library from nobody's own directory, which is
	# then closed to everyone: nobody's precheck reaches it neither through
	# map_files (no capability) nor through its path.
	mkdir -m 755 "$d"
	printf 'void late_work(double u) { (void)u; for (;;) ; }\n' >"$BATS_TEST_TMPDIR/h.c"
	cc -shared -fPIC -O1 -o "$d/libhidden.so" "$BATS_TEST_TMPDIR/h.c" || fail "cc failed"
	cp "$WORKLOADS/nofp-late" "$USER_DIR/late"
	chmod -R a+rX "$d" "$USER_DIR/late"
	chown -R nobody "$d"
	# setpriv itself, not a subshell around it: $! is the workload.
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$USER_DIR/late" \
	    "$d/libhidden.so" 200 30 & pid=$!
	KIDS="$KIDS $pid"
	for _ in $(seq 50); do
		grep -q libhidden "/proc/$pid/maps" 2>/dev/null && break
		sleep 0.1
	done
	grep -q libhidden "/proc/$pid/maps" || fail "the library was not loaded"
	chmod 000 "$d"
	run -0 as_nobody pf-precheck -p "$pid" -o /tmp --min-free 0 --no-probe
	assert_line --regexp "^(ok|warn) +unwind +1 mapped file could not be opened to judge \\($d/libhidden\\.so\\)"
	# Root opens it through the mapping, wherever it lies: nothing is listed.
	run -0 pf-precheck -p "$pid" -o /tmp --min-free 0 --no-probe
	refute_output --partial "could not be opened to judge"
}

#!/usr/bin/env bats
# The recorders' life cycle, the same for pf-record and pf-offcpu (both
# run lib/common/recorder.c): how a run is refused, how its output file
# is made, what it holds and how it is confined while recording, how the
# size cap and a signal end it.  Each case is written once, as a function
# of the recorder, and each recorder has its own test of it.  What the
# recorders do apart (shares, stacks, their own caps) is in pf-record.bats
# and pf-offcpu.bats.

load test_helper

SPLIT="$WORKLOADS/rec-split"
OFF="$WORKLOADS/off-split"

setup() {
	require_perf_events
	local w
	for w in "$SPLIT" "$OFF"; do
		[ -x "$w" ] || fail "$w not built: run make"
	done
	BGPID=
}

teardown() {
	if [ -n "${BGPID:-}" ]; then kill "$BGPID" 2>/dev/null || true; fi
}

# recorder TOOL: what differs between the recorders in the cases below.
# WORK: TOOL's workload, which runs for the seconds it is given: rec-split
# spins (CPU samples), off-split blocks (off-CPU samples).  PRIO: the
# prefix it runs under (test_helper.bash says why): favoured for
# rec-split, which must get its CPU; real-time for off-split, whose blocks
# must end on time.  SAMPLE: a grep pattern one line of each sample
# matches, and no other line (a pf-offcpu header has event=offcpu-time);
# MIN_SAMPLES: how many a recording stopped after SETTLE seconds holds,
# at least.
recorder() {
	case $1 in
	pf-record)
		WORK=$SPLIT
		PRIO=("${FAVOURED[@]}")
		SAMPLE=' cpu-clock'
		MIN_SAMPLES=20
		SETTLE=1.5
		;;
	pf-offcpu)
		WORK=$OFF
		PRIO=("${REALTIME[@]}")
		SAMPLE=' offcpu-time: $'
		MIN_SAMPLES=5
		SETTLE=1
		;;
	*)
		fail "recorder: not a recorder: $1"
		;;
	esac
}

# bad_command_lines TOOL: each misuse of TOOL exits 2 with one line
# saying why, then the synopsis, and nothing on stdout.  A line of the
# table is "WHO|ARGUMENTS|REASON", the reason's start: WHO is the
# recorder it is for, or * for both (their options are parsed in
# lib/common/recorder.c, their own ones by each tool).
bad_command_lines() {
	local tool=$1 who args want shared=0 own=0
	while IFS='|' read -r who args want; do
		case $who in
		'*') shared=$((shared + 1)) ;;
		"$tool") own=$((own + 1)) ;;
		*) continue ;;
		esac
		# shellcheck disable=SC2086 # the arguments are split on purpose
		run -2 --separate-stderr "$tool" $args
		[[ "${stderr_lines[0]}" == "$tool: $want"* ]] || fail "$args: '${stderr_lines[0]}', want '$want'"
		[[ "$stderr" == *"usage: $tool"* ]] || fail "$args: no synopsis"
		[ -z "$output" ] || fail "$args: wrote to stdout"
	done <<-'EOF'
	*|-d 0 -- true|-d: invalid duration '0'
	*|-d 5q -- true|-d: invalid duration '5q'
	*|--max-size 1K -- true|--max-size 1024: below the minimum of 4K
	*|--max-size 2G -- true|--max-size 2147483648: above the ceiling of 1G
	*|--max-size 12Q -- true|--max-size: invalid size '12Q'
	*|--min-free 101% -- true|--min-free: invalid size or percentage '101%'
	*|-g lbr -- true|-g: unknown call graph 'lbr' (fp, dwarf, auto)
	*|-g -- true|-g: unknown call graph '--'
	*|-p 0|-p: invalid pid '0'
	*|-p 12,x|-p: invalid pid 'x'
	*|-p 1,,2|-p: empty field in '1,,2'
	*|-p 1,|-p: empty field in '1,'
	*|-p ,|-p: empty field in ','
	*|-d 1|give exactly one target
	*|-a -p 1|give exactly one target
	*|-p 1 -- true|give exactly one target
	pf-record|-F 0 -- true|-F: invalid rate '0'
	pf-record|-F abc -- true|-F: invalid rate 'abc'
	pf-record|-F 10x -- true|-F: invalid rate '10x'
	pf-record|-g dwarf -a -F 100|-F 100: above the ceiling of 99 Hz for -g dwarf -a
	pf-offcpu|--min-block x -- true|--min-block: invalid microseconds 'x'
	pf-offcpu|--max-block 0 -- true|--max-block: invalid microseconds '0'
	pf-offcpu|--rate-cap 0 -- true|--rate-cap: invalid rate '0'
	EOF
	# A table not read, or a recorder misnamed in it, must not pass.
	if [ "$shared" -eq 0 ] || [ "$own" -eq 0 ]; then
		fail "$shared shared lines and $own of $tool's read"
	fi
}

# missing_target TOOL: a pid that does not exist and a command that cannot
# run are runtime failures, exit 3, each named.
missing_target() {
	run -3 --separate-stderr "$1" -d 1 -p 999999999
	[[ "$stderr" == *"999999999"* ]] || fail "stderr: $stderr"
	run -3 --separate-stderr "$1" -d 1 -- /nonexistent/cmd
	[[ "$stderr" == *"/nonexistent/cmd: No such file or directory"* ]] || fail "stderr: $stderr"
}

# output_file TOOL: -o makes a 0600 file, refuses an existing one without
# --force and replaces it with --force, but never through a symbolic link.
output_file() {
	run -0 --separate-stderr "$1" -d 1 -o "$BATS_TEST_TMPDIR/o.txt" -- true
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/o.txt")" = 600 ] || fail "mode $(stat -c %a "$BATS_TEST_TMPDIR/o.txt")"
	run -3 --separate-stderr "$1" -d 1 -o "$BATS_TEST_TMPDIR/o.txt" -- true
	[[ "$stderr" == *"o.txt: File exists (--force replaces it)"* ]] || fail "stderr: $stderr"
	run -0 --separate-stderr "$1" -d 1 --force -o "$BATS_TEST_TMPDIR/o.txt" -- true
	ln -s "$BATS_TEST_TMPDIR/o.txt" "$BATS_TEST_TMPDIR/link.txt"
	run -3 --separate-stderr "$1" -d 1 --force -o "$BATS_TEST_TMPDIR/link.txt" -- true
}

# size_cap TOOL: --max-size stops the recording before the file would
# pass it, at a sample boundary (a whole stream, stop=size-cap), exit 1,
# and not far below it; a cap above 1G is refused.  pf-record's window is
# also timed: its raw data in memory is bounded by the cap too, so the
# window stops early, well before -d 8.  (off-split's 2 s end before
# pf-offcpu's -d 5 would, so its run has no time to judge.)
size_cap() {
	local tool=$1 cap least max_ms t0 t1 size secs
	local -a opts
	recorder "$tool"
	case $tool in
	pf-record) opts=(-F 999 -d 8 --max-size 20K) secs=9 cap=20480 least=15000 max_ms=6000 ;;
	pf-offcpu) opts=(-d 5 --max-size 8K) secs=2 cap=8192 least=5000 max_ms= ;;
	esac
	t0=$(date +%s%N)
	run -1 --separate-stderr "${PRIO[@]}" "$tool" "${opts[@]}" -o "$BATS_TEST_TMPDIR/z.txt" -- "$WORK" "$secs"
	t1=$(date +%s%N)
	if [ -n "$max_ms" ]; then
		[ $(( (t1 - t0) / 1000000 )) -lt "$max_ms" ] ||
			fail "ran $(( (t1 - t0) / 1000000 )) ms: the window did not stop at the cap"
	fi
	[[ "$stderr" == *"size cap"* ]] || fail "stderr: $stderr"
	run -0 valid_stream "$BATS_TEST_TMPDIR/z.txt"
	assert_output size-cap
	size=$(stat -c %s "$BATS_TEST_TMPDIR/z.txt")
	[ "$size" -le "$cap" ] || fail "size $size > $cap"
	[ "$size" -gt "$least" ] || fail "size $size: stopped far too early"
	run -2 --separate-stderr "$tool" --max-size 2G -- true
	assert_equal "${stderr_lines[0]}" "$tool: --max-size 2147483648: above the ceiling of 1G"
}

# unprivileged TOOL: while TOOL records, it holds no capability (effective
# or permitted) and no_new_privs is set; its file helper holds only the
# capabilities that reach map_files (assert_file_helper).
unprivileged() {
	require_root
	recorder "$1"
	# A window long enough that the check falls inside it whatever the
	# load (with -d 3, in CI rehearsal 2's sanitizer pass the recorder had
	# ended before this shell read its status); ended early by SIGINT.
	"${PRIO[@]}" "$1" -d 30 -o "$BATS_TEST_TMPDIR/c.txt" -- "$WORK" 40 2>/dev/null & BGPID=$!
	wait_recording "$BGPID"
	sleep 1
	run -0 grep -E '^(CapEff|CapPrm|NoNewPrivs):' "/proc/$BGPID/status"
	assert_line --regexp '^CapEff:[[:space:]]+0000000000000000$'
	assert_line --regexp '^CapPrm:[[:space:]]+0000000000000000$'
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'
	assert_file_helper "$1" "$BGPID"
	kill -INT "$BGPID"
	wait "$BGPID"
	BGPID=
}

# confined_header TOOL: the header's confined line says how TOOL was
# confined (test_helper.bash).
confined_header() {
	recorder "$1"
	assert_confined_header "$1" "$WORK" 1
}

# hook_confined TOOL: TOOL's test-hook build, once confined, cannot open
# /etc/shadow but still reads /proc (test_helper.bash).
hook_confined() {
	require_root
	recorder "$1"
	assert_hook_confined "$1" "$WORK" 1
}

# stopped_by SIGNAL TOOL: SIGNAL (INT, HUP), SETTLE seconds into a
# recording of a command, ends it: exit 0, a whole stream with
# stop=signal and the samples so far, and the command ended too.
stopped_by() {
	local sig=$1 tool=$2 f="$BATS_TEST_TMPDIR/$1.txt" child n rc=0
	recorder "$tool"
	"${PRIO[@]}" "$tool" -d 20 -o "$f" -- "$WORK" 25 2>/dev/null & BGPID=$!
	wait_recording "$BGPID"
	sleep "$SETTLE"
	child=$(pgrep -P "$BGPID" | head -n 1)
	[ -n "$child" ] || fail "no child of $tool"
	kill -"$sig" "$BGPID"
	wait "$BGPID" || rc=$?
	# An orphaned child is killed by the teardown.
	BGPID=$child
	[ "$rc" -eq 0 ] || fail "exit $rc after SIG$sig"
	run -0 valid_stream "$f"
	assert_output signal
	n=$(grep -c "$SAMPLE" "$f" || true)
	[ "$n" -gt "$MIN_SAMPLES" ] || fail "$n samples, want more than $MIN_SAMPLES"
	! kill -0 "$child" 2>/dev/null || fail "the child $child was left running"
	BGPID=
}

@test "pf-record: bad command lines exit 2 with the reason and the synopsis" {
	bad_command_lines pf-record
}

@test "pf-offcpu: bad command lines exit 2 with the reason and the synopsis" {
	bad_command_lines pf-offcpu
}

@test "pf-record: a pid that does not exist and a command that cannot run exit 3" {
	missing_target pf-record
}

@test "pf-offcpu: a pid that does not exist and a command that cannot run exit 3" {
	missing_target pf-offcpu
}

@test "pf-record: the output file is created 0600 and never replaced without --force" {
	output_file pf-record
}

@test "pf-offcpu: the output file is created 0600 and never replaced without --force" {
	output_file pf-offcpu
}

@test "pf-record: the size cap stops before the output would exceed it, at a sample boundary, exit 1" {
	size_cap pf-record
}

@test "pf-offcpu: the size cap stops before the output would exceed it, at a sample boundary, exit 1" {
	size_cap pf-offcpu
}

@test "pf-record: while recording, it holds no capability and no_new_privs is set; its file helper only what opens map_files" {
	unprivileged pf-record
}

@test "pf-offcpu: while recording, it holds no capability and no_new_privs is set; its file helper only what opens map_files" {
	unprivileged pf-offcpu
}

@test "pf-record: the header says how it is confined" {
	confined_header pf-record
}

@test "pf-offcpu: the header says how it is confined" {
	confined_header pf-offcpu
}

@test "pf-record: confined, it can no longer open /etc/shadow but still reads /proc (test hook build)" {
	hook_confined pf-record
}

@test "pf-offcpu: confined, it can no longer open /etc/shadow but still reads /proc (test hook build)" {
	hook_confined pf-offcpu
}

@test "pf-record: SIGINT stops the recording and writes what was collected (stop=signal, exit 0)" {
	stopped_by INT pf-record
}

@test "pf-offcpu: SIGINT stops the recording and writes what was collected (stop=signal, exit 0)" {
	stopped_by INT pf-offcpu
}

@test "pf-record: SIGHUP (an ssh drop) stops the recording like SIGINT: stream kept, child ended, exit 0" {
	stopped_by HUP pf-record
}

@test "pf-offcpu: SIGHUP (an ssh drop) stops the recording like SIGINT: stream kept, child ended, exit 0" {
	stopped_by HUP pf-offcpu
}

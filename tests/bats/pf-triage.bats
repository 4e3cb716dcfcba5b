#!/usr/bin/env bats
# scripts/pf-triage: the runbook really runs the tools on a live workload.

load test_helper

TRIAGE="$PF_SCRIPTS/pf-triage"

teardown() {
	user_dir_cleanup
	# shellcheck disable=SC2086 # WPID may hold several PIDs
	[ -z "${WPID:-}" ] || kill $WPID 2>/dev/null || true
}

@test "a busy PID is prechecked, classified, recorded, folded, drawn and bundled" {
	require_root
	require_perf_events
	# Favoured, so that it gets its CPU on a loaded machine: with two yes
	# loops beside another suite it got some 200 samples, and a share
	# known to 3.5 points put pp_sixty at 50.00%.
	"${FAVOURED[@]}" "$WORKLOADS/pprof-split" 30 &
	WPID=$!
	wait_exec "$WPID" pprof-split
	cd "$BATS_TEST_TMPDIR"
	# 6 s at 99 Hz: some 600 samples, so the share is known to about 2 points.
	run -0 --separate-stderr env PATH="$PF_BIN_DIR:$PATH" "$TRIAGE" -p "$WPID" -d 6 -i 1 -o ev
	assert_line --regexp '^class [A-Z_]+$'
	assert_line "flamegraph ev/cpu.svg"
	assert_line "recorded cpu ev/cpu.perf"
	assert_line "bundle ev.tar.gz"
	# The finding: pprof-split's hottest function with its designed share (60%).
	local share
	share=$(awk '$1 == "hot" { sub(/%$/, "", $2); print $2, $3; exit }' <<< "$output")
	[[ "$share" == *" pp_sixty" ]] || fail "hottest: $share"
	awk -v s="${share% *}" 'BEGIN { exit !(s >= 53 && s <= 67) }' || fail "pp_sixty at $share"
	# It does not repeat the command it just ran as a suggestion.
	refute_line --partial "suggested pf-record -p"
	# Its steps, in order (a loaded host may add a system-wide profile after them).
	head -n 6 ev/commands.log | cut -d' ' -f1 | tr '\n' ' ' |
	    grep -qx 'pf-precheck pf-classify pf-record pf-fold pf-svg pf-report '
	# Run inside the directory: every path a tool is given is relative to it.
	grep -q '^pf-record -g auto -p '"$WPID"' -d 6 -o cpu.perf$' ev/commands.log
	grep -qE '^# pf-record: samples=[1-9][0-9]* .*stop=duration' ev/cpu.perf
	grep -q 'pp_sixty' ev/cpu.folded
	xmllint --noout ev/cpu.svg
	# The graph says what it shows: the target and the host, from the recording.
	grep -qF "CPU: pprof-split (pid $WPID) on $(uname -n)" ev/cpu.svg
	[ "$(stat -c %a ev/cpu.folded)" = 600 ]
	mkdir x && tar -C x -xzf ev.tar.gz
	(cd x/pf-bundle-* && sha256sum -c --quiet SHA256SUMS)
}

@test "a target without frame pointers is recorded with -g auto, which chose dwarf: its stacks reach main" {
	require_root
	require_perf_events
	"$WORKLOADS/nofp-split" 30 &
	WPID=$!
	wait_exec "$WPID" nofp-split
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr env PATH="$PF_BIN_DIR:$PATH" "$TRIAGE" -p "$WPID" -d 2 -i 1 -o ev
	grep -q '^pf-record -g auto -p '"$WPID"' -d 2 -o cpu.perf$' ev/commands.log
	head -n 1 ev/cpu.perf | grep -q ' callgraph=dwarf stack=65528 auto=no-frame-pointers:nofp-split ' ||
		fail "header: $(head -n 1 ev/cpu.perf)"
	# Unwound, the leaves sit under main (work is inlined into it).
	grep -Eq '(^|;)main;work;nofp_(sixty|forty) ' ev/cpu.folded || fail "$(sort -k2 -n ev/cpu.folded | tail -n 3)"
}

@test "a target that is gone is not recorded and the run says why" {
	sh -c 'exit 0' &
	gone=$!
	wait "$gone"
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr "$TRIAGE" -p "$gone" -d 1 -i 1 -n -o ev
	assert_line --partial "refused recording"
	[ ! -e ev/cpu.perf ]
	[ -s ev/precheck.txt ]
	[ ! -e ev.tar.gz ]
}

@test "a target whose symbol holds forged lines forges no summary line, and the hot line is its real leaf, escaped" {
	require_root
	require_perf_events
	cd "$BATS_TEST_TMPDIR"
	forge_symbol pfforge
	./pfforge sym 30 &
	WPID=$!
	wait_exec "$WPID" pfforge
	run -0 --separate-stderr "${FAVOURED[@]}" "$TRIAGE" -p "$WPID" -d 2 -i 1 -n -o ev
	run -0 cat ev/summary.txt
	# Nothing but key value lines of the runbook's own keys.
	refute_line --regexp '^(forged|# |	)'
	refute_line --partial 'disk-full'
	refute_line --regexp '^open cpu: stopped early'
	assert_line --regexp '^hot [0-9.]+% x\\x0a\\x0aforged 1/1 \[000\] '
	[ "$(grep -c '^hot ' ev/summary.txt)" -ge 1 ]
}

@test "a stopped target is not recorded and the run says why" {
	sleep 60 &
	WPID=$!
	kill -STOP "$WPID"
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr "$TRIAGE" -p "$WPID" -d 1 -i 1 -n -o ev
	kill -CONT "$WPID"
	assert_line --partial "the target is stopped (a signal or a tracer holds it); nothing to record"
	grep -q '^class STOPPED$' ev/classify.txt || fail "classify.txt: $(cat ev/classify.txt)"
	[ ! -e ev/cpu.perf ]
}

@test "an existing evidence directory is never reused" {
	mkdir "$BATS_TEST_TMPDIR/ev"
	run -3 --separate-stderr "$TRIAGE" -p 1 -o "$BATS_TEST_TMPDIR/ev"
	[[ "$stderr" == *"File exists"* ]]
}

@test "bad arguments are usage errors" {
	run -2 --separate-stderr "$TRIAGE" -p abc
	run -2 --separate-stderr "$TRIAGE" -d 1s
	run -2 --separate-stderr "$TRIAGE" extra
	[[ "$stderr" == *"usage: pf-triage"* ]]
	run -0 "$TRIAGE" -h
	assert_line --partial "usage: pf-triage"
}

@test "a mostly sleeping PID also gets an off-CPU profile, as pf-classify recommends" {
	require_root
	require_perf_events
	# Real-time, so that it is woken at once: on a busy machine a sleeper
	# at nice 0 waits for the CPU after each sleep, and that is STARVED_CPU.
	"${REALTIME[@]}" "$WORKLOADS/cls-sleeper" 10 30 &
	WPID=$!
	wait_exec "$WPID" cls-sleeper
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr env PATH="$PF_BIN_DIR:$PATH" "$TRIAGE" -p "$WPID" -d 1 -i 1 -n -o ev
	assert_line "class OFF_CPU"
	assert_line "recorded offcpu ev/offcpu.perf"
	assert_line --regexp '^hot-offcpu [0-9.]+% '
	assert_line "offcpu-flamegraph ev/offcpu.svg"
	grep -q '^pf-precheck -p '"$WPID"' -o \. --mode offcpu$' ev/commands.log
	grep -q '^pf-offcpu -g auto -p '"$WPID"' -d 1 -o offcpu.perf$' ev/commands.log
	grep -qE '^# pf-offcpu: samples=[1-9][0-9]* .*stop=duration' ev/offcpu.perf
	grep -q 'clock_nanosleep\|nanosleep' ev/offcpu.folded
	xmllint --noout ev/offcpu.svg
	grep -qF "Off-CPU time: cls-sleeper (pid $WPID)" ev/offcpu.svg
}

# service_beside_spinners WORKLOAD NAME: two cls-spin processes keep the
# CPUs busy while WORKLOAD (a service taking FILE SECONDS) writes to
# NAME.PID in PF_DISK_DIR (default /var/tmp), which must be disk-backed:
# the test skips on tmpfs.  WPID is "SERVICE SPIN SPIN", for teardown;
# the service has exec'd when this returns.
service_beside_spinners() {
	local dir=${PF_DISK_DIR:-/var/tmp} s1 s2
	[ "$(stat -f -c %T "$dir")" != tmpfs ] || skip "$dir is tmpfs: set PF_DISK_DIR to a disk-backed directory"
	"$WORKLOADS/cls-spin" 1 60 &
	s1=$!
	"$WORKLOADS/cls-spin" 1 60 &
	s2=$!
	"$WORKLOADS/$1" "$dir/$2.$$" 60 &
	WPID="$! $s1 $s2"
	wait_exec "${WPID%% *}" "$1"
}

@test "a service that waits on fsync and a mutex, on CPUs kept busy by others, is classed waiting and profiled off-CPU" {
	require_root
	require_perf_events
	[ "$(nproc)" -le 2 ] || skip "needs at most 2 CPUs for two spinners to fill them, have $(nproc)"
	service_beside_spinners cls-service pf-triage-svc
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr env PATH="$PF_BIN_DIR:$PATH" "$TRIAGE" -p "${WPID%% *}" -d 2 -i 2 -n -o ev
	assert_line --regexp '^class (OFF_CPU|IO_WAIT)$'
	assert_line "recorded offcpu ev/offcpu.perf"
	assert_line --regexp '^hot-offcpu [0-9.]+% '
	grep -qE '^pf-offcpu -g auto -p [0-9]+ -d 2 -o offcpu.perf$' ev/commands.log
}

# check_bundle TARBALL: tar lists it and its SHA256SUMS verify.
check_bundle() {
	run -0 tar -tzf "$1"
	assert_line --regexp '^pf-bundle-[^/]*/MANIFEST$'
	rm -rf "$BATS_TEST_TMPDIR/x"
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -C "$BATS_TEST_TMPDIR/x" -xzf "$1"
	(cd "$BATS_TEST_TMPDIR"/x/pf-bundle-* && sha256sum -c --quiet SHA256SUMS)
}

# triage_bg ARGS...: start pf-triage in the background in the test's
# directory, output to out/err, its pid in TPID.  A shell cannot trap a
# signal that was ignored when it started, and the suite itself may run
# with SIGHUP ignored (under nohup) or SIGINT ignored (as a background job
# of a script, as CI's passes are): the runbook starts with the default
# dispositions, as from a terminal.  out and err are emptied before it
# starts, not by the background job's own redirection: a test that runs it
# twice would otherwise find the first run's lines there (wait_for saw the
# last run's "== classify" before the new one had even started, and the
# signal came before the runbook had set its traps or reached classify).
triage_bg() {
	: > out
	: > err
	env --default-signal=HUP,INT,TERM "$TRIAGE" "$@" > out 2> err &
	TPID=$!
}

# wait_for PATTERN FILE: until FILE has a line matching PATTERN (20 s at most).
wait_for() {
	local _
	for _ in $(seq 200); do
		grep -q -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "no '$1' in $2: $(cat "$2")"
}

@test "SIGHUP or SIGTERM mid-run stops the running step and still leaves a valid bundle" {
	local sig rc start
	sleep 120 &
	WPID=$!
	cd "$BATS_TEST_TMPDIR"
	for sig in HUP TERM; do
		rm -rf ev ev.tar.gz ev.tar.gz.sha256 x
		# A 30 s classification: only a stopped step ends the run in time.
		triage_bg -p "$WPID" -d 1 -i 30 -o ev
		wait_for '^== classify' out
		sleep 0.3
		start=$SECONDS
		kill -"$sig" "$TPID"
		rc=0
		wait "$TPID" || rc=$?
		[ "$rc" -eq 1 ] || fail "SIG$sig: status $rc: $(cat err)"
		[ $((SECONDS - start)) -lt 15 ] || fail "SIG$sig: the classification was not stopped"
		grep -qx "interrupted SIG$sig during classify; later steps not run" out ||
			fail "SIG$sig: not interrupted during classify: $(cat out err)"
		grep -qx "bundle ev.tar.gz" out || fail "SIG$sig: no bundle: $(cat out err)"
		[ ! -e ev/cpu.perf ]
		check_bundle ev.tar.gz
		grep -qx "interrupted SIG$sig during classify; later steps not run" x/pf-bundle-*/ev/summary.txt
		grep -qx "command pf-classify -p $WPID -i 30" x/pf-bundle-*/MANIFEST
	done
}

# record_interrupted PID SIGNAL: the runbook PID (triage_bg's files) exits
# 1 saying SIGNAL stopped it while it recorded, and its bundle holds the
# recording, stopped by the signal, as it stands in ev/.
record_interrupted() {
	local rc=0
	wait "$1" || rc=$?
	[ "$rc" -eq 1 ] || fail "status $rc: $(cat err)"
	grep -qx "interrupted $2 during record cpu; later steps not run" out ||
		fail "not interrupted by $2 during record cpu: $(cat out err)"
	grep -qE '^# pf-record: samples=[0-9]+ .*stop=signal' ev/cpu.perf
	check_bundle ev.tar.gz
	cmp ev/cpu.perf x/pf-bundle-*/ev/cpu.perf
}

@test "SIGHUP during the recording keeps the recording (stop=signal) and bundles it" {
	require_root
	require_perf_events
	"$WORKLOADS/rec-split" 60 &
	WPID=$!
	sleep 0.3
	cd "$BATS_TEST_TMPDIR"
	PATH="$PF_BIN_DIR:$PATH" triage_bg -p "$WPID" -d 30 -i 1 -o ev
	wait_for '^== record' out
	sleep 1.5
	kill -HUP "$TPID"
	record_interrupted "$TPID" SIGHUP
	# The bundle names the debug files to fetch: the target's, by build-id.
	grep -qxF "build-id $(readelf -n "$WORKLOADS/rec-split" | awk '/Build ID/ { print $3 }') $WORKLOADS/rec-split" \
		x/pf-bundle-*/MANIFEST || fail "no build-id line for rec-split: $(grep '^build-id' x/pf-bundle-*/MANIFEST)"
}

@test "Ctrl-C (SIGINT to the whole foreground group) during the recording still leaves a bundle" {
	require_root
	require_perf_events
	local pg
	"$WORKLOADS/rec-split" 60 &
	WPID=$!
	sleep 0.3
	cd "$BATS_TEST_TMPDIR"
	# A job of its own, as a terminal's foreground job is: with job control
	# on, SIGINT is not ignored in it, and the group is its leader's pid.
	set -m
	# SIGINT may have been ignored when the suite started (see triage_bg).
	PATH="$PF_BIN_DIR:$PATH" env --default-signal=HUP,INT,TERM "$TRIAGE" -p "$WPID" -d 30 -i 1 -o ev > out 2> err &
	pg=$!
	set +m
	TPID=$pg
	wait_for '^== record' out
	sleep 1.5
	# What a typed Ctrl-C does: SIGINT to the triage and the recorder alike.
	kill -INT -- "-$pg"
	record_interrupted "$pg" SIGINT
}

@test "evidence names with a space or a quote go through triage, bundle and MANIFEST" {
	local d
	sleep 60 &
	WPID=$!
	cd "$BATS_TEST_TMPDIR"
	for d in "inc 42" "it's"; do
		run --separate-stderr env PATH="$PF_BIN_DIR:$PATH" "$TRIAGE" -p "$WPID" -d 1 -i 1 -o "$d"
		[ "$status" -le 1 ] || fail "$d: status $status: $stderr"
		assert_line "bundle $d.tar.gz"
		check_bundle "$d.tar.gz"
		grep -qx "inputs $d" x/pf-bundle-*/MANIFEST
		grep -qx "command pf-classify -p $WPID -i 1" x/pf-bundle-*/MANIFEST
		grep -qxF "file $(wc -c < "$d/commands.log") ./$d/commands.log" x/pf-bundle-*/MANIFEST
	done
	# The tools ran inside the directory: its name is in no command line.
	grep -qxF "pf-precheck -p $WPID -o . --mode oncpu" "it's/commands.log"
	grep -qxF "pf-precheck -p $WPID -o . --mode oncpu" "inc 42/commands.log"
}

@test "a newline in the evidence name is refused with exit 2 before anything runs" {
	mkdir "$BATS_TEST_TMPDIR/w"
	cd "$BATS_TEST_TMPDIR/w"
	run -2 --separate-stderr "$TRIAGE" -p 1 -o "$(printf 'inc\n42')"
	[ "${stderr_lines[0]}" = "pf-triage: -o: inc?42: a newline or control character in the name" ]
	[[ "${stderr_lines[1]}" == "usage: pf-triage "* ]]
	[ -z "$(ls -A)" ]
}

@test "a symlink planted at the evidence directory or the bundle is never followed" {
	cd "$BATS_TEST_TMPDIR"
	printf 'root-owned\n' > victim
	mkdir elsewhere
	ln -s elsewhere ev
	run -3 --separate-stderr "$TRIAGE" -p 1 -d 1 -i 1 -o ev
	[ -z "$(ls -A elsewhere)" ]
	ln -s victim ev2.tar.gz
	sleep 60 &
	WPID=$!
	run -3 --separate-stderr env PATH="$PF_BIN_DIR:$PATH" "$TRIAGE" -p "$WPID" -d 1 -i 1 -o ev2
	[[ "$stderr" == *"ev2.tar.gz: File exists"* ]]
	[ "$(cat victim)" = root-owned ]
	[ -L ev2.tar.gz ]
}

@test "-h and --help print the usage to stdout, --version the version of pf.h" {
	assert_usage_version "$TRIAGE" pf-triage \
	    "usage: pf-triage [-n] [-d SECONDS] [-i SECONDS] [-o DIR] [-p PID | -c NAME | --cgroup PATH]"
}

@test "misuse is one line saying why, then the synopsis, on stderr, exit 2, before anything runs" {
	local args
	cd "$BATS_TEST_TMPDIR"
	for args in "--no-such-option" "-x" "-p" "-p abc" "-p 0" "-d 0" "-d 31" "-p 1 -d 121" \
	    "-i 61" "-i 1s" "extra"; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr "$TRIAGE" $args -o ev
		[ -z "$output" ] || fail "$args: wrote to stdout: $output"
		[ "${#stderr_lines[@]}" -eq 2 ] || fail "$args: $stderr"
		[[ "${stderr_lines[0]}" == "pf-triage: "* ]]
		[ "${stderr_lines[1]}" = "usage: pf-triage [-n] [-d SECONDS] [-i SECONDS] [-o DIR] [-p PID | -c NAME | --cgroup PATH]" ]
		[ ! -e ev ] || fail "$args: ran anyway"
	done
}

@test "the scripts are shellcheck-clean, and every disabled check says why" {
	require_cmd shellcheck
	local s line
	cd "$PF_ROOT"
	run shellcheck -s sh scripts/pf-triage scripts/pf-bundle scripts/demo scripts/install-deps
	[ "$status" -eq 0 ] || fail "$output"
	for s in scripts/pf-triage scripts/pf-bundle scripts/demo scripts/install-deps; do
		run grep -n 'shellcheck disable=' "$s"
		for line in "${lines[@]}"; do
			[[ "$line" =~ disable=SC[0-9,SC]+\ \#\ .+ ]] || fail "$s: no reason: $line"
		done
	done
}

@test "-c NAME profiles every process of that name: a master and two busy workers are one recording, and the summary says 3 processes" {
	require_root
	require_perf_events
	local master w1 w2 list
	# A service of three processes named pfnamed: a master that sleeps,
	# two workers that spin in rec_alpha and its siblings.
	mkdir "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	cp "$WORKLOADS/cls-sleeper" "$BATS_TEST_TMPDIR/a/pfnamed"
	cp "$WORKLOADS/rec-split" "$BATS_TEST_TMPDIR/b/pfnamed"
	"$BATS_TEST_TMPDIR/a/pfnamed" 10 30 &
	master=$!
	"$BATS_TEST_TMPDIR/b/pfnamed" 30 &
	w1=$!
	"$BATS_TEST_TMPDIR/b/pfnamed" 30 &
	w2=$!
	WPID="$master $w1 $w2"
	wait_exec "$master" pfnamed
	wait_exec "$w1" pfnamed
	wait_exec "$w2" pfnamed
	list=$(printf '%s\n' "$master" "$w1" "$w2" | sort -n | paste -sd, -)
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr env PATH="$PF_BIN_DIR:$PATH" "$TRIAGE" -c pfnamed -d 2 -i 1 -n -o ev
	assert_line "target $list pfnamed (3 processes of that name)"
	# One precheck, one classification and one recording, of all three.
	grep -qx "pf-precheck -p $list -o . --mode oncpu" ev/commands.log
	grep -qx "pf-classify -p $list -i 1" ev/commands.log
	grep -qx "pf-record -g auto -p $list -d 2 -o cpu.perf" ev/commands.log
	grep -q "^# pf-record 2 .*target=pid:$list " ev/cpu.perf
	# The workers' hot function leads, and each worker has its share.
	assert_line --regexp '^hot [0-9.]+% rec_alpha$'
	[ "$(grep '^hot ' <<<"$output" | head -n 1 | awk '{ print $3 }')" = rec_alpha ]
	# How the three shared the recording's samples.
	assert_line --regexp "^share [0-9.]+% pfnamed $w1\$"
	assert_line --regexp "^share [0-9.]+% pfnamed $w2\$"
	kill "$master" "$w2"
	# One match: the PID alone.
	run -0 --separate-stderr env PATH="$PF_BIN_DIR:$PATH" "$TRIAGE" -c pfnamed -d 1 -i 1 -n -o ev2
	assert_line "target $w1 pfnamed"
	refute_line --partial "processes of that name"
	grep -q "^pf-record -g auto -p $w1 " ev2/commands.log
}

@test "-c NAME with more processes than the tools take: the 64 busiest are recorded and the summary says how many matched" {
	require_root
	require_perf_events
	local i busy list
	cp "$(command -v sleep)" "$BATS_TEST_TMPDIR/pfmany"
	mkdir "$BATS_TEST_TMPDIR/b"
	cp "$WORKLOADS/rec-split" "$BATS_TEST_TMPDIR/b/pfmany"
	WPID=
	for i in $(seq 66); do
		"$BATS_TEST_TMPDIR/pfmany" 60 &
		WPID="$WPID $!"
	done
	"$BATS_TEST_TMPDIR/b/pfmany" 30 &
	busy=$!
	WPID="$busy$WPID"
	# Every one of the 67, not only the busy one: in CI's sanitizer pass
	# one sleeper had not exec'd yet when the runbook looked (66 found).
	for i in $WPID; do
		wait_exec "$i" pfmany
	done
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr env PATH="$PF_BIN_DIR:$PATH" "$TRIAGE" -c pfmany -d 1 -i 1 -n -o ev
	assert_line --regexp "^target ([0-9]+,){63}[0-9]+ pfmany \(64 processes of that name, the busiest of 67: the tools take at most 64\)\$"
	list=$(awk '$1 == "target" { print $2 }' <<<"$output")
	# The one that spins is among them.
	[[ ",$list," == *",$busy,"* ]] || fail "$busy not in $list"
	grep -qx "pf-record -g auto -p $list -d 1 -o cpu.perf" ev/commands.log
}

@test "-c with no such process fails before anything is created; -c with -p is a usage error" {
	cd "$BATS_TEST_TMPDIR"
	run -3 --separate-stderr "$TRIAGE" -c pf-no-such-name -o ev
	[ "$stderr" = "pf-triage: -c: no process named pf-no-such-name" ]
	[ ! -e ev ]
	run -2 --separate-stderr "$TRIAGE" -c sh -p 1
	[[ "$stderr" == *"-c and -p: give one target"* ]]
	run -2 --separate-stderr "$TRIAGE" -c ''
	run -2 --separate-stderr "$TRIAGE" -c 'a/b'
}

# runbook_copy [NAME]: a copy of the runbook, rb/scripts/NAME (default
# pf-triage) in the test's directory, whose tools are links to the real
# ones in rb/bin; prints its path.  fake_tool replaces one of them.
runbook_copy() {
	local t="$BATS_TEST_TMPDIR/rb" f
	mkdir -p "$t/scripts" "$t/bin"
	cp "$TRIAGE" "$t/scripts/${1:-pf-triage}"
	cp "$PF_ROOT/scripts/pf-bundle" "$t/scripts/"
	for f in "$PF_BIN_DIR"/pf-*; do ln -sf "$f" "$t/bin/"; done
	echo "$t/scripts/${1:-pf-triage}"
}

# fake_tool TOOL BODY: rb/bin/TOOL becomes a sh script that runs BODY.
fake_tool() {
	local f="$BATS_TEST_TMPDIR/rb/bin/$1"
	rm -f "$f"
	printf '#!/bin/sh\n%s\n' "$2" > "$f"
	chmod +x "$f"
}

# fake_classify LINES...: a copy of the runbook whose pf-classify prints
# LINES (a verdict chosen by the test); every other tool is the real one.
fake_classify() {
	local rb
	rb=$(runbook_copy)
	fake_tool pf-classify "sleep 1
printf '%s\\n'$(printf " '%s'" "$@")"
	echo "$rb"
}

# with_trailer FILE TRAILER: end the stream FILE with TRAILER and
# " bytes=N", N the size of the whole stream with that line, as the
# recorders end theirs.
with_trailer() {
	local n t d
	n=$(( $(wc -c < "$1") + ${#2} + 8 ))
	for d in 1 2 3 4 5 6 7 8 9; do
		t=$((n + d))
		[ "${#t}" -ne "$d" ] || break
	done
	printf '%s bytes=%s\n' "$2" "$t" >> "$1"
}

# faked_runbook: a sleeping target (WPID), the test's directory as the
# working one, and a runbook copy (RB) whose recording is fake_recording's.
faked_runbook() {
	sleep 60 &
	WPID=$!
	cd "$BATS_TEST_TMPDIR" || return
	RB=$(runbook_copy)
	fake_recording
}

# fake_recording: the runbook copy's precheck passes, its classifier
# says ON_CPU_USER, and its pf-record writes the stream in the file
# $PF_TEST_STREAM to its -o file: a run needs no perf events and its
# recording is the test's.  The default stream is two samples.
fake_recording() {
	fake_tool pf-precheck 'echo "ok fake precheck"'
	fake_tool pf-classify 'echo "class ON_CPU_USER"'
	# shellcheck disable=SC2016 # expanded by the fake
	fake_tool pf-record 'while [ $# -gt 1 ]; do [ "$1" != -o ] || out=$2; shift; done
cat "$PF_TEST_STREAM" > "$out"'
	PF_TEST_STREAM="$BATS_TEST_TMPDIR/stream.perf"
	export PF_TEST_STREAM
	{
		echo "# pf-record 1 host=h kernel=k target=pid:1 freq=99 callgraph=fp kernel-stacks=yes start=2026-01-01T00:00:00Z"
		echo "# pf-record: caps duration=1s max-size=67108864 min-free=1 rings=1x1 pages fds=1"
		local i
		for i in 1 2; do
			printf 'victim  1/1  [000] 10.%06d:   10101010 cpu-clock: \n' "$i"
			printf '\t            12a4 leaf+0x24 (/usr/bin/victim)\n'
			printf '\t            13b3 main+0x89 (/usr/bin/victim)\n\n'
		done
	} > "$PF_TEST_STREAM"
	with_trailer "$PF_TEST_STREAM" "# pf-record: samples=2 lost=0 throttled=0 unknown-chain=0 stop=duration"
}

# swap_as_nobody SCRIPT: the runbook copy's pf-classify first runs the sh
# SCRIPT as nobody (its output and errors to $USER_DIR/swap.log), then
# says ON_CPU_USER: another user acting in the middle of a run.
swap_as_nobody() {
	printf '%s\n' "$1" > "$USER_DIR/swap.sh"
	chmod 644 "$USER_DIR/swap.sh"
	: > "$USER_DIR/swap.log"
	fake_tool pf-classify "setpriv --reuid=nobody --regid=nogroup --clear-groups /bin/sh '$USER_DIR/swap.sh' >> '$USER_DIR/swap.log' 2>&1
echo 'class ON_CPU_USER'"
}

@test "another user who may write the evidence directory's parent is refused unless it is sticky; a swap by them mid-run redirects no write" {
	require_root
	user_dir --data
	local u p
	u=$USER_DIR
	faked_runbook
	# Root's file that a swap would have root append to.
	printf 'canary\n' > "$u/canary"
	# Others may write, without the sticky bit; nobody's own directory:
	# refused before anything is made there (a swap would move root's
	# directory aside and put nobody's in its place, its commands.log a
	# link to the canary).
	mkdir -m 0777 "$u/open"
	mkdir -m 0755 "$u/theirs"
	chown nobody "$u/theirs"
	for p in open theirs; do
		swap_as_nobody "cd '$u/$p' && mv ev ev.root && mkdir ev && ln -s '$u/canary' ev/commands.log && echo swapped"
		run -3 --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -n -o "$u/$p/ev"
		[ -z "$(ls -A "$u/$p")" ] || fail "$p: made $(ls -A "$u/$p")"
		[ ! -s "$u/swap.log" ] || fail "$p: ran to the swap: $(cat "$u/swap.log")"
		[ "$(cat "$u/canary")" = canary ] || fail "$p: written through the link: $(cat "$u/canary")"
		case $p in
		open) [[ "$stderr" == "pf-triage: $u/open: writable by others and not sticky, so another user could swap the evidence directory ev there: give -o "* ]] ;;
		theirs) [[ "$stderr" == "pf-triage: $u/theirs: owned by uid $(id -u nobody), who could swap the evidence directory ev there: give -o "* ]] ;;
		esac || fail "$p: stderr: $stderr"
	done
	# Sticky: accepted, and nobody may not move root's directory there.
	mkdir -m 1777 "$u/sticky"
	swap_as_nobody "cd '$u/sticky' && mv ev ev.root && mkdir ev && ln -s '$u/canary' ev/commands.log && echo swapped"
	run -0 --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -o "$u/sticky/ev"
	grep -q 'Operation not permitted' "$u/swap.log" || fail "swap: $(cat "$u/swap.log")"
	[ "$(cat "$u/canary")" = canary ]
	assert_line "bundle $u/sticky/ev.tar.gz"
	[ ! -L "$u/sticky/ev/commands.log" ]
	grep -qx "pf-record -g auto -p $WPID -d 1 -o cpu.perf" "$u/sticky/ev/commands.log"
	# A parent's parent that nobody may write: the parent is root's and
	# passes, so nobody moves the parent itself aside mid-run and makes the
	# same path again, with the link.  The run keeps to the directory it
	# made, wherever that went, and says where it now is.
	mkdir -m 0777 "$u/gp"
	mkdir -m 0755 "$u/gp/p"
	swap_as_nobody "cd '$u/gp' && mv p p.root && mkdir -p p/ev && ln -s '$u/canary' p/ev/commands.log && echo swapped"
	run -0 --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -o "$u/gp/p/ev"
	grep -qx swapped "$u/swap.log" || fail "no swap: $(cat "$u/swap.log")"
	[ "$(cat "$u/canary")" = canary ] || fail "written through the link: $(cat "$u/canary")"
	# Nothing of the run in nobody's directory, all of it in root's.
	[ "$(ls -A "$u/gp/p/ev")" = commands.log ] && [ -L "$u/gp/p/ev/commands.log" ]
	[ ! -e "$u/gp/p/ev.tar.gz" ]
	grep -qx "pf-record -g auto -p $WPID -d 1 -o cpu.perf" "$u/gp/p.root/ev/commands.log"
	[ -s "$u/gp/p.root/ev/cpu.perf" ] && [ -s "$u/gp/p.root/ev/summary.txt" ]
	assert_line "open the evidence directory was moved during the run: $u/gp/p/ev no longer names it; it is $u/gp/p.root/ev"
	assert_line "recorded cpu $u/gp/p.root/ev/cpu.perf"
	assert_line "bundle $u/gp/p.root/ev.tar.gz"
	check_bundle "$u/gp/p.root/ev.tar.gz"
	cmp "$u/gp/p.root/ev/commands.log" x/pf-bundle-*/ev/commands.log
}

# event_line N: the line that starts sample N of victim, pid 42.
event_line() { printf 'victim  42/42  [000] 10.%06d:   10101010 cpu-clock: \n' "$1"; }

# forged_stream VERSION: a recording (header version VERSION) whose
# target put `#` lines of its choosing inside it, as a thread name or a
# function name holding newlines would in a stream that does not escape
# them: a trailer saying samples were lost and a cap stopped it, a header
# saying kernel frames were left out for another reason.  Its real header
# leaves kernel frames out "for the real reason"; real_leaf is where it
# spends 4 samples of 5.  No trailer: the test adds one or not.
forged_stream() {
	local i
	cat <<-EOF
	# pf-record $1 host=h kernel=k target=pid:42 freq=99 callgraph=fp kernel-stacks=no start=2026-01-01T00:00:00Z
	# pf-record: kernel frames excluded: for the real reason
	# pf-record: target pid=42 comm=victim
	# pf-record: caps duration=1s max-size=67108864 min-free=1 rings=1x1 pages fds=1
	EOF
	for i in 1 2 3; do
		event_line "$i"
		printf '\t            12a4 real_leaf+0x24 (/usr/bin/victim)\n'
		printf '\t            13b3 main+0x89 (/usr/bin/victim)\n\n'
	done
	# The thread renamed itself "vic\n# pf-record: ...\n...\ntim".
	printf 'vic\n'
	printf '# pf-record: samples=7 lost=999 throttled=0 truncated=55 stop=disk-full bytes=1\n'
	printf '# pf-record 1 host=forged target=all freq=99 callgraph=fp kernel-stacks=no start=x\n'
	printf '# pf-record: kernel frames excluded: forged\n'
	printf 'tim  42/42  [000] 10.000004:   10101010 cpu-clock: \n'
	printf '\t            12a4 real_leaf+0x24 (/usr/bin/victim)\n'
	# A caller named "mid\n# pf-record: ...\n".
	printf '\t            1300 mid\n'
	printf '# pf-record: samples=8 lost=998 throttled=0 stop=size-cap bytes=2\n'
	printf '+0x3 (/usr/bin/victim)\n'
	printf '\t            13b3 main+0x89 (/usr/bin/victim)\n\n'
	event_line 5
	printf '\t            12a0 other_leaf+0x4 (/usr/bin/victim)\n'
	printf '\t            13b3 main+0x89 (/usr/bin/victim)\n\n'
}

@test "the summary reads the header only before the first sample and the trailer only as the last line: lines a target forged inside the stream are not read" {
	local v
	faked_runbook
	# Version 2 escapes names; the runbook must not rely on it either.
	for v in 1 2; do
		forged_stream "$v" > "$PF_TEST_STREAM"
		with_trailer "$PF_TEST_STREAM" "# pf-record: samples=5 lost=2 throttled=0 unknown-chain=0 stop=duration"
		rm -rf ev
		run -0 --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -n -o ev
		run -0 cat ev/summary.txt
		# The real trailer's values, the real header's reason, nothing else.
		assert_line "open cpu: 2 samples lost"
		assert_line "open cpu: kernel frames excluded (for the real reason)"
		[ "$(grep -c '^open ' ev/summary.txt)" -eq 2 ] || fail "v$v: $output"
		# The hottest function is the leaf the samples ran in.
		assert_line --index 1 --regexp '^hot [0-9.]+% real_leaf$'
		refute_line --regexp '^hot .*(main|mid|pf-record)'
		# Cut short: no trailer at all, only the forged ones inside.
		forged_stream "$v" > "$PF_TEST_STREAM"
		rm -rf ev
		run -0 --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -n -o ev
		run -0 grep '^open ' ev/summary.txt
		assert_output "open cpu: kernel frames excluded (for the real reason)
open cpu: the recording has no trailer (cut short)"
		# Cut short inside a name that ends in a forged trailer: the last
		# line has the trailer's form, but not the recording's size.
		forged_stream "$v" > "$PF_TEST_STREAM"
		printf '%s\n\t            1300 mid\n%s' "$(event_line 6)" \
		    "# pf-record: samples=6 lost=0 throttled=0 unknown-chain=0 stop=duration bytes=12" >> "$PF_TEST_STREAM"
		rm -rf ev
		run -0 --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -n -o ev
		run -0 grep '^open ' ev/summary.txt
		assert_output "open cpu: kernel frames excluded (for the real reason)
open cpu: the last line is no trailer of this recording (its bytes= is not the size, $(wc -c < "$PF_TEST_STREAM") bytes): cut short or altered"
	done
}

@test "a recording that ran out of memory is said as such in the summary, not as a safety cap" {
	faked_runbook
	head -n -1 "$PF_TEST_STREAM" > "$PF_TEST_STREAM.new"
	mv "$PF_TEST_STREAM.new" "$PF_TEST_STREAM"
	with_trailer "$PF_TEST_STREAM" "# pf-record: samples=2 lost=0 throttled=0 unknown-chain=0 stop=memory"
	run --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -n -o ev
	run -0 grep '^open ' ev/summary.txt
	assert_output "open cpu: stopped early: memory ran out"
}

@test "stacks that reach no entry frame are an open line past 5% of them, with the main cause; at 5% they are not" {
	faked_runbook
	head -n -1 "$PF_TEST_STREAM" > base.perf
	cp base.perf "$PF_TEST_STREAM"
	with_trailer "$PF_TEST_STREAM" "# pf-record: samples=100 lost=0 throttled=0 unknown-chain=0 incomplete=6 incomplete-causes=stack-copy:4,no-unwind-info:2 stop=duration"
	run -0 --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -n -o ev
	run -0 grep '^open ' ev/summary.txt
	assert_output "open cpu: 6% of stacks incomplete (mostly: stack copy too short)"
	cp base.perf "$PF_TEST_STREAM"
	with_trailer "$PF_TEST_STREAM" "# pf-record: samples=100 lost=0 throttled=0 unknown-chain=0 incomplete=5 incomplete-causes=budget:5 stop=duration"
	run -0 --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -n -o ev2
	run -1 grep '^open ' ev2/summary.txt
}

@test "a leaf where interrupts come back on is passed over by the hot lines, with a note" {
	local i
	faked_runbook
	{
		echo "# pf-record 2 host=h kernel=k target=pid:1 freq=99 callgraph=fp kernel-stacks=yes start=2026-01-01T00:00:00Z"
		for i in 1 2 3; do
			printf 'victim  1/1  [000] 10.%06d:   10101010 cpu-clock: \n' "$i"
			printf '\t        ffffffff8100e3a0 pvm_irq_enable+0x10 ([kernel.kallsyms])\n'
			printf '\t        ffffffff81e0160a asm_sysvec_apic_timer_interrupt+0x1a ([kernel.kallsyms])\n'
			printf '\t            13b3 main+0x89 (/usr/bin/victim)\n\n'
		done
		printf 'victim  1/1  [000] 11.000000:   10101010 cpu-clock: \n'
		printf '\t            12a4 leaf+0x24 (/usr/bin/victim)\n'
		printf '\t            13b3 main+0x89 (/usr/bin/victim)\n\n'
	} > "$PF_TEST_STREAM"
	with_trailer "$PF_TEST_STREAM" "# pf-record: samples=4 lost=0 throttled=0 unknown-chain=0 stop=duration"
	run -0 --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -n -o ev
	run -0 grep -E '^(hot|note) ' ev/summary.txt
	assert_output "hot 25.00% leaf
note cpu: 75.00% of the samples in pvm_irq_enable, where interrupts come back on: time spent with them off before it, a sampling artefact (not a hot line)"
}

# py_stream NATIVE: a recording of a Python service, in $PF_TEST_STREAM:
# checksum 3 samples (in the interpreter's stripped C), parse 2 (in
# PyUnicode_Split), under main; then NATIVE samples with no Python frame.
py_stream() {
	local i
	{
		echo "# pf-record 2 host=h kernel=k target=pid:1 freq=99 callgraph=fp kernel-stacks=yes start=2026-01-01T00:00:00Z"
		echo "# python pid=1 version=3.11 frames=read"
		for i in 1 2 3 4 5; do
			printf 'python3.11  1/1  [000] 10.%06d:   10101010 cpu-clock: \n' "$i"
			if [ "$i" -le 3 ]; then
				printf '\t            2a4f [unknown] (/usr/bin/python3.11)\n'
				printf '\t    7f0000001000 py::checksum:/srv/app.py+0x0 (python)\n'
			else
				printf '\t            31c0 PyUnicode_Split+0x10 (/usr/bin/python3.11)\n'
				printf '\t    7f0000002000 py::parse:/srv/app.py+0x0 (python)\n'
			fi
			printf '\t    7f0000003000 py::main:/srv/app.py+0x0 (python)\n'
			printf '\t            13b3 Py_RunMain+0x89 (/usr/bin/python3.11)\n\n'
		done
		for i in $(seq "$1"); do
			printf 'python3.11  1/1  [000] 11.%06d:   10101010 cpu-clock: \n' "$i"
			printf '\t            2a4f [unknown] (/usr/bin/python3.11)\n'
			printf '\t            13b3 Py_RunMain+0x89 (/usr/bin/python3.11)\n\n'
		done
	} > "$PF_TEST_STREAM"
	with_trailer "$PF_TEST_STREAM" "# pf-record: samples=$((5 + $1)) lost=0 throttled=0 unknown-chain=0 stop=duration"
}

@test "a Python service's hot lines name its Python functions, not the interpreter's C, when pf-report says Python answers" {
	faked_runbook
	# 5 samples of 6 ran Python: the hot lines are the Python functions.
	py_stream 1
	run -0 --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -n -o ev
	run -0 grep '^hot ' ev/summary.txt
	assert_output "hot 50.00% py::checksum:/srv/app.py
hot 33.33% py::parse:/srv/app.py"
	# 5 of 11: the interpreter's leaf answers, as for any native program.
	py_stream 6
	run -0 --separate-stderr "$RB" -p "$WPID" -d 1 -i 1 -n -o ev2
	run -0 grep '^hot ' ev2/summary.txt
	assert_output "hot 81.82% [python3.11]
hot 18.18% PyUnicode_Split"
}

@test "-c NAME never picks the runbook's own processes, nor a process whose name holds NAME as one of its lines" {
	local name odd rb
	# A name no other process on the machine has: the runbook's own (a
	# script's processes are named after it).
	name="pfself$$"
	odd=$(printf 'x\n%s' "$name")
	cd "$BATS_TEST_TMPDIR"
	rb=$(runbook_copy "$name")
	fake_recording
	# Alone: the runbook and its subshells are the only processes so named.
	run -3 --separate-stderr "$rb" -c "$name" -d 1 -i 1 -n -o ev
	[ "$stderr" = "pf-triage: -c: no process named $name" ] || fail "stderr: $stderr"
	[ ! -e ev ]
	# Another process of that name, and one named "x", a newline and the
	# name: the first one is the only match.
	mkdir a b
	cp "$(command -v sleep)" "a/$name"
	cp "$(command -v sleep)" "b/$odd"
	"a/$name" 60 &
	WPID=$!
	"b/$odd" 60 &
	WPID="$WPID $!"
	wait_exec "${WPID%% *}" "$name"
	wait_exec "${WPID##* }" "$odd"
	run -0 --separate-stderr "$rb" -c "$name" -d 1 -i 1 -n -o ev
	assert_line "target ${WPID%% *} $name"
	grep -qx "pf-record -g auto -p ${WPID%% *} -d 1 -o cpu.perf" ev/commands.log
}

@test "the runbook follows next: system-wide and off-CPU profiles when the verdict asks for both" {
	require_root
	require_perf_events
	local rb
	"$WORKLOADS/rec-split" 30 &
	WPID=$!
	wait_exec "$WPID" rec-split
	rb=$(fake_classify "class CPU_SATURATED" "next pf-record -a" "next pf-offcpu -p $WPID" \
	    "hint a hint from the classifier")
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr "$rb" -p "$WPID" -d 1 -i 1 -n -o ev
	assert_line "class CPU_SATURATED"
	assert_line "hint a hint from the classifier"
	assert_line "recorded cpu ev/cpu.perf"
	assert_line "recorded cpu-system ev/cpu-system.perf"
	assert_line "recorded offcpu ev/offcpu.perf"
	assert_line "system-flamegraph ev/cpu-system.svg"
	assert_line --regexp '^hot-system [0-9.]+% '
	refute_line --partial "suggested"
	# Each profile had its own precheck, the system-wide one for every process.
	grep -qx "pf-precheck -o . --mode system" ev/commands.log
	grep -qx "pf-precheck -p $WPID -o . --mode offcpu" ev/commands.log
	grep -qx "pf-record -g auto -a -d 1 -o cpu-system.perf" ev/commands.log
	grep -qx "pf-offcpu -g auto -p $WPID -d 1 -o offcpu.perf" ev/commands.log
	grep -qE '^# pf-record 2 .*target=all' ev/cpu-system.perf
}

@test "a STARVED verdict brings the neighbours: the summary names the processes that took the CPUs, with their shares" {
	require_root
	require_perf_events
	local rb n1 n2 n3
	cp "$WORKLOADS/cls-spin" "$BATS_TEST_TMPDIR/nbr-one"
	cp "$WORKLOADS/cls-spin" "$BATS_TEST_TMPDIR/nbr-two"
	# A neighbour named like one of pf's tools: another engineer's run
	# is not this run's own and is not marked as pf itself.
	cp "$WORKLOADS/cls-spin" "$BATS_TEST_TMPDIR/pf-svg"
	"$BATS_TEST_TMPDIR/nbr-one" 1 60 &
	n1=$!
	"$BATS_TEST_TMPDIR/nbr-two" 1 60 &
	n2=$!
	"$BATS_TEST_TMPDIR/pf-svg" 1 60 &
	n3=$!
	sleep 60 &
	WPID="$! $n1 $n2 $n3"
	wait_exec "$n1" nbr-one
	wait_exec "$n2" nbr-two
	wait_exec "$n3" pf-svg
	rb=$(fake_classify "class STARVED_CPU" "next pf-record -a" "next pf-record -p ${WPID%% *}")
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr "$rb" -p "${WPID%% *}" -d 2 -i 1 -n -o ev
	assert_line "class STARVED_CPU"
	assert_line "recorded cpu-system ev/cpu-system.perf"
	# The neighbours, by name and PID, each with its share of the CPUs.
	# Alone, three spinners on two CPUs hold some 30% of the samples each;
	# beside a CI's other pass, whatever else runs may take more than one
	# of them (a rehearsal listed two of the three).  So the claim is
	# checked against the profile itself, counted here from the recorded
	# stream (by period, as pf-fold weighs a sample: on a loaded machine
	# the kernel stretches some, and a count of samples put a neighbour
	# at 7.06% that the summary rightly gave 6.81%): the five busiest processes are listed, each with its share,
	# and every spinner among them by its name and PID.  A process is a
	# comm and a PID, as pf-fold's roots are: one that exec'd during the
	# recording is two rows (a CI run's 11.73% for a PID was 11.56%
	# under one name and the rest under its name before the exec), and a
	# comm's spaces are '_' there.  The idle task's PID 0 is "?" in
	# both (pf-fold's rule for a thread id of 0).
	# shellcheck disable=SC2016 # an awk program
	run -0 awk '
		/^[^#\t]/ {
			for (i = 2; i <= NF; i++)
				if ($i ~ /^[0-9]+\/[0-9]+$/) {
					# Weighed by the period, as pf-fold counts (comm pid/tid [cpu] time: period event:).
					split($i, id, "/"); w = $(i + ($(i + 1) ~ /^\[/ ? 3 : 2))
					c = $1; for (j = 2; j < i; j++) c = c "_" $j
					n[id[1] " " c] += w; t += w; break
				}
		}
		END { for (k in n) { split(k, f, " "); printf "%s %.2f %s\n", f[1] ? f[1] : "?", 100 * n[k] / t, f[2] } }' ev/cpu-system.perf
	local counted=$output pid held share listed=0 name comm
	for pid in "$n1" "$n2" "$n3"; do
		grep -q "^$pid " <<<"$counted" || fail "spinner $pid not in the profile"
	done
	run -0 sort -k2,2nr <<<"$counted"
	local fifth
	fifth=$(sed -n 5p <<<"$output" | cut -d' ' -f2)
	while read -r pid held comm; do
		share=$(awk -v p="$pid" -v c="$comm" '$1 == "process" && $3 == c && $4 == p { sub(/%/, "", $2); print $2 }' ev/summary.txt)
		[ -n "$share" ] ||
			fail "$comm $pid held $held% (the fifth busiest $fifth%) and is not listed: $(grep '^process ' ev/summary.txt)"
		awk -v a="$share" -v b="$held" 'BEGIN { d = a - b; exit !(d < 0.015 && d > -0.015) }' ||
			fail "$comm $pid listed at $share%, holds $held% of the profile"
	done < <(awk -v f="$fifth" '$2 > f' <<<"$output")
	while read -r name pid; do
		share=$(awk -v p="$pid" -v c="$name" '$1 == p && $3 == c { print $2 }' <<<"$counted")
		if awk -v s="$share" -v f="$fifth" 'BEGIN { exit !(s > f) }'; then
			grep -qx "process $share% $name $pid" ev/summary.txt ||
				fail "$name $pid ($share%) not listed as itself: $(grep '^process ' ev/summary.txt)"
			listed=$((listed + 1))
		fi
	done <<-EOF
	nbr-one $n1
	nbr-two $n2
	pf-svg $n3
	EOF
	[ "$listed" -gt 0 ] || fail "no spinner among the five busiest: $(grep '^process ' ev/summary.txt)"
	grep '^process ' ev/summary.txt
	# Five unmarked at most; marked, only the target and this run's own
	# runbook and recorder, whatever else of pf's runs on the box.
	[ "$(grep '^process ' ev/summary.txt | grep -vc ')$')" -le 5 ]
	run -1 grep -E '^process .*\(pf itself\)$' <(grep -vE '^process [0-9.]+% pf-(record|triage) [0-9]+ \(pf itself\)$' ev/summary.txt)
}

@test "hot-offcpu names the code that waits: a service whose threads queue on a mutex held across fdatasync, without frame pointers, beside two spinners" {
	require_root
	require_perf_events
	local rb first
	# One of its four threads holds the lock in fdatasync, the others
	# queue for it: some 75% of the blocked time is append_record's lock.
	service_beside_spinners nofp-service pf-triage-nofp-svc
	# The verdict is the test's: the off-CPU profile is what is tested.
	rb=$(fake_classify "class OFF_CPU" "next pf-offcpu -p ${WPID%% *}")
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr "$rb" -p "${WPID%% *}" -d 2 -i 1 -n -o ev
	# The first hot-offcpu line is the function that takes the lock, with
	# the C library's function it called, at half the blocked time or more.
	first=$(grep -m 1 '^hot-offcpu ' ev/summary.txt) || fail "no hot-offcpu line: $(cat ev/summary.txt)"
	[[ "$first" =~ ^hot-offcpu\ ([0-9.]+)%\ append_record\ \(lock:\ [_a-zA-Z]*pthread_mutex_lock\)$ ]] ||
		fail "first hot-offcpu line: $first; report: $(cat ev/offcpu.report)"
	awk -v s="${BASH_REMATCH[1]}" 'BEGIN { exit !(s >= 50) }' || fail "$first: under 50%"
	# Unwound from the call-frame information (no frame pointers there),
	# and folded with the kernel's frames and the C library's marked.
	head -n 1 ev/offcpu.perf | grep -q ' callgraph=dwarf stack=16384 auto=no-frame-pointers:' ||
		fail "header: $(head -n 1 ev/offcpu.perf)"
	grep -qx 'pf-fold --kernel --libc offcpu.perf' ev/commands.log
	# The graph shows neither mark.
	! grep -q '_\[[kl]\]' ev/offcpu.svg || fail "a mark in offcpu.svg"
}

@test "a verdict the runbook cannot carry out stays a suggestion; what was not seen is said" {
	require_root
	require_perf_events
	local rb
	"$WORKLOADS/rec-split" 30 &
	WPID=$!
	wait_exec "$WPID" rec-split
	rb=$(fake_classify "class IO_WAIT" "next pf-classify -p PID")
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr "$rb" -p "$WPID" -d 1 -i 1 -n -o ev
	assert_line "suggested pf-classify -p PID"
	refute_line --partial "recorded offcpu"
}

@test "what a recording could not see is in the summary: kernel frames left out for a user" {
	require_root
	require_perf_events
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ] ||
	    skip "perf_event_paranoid < 2: a user sees kernel frames here"
	user_dir
	mkdir -p "$USER_DIR/scripts" "$USER_DIR/work"
	cp "$TRIAGE" "$PF_ROOT/scripts/pf-bundle" "$USER_DIR/scripts/"
	chmod -R a+rX "$USER_DIR/scripts"
	chown nobody "$USER_DIR/work"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$USER_DIR/workloads/rec-split" 30 &
	WPID=$!
	wait_exec "$WPID" rec-split
	cd "$USER_DIR/work"
	run --separate-stderr as_nobody "$USER_DIR/scripts/pf-triage" -p "$WPID" -d 1 -i 1 -n -o ev
	assert_line "recorded cpu ev/cpu.perf"
	assert_line --regexp '^open cpu: kernel frames excluded \(.+\)$'
}

@test "on a terminal each step counts its seconds; in a pipe it does not" {
	require_root
	require_perf_events
	require_cmd script
	local rb
	# What the runbook shows, not what it measures: a sleeping target,
	# and a classifier that takes its interval (-i, its fourth argument)
	# and asks for the on-CPU recording.  (A spinner as the target cost
	# CI 12 s of CPU for nothing this test looks at.)
	sleep 60 &
	WPID=$!
	rb=$(runbook_copy)
	fake_tool pf-classify "sleep \"\$4\"
printf 'class ON_CPU_USER\\nnext pf-record -p %s\\n' $WPID"
	cd "$BATS_TEST_TMPDIR"
	script -qec "'$rb' -p $WPID -d 2 -i 2 -n -o ev" tty.out >/dev/null
	grep -q "classify: 1s of 2s" tty.out || fail "$(cat -v tty.out)"
	grep -q "record cpu: 1s of 2s" tty.out || fail "$(cat -v tty.out)"
	run -0 --separate-stderr "$rb" -p "$WPID" -d 1 -i 1 -n -o ev2
	assert_line "== record cpu (1s): pf-record -g auto -p $WPID -d 1 -o cpu.perf"
	refute_output --partial "of 1s"
	[[ "$output" != *$'\r'* ]]
}

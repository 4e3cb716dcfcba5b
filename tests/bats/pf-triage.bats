#!/usr/bin/env bats
# scripts/pf-triage: the runbook really runs the tools on a live workload.

load test_helper

TRIAGE="$PF_ROOT/scripts/pf-triage"

teardown() {
	[ -z "${WPID:-}" ] || kill "$WPID" 2>/dev/null || true
}

@test "a busy PID is prechecked, classified, recorded, folded, drawn and bundled" {
	require_root
	require_perf_events
	"$WORKLOADS/rec-split" 30 &
	WPID=$!
	sleep 0.3
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr env PATH="$PF_BIN_DIR:$PATH" "$TRIAGE" -p "$WPID" -d 2 -i 1 -o ev
	assert_line --regexp '^class [A-Z_]+$'
	assert_line "flamegraph ev/cpu.svg"
	assert_line "bundle ev.tar.gz"
	[ "$(wc -l < ev/commands.log)" -eq 5 ]
	grep -q '^pf-record -p '"$WPID"' -d 2 -o ev/cpu.perf$' ev/commands.log
	grep -qE '^# pf-record: samples=[1-9][0-9]* .*stop=duration' ev/cpu.perf
	grep -q 'rec_alpha' ev/cpu.folded
	xmllint --noout ev/cpu.svg
	[ "$(stat -c %a ev/cpu.folded)" = 600 ]
	mkdir x && tar -C x -xzf ev.tar.gz
	(cd x/pf-bundle-* && sha256sum -c --quiet SHA256SUMS)
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
	"$WORKLOADS/cls-sleeper" 10 30 &
	WPID=$!
	sleep 0.3
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr env PATH="$PF_BIN_DIR:$PATH" "$TRIAGE" -p "$WPID" -d 1 -i 1 -n -o ev
	assert_line "class OFF_CPU"
	assert_line "suggested pf-offcpu -p $WPID"
	assert_line "offcpu-flamegraph ev/offcpu.svg"
	grep -q '^pf-precheck -p '"$WPID"' -o ev --mode offcpu$' ev/commands.log
	grep -q '^pf-offcpu -p '"$WPID"' -d 1 -o ev/offcpu.perf$' ev/commands.log
	grep -qE '^# pf-offcpu: samples=[1-9][0-9]* .*stop=duration' ev/offcpu.perf
	grep -q 'clock_nanosleep\|nanosleep' ev/offcpu.folded
	xmllint --noout ev/offcpu.svg
}

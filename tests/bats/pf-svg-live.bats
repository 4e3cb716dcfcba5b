#!/usr/bin/env bats
# pf-svg at the end of live pipelines: a recording of a running process
# (pf-record, pf-offcpu) drawn with the provenance they write.  The rest of
# pf-svg's tests read files only (pf-svg.bats, a deterministic suite).

load test_helper
load svg_helper

setup() {
	require_perf_events
	cd "$BATS_TEST_TMPDIR" || return
}

teardown() {
	if [ -n "${BGPID:-}" ]; then kill "$BGPID" 2>/dev/null || true; fi
}

@test "the mission pipeline's SVG names the host and the target outside the tooltips" {
	"${FAVOURED[@]}" "$WORKLOADS/cls-spin" 1 30 & BGPID=$!
	wait_exec "$BGPID" cls-spin
	run -0 bash -c "'$PF_BIN_DIR/pf-record' -p $BGPID -d 2 --no-progress 2>/dev/null |
		'$PF_BIN_DIR/pf-fold' | '$PF_BIN_DIR/pf-svg' > cpu.svg"
	xml_ok cpu.svg
	# Outside <title> tooltips: the heading and the subtitle.
	sed 's/<title>[^<]*<\/title>//g' cpu.svg > visible.svg
	run heading title visible.svg
	assert_output "CPU: cls-spin (pid $BGPID) on $(uname -n)"
	# cls-spin keeps frame pointers but libc does not: -g auto takes dwarf.
	run heading subtitle visible.svg
	assert_output --regexp '^start [0-9T:-]+Z, window 2s, 99 Hz, [0-9]+ samples, call graph dwarf$'
}

@test "a target that renames itself cannot split the provenance line or the title" {
	# shellcheck disable=SC2016 # the inner sh expands $$
	sh -c 'printf "my app;x=1 9" > /proc/$$/comm; while :; do :; done' & BGPID=$!
	wait_exec "$BGPID" "my app;x=1 9"
	run -0 bash -c "'$PF_BIN_DIR/pf-record' -p $BGPID -d 2 --no-progress 2>/dev/null | tee rec.txt |
		'$PF_BIN_DIR/pf-fold' > out.folded"
	# The header escapes the name (pf-formats(5), Names); nothing turns
	# it back, so the provenance and the title show the escaped form.
	grep -qxF "# pf-record: target pid=$BGPID comm=my\\x20app\\x3bx=1\\x209" rec.txt ||
		fail "target line: $(grep target rec.txt)"
	run head -n 1 out.folded
	assert_output --regexp "^# pf-provenance tool=pf-record host=[^ ]+ target=my\\\\x20app\\\\x3bx=1\\\\x209 pid=$BGPID .* unit=ns\$"
	pf-svg out.folded > r.svg
	xml_ok r.svg
	run heading title r.svg
	assert_output "CPU: my\\x20app\\x3bx=1\\x209 (pid $BGPID) on $(uname -n)"
}

@test "the off-CPU pipeline's SVG has the io palette and time units" {
	"$WORKLOADS/off-split" 30 & BGPID=$!
	wait_exec "$BGPID" off-split
	run -0 bash -c "'$PF_BIN_DIR/pf-offcpu' -p $BGPID -d 1 --no-progress 2>/dev/null |
		'$PF_BIN_DIR/pf-fold' | '$PF_BIN_DIR/pf-svg' > off.svg"
	xml_ok off.svg
	run heading title off.svg
	assert_output "Off-CPU time: off-split (pid $BGPID) on $(uname -n)"
	run tip off_alpha off.svg
	assert_output --regexp '^off_alpha \([0-9.]+ (ms|s), [0-9.]+%\)$'
	# Colours are a function of the name: the io palette's off_alpha.
	printf 'x;off_alpha 1\n' | pf-svg --colors io > io.svg
	[ "$(fill off_alpha off.svg)" = "$(fill off_alpha io.svg)" ]
}

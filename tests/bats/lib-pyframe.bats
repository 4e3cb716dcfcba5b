#!/usr/bin/env bats
# lib/common/pyframe against running interpreters: tests/unit/test-pyframe's
# pylive group starts each CPython present (pyenv's 3.9 to 3.13, each
# skipped with its reason when absent; Debian's /usr/bin/python3.11,
# which install-deps --test installs, always) on a script with a known
# call chain in two threads, reads its memory with process_vm_readv and
# needs each thread's walk to be exactly the frames expected.  Live: it
# runs processes, each for as long as its threads take to reach their
# loops (10 s at most).

load test_helper

@test "the Python frames of each thread of a running CPython 3.9 to 3.13 are read from its memory: qualified names, files, first lines and entry frames, in order" {
	local bin="${PF_UNIT_DIR:-$PF_ROOT/build/unit}/test-pyframe"
	[ -x "$bin" ] || fail "unit driver not built: $bin (run make units)"
	# A script that never prints its thread ids would block the driver for good.
	run --separate-stderr timeout 300 "$bin" pylive
	# The interpreters walked and the ones skipped, for the log.
	printf '# %s\n' "${stderr_lines[@]}" >&3
	[ "$status" -eq 0 ] || fail "pylive: $stderr"
	[[ "$output" == "pylive: "*" checks, 0 failed" ]] || fail "pylive: $output"
	[[ "$stderr" == *"/usr/bin/python3.11: 3.11, main and worker threads walked"* ]] ||
		fail "Debian's python3.11 was not walked: $stderr"
}

#!/usr/bin/env bats
# Issue 20: pf-record and pf-offcpu name the Python frames of a running
# CPython 3.9 to 3.13.  Live: the workloads of tests/workloads/py/ under
# Debian's /usr/bin/python3.11 (install-deps --test installs it) always,
# and under each of pyenv's 3.9 to 3.13 that is installed (an absent one
# is skipped with its reason, printed); the fake interpreter of
# tests/workloads/py-fake.c, whose memory is made to hurt a reader.

load test_helper

PYW="$PF_ROOT/tests/workloads/py"
PYFAKE="$WORKLOADS/py-fake/python3.11"

teardown() {
	if [ -n "${BGPID:-}" ]; then kill "$BGPID" 2>/dev/null || true; fi
}

@test "the fake CPython 3.11 is read by lib/common/pyframe as a reader must: its cyclic chain ends as a loop, its 2^40-character name and its non-string file name are marked, each walk at once" {
	local bin="${PF_UNIT_DIR:-$PF_ROOT/build/unit}/test-pyframe"
	[ -x "$bin" ] || fail "unit driver not built: $bin (run make units)"
	[ -x "$PYFAKE" ] || fail "fake interpreter not built: $PYFAKE (run make)"
	PF_PY_FAKE=$PYFAKE run --separate-stderr timeout 60 "$bin" pyfake
	printf '# %s\n' "${stderr_lines[@]}" >&3
	[ "$status" -eq 0 ] || fail "pyfake: $stderr"
	[[ "$output" == "pyfake: "*" checks, 0 failed" ]] || fail "pyfake: $output"
	[[ "$stderr" == *"pyfake cycle: 2 frames, end 2"* && "$stderr" == *"pyfake badlen: 2 frames, end 0"* ]] ||
		fail "a walk is missing: $stderr"
}

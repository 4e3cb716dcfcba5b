#!/usr/bin/env bats
# pf-svg's SVG in headless Chromium, driven by playwright-core
# (tests/browser/pf-svg.mjs): zoom, reset, Ctrl-F search, ignore-case, URL
# state, hover, and click-zooms on a 30k-frame graph (checked, and timed).
# Skips only when node or chromium is absent; installs playwright-core
# (pinned by tests/browser/package-lock.json) when it is missing.

load test_helper

CHROMIUM=${PF_CHROMIUM:-/usr/bin/chromium}

# Every case in one run of the driver (one browser start, not five): its
# output and status are kept for the tests, each of which reads its own
# case's lines.
CASES="zoom search url hover timing"

setup_file() {
	if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 &&
	    [ -x "$CHROMIUM" ]; then
		"$PF_ROOT/tests/browser/setup.sh"
		local r=0
		# shellcheck disable=SC2086 # the cases are words
		node "$PF_ROOT/tests/browser/pf-svg.mjs" "$PF_BIN_DIR/pf-svg" $CASES \
		    > "$BATS_FILE_TMPDIR/browser.out" 2>&1 || r=$?
		echo "$r" > "$BATS_FILE_TMPDIR/browser.status"
	fi
}

# browser_case CASE: CASE's checks all passed in the run of setup_file.
browser_case() {
	require_cmd node npm
	[ -x "$CHROMIUM" ] || skip "chromium not installed at $CHROMIUM (scripts/install-deps --test)"
	[ -e "$BATS_FILE_TMPDIR/browser.status" ] || fail "the browser driver did not run"
	output=$(awk -v c="# case $1" '$0 == c { on = 1; next } /^# case / { on = 0 } on' \
	    "$BATS_FILE_TMPDIR/browser.out")
	printf '%s\n' "$output" | grep '^#' >&3 || true
	[[ "$output" == *"ok - "* ]] ||
		fail "no check of $1 ran (driver exit $(cat "$BATS_FILE_TMPDIR/browser.status")): $(cat "$BATS_FILE_TMPDIR/browser.out")"
	[[ "$output" != *"not ok - "* ]] || fail "$output"
}

@test "clicking a frame zooms it to the full width, hides siblings, and reset restores" {
	browser_case zoom
}

@test "Ctrl-F and F3 search by regex, recolour matches and show Matched without double counting" {
	browser_case search
}

@test "zoom and search come back from the URL" {
	browser_case url
}

@test "hovering a frame shows its details line" {
	browser_case hover
}

@test "click-zooms and an unzoom on a 30,000-frame graph change the view, and are timed" {
	browser_case timing
}

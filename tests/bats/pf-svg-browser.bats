#!/usr/bin/env bats
# pf-svg's SVG in headless Chromium, driven by playwright-core
# (tests/browser/pf-svg.mjs): zoom, reset, Ctrl-F search, ignore-case, URL
# state, hover, and click-zooms on a 30k-frame graph (checked, and timed).
# Skips only when node or chromium is absent; installs playwright-core
# (pinned by tests/browser/package-lock.json) when it is missing.

load test_helper

CHROMIUM=${PF_CHROMIUM:-/usr/bin/chromium}

setup_file() {
	if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 &&
	    [ -x "$CHROMIUM" ]; then
		"$PF_ROOT/tests/browser/setup.sh"
	fi
}

browser_case() {
	require_cmd node npm
	[ -x "$CHROMIUM" ] || skip "chromium not installed at $CHROMIUM (scripts/install-deps --test)"
	run node "$PF_ROOT/tests/browser/pf-svg.mjs" "$PF_BIN_DIR/pf-svg" "$1"
	printf '%s\n' "$output" | grep '^#' >&3 || true
	[ "$status" -eq 0 ] || fail "$output"
	[[ "$output" == *"ok - "* ]] || fail "no check ran: $output"
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

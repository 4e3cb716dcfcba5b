#!/bin/sh
# setup.sh: install the browser tests' one npm dependency, playwright-core,
# at the version package-lock.json pins, into tests/browser/node_modules.
# It drives the system chromium (/usr/bin/chromium); it never downloads a
# browser.  Idempotent: does nothing when the pinned version is present.
set -eu
cd "$(dirname "$0")"
want=$(awk '/"node_modules\/playwright-core": \{/ { f = 1 } f && /"version"/ { gsub(/[",]/, "", $2); print $2; exit }' package-lock.json)
have=$(sed -n 's/.*"version": "\([^"]*\)".*/\1/p' node_modules/playwright-core/package.json 2>/dev/null | head -n 1 || true)
if [ -n "$want" ] && [ "$want" = "$have" ]; then
	exit 0
fi
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix . --no-audit --no-fund >&2

#!/bin/sh
# bench/pf-svg-zoom.sh: how long a click-zoom takes in headless Chromium on
# a 30,112-frame graph (target <= 200 ms to the next painted frame).  The
# browser test's timing case (tests/browser/pf-svg.mjs) does the clicking;
# this runs it RUNS times and reports the worst of each kind of click.
#
#   RUNS=N   runs (default 5)
set -eu
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
chromium=${PF_CHROMIUM:-/usr/bin/chromium}
if ! command -v node >/dev/null 2>&1 || [ ! -x "$chromium" ] ||
    [ ! -d tests/browser/node_modules/playwright-core ]; then
	echo "pf-svg zoom bench: skipped: needs node, $chromium and tests/browser/setup.sh (scripts/install-deps --test)"
	exit 0
fi
out=build/bench/pf-svg-zoom.txt
: >"$out"
i=0
while [ $i -lt "$runs" ]; do
	node tests/browser/pf-svg.mjs "$PWD/bin/pf-svg" timing | grep '^# click-zoom' | tee -a "$out"
	i=$((i + 1))
done
# "# click-zoom WHAT on N frames: A ms to layout, B ms to the next frame"
sed 's/^# click-zoom //' "$out" | awk -F': ' '
	{ split($2, t, " "); what = $1; f = t[5] + 0; l = t[1] + 0
	  if (!(what in worst) || f > worst[what]) worst[what] = f
	  if (!(what in best) || f < best[what]) best[what] = f
	  if (!(what in lw) || l > lw[what]) lw[what] = l
	  if (!(what in seen)) { order[++n] = what; seen[what] = 1 } }
	END { for (k = 1; k <= n; k++)
		printf "pf-svg click-zoom, %s: %.0f-%.0f ms to the next frame (worst layout %.0f ms)\n", order[k], best[order[k]], worst[order[k]], lw[order[k]]
	      print "target: <= 200 ms" }'

#!/bin/sh
# bench/pf-record-python.sh: what naming a CPython's Python frames costs
# (issue 20), on a busy single-threaded interpreter
# (tests/workloads/py/shares.py under PY, Debian's python3.11 unless
# said), at 99 Hz:
#   1. pf-record's own CPU (user + sys, time(1)) for a SECS-long -p
#      window, with the Python frames (the default), with them and
#      --python-lines, and with --no-python, and the ratios to the last:
#      the memory reads of each sample's walk, through the file helper,
#      are what the first two pay for (the second its line tables too);
#   2. the target's slowdown: shares.py's handler calls a second, alone
#      and under pf-record -- CMD (with and without --no-python), in
#      interleaved runs.
# The machine is shared: CPU figures are the best of RUNS runs with the
# spread (worst - best) beside it; slowdowns the median of PAIRS with
# their range.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
PAIRS=${PAIRS:-7}
SECS=${SECS:-10}
RATE_SECS=${RATE_SECS:-5}
PY=${PY:-/usr/bin/python3.11}
W=tests/workloads/py/shares.py
REC=bin/pf-record
OUT=build/bench/pf-record-python
mkdir -p "$OUT"

if [ ! -x /usr/bin/time ]; then
	echo "pf-record python bench: skipped: /usr/bin/time (package time) not installed"
	exit 0
fi
if [ ! -x "$PY" ]; then
	echo "pf-record python bench: skipped: $PY not installed (scripts/install-deps --test)"
	exit 0
fi
if ! $REC -d 1 --min-free 0 -o "$OUT/probe.txt" --force -- true 2>/dev/null; then
	echo "pf-record python bench: skipped: perf events not available here"
	exit 0
fi
# The option comes with the Python frames: without it there is nothing
# to compare.
if ! $REC --help | grep -q -- '--no-python'; then
	echo "pf-record python bench: skipped: this pf-record has no --no-python"
	exit 0
fi

# best_spread: reads numbers, prints "best spread".
best_spread() {
	sort -n | awk 'NR == 1 { b = $1 } { w = $1 } END { printf "%.3f %.3f\n", b, w - b }'
}

# 1. pf-record's own CPU on one busy interpreter, the two modes in turn.
"$PY" "$W" 600 & wp=$!
sleep 1
for _ in $(seq "$RUNS"); do
	for mode in python python-lines no-python; do
		opt=
		[ "$mode" = no-python ] && opt=--no-python
		[ "$mode" = python-lines ] && opt=--python-lines
		# shellcheck disable=SC2086 # opt is one word or none
		/usr/bin/time -f "%U %S" -o "$OUT/t" $REC $opt -p "$wp" -F 99 -d "$SECS" --no-progress \
		    --min-free 0 -o "$OUT/$mode.txt" --force 2>/dev/null
		awk -v m="$mode" -v n="$(grep -c ' cpu-clock' "$OUT/$mode.txt")" \
		    '{ printf "%s %.3f %d\n", m, $1 + $2, n }' "$OUT/t"
	done
done > "$OUT/own"
kill "$wp" 2>/dev/null || true
wait "$wp" 2>/dev/null || true
py=$(awk '$1 == "python" { print $2 }' "$OUT/own" | best_spread)
nopy=$(awk '$1 == "no-python" { print $2 }' "$OUT/own" | best_spread)
lines=$(awk '$1 == "python-lines" { print $2 }' "$OUT/own" | best_spread)
n=$(awk '$1 == "python" { print $3; exit }' "$OUT/own")
merged=$(tail -n 1 "$OUT/python.txt" | grep -oE ' py-merged=[0-9]+' | cut -d= -f2 || true)
echo "pf-record CPU for a $SECS s window at 99 Hz on $PY $W (~$n samples, py-merged=${merged:-?} in the last):"
echo "  with the Python frames: ${py% *} s (spread ${py#* } s); --no-python: ${nopy% *} s (spread ${nopy#* } s); ratio $(echo "${py% *} ${nopy% *}" | awk '{ printf "%.2f", ($2 > 0) ? $1 / $2 : 0 }')"
echo "  with --python-lines: ${lines% *} s (spread ${lines#* } s); ratio to --no-python $(echo "${lines% *} ${nopy% *}" | awk '{ printf "%.2f", ($2 > 0) ? $1 / $2 : 0 }')"

# 2. The target's rate: handler calls a second over RATE_SECS, alone and
# recorded, in interleaved runs (alone, default, --no-python).
rate() {	# prints calls per second from a count file
	awk '{ printf "%.1f\n", $1 / $2 }' "$1"
}
for _ in $(seq "$PAIRS"); do
	"$PY" "$W" "$RATE_SECS" "$OUT/alone.count"
	$REC -F 99 -d 60 --no-progress --min-free 0 -o "$OUT/rate.txt" --force -- \
	    "$PY" "$W" "$RATE_SECS" "$OUT/py.count" 2>/dev/null
	$REC --no-python -F 99 -d 60 --no-progress --min-free 0 -o "$OUT/rate.txt" --force -- \
	    "$PY" "$W" "$RATE_SECS" "$OUT/nopy.count" 2>/dev/null
	echo "$(rate "$OUT/alone.count") $(rate "$OUT/py.count") $(rate "$OUT/nopy.count")"
done > "$OUT/rates"
for col in 2 3; do
	awk -v c="$col" '{ printf "%.4f\n", 100 * ($1 / $c - 1) }' "$OUT/rates" | sort -n |
	    awk -v l="$( [ "$col" = 2 ] && echo 'with the Python frames' || echo 'with --no-python')" \
	    -v r="$(awk '{ s += $1 } END { printf "%.0f", s / NR }' "$OUT/rates")" '
		{ d[NR] = $1 }
		END {
			m = NR % 2 ? d[(NR + 1) / 2] : (d[NR / 2] + d[NR / 2 + 1]) / 2
			printf "target slowdown at 99 Hz %s: %.2f%% (median of %d pairs, range %.2f to %.2f%%; %s handler calls/s alone, mean)\n", l, m, NR, d[1], d[NR], r
		}'
done

#!/bin/sh
# bench/pf-offcpu.sh: what pf-offcpu costs a target that switches a lot.
# The target is off-switch: two threads passing a byte back and forth
# through pipes, each round two context switches.  Its time per round,
# alone and under pf-offcpu, in interleaved pairs (medians with the range):
#  1. below the cap: a fixed 20000 rounds, some 40,000 switch-outs, which
#     pf-offcpu records one sample per blocked interval; this is what a
#     target paid before the rate cap, when the recording stopped there;
#  2. above the cap: SECS seconds of rounds as fast as they go (over
#     100,000 switches a second alone here), the whole run recorded, its
#     blocked time summed per thread and stack after the first second;
#  3. pf-offcpu's peak memory and output size for a 10 s window above the
#     cap.
# OFFCPU=path measures another pf-offcpu build the same way.  The machine
# is shared: compare figures taken at the same time only.
set -eu
cd "$(dirname "$0")/.."
OFFCPU=${OFFCPU:-bin/pf-offcpu}
SW=build/workloads/off-switch
OUT=build/bench/pf-offcpu
PAIRS=${PAIRS:-7}
SECS=${SECS:-3}
mkdir -p "$OUT"

if [ ! -x /usr/bin/time ]; then
	echo "pf-offcpu bench: skipped: /usr/bin/time (package time) not installed"
	exit 0
fi
if ! "$OFFCPU" -d 1 --min-free 0 -o "$OUT/probe.txt" --force -- true 2>/dev/null; then
	echo "pf-offcpu bench: skipped: pf-offcpu cannot record here"
	exit 0
fi

# ns_per_round: reads off-switch lines, prints ns a round of each.
ns_per_round() {
	awk '/^rounds/ { printf "%.1f\n", $4 / $2 }'
}
# median LABEL: reads "slowdown-% alone-ns sampled-ns" lines.
median() {
	sort -n | awk -v l="$1" '
		{ d[NR] = $1; a += $2; s += $3 }
		END {
			m = NR % 2 ? d[(NR + 1) / 2] : (d[NR / 2] + d[NR / 2 + 1]) / 2
			printf "%s: slowdown %.0f%% (median of %d pairs, range %.0f to %.0f%%; %.2f us a round alone, %.2f us recorded, means)\n",
			    l, m, NR, d[1], d[NR], a / NR / 1000, s / NR / 1000
		}'
}

for _ in $(seq "$PAIRS"); do
	a=$("$SW" -n 20000 | ns_per_round)
	s=$("$OFFCPU" -d 10 --no-progress --min-free 0 -o "$OUT/below.txt" --force -- \
	    "$SW" -n 20000 2>/dev/null | ns_per_round)
	echo "$a $s" | awk '{ printf "%.2f %s %s\n", 100 * ($2 / $1 - 1), $1, $2 }'
done | median "below the cap, 20000 rounds (~40000 switch-outs), one sample per interval"

for _ in $(seq "$PAIRS"); do
	a=$("$SW" "$SECS" | ns_per_round)
	s=$("$OFFCPU" -d 10 --no-progress --stats --min-free 0 -o "$OUT/above.txt" --force -- \
	    "$SW" "$SECS" 2>"$OUT/above.err" | ns_per_round)
	grep -q ' aggregated=' "$OUT/above.txt" ||
		echo "  (this run was not summed: $(tail -1 "$OUT/above.txt" | cut -c1-120))" >&2
	echo "$a $s" | awk '{ printf "%.2f %s %s\n", 100 * ($2 / $1 - 1), $1, $2 }'
done | median "above the cap, $SECS s as fast as it goes, summed"
echo "  alone: $("$SW" 1 | awk '{ printf "%.0f", $6 / ($4 / 1e9) }') switches/s; recorded: $(awk -v s="$SECS" '/ stats: / { for (i = 1; i < NF; i++) if ($i == "switch-outs") printf "%.0f", $(i + 1) / s }' "$OUT/above.err") switch-outs/s (the last run)"

/usr/bin/time -f "%M" -o "$OUT/rss" "$OFFCPU" -d 10 --no-progress --min-free 0 \
    -o "$OUT/ten.txt" --force -- "$SW" 11 >/dev/null 2>&1 || true
echo "10 s window above the cap: peak RSS $(awk '{ printf "%.1f", $1 / 1024 }' "$OUT/rss") MiB (the recorder's or the target's, the larger), output $(stat -c %s "$OUT/ten.txt") bytes, $(tail -1 "$OUT/ten.txt" | cut -c1-100)"

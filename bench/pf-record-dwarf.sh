#!/bin/sh
# bench/pf-record-dwarf.sh: what pf-record -g dwarf costs on a busy
# single-threaded program built without frame pointers (Debian's xz -9
# -T1), at 999 Hz for SECS (20) s, beside perf record --call-graph dwarf +
# perf script on the same program for the same time:
#   unwind time per sample (pf-record --stats), output bytes per sample,
#   peak RSS, lost samples, own CPU time (user + system).
# Bars: no lost samples; peak RSS <= 64 MB; pf-record's CPU <= half of
# perf record + perf script.  Each run is the best of RUNS (1) with the
# spread beside it.  The machine may be shared: perf is measured at the
# same moment on the same kind of run, so the ratio is what to read.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-1}
SECS=${SECS:-20}
REC=bin/pf-record
OUT=build/bench/pf-record-dwarf
mkdir -p "$OUT"

if [ ! -x /usr/bin/time ] || ! command -v xz >/dev/null 2>&1; then
	echo "pf-record -g dwarf bench: skipped: needs /usr/bin/time (package time) and xz"
	exit 0
fi
if ! $REC -g dwarf -d 1 --min-free 0 -o "$OUT/probe.txt" --force -- true 2>/dev/null; then
	echo "pf-record -g dwarf bench: skipped: perf events not available here"
	exit 0
fi

# Text xz -9 takes well over SECS to compress (about 1 MB/s).
[ -s "$OUT/data" ] || head -c 16000000 /dev/urandom | od -An -tx1 > "$OUT/data"

# best_spread: reads numbers, prints "best spread".
best_spread() {
	sort -n | awk 'NR == 1 { b = $1 } { w = $1 } END { printf "%.3f %.3f\n", b, w - b }'
}

# busy: start xz in the background, its pid in $wp, once it runs xz.
busy() {
	xz -9 -T1 -c "$OUT/data" > /dev/null &
	wp=$!
	sleep 0.5
}

stop_busy() {
	kill "$wp" 2>/dev/null || true
	wait "$wp" 2>/dev/null || true
}

# pf-record: "cpu_s rss_kb samples lost unwind_ns bytes_per_sample fallbacks"
pf=$(for _ in $(seq "$RUNS"); do
	busy
	/usr/bin/time -f "%U %S %M" -o "$OUT/t" $REC -g dwarf -F 999 -d "$SECS" -p "$wp" \
	    --no-progress --stats --min-free 0 -o "$OUT/pf.txt" --force 2> "$OUT/stats"
	stop_busy
	tail -n 1 "$OUT/pf.txt" > "$OUT/trailer"
	size=$(stat -c %s "$OUT/pf.txt")
	awk -v size="$size" '
		FILENAME ~ /\/t$/ { cpu = $1 + $2; rss = $3; next }
		FILENAME ~ /stats$/ {
			for (i = 1; i < NF; i++) {
				if ($i == "unwound") n = $(i + 1)
				if ($i == "unwind-ns-per-sample") ns = $(i + 1)
				if ($i == "fp-fallbacks") fb = $(i + 1)
			}
			next
		}
		{ for (i = 1; i <= NF; i++) if ($i ~ /^lost=/) { lost = $i; sub(/lost=/, "", lost) } }
		END { printf "%.3f %d %d %d %d %.0f %d\n", cpu, rss, n, lost, ns, n ? size / n : 0, fb }
	' "$OUT/t" "$OUT/stats" "$OUT/trailer"
done)
echo "$pf" | awk '{ print $1 }' | best_spread > "$OUT/pfcpu"
read -r pfcpu pfspread < "$OUT/pfcpu"
# The figures of the run with the least CPU.
echo "$pf" | sort -n | head -n 1 > "$OUT/pfbest"
read -r _ rss pfn lost ns bps fb < "$OUT/pfbest"
echo "pf-record -g dwarf, xz -9 -T1, 999 Hz, $SECS s: $pfn samples, lost $lost, frame-pointer fallbacks $fb"
echo "  unwind $ns ns per sample; output $bps bytes per sample; peak RSS $((rss / 1024)) MB; own CPU $pfcpu s (spread $pfspread s over $RUNS runs)"

pc=
if command -v perf >/dev/null 2>&1; then
	perfr=$(for _ in $(seq "$RUNS"); do
		busy
		/usr/bin/time -f "%U %S %M" -o "$OUT/t1" perf record -q -F 999 --call-graph dwarf \
		    -p "$wp" -o "$OUT/perf.data" -- sleep "$SECS" > /dev/null 2> "$OUT/perf.err"
		stop_busy
		/usr/bin/time -f "%U %S %M" -o "$OUT/t2" perf script -i "$OUT/perf.data" > "$OUT/perf.txt" 2>/dev/null
		n=$(grep -c ' cpu-clock' "$OUT/perf.txt" || true)
		size=$(stat -c %s "$OUT/perf.data")
		cat "$OUT/t1" "$OUT/t2" | awk -v n="$n" -v size="$size" '
			{ s += $1 + $2; if ($3 > m) m = $3 }
			END { printf "%.3f %d %d %.0f\n", s, m, n, n ? size / n : 0 }'
	done)
	echo "$perfr" | awk '{ print $1 }' | best_spread > "$OUT/perfcpu"
	read -r pc pcspread < "$OUT/perfcpu"
	echo "$perfr" | sort -n | head -n 1 > "$OUT/perfbest"
	read -r _ prss pcn pbps < "$OUT/perfbest"
	echo "perf record --call-graph dwarf + perf script, same program and time: $pcn samples"
	echo "  perf.data $pbps bytes per sample; peak RSS $((prss / 1024)) MB; CPU $pc s (spread $pcspread s)"
else
	echo "perf not installed: no perf comparison"
fi

bar() {	# ok label
	if [ "$1" = 1 ]; then echo "met: $2"; else echo "MISSED: $2"; fi
}
bar "$([ "$lost" -eq 0 ] && echo 1)" "no lost samples (lost $lost)"
bar "$([ "$rss" -le 65536 ] && echo 1)" "peak RSS <= 64 MB ($((rss / 1024)) MB)"
# The bar compares the totals of the same time on the same program.  On
# a loaded machine the program may get less CPU in one run than in the
# other, so fewer samples: the CPU per sample is given beside it.
if [ -n "$pc" ]; then
	tot=$(echo "$pfcpu $pc" | awk '{ printf "%.2f", ($2 > 0) ? $1 / $2 : 99 }')
	per=$(echo "$pfcpu $pfn $pc $pcn" | awk '{ printf "%.0f us against %.0f us", 1e6 * $1 / ($2 ? $2 : 1), 1e6 * $3 / ($4 ? $4 : 1) }')
	bar "$(echo "$tot" | awk '{ if ($1 <= 0.5) print 1 }')" "pf-record CPU <= half of perf's: $pfcpu s against $pc s, ratio $tot (per sample $per; $pfn and $pcn samples)"
fi

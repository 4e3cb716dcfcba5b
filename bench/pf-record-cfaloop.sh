#!/bin/sh
# bench/pf-record-cfaloop.sh: what a target whose own call-frame
# information loops costs pf-record -g dwarf, against an ordinary target.
# rec-cfaloop loop spins in a leaf whose CFA is DW_OP_breg7 16;
# DW_OP_skip -3 (libdw 0.188's evaluator gives it up at its step limit,
# and leaked 256 bytes three times a sample); rec-cfaloop plain spins in
# the same leaf with the ordinary rule.  Each is recorded with -p at
# 999 Hz for SECS (120) s:
#   samples, peak RSS, own CPU time, cfi-refused, and the RSS growth a
#   sample during the window: pf-record's VmRSS read every second, from
#   5 s in to the last reading before the window's end, over the samples
#   of that time at the window's mean rate.  Not the peak of a long run
#   less that of a short one: the symbols are read after the window, and
#   whether a run needs the kernel's (16 MB) depends on a few samples.
# Bar: the looping target's growth a sample <= 1.1 times the control's
# (the control keeps more of each sample: five frames, not one).
# REC=path/to/pf-record measures another build.
set -eu
cd "$(dirname "$0")/.."
SECS=${SECS:-120}
REC=${REC:-bin/pf-record}
W=build/workloads/rec-cfaloop
OUT=build/bench/pf-record-cfaloop
mkdir -p "$OUT"

if [ ! -x /usr/bin/time ]; then
	echo "pf-record looping-CFA bench: skipped: /usr/bin/time (package time) not installed"
	exit 0
fi
if [ ! -x "$W" ]; then
	echo "pf-record looping-CFA bench: skipped: $W not built (make all)"
	exit 0
fi
if [ "$SECS" -lt 10 ]; then
	echo "pf-record looping-CFA bench: skipped: SECS=$SECS, 10 at least"
	exit 0
fi
if ! "$REC" -g dwarf -d 1 --min-free 0 -o "$OUT/probe.txt" --force -- true 2>/dev/null; then
	echo "pf-record looping-CFA bench: skipped: perf events not available here"
	exit 0
fi

wp=''
rp=''
trap 'kill $rp $wp 2>/dev/null || true' EXIT

now() {
	date +%s.%N
}

# run MODE: records rec-cfaloop MODE for SECS s; prints "samples
# peak_rss_kb cpu_s cfi_refused growth_bytes_a_sample".  The target runs
# before the recording starts, so no sample is of its start-up.
run() {
	"$W" "$1" &
	wp=$!
	sleep 0.3
	/usr/bin/time -f "%U %S %M" -o "$OUT/$1.t" "$REC" -g dwarf -F 999 -d "$SECS" -p "$wp" \
	    --no-progress --stats --min-free 0 -o "$OUT/$1.txt" --force 2> "$OUT/$1.err" &
	rp=$!
	# /usr/bin/time's child: pf-record.
	i=0
	while [ $i -lt 100 ]; do
		pp=$(pgrep -P "$rp" pf-record 2>/dev/null || true)
		[ -n "$pp" ] && grep -q 'anon_inode:\[perf_event\]' "/proc/$pp/maps" 2>/dev/null && break
		i=$((i + 1))
		sleep 0.1
	done
	t0=$(now)
	: > "$OUT/$1.rss"
	while kill -0 "$rp" 2>/dev/null; do
		r=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pp/status" 2>/dev/null || true)
		[ -n "$r" ] && echo "$(now) $t0 $r" | awk '{ printf "%.2f %d\n", $1 - $2, $3 }' >> "$OUT/$1.rss"
		sleep 1
	done
	wait "$rp" || true
	rp=
	kill "$wp" 2>/dev/null || true
	wait "$wp" 2>/dev/null || true
	wp=
	awk -v secs="$SECS" '
		FILENAME ~ /\.t$/ { cpu = $1 + $2; peak = $3; next }
		FILENAME ~ /\.err$/ {
			for (i = 1; i < NF; i++) {
				if ($i == "unwound") n = $(i + 1)
				if ($i == "cfi-refused") r = $(i + 1)
			}
			next
		}
		$1 >= 5 && $1 <= secs - 0.5 {
			if (t1 == "") { t1 = $1; r1 = $2 }
			t2 = $1; r2 = $2
		}
		END {
			g = (t2 > t1 && n > 0) ? (r2 - r1) * 1024 / ((t2 - t1) * n / secs) : -1
			printf "%d %d %.2f %d %.0f\n", n, peak, cpu, r, g
		}
	' "$OUT/$1.t" "$OUT/$1.err" "$OUT/$1.rss"
}

for mode in plain loop; do
	run "$mode" > "$OUT/$mode.fig"
	read -r n peak cpu refused g < "$OUT/$mode.fig"
	case $mode in
	plain) what="control (ordinary CFA)" ;;
	loop) what="looping CFA expression" ;;
	esac
	echo "rec-cfaloop $mode, $what, 999 Hz for $SECS s: $n samples, cfi-refused $refused"
	echo "  RSS growth $g bytes a sample in the window; peak RSS $((peak / 1024)).$((peak % 1024 * 10 / 1024)) MB; own CPU $cpu s"
done

read -r _ _ _ _ gp < "$OUT/plain.fig"
read -r _ _ _ _ gl < "$OUT/loop.fig"
if [ "$gp" -ge 0 ] && [ "$gl" -ge 0 ] && [ "$gl" -le $((gp * 11 / 10)) ]; then
	echo "met: the looping target's RSS growth a sample <= 1.1 times the control's ($gl against $gp bytes)"
else
	echo "MISSED: the looping target's RSS growth a sample <= 1.1 times the control's ($gl against $gp bytes)"
fi

#!/bin/sh
# bench/pf-fold.sh: pf-fold throughput and memory.
#
# Generates (under build/bench, never committed) a perf-script input of at
# least 100 MB by repeating the conformance captures of PF_SHARED_DIR
# (default: the shared directory beside the checkout) with the
# comm of every copy renamed (so each copy adds its own unique stacks) and
# every event called cpu-clock (so the default first-event filter keeps all
# samples).  Without them it repeats our own fixtures instead and says
# so.  Prints the throughput (best and spread of several runs) and the peak
# RSS for that input and for the same input read four times over (same
# unique stacks, 4x the bytes): streaming means the second RSS is about the
# same as the first.
set -eu
cd "$(dirname "$0")/.."
FOLD=${PF_BIN_DIR:-bin}/pf-fold
SHARED=${PF_SHARED_DIR:-../shared}
CONF=$SHARED/conformance/stackcollapse-perf/input
D=build/bench/pf-fold
RUNS=${BENCH_RUNS:-5}
mkdir -p "$D"

[ -x "$FOLD" ] || { echo "pf-fold bench: $FOLD not built" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "pf-fold bench: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }

# One copy of the source captures, event names unified.
src=$D/source.txt
if [ -d "$CONF" ]; then echo "source: $CONF (conformance captures)"; else
	echo "source: tests/bats/fixtures/fold/*.perf (no conformance captures at $CONF: our own fixtures)"
fi
if [ -d "$CONF" ]; then
	for f in "$CONF"/*; do
		case $f in
		*.gz) gzip -dc "$f" ;;
		*) cat "$f" ;;
		esac
		echo
	done
else
	for f in tests/bats/fixtures/fold/*.perf; do
		case $f in *malformed*) continue ;; esac
		cat "$f"
		echo
	done
fi | awk '/^[^ \t#]/ { sub(/[^ \t]+:[ \t]*$/, "cpu-clock: ") } { print }' >"$src.new"
# Keep the old copy (and so the generated input) when nothing changed.
if cmp -s "$src.new" "$src"; then rm -f "$src.new"; else mv "$src.new" "$src"; fi

# Copies until the input reaches 100 MB, with the comm renamed in 21 ways
# (as many as the conformance captures need copies), so the input has the
# unique stacks of 21 profiles whatever the source.
input=$D/input.txt
src_bytes=$(wc -c <"$src")
copies=$(( (100 * 1024 * 1024 + src_bytes - 1) / src_bytes ))
if [ ! -f "$input" ] || [ "$(wc -c <"$input")" -lt $((100 * 1024 * 1024)) ] ||
    [ -n "$(find "$src" -newer "$input")" ]; then
	awk -v n="$copies" '
		{ line[NR] = $0 }
		END {
			for (k = 1; k <= n; k++)
				for (i = 1; i <= NR; i++) {
					l = line[i]
					if (l ~ /^[^ \t#]/)
						sub(/^[^ \t]+/, "&~" ((k - 1) % 21 + 1), l)
					print l
				}
		}' "$src" >"$input"
fi
bytes=$(wc -c <"$input")
echo "input: $input, $bytes bytes, $copies renamed copies of $src_bytes bytes"

now_ns() { date +%s%N; }

# Throughput, best of RUNS (the file is in the page cache after the first).
# Wall-clock figures suffer when other jobs share the two CPUs; CPU time
# (user+sys, 10 ms resolution) does not, so both are printed.
"$FOLD" "$input" >"$D/out.folded"
echo "unique stacks: $(wc -l <"$D/out.folded")"
i=0
: >"$D/runs"
while [ $i -lt "$RUNS" ]; do
	t0=$(now_ns)
	/usr/bin/time -f "%U %S" -o "$D/cpu" "$FOLD" "$input" >/dev/null
	t1=$(now_ns)
	echo "$((t1 - t0)) $(cat "$D/cpu")" >>"$D/runs"
	i=$((i + 1))
done
awk -v b="$bytes" -v runs="$RUNS" '
	{ w = b / 1048576 / ($1 / 1e9); c = ($2 + $3) > 0 ? b / 1048576 / ($2 + $3) : 0
	  wall = wall sprintf(" %.0f", w); cpu = cpu sprintf(" %.0f", c)
	  if (w > wb) wb = w; if (wl == 0 || w < wl) wl = w
	  if (c > cb) cb = c; if (cl == 0 || c < cl) cl = c }
	END {
	  printf "pf-fold throughput (wall clock): best %.0f MB/s, worst %.0f MB/s over %d runs (MB/s:%s) target >= 400\n", wb, wl, runs, wall
	  printf "pf-fold throughput (CPU time):   best %.0f MB/s, worst %.0f MB/s (MB/s:%s)\n", cb, cl, cpu
	}' "$D/runs"

# Peak RSS: the input once, then four times over through a pipe.
rss1=$(/usr/bin/time -f %M "$FOLD" "$input" 2>&1 >/dev/null | tail -n 1)
rss4=$(cat "$input" "$input" "$input" "$input" |
	/usr/bin/time -f %M "$FOLD" 2>&1 >/dev/null | tail -n 1)
ratio=$(awk -v a="$rss1" -v b="$rss4" 'BEGIN { printf "%.3f", b / a }')
echo "pf-fold peak RSS: 1x input $rss1 KB, 4x input $rss4 KB, ratio $ratio (target < 1.10)"

# The Perl reference, only when it happens to be installed.
if command -v stackcollapse-perf.pl >/dev/null 2>&1; then
	t0=$(now_ns)
	stackcollapse-perf.pl "$input" >/dev/null
	t1=$(now_ns)
	awk -v b="$bytes" -v ns=$((t1 - t0)) \
	    'BEGIN { printf "stackcollapse-perf.pl throughput: %.1f MB/s\n", b / 1048576 / (ns / 1e9) }'
else
	echo "stackcollapse-perf.pl: not installed, no comparison"
fi

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
#
# Then a big program: clang++-14 -O2 compiling a C++ file of templates
# and <regex> (libLLVM and libclang-cpp: 100,000 symbols and more),
# recorded with -p for CSECS (8) s at 999 Hz (the compile takes longer):
# pf-record's CPU a sample and the time from the window's end to the
# last byte (bar: <= 2 s) and the share of its stacks that reach an
# entry frame (pf-record copies 65528 bytes of stack from a target; bar:
# >= 90%), beside perf record --call-graph dwarf,16384 -F 999 and perf
# script on the same compile for the same time.  With -p, not -- CMD: the CPU time of a command run
# under a tool counts in the tool's own.  REC=path/to/pf-record measures
# another build.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-1}
SECS=${SECS:-20}
CSECS=${CSECS:-8}
REC=${REC:-bin/pf-record}
OUT=build/bench/pf-record-dwarf
mkdir -p "$OUT"

if [ ! -x /usr/bin/time ] || ! command -v xz >/dev/null 2>&1; then
	echo "pf-record -g dwarf bench: skipped: needs /usr/bin/time (package time) and xz"
	exit 0
fi
if ! "$REC" -g dwarf -d 1 --min-free 0 -o "$OUT/probe.txt" --force -- true 2>/dev/null; then
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
	/usr/bin/time -f "%U %S %M" -o "$OUT/t" "$REC" -g dwarf -F 999 -d "$SECS" -p "$wp" \
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

# --- clang++-14 -O2, a big program ---
if ! command -v clang++-14 >/dev/null 2>&1; then
	echo "pf-record -g dwarf on clang++-14: skipped: clang++-14 not installed"
	exit 0
fi
# Seconds of work in libLLVM and libclang-cpp: more than CSECS here.
cat > "$OUT/big.cpp" <<'EOF'
#include <map>
#include <regex>
#include <string>
#include <vector>
#include <iostream>
template <int N> struct F { static int v() { std::map<std::string, std::vector<int>> m;
    m["a"].push_back(N); return F<N - 1>::v() + (int)m.size(); } };
template <> struct F<0> { static int v() { return 0; } };
int main() { std::regex r("a+b*"); std::cout << F<800>::v() << std::regex_match("aab", r) << std::endl; }
EOF
CLANG="clang++-14 -O2 -c -o $OUT/big.o $OUT/big.cpp"

# start_clang: the compile in the background, its pid in $wp.
start_clang() {
	# shellcheck disable=SC2086 # $CLANG is words
	$CLANG > /dev/null &
	wp=$!
	sleep 0.3
}

# pf-record: "cpu_s samples tail_s rss_kb stop incomplete"
cpf=$(for _ in $(seq "$RUNS"); do
	start_clang
	/usr/bin/time -f "%U %S %M" -o "$OUT/ct" "$REC" -g dwarf -F 999 -d "$CSECS" -p "$wp" \
	    --no-progress --stats --min-free 0 -o "$OUT/clang.txt" --force 2> "$OUT/cstats" || true
	stop_busy
	tail -n 1 "$OUT/clang.txt" > "$OUT/ctrailer"
	awk '
		FILENAME ~ /\/ct$/ { cpu = $1 + $2; rss = $3; next }
		FILENAME ~ /cstats$/ {
			for (i = 1; i < NF; i++) {
				if ($i == "unwound") n = $(i + 1)
				if ($i == "window-end-to-last-byte") { t = $(i + 1); sub(/s$/, "", t) }
			}
			next
		}
		{
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^stop=/) { stop = $i; sub(/stop=/, "", stop) }
				if ($i ~ /^incomplete=/) { inc = $i; sub(/incomplete=/, "", inc) }
			}
		}
		END { printf "%.3f %d %.3f %d %s %d\n", cpu, n, t, rss, stop, inc }
	' "$OUT/ct" "$OUT/cstats" "$OUT/ctrailer"
done)
# The run with the least CPU a sample, and the spread of the tails.
echo "$cpf" | awk '{ printf "%.1f %s\n", $2 ? 1e6 * $1 / $2 : 0, $0 }' | sort -n | head -n 1 > "$OUT/cbest"
read -r cus ccpu cn ctail crss cstop cinc < "$OUT/cbest"
ctails=$(echo "$cpf" | awk '{ print $3 }' | sort -n |
    awk 'NR == 1 { b = $1 } { w = $1 } END { printf "%.2f to %.2f", b, w }')
echo "pf-record -g dwarf, clang++-14 -O2, 999 Hz, $CSECS s: $cn samples, stop=$cstop"
echo "  own CPU $ccpu s, $cus us a sample; last byte $ctail s after the window" \
    "($ctails s over $RUNS runs); peak RSS $((crss / 1024)) MB"
ccomplete=$(echo "$cn $cinc" | awk '{ printf "%.1f", $1 ? 100 * ($1 - $2) / $1 : 0 }')
echo "  $ccomplete% of its stacks reach an entry frame ($cinc of $cn incomplete)"

cpc=
if command -v perf >/dev/null 2>&1; then
	# perf: "us_a_sample cpu_s samples rss_kb"
	cperf=$(for _ in $(seq "$RUNS"); do
		start_clang
		/usr/bin/time -f "%U %S %M" -o "$OUT/ct1" perf record -q -F 999 --call-graph dwarf,16384 \
		    -p "$wp" -o "$OUT/cperf.data" -- sleep "$CSECS" > /dev/null 2> "$OUT/cperf.err" || true
		stop_busy
		/usr/bin/time -f "%U %S %M" -o "$OUT/ct2" perf script -i "$OUT/cperf.data" \
		    > "$OUT/cperf.txt" 2>/dev/null || true
		n=$(grep -c ' cpu-clock' "$OUT/cperf.txt" || true)
		cat "$OUT/ct1" "$OUT/ct2" | awk -v n="$n" '
			$1 ~ /^[0-9.]+$/ { s += $1 + $2; if ($3 > m) m = $3 }
			END { printf "%.1f %.3f %d %d\n", n ? 1e6 * s / n : 0, s, n, m }'
	done)
	echo "$cperf" | sort -n | head -n 1 > "$OUT/cperfbest"
	read -r cpus cpc cpn cprss < "$OUT/cperfbest"
	echo "perf record --call-graph dwarf,16384 -F 999 + perf script, same compile and time: $cpn samples"
	echo "  CPU $cpc s, $cpus us a sample; peak RSS $((cprss / 1024)) MB"
else
	echo "perf not installed: no perf comparison"
fi
bar "$(echo "$ctail" | awk '{ if ($1 <= 2) print 1 }')" \
    "clang++: the last byte within 2 s of the window's end ($ctail s)"
bar "$(echo "$ccomplete" | awk '{ if ($1 >= 90) print 1 }')" \
    "clang++: >= 90% of the stacks reach an entry frame ($ccomplete%)"
if [ -n "$cpc" ]; then
	echo "clang++: pf-record's CPU a sample $cus us against perf's $cpus us, ratio" \
	    "$(echo "$cus $cpus" | awk '{ printf "%.2f", ($2 > 0) ? $1 / $2 : 99 }')"
fi

#!/bin/sh
# bench/pf-svg.sh: pf-svg throughput and peak memory on a large folded
# input (>= 100 MB, >= 100,000 distinct stacks), generated here under
# build/bench and never committed.  Prints each run, then the best and the
# spread: the machine is shared, so single figures are noisy.  CPU time
# (user + system) is printed too: it suffers less from other load.
#
#   PF_SVG_BENCH_RUNS=N   runs per input (default 3)
#   PF_SVG_BENCH_MB=N     size of the generated input in MB (default 110)
set -eu
cd "$(dirname "$0")/.."
bin=${PF_BIN_DIR:-bin}/pf-svg
runs=${PF_SVG_BENCH_RUNS:-3}
mb=${PF_SVG_BENCH_MB:-110}
dir=build/bench
in=$dir/pf-svg-${mb}M.folded
harsh=$dir/pf-svg-${mb}M-harsh.folded
shuf=$dir/pf-svg-${mb}M-shuffled.folded
mkdir -p "$dir"

# Stacks like a big C++ service's: depth 8-40, frame names of 15-45
# bytes from a pool of 20,000, a per-block worker frame so stacks stay
# distinct, counts 1-200.  Each stack keeps a prefix of the one before (as
# sorted pf-fold output does).  "leaf" walks diverge a few frames from
# the leaf, mostly (about 3.5 new frames per stack; real perf profiles in
# the conformance data of PF_SHARED_DIR have about 1.6); "harsh" walks diverge anywhere
# (about 10 new frames per stack: a worst case for the frame tree).
gen() {	# walk out
	[ -s "$2" ] && return 0
	echo "generating $2 (${mb} MB, $1 walk)"
	awk -v want=$((mb * 1000 * 1000)) -v walk="$1" 'BEGIN {
		srand(42)
		split("net io db cache http rpc json sql log auth", ns, " ")
		for (i = 0; i < 20000; i++)
			pool[i] = ns[i % 10 + 1] "::" substr("ServiceHandlerWorkerQueueBufferParserEncoder", 1 + (i * 7) % 30, 5 + i % 20) "::call_" i "(int)"
		d = 0
		while (bytes < want) {
			if (walk == "leaf" && rand() < 0.95) d -= 1 + int(-log(1 - rand()) * 2)
			else if (d > 6) d = 6 + int(rand() * (d - 5))
			if (d < 3) { st[0] = "app"; st[1] = "main"; st[2] = "worker_loop"; d = 3 }
			st[3] = "job_" int(n / 20); if (d < 4) d = 4
			target = 8 + int(rand() * 32)
			while (d < target) st[d++] = pool[int(rand() * rand() * 20000)]
			line = st[0]
			for (k = 1; k < d; k++) line = line ";" st[k]
			line = line " " (1 + int(rand() * 200))
			print line
			bytes += length(line) + 1
			n++
		}
	}' >"$2.tmp"
	mv "$2.tmp" "$2"
}
gen leaf "$in"
gen harsh "$harsh"
if [ ! -s "$shuf" ]; then
	# The same stacks in random order: no prefix shared with the line before.
	awk 'BEGIN { srand(7) } { printf "%08d\t%s\n", int(rand() * 99999999), $0 }' "$in" |
		LC_ALL=C sort -k1,1 | cut -f2- >"$shuf.tmp"
	mv "$shuf.tmp" "$shuf"
fi
bytes=$(wc -c <"$in")
lines=$(wc -l <"$in")
uniq=$(sed 's/ [0-9]*$//' "$in" | LC_ALL=C sort -u | wc -l)
echo "input: $bytes bytes, $lines lines, $uniq distinct stacks"

have_time=0
[ -x /usr/bin/time ] && have_time=1

run() {	# label file [options...]
	label=$1 file=$2
	shift 2
	best='' worst='' cbest='' rss_max=0 i=0
	while [ $i -lt "$runs" ]; do
		if [ $have_time -eq 1 ]; then
			/usr/bin/time -f '%e %M %U %S' -o "$dir/pf-svg.time" "$bin" "$@" "$file" >"$dir/pf-svg.out"
			read -r secs rss usr sys <"$dir/pf-svg.time"
			cpu=$(echo "$usr $sys" | awk '{ printf "%.2f", $1 + $2 }')
		else
			t0=$(date +%s.%N)
			"$bin" "$@" "$file" >"$dir/pf-svg.out"
			t1=$(date +%s.%N)
			secs=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
			rss=0
			cpu=$secs
		fi
		mbs=$(echo "$bytes $secs" | awk '{ printf "%.0f", ($2 > 0 ? $1 / $2 / 1e6 : 0) }')
		cmbs=$(echo "$bytes $cpu" | awk '{ printf "%.0f", ($2 > 0 ? $1 / $2 / 1e6 : 0) }')
		echo "  $label run $((i + 1)): ${secs} s wall (${mbs} MB/s), ${cpu} s CPU (${cmbs} MB/s), peak RSS $((rss / 1024)) MB"
		if [ -z "$best" ] || [ "$mbs" -gt "$best" ]; then best=$mbs; fi
		if [ -z "$worst" ] || [ "$mbs" -lt "$worst" ]; then worst=$mbs; fi
		if [ -z "$cbest" ] || [ "$cmbs" -gt "$cbest" ]; then cbest=$cmbs; fi
		[ "$rss" -gt "$rss_max" ] && rss_max=$rss
		i=$((i + 1))
	done
	frames=$(grep -c '^<[ga] data-s=' "$dir/pf-svg.out" || true)
	out=$(wc -c <"$dir/pf-svg.out")
	echo "pf-svg $label: best ${best} MB/s wall (spread ${worst}-${best}), best ${cbest} MB/s of CPU time, peak RSS $((rss_max / 1024)) MB, output $out bytes, $frames frames"
}

run "sorted input" "$in"
run "shuffled input" "$shuf"
run "sorted, --minwidth 0" "$in" --minwidth 0
run "harsh walk" "$harsh"
[ $have_time -eq 1 ] || echo "(peak RSS not measured: /usr/bin/time is not installed)"
echo "targets: >= 180 MB/s, <= 100 MB peak RSS"

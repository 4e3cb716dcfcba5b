#!/bin/sh
# bench/pf-classify.sh: pf-classify's own CPU time at the default 5 s
# interval, in percent of one CPU (target: under 1 %), for system mode
# and for PID mode on a 1-thread and a 200-thread process.  Each case runs
# three times; the figures are the best and the worst (the machine is
# shared).  CPU time comes from the CPU time (user+sys
# of the child, from getrusage via bash's `time`, in milliseconds).
set -eu
cd "$(dirname "$0")/.."
W=build/workloads
B=bin/pf-classify
IV=${PF_BENCH_INTERVAL:-5}

# cost ARGS...: one run, prints "cpu_seconds wall_seconds"
cost() {
	bash -c 'TIMEFORMAT="%3U %3S %3R"; time "$@" >/dev/null' bash "$@" 2>&1 >/dev/null |
	    awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }'
}

run_case() {	# run_case LABEL ARGS...
	label=$1
	shift
	best='' worst=''
	for _ in 1 2 3; do
		r=$(cost "$B" -i "$IV" "$@")
		pct=$(echo "$r" | awk '{ printf "%.3f", 100 * $1 / $2 }')
		best=$(awk -v a="$best" -v b="$pct" 'BEGIN { print (a == "" || b < a) ? b : a }')
		worst=$(awk -v a="$worst" -v b="$pct" 'BEGIN { print (a == "" || b > a) ? b : a }')
	done
	printf 'pf-classify %-22s cpu%%_of_one_cpu best %s worst %s (interval %ss, 3 runs)\n' \
	    "$label" "$best" "$worst" "$IV"
}

run_case "system" 
"$W/cls-sleeper" 10 60 & p=$!
sleep 0.3
run_case "pid 1-thread" -p "$p"
kill "$p" 2>/dev/null || true
wait "$p" 2>/dev/null || true
"$W/cls-sleeper" 100 60 200 & p=$!
sleep 0.3
run_case "pid 200-thread" -p "$p"
kill "$p" 2>/dev/null || true
wait "$p" 2>/dev/null || true

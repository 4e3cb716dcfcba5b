#!/bin/sh
# capture-proc.sh [-p PID] [-i SECONDS] OUTDIR
#
# Record what pf-classify reads over one interval, in the layout of
# `pf-classify --replay OUTDIR` (see pf-classify(1)):
#
#   OUTDIR/t0/proc/...  OUTDIR/t0/sys/...   the snapshot at the start
#   OUTDIR/samples/NN/proc/...              10 Hz state samples in between
#   OUTDIR/t1/proc/...  OUTDIR/t1/sys/...   the snapshot at the end
#   OUTDIR/interval  OUTDIR/pid  OUTDIR/clk_tck
#
# Only the files pf-classify uses are copied: /proc/{stat,vmstat},
# /proc/pressure/*, /proc/sys/kernel/task_delayacct, and for PID its
# stat/status/io/cgroup/schedstat, every thread's stat/status/schedstat/wchan,
# and its cgroup's cpu.stat, quota and pressure files (v1 cpu and v2).
# Files are copied with cat: /proc files report size 0.
set -eu

pid=
secs=2
while getopts p:i: o; do
	case $o in
	p) pid=$OPTARG ;;
	i) secs=$OPTARG ;;
	*) echo "usage: capture-proc.sh [-p PID] [-i SECONDS] OUTDIR" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: capture-proc.sh [-p PID] [-i SECONDS] OUTDIR" >&2; exit 2; }
out=$1
mkdir -p "$out"

cpf() {	# cpf SRC DST: copy one file if readable
	[ -r "$1" ] || return 0
	mkdir -p "$(dirname "$2")"
	cat "$1" >"$2" 2>/dev/null || rm -f "$2"
}

threads() {	# threads ROOT: copy task stat files (state samples)
	for t in /proc/"$pid"/task/*; do
		[ -d "$t" ] || continue
		cpf "$t/stat" "$1/proc/$pid/task/${t##*/}/stat"
	done
}

cgdirs() {	# cgdirs ROOT: the PID's cgroup files, v1 cpu and v2
	r=$1
	v1=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3; exit}' /proc/"$pid"/cgroup 2>/dev/null) || true
	v2=$(awk -F: '$1 == "0" {print $3; exit}' /proc/"$pid"/cgroup 2>/dev/null) || true
	for m in cpu cpu,cpuacct; do
		d=/sys/fs/cgroup/$m
		if [ ! -d "$d" ] || [ -z "$v1" ]; then continue; fi
		p=$v1
		while :; do
			for f in cpu.stat cpu.cfs_quota_us cpu.cfs_period_us; do
				cpf "$d$p/$f" "$r/sys/fs/cgroup/$m$p/$f"
			done
			[ "$p" = / ] || [ -z "$p" ] && break
			p=$(dirname "$p")
		done
		break
	done
	if [ -n "$v2" ]; then
		if [ -e /sys/fs/cgroup/cgroup.controllers ]; then d=/sys/fs/cgroup; s=fs/cgroup
		else d=/sys/fs/cgroup/unified; s=fs/cgroup/unified; fi
		[ -e /sys/fs/cgroup/cgroup.controllers ] && cpf /sys/fs/cgroup/cgroup.controllers "$r/sys/fs/cgroup/cgroup.controllers"
		for f in cpu.stat cpu.max cpu.pressure io.pressure memory.pressure; do
			cpf "$d$v2/$f" "$r/sys/$s$v2/$f"
		done
	fi
}

snapshot() {	# snapshot ROOT: everything pf-classify reads at t0/t1
	r=$1
	cpf /proc/stat "$r/proc/stat"
	cpf /proc/vmstat "$r/proc/vmstat"
	for f in cpu io memory; do cpf /proc/pressure/$f "$r/proc/pressure/$f"; done
	cpf /proc/sys/kernel/task_delayacct "$r/proc/sys/kernel/task_delayacct"
	[ -n "$pid" ] || return 0
	[ -d /proc/"$pid" ] || return 0
	for f in stat status io cgroup schedstat; do cpf /proc/"$pid"/$f "$r/proc/$pid/$f"; done
	for t in /proc/"$pid"/task/*; do
		[ -d "$t" ] || continue
		for f in stat status schedstat wchan; do cpf "$t/$f" "$r/proc/$pid/task/${t##*/}/$f"; done
	done
	cgdirs "$r"
}

now() { date +%s.%N; }

getconf CLK_TCK >"$out/clk_tck"
[ -z "$pid" ] || echo "$pid" >"$out/pid"
start=$(now)
snapshot "$out/t0"
stop=$(awk -v a="$start" -v s="$secs" 'BEGIN { printf "%.3f", a + s - 0.1 }')
i=1
while awk -v n="$(now)" -v s="$stop" 'BEGIN { exit !(n < s) }'; do
	sleep 0.1
	d=$out/samples/$(printf %03d "$i")
	cpf /proc/stat "$d/proc/stat"
	[ -z "$pid" ] || threads "$d"
	i=$((i + 1))
done
end=$(now)
snapshot "$out/t1"
awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }' >"$out/interval"

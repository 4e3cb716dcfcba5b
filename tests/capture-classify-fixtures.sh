#!/bin/sh
# capture-classify-fixtures.sh OUTDIR: re-record the pf-classify fixtures
# (tests/bats/fixtures/classify) on this machine, one directory per class,
# with tests/capture-proc.sh and the tests/workloads/cls-* programs
# (`make workloads` first).  Needs root for the cgroup quota case.  The
# MEMORY and STARVED_STEAL fixtures cannot be produced on a VM without
# swap or visible steal: make them by hand from captured ones, as
# fixtures/classify/README.md describes.  Load from other users of the
# machine lands in the captures: check each with pf-classify --replay and
# re-record the ones that came out as a neighbouring class.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
W=$here/../build/workloads
cap=$here/capture-proc.sh
out=${1:?usage: capture-classify-fixtures.sh OUTDIR}
mkdir -p "$out"
disk=${PF_DISK_DIR:-/var/tmp}

pidcase() {	# pidcase NAME CMD...: capture CMD's process for 2 s
	name=$1; shift
	"$@" & p=$!
	sleep 0.5
	rm -rf "${out:?}/$name"
	sh "$cap" -p "$p" -i 2 "$out/$name"
	kill "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}

pidcase pid-on-cpu-user "$W/cls-spin" 1 8
pidcase pid-on-cpu-kernel "$W/cls-syscall" 8
pidcase pid-off-cpu "$W/cls-sleeper" 10 8
pidcase pid-idle "$W/cls-sleeper" 1000 8
pidcase pid-mixed "$W/cls-duty" 50 8
pidcase pid-io-wait "$W/cls-fsync" "$disk/pf-capture.$$" 8
pidcase pid-cpu-bound-oversubscribed "$W/cls-spin" 3 8
pidcase pid-exited "$W/cls-sleeper" 10 1.2

# STARVED_CPU: two single-threaded spinners pinned to one CPU.
taskset -c 0 "$W/cls-spin" 1 8 & other=$!
pidcase pid-starved-cpu taskset -c 0 "$W/cls-spin" 1 8
wait "$other" || true

# STARVED_THROTTLED: a spinner in a 30 % quota (cgroup v1 cpu or v2).
cg=
if [ -w /sys/fs/cgroup/cpu ]; then
	cg=/sys/fs/cgroup/cpu/pf-capture.$$
	mkdir "$cg" && echo 30000 >"$cg/cpu.cfs_quota_us"
elif [ -w /sys/fs/cgroup/cgroup.subtree_control ]; then
	cg=/sys/fs/cgroup/pf-capture.$$
	echo +cpu >/sys/fs/cgroup/cgroup.subtree_control || true
	mkdir "$cg" && echo "30000 100000" >"$cg/cpu.max"
fi
if [ -n "$cg" ]; then
	"$W/cls-spin" 1 8 & p=$!
	echo "$p" >"$cg/cgroup.procs"
	sleep 0.5
	rm -rf "${out:?}/pid-starved-throttled"
	sh "$cap" -p "$p" -i 2 "$out/pid-starved-throttled"
	wait "$p" || true
	rmdir "$cg"
fi

# System mode.
syscase() {	# syscase NAME CMD...
	name=$1; shift
	"$@" & p=$!
	sleep 0.5
	rm -rf "${out:?}/$name"
	sh "$cap" -i 2 "$out/$name"
	kill "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}
syscase sys-low-utilisation sleep 8
syscase sys-cpu-saturated "$W/cls-spin" 3 8
syscase sys-io-wait "$W/cls-fsync" "$disk/pf-capture.$$" 8
# On a quiet machine these give the system ON_CPU and CPU_CONSTRAINED
# classes (the committed ones are hand-edited: see the fixtures README).
syscase sys-on-cpu-user "$W/cls-spin" 1 8
syscase sys-on-cpu-kernel "$W/cls-syscall" 8
taskset -c 0 "$W/cls-spin" 1 8 & other=$!
syscase sys-cpu-constrained taskset -c 0 "$W/cls-spin" 1 8
wait "$other" || true

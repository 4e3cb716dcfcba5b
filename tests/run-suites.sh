#!/bin/sh
# run-suites.sh: run pf's bats suites as `make check` and `make soak` do.
#
#   tests/run-suites.sh [-j JOBS] [-r ROUNDS] [-d "SUITE..."] [-l "SUITE..."]
#
# A suite is a name under tests/bats (NAME.bats).  First the deterministic
# suites (-d: files and fixtures, no sampling), JOBS files at a time
# (bats --jobs, which needs GNU parallel; each file's tests stay in
# order); then the live-sampling suites (-l) in one bats run, one test
# after another, ROUNDS times (default 1): they measure the machine, so
# nothing of ours runs beside them.  The live runs happen even when an
# earlier run failed.  BATS (default bats) and BATS_FLAGS (e.g.
# "--formatter tap") come from the environment; each run prints its own
# TAP plan.  Exits 1 when any run failed, 2 on a usage error.
#
# Two runs of the suites at once (CI's plain and sanitized passes) must
# never run the same suite at the same time: its tests name their
# processes and directories alike.  PF_SUITE_LOCKS=DIR runs each live
# suite alone under flock(1) on DIR/SUITE, and takes the first suite in
# the order given that the other run does not hold; it waits only when
# the other holds every suite it has left.  PF_SUITE_ORDER=reverse takes
# the live suites last to first.
set -u
set -f
BATS=${BATS:-bats}
BATS_FLAGS=${BATS_FLAGS-}
dir=$(dirname "$0")/bats

usage() {
	sed -n '2,16s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

jobs=2 rounds=1 det='' live=''
while getopts j:r:d:l: o; do
	case $o in
	j) jobs=$OPTARG ;;
	r) rounds=$OPTARG ;;
	d) det=$OPTARG ;;
	l) live=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $jobs$rounds in *[!0-9]*) usage ;; esac

# files "SUITE...": the suites' files, in the order given, on one line.
files() {
	out=
	for s in $1; do
		[ -f "$dir/$s.bats" ] || { echo "run-suites: no suite $dir/$s.bats" >&2; exit 2; }
		out="$out $dir/$s.bats"
	done
	echo "$out"
}
det_files=$(files "$det") || exit 2
live_files=$(files "$live") || exit 2

rc=0
if [ -n "$det_files" ]; then
	par=
	[ "$jobs" -gt 1 ] && par="--jobs $jobs --no-parallelize-within-files"
	echo "run-suites: deterministic:$det_files ($jobs at once)" >&2
	start=$(date +%s)
	# shellcheck disable=SC2086 # flags and file lists are split on purpose
	$BATS $BATS_FLAGS $par $det_files || rc=1
	echo "run-suites: deterministic: $([ $rc -eq 0 ] && echo ok || echo failed) in $(($(date +%s) - start)) s" >&2
fi
if [ "${PF_SUITE_ORDER:-}" = reverse ]; then
	rev=
	for f in $live_files; do rev="$f $rev"; done
	live_files=$rev
fi
locks=${PF_SUITE_LOCKS:-}
[ -z "$locks" ] || mkdir -p "$locks" || exit 2
# live_run: the live suites once, in one bats run, or one locked run each.
# A locked run tries each suite left, in order, without waiting (flock -n;
# exit 75 when another run holds it) and runs the first it gets; when the
# other run holds all of them, it looks again a second later.
live_run() {
	if [ -z "$locks" ]; then
		# shellcheck disable=SC2086 # flags and file lists are split on purpose
		$BATS $BATS_FLAGS $live_files
		return
	fi
	lr=0 left=$live_files
	while [ -n "$left" ]; do
		next='' ran=''
		for f in $left; do
			if [ -n "$ran" ]; then
				next="$next $f"
				continue
			fi
			n=${f##*/}
			# shellcheck disable=SC2086 # flags are split on purpose
			flock -n -E 75 "$locks/${n%.bats}" $BATS $BATS_FLAGS "$f"
			r=$?
			if [ "$r" -eq 75 ]; then
				next="$next $f"
				continue
			fi
			ran=$f
			[ "$r" -eq 0 ] || lr=1
		done
		left=$next
		[ -n "$ran" ] || sleep 1
	done
	return "$lr"
}
if [ -n "$live_files" ]; then
	round=1
	while [ "$round" -le "$rounds" ]; do
		echo "run-suites: live, round $round of $rounds:$live_files" >&2
		start=$(date +%s) r=0
		live_run || r=1
		echo "run-suites: live, round $round of $rounds: $([ $r -eq 0 ] && echo ok || echo failed) in $(($(date +%s) - start)) s" >&2
		[ $r -eq 0 ] || rc=1
		round=$((round + 1))
	done
fi
exit "$rc"

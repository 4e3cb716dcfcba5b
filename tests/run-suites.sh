#!/bin/sh
# run-suites.sh: run pf's bats suites as `make check` and `make soak` do.
#
#   tests/run-suites.sh [-j JOBS] [-L LANES] [-r ROUNDS] [-s LIST]
#                       [-d "SUITE..."] [-l "SUITE..."]
#
# A suite is a name under tests/bats (NAME.bats).  First the deterministic
# suites (-d: files and fixtures, no sampling), JOBS files at a time
# (bats --jobs, which needs GNU parallel; each file's tests stay in
# order); then the live-sampling suites (-l), ROUNDS times (default 1),
# in LANES lanes (default 1): each lane runs one suite at a time, its
# tests one after another, and prints the suite's output when it ends.
# -s LIST leaves out the live tests LIST names ("SUITE<TAB>TEST NAME"
# lines, # comments; CI's sanitizer pass, with tests/san-live.list, which
# tests/san-select.sh makes), and says how many.  The live runs happen
# even when an earlier run failed.  BATS (default bats) and BATS_FLAGS
# (e.g. "--formatter tap") come from the environment; each suite's run
# prints its own TAP plan.  Exits 1 when any run failed, 2 on a usage
# error.
#
# The live suites measure the machine: at most PF_LIVE_SLOTS (default
# LANES) run at once, counted over every run that shares PF_SUITE_LOCKS=DIR
# (CI's plain and sanitized passes), and none while a deterministic suite
# runs.  No suite runs twice at once (its tests name their processes and
# directories alike): a lane takes the first suite, in the order given,
# that no other lane or run holds.  PF_SUITE_ORDER=reverse takes the live
# suites last to first.
set -u
set -f
BATS=${BATS:-bats}
BATS_FLAGS=${BATS_FLAGS-}
dir=$(dirname "$0")/bats
# shellcheck source=tests/test-names.sh
. "$(dirname "$0")/test-names.sh"

usage() {
	sed -n '2,19s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

jobs=2 lanes=1 rounds=1 det='' live='' leave=''
while getopts j:L:r:s:d:l: o; do
	case $o in
	j) jobs=$OPTARG ;;
	L) lanes=$OPTARG ;;
	r) rounds=$OPTARG ;;
	s) leave=$OPTARG ;;
	d) det=$OPTARG ;;
	l) live=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $jobs$lanes$rounds in *[!0-9]*) usage ;; esac
[ "$lanes" -ge 1 ] || usage

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

# Our files; the locks: PF_SUITE_LOCKS's, shared with another run, or
# our own.
sel=$(mktemp -d "${TMPDIR:-/tmp}/pf-run-suites.XXXXXX") || exit 2
trap 'rm -rf "$sel"' EXIT
locks=${PF_SUITE_LOCKS:-$sel/locks}
mkdir -p "$locks" || exit 2

# The deterministic suites hold $locks/det shared; the live ones start
# once no run holds it (no deterministic suite runs beside a live one).
rc=0
if [ -n "$det_files" ]; then
	par=
	[ "$jobs" -gt 1 ] && par="--jobs $jobs --no-parallelize-within-files"
	echo "run-suites: deterministic:$det_files ($jobs at once)" >&2
	start=$(date +%s)
	# shellcheck disable=SC2086 # flags and file lists are split on purpose
	flock -s "$locks/det" $BATS $BATS_FLAGS $par $det_files || rc=1
	echo "run-suites: deterministic: $([ $rc -eq 0 ] && echo ok || echo failed) in $(($(date +%s) - start)) s" >&2
fi
# -s: each live suite's kept tests in $sel/SUITE.kept; a suite with none
# left is not run.
if [ -n "$leave" ] && [ -n "$live_files" ]; then
	[ -r "$leave" ] || { echo "run-suites: cannot read $leave" >&2; exit 2; }
	kept=0 out=0 files=
	for f in $live_files; do
		s=${f##*/}
		s=${s%.bats}
		awk -F '\t' -v s="$s" '!/^#/ && $1 == s { print $2 }' "$leave" > "$sel/out"
		test_names "$f" | grep -vxF -f "$sel/out" > "$sel/$s.kept"
		k=$(wc -l < "$sel/$s.kept")
		kept=$((kept + k))
		out=$((out + $(test_names "$f" | wc -l) - k))
		[ "$k" -eq 0 ] || files="$files $f"
	done
	live_files=$files
	echo "run-suites: $out live tests left out by $leave (the $kept kept run all their C)" >&2
fi
# run_file FILE [CMD...]: one live suite through bats (its kept tests only
# under -s), run by CMD (flock) when given.
run_file() {
	rf=$1
	shift
	filt=
	if [ -n "$leave" ]; then
		rs=${rf##*/}
		filt=$(test_regex < "$sel/${rs%.bats}.kept")
	fi
	if [ -n "$filt" ]; then
		# shellcheck disable=SC2086 # flags are split on purpose
		"$@" $BATS $BATS_FLAGS -f "$filt" "$rf"
	else
		# shellcheck disable=SC2086 # flags are split on purpose
		"$@" $BATS $BATS_FLAGS "$rf"
	fi
}
if [ "${PF_SUITE_ORDER:-}" = reverse ]; then
	rev=
	for f in $live_files; do rev="$f $rev"; done
	live_files=$rev
fi
slots=${PF_LIVE_SLOTS:-$lanes}
case $slots in ''|*[!0-9]*|0) echo "run-suites: PF_LIVE_SLOTS: not a count: $slots" >&2; exit 2 ;; esac

# lane ROUND: one lane of the live run.  It tries each suite left, in
# order, without waiting: a slot (one of PF_LIVE_SLOTS, shared by every
# run on the locks), then the suite's lock (flock -n; exit 75 when taken),
# then its claim for this round (exit 77 when a sibling lane has it).  It
# runs the first it gets, into files printed whole when it ends; when
# every suite left is taken, it looks again a second later.
lane() {
	lr=0 left=$live_files
	while [ -n "$left" ]; do
		next='' ran=''
		for f in $left; do
			if [ -n "$ran" ]; then
				next="$next $f"
				continue
			fi
			n=${f##*/}
			n=${n%.bats}
			c=$sel/round.$1/$n
			[ ! -d "$c" ] || continue
			i=1 r=75
			while [ "$i" -le "$slots" ] && [ "$r" -eq 75 ]; do
				# shellcheck disable=SC2016 # the inner sh expands them
				run_file "$f" flock -n -E 75 "$locks/slot.$i" flock -n -E 75 "$locks/$n" \
				    sh -c 'mkdir "$0" 2>/dev/null || exit 77
					date +%s >"$0/start"
					echo "run-suites: ${0##*/} started at $(date -u +%H:%M:%S)" >&2
					exec "$@" >"$0/out" 2>"$0/err"' "$c"
				r=$?
				i=$((i + 1))
			done
			case $r in
			75) next="$next $f" ;;
			77) ;;
			*)
				ran=$f
				[ "$r" -eq 0 ] || lr=1
				# shellcheck disable=SC2016 # the inner sh expands them
				flock "$sel/print" sh -c 'cat "$0/out"; cat "$0/err" >&2
					echo "run-suites: ${0##*/} $1 in $(($(date +%s) - $(cat "$0/start"))) s, at $(date -u +%H:%M:%S)" >&2' \
				    "$c" "$([ "$r" -eq 0 ] && echo ok || echo failed)"
				;;
			esac
		done
		left=$next
		[ -n "$ran" ] || sleep 1
	done
	return "$lr"
}
# live_run ROUND: the live suites once, in one bats run (one lane, no
# locks, nothing left out) or in LANES lanes.
live_run() {
	if [ "$lanes" -eq 1 ] && [ -z "${PF_SUITE_LOCKS:-}" ] && [ -z "$leave" ]; then
		# shellcheck disable=SC2086 # flags and file lists are split on purpose
		$BATS $BATS_FLAGS $live_files
		return
	fi
	mkdir -p "$sel/round.$1" || return 1
	lr=0 k=1 pids=
	while [ "$k" -le "$lanes" ]; do
		lane "$1" &
		pids="$pids $!"
		k=$((k + 1))
	done
	for p in $pids; do
		wait "$p" || lr=1
	done
	return "$lr"
}
if [ -n "$live_files" ]; then
	flock -x "$locks/det" true
	round=1
	while [ "$round" -le "$rounds" ]; do
		echo "run-suites: live, round $round of $rounds:$live_files" >&2
		start=$(date +%s) r=0
		live_run "$round" || r=1
		echo "run-suites: live, round $round of $rounds: $([ $r -eq 0 ] && echo ok || echo failed) in $(($(date +%s) - start)) s" >&2
		[ $r -eq 0 ] || rc=1
		round=$((round + 1))
	done
fi
exit "$rc"

#!/bin/sh
# san-select.sh: which live tests the sanitizer pass of CI leaves out,
# because every line of C they run is run by the tests it keeps.
#
#   tests/san-select.sh [-o LIST] [-d "SUITE..."] SUITE...  (make san-select)
#
# Run as root from a checkout built with `make all units COVERAGE=1`
# (gcov's counters; build/cov/tools; the tests run the runbooks on those
# too, PF_SCRIPTS in tests/bats/test_helper.bash), in a path that nobody
# can traverse (some tests run the tools as nobody, and their counters
# must be written).  Each test of each SUITE (tests/bats/SUITE.bats) runs
# alone, and the lines of C it ran (lib/common, bin, tests/unit; counted
# by source line, whichever binary ran it) are kept.  Then, greedily, the
# test that adds the most lines not yet covered for each second it took
# is kept, until the kept tests cover every line that any test covered.
# The deterministic suites (-d), which the sanitizer pass runs whole, run
# first, together: the lines they run count as covered before any live
# test is chosen.
# The others are written to LIST (default tests/san-live.list), one
# "SUITE<TAB>TEST NAME" a line, with what the choice was made from.
#
# The sanitizer pass (tests/run-suites.sh -s LIST) runs every test but
# those: the same C, every line of it, under ASan and UBSan, in less
# time.  A test not in the list (a new one, a renamed one) runs there;
# the plain pass runs every test whatever the list says.  Coverage of a
# live test can vary with timing; a line seen in one run only is still
# kept by the tests that saw it in this one.  Exit 2 on a usage error,
# 1 when the coverage build is missing.
set -u
set -f
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)
list=tests/san-live.list det=
while getopts o:d: o; do
	case $o in
	o) list=$OPTARG ;;
	d) det=$OPTARG ;;
	*) sed -n '2,28s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { sed -n '2,28s/^# \{0,1\}//p' "$0" >&2; exit 2; }
[ -x build/cov/tools/pf-record ] || { echo "san-select: no coverage build: make all units COVERAGE=1" >&2; exit 1; }

# Each test's lines and TAP are kept in build/san-select.
work=$root/build/san-select
rm -rf "$work" && mkdir -p "$work" || exit 1
# zero: every counter file empty and writable by all, so that the tools
# run as nobody add their counts too (libgcov takes an empty file as no
# counts yet; the tests' own files keep the usual umask).
zero() {
	find build/cov -name '*.gcno' | while IFS= read -r o; do
		: > "${o%.gcno}.gcda" && chmod 666 "${o%.gcno}.gcda"
	done
}

# lines: the lines of C that ran since zero, "SOURCE:LINE" sorted.  For
# each .gcda, gcov's annotated source on stdout; a line with a count ran
# ("-" is no code, "#####" code that did not run).
lines() {
	find build/cov -name '*.gcda' -size +0 | while IFS= read -r g; do
		gcov -t "$g" 2>/dev/null
	done | awk '
		/^ *-: *0:Source:/ { sub(/.*Source:/, ""); src = $0; next }
		{ c = $1; sub(/:$/, "", c) }
		c ~ /^[0-9]+\*?$/ { split($0, a, ":"); print src ":" (a[2] + 0) }' | sort -u
}

# shellcheck source=tests/test-names.sh
. tests/test-names.sh

# The deterministic suites, together: test "0", always kept.
: > "$work/0.lines"
if [ -n "$det" ]; then
	zero
	files=
	for s in $det; do
		[ -f "tests/bats/$s.bats" ] || { echo "san-select: no suite tests/bats/$s.bats" >&2; exit 2; }
		files="$files tests/bats/$s.bats"
	done
	# shellcheck disable=SC2086 # the file list is split on purpose
	PF_BIN_DIR=$root/build/cov/tools PF_UNIT_DIR=$root/build/cov/unit \
	    bats $files > "$work/0.tap" 2>&1 </dev/null
	lines > "$work/0.lines"
	echo "san-select: the deterministic suites ($det): $(wc -l < "$work/0.lines") lines" >&2
fi

n=0
for s in "$@"; do
	f=tests/bats/$s.bats
	[ -f "$f" ] || { echo "san-select: no suite $f" >&2; exit 2; }
	test_names "$f" > "$work/names"
	while IFS= read -r t; do
		n=$((n + 1))
		zero
		start=$(date +%s%N)
		PF_BIN_DIR=$root/build/cov/tools PF_UNIT_DIR=$root/build/cov/unit \
		    bats -f "$(printf '%s\n' "$t" | test_regex)" "$f" > "$work/$n.tap" 2>&1 </dev/null
		ms=$(( ($(date +%s%N) - start) / 1000000 ))
		grep -q '^ok 1 \|^not ok 1 ' "$work/$n.tap" ||
			{ echo "san-select: $s: no test ran for: $t" >&2; exit 1; }
		lines > "$work/$n.lines"
		printf '%s\t%s\t%s\t%s\n' "$n" "$ms" "$s" "$t" >> "$work/tests"
		printf 'san-select: %s: %s ms, %s lines: %s\n' "$s" "$ms" \
		    "$(wc -l < "$work/$n.lines")" "$t" >&2
	done < "$work/names"
done

# The greedy cover, by lines added per second; what is left out is listed.
awk -F '\t' -v dir="$work" '
	{ id[NR] = $1; ms[$1] = $2 < 100 ? 100 : $2; suite[$1] = $3; name[$1] = $4 }
	END {
		for (i = 1; i <= NR; i++) {
			f = dir "/" id[i] ".lines"
			while ((getline l < f) > 0) { lines[id[i]] = lines[id[i]] " " l
				if (!(l in all)) { all[l] = 1; total++ } }
			close(f)
		}
		# What the deterministic suites run is covered already.
		f = dir "/0.lines"
		covered = 0
		while ((getline l < f) > 0) {
			ndet++
			if (!(l in done)) { done[l] = 1; covered++ }
			if (!(l in all)) { all[l] = 1; total++ }
		}
		close(f)
		while (covered < total) {
			best = ""; bestv = -1
			for (i = 1; i <= NR; i++) {
				t = id[i]
				if (t in kept) continue
				k = split(lines[t], ls, " "); add = 0
				for (j = 1; j <= k; j++) if (!(ls[j] in done)) add++
				v = add / ms[t]
				if (add > 0 && v > bestv) { bestv = v; best = t }
			}
			if (best == "") break
			kept[best] = 1
			k = split(lines[best], ls, " ")
			for (j = 1; j <= k; j++) if (!(ls[j] in done)) { done[ls[j]] = 1; covered++ }
		}
		nk = 0; tk = 0; tl = 0
		for (i = 1; i <= NR; i++) {
			t = id[i]
			if (t in kept) { nk++; tk += ms[t] } else { tl += ms[t]; out[++no] = suite[t] "\t" name[t] }
		}
		printf "# %d of %d live tests kept (%.0f s), %d left out (%.0f s); %d lines of C covered by either, %d of them by the deterministic suites\n", \
		    nk, NR, tk / 1000, no, tl / 1000, total, ndet
		for (i = 1; i <= no; i++) print out[i]
	}' "$work/tests" > "$work/result"

{
	echo "# tests/san-live.list: the live tests the sanitizer pass of CI leaves"
	echo "# out (tests/run-suites.sh -s), because the tests it keeps run every line"
	echo "# of C these run.  Made by tests/san-select.sh (make san-select) on"
	echo "# $(date -u +%Y-%m-%d), at $(git rev-parse --short HEAD 2>/dev/null || echo '?'), suites: $*;"
	echo "# deterministic suites run first: ${det:-none}."
	echo "# The plain pass (make check) runs every test whatever this says."
	cat "$work/result"
} > "$list"
head -n 6 "$list" | tail -n 1 >&2
echo "san-select: wrote $list" >&2

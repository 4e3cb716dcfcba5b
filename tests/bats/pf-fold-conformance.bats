#!/usr/bin/env bats
# pf-fold against stackcollapse-perf.pl's own output: every case of
# $SHARED_DIR/conformance/stackcollapse-perf (input/X.txt[.gz] folded with
# option opt must equal expected/X.opt.folded byte for byte).  The data
# belongs to another project and is read in place, never copied here; the
# suite skips with a reason where it is absent.

load test_helper

CONF="$SHARED_DIR/conformance/stackcollapse-perf"

setup() {
	[ -d "$CONF/expected" ] ||
		skip "conformance data not found at $CONF (set PF_SHARED_DIR)"
}

# input_for NAME: the path of input NAME, decompressed into the test's
# temporary directory when it is only there gzipped.
input_for() {
	if [ -f "$CONF/input/$1.txt" ]; then
		echo "$CONF/input/$1.txt"
	elif [ -f "$CONF/input/$1.txt.gz" ]; then
		gzip -dc "$CONF/input/$1.txt.gz" >"$BATS_TEST_TMPDIR/$1.txt"
		echo "$BATS_TEST_TMPDIR/$1.txt"
	else
		return 1
	fi
}

@test "every expected file of stackcollapse-perf.pl is matched byte for byte, under two hash seeds" {
	local e base name opt in n=0 bad='' seed
	# The tables' hash is seeded (lib/common/hash.h): no output may follow it.
	for seed in 1 2; do
		export PF_HASH_SEED=$seed
		for e in "$CONF"/expected/*.folded; do
			base=${e##*/}
			base=${base%.folded}
			name=${base%.*}
			opt=${base##*.}
			in=$(input_for "$name") || fail "$name: no input for $e"
			if [ "$opt" = default ]; then
				pf-fold "$in" >"$BATS_TEST_TMPDIR/out" 2>/dev/null || fail "$name $opt: exit $?"
			else
				pf-fold "--$opt" "$in" >"$BATS_TEST_TMPDIR/out" 2>/dev/null || fail "$name $opt: exit $?"
			fi
			cmp -s "$BATS_TEST_TMPDIR/out" "$e" || bad="$bad $name.$opt(seed $seed)"
			n=$((n + 1))
		done
	done
	[ -z "$bad" ] || fail "differ from the Perl output:$bad"
	# 13 captures x 7 option sets + example-perf-stacks x 2, twice.
	[ "$n" -eq 186 ] || fail "ran $n cases, expected 186"
}

@test "the conformance inputs fold without a malformed-line warning" {
	local f name
	for f in "$CONF"/input/*; do
		name=${f##*/}
		name=${name%.gz}
		name=${name%.txt}
		run --separate-stderr pf-fold --strict "$(input_for "$name")"
		[ "$status" -eq 0 ] || fail "$name: status $status: $stderr"
	done
}

@test "reading from stdin gives the same bytes as reading the file" {
	local in
	in=$(input_for example-perf-stacks)
	pf-fold --all <"$in" >"$BATS_TEST_TMPDIR/out"
	cmp "$BATS_TEST_TMPDIR/out" "$CONF/expected/example-perf-stacks.all.folded"
}

@test "a capture with two event types keeps the first and says so" {
	run --separate-stderr pf-fold "$(input_for perf-cycles-instructions-01)"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"kept only events of type 'instructions'"* ]]
}

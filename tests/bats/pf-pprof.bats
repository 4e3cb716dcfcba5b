#!/usr/bin/env bats
# pf-fold --pprof: the profile pprof reads, checked with pprof itself
# (go tool pprof, from Debian's golang-go): the designed shares of a
# 60/25/15 workload, the value types, labels, mappings and comments.

load test_helper

SPLIT="$WORKLOADS/pprof-split"

setup() {
	# pprof keeps its state under $HOME; the suite's own directory.
	export HOME="$BATS_TEST_TMPDIR" GOCACHE="$BATS_TEST_TMPDIR/gocache"
}

# require_go: skip, saying so, when there is no go to run pprof.
require_go() {
	command -v go >/dev/null 2>&1 ||
		skip "go not installed (scripts/install-deps --test installs golang-go)"
}

# pprof ARGS...: go tool pprof, its diagnostics kept apart.
pprof() {
	go tool pprof "$@" 2>"$BATS_TEST_TMPDIR/pprof.err"
}

# cum_share TOP FUNC: FUNC's cum% in the -top output TOP (0 if absent).
cum_share() {
	awk -v f="$2" '$NF == f { s = $5; sub(/%/, "", s) } END { print s + 0 }' "$1"
}

# A stream in the pf-offcpu shape: two threads, two blocked intervals.
offcpu_stream() {
	cat <<'END'
# pf-offcpu 1 host=web1 kernel=6.1.0 target=pid:4242 event=offcpu-time unit=ns callgraph=fp preempted=excluded min-block=1us max-block=none kernel-symbols=yes start=2026-12-02T11:00:00Z
# pf-offcpu: caps duration=10s max-size=67108864 min-free=1073741824 rate-cap=50000/s rings=2x256 pages fds=2
app  4242/4243  [001]   262.240843:   30000000 offcpu-time:
	ffffffff82266273 schedule+0x23 ([kernel.kallsyms])
	            1267 wait_disk+0x27 (/opt/app/bin/app)
	           2724a [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)

app worker  4242/4244  [000]   262.250843:   10000000 offcpu-time:
	ffffffff82266273 schedule+0x23 ([kernel.kallsyms])
	            1300 wait_lock+0x1 (/opt/app/bin/app)

# pf-offcpu: samples=2 lost=0 throttled=0 stop=duration bytes=900
END
}

@test "go tool pprof reads a recording of the 60/25/15 workload with its designed shares" {
	require_go
	require_perf_events
	[ -x "$SPLIT" ] || fail "$SPLIT not built: run make"
	local rec="$BATS_TEST_TMPDIR/rec.txt" top="$BATS_TEST_TMPDIR/top.txt" f want got bad=()
	run "${FAVOURED[@]}" pf-record -F 499 -d 10 -o "$rec" -- "$SPLIT" 4
	assert_success
	pf-fold --pprof "$rec" >"$BATS_TEST_TMPDIR/cpu.pb"
	pprof -top -nodecount=100 "$BATS_TEST_TMPDIR/cpu.pb" >"$top" ||
		fail "pprof refused the profile: $(cat "$BATS_TEST_TMPDIR/pprof.err")"
	grep -q '^Type: cpu$' "$top" || fail "not a cpu profile: $(head -n 8 "$top")"
	for f in pp_sixty:60 pp_quarter:25 pp_fifteen:15; do
		want=${f#*:}
		got=$(cum_share "$top" "${f%%:*}")
		awk -v g="$got" -v w="$want" 'BEGIN { exit !(g >= w - 7 && g <= w + 7) }' ||
			bad+=("${f%%:*}: $got%, want $want% +-7")
	done
	[ "${#bad[@]}" -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}" "" "$(cat "$top")")"
}

@test "frames of inlined functions become lines of their caller's location, which pprof shows as inline" {
	require_go
	require_perf_events
	local inl="$WORKLOADS/nofp-inline"
	[ -x "$inl" ] || fail "$inl not built: run make"
	run "${FAVOURED[@]}" pf-record -g dwarf -F 199 -d 10 -o "$BATS_TEST_TMPDIR/inl.txt" -- "$inl" 2
	assert_success
	grep -q '(inlined)$' "$BATS_TEST_TMPDIR/inl.txt" ||
		fail "pf-record printed no inlined frames: nothing to check"
	pf-fold --pprof "$BATS_TEST_TMPDIR/inl.txt" >"$BATS_TEST_TMPDIR/inl.pb"
	run pprof -top "$BATS_TEST_TMPDIR/inl.pb"
	assert_success
	assert_output --regexp ' inl_spin \(inline\)'
	# One location carries inl_spin and then inl_outer, the function it was inlined into.
	pprof -raw "$BATS_TEST_TMPDIR/inl.pb" | grep -A1 -E '^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ inl_spin ' |
		grep -qE '^ +inl_outer ' || fail "no location of inl_spin inlined into inl_outer"
}

@test "off-CPU samples weigh blocked nanoseconds, with labels, mappings and the header as comments" {
	require_go
	local raw="$BATS_TEST_TMPDIR/raw.txt"
	offcpu_stream | pf-fold --pprof >"$BATS_TEST_TMPDIR/off.pb"
	pprof -raw "$BATS_TEST_TMPDIR/off.pb" >"$raw" ||
		fail "pprof refused the profile: $(cat "$BATS_TEST_TMPDIR/pprof.err")"
	# Both value types with their units, the second the default.
	grep -qx 'samples/count offcpu/nanoseconds\[dflt\]' "$raw" || fail "$(cat "$raw")"
	# Each sample: its count, its weight, its locations, its labels.
	grep -qE '^ +1 +30000000: [0-9 ]+$' "$raw" || fail "no sample of 30 ms: $(cat "$raw")"
	grep -qE '^ +1 +10000000: [0-9 ]+$' "$raw" || fail "no sample of 10 ms: $(cat "$raw")"
	grep -q 'comm:\[app worker\]' "$raw" || fail "comm with a space lost: $(cat "$raw")"
	grep -q 'pid:\[4242\] tid:\[4244\]' "$raw" || fail "pid/tid labels: $(cat "$raw")"
	grep -q '/opt/app/bin/app' "$raw" || fail "no mapping of the program: $(cat "$raw")"
	grep -q 'libc.so.6' "$raw" || fail "no mapping of libc: $(cat "$raw")"
	grep -qx 'Comment: pf-offcpu 1 host=web1 .* start=2026-12-02T11:00:00Z' "$raw" ||
		fail "header not a comment: $(cat "$raw")"
	grep -q '^Duration: 10s' "$raw" || fail "the window is not the duration: $(cat "$raw")"
	run pprof -top "$BATS_TEST_TMPDIR/off.pb"
	assert_success
	assert_output --regexp 'Type: offcpu'
	# The program, not the kernel its first frame is in, names the profile.
	assert_line 'File: app'
	assert_output --regexp '30ms +75(\.0+)?% .* wait_disk'
	assert_output --regexp '\[libc\.so\.6\]'
}

@test "--pprof keeps the filters and only the samples they pass" {
	require_go
	offcpu_stream | pf-fold --pprof --filter-comm 'app worker' >"$BATS_TEST_TMPDIR/f.pb"
	run pprof -top "$BATS_TEST_TMPDIR/f.pb"
	assert_success
	assert_output --regexp 'wait_lock'
	refute_output --regexp 'wait_disk'
}

@test "--pprof refuses folded input, folded-name options and a terminal" {
	run --separate-stderr pf-fold --pprof --folded /dev/null
	assert_failure 2
	[[ "${stderr_lines[0]}" == "pf-fold: --pprof reads a sample stream, not folded stacks" ]]
	run --separate-stderr pf-fold --pprof --kernel /dev/null
	assert_failure 2
	[[ "${stderr_lines[0]}" == "pf-fold: --pprof: --kernel shapes folded names"* ]]
	require_cmd script
	run script -qec "pf-fold --pprof /dev/null" /dev/null
	assert_failure 2
	assert_output --partial "the profile is binary: redirect it to a file"
}

@test "--pprof of an empty stream is a valid profile with no samples" {
	require_go
	pf-fold --pprof </dev/null >"$BATS_TEST_TMPDIR/e.pb"
	[ -s "$BATS_TEST_TMPDIR/e.pb" ]
	run pprof -raw "$BATS_TEST_TMPDIR/e.pb"
	assert_success
}

# raw_total RAW: the summed second value of the samples in pprof -raw text.
raw_total() {
	awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
	on && /^ +[0-9]+ +[0-9]+:/ { s += $2 } END { print s + 0 }' "$1"
}

@test "every pf-fold fixture weighs the same in its profile as in its folded stacks" {
	require_go
	local f a b bad=()
	for f in "$FIXTURES"/fold/*.perf; do
		a=$(pf-fold "$f" 2>/dev/null | awk '{ s += $NF } END { print s + 0 }')
		pf-fold --pprof "$f" >"$BATS_TEST_TMPDIR/x.pb" 2>"$BATS_TEST_TMPDIR/fold.err"
		pprof -raw "$BATS_TEST_TMPDIR/x.pb" >"$BATS_TEST_TMPDIR/raw" ||
			{ bad+=("${f##*/}: pprof refused it: $(cat "$BATS_TEST_TMPDIR/pprof.err")"); continue; }
		b=$(raw_total "$BATS_TEST_TMPDIR/raw")
		[ "$a" = "$b" ] || bad+=("${f##*/}: folded $a, profile $b $(grep pprof "$BATS_TEST_TMPDIR/fold.err" || true)")
	done
	[ "${#bad[@]}" -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

@test "--pprof survives hostile streams and refuses weights past 2^63 instead of wrapping" {
	local i words
	words=$(printf 'w%d ' $(seq 100))
	{
		printf 'app %s 10/11 [000] 1.000000: 5 cpu-clock:\n' "$words"
		printf '\tffffffffffffffffffffffffffffffffffff sym+0x (dso)\n'
		printf '\t1 ((((((( (\n'
		printf '\t2 )))))))\n'
		printf '\t3 f (a (b (c (deleted))))\n'
		printf '\t4 +0x1 ()\n'
		printf '\t5 [unknown] (/)\n'
		printf '\t6 x (inlined)\n'
		printf '\n'
		printf 'app 10/11 [000] 2.000000: 7 cpu-clock:\n'
		printf '\t7 y (inlined)\n'
		printf '\n'
	} >"$BATS_TEST_TMPDIR/odd.perf"
	run pf-fold --pprof "$BATS_TEST_TMPDIR/odd.perf"
	assert_success
	# Random text after a real sample reaches the line reader; pf-fold
	# refuses input with a NUL byte as binary before any parsing.
	for i in 1 2 3 4 5 6 7 8; do
		{
			printf 'a 1/1 [000] 1.000000: 1 cpu-clock:\n\t1 f (m)\n\n'
			head -c 65536 /dev/urandom | tr -d '\000'
		} >"$BATS_TEST_TMPDIR/rand.$i"
		run pf-fold --pprof "$BATS_TEST_TMPDIR/rand.$i"
		[ "$status" -eq 0 ] || fail "random input $i: status $status: ${lines[*]: -3}"
	done
	head -c 65536 /dev/urandom >"$BATS_TEST_TMPDIR/rand.bin"
	printf '\0' >>"$BATS_TEST_TMPDIR/rand.bin"
	run --separate-stderr pf-fold --pprof "$BATS_TEST_TMPDIR/rand.bin"
	[ "$status" -eq 3 ] || fail "binary input: status $status"
	[[ "$stderr" == *"binary input (a NUL byte)"* ]] || fail "binary input: $stderr"
	if command -v go >/dev/null 2>&1; then
		pf-fold --pprof "$BATS_TEST_TMPDIR/odd.perf" >"$BATS_TEST_TMPDIR/odd.pb"
		pprof -raw "$BATS_TEST_TMPDIR/odd.pb" >/dev/null ||
			fail "pprof refused the profile: $(cat "$BATS_TEST_TMPDIR/pprof.err")"
	fi
	printf 'a 1/1 [000] 1.000000: %s cpu-clock:\n\t1 f (m)\n\n' 9223372036854775807 1 \
		>"$BATS_TEST_TMPDIR/big.perf"
	run --separate-stderr pf-fold --pprof "$BATS_TEST_TMPDIR/big.perf"
	assert_failure 3
	[[ "$stderr" == *"--pprof: total weight overflows 63 bits"* ]] || fail "$stderr"
}

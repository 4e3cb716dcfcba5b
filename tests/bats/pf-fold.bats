#!/usr/bin/env bats
# pf-fold: stackcollapse-perf.pl's rules, the deliberate improvements and
# the extras, each proved on small hand-written fixtures
# (tests/bats/fixtures/fold/).  pf-fold-conformance.bats checks the same
# rules against the Perl script's own outputs when PF_SHARED_DIR has them.

load test_helper

F="$FIXTURES/fold"

# fold ARGS...: run pf-fold with stdout and stderr apart.
fold() {
	run --separate-stderr pf-fold "$@"
}

# --- reading the sample stream -------------------------------------------

@test "samples are folded root first, weighted by period, summed and sorted byte-wise" {
	fold "$F/basic.perf"
	[ "$status" -eq 0 ]
	assert_output "batch;main;crunch 1000000
web_server;[unknown];worker;[libc.so.6] 2000000
web_server;__libc_start_main;main;handle_request 2000000"
	[ -z "$stderr" ]
}

@test "the output ends with a newline and has nothing else" {
	pf-fold "$F/basic.perf" >"$BATS_TEST_TMPDIR/out"
	printf 'batch;main;crunch 1000000\nweb_server;[unknown];worker;[libc.so.6] 2000000\nweb_server;__libc_start_main;main;handle_request 2000000\n' >"$BATS_TEST_TMPDIR/want"
	cmp "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/want"
}

@test "stdin is read when no file is named, and for -" {
	local want
	want=$(pf-fold "$F/basic.perf")
	run --separate-stderr pf-fold <"$F/basic.perf"
	[ "$status" -eq 0 ]
	assert_output "$want"
	run --separate-stderr pf-fold - <"$F/basic.perf"
	[ "$status" -eq 0 ]
	assert_output "$want"
}

@test "several inputs are folded into one output" {
	fold "$F/basic.perf" "$F/basic.perf"
	[ "$status" -eq 0 ]
	assert_output "batch;main;crunch 2000000
web_server;[unknown];worker;[libc.so.6] 4000000
web_server;__libc_start_main;main;handle_request 4000000"
}

@test "an empty input gives an empty output and exit 0" {
	run --separate-stderr pf-fold </dev/null
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "sorting is by bytes, not by locale" {
	printf 'Zed 1 1.0: 1 cpu-clock: \n\t1 f (/x)\n\nabc 1 1.0: 1 cpu-clock: \n\t1 f (/x)\n\n_u 1 1.0: 1 cpu-clock: \n\t1 f (/x)\n\n' >"$BATS_TEST_TMPDIR/in"
	LC_ALL=en_US.UTF-8 run --separate-stderr pf-fold "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	assert_output "Zed;f 1
_u;f 1
abc;f 1"
}

# --- stackcollapse-perf.pl's options -------------------------------------

@test "--pid names the root frame comm-PID, with ? when perf printed only a TID" {
	fold --pid "$F/basic.perf"
	[ "$status" -eq 0 ]
	assert_output "batch-?;main;crunch 1000000
web_server-4242;[unknown];worker;[libc.so.6] 2000000
web_server-4242;__libc_start_main;main;handle_request 2000000"
}

@test "--tid names the root frame comm-PID/TID and wins over --pid" {
	local want="batch-?/977;main;crunch 1000000
web_server-4242/4243;__libc_start_main;main;handle_request 2000000
web_server-4242/4244;[unknown];worker;[libc.so.6] 2000000"
	fold --tid "$F/basic.perf"
	[ "$status" -eq 0 ]
	assert_output "$want"
	fold --pid --tid "$F/basic.perf"
	assert_output "$want"
}

@test "--addrs writes unknown symbols as [module <address>]" {
	fold --addrs "$F/basic.perf"
	[ "$status" -eq 0 ]
	assert_output "batch;main;crunch 1000000
web_server;[unknown <0>];worker;[libc.so.6 <7f0a1b2c0000>] 2000000
web_server;__libc_start_main;main;handle_request 2000000"
}

@test "without annotation options kernel and JIT frames are left plain" {
	fold "$F/kernel.perf"
	[ "$status" -eq 0 ]
	assert_output "app;main;tagged_[j];compiled_loop;Interpreter;[unknown];[[kernel.kallsyms]];ksys_read;vfs_read;ext4_file_read_iter;do_syscall_64 1"
}

@test "--kernel marks [..] modules, vmlinux, vmlinux-* and .ko modules, not [unknown]" {
	fold --kernel "$F/kernel.perf"
	[ "$status" -eq 0 ]
	assert_output "app;main;tagged_[j];compiled_loop;Interpreter;[unknown];[[kernel.kallsyms]]_[k];ksys_read_[k];vfs_read_[k];ext4_file_read_iter_[k];do_syscall_64_[k] 1"
}

@test "--jit marks /tmp/perf-PID.map and jitted-*.so frames, once" {
	fold --jit "$F/kernel.perf"
	[ "$status" -eq 0 ]
	assert_output "app;main;tagged_[j];compiled_loop_[j];Interpreter_[j];[unknown];[[kernel.kallsyms]];ksys_read;vfs_read;ext4_file_read_iter;do_syscall_64 1"
}

@test "--all is --kernel and --jit together" {
	local want
	want=$(pf-fold --kernel --jit "$F/kernel.perf")
	fold --all "$F/kernel.perf"
	[ "$status" -eq 0 ]
	assert_output "$want"
	assert_output --partial "Interpreter_[j]"
	assert_output --partial "do_syscall_64_[k]"
}

@test "the first event type is the default filter, with a note on stderr" {
	fold "$F/events.perf"
	[ "$status" -eq 0 ]
	assert_output "app;main;spin 150"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" == "pf-fold: note: kept only events of type 'cycles'"*"2 samples of other events left out"* ]]
}

@test "--event-filter keeps only the named event, and a sample without a period weighs 1" {
	fold --event-filter instructions "$F/events.perf"
	[ "$status" -eq 0 ]
	assert_output "app;main;compute 301"
	[ -z "$stderr" ]
	fold --event-filter page-faults "$F/events.perf"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "event names are compared without their modifiers unless --event-filter names one" {
	printf '%s\n' 'app 1 1.0: 5 cycles:u: ' '	1 a (/x)' '' 'app 1 1.1: 7 cycles: ' '	1 b (/x)' '' \
		'app 1 1.2: 11 cycles:ppp: ' '	1 c (/x)' '' 'app 1 1.3: 13 sched:sched_switch: ' '	1 d (/x)' '' \
		'app 1 1.4: 17 sched:sched_wakeup: ' '	1 e (/x)' '' >"$BATS_TEST_TMPDIR/in"
	fold "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	assert_output "app;a 5
app;b 7
app;c 11"
	[[ "$stderr" == *"'cycles:u', the first seen; 2 samples of other events left out"* ]]
	fold --event-filter cycles "$BATS_TEST_TMPDIR/in"
	assert_output "app;a 5
app;b 7
app;c 11"
	fold --event-filter cycles:u "$BATS_TEST_TMPDIR/in"
	assert_output "app;a 5"
	# A tracepoint's name after the colon is no modifier.
	fold --event-filter sched:sched_wakeup "$BATS_TEST_TMPDIR/in"
	assert_output "app;e 17"
}

# --- the clean-ups -------------------------------------------------------

@test "native names are tidied: arguments cut, ';' to ':', quotes removed, '(' names skipped" {
	fold "$F/cpp.perf"
	[ "$status" -eq 0 ]
	# Go methods and (anonymous namespace) keep their parentheses; a
	# symbol that starts with '(' is not a frame.
	assert_output "cpp-app;main;operator<<;std::vector<int, std::allocator<int> >::push_back;say hi:now;main.(*Server).Serve;ns::(anonymous namespace)::helper;std::function<void (int)>::operator 1"
}

@test "C++ template arguments keep their parentheses" {
	printf 'app 1 1.0: 1 cpu-clock: \n\t1 std::function<int (int, int)>::operator()(int, int) const (/x)\n\t2 std::_Function_handler<void (), Task>::_M_invoke(std::_Any_data const&) (/x)\n\n' >"$BATS_TEST_TMPDIR/in"
	fold "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	assert_output "app;std::_Function_handler<void (), Task>::_M_invoke;std::function<int (int, int)>::operator 1"
}

@test "Java names lose the L prefix under a java comm, and inlined frames get _[i]" {
	fold "$F/java.perf"
	[ "$status" -eq 0 ]
	assert_output "java;start_thread;JavaCalls::call_helper;com/example/A:.a;com/example/B:.b_[i];com/example/Foo:.bar 1
node;main;Lfoo/bar 1"
}

@test "--jit marks the first frame of an inline chain, the rest stay _[i]" {
	fold --jit "$F/java.perf"
	[ "$status" -eq 0 ]
	assert_output "java;start_thread;JavaCalls::call_helper;com/example/A:.a_[j];com/example/B:.b_[i];com/example/Foo:.bar_[j] 1
node;main;Lfoo/bar_[j] 1"
}

# inlined_stream: frames the compiler inlined, as pf-record and perf print them.
inlined_stream() {
	printf 'app 100/100 [000] 1.000000: 10 cpu-clock: \n\t1267 inl_spin+0x27 (inlined)\n\t1267 inl_outer+0x27 (/usr/bin/app)\n\t10ea main+0x8a (/usr/bin/app)\n\n'
	printf 'app 100/100 [000] 1.100000: 5 cpu-clock: \n\t1300 done_[i]+0x5 (inlined)\n\t1300 a->b+0x5 (inlined)\n\t1300 g+0x5 (/usr/bin/app)\n\n'
}

@test "an (inlined) frame is a plain frame by default and under --all, as in the Perl" {
	inlined_stream >"$BATS_TEST_TMPDIR/in"
	local want="app;g;a;b_[i];done_[i] 5
app;main;inl_outer;inl_spin 10"
	fold "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	assert_output "$want"
	fold --all "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	assert_output "$want"
}

@test "--inline marks (inlined) frames with _[i], once" {
	inlined_stream >"$BATS_TEST_TMPDIR/in"
	fold --inline "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	assert_output "app;g;a_[i];b_[i];done_[i] 5
app;main;inl_outer;inl_spin_[i] 10"
	fold --inline --folded "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 2 ]
}

@test "--libc marks the C library's frames by their file, and the functions inlined into them" {
	fold "$F/libc.perf"
	[ "$status" -eq 0 ]
	refute_output --partial "_[l]"
	fold --kernel --libc "$F/libc.perf"
	[ "$status" -eq 0 ]
	# libc.so.6, libc-2.31.so, libpthread's two names, the loader's three
	# and musl's libc are the library's; libc-client, libcrypto, libcap
	# and a file that starts with "ld-" but is no loader are not.  futex_wait
	# and lll_mutex_lock_optimized were inlined into libc's functions;
	# lock_journal, inlined into the program's, stays the program's.
	assert_output "svc;__clone3_[l];start_thread_[l];handle_requests;append_record;lock_journal;__pthread_mutex_lock_[l];lll_mutex_lock_optimized_[l];__GI___lll_lock_wait_[l];futex_wait_[l];__x64_sys_futex_[k];futex_wait_[k];schedule_[k] 700
svc;run;ld_main;cap_get_proc;EVP_Digest;imap_open;main_[l];__libc_start_main_[l];_dl_catch_error_[l];_dl_start_user_[l];pthread_once_[l];[libpthread-2.31.so]_[l];fdatasync_[l];do_fsync_[k];schedule_[k] 300"
	# With --inline, a function inlined into libc's is still _[l], one
	# inlined into the program's _[i].
	fold --libc --inline "$F/libc.perf"
	[ "$status" -eq 0 ]
	assert_line --index 0 "svc;__clone3_[l];start_thread_[l];handle_requests;append_record;lock_journal_[i];__pthread_mutex_lock_[l];lll_mutex_lock_optimized_[l];__GI___lll_lock_wait_[l];futex_wait_[l];__x64_sys_futex;futex_wait;schedule 700"
}

@test "--libc: inlined lines that no function's line follows stay the stream's, unmarked" {
	printf 'app 1/1 [000] 1.0: 5 cpu-clock: \n\t10 inner+0x1 (inlined)\n\t10 outer+0x1 (inlined)\n\napp 1/1 [000] 1.1: 2 cpu-clock: \n\t20 f+0x1 (inlined)\n\t20 read+0x1 (/usr/lib/libc.so.6)\n\t30 main+0x1 (/usr/bin/app)\n\n' >"$BATS_TEST_TMPDIR/in"
	fold --libc "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	assert_output "app;main;read_[l];f_[l] 2
app;outer;inner 5"
	fold --libc --pprof "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 2 ]
}

@test "a comm with spaces becomes underscores in every root-frame form" {
	local opt
	for opt in "" --pid --tid; do
		# shellcheck disable=SC2086
		run --separate-stderr pf-fold $opt "$F/basic.perf"
		[ "$status" -eq 0 ]
		assert_output --partial "web_server"
		refute_output --partial "web server"
	done
}

# --- the improvements ----------------------------------------------------

@test "the last sample is kept without a trailing blank line" {
	fold "$F/nolastblank.perf"
	[ "$status" -eq 0 ]
	assert_output "app;main;last 1
app;main;spin 1"
}

@test "the last sample is kept even without a final newline" {
	printf 'app 1 1.0: 7 cpu-clock: \n\t1 leaf (/x)\n\t2 root (/x)' >"$BATS_TEST_TMPDIR/in"
	fold "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	assert_output "app;root;leaf 7"
}

@test "an event line that carries its single frame is read, padded comm or not" {
	fold "$F/singleline.perf"
	[ "$status" -eq 0 ]
	assert_output "app;idle 2000
app;spin 2000"
}

@test "a module perf marks (deleted) is read whole, without the mark" {
	printf 'app 1 1.0: 1 cpu-clock: \n\t7f01 main+0x10 (/usr/bin/x (deleted))\n\t7f02 [unknown] (/opt/libfoo.so (deleted))\n\t7f03 start (/usr/bin/x)\n\n' >"$BATS_TEST_TMPDIR/in"
	fold "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	assert_output "app;start;[libfoo.so];main 1"
}

@test "an event line ends the sample before it even without a blank line" {
	printf 'aa 1 1.0: 1 cpu-clock: \n\t1 f (/x)\nbb 2 1.1: 1 cpu-clock: \n\t1 g (/x)\n' >"$BATS_TEST_TMPDIR/in"
	fold "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	assert_output "aa;f 1
bb;g 1"
}

# --- the extras ----------------------------------------------------------

@test "--filter-pid keeps the listed processes; a lone number is a TID" {
	local -a cases=(
		"5151|db;flush 1
db;query 1"
		"77|cron;tick 1"
		"4242,77|cron;tick 1
web_server;parse 1
web_server;serve 1"
		"9999|"
	)
	local c
	for c in "${cases[@]}"; do
		fold --filter-pid "${c%%|*}" "$F/filters.perf"
		[ "$status" -eq 0 ] || fail "--filter-pid ${c%%|*}: status $status"
		[ "$output" = "${c#*|}" ] || fail "--filter-pid ${c%%|*}: got '$output'"
	done
}

@test "--filter-comm matches the comm as printed or with underscores" {
	local want="web_server;parse 1
web_server;serve 1"
	fold --filter-comm "web server" "$F/filters.perf"
	[ "$status" -eq 0 ]
	assert_output "$want"
	fold --filter-comm web_server "$F/filters.perf"
	assert_output "$want"
	fold --filter-comm web "$F/filters.perf"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "--time keeps samples with START <= time < END, either end open" {
	local -a cases=(
		"101,102|db;query 1
web_server;parse 1"
		"102,|cron;tick 1
db;flush 1"
		",101|web_server;serve 1"
		"100.5,100.500001|web_server;serve 1"
		"200,300|"
	)
	local c
	for c in "${cases[@]}"; do
		fold --time "${c%%|*}" "$F/filters.perf"
		[ "$status" -eq 0 ] || fail "--time ${c%%|*}: status $status"
		[ "$output" = "${c#*|}" ] || fail "--time ${c%%|*}: got '$output'"
	done
}

@test "filters combine with each other and with --pid" {
	fold --filter-comm db --time 102, --pid "$F/filters.perf"
	[ "$status" -eq 0 ]
	assert_output "db-5151;flush 1"
}

@test "--folded sums folded files, skipping comments and blank lines" {
	fold --folded "$F/before.folded" "$F/after.folded"
	[ "$status" -eq 0 ]
	assert_output "main;idle 6
main;new 6
main;work;0x7f001234 5
main;work;0x7f009999 4
main;work;0x7f00abcd 2"
	[ -z "$stderr" ]
}

@test "--folded sums two-count files column by column" {
	printf 'a;b 1 2\na;c 0 5\n' >"$BATS_TEST_TMPDIR/d1"
	printf 'a;b 10 20\n' >"$BATS_TEST_TMPDIR/d2"
	fold --folded "$BATS_TEST_TMPDIR/d1" "$BATS_TEST_TMPDIR/d2"
	[ "$status" -eq 0 ]
	assert_output "a;b 11 22
a;c 0 5"
}

@test "--folded warns about a line whose count columns differ from the first" {
	printf 'a;b 1\na;c 2 3\n' >"$BATS_TEST_TMPDIR/mix"
	fold --folded "$BATS_TEST_TMPDIR/mix"
	[ "$status" -eq 0 ]
	assert_output "a;b 1"
	[ "${stderr_lines[0]}" = "pf-fold: $BATS_TEST_TMPDIR/mix:2: two counts in a one-count input" ]
}

@test "--diff writes the union of both files with both counts, sorted" {
	fold --diff "$F/before.folded" "$F/after.folded"
	[ "$status" -eq 0 ]
	assert_output "main;idle 5 1
main;new 0 6
main;work;0x7f001234 5 0
main;work;0x7f009999 0 4
main;work;0x7f00abcd 2 0"
}

@test "--diff --strip-hex merges stacks that differ only in addresses" {
	fold --diff --strip-hex "$F/before.folded" "$F/after.folded"
	[ "$status" -eq 0 ]
	assert_output "main;idle 5 1
main;new 0 6
main;work;0x... 7 4"
}

@test "--diff --normalize scales BEFORE to the total of AFTER, truncating" {
	# totals 12 and 11: 5*11/12 = 4.58 -> 4, 2*11/12 = 1.83 -> 1
	fold --diff --normalize "$F/before.folded" "$F/after.folded"
	[ "$status" -eq 0 ]
	assert_output "main;idle 4 1
main;new 0 6
main;work;0x7f001234 4 0
main;work;0x7f009999 0 4
main;work;0x7f00abcd 1 0"
	fold --diff --normalize --strip-hex "$F/before.folded" "$F/after.folded"
	assert_output "main;idle 4 1
main;new 0 6
main;work;0x... 6 4"
}

@test "--diff --normalize refuses counts it cannot scale exactly instead of wrapping (exit 3)" {
	printf 'a 18446744073709551615\nb 1\n' >"$BATS_TEST_TMPDIR/b.folded"
	printf 'a 18446744073709551615\nb 18446744073709551615\n' >"$BATS_TEST_TMPDIR/a.folded"
	run -3 --separate-stderr pf-fold --diff --normalize "$BATS_TEST_TMPDIR/b.folded" "$BATS_TEST_TMPDIR/a.folded"
	[ -z "$output" ] || fail "wrote: $output"
	[[ "$stderr" == "pf-fold: --normalize: counts too large to scale exactly: a has 18446744073709551615 of"* ]] ||
		fail "stderr: $stderr"
	# Large totals that still fit are scaled exactly: 2^63 * (2^64-1) / 2^64.
	printf 'a 9223372036854775808\nb 9223372036854775808\n' >"$BATS_TEST_TMPDIR/b2.folded"
	printf 'a 18446744073709551615\n' >"$BATS_TEST_TMPDIR/a2.folded"
	run -0 pf-fold --diff --normalize "$BATS_TEST_TMPDIR/b2.folded" "$BATS_TEST_TMPDIR/a2.folded"
	assert_output "a 9223372036854775807 18446744073709551615
b 9223372036854775807 0"
}

@test "--diff reads AFTER from stdin when it is -" {
	fold --diff "$F/before.folded" - <"$F/after.folded"
	[ "$status" -eq 0 ]
	assert_line "main;new 0 6"
}

# --- naming [unknown] frames from debug files (--debug-dir) -------------

DBG="$WORKLOADS/dbg-split"

# dbg_setup: for dbg-split (built stripped, its symbols in dbg-split.debug)
# DBGID its build-id, DEBUGDIR a .build-id tree holding its debug file at
# DBGFILE, DBGBIAS its code's address less its offset in the file, and
# $BATS_TEST_TMPDIR/head a recording's header with its build-id line.
dbg_setup() {
	require_cmd readelf nm
	[ -x "$DBG" ] || fail "$DBG not built: run make"
	[ -e "$DBG.debug" ] || fail "$DBG.debug not built: run make"
	local seg
	DBGID=$(readelf -n "$DBG" | awk '/Build ID/ { print $3 }')
	DEBUGDIR=$BATS_TEST_TMPDIR/debug
	DBGFILE=$DEBUGDIR/.build-id/${DBGID:0:2}/${DBGID:2}.debug
	mkdir -p "${DBGFILE%/*}"
	cp "$DBG.debug" "$DBGFILE"
	seg=$(segments "$DBG")
	[[ "$seg" =~ ^\ ([0-9a-f]+):([0-9a-f]+):[0-9a-f]+$ ]] || fail "segments: $seg"
	DBGBIAS=$((16#${BASH_REMATCH[2]} - 16#${BASH_REMATCH[1]}))
	# Not PIE: a frame's address (the offset) is not the file's own.
	[ "$DBGBIAS" -ne 0 ] || fail "dbg-split's code is at its own offset: the test proves less"
	printf '%s\n' "# pf-record 2 host=h kernel=k target=cmd:dbg-split freq=99 callgraph=fp kernel-stacks=yes start=2026-12-05T00:00:00Z" \
		"# build-id $DBGID $DBG$seg" >"$BATS_TEST_TMPDIR/head"
}

# at NAME [PLUS]: the address a stream prints for NAME+PLUS of dbg-split:
# its offset in the file, in hex.
at() {
	local a
	a=$(nm "$DBG.debug" | awk -v f="$1" '$3 == f { print $1 }')
	[ -n "$a" ] || fail "no $1 in $DBG.debug"
	printf '%x' $((16#$a + ${2:-0} - DBGBIAS))
}

# inl_at: the address of the first byte of dbg_spin inlined into dbg_alpha.
inl_at() {
	local lo hi
	lo=$(nm "$DBG.debug" | awk '$3 == "dbg_alpha" { print $1 }')
	hi=$(nm "$DBG.debug" | awk '$3 == "dbg_beta" { print $1 }')
	readelf --debug-dump=info "$DBG.debug" 2>/dev/null | awk -v lo=$((16#$lo)) -v hi=$((16#$hi)) -v bias="$DBGBIAS" '
		/DW_TAG_inlined_subroutine/ { inl = 1; next }
		/DW_TAG/ { inl = 0 }
		inl && /DW_AT_low_pc/ { a = $NF; sub(/^0x/, "", a); v = 0
			for (i = 1; i <= length(a); i++) v = v * 16 + index("0123456789abcdef", substr(a, i, 1)) - 1
			if (v >= lo && v < hi) { printf "%x\n", v - bias; exit } }'
}

# dbg_stream FILE: the header, then samples of dbg-split, its frames
# [unknown] as a recording of the stripped file prints them.
dbg_stream() {
	local f=$DBG inl
	inl=$(inl_at)
	[ -n "$inl" ] || fail "no inlined dbg_spin found in dbg_alpha"
	{
		cat "$BATS_TEST_TMPDIR/head"
		printf '%s\n' 'dbg-split 7/7 [000] 1.000000: 10 cpu-clock: ' \
			"	$(at dbg_beta 8) [unknown] ($f)" "	$(at dbg_outer 9) [unknown] ($f)" \
			"	$(at main 20) [unknown] ($f)" ''
		# A return address at dbg_beta's first byte is dbg_alpha's call;
		# the interrupted address there is dbg_beta.
		printf '%s\n' 'dbg-split 7/7 [000] 2.000000: 20 cpu-clock: ' \
			'	ffffffff81000010 do_syscall_64+0x10 ([kernel.kallsyms])' \
			"	$(at dbg_beta) [unknown] ($f)" "	$(at dbg_beta) [unknown] ($f)" \
			"	$(at main 20) [unknown] ($f)" ''
		printf '%s\n' 'dbg-split 7/7 [000] 3.000000: 30 cpu-clock: ' \
			"	$inl [unknown] ($f)" "	$(at dbg_outer 9) [unknown] ($f)" \
			"	$(at main 20) [unknown] ($f)" ''
		# Outside every executable segment, and a file with no build-id line.
		printf '%s\n' 'dbg-split 7/7 [000] 4.000000: 40 cpu-clock: ' \
			"	10 [unknown] ($f)" '	2724a [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)' ''
	} >"$1"
}

@test "--debug-dir names a stripped file's [unknown] frames from the debug file of its recorded build-id, inlined functions too" {
	dbg_setup
	dbg_stream "$BATS_TEST_TMPDIR/s.perf"
	fold "$BATS_TEST_TMPDIR/s.perf"
	[ "$status" -eq 0 ]
	assert_output "# pf-provenance tool=pf-record host=h target=dbg-split start=2026-12-05T00:00:00Z freq=99 kernel-stacks=yes callgraph=fp unit=ns
dbg-split;[dbg-split];[dbg-split];[dbg-split] 40
dbg-split;[dbg-split];[dbg-split];[dbg-split];do_syscall_64 20
dbg-split;[libc.so.6];[dbg-split] 40"
	fold --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/s.perf"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ] || fail "stderr: $stderr"
	assert_output "# pf-provenance tool=pf-record host=h target=dbg-split start=2026-12-05T00:00:00Z freq=99 kernel-stacks=yes callgraph=fp unit=ns
dbg-split;[libc.so.6];[dbg-split] 40
dbg-split;main;dbg_alpha;dbg_beta;do_syscall_64 20
dbg-split;main;dbg_outer;dbg_alpha;dbg_spin 30
dbg-split;main;dbg_outer;dbg_beta 10"
	fold --debug-dir "$DEBUGDIR" --inline --pid "$BATS_TEST_TMPDIR/s.perf"
	assert_line "dbg-split-7;main;dbg_outer;dbg_alpha;dbg_spin_[i] 30"
	# The profile names them too.
	pf-fold --pprof --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/s.perf" >"$BATS_TEST_TMPDIR/p.pb"
	grep -aq dbg_spin "$BATS_TEST_TMPDIR/p.pb" && grep -aq dbg_outer "$BATS_TEST_TMPDIR/p.pb" ||
		fail "the profile names no function of the debug file"
}

@test "--debug-dir refuses a debug file of another build-id at that path, once, and the frames stay [unknown]" {
	dbg_setup
	require_cmd objcopy
	dbg_stream "$BATS_TEST_TMPDIR/s.perf"
	# The same symbols under another build-id: used, it would name every frame.
	printf '\004\000\000\000\024\000\000\000\003\000\000\000GNU\000\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021\022\023\024' >"$BATS_TEST_TMPDIR/note"
	objcopy --update-section .note.gnu.build-id="$BATS_TEST_TMPDIR/note" "$DBG.debug" "$DBGFILE"
	# Two recordings: said once.
	fold --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/s.perf" "$BATS_TEST_TMPDIR/s.perf"
	[ "$status" -eq 0 ]
	assert_equal "$stderr" "pf-fold: $DBGFILE: build-id 0102030405060708090a0b0c0d0e0f1011121314, not $DBGID as recorded for $DBG: refused"
	refute_output --partial dbg_
	assert_line "dbg-split;[dbg-split];[dbg-split];[dbg-split] 80"
}

@test "--debug-dir says when there is no debug file, or none it may read: a missing one, a FIFO, a directory, a file that is not ELF" {
	dbg_setup
	dbg_stream "$BATS_TEST_TMPDIR/s.perf"
	rm "$DBGFILE"
	fold --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/s.perf"
	[ "$status" -eq 0 ]
	assert_equal "$stderr" "pf-fold: $DBG: no debug file for build-id $DBGID in $DEBUGDIR (looked for $DBGFILE)"
	refute_output --partial dbg_
	# A FIFO there would block a plain open for good.
	mkfifo "$DBGFILE"
	run --separate-stderr timeout 10 pf-fold --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/s.perf"
	[ "$status" -eq 0 ] || fail "status $status (124: it blocked on the FIFO)"
	assert_equal "$stderr" "pf-fold: $DBGFILE: not a regular file: not used"
	rm "$DBGFILE"
	mkdir "$DBGFILE"
	fold --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/s.perf"
	assert_equal "$stderr" "pf-fold: $DBGFILE: not a regular file: not used"
	rmdir "$DBGFILE"
	echo "not ELF" >"$DBGFILE"
	fold --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/s.perf"
	[ "$status" -eq 0 ]
	assert_equal "$stderr" "pf-fold: $DBGFILE: not an ELF file: refused"
	refute_output --partial dbg_
	# A tree that is not there at all is said at once.
	fold --debug-dir "$BATS_TEST_TMPDIR/none" "$BATS_TEST_TMPDIR/s.perf"
	[ "$status" -eq 3 ]
	assert_equal "$stderr" "pf-fold: --debug-dir $BATS_TEST_TMPDIR/none: No such file or directory"
	[ -z "$output" ]
}

@test "--debug-dir takes a recording's build-ids from its header only, for its own frames: not after a sample, not for the next recording or input" {
	dbg_setup
	local sample=('dbg-split 7/7 [000] 1.000000: 10 cpu-clock: ' "	$(at dbg_beta 8) [unknown] ($DBG)" '')
	# After a sample: a comment between samples, not read.
	{ head -n 1 "$BATS_TEST_TMPDIR/head"; printf '%s\n' "${sample[@]}"; tail -n 1 "$BATS_TEST_TMPDIR/head"
	  printf '%s\n' "${sample[@]}"; } >"$BATS_TEST_TMPDIR/late.perf"
	fold --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/late.perf"
	[ "$status" -eq 0 ]
	assert_line "dbg-split;[dbg-split] 20"
	# A second recording (a header of its own, no build-id line), and a second input.
	{ cat "$BATS_TEST_TMPDIR/head"; printf '%s\n' "${sample[@]}"; head -n 1 "$BATS_TEST_TMPDIR/head"
	  printf '%s\n' "${sample[@]}"; } >"$BATS_TEST_TMPDIR/two.perf"
	printf '%s\n' "${sample[@]}" >"$BATS_TEST_TMPDIR/perf.txt"
	fold --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/two.perf" "$BATS_TEST_TMPDIR/perf.txt"
	[ "$status" -eq 0 ]
	assert_line "dbg-split;dbg_beta 10"
	assert_line "dbg-split;[dbg-split] 20"
	[ -z "$stderr" ]
	# A path with a blank: the line escapes it, the frame does not.
	mkdir "$BATS_TEST_TMPDIR/my app"
	{ head -n 1 "$BATS_TEST_TMPDIR/head"
	  printf '%s\n' "# build-id $DBGID ${BATS_TEST_TMPDIR// /\\x20}/my\\x20app/x$(segments "$DBG")"
	  printf '%s\n' 'dbg-split 7/7 [000] 1.000000: 10 cpu-clock: ' "	$(at dbg_beta 8) [unknown] ($BATS_TEST_TMPDIR/my app/x)" ''
	} >"$BATS_TEST_TMPDIR/blank.perf"
	fold --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/blank.perf"
	assert_line "dbg-split;dbg_beta 10"
}

@test "--debug-dir: a malformed build-id line is a warning with file:line, fatal with --strict; a path named twice with two build-ids is named by neither" {
	dbg_setup
	{ cat "$BATS_TEST_TMPDIR/head"; echo "# build-id 0g $DBG 1000:401000:10"
	  printf '%s\n' 'dbg-split 7/7 [000] 1.000000: 10 cpu-clock: ' "	$(at dbg_beta 8) [unknown] ($DBG)" ''
	} >"$BATS_TEST_TMPDIR/bad.perf"
	fold --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/bad.perf"
	[ "$status" -eq 0 ]
	assert_equal "$stderr" "pf-fold: $BATS_TEST_TMPDIR/bad.perf:3: malformed build-id line"
	assert_line "dbg-split;dbg_beta 10"
	fold --strict --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/bad.perf"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	# Without --debug-dir the line is a comment like any other.
	fold --strict "$BATS_TEST_TMPDIR/bad.perf"
	[ "$status" -eq 0 ]
	{ cat "$BATS_TEST_TMPDIR/head"; echo "# build-id 0102 $DBG$(segments "$DBG")"
	  printf '%s\n' 'dbg-split 7/7 [000] 1.000000: 10 cpu-clock: ' "	$(at dbg_beta 8) [unknown] ($DBG)" ''
	} >"$BATS_TEST_TMPDIR/twice.perf"
	fold --debug-dir "$DEBUGDIR" "$BATS_TEST_TMPDIR/twice.perf"
	[ "$status" -eq 0 ]
	assert_line "dbg-split;[dbg-split] 10"
}

# --- malformed input -----------------------------------------------------

@test "a malformed line is a warning with file:line and the rest is still folded" {
	fold "$F/malformed.perf"
	[ "$status" -eq 0 ]
	assert_output "app;main;spin 2"
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = "pf-fold: $F/malformed.perf:4: unrecognized line" ]
	[ "${stderr_lines[1]}" = "pf-fold: $F/malformed.perf:7: frame line outside a sample" ]
}

@test "--strict makes the first malformed line fatal, exit 3, no output" {
	fold --strict "$F/malformed.perf"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[ "$stderr" = "pf-fold: $F/malformed.perf:4: unrecognized line" ]
}

@test "the first 10 malformed lines are shown, then a count" {
	{
		printf 'app 1 1.0: 1 cpu-clock: \n\t1 f (/x)\n\n'
		for i in $(seq 25); do echo "junk $i"; done
		printf 'app 1 1.0: 1 cpu-clock: \n\t1 f (/x)\n\n'
	} >"$BATS_TEST_TMPDIR/in"
	fold "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	assert_output "app;f 2"
	[ "${#stderr_lines[@]}" -eq 11 ]
	[ "${stderr_lines[0]}" = "pf-fold: $BATS_TEST_TMPDIR/in:4: unrecognized line" ]
	[ "${stderr_lines[9]}" = "pf-fold: $BATS_TEST_TMPDIR/in:13: unrecognized line" ]
	[ "${stderr_lines[10]}" = "pf-fold: 25 malformed lines ignored, 15 of them not shown" ]
}

@test "malformed folded lines are warned about by reason, --strict stops at the first" {
	printf 'a;b 1\nno-count\na;b 1.5\na;b 99999999999999999999999\n 7\na;c 2\n' >"$BATS_TEST_TMPDIR/bad"
	fold --folded "$BATS_TEST_TMPDIR/bad"
	[ "$status" -eq 0 ]
	assert_output "a;b 1
a;c 2"
	[ "${stderr_lines[0]}" = "pf-fold: $BATS_TEST_TMPDIR/bad:2: no count or no stack" ]
	[ "${stderr_lines[1]}" = "pf-fold: $BATS_TEST_TMPDIR/bad:3: count is not a whole number" ]
	[ "${stderr_lines[2]}" = "pf-fold: $BATS_TEST_TMPDIR/bad:4: count out of range" ]
	[ "${stderr_lines[3]}" = "pf-fold: $BATS_TEST_TMPDIR/bad:5: no count or no stack" ]
	fold --folded --strict "$BATS_TEST_TMPDIR/bad"
	[ "$status" -eq 3 ]
	[ "$stderr" = "pf-fold: $BATS_TEST_TMPDIR/bad:2: no count or no stack" ]
}

@test "a count that would overflow 64 bits is an error, not a wrap" {
	printf 'a 18446744073709551615\na 1\n' >"$BATS_TEST_TMPDIR/big"
	fold --folded "$BATS_TEST_TMPDIR/big"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[[ "$stderr" == *"big:2: count overflows 64 bits"* ]]
}

# --- usage and failures ----------------------------------------------------

@test "bad option values and combinations exit 2 with a reason and the synopsis" {
	local -a cases=(
		"--time|--time: needs an argument"
		"--time 5|--time: '5': want START,END"
		"--time 5,2|the end must come after the start"
		"--time x,|--time: 'x': not a time in seconds"
		"--time ,1y|--time: '1y': not a time in seconds"
		"--filter-pid 12x|--filter-pid: '12x': not a process id"
		"--filter-pid 1,,2|--filter-pid: '': not a process id"
		"--filter-pid -1|--filter-pid: '-1': not a process id"
		"--event-filter=|--event-filter: empty event name"
		"--diff $F/before.folded|--diff: want two files"
		"--normalize $F/before.folded|--normalize: only with --diff"
		"--strip-hex x|--strip-hex: only with --diff"
		"--folded --pid x|--folded reads folded stacks"
		"--diff --kernel a b|--diff reads folded stacks"
		"--diff - -|cannot both be stdin"
		"--debug-dir|--debug-dir: needs an argument"
		"--debug-dir=|--debug-dir: empty directory name"
		"--debug-dir a --debug-dir b|--debug-dir: given twice"
		"--folded --debug-dir a x|--folded reads folded stacks"
	)
	local c
	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086
		run --separate-stderr pf-fold ${c%%|*}
		[ "$status" -eq 2 ] || fail "'${c%%|*}': status $status"
		[ -z "$output" ] || fail "'${c%%|*}': wrote to stdout"
		[[ "${stderr_lines[0]}" == "pf-fold: "*"${c#*|}"* ]] || fail "'${c%%|*}': '${stderr_lines[0]}'"
		[[ "$stderr" == *"usage: pf-fold"* ]] || fail "'${c%%|*}': no synopsis"
	done
}

@test "an unreadable input exits 3 naming it, and nothing is written" {
	fold "$F/basic.perf" "$BATS_TEST_TMPDIR/missing"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[ "$stderr" = "pf-fold: $BATS_TEST_TMPDIR/missing: No such file or directory" ]
	fold "$BATS_TEST_TMPDIR"
	[ "$status" -eq 3 ]
	[[ "$stderr" == "pf-fold: $BATS_TEST_TMPDIR: "* ]]
}

@test "a write error on stdout exits 3" {
	[ -w /dev/full ] || skip "/dev/full not available"
	# shellcheck disable=SC2016 # $1 is the inner shell's
	run --separate-stderr sh -c 'pf-fold "$1" >/dev/full' sh "$F/basic.perf"
	[ "$status" -eq 3 ]
	[[ "$stderr" == "pf-fold: stdout"* ]]
}

# --- bounded memory --------------------------------------------------------

@test "memory does not grow with input size: 8x the input, same unique stacks" {
	[ -x /usr/bin/time ] || skip "/usr/bin/time not installed"
	# About 4 MB of samples, then the same read eight times over a pipe.
	awk 'BEGIN { for (i = 0; i < 20000; i++) {
		printf "app %d [000] %d.000000: 1 cpu-clock: \n", 100 + i % 7, i
		printf "\t%x leaf_%d (/usr/bin/app)\n\t400000 mid_%d (/usr/bin/app)\n", i, i % 50, i % 13
		printf "\t400100 main (/usr/bin/app)\n\n" } }' >"$BATS_TEST_TMPDIR/in"
	local r1 r8 i
	r1=$(/usr/bin/time -f %M pf-fold "$BATS_TEST_TMPDIR/in" 2>&1 >/dev/null | tail -n 1)
	r8=$(for i in 1 2 3 4 5 6 7 8; do cat "$BATS_TEST_TMPDIR/in"; done |
		/usr/bin/time -f %M pf-fold 2>&1 >/dev/null | tail -n 1)
	# Holding the 32 MB input would add 30000 KB; allow 25% for noise.
	[ "$r8" -lt $((r1 + r1 / 4)) ] || fail "peak RSS ${r1} KB for 1x, ${r8} KB for 8x"
	run pf-fold "$BATS_TEST_TMPDIR/in"
	[ "${#lines[@]}" -eq 650 ]
}

@test "pf-fold, its pprof, pf-report and pf-svg give the same bytes under two hash seeds" {
	local f seed out
	# The tables' hash is seeded (lib/common/hash.h), so that a target
	# cannot choose colliding names; no output may follow the seed.
	for f in demo java cpp kernel events prov-record prov-offcpu; do
		for seed in 1 2; do
			out="$BATS_TEST_TMPDIR/$f.$seed"
			PF_HASH_SEED=$seed pf-fold --all "$F/$f.perf" >"$out.folded"
			PF_HASH_SEED=$seed pf-fold --pprof "$F/$f.perf" >"$out.pb"
			PF_HASH_SEED=$seed pf-report -n 50 "$out.folded" >"$out.report"
			PF_HASH_SEED=$seed pf-svg "$out.folded" >"$out.svg"
		done
		[ -s "$BATS_TEST_TMPDIR/$f.1.folded" ] || fail "$f: nothing folded"
		for k in folded pb report svg; do
			cmp -s "$BATS_TEST_TMPDIR/$f.1.$k" "$BATS_TEST_TMPDIR/$f.2.$k" ||
				fail "$f: the $k output differs between seeds 1 and 2"
		done
	done
}

@test "the demo stream folds to the documented stacks" {
	fold --all "$F/demo.perf"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_line "shop-api;main;serve_forever;handle_request;render_page;escape_html 20202020"
	assert_line "shop-api;main;serve_forever;handle_request;write_response;__send;entry_SYSCALL_64_after_hwframe_[k];__sys_sendto_[k];tcp_sendmsg_[k];copy_user_enhanced_fast_string_[k] 10101010"
	assert_line "shop-api;main;serve_forever;handle_request;lookup_cart;std::map<std::string, Item>::find 10101010"
	# The recording's provenance first, then the six stacks.
	[[ "${lines[0]}" == "# pf-provenance tool=pf-record host=demo pid=4242 "*" unit=ns" ]]
	[ "${#lines[@]}" -eq 7 ]
}

@test "event and frame lines are read as stackcollapse-perf.pl's regexes read them" {
	# input line | options | folded output for that line plus "\t1 f (/x)"
	local -a cases=(
		'app 42 1.0: 5 cpu-clock: ||app;f 5'
		'app 42/43 [001] 1.0: 5 cpu-clock: |--tid|app-42/43;f 5'
		'my app 42 1.0: cpu-clock: ||my_app;f 1'
		'app 42 1.0: 0 cpu-clock: ||app;f 1'
		'app 42 1.0: 5 cycles:ppp: ||app;f 5'
		'app 42 1.0:||app;f 1'
		'swapper 0/0 [000] 1.0: 5 cpu-clock: |--tid|swapper-?/0;f 5'
		'app 42/ 1.0: 5 cpu-clock: |--pid|app-?;f 5'
		'x 1 1.0: 2 cpu-clock: ||x_1_1.0:;f 2'
		'app	42 1.0: 5 cpu-clock: \r||app;f 5'
	)
	local c line opts want
	for c in "${cases[@]}"; do
		line=${c%%|*}
		opts=${c#*|}
		want=${opts#*|}
		opts=${opts%%|*}
		printf '%b\n\t1 f (/x)\n\n' "$line" >"$BATS_TEST_TMPDIR/in"
		# shellcheck disable=SC2086
		run --separate-stderr pf-fold $opts "$BATS_TEST_TMPDIR/in"
		[ "$status" -eq 0 ] || fail "'$line': status $status"
		[ "$output" = "$want" ] || fail "'$line' $opts: got '$output', want '$want'"
	done
	local -a frames=(
		'	7f01 f+0x1f (/x)|app;f'
		'	7f01 f+0x1F (/x)|app;f+0x1F'
		'	7f01 a->b->c (/x)|app;a;b_[i];c_[i]'
		'	7f01 a-> (/x)|app;a'
		'	7f01 ->b (/x)|app;;b_[i]'
		'	abc (/x)|app;c'
		'	7f01 f (/usr/lib/a (b)/x.so)|app;f '
		'	7f01 "(x) (/x)|app;'
		'	7f01 [unknown] (/a/b/lib.so)|app;[lib.so]'
	)
	for c in "${frames[@]}"; do
		printf 'app 1 1.0: 1 cpu-clock: \n%s\n\n' "${c%%|*}" >"$BATS_TEST_TMPDIR/in"
		run --separate-stderr pf-fold "$BATS_TEST_TMPDIR/in"
		[ "$status" -eq 0 ] || fail "'${c%%|*}': status $status"
		[ "$output" = "${c#*|} 1" ] || fail "'${c%%|*}': got '$output', want '${c#*|} 1'"
	done
}

@test "a line longer than 64 MiB is refused with exit 3, not buffered without end" {
	run --separate-stderr sh -c 'head -c 70000000 /dev/zero | tr "\0" a | pf-fold'
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[ "$stderr" = "pf-fold: <stdin>:1: line longer than 67108864 bytes" ]
}

@test "real perf script output, with and without call chains, folds with every period counted" {
	require_cmd perf
	require_perf_events
	local d=$BATS_TEST_TMPDIR g want got
	for g in -g ""; do
		# shellcheck disable=SC2086,SC2016 # $g splits; $i is the inner shell's
		perf record -q -F 499 $g -o "$d/p.data" -- \
		    sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done' \
		    >/dev/null 2>&1 || skip "perf record cannot sample here"
		perf script -i "$d/p.data" >"$d/p.txt" 2>/dev/null
		want=$(perf script -i "$d/p.data" -F period 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
		[ "$want" -gt 0 ] || skip "perf recorded no samples"
		run --separate-stderr pf-fold --strict "$d/p.txt"
		[ "$status" -eq 0 ] || fail "perf record $g: status $status: $stderr"
		got=$(printf '%s\n' "$output" | awk '{ s += $NF } END { print s + 0 }')
		[ "$got" -eq "$want" ] || fail "perf record $g: folded $got, perf's periods $want"
		[[ "$output" == sh* ]] || fail "perf record $g: root is not the comm: ${lines[0]}"
	done
}

# --- provenance ----------------------------------------------------------

# flamegraph_counted FILE: the lines flamegraph.pl's line regex takes for
# stacks, "^(.*)\s+?(\d+(?:\.\d*)?)$", written out again in Perl.
flamegraph_counted() {
	perl -ne 'chomp; print "$_\n" if /^(.*)\s+?(\d+(?:\.\d*)?)$/' "$1"
}

@test "a recorder's header and trailer become one provenance line before the stacks" {
	fold "$F/prov-record.perf"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_output "# pf-provenance tool=pf-record host=web1 target=nginx pid=4242 start=2026-12-02T11:00:00Z window=15s freq=99 samples=2 lost=0 truncated=0 stop=duration kernel-stacks=yes callgraph=dwarf unit=ns
nginx;main;ngx_process_events 20202020"
	fold "$F/prov-offcpu.perf"
	[ "$status" -eq 0 ]
	assert_output "# pf-provenance tool=pf-offcpu host=db1 target=pg_dump event=offcpu-time start=2026-12-02T12:00:00Z window=10s samples=2 lost=0 stop=target-exit callgraph=fp unit=ns
pg_dump;read_table;schedule 2500000000
pg_dump;write_archive;schedule 30000000"
}

@test "a trailer's incomplete stacks go into the provenance line, with the main cause alone" {
	sed 's/ truncated=0 stop=/ truncated=1 unknown-chain=0 incomplete=1 incomplete-causes=stack-copy:1,budget:0 stop=/' \
	    "$F/prov-record.perf" > "$BATS_TEST_TMPDIR/inc.perf"
	fold "$BATS_TEST_TMPDIR/inc.perf"
	[ "$status" -eq 0 ]
	assert_line --index 0 "# pf-provenance tool=pf-record host=web1 target=nginx pid=4242 start=2026-12-02T11:00:00Z window=15s freq=99 samples=2 lost=0 truncated=1 incomplete=1 incomplete-cause=stack-copy stop=duration kernel-stacks=yes callgraph=dwarf unit=ns"
}

@test "the provenance line is no stack to flamegraph.pl's line rule, and values cannot split it" {
	# A hostile host name: spaces, ';', a control byte, a trailing number, 100 bytes.
	{
		printf '# pf-record 1 host=a;b\001c%s target=cmd:x freq=99 start=1\n' "$(printf '%0100d' 7)"
		cat "$F/basic.perf"
	} >"$BATS_TEST_TMPDIR/in"
	pf-fold "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out"
	pf-fold "$F/basic.perf" >"$BATS_TEST_TMPDIR/stacks"
	flamegraph_counted "$BATS_TEST_TMPDIR/out" >"$BATS_TEST_TMPDIR/counted"
	cmp "$BATS_TEST_TMPDIR/counted" "$BATS_TEST_TMPDIR/stacks"
	run head -n 1 "$BATS_TEST_TMPDIR/out"
	assert_output "# pf-provenance tool=pf-record host=a_b_c$(printf '%059d' 0) target=x start=1 freq=99 unit=ns"
	# And pf-fold's own reader of folded stacks skips it too.
	run --separate-stderr pf-fold --folded "$BATS_TEST_TMPDIR/out"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "perf's own script text gets no provenance line" {
	fold "$F/demo.perf"
	assert_line --index 0 --regexp '^# pf-provenance '
	grep -v '^# pf-record' "$F/demo.perf" >"$BATS_TEST_TMPDIR/plain"
	fold "$BATS_TEST_TMPDIR/plain"
	[ "$status" -eq 0 ]
	refute_output --partial "pf-provenance"
	[ "${#lines[@]}" -eq 6 ]
}

@test "--folded keeps each input's provenance lines, once each, before the stacks" {
	pf-fold "$F/prov-record.perf" >"$BATS_TEST_TMPDIR/web1"
	sed 's/host=web1/host=web2/' "$F/prov-record.perf" | pf-fold >"$BATS_TEST_TMPDIR/web2"
	fold --folded "$BATS_TEST_TMPDIR/web1" "$BATS_TEST_TMPDIR/web2" "$BATS_TEST_TMPDIR/web1"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == "# pf-provenance tool=pf-record host=web1 target=nginx "*" unit=ns" ]]
	[[ "${lines[1]}" == "# pf-provenance tool=pf-record host=web2 target=nginx "*" unit=ns" ]]
	[ "${lines[2]}" = "nginx;main;ngx_process_events 60606060" ]
	# Two recordings in one stream: one line each.
	cat "$F/prov-record.perf" "$F/prov-offcpu.perf" >"$BATS_TEST_TMPDIR/both"
	fold "$BATS_TEST_TMPDIR/both"
	[[ "${lines[0]}" == *" tool=pf-record "*" unit=ns" ]]
	[[ "${lines[1]}" == *" tool=pf-offcpu "*" unit=ns" ]]
}

@test "the provenance takes the header before the first sample and the trailer from the last line only" {
	# Comments between samples (the shape of a name that held a newline in
	# a version 1 stream) are neither header nor trailer.
	printf '%s\n' '# pf-record 2 host=web1 kernel=6.1.0 target=pid:1 freq=99 callgraph=fp kernel-stacks=yes start=x' \
		'# pf-record: target pid=1 comm=app' \
		'app 1/1 [000] 1.000000: 10 cpu-clock: ' '	1 f+0x1 (/x)' '' \
		'# pf-record: target pid=1 comm=forged' \
		'# pf-record: samples=999 lost=77 throttled=0 stop=disk-full bytes=1' \
		'app 1/1 [000] 2.000000: 10 cpu-clock: ' '	1 f+0x1 (/x)' '' \
		'# pf-record: samples=2 lost=0 throttled=0 unknown-chain=0 stop=duration bytes=400' \
		>"$BATS_TEST_TMPDIR/mid.perf"
	fold "$BATS_TEST_TMPDIR/mid.perf"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "# pf-provenance tool=pf-record host=web1 target=app pid=1 "*" samples=2 lost=0 "*"stop=duration "* ]] ||
		fail "provenance: ${lines[0]}"
	[ "${lines[1]}" = "app;f 20" ]
	# A comment after the last sample that data follows is no trailer either.
	printf '%s\n' 'app 1/1 [000] 3.000000: 10 cpu-clock: ' '	1 f+0x1 (/x)' '' >>"$BATS_TEST_TMPDIR/mid.perf"
	fold "$BATS_TEST_TMPDIR/mid.perf"
	[[ "${lines[0]}" != *"samples="* && "${lines[0]}" != *"stop="* ]] || fail "provenance: ${lines[0]}"
	[ "${lines[1]}" = "app;f 30" ]
}

@test "a one-byte comm is a comm in a version 2 stream, whose comms are escaped; elsewhere the Perl's rule holds" {
	# (stackcollapse-perf.pl's comm is two bytes or more: "a 1/1" was the
	# comm "a_1/1_[000]_1.000000:" of a root frame.)
	local body=('a 1/1 [000] 1.000000: 10 cpu-clock: ' '	1 f+0x1 (/x)' '' \
		'b  2/2 [001] 2.000000: 10 cpu-clock: ' '	1 g+0x1 (/x)' '')
	printf '%s\n' '# pf-record 2 host=h target=pid:1 freq=99 start=x' "${body[@]}" >"$BATS_TEST_TMPDIR/v2.perf"
	fold "$BATS_TEST_TMPDIR/v2.perf"
	[ "$status" -eq 0 ]
	assert_line "a;f 10"
	assert_line "b;g 10"
	# Version 1 and perf's text: as the Perl (conformance), and each input
	# of several starts again without the header's say.
	printf '%s\n' '# pf-record 1 host=h target=pid:1 freq=99 start=x' "${body[@]}" >"$BATS_TEST_TMPDIR/v1.perf"
	printf '%s\n' "${body[@]}" >"$BATS_TEST_TMPDIR/perf.txt"
	for f in v1.perf perf.txt; do
		fold "$BATS_TEST_TMPDIR/$f"
		assert_line "a_1/1_[000]_1.000000:;f 10"
		assert_line "b_;g 10"
	done
	fold "$BATS_TEST_TMPDIR/v2.perf" "$BATS_TEST_TMPDIR/perf.txt"
	assert_line "a;f 10"
	assert_line "a_1/1_[000]_1.000000:;f 10"
}

@test "a recording without a stack folds to nothing, provenance included" {
	printf '%s\n' '# pf-record 1 host=web1 target=pid:1 freq=99 start=x' \
		'# pf-record: samples=0 lost=0 throttled=0 stop=duration bytes=90' >"$BATS_TEST_TMPDIR/empty.perf"
	pf-fold "$BATS_TEST_TMPDIR/empty.perf" >"$BATS_TEST_TMPDIR/out"
	[ ! -s "$BATS_TEST_TMPDIR/out" ] || fail "output: $(cat "$BATS_TEST_TMPDIR/out")"
	# Filtered down to nothing: the same.
	pf-fold --filter-comm nobody "$F/prov-record.perf" >"$BATS_TEST_TMPDIR/out"
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	pf-fold "$F/prov-record.perf" | grep '^#' | pf-fold --folded >"$BATS_TEST_TMPDIR/out"
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
}

# --- input that is not a sample stream -----------------------------------

@test "perf.data and other binary input are refused with what to do, exit 3" {
	printf 'PERFILE2\150\0\0\0\0\0\0\0\1\0' >"$BATS_TEST_TMPDIR/perf.data"
	fold "$BATS_TEST_TMPDIR/perf.data"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	assert_equal "$stderr" "pf-fold: $BATS_TEST_TMPDIR/perf.data is perf.data: run perf script first (perf script -i FILE | pf-fold)"
	printf 'app 1 1.0: 1 cpu-clock: \n\t1 f (/x)\n\n\037\213\010\0\0\0\n' >"$BATS_TEST_TMPDIR/bin"
	fold "$BATS_TEST_TMPDIR/bin"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	assert_equal "$stderr" "pf-fold: $BATS_TEST_TMPDIR/bin:4: binary input (a NUL byte): pf-fold reads text"
	fold --folded "$BATS_TEST_TMPDIR/perf.data"
	[ "$status" -eq 3 ]
}

@test "folded stacks given as a sample stream are refused, pointing at --folded" {
	fold "$F/basic.perf"
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/folded"
	fold "$BATS_TEST_TMPDIR/folded"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	assert_equal "$stderr" "pf-fold: $BATS_TEST_TMPDIR/folded:1: folded stacks, not a sample stream: pf-fold --folded reads (and sums) these"
	# With a provenance line first, the same.
	pf-fold "$F/prov-record.perf" >"$BATS_TEST_TMPDIR/withprov"
	run --separate-stderr pf-fold <"$BATS_TEST_TMPDIR/withprov"
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"<stdin>:2: folded stacks"* ]]
}

@test "text with no event line at all is refused, exit 3, not folded to nothing" {
	printf '# Overhead  Command  Shared Object  Symbol\n    45.00%%  app  app  [.] main\n    55.00%%  app  libc.so.6  [.] memcpy\n' >"$BATS_TEST_TMPDIR/report"
	fold "$BATS_TEST_TMPDIR/report"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[ "${stderr_lines[2]}" = "pf-fold: no sample stream in the input: none of its 2 unrecognized lines is an event line of perf script text (perf report output? run perf script)" ]
	# Samples all filtered out are no such case: exit 0, nothing written.
	fold --filter-comm nobody "$F/basic.perf"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
}

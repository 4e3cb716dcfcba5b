#!/usr/bin/env bats
# pf-report: folded stacks to the on-call answer.  Self and total shares
# (recursion counted once), hottest stacks, per process or thread, both
# layouts of pf-formats(5), the width cut, provenance headings, a Python
# profile's functions and answer, and the refusals; then a real recording
# of a workload with a known split.

load test_helper

setup() {
	cd "$BATS_TEST_TMPDIR" || return
}

# tabs LINE...: each LINE with '|' turned into a tab, one per line.
tabs() {
	printf '%s\n' "$@" | tr '|' '\t'
}

# The input most tests share: a recursion in p, a second process q.
basic() {
	printf 'p;main;a;b 6\np;main;a 3\np;main;a;a;a 1\nq;x 2\n' >in.folded
}

@test "self is the leaf, total counts a function once per stack; the layout for people" {
	basic
	run -0 --separate-stderr pf-report in.folded
	assert_output - <<-'EOF'
	total: 12 in 4 stacks

	functions by self (all 4)
	  self%  total%   self  total  function
	  50.0%   50.0%      6      6  b
	  33.3%   83.3%      4     10  a
	  16.7%   16.7%      2      2  x
	   0.0%   83.3%      0     10  main

	stacks (all 4)
	 share%  count  stack
	  50.0%      6  p;main;a;b
	  25.0%      3  p;main;a
	  16.7%      2  q;x
	   8.3%      1  p;main;a;a;a
	EOF
	[ -z "$stderr" ] || fail "stderr: $stderr"
}

@test "a recursive stack alone: total 100%, never 300%" {
	run -0 pf-report -r - <<<'p;main;a;a;a 1'
	assert_output "$(tabs 'total|1|count' 'function|100.00|100.00|1|1|a' \
		'function|0.00|100.00|0|1|main' 'stack|100.00|1|p;main;a;a;a')"
}

@test "a stack of the root alone is its own leaf; CRLF lines read as LF" {
	printf '# pf-provenance tool=pf-offcpu unit=ns\r\nidle 3000000\r\np;a 1000000\r\n' >in.folded
	run -0 pf-report -r in.folded
	# pf-offcpu's: the root alone is its own waiter too.
	assert_output "$(tabs 'recording|tool=pf-offcpu|unit=ns' 'total|4000000|ns' \
		'waiter|75.00|3000000|other||idle' 'waiter|25.00|1000000|other||a' \
		'function|75.00|75.00|3000000|3000000|idle' 'function|25.00|25.00|1000000|1000000|a' \
		'stack|75.00|3000000|idle' 'stack|25.00|1000000|p;a')"
}

@test "-r: tab-separated rows, the name last, never cut" {
	basic
	printf 'p;%s 1\n' "$(printf 'n%.0s' $(seq 300))" >>in.folded
	run -0 pf-report -r -n 2 in.folded
	assert_output "$(tabs 'total|13|count' \
		'function|46.15|46.15|6|6|b' 'function|30.77|76.92|4|10|a' \
		'stack|46.15|6|p;main;a;b' 'stack|23.08|3|p;main;a')"
	run -0 pf-report -r -n 0 -w 40 in.folded
	assert_line "$(tabs "function|7.69|7.69|1|1|$(printf 'n%.0s' $(seq 300))")"
}

@test "a leaf where interrupts come back on is named a sampling artefact, not ranked as a cost" {
	# Kernel leaves, plain and "_[k]"-annotated; a name that only holds
	# one of them is no artefact, nor is one that is no leaf.
	printf '%s\n' 'app;main;work;spin 40' \
		'app;main;io;asm_sysvec_apic_timer_interrupt;irqentry_exit_to_user_mode;pvm_irq_enable 30' \
		'app;main;io;do_syscall_64;_raw_spin_unlock_irqrestore_[k] 10' \
		'app;main;my_pvm_irq_enable_helper 15' \
		'app;main;native_irq_enable;child 5' >in.folded
	run -0 pf-report -r in.folded
	assert_line "$(tabs 'artefact|irq-enable|30.00|30|pvm_irq_enable')"
	assert_line "$(tabs 'artefact|irq-enable|10.00|10|_raw_spin_unlock_irqrestore_[k]')"
	[ "$(grep -c '^artefact' <<<"$output")" -eq 2 ] || fail "$output"
	# The function rows stay as they were.
	assert_line "$(tabs 'function|30.00|30.00|30|30|pvm_irq_enable')"
	run -0 pf-report -p -r in.folded
	assert_line "$(tabs 'artefact|irq-enable|30.00|30|app|pvm_irq_enable')"
	run -0 pf-report -w 100 in.folded
	assert_line "note: 40.0% self in leaves where interrupts come back on (pvm_irq_enable, ...): time spent with"
	# None: no note.
	printf 'app;main;spin 4\n' >in.folded
	run -0 pf-report in.folded
	refute_output --partial "note:"
}

@test "-n picks the rows and the titles say how many of how many" {
	basic
	run -0 pf-report -n 1 in.folded
	assert_line 'functions by self (top 1 of 4)'
	assert_line 'stacks (top 1 of 4)'
	assert_line '  50.0%   50.0%      6      6  b'
	refute_line --partial '  a'
	refute_line --partial 'p;main;a '
	[ "${#lines[@]}" -eq 7 ] || fail "$output"	# bats drops the blank lines
	run -0 pf-report -n 0 in.folded
	assert_line 'functions by self (all 4)'
}

@test "--sort total orders by total share, ties by self, then name" {
	basic
	run -0 pf-report --sort total -n 3 in.folded
	assert_output --partial - <<-'EOF'
	functions by total (top 3 of 4)
	  self%  total%   self  total  function
	  33.3%   83.3%      4     10  a
	   0.0%   83.3%      0     10  main
	  50.0%   50.0%      6      6  b

	EOF
	run -0 pf-report -r -s total - <<<$'r;z 2\nr;y 2\nr;y;w 1'
	assert_output "$(tabs 'total|5|count' 'function|40.00|60.00|2|3|y' \
		'function|40.00|40.00|2|2|z' 'function|20.00|20.00|1|1|w' \
		'stack|40.00|2|r;y' 'stack|40.00|2|r;z' 'stack|20.00|1|r;y;w')"
}

@test "the width cuts names at their end and stacks at their start, with a marker" {
	local long deep
	long=ns::Widget::render_$(printf 'x%.0s' $(seq 60))
	deep="app;main;$(printf 'frame%d;' $(seq 20))leaf_fn"
	printf 'app;main;%s 3\n%s 1\n' "$long" "$deep" >in.folded
	run -0 pf-report -w 50 in.folded
	# 50 columns: the function column starts at 32 (counts are 5 wide).
	assert_line "  75.0%   75.0%      3      3  ns::Widget::rend..."
	assert_line "  25.0%      1  ...frame18;frame19;frame20;leaf_fn"
	local l
	for l in "${lines[@]}"; do
		[ "${#l}" -le 50 ] || fail "longer than 50: '$l'"
	done
	# Not a terminal and no -w: 100 columns.
	run -0 pf-report in.folded
	assert_line "  75.0%   75.0%      3      3  ${long:0:66}..."
	# -w 0 never cuts.
	run -0 pf-report -w 0 in.folded
	assert_line "  75.0%   75.0%      3      3  $long"
	assert_line "  25.0%      1  $deep"
}

# offcpu: an off-CPU profile as pf-fold --kernel folds it: user frames,
# then the kernel's ("_[k]") down to schedule; a kernel thread's stack.
offcpu() {
	local k='entry_SYSCALL_64_[k];do_syscall_64_[k]'
	printf '%s 63\n' "svc;main;serve_requests;handle_request;append_record;__pthread_mutex_lock;__lll_lock_wait;$k;__x64_sys_futex_[k];do_futex_[k];futex_wait_[k];schedule_[k];__schedule_[k]"
	printf '%s 30\n' "svc;main;serve_requests;handle_request;flush_journal;fdatasync;$k;__x64_sys_fdatasync_[k];ext4_sync_file_[k];jbd2_complete_transaction_[k];schedule_[k]"
	printf '%s 5\n' "svc;main;$(printf 'level%d;' $(seq 30))nanosleep;$k;hrtimer_nanosleep_[k];schedule_[k]"
	printf '%s 2\n' 'kworker/0:1;worker_thread_[k];schedule_[k]'
}

@test "cut to the width, an off-CPU stack keeps its user frames and drops the kernel middle" {
	offcpu >in.folded
	run -0 pf-report -w 120 in.folded
	local l
	for l in "${lines[@]}"; do
		[ "${#l}" -le 120 ] || fail "longer than 120: '$l'"
	done
	# The user frames whole, then the kernel end.
	assert_line --regexp '^  63\.0%     63  svc;main;serve_requests;handle_request;append_record;__pthread_mutex_lock;__lll_lock_wait;\.\.\..*chedule_\[k\]$'
	assert_line --regexp '^  30\.0%     30  svc;main;serve_requests;handle_request;flush_journal;fdatasync;\.\.\..*schedule_\[k\]$'
	# Too many user frames for the row: the root end goes, the innermost
	# user frame stays, and the kernel leaf after it.
	assert_line --regexp '^   5\.0%      5  \.\.\..*;level30;nanosleep;\.\.\.;schedule_\[k\]$'
	# A kernel thread has no user frame: cut at its start as any stack.
	assert_line '   2.0%      2  kworker/0:1;worker_thread_[k];schedule_[k]'
	# At the narrowest width every row still ends in its innermost user
	# frame or later.
	run -0 pf-report -w 40 in.folded
	assert_line --regexp '__lll_lock_wait($|;)'
	assert_line --regexp 'fdatasync($|;)'
	assert_line --regexp 'nanosleep($|;)'
}

@test "-u drops the kernel frames: the leaf is the user code that waited" {
	offcpu >in.folded
	run -0 pf-report -u -r in.folded
	assert_line "$(tabs 'function|63.00|63.00|63|63|__lll_lock_wait')"
	assert_line "$(tabs 'function|30.00|30.00|30|30|fdatasync')"
	assert_line "$(tabs 'function|2.00|2.00|2|2|[kernel]')"
	refute_output --partial '_[k]'
	assert_line "$(tabs 'stack|63.00|63|svc;main;serve_requests;handle_request;append_record;__pthread_mutex_lock;__lll_lock_wait')"
	assert_line "$(tabs 'stack|2.00|2|kworker/0:1;[kernel]')"
	# Without -u the kernel's frames are the leaves.
	run -0 pf-report -r in.folded
	assert_line "$(tabs 'function|63.00|63.00|63|63|__schedule_[k]')"
}

# waiting: an off-CPU profile as pf-triage folds it (pf-fold --kernel
# --libc): the C library's frames end in "_[l]", the kernel's in "_[k]".
# 1 s in all: each kind of wait, a caller that libc called back
# (qsort), a thread blocked in libc alone and a kernel thread.
waiting() {
	local k='entry_SYSCALL_64_[k];do_syscall_64_[k]' t='svc;__clone3_[l];start_thread_[l];handle_requests;append_record'
	echo '# pf-provenance tool=pf-offcpu host=h target=svc pid=200 unit=ns'
	printf '%s\n' \
		"$t;__pthread_mutex_lock_[l];__GI___lll_lock_wait_[l];futex_wait_[l];$k;__x64_sys_futex_[k];do_futex_[k];futex_wait_[k];schedule_[k] 630000000" \
		"$t;fdatasync_[l];$k;__x64_sys_fdatasync_[k];do_fsync_[k];ext4_sync_file_[k];jbd2_log_wait_commit_[k];schedule_[k] 200000000" \
		"$t;fdatasync_[l];$k;__x64_sys_fdatasync_[k];do_fsync_[k];file_write_and_wait_range_[k];folio_wait_bit_[k];io_schedule_[k];schedule_[k] 50000000" \
		"svc;main;tick;__clock_nanosleep_[l];$k;__x64_sys_clock_nanosleep_[k];common_nsleep_[k];hrtimer_nanosleep_[k];do_nanosleep_[k];schedule_[k] 40000000" \
		"svc;main;serve;epoll_wait_[l];$k;__x64_sys_epoll_wait_[k];do_epoll_wait_[k];ep_poll_[k];schedule_hrtimeout_range_[k];schedule_[k] 30000000" \
		"svc;main;relay;read_[l];$k;ksys_read_[k];vfs_read_[k];pipe_read_[k];__mutex_lock_[k];schedule_[k] 20000000" \
		"svc;main;fetch;recv_[l];$k;__x64_sys_recvfrom_[k];sock_recvmsg_[k];tcp_recvmsg_[k];sk_wait_data_[k];schedule_timeout_[k];schedule_[k] 10000000" \
		"svc;main;qsort_[l];msort_with_tmp_[l];by_name;pthread_mutex_lock_[l];$k;__x64_sys_futex_[k];schedule_[k] 10000000" \
		"svc;main;reap;waitpid_[l];$k;kernel_wait4_[k];do_wait_[k];schedule_[k] 4000000" \
		"svc;[libc.so.6]_[l];$k;__x64_sys_futex_[k];schedule_[k] 3000000" \
		'kworker/0:1;worker_thread_[k];schedule_[k] 3000000'
}

@test "off-CPU input: the waiting callers, below the kernel's frames and the C library's, and what they waited for" {
	waiting >in.folded
	run -0 --separate-stderr pf-report -r -n 0 in.folded
	# The fdatasync stacks are one waiter; a wait is named from the
	# outermost kernel frame that says one (pipe_read before __mutex_lock).
	assert_output --partial "$(tabs 'total|1000000000|ns' \
		'waiter|63.00|630000000|lock|__pthread_mutex_lock|append_record' \
		'waiter|25.00|250000000|disk-io|fdatasync|append_record' \
		'waiter|4.00|40000000|sleep|__clock_nanosleep|tick' \
		'waiter|3.00|30000000|poll|epoll_wait|serve' \
		'waiter|2.00|20000000|pipe|read|relay' \
		'waiter|1.00|10000000|lock|pthread_mutex_lock|by_name' \
		'waiter|1.00|10000000|net|recv|fetch' \
		'waiter|0.40|4000000|other|waitpid|reap' \
		'waiter|0.30|3000000|lock|[libc.so.6]|svc' \
		'waiter|0.30|3000000|other||kworker/0:1' \
		'function|')"
	[ -z "$stderr" ] || fail "stderr: $stderr"
	# For people: first after the heading, the answer in one line each,
	# and the stacks keep their waiter when cut.
	run -0 pf-report -n 3 -w 100 in.folded
	assert_output --partial - <<-'EOF'
	total: 1000.0ms in 11 stacks

	waiting callers by blocked time (top 3 of 10)
	 share%      time  waiter (wait: C library function)
	  63.0%   630.0ms  append_record (lock: __pthread_mutex_lock)
	  25.0%   250.0ms  append_record (disk-io: fdatasync)
	   4.0%    40.0ms  tick (sleep: __clock_nanosleep)

	functions by self (top 3 of
	EOF
	refute_output --partial 'note:'
	assert_line --regexp '^  63\.0%   630\.0ms  .*;handle_requests;append_record;\.\.\..*schedule_\[k\]$'
	# By process: the group before the waiter, as in the function rows.
	run -0 pf-report -r -p -n 1 in.folded
	assert_line "$(tabs 'waiter|63.00|630000000|lock|__pthread_mutex_lock|svc|append_record')"
	# -u drops the kernel's frames from the rest, not from the waits.
	pf-report -r -n 0 in.folded | grep '^waiter' >all.txt
	pf-report -r -u -n 0 in.folded | grep '^waiter' >user.txt
	[ "$(wc -l <all.txt)" -eq 10 ] && cmp all.txt user.txt || fail "$(diff all.txt user.txt)"
}

@test "the waiting callers come with pf-offcpu's provenance or --offcpu, never for on-CPU input" {
	waiting | sed 1d >plain.folded
	run -0 pf-report -r plain.folded
	refute_line --regexp '^waiter'
	run -0 pf-report -r --offcpu plain.folded
	assert_line "$(tabs 'waiter|63.00|630000000|lock|__pthread_mutex_lock|append_record')"
	{ echo '# pf-provenance tool=pf-record unit=samples'; cat plain.folded; } >cpu.folded
	run -0 pf-report -r cpu.folded
	refute_line --regexp '^waiter'
	# Folded without the marks, every waiter is the kernel's leaf, and a
	# note says how to fold.
	waiting | sed 's/_\[[kl]\]//g' >unmarked.folded
	run -0 pf-report -n 1 unmarked.folded
	assert_line ' 100.0%  1000.0ms  schedule (other)'
	assert_line 'note: no frame is marked kernel (_[k]) or C library (_[l]): fold with'
	assert_line '      pf-fold --kernel --libc to name each wait and the code that called it'
	# With the kernel's marks alone, the waits are named, but the waiter
	# is the C library's innermost function.
	waiting | sed 's/_\[l\]//g' >nolibc.folded
	run -0 pf-report -n 1 nolibc.folded
	assert_line '  63.0%   630.0ms  futex_wait (lock)'
	assert_line 'note: no frame is marked C library (_[l]): fold with'
}

@test "on a terminal the width is COLUMNS" {
	require_cmd script
	local long
	long=f_$(printf 'y%.0s' $(seq 200))
	printf 'p;%s 1\n' "$long" >in.folded
	run -0 env COLUMNS=60 script -qec "pf-report in.folded" /dev/null
	assert_line " 100.0%  100.0%      1      1  ${long:0:26}..."$'\r'
}

@test "-p sums a --tid root's threads into its process; -t keeps each thread" {
	printf '%s\n' 'srv-10/10;main;work 4' 'srv-10/11;main;work 2' \
		'srv-10/11;main;idle 2' 'kworker/0:1-7/7;wq 1' 'cron-?/33;tick 1' >in.folded
	run -0 pf-report -r -p in.folded
	assert_output "$(tabs 'total|10|count' \
		'process|80.00|8|srv-10' 'process|10.00|1|cron-?' 'process|10.00|1|kworker/0:1-7' \
		'function|60.00|60.00|6|6|srv-10|work' 'function|20.00|20.00|2|2|srv-10|idle' \
		'function|10.00|10.00|1|1|cron-?|tick' 'function|10.00|10.00|1|1|kworker/0:1-7|wq' \
		'function|0.00|80.00|0|8|srv-10|main' \
		'stack|40.00|4|srv-10/10;main;work' 'stack|20.00|2|srv-10/11;main;idle' \
		'stack|20.00|2|srv-10/11;main;work' 'stack|10.00|1|cron-?/33;tick' \
		'stack|10.00|1|kworker/0:1-7/7;wq')"
	run -0 pf-report -t -n 2 in.folded
	assert_output --partial - <<-'EOF'
	threads (top 2 of 4)
	 share%  count  thread
	  40.0%      4  srv-10/10
	  40.0%      4  srv-10/11

	functions by self (top 2 of 7)
	  self%  total%   self  total  thread     function
	  40.0%   40.0%      4      4  srv-10/10  work
	  20.0%   20.0%      2      2  srv-10/11  idle
	EOF
}

@test "the heading says the share of incomplete stacks past 5%, with the main cause in words; -r gives the count and the cause" {
	{
		echo '# pf-provenance tool=pf-record host=web1 target=deep samples=200 lost=0 truncated=30 incomplete=30 incomplete-cause=stack-copy unit=samples'
		echo 'deep;a;b 200'
	} >in.folded
	run -0 --separate-stderr pf-report -w 100 in.folded
	assert_line --index 0 "recording: tool pf-record, host web1, target deep, samples 200, lost 0, truncated 30, unit samples,"
	assert_line --index 1 "           15% of stacks incomplete (mostly: stack copy too short)"
	run -0 pf-report -r in.folded
	assert_line "$(tabs 'recording|tool=pf-record|host=web1|target=deep|samples=200|lost=0|truncated=30|incomplete=30|incomplete-cause=stack-copy|unit=samples')"
	sed -i 's/incomplete=30/incomplete=10/' in.folded
	run -0 --separate-stderr pf-report -w 100 in.folded
	refute_output --partial "incomplete"
}

@test "provenance lines become the heading; unit=ns shows time" {
	{
		echo '# pf-provenance tool=pf-offcpu host=web1 target=nginx pid=4242 start=2026-12-02T11:00:00Z window=15s samples=812 lost=0 truncated=0 extra=ignored event=offcpu-time unit=ns'
		echo 'nginx;main;epoll_wait 1500000'
		echo 'nginx;main;read 500000'
	} >in.folded
	run -0 --separate-stderr pf-report in.folded
	assert_output - <<-'EOF'
	recording: tool pf-offcpu, host web1, target nginx, pid 4242, start 2026-12-02T11:00:00Z,
	           window 15s, samples 812, lost 0, truncated 0, unit ns
	total: 2.0ms in 2 stacks

	waiting callers by blocked time (all 2)
	 share%   time  waiter (wait: C library function)
	  75.0%  1.5ms  epoll_wait (other)
	  25.0%  0.5ms  read (other)
	note: no frame is marked kernel (_[k]) or C library (_[l]): fold with
	      pf-fold --kernel --libc to name each wait and the code that called it

	functions by self (all 3)
	  self%  total%   self  total  function
	  75.0%   75.0%  1.5ms  1.5ms  epoll_wait
	  25.0%   25.0%  0.5ms  0.5ms  read
	   0.0%  100.0%  0.0ms  2.0ms  main

	stacks (all 2)
	 share%   time  stack
	  75.0%  1.5ms  nginx;main;epoll_wait
	  25.0%  0.5ms  nginx;main;read
	EOF
	run -0 pf-report -r in.folded
	assert_line "$(tabs 'recording|tool=pf-offcpu|host=web1|target=nginx|pid=4242|start=2026-12-02T11:00:00Z|window=15s|samples=812|lost=0|truncated=0|unit=ns')"
	assert_line "$(tabs 'total|2000000|ns')"
	# From 100 s on, seconds.
	printf '# pf-provenance tool=pf-offcpu unit=ns\nt;a 150000000000\n' >s.folded
	run -0 pf-report s.folded
	assert_line ' 100.0%  100.0%  150.00s  150.00s  a'
	# A pf-record recording keeps samples, with its rate.
	printf '# pf-provenance tool=pf-record host=h target=all freq=99 samples=3 unit=samples\nt;a 3\n' >r.folded
	run -0 pf-report r.folded
	assert_line 'recording: tool pf-record, host h, target all, rate 99 Hz, samples 3, unit samples'
	assert_line 'total: 3 samples in 1 stacks'
	# Recordings in different units: plain counts, and a warning.
	cat r.folded s.folded >mixed.folded
	run -0 --separate-stderr pf-report -r mixed.folded
	assert_line "$(tabs 'total|150000000003|count')"
	[[ "$stderr" == *"different units"* ]] || fail "no warning: $stderr"
}

@test "hostile names and provenance values reach the terminal cleaned" {
	printf 'p;\033]0:owned\007x\033[2J;\302\233c1 5\np;bad\377\300\257;ok 1\n' >in.folded
	printf '# pf-provenance host=a\033[31mb target=t\302\205u unit=samples\n' >>in.folded
	run -0 pf-report -w 0 in.folded
	if printf '%s' "$output" | LC_ALL=C grep -q $'[\001-\010\016-\037\033\177]'; then
		fail "a control character got through: $(printf '%s' "$output" | od -c | head)"
	fi
	assert_line 'recording: host a_[31mb, target t?u, unit samples'
	assert_line '  83.3%   83.3%      5      5  ?c1'
	# \377 is no UTF-8; \300\257 an overlong '/': each byte a '?'.
	assert_line '  16.7%      1  p;bad???;ok'
	run -0 pf-report -r in.folded
	assert_line "$(tabs 'stack|83.33|5|p;?]0:owned?x?[2J;?c1')"
}

@test "invalid lines are warned about and skipped; the rest is reported" {
	printf 'p;a 3\nno count here\np;b 1.5\np;b 1\n' >in.folded
	run -0 --separate-stderr pf-report -r in.folded
	assert_output "$(tabs 'total|4|count' 'function|75.00|75.00|3|3|a' \
		'function|25.00|25.00|1|1|b' 'stack|75.00|3|p;a' 'stack|25.00|1|p;b')"
	[[ "$stderr" == *"pf-report: in.folded:2: ignored: not STACK COUNT"* ]] || fail "$stderr"
	[[ "$stderr" == *"pf-report: in.folded:3: ignored: fractional count"* ]] || fail "$stderr"
}

@test "a differential input reports its second count, with a warning" {
	run -0 --separate-stderr pf-report -r - <<<$'p;a 5 1\np;b 0 3'
	assert_output "$(tabs 'total|4|count' 'function|75.00|75.00|3|3|b' \
		'function|25.00|25.00|1|1|a' 'stack|75.00|3|p;b' 'stack|25.00|1|p;a')"
	[[ "$stderr" == *"differential"* ]] || fail "no warning: $stderr"
}

@test "Python functions: each sample is its innermost py:: frame's self, every py:: frame's total once a sample, and the answer names the hottest" {
	local in="$FIXTURES/report/python.folded"
	run -0 --separate-stderr pf-report -r -n 0 "$in"
	# The Python rows: 50/30/20 under main, serve and handler, with the
	# C each called; fib's recursion (across a C frame too) counts once.
	# shellcheck disable=SC2016 # an awk program
	run -0 awk -F '\t' '$1 == "python" || $1 == "pyfunction"' <<<"$output"
	assert_output "$(tabs 'python|100.00|100|python' \
		'pyfunction|50.00|50.00|50|50|py::checksum:/srv/app.py' \
		'pyfunction|30.00|30.00|30|30|py::parse\x3bsplit:/srv/we\\ird.py' \
		'pyfunction|20.00|20.00|20|20|py::fib:/srv/app.py' \
		'pyfunction|0.00|100.00|0|100|py::<module>:/srv/app.py' \
		'pyfunction|0.00|100.00|0|100|py::handler:/srv/app.py' \
		'pyfunction|0.00|100.00|0|100|py::main:/srv/app.py' \
		'pyfunction|0.00|100.00|0|100|py::serve:/srv/app.py')"
	# The functions are as they were: the interpreter's leaf on top.
	run -0 pf-report -r -n 1 "$in"
	assert_line "$(tabs 'function|47.00|47.00|47|47|[python3.11]')"
	# For people: the answer after the total, then the section.
	run -0 --separate-stderr pf-report -n 3 -w 0 "$in"
	run -0 sed '/^stacks /,/^$/d' <<<"$output"
	assert_output - <<-'EOF'
	total: 100 in 7 stacks

	python: 100.0% of the samples in Python functions; the hottest, 50.0% self: py::checksum:/srv/app.py

	python functions by self (top 3 of 7)
	  self%  total%   self  total  function
	  50.0%   50.0%     50     50  py::checksum:/srv/app.py
	  30.0%   30.0%     30     30  py::parse\x3bsplit:/srv/we\\ird.py
	  20.0%   20.0%     20     20  py::fib:/srv/app.py

	functions by self (top 3 of 17)
	  self%  total%   self  total  function
	  47.0%   47.0%     47     47  [python3.11]
	  28.0%   28.0%     28     28  long_add
	  15.0%   15.0%     15     15  _PyEval_EvalFrameDefault
	EOF
}

@test "Python functions answer from half the samples up; below, the line says the native functions answer; markers are not Python" {
	local in="$FIXTURES/report/python.folded"
	# 100 Python samples beside 100 native ones, then 101 ([py-mismatch]'s
	# stacks kept their native frames: not Python).
	{ cat "$in"; echo 'python3.11;[py-mismatch];_start;_PyEval_EvalFrameDefault 100'; } >half.folded
	run -0 pf-report -r half.folded
	assert_line "$(tabs 'python|50.00|100|python')"
	run -0 pf-report half.folded
	assert_line 'python: 50.0% of the samples in Python functions; the hottest, 25.0% self: py::checksum:/srv/app.py'
	{ cat half.folded; echo 'python3.11;[py-loop] 1'; } >under.folded
	run -0 pf-report -r under.folded
	assert_line "$(tabs 'python|49.75|100|native')"
	run -0 pf-report under.folded
	assert_line 'python: 49.8% of the samples in Python functions, under half: the functions below answer'
	assert_line --partial 'python functions by self (all 7)'
	# By process: the answer names its process; the rows have a group.
	{ sed 's/^python3.11;/app-1;/' "$in"; sed 's/^python3.11;/app-2;/' "$in" | grep -v checksum; } >two.folded
	run -0 pf-report -p -r two.folded
	assert_line "$(tabs 'pyfunction|33.33|33.33|50|50|app-1|py::checksum:/srv/app.py')"
	run -0 pf-report -p two.folded
	assert_line 'python: 100.0% of the samples in Python functions; the hottest, 33.3% self: py::checksum:/srv/app.py in app-1'
	# A name's control bytes reach the terminal cleaned.
	run -0 pf-report <<<$'p;py::a\x1b]2t\a:/x.py 1'
	assert_line 'python: 100.0% of the samples in Python functions; the hottest, 100.0% self: py::a?]2t?:/x.py'
	# A profile without one has no Python line, row nor section.
	run -0 pf-report -r <<<'p;main;pyx::f 1'
	refute_line --regexp '^(python|pyfunction)'$'\t'
}

@test "no samples exits 1, only malformed lines exit 3, an overflowing sum exits 3" {
	run -1 --separate-stderr pf-report </dev/null
	assert_output ''
	assert_equal "$stderr" 'pf-report: no samples in the input: nothing to report'
	run -1 --separate-stderr pf-report - <<<$'# pf-provenance tool=pf-record samples=0 unit=samples\np;a 0'
	assert_output ''
	run -3 --separate-stderr pf-report - <<<$'junk\nmore junk'
	assert_output ''
	[[ "$stderr" == *'pf-report: no valid folded stack in the input (2 invalid lines)'* ]] || fail "$stderr"
	run -3 --separate-stderr pf-report - <<<$'p;a 18446744073709551615\np;b 1'
	[[ "$stderr" == *'pf-report: -:2: total count over 2^64-1'* ]] || fail "$stderr"
	run -3 --separate-stderr pf-report /nonexistent/in.folded
	[[ "$stderr" == 'pf-report: /nonexistent/in.folded: No such file or directory' ]] || fail "$stderr"
}

@test "bad options are usage errors naming the option (exit 2)" {
	local args
	for args in '-n x' '-n -1' '--sort size' '-w 39' '-w 12x' '-p -t' '-n'; do
		# shellcheck disable=SC2086 # ARGS are several words
		run -2 --separate-stderr pf-report $args </dev/null
		assert_output ''
		[[ "${stderr_lines[0]}" == "pf-report: "* ]] || fail "$args: ${stderr_lines[0]}"
		[[ "${stderr_lines[1]}" == "usage: pf-report"* ]] || fail "$args: no synopsis"
	done
	run -2 --separate-stderr pf-report --sort size
	assert_equal "${stderr_lines[0]}" 'pf-report: --sort size: want self or total'
}

@test "pf-record | pf-fold | pf-report names a 60/25/15 workload's hottest function with its designed share" {
	require_perf_events
	[ -x "$WORKLOADS/pprof-split" ] || fail "pprof-split not built: run make"
	# pprof-split spends 60/25/15 of its CPU in pp_sixty, pp_quarter, pp_fifteen.
	"${FAVOURED[@]}" pf-record -F 499 -d 3 --no-progress -- "$WORKLOADS/pprof-split" 4 2>rec.err |
		pf-fold >cpu.folded || fail "pf-record | pf-fold failed: $(cat rec.err)"
	pf-report -r cpu.folded >report.txt || fail "pf-report failed"
	local first name share
	first=$(awk -F '\t' '$1 == "function" { print; exit }' report.txt)
	name=$(cut -f6 <<<"$first")
	share=$(cut -f2 <<<"$first")
	[ "$name" = pp_sixty ] || fail "hottest is '$name', not pp_sixty: $(cat report.txt)"
	awk -v s="$share" 'BEGIN { exit !(s >= 53 && s <= 67) }' ||
		fail "pp_sixty self share $share%, designed 60% (within 7 points)"
	share=$(awk -F '\t' '$1 == "function" && $6 == "pp_quarter" { print $2 }' report.txt)
	awk -v s="$share" 'BEGIN { exit !(s >= 18 && s <= 32) }' ||
		fail "pp_quarter self share $share%, designed 25% (within 7 points)"
	# The layout for people names it on the first row under the heads.
	run -0 pf-report cpu.folded
	[[ "$(sed -n '/^functions by self/{n;n;p;q}' <<<"$output")" == *"  pp_sixty" ]] ||
		fail "first function row: $output"
}

@test "past 64 recordings the heading keeps the first 64 and counts the rest" {
	local i
	for i in $(seq 66); do
		echo "# pf-provenance tool=pf-record host=h$i unit=samples"
	done >in.folded
	echo 'p;a 1' >>in.folded
	run -0 pf-report in.folded
	assert_line 'recording: tool pf-record, host h64, unit samples'
	assert_line 'recording: and 2 more'
	refute_line --partial 'host h65'
	refute_line --partial 'host h66'
	# The units of the two not kept are unknown: plain counts.
	assert_line 'total: 1 in 1 stacks'
}

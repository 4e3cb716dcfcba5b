#!/usr/bin/env bats
# lib/common/confine applied to a small driver (tests/unit/test-confine.c):
# the seccomp filter refuses what a recorder never needs after setup, and
# Landlock leaves it reading only beneath the allow-list.  The recorders'
# own confinement is checked in recorder-lifecycle.bats, pf-record.bats and
# pf-offcpu.bats.

load test_helper

confine() {
	local bin="${PF_UNIT_DIR:-$PF_ROOT/build/unit}/test-confine"
	[ -x "$bin" ] || fail "unit driver not built: $bin (run make units)"
	run --separate-stderr "$bin" "$@"
}

@test "seccomp refuses exec, fork, sockets, ptrace and namespaces with EPERM; reads still work" {
	confine seccomp
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
	assert_equal "$output" "getpid ok
read-proc ok
socket errno=EPERM
ptrace errno=EPERM
fork errno=EPERM
unshare errno=EPERM
execve errno=EPERM"
}

@test "a sanitizer build keeps ptrace for LeakSanitizer and nothing else" {
	confine seccomp ptrace
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
	assert_line "ptrace ok"
	assert_line "execve errno=EPERM"
	assert_line "socket errno=EPERM"
}

@test "Landlock: /etc/shadow and /etc/passwd cannot be opened, /proc and /usr can, nothing is created" {
	require_root
	[ -r /etc/shadow ] || skip "no readable /etc/shadow here"
	confine landlock /etc/shadow /etc/passwd /proc/self/status /proc/self/maps /usr/bin/env
	if [ "$status" -eq 3 ]; then
		[[ "$stderr" == *"Function not implemented"* || "$stderr" == *"not supported"* ]] ||
			fail "landlock failed: $stderr"
		skip "this kernel has no Landlock: $stderr"
	fi
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
	assert_line --regexp '^abi [1-9][0-9]*$'
	assert_line "/etc/shadow errno=EACCES"
	assert_line "/etc/passwd errno=EACCES"
	assert_line "/proc/self/status ok"
	assert_line "/proc/self/maps ok"
	assert_line "/usr/bin/env ok"
	assert_line "create-in-tmp errno=EACCES"
	[ ! -e /tmp/pf-confine-test-never ] || fail "a file was created"
	# Unconfined, the same driver process reads /etc/shadow: the refusal
	# above is Landlock's, not the file mode's.
	run -0 cat /etc/shadow
}

@test "a mapped file opens its directory only where the path names the same file (device and inode)" {
	require_root
	local d
	# Not beneath a standard path (/tmp is one), so only the list decides.
	d=$(mktemp -d /var/tmp/pf-confine.XXXXXX)
	mkdir "$d/good" "$d/bad"
	echo ok >"$d/good/lib.so"
	echo no >"$d/bad/lib.so"
	confine mapped "$d/good/lib.so" "$d/bad/lib.so"
	rm -rf "$d"
	if [ "$status" -eq 3 ] && [[ "$stderr" == *"Function not implemented"* ]]; then
		skip "this kernel has no Landlock: $stderr"
	fi
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
	assert_line "good ok"
	assert_line "bad errno=EACCES"
}

@test "the file helper hands a process without capabilities the mappings of its targets and their descendants, nothing else" {
	require_root
	confine helper
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
	# The driver drops every capability and installs the recorders'
	# seccomp filter before asking: only the helper can open map_files.
	assert_equal "$output" "helper-pid ok
child ok
grandchild ok
self refused
not-a-mapping refused
empty-range refused
after-kill refused helper-stopped
after-kill-again refused helper-stopped"
}

@test "the file helper reads a target's memory, all of it or none, up to 4096 bytes (or up to 8 whole pages in one request), and only whose it was started for (not another process given its PID)" {
	require_root
	confine helper-mem
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
	# The driver drops every capability and installs the recorders'
	# seccomp filter first: its own process_vm_readv is refused, the
	# helper's reads return the child's pattern byte for byte (the
	# driver's copy is zeros), and a refusal leaves the buffer untouched.
	assert_equal "$output" "direct EPERM
read-64 ok
read-max ok
over-max errno=EINVAL
empty errno=EINVAL
other-child errno=EPERM
self errno=EPERM
unmapped errno=EFAULT
across-the-end errno=EFAULT
pages ok no ok
pages-unaligned errno=EINVAL
pages-max ok ok ok ok ok ok ok ok
pages-over-max errno=EINVAL
pages-none errno=EINVAL
pages-other-child errno=EPERM
pages-none-target errno=EPERM
still-answers ok
any-target ok
any-other errno=EPERM
any-other-file ok
all-other ok
none-target errno=EPERM
none-file ok
reused-pid errno=EPERM
reused-pid-file refused
after-kill errno=EIO helper-stopped
after-kill-again errno=EIO helper-stopped"
}

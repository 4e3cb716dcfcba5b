# test_helper.bash: loaded by every pf suite.  Hermetic: the tools come from
# this checkout (PF_BIN_DIR, set by `make check`, or ./bin), the locale is
# C, and each test works in its own BATS_TEST_TMPDIR.
bats_require_minimum_version 1.5.0

# The suites that load this file use these; shellcheck reads each alone.
PF_ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
PF_BIN_DIR="${PF_BIN_DIR:-$PF_ROOT/bin}"
# shellcheck disable=SC2034
FIXTURES="$PF_ROOT/tests/bats/fixtures"
# shellcheck disable=SC2034
WORKLOADS="$PF_ROOT/build/workloads"
# Conformance data from another project, read in place and never copied
# in: PF_SHARED_DIR names the directory that holds
# conformance/stackcollapse-perf (default: a shared/ beside the checkout).
# The suites that need it skip, saying so, when it is absent.
# shellcheck disable=SC2034
SHARED_DIR="${PF_SHARED_DIR:-$PF_ROOT/../shared}"

# Every test loads this file again.  The libraries' own load.bash files
# find their parts with $(dirname ...), fifteen forks a test, some 0.16 s
# of CPU each time (some 100 s over one CI run's tests): their parts,
# which only define functions, are sourced here by a glob instead.
load_bats_libs() {
	local d f
	for d in /usr/lib/bats /usr/local/lib/bats /usr/share/bats; do
		if [ -f "$d/bats-support/load.bash" ]; then
			for f in "$d"/bats-support/src/*.bash "$d"/bats-assert/src/*.bash; do
				# shellcheck disable=SC1090 # the libraries' own files
				source "$f"
			done
			return 0
		fi
	done
	echo "bats-support/bats-assert not found: run scripts/install-deps" >&2
	return 1
}
load_bats_libs

export LC_ALL=C
export PATH="$PF_BIN_DIR:$PATH"
# PF_SCRIPTS: where the tests take the runbooks (pf-triage, pf-bundle).
# pf-triage runs the tools beside it in a checkout (../bin) before those
# on PATH: with other tools than ./bin (a sanitized build in PF_BIN_DIR)
# the tests run copies of the scripts from a directory with no ../bin, so
# that the runbook takes PF_BIN_DIR's, first on PATH.
if [ "$PF_BIN_DIR" = "$PF_ROOT/bin" ]; then
	PF_SCRIPTS="$PF_ROOT/scripts"
else
	PF_SCRIPTS="$BATS_RUN_TMPDIR/pf-scripts/scripts"
	if [ ! -x "$PF_SCRIPTS/pf-triage" ]; then
		mkdir -p "$PF_SCRIPTS.$$"
		cp -p "$PF_ROOT/scripts/pf-triage" "$PF_ROOT/scripts/pf-bundle" "$PF_SCRIPTS.$$/"
		mv -T "$PF_SCRIPTS.$$" "$PF_SCRIPTS" 2>/dev/null || rm -rf "$PF_SCRIPTS.$$"
	fi
fi
unset DEBUGINFOD_URLS

# pf_tools: the tool names this checkout builds, one per line.
pf_tools() {
	local f
	for f in "$PF_ROOT"/bin/pf-*.c; do
		[ -e "$f" ] || continue
		f=${f##*/}
		echo "${f%.c}"
	done
}

# pf_version: the version pf.h defines (PF_VERSION); fails when it finds none.
pf_version() {
	local v
	v=$(sed -n 's/^#define PF_VERSION "\(.*\)"$/\1/p' "$PF_ROOT/lib/common/pf.h")
	[ -n "$v" ] || { echo "no PF_VERSION in lib/common/pf.h" >&2; return 1; }
	echo "$v"
}

# assert_usage_version PROG NAME USAGE: -h and --help print USAGE as the
# first line of stdout and name --version, with nothing on stderr;
# --version prints "NAME VERSION", VERSION pf.h's.
assert_usage_version() {
	local prog=$1 name=$2 usage=$3 flag want
	for flag in -h --help; do
		run -0 --separate-stderr "$prog" "$flag"
		assert_line --index 0 "$usage"
		assert_line --partial -- "--version"
		[ -z "$stderr" ] || fail "$flag wrote to stderr: $stderr"
	done
	want=$(pf_version)
	run -0 --separate-stderr "$prog" --version
	assert_output "$name $want"
}

# require_root: skip with a reason unless running as root.
require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (run the suite as root, as CI does)"
}

# require_perf_events: skip with a reason when perf_event_open is absent
# (no /proc/sys/kernel/perf_event_paranoid at all, or paranoid 3+ for
# non-root).  CI has them, so these tests run there.
require_perf_events() {
	[ -r /proc/sys/kernel/perf_event_paranoid ] ||
		skip "perf events not available: /proc/sys/kernel/perf_event_paranoid missing"
}

# user_dir: make USER_DIR, a fresh 0755 directory under /tmp that another
# user (nobody) can traverse, holding copies of what such a user must open
# or exec: the tools in $USER_DIR/bin and the workloads in
# $USER_DIR/workloads.  This checkout may sit under /root or any 0700
# directory, which nobody cannot reach.  Tests put their own data under
# USER_DIR too.  Skips, saying why, when nobody cannot execute anything
# there (/tmp mounted noexec), unless given --data (the caller only needs
# nobody to read there, or checks exec itself).  The directory is removed
# by user_dir_cleanup, which every suite using it calls from its teardown.
# shellcheck disable=SC2120 # suites pass --data; this file calls it bare
user_dir() {
	local f
	require_cmd setpriv
	USER_DIR=$(mktemp -d /tmp/pf-user.XXXXXX) || fail "mktemp -d /tmp/pf-user.XXXXXX failed"
	chmod 755 "$USER_DIR"
	mkdir -m 755 "$USER_DIR/bin" "$USER_DIR/workloads"
	for f in "$PF_BIN_DIR"/pf-* "$WORKLOADS"/*; do
		if [ ! -f "$f" ] || [ ! -x "$f" ]; then continue; fi
		case $f in
		"$PF_BIN_DIR"/*) cp "$f" "$USER_DIR/bin/" ;;
		*) cp "$f" "$USER_DIR/workloads/" ;;
		esac
	done
	chmod -R a+rX "$USER_DIR"
	# The exec must be nobody's own: setpriv itself still has root's
	# capabilities when it execs its command.
	# shellcheck disable=SC2016 # the inner sh expands $1
	[ "${1:-}" = --data ] ||
		as_nobody /bin/sh -c '"$1" --version' sh "$USER_DIR/bin/pf-record" >/dev/null 2>&1 ||
		skip "nobody cannot execute files in $USER_DIR (is /tmp mounted noexec?)"
}

# user_dir_cleanup: remove USER_DIR if user_dir made one.
user_dir_cleanup() {
	if [ -n "${USER_DIR:-}" ]; then
		rm -rf "$USER_DIR"
		USER_DIR=
	fi
}

# as_nobody CMD...: run CMD as nobody:nogroup, without supplementary groups.
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# as_nobody_nocaps CMD...: as_nobody, and CMD can hold no capability:
# none inherited, none in its bounding set (setpriv itself still runs
# with root's).
as_nobody_nocaps() {
	as_nobody --inh-caps=-all --bounding-set=-all "$@"
}

# recorder_as_nobody_setup: what a test of a recorder run by nobody
# without capabilities needs, or a skip saying which is missing: root
# (to become nobody), setpriv, a kernel.perf_event_paranoid of 2 or more
# (below 2 an unprivileged user may record kernel stacks, so the user-only
# recording and the refusal these tests expect would not happen), and
# USER_DIR with the tools and workloads nobody can run.
recorder_as_nobody_setup() {
	require_root
	require_cmd setpriv
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ] || skip "paranoid < 2 allows kernel stacks"
	user_dir
}

# segments FILE: FILE's executable PT_LOAD segments as a stream's build-id
# line writes them, " OFFSET:VADDR:SIZE" each, in hex.
segments() {
	readelf -lW "$1" | awk '$1 == "LOAD" && / E / {
		for (i = 2; i <= 5; i++) { sub(/^0x0*/, "", $i); if ($i == "") $i = "0" }
		printf " %s:%s:%s", $2, $3, $5 }'
}

# require_cmd CMD...: skip naming the first missing command.
require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c not installed"
	done
}

# The machine a suite runs on may be busy with other work (CI neighbours, a
# build, two busy loops): a test measures what its workload does, so as
# root it runs the workload ahead of that work.  Both are command
# prefixes that exec (the pid stays the workload's, for $! and kill);
# empty when not root, where the workload runs as it is.
#
# FAVOURED: for CPU-bound work that must get its CPUs.  A session of its
# own is an autogroup of its own, which the scheduler weighs against each
# other autogroup whatever their task counts: that group and the process
# go to nice -20.  Nice alone would only count inside this shell's group.
# Favoured work that fills every CPU leaves this shell almost nothing until
# it ends: start it from the favoured tool (pf-record -- CMD) or from one
# favoured shell together with the tool that measures it, never poll it
# from here.
#
# REALTIME: for work that mostly blocks and whose wake-up latency is what
# a test measures (blocks of a designed length, the share of time spent
# waiting for the CPU).  At any nice, a woken task may wait a few ms for
# the running one's slice to end; SCHED_FIFO runs it at once.  Only for
# work that blocks: a spinner would hold a CPU until the kernel's RT
# throttling (95%) cuts in.
# shellcheck disable=SC2034 # the suites use them
FAVOURED=() REALTIME=()
if [ "$EUID" -eq 0 ]; then
	# shellcheck disable=SC2016,SC2034 # the inner sh expands "$@"; the suites use them
	FAVOURED=(setsid sh -c 'echo -20 >/proc/self/autogroup 2>/dev/null; exec nice -n -20 "$@"' sh)
	# shellcheck disable=SC2034 # the suites use it
	REALTIME=(chrt -f 1)
fi

# wait_exec PID NAME: until PID runs NAME (its comm, 15 bytes at most),
# 10 s at most.  A command started with & is the forked shell until it
# execs, which on a busy machine may take longer than any fixed sleep.
wait_exec() {
	local _
	for _ in $(seq 100); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	fail "pid $1 does not run $2 after 10 s (comm $(cat "/proc/$1/comm" 2>/dev/null))"
}

# wait_recording PID: until pf-record or pf-offcpu PID has mapped its
# rings, the last step before it drops its privileges and opens its
# window (its signal handlers are set by then), 20 s at most.
wait_recording() {
	local _
	for _ in $(seq 200); do
		grep -q 'anon_inode:\[perf_event\]' "/proc/$1/maps" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "pid $1 mapped no perf ring in 20 s"
}

# --- the recorders' confinement, checked alike for pf-record and pf-offcpu ---

# confined_status PID: wait (5 s at most) until PID runs under its seccomp
# filter, then print its Seccomp, NoNewPrivs and CapEff lines and its core
# size limit.
confined_status() {
	local _
	for _ in $(seq 50); do
		grep -qE '^Seccomp:[[:space:]]+2$' "/proc/$1/status" 2>/dev/null && break
		sleep 0.1
	done
	grep -E '^(Seccomp|NoNewPrivs|CapEff):' "/proc/$1/status"
	grep '^Max core file size' "/proc/$1/limits"
}

# assert_confined_while_recording TOOL CMD...: TOOL -- CMD runs under its
# seccomp filter, with no_new_privs, no capability and no core dumps.
assert_confined_while_recording() {
	local tool=$1
	shift
	"$tool" -d 4 -o "$BATS_TEST_TMPDIR/c.txt" -- "$@" 2>/dev/null & BGPID=$!
	run -0 confined_status "$BGPID"
	assert_line --regexp '^Seccomp:[[:space:]]+2$'
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'
	assert_line --regexp '^CapEff:[[:space:]]+0000000000000000$'
	assert_line --regexp '^Max core file size +0 +0 +bytes'
	wait "$BGPID"
	BGPID=
}

# assert_confined_header TOOL CMD...: the header's confined line says what
# TOOL -- CMD got.
assert_confined_header() {
	local tool=$1
	shift
	run -0 --separate-stderr "$tool" -d 0.3 -o "$BATS_TEST_TMPDIR/h.txt" -- "$@"
	run -0 grep "^# $tool: confined " "$BATS_TEST_TMPDIR/h.txt"
	assert_output --regexp "^# $tool: confined seccomp=yes landlock=(abi[1-9][0-9]* paths=[1-9][0-9]*|no \(E[A-Z]+: [^)]+\)) files=(helper|paths \(E[A-Z]+: [^)]+\))\$"
	# Root reaches the targets' files through the helper.
	if [ "$EUID" -eq 0 ]; then
		assert_output --regexp " files=helper\$"
	fi
}

# assert_hook_confined TOOL CMD...: TOOL's test-hook build (make units),
# once confined, cannot open /etc/shadow but still reads /proc; the
# production binary carries no hook.
assert_hook_confined() {
	local tool=$1 hook
	shift
	[ -r /etc/shadow ] || skip "no readable /etc/shadow here"
	hook="${PF_UNIT_DIR:-$PF_ROOT/build/unit}/$tool-hook"
	[ -x "$hook" ] || fail "test build not made: $hook (run make units)"
	PF_TEST_OPEN=/etc/shadow run -0 --separate-stderr "$hook" -d 0.3 \
	    -o "$BATS_TEST_TMPDIR/s.txt" -- "$@"
	if grep -q "^# $tool: confined .* landlock=no (ENOSYS" "$BATS_TEST_TMPDIR/s.txt"; then
		skip "this kernel has no Landlock"
	fi
	[[ "$stderr" == *"test-hook: open /etc/shadow: EACCES"* ]] || fail "stderr: $stderr"
	PF_TEST_OPEN=/proc/self/status run -0 --separate-stderr "$hook" -d 0.3 \
	    -o "$BATS_TEST_TMPDIR/p.txt" -- "$@"
	[[ "$stderr" == *"test-hook: open /proc/self/status: ok"* ]] || fail "stderr: $stderr"
	# The same user reads /etc/shadow unconfined: the refusal is the confinement's.
	run -0 cat /etc/shadow
	run grep -c -a 'test-hook' "$PF_BIN_DIR/$tool"
	assert_output 0
}

# --- the recorders' streams, read alike for pf-record and pf-offcpu ---

# within A B TOL: |A - B| <= TOL
within() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

# valid_stream FILE: FILE is one whole stream of the recorder its header
# names, pf-record or pf-offcpu: the header first (its build-id lines
# before the first sample), whole samples of that recorder's event, one
# trailer, last, with bytes= equal to the file size, samples= the samples
# counted and incomplete-causes= exactly when incomplete= is not 0; prints
# the trailer's stop= word.  The header's and the trailer's words are each
# recorder's own (pf-offcpu's aggregated= above its rate cap).
valid_stream() {
	local size tool hdr event agg
	size=$(stat -c %s "$1") || return 1
	read -r _ tool _ < "$1" || true
	case $tool in
	pf-record)
		hdr='freq=[0-9]+ callgraph=(fp|dwarf stack=(65528|16384))( auto=(all-cpus|frame-pointers|freq-above-dwarf-ceiling|maps-unreadable|(no-frame-pointers|go):[^ ]+))? kernel-stacks=(yes|no)'
		event='cpu-clock(:u)?' agg=''
		;;
	pf-offcpu)
		hdr='event=offcpu-time unit=ns callgraph=(fp|dwarf stack=16384)( auto=(all-cpus|frame-pointers|maps-unreadable|switch-rate-unknown|switch-rate:[0-9]+|(no-frame-pointers|go):[^ ]+))? preempted=(included|excluded) min-block=[0-9]+us max-block=[0-9a-z]+ kernel-symbols=(yes|no) above-rate-cap=sum'
		event='offcpu-time' agg='(aggregated=[0-9]+ )?'
		;;
	*)
		echo "line 1: not a pf-record or pf-offcpu header: $(head -n 1 "$1")"
		return 1
		;;
	esac
	# The regular expressions built from strings hold no backslash: awk -v
	# would read it as an escape.
	awk -v size="$size" -v tool="$tool" -v hdr="$hdr" -v event="$event" -v agg="$agg" '
	BEGIN {
		hre = "^# " tool " 2 host=[^ ]+ kernel=[^ ]+ target=[^ ]+ " hdr " start=[0-9T:-]+Z$"
		sre = "^.+ +[0-9]+/[0-9]+ +[[][0-9][0-9][0-9][]] +[0-9]+[.][0-9][0-9][0-9][0-9][0-9][0-9]: +[0-9]+ " event ": $"
		tre = " samples=[0-9]+ lost=[0-9]+ throttled=[0-9]+ (truncated=[0-9]+ )?" agg "unknown-chain=[0-9]+ incomplete=[0-9]+ (incomplete-causes=[a-z-]+:[0-9]+(,[a-z-]+:[0-9]+)* )?(py-merged=[0-9]+ py-mismatch=[0-9]+ )?stop=[a-z-]+ bytes=[0-9]+$"
	}
	NR == 1 { if ($0 !~ hre) bad("header: " $0); header = $0; next }
	index($0, "# " tool ": samples=") == 1 { if (tline) bad("a second trailer"); trailer = $0; tline = NR; next }
	index($0, "# " tool) == 1 { if (insample || nsamples) bad("comment inside the stream: " $0); next }
	/^# build-id / { if (insample || nsamples) bad("build-id line inside the stream: " $0); if ($0 !~ /^# build-id ([0-9a-f][0-9a-f])+ [^ ]+( [0-9a-f]+:[0-9a-f]+:[0-9a-f]+)*$/) bad("build-id line: " $0); next }
	/^# python / { if (insample || nsamples) bad("python line inside the stream: " $0); if ($0 !~ /^# python pid=[0-9]+ version=([0-9]+[.][0-9]+([.][0-9]+)?|unknown) frames=(read|off reason=[a-z-]+)$/) bad("python line: " $0); next }
	/^$/ { if (!insample) bad("blank line outside a sample"); insample = 0; next }
	/^\t/ { if (!insample) bad("frame outside a sample"); if ($0 !~ /^\t *[0-9a-f]+ .+ \(.+\)$/) bad("frame: " $0); next }
	{ if (insample) bad("sample not ended"); if ($0 !~ sre) bad("sample header: " $0); insample = 1; nsamples++ }
	function bad(m) { print "line " NR ": " m; err = 1; exit 1 }
	END {
		if (err) exit 1
		if (insample) { print "last sample not ended"; exit 1 }
		if (tline != NR) { print "trailer not last"; exit 1 }
		if (trailer !~ tre) { print "trailer: " trailer; exit 1 }
		split(trailer, ic, " incomplete="); if ((ic[2] + 0 > 0) != (trailer ~ / incomplete-causes=/)) { print "incomplete-causes= without incomplete stacks, or missing with them: " trailer; exit 1 }
		if ((header ~ / callgraph=dwarf /) != (trailer ~ / truncated=/)) { print "truncated= without -g dwarf, or missing with it: " trailer; exit 1 }
		split(trailer, t, "bytes="); if (t[2] + 0 != size) { print "bytes=" t[2] " but size " size; exit 1 }
		split(trailer, s, "samples="); if (s[2] + 0 != nsamples) { print "samples " nsamples " but trailer " trailer; exit 1 }
		split(trailer, r, "stop="); sub(/ .*/, "", r[2]); print r[2]
	}' "$1"
}

# leaf_shares FILE: "function percent" for the first user frame of each
# sample of a pf-record stream, weighted by period (kernel frames above it
# are skipped).
leaf_shares() {
	awk '
	/^#/ || /^$/ { next }
	/^[^\t]/ { per = $(NF - 1) + 0; want = 1; next }
	want && !/kernel\.kallsyms|\(\[[a-z0-9_]+\]\)$/ {
		f = $2; sub(/\+0x[0-9a-f]+$/, "", f); w[f] += per; tot += per; want = 0
	}
	END { for (f in w) printf "%s %.1f\n", f, 100 * w[f] / tot }' "$1"
}

# share FILE FUNC: the leaf share of FUNC in FILE (0 if absent).
share() {
	leaf_shares "$1" | awk -v f="$2" '$1 == f { s = $2 } END { print s + 0 }'
}

# fold_share FOLDED FUNC: FUNC's share of the leaves of folded stacks.
fold_share() {
	awk -v f="$2" '{ n = $NF; leaf = $0; sub(/ [0-9]+$/, "", leaf); sub(/.*;/, "", leaf);
		sub(/_\[[kji]\]$/, "", leaf); tot += n; if (leaf == f) s += n }
		END { printf "%.1f\n", tot ? 100 * s / tot : 0 }' "$1"
}

# blocked FOLDED FUNC: nanoseconds of the stacks through FUNC ("" = all),
# in a pf-offcpu stream's folded stacks.
blocked() {
	awk -v f="$2" '{ n = $NF; if (f == "" || index($0, ";" f ";")) s += n } END { printf "%.0f\n", s }' "$1"
}

# assert_split STREAM [LO HI]: STREAM shows its workload's designed split,
# each share within 7 points.  A pf-record stream of rec-split: 50/30/20
# of the CPU in rec_alpha, rec_beta and rec_gamma, by leaf, and again in
# pf-fold's leaves when pf-fold is built.  A pf-offcpu stream of
# off-split: 60/40 of the blocked time in off_alpha and off_beta, whose
# total is between LO and HI seconds.
assert_split() {
	local tool f want got a b tot
	read -r _ tool _ < "$1" || true
	case $tool in
	pf-record)
		for f in rec_alpha:50 rec_beta:30 rec_gamma:20; do
			want=${f#*:}
			got=$(share "$1" "${f%:*}")
			within "$got" "$want" 7 || fail "${f%:*}: $got%, designed $want% ($(leaf_shares "$1" | tr '\n' ' '))"
		done
		if [ -x "$PF_BIN_DIR/pf-fold" ]; then
			"$PF_BIN_DIR/pf-fold" "$1" > "$BATS_TEST_TMPDIR/folded" || fail "pf-fold failed"
			for f in rec_alpha:50 rec_beta:30 rec_gamma:20; do
				got=$(fold_share "$BATS_TEST_TMPDIR/folded" "${f%:*}")
				within "$got" "${f#*:}" 7 || fail "pf-fold: ${f%:*}: $got%, designed ${f#*:}%"
			done
		fi
		;;
	pf-offcpu)
		[ $# -eq 3 ] || fail "assert_split $*: a pf-offcpu stream takes LO and HI seconds"
		pf-fold "$1" > "$BATS_TEST_TMPDIR/folded" || fail "pf-fold failed"
		a=$(blocked "$BATS_TEST_TMPDIR/folded" off_alpha)
		b=$(blocked "$BATS_TEST_TMPDIR/folded" off_beta)
		tot=$((a + b))
		[ "$tot" -gt 0 ] || fail "no off_alpha/off_beta time: $(cat "$BATS_TEST_TMPDIR/folded")"
		within "$(awk -v a="$a" -v t="$tot" 'BEGIN { print 100 * a / t }')" 60 7 ||
			fail "off_alpha $a ns of $tot: designed 60%"
		within "$(awk -v b="$b" -v t="$tot" 'BEGIN { print 100 * b / t }')" 40 7 ||
			fail "off_beta $b ns of $tot: designed 40%"
		awk -v t="$tot" -v lo="$2" -v hi="$3" 'BEGIN { exit !(t >= lo * 1e9 && t <= hi * 1e9) }' ||
			fail "total blocked ${tot} ns, want between $2 s and $3 s"
		;;
	*)
		fail "assert_split: $1 is not a pf-record or pf-offcpu stream"
		;;
	esac
}

# forge_symbol FILE: FILE becomes a copy of the rec-forge workload whose
# spinning function's symbol (a 122-byte placeholder) is rewritten, at the
# same length, to hold newlines and lines of a sample stream: a forged
# sample of a huge period in FORGED_FRAME and a forged disk-full trailer.
# A compiler will not emit such a name.
forge_symbol() {
	local forge off
	cp "$WORKLOADS/rec-forge" "$1"
	forge=$'x\n\nforged 1/1 [000] 1.000000: 9999999999 cpu-clock: \n\tffff FORGED_FRAME+0x0 (/x)\n\n# pf-record: samples=1 stop=disk-full\n'
	while [ ${#forge} -lt 122 ]; do forge="${forge}z"; done
	[ ${#forge} -eq 122 ] || fail "the forged name is ${#forge} bytes, not 122"
	grep -obUa 'forge_spin_Q*' "$1" | cut -d: -f1 > "$1.offsets"
	while read -r off; do
		printf '%s' "$forge" | dd of="$1" bs=1 seek="$off" conv=notrunc status=none
	done < "$1.offsets"
	rm -f "$1.offsets"
	nm "$1" | grep -q 'FORGED_FRAME' || fail "the symbol was not rewritten"
}

# rss_cap KB: the peak RSS a test allows a tool, in KB: KB itself, the
# bar the product must meet, or twice it for the sanitizer pass's build,
# whose shadow memory and freed-memory quarantine grow every process's
# RSS (a 64 MB bar measured 66-68 MB there on runs that met it plainly).
rss_cap() {
	if [[ "$PF_BIN_DIR" == */build-san/* ]]; then echo $(($1 * 2)); else echo "$1"; fi
}

# pid_list_misuse TOOL [ARGS...]: TOOL -p LIST ARGS refuses each bad list
# as a usage error (exit 2) worded as pf-record words it: the reason,
# then the synopsis, nothing on the standard output.
pid_list_misuse() {
	local tool=$1 c
	shift
	local -a cases=(
		"1,,2|-p: empty field in '1,,2'"
		"1,x|-p: invalid pid 'x'"
		",1|-p: empty field in ',1'"
		"1,|-p: empty field in '1,'"
		"$(seq -s, 1000 1064)|-p: more than 64 pids"
	)
	for c in "${cases[@]}"; do
		run --separate-stderr -2 "$tool" -p "${c%%|*}" "$@"
		[ "${stderr_lines[0]}" = "$tool: ${c#*|}" ] || fail "$tool -p ${c%%|*}: ${stderr_lines[0]}"
		[[ "${stderr_lines[1]}" == "usage: $tool "* ]] || fail "$tool: no synopsis: $stderr"
		[ -z "$output" ] || fail "$tool: output on misuse: $output"
	done
}

# make_static: make static in the tree under test, one at a time: the
# pf-static and pf-fleet suites may run in two lanes at once, and two
# makes writing the same objects and binaries can fail each other (most
# likely what made a CI rehearsal's fleet test say "make static failed"
# after 3 s, while pf-static ran; the same make alone then passed).
make_static() {
	mkdir -p "$PF_ROOT/build" || return 1
	flock "$PF_ROOT/build/.static.lock" make -s -C "$PF_ROOT" static
}

# assert_file_helper TOOL PID: the recording TOOL (PID) has one file
# helper (lib/common/mapfile.h), its child named TOOL-files, that holds
# CAP_DAC_READ_SEARCH, CAP_SYS_PTRACE, CAP_SYS_ADMIN and
# CAP_CHECKPOINT_RESTORE (those of them this shell's bounding set has)
# and no other, runs with no_new_privs under a seccomp filter, and holds
# one descriptor: its socket (none of the recorder's events, rings or
# output).
assert_file_helper() {
	local tool=$1 pid=$2 helper bnd want
	helper=$(pgrep -P "$pid" -x "${tool:0:9}-files")
	[ -n "$helper" ] || fail "no ${tool:0:9}-files child of $pid: $(ps -o pid,comm --ppid "$pid")"
	[ "$(wc -w <<<"$helper")" -eq 1 ] || fail "more than one helper: $helper"
	bnd=$(awk '/^CapBnd:/ { print $2 }' /proc/self/status)
	want=$(printf '%016x' $((0x$bnd & 0x10000280004)))
	run -0 grep -E '^(CapEff|CapPrm|CapInh|NoNewPrivs|Seccomp):' "/proc/$helper/status"
	assert_line --regexp "^CapEff:[[:space:]]+$want\$"
	assert_line --regexp "^CapPrm:[[:space:]]+$want\$"
	assert_line --regexp '^CapInh:[[:space:]]+0000000000000000$'
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'
	assert_line --regexp '^Seccomp:[[:space:]]+2$'
	run -0 ls "/proc/$helper/fd"
	[ "${#lines[@]}" -eq 1 ] || fail "the helper holds ${#lines[@]} descriptors: $(ls -l "/proc/$helper/fd")"
	[[ "$(readlink "/proc/$helper/fd/${lines[0]}")" == socket:* ]] || fail "its one descriptor is no socket"
}

#!/usr/bin/env bats
# lib/common unit checks: each test runs one table-driven group of
# tests/unit/test-common.c, or of another driver of tests/unit (test-classify:
# pf-classify's snapshots and figures; test-stacks: unwinding, symbols and
# the sample-stream writer; test-offcpu: the off-CPU pairing; test-pyframe:
# CPython's frames from memory images, its live interpreters in
# lib-pyframe.bats), and needs every check in it to pass.

load test_helper

# unit GROUP [DRIVER]: one group of DRIVER, test-common unless named.
unit() {
	local bin="${PF_UNIT_DIR:-$PF_ROOT/build/unit}/${2:-test-common}"
	[ -x "$bin" ] || fail "unit driver not built: $bin (run make units)"
	run --separate-stderr "$bin" "$1"
	[ "$status" -eq 0 ] || fail "$1: $stderr"
	[[ "$output" == "$1: "*" checks, 0 failed" ]] || fail "$1: $output"
}

offcpu() { unit "$1" test-offcpu; }
pyframe() { unit "$1" test-pyframe; }

@test "numbers, sizes and durations are parsed strictly" { unit parse; }
@test "folded lines give their stack and one or two counts" { unit folded; }
@test "the stack map sums counts and sorts byte-wise" { unit stackmap; }
@test "build-id lines are written and read back, malformed ones refused; a file offset becomes the file's address through the segments" { unit buildid; }
@test "the line reader returns every line, long or unterminated" { unit linereader; }
@test "output files are created 0600, never through a symlink, never clobbered without force" { unit outfile; }
@test "perf and kallsyms permission rules follow the kernel's" { unit privs; }
@test "the growable buffer appends and grows" { unit buf; }
@test "the growable array doubles from 16 without passing SIZE_MAX bytes, keeps its contents, and refuses a size past SIZE_MAX leaving the array and its capacity as they were" { unit grow; }
@test "the address search finds the last start at or below an address" { unit addrsearch; }
@test "the hash table finds every key it holds, through collisions and growth" { unit htab; }
@test "the interning table numbers keys of any bytes in order of first sight and gives them back whole, through collisions and growth, refusing a key past its most" { unit intern; }
@test "the classification tables pick the first matching class" { unit classify; }
@test "names demangle as perf prints them, within the caps on input and output" { unit demangle; }
@test "JIT maps are trusted only from root or the target, and read within caps" { unit jitmap; }
@test "names are cleaned for a terminal: every control and every byte that is not UTF-8 a '?'" { unit nameclean; }
@test "names are escaped for a stream: controls, ';' and the backslash as \\xHH and \\\\, nothing else changed" { unit nameescape; }
@test "thread names are kept by tid through growth, inherited and truncated" { unit comms; }
@test "the symbol check finds an ELF file's own symbol table and refuses a non-ELF file" { unit symfile; }
@test "kallsyms loads, sorts and finds symbols; no symbol at all is an empty table" { unit kallsyms; }
@test "/proc/PID/maps lines give their fields; a number past 64 bits refuses the line" { unit procmaps; }
@test "perfscript hands over each sample's event fields and frames as printed, and the comment lines" { unit perfscript; }
@test "perfscript asks a caller to name each [unknown] user frame, with its module as printed, its address and whether it is a return address, and folds the names given" { unit psunknown; }
@test "pprof profiles encode as the protocol buffers wire format says, string 0 empty" { unit pprof; }
@test "a recording's header and trailer become one provenance line that reads back" { unit provenance; }
@test "per-thread /proc files open below a task directory and re-read in place until the task exits" { unit procstat; }
@test "a -- CMD child: started, or its exec's error even when a signal ends the wait; a failed fork leaves no descriptor open" { unit spawn; }
@test "pf-classify's CPU figures: guest time out of user, a counter that went back counts 0, the busiest CPU matched by number" { unit cpu test-classify; }
@test "pf-classify's box figures: PSI missing at either end is unknown, itself taken off the run queue" { unit box test-classify; }
@test "pf-classify's process figures from two snapshots: threads matched by tid and start time, the CPUs it may use, the shares decided on" { unit pid test-classify; }
@test "pf-classify's figures of a group of processes as one: threads and samples pooled, shares of pooled counts, each cgroup's quota and throttling once" { unit group test-classify; }
@test "pf-classify's snapshots and sampling rounds read by path from a recorded tree, and the figures over them" { unit read test-classify; }
@test "pf-classify's live snapshots keep a thread's descriptors until freed; a process gone is not alive" { unit live test-classify; }
@test "the DWARF unwinder walks a stack of the unit binary's own to its return addresses; refused files, cut copies and forks" { unit unwind test-stacks; }
@test "the DWARF unwinder, the symbolizer and a target's paths and mappings: no FIFO opened, a pc in no mapping is unmapped, one in a mapping made after an exec is found" { unit unwind-hostile test-stacks; }
@test "frames symbolize to the unit binary's own functions, static and global, and offsets, inlined ones, kernel and JIT symbols, or nothing: in no mapping, or in the binary's text between two symbols" { unit symbolize test-stacks; }
@test "the symbol index names every address as a plain pass under perf's rule does, on the C library, python3.11, libstdc++ and libLLVM" { unit symindex test-stacks; }
@test "names as perf 6.1 prints them: which of glibc's aliases names an address, and PLT slots as name@plt" { unit names test-stacks; }
@test "the sample-stream writer writes byte for byte under its caps: the samples that fit the size cap and the disk floor and none after, a write error cut back to the last whole sample, each trailer as its contract says; the parser reads back what it wrote" { unit writer test-stacks; }
@test "a written stack is complete at an entry frame or an outermost one, else incomplete for the first cause that holds: chain into data, copy or frame limit, budget, unreadable file, no unwind information" { unit stack-end test-stacks; }
@test "Python frames take the place of the evaluation frames they ran in, group by group; a cut native stack or Python walk is merged as far as it goes; anything else is [py-mismatch]; names escaped" { unit pymerge test-stacks; }
@test "-g dwarf samples that wait for their mapping's record: at most 256 of them and 4 MiB of records, whatever the stack copy's size; the rest unwound as they come, none lost" { unit defer test-stacks; }
@test "every file a frame was marked in is listed once with its own build-id and executable segments, the mappings put back after a pass; a debug file names addresses only for its own build-id" { unit debugfile test-stacks; }
@test "off-CPU pairing: a switch-out sample and the thread's next switch-in make one interval; idle, lost and unfinished ones none" { offcpu pair; }
@test "off-CPU pairing: preempted intervals only with include_preempted" { offcpu preempt; }
@test "off-CPU pairing: --min-block and --max-block bounds are inclusive" { offcpu filter; }
@test "off-CPU pairing: a thread's exit drops its open interval; a switch-in at the same time still ends it" { offcpu exit; }
@test "off-CPU pairing: summed across drains, a record older than the last drain's newest still pairs; a switch-in older than its switch-out ends nothing" { offcpu order; }
@test "off-CPU pairing: summed per thread and stack, the totals are those of the intervals" { offcpu aggregate; }
@test "off-CPU pairing: summing keeps memory bounded by one drain and the stacks, and says when over the cap" { offcpu memory; }
@test "CPython's interpreter found in an ELF file: _PyRuntime, the version from Py_Version, the soname or the file name (python3.N only), 3.8 refused, a file without _PyRuntime or not ELF refused; libc's pthread tid offset" { pyframe pyelf; }
@test "CPython's line tables: the line of every instruction of some 500 code objects of each CPython present (3.9's co_lnotab, 3.10's co_linetable, 3.11+'s location table) is the one the interpreter itself gives; a hostile table gives no line, within its bytes" { pyframe pylines; }
@test "CPython's frames from hostile memory: a cyclic chain, a garbage pointer and a looping thread list end the walk with their status, a bogus or too long name is refused whole, a 100k-deep chain stops at 256 frames in bounded reads, strings of every kind decoded or marked, 3.13's debug offsets refused when wrong" { pyframe pyhostile; }

#!/bin/sh
# bench/pf-record-helper.sh: what the recorders' file helper costs.  The
# confined recorder asks it for each executable file a target maps during
# the window (and for a container's JIT map): one request over a socket
# pair, the helper's open of /proc/PID/map_files/START-END, the descriptor
# passed back.  That is per file, never per sample.
#   1. The mean cost of a file through the helper, beside the same open
#      made directly (tests/unit/test-confine helper-bench, N files).
#      Then a 64- and a 4096-byte read of a target's memory through it
#      (one request, process_vm_readv there, the bytes sent back), beside
#      process_vm_readv made directly: the Python frames of issue 20 are
#      read so, several reads a sample.
#   2. A target that loads LIBS libraries while it is recorded (rec-bomb
#      dlopen, -- CMD: every one arrives during the window): the files
#      asked and opened, and the time from the window's end to the last
#      byte, with -g fp and -g dwarf.  (The recorder's own CPU is not
#      separated here from its command's, which time(1) adds to it.)
# Bar: a file through the helper under 1 ms, a memory read under 100 us.
set -eu
cd "$(dirname "$0")/.."
N=${N:-5000}
LIBS=${LIBS:-200}
OUT=build/bench/pf-record-helper
mkdir -p "$OUT"

if [ "$(id -u)" -ne 0 ]; then
	echo "pf-record helper bench: skipped: the helper needs root's capabilities"
	exit 0
fi
if [ ! -x build/unit/test-confine ]; then
	echo "pf-record helper bench: skipped: build/unit/test-confine not built (make units)"
	exit 0
fi
if ! bin/pf-record -d 1 --min-free 0 -o "$OUT/probe.txt" --force -- true 2>/dev/null; then
	echo "pf-record helper bench: skipped: perf events not available here"
	exit 0
fi

build/unit/test-confine helper-bench "$N" > "$OUT/bench" || echo "bench: test-confine helper-bench failed (status $?)"
read -r _ hns _ dns < "$OUT/bench"
echo "one file through the helper: $hns ns; opened directly: $dns ns ($N files each)"
awk -v h="$hns" 'BEGIN { exit !(h < 1000000) }' || echo "bench: over the bar: a file through the helper takes $hns ns"
for len in 64 4096; do
	read -r _ _ hns _ dns <<EOF
$(grep "^read-$len " "$OUT/bench")
EOF
	echo "one $len-byte memory read through the helper: $hns ns; process_vm_readv directly: $dns ns ($N reads each)"
	awk -v h="$hns" 'BEGIN { exit !(h < 100000) }' || echo "bench: over the bar: a $len-byte read through the helper takes $hns ns"
done

printf 'int lib_fn(int x) { return x * 3; }\n' > "$OUT/l.c"
cc -shared -fPIC -O1 -o "$OUT/l.so" "$OUT/l.c"
for g in fp dwarf; do
	rm -rf "$OUT/libs"
	mkdir -p "$OUT/libs"
	bin/pf-record -g "$g" --stats --no-progress --min-free 0 \
	    -d 10 -o "$OUT/rec.txt" --force -- build/workloads/rec-bomb dlopen "$OUT/l.so" \
	    "$OUT/libs" "$LIBS" 1 > /dev/null 2> "$OUT/stats" || true
	stats=$(grep 'stats:' "$OUT/stats" || true)
	word() { printf '%s\n' "$stats" | awk -v w="$1" '{ for (i = 1; i < NF; i++) if ($i == w) print $(i + 1) }'; }
	echo "-g $g, $LIBS libraries loaded in the window: helper asked $(word helper-asked), opened $(word helper-opened); last byte $(word window-end-to-last-byte) after the window"
done

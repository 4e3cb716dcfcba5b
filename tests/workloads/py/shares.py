# shares.py [SECONDS [COUNTFILE]]: a service loop, main -> serve ->
# handler, whose handler spends 50/30/20% of its time in parse_payload,
# render_template and checksum.  The three run the same loop body, sized
# by their iteration counts (5:3:2), so the split holds on every CPython
# whatever its speed (3.9 to 3.13 and Debian's python3.11, measured with
# time.perf_counter: within 1 point).  Runs until killed, or SECONDS; with
# COUNTFILE, writes "CALLS SECONDS" there at the end: handler calls and the
# time they took, the rate bench/pf-record-python.sh compares.
import sys
import time

# Each call runs for tens of milliseconds (parse_payload some 25 to 50 ms):
# far longer than the 0.1 to a few ms after its sample that a read of the
# Python frames lands, so the samples marked [py-mismatch] (read once the
# thread had moved on, more often near a function's end) take next to
# nothing from the shorter functions' shares.
UNIT = 100000


def parse_payload(seed):
    s = seed
    for i in range(5 * UNIT):
        s = (s * 31 + i) & 0xFFFF
    return s


def render_template(seed):
    s = seed
    for i in range(3 * UNIT):
        s = (s * 31 + i) & 0xFFFF
    return s


def checksum(seed):
    s = seed
    for i in range(2 * UNIT):
        s = (s * 31 + i) & 0xFFFF
    return s


def handler(seed):
    return checksum(render_template(parse_payload(seed)))


def serve(end):
    calls = 0
    seed = 1
    while end is None or time.monotonic() < end:
        for _ in range(10):
            seed = handler(seed)
        calls += 10
    return calls


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else None
    t0 = time.monotonic()
    calls = serve(None if secs is None else t0 + secs)
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write("%d %.6f\n" % (calls, time.monotonic() - t0))


main()

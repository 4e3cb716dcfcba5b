# deep.py [SECONDS]: recurse 80 calls deep (81 frames of recurse), then
# spin at the bottom in pure Python.  Runs until killed, or SECONDS.
import sys
import time

DEPTH = 80


def recurse(n, end):
    if n > 0:
        return recurse(n - 1, end)
    s = 0
    while end is None or time.monotonic() < end:
        for i in range(10000):
            s = (s * 31 + i) & 0xFFFF
    return s


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else None
    recurse(DEPTH, None if secs is None else time.monotonic() + secs)


main()

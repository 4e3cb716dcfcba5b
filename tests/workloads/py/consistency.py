# consistency.py [SECONDS]: switches about every millisecond between four
# functions, each spending its time in a native function of its own:
#
#   use_crc32    zlib.crc32 over a buffer     libz's crc32_z
#   use_adler32  zlib.adler32 over a buffer   libz's adler32_z
#   use_sha256   hashlib.sha256 over a buffer libcrypto's SHA-256 block
#                function, which Debian's libcrypto.so.3 leaves unnamed
#                ([libcrypto.so.3] folded, under SHA256_Update)
#   use_getpid   os.getpid in a loop          libc's getpid (__GI_getpid by
#                its DWARF, __getpid by its symbol), then the kernel
#
# (as perf 6.1's report and pf-record name them, on 3.9, 3.11 and 3.13.)
#
# A sample whose native leaf is one of these names was taken while the
# function beside it ran: a recorder that read the Python frames at
# another moment than the native ones puts one under another's.  The
# buffers are sized at start-up so that each call takes about 1 ms.
# Runs until killed, or SECONDS.
import hashlib
import os
import sys
import time
import zlib

SLICE = 0.001


def use_crc32(buf):
    return zlib.crc32(buf)


def use_adler32(buf):
    return zlib.adler32(buf)


def use_sha256(buf):
    return hashlib.sha256(buf).digest()


def use_getpid(n):
    p = 0
    for _ in range(n):
        p = os.getpid()
    return p


def sized(fn, make, start):
    """The argument for which one call of fn takes about SLICE."""
    n = start
    while True:
        arg = make(n)
        t0 = time.perf_counter()
        for _ in range(5):
            fn(arg)
        t = (time.perf_counter() - t0) / 5
        if t >= SLICE / 2 or n > 1 << 28:
            return make(max(1, int(n * SLICE / max(t, 1e-9))))
        n *= 2


def main():
    end = time.monotonic() + float(sys.argv[1]) if len(sys.argv) > 1 else None
    blob = lambda n: b"\xa5" * n
    work = [
        (use_crc32, sized(use_crc32, blob, 4096)),
        (use_adler32, sized(use_adler32, blob, 4096)),
        (use_sha256, sized(use_sha256, blob, 4096)),
        (use_getpid, sized(use_getpid, lambda n: n, 64)),
    ]
    while end is None or time.monotonic() < end:
        for fn, arg in work:
            fn(arg)


main()

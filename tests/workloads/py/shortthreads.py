# shortthreads.py [SECONDS]: a thread per job, as a server that starts
# one per request: each runs short_job for some 4 ms of CPU and ends,
# and the main thread starts the next once it has (it waits in join
# meanwhile).  Runs until killed, or SECONDS.
import sys
import threading
import time


def short_job():
    s = 0
    end = time.perf_counter() + 0.004
    while time.perf_counter() < end:
        s += 1
    return s


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else None
    end = None if secs is None else time.monotonic() + secs
    while end is None or time.monotonic() < end:
        t = threading.Thread(target=short_job)
        t.start()
        t.join()


main()

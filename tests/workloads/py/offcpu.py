# offcpu.py [SECONDS]: a thread that waits for jobs, blocked in
# time.sleep(0.2) inside wait_for_job, beside a main thread doing little
# (it sleeps too, outside wait_for_job).  Prints "ready TID" (the waiting
# thread's native id) once it runs.  Runs until killed, or SECONDS.
import sys
import threading
import time


def wait_for_job():
    time.sleep(0.2)


def worker(ids):
    ids.append(threading.get_native_id())
    while True:
        wait_for_job()


def main():
    ids = []
    threading.Thread(target=worker, args=(ids,), daemon=True).start()
    while not ids:
        time.sleep(0.01)
    sys.stdout.write("ready %d\n" % ids[0])
    sys.stdout.flush()
    end = time.monotonic() + float(sys.argv[1]) if len(sys.argv) > 1 else None
    while end is None or time.monotonic() < end:
        time.sleep(1)


main()

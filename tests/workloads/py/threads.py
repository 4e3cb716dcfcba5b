# threads.py [SECONDS]: four threads, each spinning in a function of its
# own (t_alpha, t_beta, t_gamma, t_delta), pure Python; the main thread
# waits.  Prints "ready TID TID TID TID" (the native thread ids, in that
# order) once all four run.  Runs until killed, or SECONDS.
import sys
import threading
import time


def t_alpha(ids):
    ids[0] = threading.get_native_id()
    n = 0
    while True:
        n = (n + 1) & 0xFFFF


def t_beta(ids):
    ids[1] = threading.get_native_id()
    n = 0
    while True:
        n = (n + 3) & 0xFFFF


def t_gamma(ids):
    ids[2] = threading.get_native_id()
    n = 0
    while True:
        n = (n + 5) & 0xFFFF


def t_delta(ids):
    ids[3] = threading.get_native_id()
    n = 0
    while True:
        n = (n + 7) & 0xFFFF


def main():
    ids = [0, 0, 0, 0]
    for fn in (t_alpha, t_beta, t_gamma, t_delta):
        threading.Thread(target=fn, args=(ids,), daemon=True).start()
    while 0 in ids:
        time.sleep(0.01)
    sys.stdout.write("ready %d %d %d %d\n" % tuple(ids))
    sys.stdout.flush()
    if len(sys.argv) > 1:
        time.sleep(float(sys.argv[1]))
    else:
        while True:
            time.sleep(3600)


main()

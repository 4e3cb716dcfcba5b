# cext.py [SECONDS]: render calls json.dumps on a nested object of some
# 2,000 records in a loop: the time goes to the C encoder of the _json
# module.  Runs until killed, or SECONDS.
import json
import sys
import time

DATA = {
    "items": [
        {"id": i, "name": "item%d" % i, "tags": ["a", "b", "c"], "price": i * 1.5,
         "stock": {"here": i % 7, "there": [i, i + 1, i + 2]}}
        for i in range(2000)
    ],
    "meta": {"page": 1, "of": 10},
}


def render(data):
    return json.dumps(data)


def main():
    end = time.monotonic() + float(sys.argv[1]) if len(sys.argv) > 1 else None
    while end is None or time.monotonic() < end:
        render(DATA)


main()

#!/usr/bin/env python3
"""Server time of CF.INSERT batches on a key that grows, next to a key
reserved large enough never to grow (same items, same run): what growth
costs per inserted item.  A benchmark, not a test (timings vary).

    /usr/bin/python3 redis/bench_growth.py path/to/cuckoo.so [items] [expansion]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cfr_testlib import Server  # noqa: E402


def run(r, key, items, batch):
    total = 0.0
    for i in range(0, len(items), batch):
        r.config_resetstat()
        r.execute_command("CF.INSERT", key, "ITEMS", *items[i:i + batch])
        total += r.info("commandstats")["cmdstat_cf.insert"]["usec"]
    return total


def main():
    so = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
    expansion = sys.argv[3] if len(sys.argv) > 3 else "2"
    batch = 1000
    with Server(so) as srv:
        r = srv.client()
        items = ["item:%d" % i for i in range(n)]
        r.execute_command("CF.RESERVE", "grows", 1000, "EXPANSION", expansion)
        r.execute_command("CF.RESERVE", "big", n * 2, "EXPANSION", expansion)
        t_big = run(r, "big", items, batch)
        t_grow = run(r, "grows", items, batch)
        info = r.execute_command("CF.INFO", "grows")
        tables = info[info.index(b"Number of filters") + 1]
        print("%d items in CF.INSERT batches of %d, EXPANSION %s" % (n, batch, expansion))
        print("  growing key (%d sub-filters): %.0f us per 1,000-item CF.INSERT" % (tables, t_grow / (n / batch)))
        print("  key that never grows:          %.0f us per 1,000-item CF.INSERT" % (t_big / (n / batch)))


if __name__ == "__main__":
    main()

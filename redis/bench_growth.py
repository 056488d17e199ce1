#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""What growth costs a key, in server time (INFO commandstats, so the
client and the network are left out): the same items inserted into a key
reserved for 1,000 that grows by the chain (EXPANSION e), one that grows in
place (GROWTH INPLACE), and keys reserved large enough never to grow (one
of each kind); then CF.EXISTS and CF.MEXISTS on items present and absent.
A chain key probes every sub-filter on a lookup; an in-place key reads two
buckets however often it doubled.  A benchmark, not a test (timings vary).

    /usr/bin/python3 redis/bench_growth.py path/to/cuckoo.so [items] [expansion]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests"))
from cfr_testlib import Server  # noqa: E402

BATCH = 1000


def usec(r, cmd, send):
    """Server time of the calls send() makes, in microseconds."""
    r.config_resetstat()
    send()
    return r.info("commandstats")["cmdstat_" + cmd]["usec"]


def insert(r, key, items):
    def send():
        for i in range(0, len(items), BATCH):
            r.execute_command("CF.INSERT", key, "ITEMS", *items[i:i + BATCH])
    return usec(r, "cf.insert", send) / len(items)


def mexists(r, key, items):
    def send():
        for i in range(0, len(items), BATCH):
            r.execute_command("CF.MEXISTS", key, *items[i:i + BATCH])
    return usec(r, "cf.mexists", send) * 1000 / len(items)


def exists(r, key, items):
    def send():
        p = r.pipeline(transaction=False)
        for i, it in enumerate(items):
            p.execute_command("CF.EXISTS", key, it)
            if i % BATCH == BATCH - 1:
                p.execute()
        p.execute()
    return usec(r, "cf.exists", send) * 1000 / len(items)


def field(r, key, name, default=None):
    flat = r.execute_command("CF.INFO", key)
    names = [x.decode() if isinstance(x, bytes) else x for x in flat[0::2]]
    return flat[2 * names.index(name) + 1] if name in names else default


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    so = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
    expansion = sys.argv[3] if len(sys.argv) > 3 else "2"
    rounds = 5
    present = ["item:%d" % i for i in range(n)]
    probes = min(n, 100000)
    hits = present[:: max(1, n // probes)][:probes]
    misses = ["absent:%d" % i for i in range(probes)]
    keys = [
        ("chain, grown", "chain", ("CF.RESERVE", "chain", 1000, "EXPANSION", expansion)),
        ("in place, grown", "inplace", ("CF.RESERVE", "inplace", 1000, "GROWTH", "INPLACE")),
        ("chain, reserved for 2n (never grows)", "chain-big",
         ("CF.RESERVE", "chain-big", n * 2, "EXPANSION", expansion)),
        ("in place, reserved for n (never doubles)", "inplace-big",
         ("CF.RESERVE", "inplace-big", n, "GROWTH", "INPLACE")),
    ]
    with Server(so, module_args=["MAX_FILTERS", "64"]) as srv:
        r = srv.client()
        rows = {}
        for name, key, reserve in keys:
            r.execute_command(*reserve)
            t_ins = insert(r, key, present)
            rows[key] = [name, field(r, key, "Number of filters"), field(r, key, "Doublings", "-"),
                         field(r, key, "Size") / n, t_ins,
                         sum(r.execute_command("CF.MEXISTS", key, *misses)) / len(misses)]
        # Lookups in rounds, the keys interleaved, medians: other jobs on the
        # machine then weigh on every key alike.
        probe = {key: [[], [], [], []] for _, key, _ in keys}
        for _ in range(rounds):
            for _, key, _ in keys:
                for i, (fn, items) in enumerate(((exists, hits), (exists, misses),
                                                 (mexists, hits), (mexists, misses))):
                    probe[key][i].append(fn(r, key, items))
        print("%d items (CF.INSERT batches of %d); lookups: %d hits and %d misses, medians of %d "
              "rounds; EXPANSION %s" % (n, BATCH, probes, probes, rounds, expansion))
        print("| key | tables | doublings | bytes/item | insert us/item | CF.EXISTS hit ns "
              "| CF.EXISTS miss ns | CF.MEXISTS hit ns/item | CF.MEXISTS miss ns/item | FPP |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for _, key, _ in keys:
            name, tables, doublings, bpi, ins, fp = rows[key]
            med = [median(v) for v in probe[key]]
            print("| %s | %s | %s | %.2f | %.2f | %.0f | %.0f | %.0f | %.0f | %.3f%% |"
                  % (name, tables, doublings, bpi, ins, med[0], med[1], med[2], med[3], 100 * fp))


if __name__ == "__main__":
    main()

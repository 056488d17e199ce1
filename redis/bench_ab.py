#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Two builds of cuckoo.so side by side: the same keys (a plain key
reserved for n, a chain and an in-place key reserved for 1,000 and grown to
n) built in two redis-servers by CF.INSERT batches of 1,000 (and once more
by CF.INSERTNX, half the items new), then CF.MEXISTS of 1,000 present and
1,000 absent items; server CPU per item
from INFO commandstats (the client and the socket left out), the two
servers taking turns in each round, medians and the range of the rounds'
ratios.  Checks on the way that both builds made the same bytes
(CF.SCANDUMP) and give the same answers.  A benchmark, not a test.

    /usr/bin/python3 redis/bench_ab.py BEFORE.so AFTER.so [items] [rounds]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests"))
from cfr_testlib import Server, dump  # noqa: E402

BATCH = 1000


def server_ns(r, cmd, send, items):
    r.config_resetstat()
    send()
    return r.info("commandstats")["cmdstat_" + cmd]["usec"] * 1000 / items


def fill(r, key, items, cmd="CF.INSERT"):
    def send():
        for i in range(0, len(items), BATCH):
            r.execute_command(cmd, key, "ITEMS", *items[i:i + BATCH])
    return server_ns(r, cmd.lower(), send, len(items))


def mexists(r, key, items):
    def send():
        for i in range(0, len(items), BATCH):
            r.execute_command("CF.MEXISTS", key, *items[i:i + BATCH])
    return server_ns(r, "cf.mexists", send, len(items))


def key_bytes(r, key):
    """The key's dump without the iterators (they carry its generation)."""
    return [data for _, data in dump(r, key)]


def median(xs):
    return sorted(xs)[len(xs) // 2]


def main():
    before, after = (os.path.abspath(p) for p in sys.argv[1:3])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 1000000
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    present = ["item:%d" % i for i in range(n)]
    hits = present[:: max(1, n // 100000)][:100000]
    misses = ["absent:%d" % i for i in range(100000)]
    kinds = [("plain, reserved for n", [n, "BUCKETSIZE", 4]),
             ("chain, grown", [1000, "EXPANSION", 2]),
             ("in place, grown", [1000, "GROWTH", "INPLACE"])]
    times = {}
    args = ["MAX_FILTERS", "64"]
    with Server(before, module_args=args) as a, Server(after, module_args=args) as b:
        sides = {"before": a.client(), "after": b.client()}
        for rnd in range(rounds):
            order = ("before", "after") if rnd % 2 == 0 else ("after", "before")
            for kind, opts in kinds:
                key = "k%d-%d" % (rnd, kinds.index((kind, opts)))
                for side in order:
                    sides[side].execute_command("CF.RESERVE", key, *opts)
                    times.setdefault((kind, "insert", side), []).append(
                        fill(sides[side], key, present))
                    nx_key = key + "-nx"
                    sides[side].execute_command("CF.RESERVE", nx_key, *opts)
                    fill(sides[side], nx_key, present[::2])
                    times.setdefault((kind, "insertnx", side), []).append(
                        fill(sides[side], nx_key, present, "CF.INSERTNX"))
                for k in (key, key + "-nx"):
                    if key_bytes(sides["before"], k) != key_bytes(sides["after"], k):
                        sys.exit("%s: the two builds made different bytes" % kind)
                for what, items in (("hit", hits), ("miss", misses)):
                    for side in order:
                        times.setdefault((kind, what, side), []).append(
                            mexists(sides[side], key, items))
                    probe = items[:5000]
                    if (sides["before"].execute_command("CF.MEXISTS", key, *probe) !=
                            sides["after"].execute_command("CF.MEXISTS", key, *probe)):
                        sys.exit("%s: the two builds answer differently" % kind)
    print("%d items (CF.INSERT batches of %d), CF.MEXISTS of %d hits and %d misses in batches "
          "of %d; server ns per item, medians of %d rounds, after/before [range]"
          % (n, BATCH, len(hits), len(misses), BATCH, rounds))
    print()
    print("| key | operation | before | after | ratio |")
    print("| --- | --- | ---: | ---: | --- |")
    for kind, _ in kinds:
        for what, label in (("insert", "CF.INSERT"), ("insertnx", "CF.INSERTNX, half new"),
                            ("hit", "CF.MEXISTS present"),
                            ("miss", "CF.MEXISTS absent")):
            b, a = times[(kind, what, "before")], times[(kind, what, "after")]
            ratios = sorted(x / y for x, y in zip(a, b))
            print("| %s | %s | %.0f | %.0f | %.2f [%.2f-%.2f] |"
                  % (kind, label, median(b), median(a), median(ratios), ratios[0], ratios[-1]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The package against Python's set and a pure-Python cuckoo filter
(purecuckoo.py): the same keys, one run each, nanoseconds per key.

    python3 python/bench/bench_python.py [--keys N]

Targets (issue 14): f.add(k) and `k in f`, one call at a time, within 2x of
set's time; update() and contains_many() at least 25x faster per key than
the pure-Python filter's add and `in`.  Timings vary with the machine's load;
compare ratios from one run."""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cuckoofilter as cf  # noqa: E402
from purecuckoo import PureCuckooFilter  # noqa: E402


def per_key(fn, keys):
    t = time.perf_counter_ns()
    fn(keys)
    return (time.perf_counter_ns() - t) / len(keys)


def loop_add(add):
    def run(keys):
        for k in keys:
            add(k)
    return run


def loop_in(container):
    def run(keys):
        n = 0
        for k in keys:
            if k in container:
                n += 1
        assert n >= len(keys) * 0.99  # members (the pure filter may have dropped a few)
    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=300_000)
    n = ap.parse_args().keys
    keys = [f"key:{i}" for i in range(n)]
    for k in keys:
        hash(k)  # str caches its hash: every contender sees warm keys

    s, pure = set(), PureCuckooFilter(capacity=n)
    # The same table as the pure-Python filter's: its bucket count (a power
    # of two), 4 slots, 12-bit fingerprints, so both work at the same load.
    shape = dict(num_buckets=pure.nb, bucket_size=4, fingerprint_bits=12)
    f, g = cf.CuckooFilter(**shape), cf.CuckooFilter(**shape)
    r = {
        "set.add": per_key(loop_add(s.add), keys),
        "set in": per_key(loop_in(s), keys),
        "pure add": per_key(loop_add(pure.add), keys),
        "pure in": per_key(loop_in(pure), keys),
        "f.add": per_key(loop_add(f.add), keys),
        "f in": per_key(loop_in(f), keys),
        "f.update": per_key(g.update, keys),
        "f.contains_many": per_key(lambda ks: g.contains_many(ks), keys),
    }
    assert f == g
    print(f"{n:,} str keys into {pure.nb:,} buckets x 4 slots, 12-bit fingerprints "
          f"(load {n / (4 * pure.nb):.0%}); one run each, ns per key\n")
    for name, ns in r.items():
        print(f"  {name:<18} {ns:8.1f}")
    checks = [
        ("f.add / set.add", r["f.add"] / r["set.add"], "<= 2", r["f.add"] <= 2 * r["set.add"]),
        ("f in / set in", r["f in"] / r["set in"], "<= 2", r["f in"] <= 2 * r["set in"]),
        ("pure add / f.update", r["pure add"] / r["f.update"], ">= 25",
         r["pure add"] >= 25 * r["f.update"]),
        ("pure in / f.contains_many", r["pure in"] / r["f.contains_many"], ">= 25",
         r["pure in"] >= 25 * r["f.contains_many"]),
    ]
    print("\n  ratio                        measured  target")
    for name, ratio, target, ok in checks:
        print(f"  {name:<28} {ratio:8.2f}  {target:<6} {'met' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""update() and contains_many() against the pure-Python cuckoo filter
(purecuckoo.py) over the same 1M int keys: the ratio issue 32 holds the
package to (at least 25x; it had slipped to 11x for contains_many and 20x
for update).  A benchmark, not a test: it prints the numbers and the ratios
and exits 0 whatever they are.

    PYTHONPATH=build/test-gcc/python /usr/bin/python3 python/bench/bench_bulk.py \\
        [--keys 1000000] [--reps 7] [--base OTHER_BUILD/python]

Both filters hold the same keys (random 63-bit ints; str keys too for the
package) in the same table: the pure filter's power-of-two bucket count
(2^19 for 1M keys: 48% load), 4 slots a bucket, 12-bit fingerprints.
Figures are ns per key in the calling thread's CPU time (time.thread_time_ns,
what a shared machine's load disturbs least), the best and the median of
--reps runs.  A list comprehension over a set gives the floor of any
per-key Python work.

--base loads another build of the extension (its python/ directory, e.g.
main's) into the same process, under another name, and runs its calls
interleaved with this one's, round by round: the base/this ratio of each
call's median is what a change to python/src did, with the machine's load
shared by both (the A/B the slip needed to be caught)."""

import argparse
import glob
import importlib.util
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cuckoofilter as cf  # noqa: E402
from purecuckoo import PureCuckooFilter  # noqa: E402


def cpu_ns(run):
    t = time.thread_time_ns()
    run()
    return time.thread_time_ns() - t


def load_extension(tag, python_dir):
    """The extension module of another build, importable beside this one."""
    found = glob.glob(os.path.join(python_dir, "cuckoofilter", "_cuckoofilter*.so"))
    if not found:
        sys.exit(f"no cuckoofilter/_cuckoofilter*.so under {python_dir}")
    spec = importlib.util.spec_from_file_location(tag + "._cuckoofilter", found[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--base", help="another build's python/ directory, run interleaved")
    args = ap.parse_args()
    n, reps = args.keys, args.reps
    # Random 63-bit ints: Python's hash(int) is the int itself, whose high
    # 32 bits (the pure filter's bucket index) are 0 for small ones.
    rng = random.Random(32)
    ints = list(dict.fromkeys(rng.getrandbits(63) for _ in range(n + 1000)))[:n]
    strs = [f"key:{i}" for i in range(n)]
    for k in strs:
        hash(k)  # str caches its hash: every contender sees warm keys

    pure_capacity = int(n * 1.1)  # 2^19 buckets for 1M keys
    nb = PureCuckooFilter(capacity=pure_capacity).nb

    def pure_add():
        p = PureCuckooFilter(capacity=pure_capacity, fingerprint_bits=12)
        add = p.add
        t = time.thread_time_ns()
        for k in ints:
            add(k)
        return time.thread_time_ns() - t, p

    times = {}
    pure = None
    for _ in range(max(1, reps // 3)):  # a second a run: fewer of them
        t, pure = pure_add()
        times.setdefault("pure add", []).append(t)

    def pure_in():
        found = 0
        for k in ints:
            if k in pure:
                found += 1
        assert found >= 0.99 * n  # the pure filter drops a fingerprint when kicks run out

    for _ in range(max(1, reps // 3)):
        times.setdefault("pure in", []).append(cpu_ns(pure_in))
    s = set(ints)
    for _ in range(reps):
        times.setdefault("[k in set]", []).append(cpu_ns(lambda: [k in s for k in ints]))

    builds = [("this", sys.modules["cuckoofilter._cuckoofilter"])]
    if args.base:
        builds.append(("base", load_extension("cfbase", args.base)))
    for r in range(reps):
        for tag, m in builds if r % 2 == 0 else builds[::-1]:  # neither always goes first
            for kind, keys in (("int", ints), ("str", strs)):
                f = m.CuckooFilter(num_buckets=nb, bucket_size=4, fingerprint_bits=12)
                times.setdefault(f"{tag} f.update {kind}", []).append(
                    cpu_ns(lambda: f.update(keys)))
                times.setdefault(f"{tag} f.contains_many {kind}", []).append(
                    cpu_ns(lambda: f.contains_many(keys)))
                assert all(f.contains_many(keys[:1000]))

    best = {k: min(v) / n for k, v in times.items()}
    med = {k: statistics.median(v) / n for k, v in times.items()}
    print(f"{n:,} keys into {nb:,} buckets x 4 slots x 12 bits (load {n / (4 * nb):.0%}), "
          f"{cf.library_version}, {reps} runs, load average {os.getloadavg()[0]:.1f}")
    print(f"  {'ns per key (cpu)':<30}{'best':>8}{'median':>8}")
    for name in times:
        print(f"  {name:<30}{best[name]:8.1f}{med[name]:8.1f}")
    print(f"  {'ratio (cpu, best)':<44}{'measured':>9}{'target':>8}")
    for tag, _ in builds:
        for what, pure_name, ours in (("pure add / f.update", "pure add", "f.update int"),
                                      ("pure in / f.contains_many", "pure in",
                                       "f.contains_many int")):
            ratio = best[pure_name] / best[f"{tag} {ours}"]
            print(f"  {tag + ': ' + what:<44}{ratio:9.1f}{'>= 25':>8}")
    if args.base:
        print(f"  {'base / this (medians)':<44}")
        for op in ("f.update int", "f.contains_many int", "f.update str", "f.contains_many str"):
            print(f"  {op:<44}{med['base ' + op] / med['this ' + op]:9.2f}")


if __name__ == "__main__":
    main()

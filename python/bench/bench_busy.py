#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""update() alone and beside a thread busy in Python code: what the busy
thread costs a bulk call, measured so that the machine's load disturbs it
little.

    python3 python/bench/bench_busy.py [--keys N] [--reps R] [--kind int|str]

Issue 23's target: update() beside a busy thread within 2x of its time
alone.  A bulk call releases the GIL while the library works on each chunk
of keys; a thread spinning in Python takes the GIL then, and gives it back
only when asked, after the switch interval (sys.getswitchinterval(), 5 ms
by default).  So each chunk can cost the call up to one switch interval of
waiting, whatever the machine's load; on a loaded machine the spinning
thread also takes a CPU.  Each repetition reports, for the calling thread:

  wall        perf_counter around the call
  cpu         time.thread_time around it: the CPU the call itself used
  switches    voluntary context switches (getrusage RUSAGE_THREAD): waits,
              for the GIL mostly

and the figures printed are medians over --reps (alone and busy
interleaved), with the busy/alone ratios of the medians."""

import argparse
import os
import resource
import statistics
import sys
import time

import cuckoofilter as cf
from bench_python import busy_thread  # the same spinning thread (this directory)


def one_call(keys, capacity):
    f = cf.CuckooFilter(capacity=capacity)
    r0 = resource.getrusage(resource.RUSAGE_THREAD)
    c0, w0 = time.thread_time(), time.perf_counter()
    f.update(keys)
    w1, c1 = time.perf_counter(), time.thread_time()
    r1 = resource.getrusage(resource.RUSAGE_THREAD)
    assert len(f) == len(keys)
    return w1 - w0, c1 - c0, r1.ru_nvcsw - r0.ru_nvcsw


def median_of(runs):
    return [statistics.median(col) for col in zip(*runs)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=4_000_000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--kind", choices=("int", "str"), default="int")
    args = ap.parse_args()
    n = args.keys
    keys = list(range(n)) if args.kind == "int" else [f"user:{i}" for i in range(n)]
    capacity = n + n // 4
    alone, busy = [], []
    one_call(keys[: n // 10], capacity)  # warm the allocator and the code
    for _ in range(args.reps):  # interleaved, so both see the same load
        alone.append(one_call(keys, capacity))
        end = busy_thread()
        try:
            busy.append(one_call(keys, capacity))
        finally:
            end()
    a, b = median_of(alone), median_of(busy)
    print(f"update() of {n:,} {args.kind} keys, medians of {args.reps}; switch interval "
          f"{sys.getswitchinterval() * 1e3:g} ms; {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}\n")
    print("                wall ms   cpu ms   switches   ns/key (cpu)")
    for name, (w, c, s) in (("alone", a), ("busy thread", b)):
        print(f"  {name:<12} {w * 1e3:8.1f} {c * 1e3:8.1f} {s:10.0f}   {c * 1e9 / n:8.1f}")
    print(f"\n  busy / alone (wall)   {b[0] / a[0]:.2f}   (target <= 2)")
    print(f"  busy / alone (cpu)    {b[1] / a[1]:.2f}")


if __name__ == "__main__":
    main()

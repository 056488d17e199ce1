#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""The founding article's experiment, written with the cuckoofilter package.

The article (a Vietnamese blog post on probabilistic data structures,
summarised in docs/ of the project) builds a cuckoo filter in pure Python
with 65,536 buckets of 4 slots and 12-bit fingerprints, fills it to 95%, and
measures it.  This script repeats each measurement with the C library behind
the package and prints the article's figure beside ours.  It checks what
must hold (no false negatives, the measured FPP within sampling noise of the
formula, deletes that delete) and exits 1 if anything does not.

    python3 python/examples/article.py [--seed N] [--probes N]
"""

import argparse
import collections
import math
import sys

import cuckoofilter as cf

BUCKETS, BUCKET_SIZE, BITS, LOAD = 65_536, 4, 12, 0.95
SLOTS = BUCKETS * BUCKET_SIZE
ITEMS = int(SLOTS * LOAD)  # 249,036
PROBES = 500_000  # non-members per FPP measurement (--probes)

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


def row(quantity, article, ours):
    print(f"  {quantity:<40} {article:>24} {ours:>16}")


def within_noise(hits, trials, p):
    """Binomial check, 6 standard deviations: a wrong formula or a broken
    filter fails it, sampling noise does not."""
    return abs(hits - trials * p) <= 6 * math.sqrt(trials * p * (1 - p)) + 1


def members(n, seed):
    return [f"item-{seed}-{i}" for i in range(n)]


def non_members(n, seed):
    return [f"other-{seed}-{i}" for i in range(n)]


def new_filter(bits, seed):
    return cf.CuckooFilter(num_buckets=BUCKETS, bucket_size=BUCKET_SIZE,
                           fingerprint_bits=bits, seed=seed)


def main_experiment(seed, probes):
    print(f"The article's filter: {BUCKETS:,} buckets x {BUCKET_SIZE} slots, "
          f"{BITS}-bit fingerprints, filled to {LOAD:.0%}\n")
    row("quantity", "article", "ours")
    f = new_filter(BITS, seed)
    keys = members(ITEMS, seed)
    f.update(keys)
    s = f.stats
    row("items inserted at 95%", "249,036", f"{s.items:,}")
    row("memory (table)", "384 KiB", f"{s.table_bytes / 1024:,.0f} KiB")
    row("bits per item", "12.63", f"{s.bits_per_item:.2f}")
    misses = f.contains_many(keys).count(False)
    check(misses == 0, "false negatives among the inserted items")
    row("false negatives among inserted items", "0", f"{misses}")
    fp = f.contains_many(non_members(probes, seed)).count(True)
    check(within_noise(fp, probes, s.expected_fpp), "measured FPP vs the formula")
    row(f"FPP on {probes:,} non-members", "0.1832% (916 of 500,000)", f"{fp / probes:.4%} ({fp})")
    row("FPP, formula at this load", "", f"{s.expected_fpp:.4%}")
    row("bound 2b/2^f", "0.195%", f"{2 * BUCKET_SIZE / 2**BITS:.3%}")
    row("kicks per insert (filling to 95%)", "0.888", f"{s.total_kicks / s.items:.3f}")
    print("  (ours: fingerprints moved by a breadth-first search that finds a free slot\n"
          "   before moving anything; the article's: swaps of a random walk)")
    return f, keys


def delete_demo(f, keys):
    demo = keys[:4]
    before = [k in f for k in demo]
    for k in demo:
        f.remove(k)
    after = [k in f for k in demo]
    check(all(before) and not any(after), "delete demo")
    row("delete demo: in before / after (4 items)", "4 True / 4 False",
        f"{sum(before)} True / {4 - sum(after)} False")
    f.update(demo)


def fill_to_failure(f, keys, seed):
    extra = 0
    try:
        while True:
            f.add(f"extra-{seed}-{extra}")
            extra += 1
    except cf.FilterFullError:
        pass
    s = f.stats
    lost = f.contains_many(keys).count(False)
    lost += f.contains_many(f"extra-{seed}-{i}" for i in range(extra)).count(False)
    check(lost == 0, "false negatives after the first failed insert")
    row("max load when the first insert fails", "~96%", f"{s.load_factor:.2%}")
    row("false negatives after that failure", "1 (victim)", f"{lost}")
    print("  (a failed insert here changes nothing: no victim is dropped)")


def bloom_fpp(num_bits, keys, probes, seed):
    b = cf.BloomFilter(capacity=len(keys), num_bits=num_bits, seed=seed)
    collections.deque(map(b.add, keys), maxlen=0)
    check(all(map(b.__contains__, keys)), "Bloom false negatives")
    fp = sum(map(b.__contains__, probes))
    check(within_noise(fp, len(probes), b.stats.expected_fpp), "Bloom FPP vs the formula")
    return fp / len(probes), b.stats.num_hashes


def cuckoo_vs_bloom(seed, n_probes):
    print("\nCuckoo vs Bloom at the same memory (bucket 4, 95% load; Bloom with optimal k)\n")
    article = {8: ("8.42", "2.96%", "1.75%", "Bloom"), 12: ("12.63", "0.19%", "0.24%", "Cuckoo"),
               16: ("16.84", "0.0096%", "0.028%", "Cuckoo, ~3x")}
    print(f"  {'f':>2}  {'bits/item':>9}  {'Cuckoo FPP':>10}  {'Bloom FPP':>9}  "
          f"{'winner':<12} | ours: {'bits/item':>9}  {'Cuckoo FPP':>10}  {'Bloom FPP (k)':>14}  winner")
    keys = members(ITEMS, seed)
    probes = non_members(n_probes, seed)
    for bits in (8, 12, 16):
        f = new_filter(bits, seed)
        f.update(keys)
        s = f.stats
        check(f.contains_many(keys).count(False) == 0, f"false negatives at f={bits}")
        fp = f.contains_many(probes).count(True)
        check(within_noise(fp, n_probes, s.expected_fpp), f"cuckoo FPP at f={bits}")
        cuckoo = fp / n_probes
        bloom, k = bloom_fpp(s.table_bytes * 8, keys, probes, seed)
        if cuckoo < bloom:
            winner = f"Cuckoo, {bloom / cuckoo:.1f}x" if cuckoo > 0 else "Cuckoo"
        else:
            winner = f"Bloom, {cuckoo / bloom:.1f}x" if bloom > 0 else "Bloom"
        a = article[bits]
        print(f"  {bits:>2}  {a[0]:>9}  {a[1]:>10}  {a[2]:>9}  {a[3]:<12} | "
              f"      {s.bits_per_item:>9.2f}  {cuckoo:>10.4%}  {bloom:>9.4%} ({k:>2})  {winner}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2014, help="hash seed and key prefix")
    parser.add_argument("--probes", type=int, default=PROBES,
                        help="non-members per FPP measurement (the article: 500,000)")
    args = parser.parse_args()
    f, keys = main_experiment(args.seed, args.probes)
    delete_demo(f, keys)
    fill_to_failure(f, keys, args.seed)
    cuckoo_vs_bloom(args.seed, args.probes)
    if failures:
        print("\nFAILED: " + "; ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

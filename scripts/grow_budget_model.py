#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Bits per item of a CF_GROW filter, modelled: how the FPP budget's split
between tables decides the memory (docs/GROWTH.md).

Tables of 1000 * 2^k items at load 0.95, b = 4, width ceil(log2(2b / budget))
(the library's derivation; its width floors are below these widths), filled
until N items fit; prints bits per item for the fixed series
target * (1 - r) * r^k and for the library's rule, (1 - r) of what the
earlier tables left.  Usage: grow_budget_model.py [N] [TARGET]
"""
import math
import sys


def bits_per_item(r, carry_slack, n, target, cap0=1000, growth=2, b=4, load=0.95):
    spent, bits, held, k, cap = 0.0, 0.0, 0, 0, cap0
    while held < n:
        budget = (target - spent) * (1 - r) if carry_slack else target * (1 - r) * r**k
        f = math.ceil(math.log2(2 * b / budget))
        spent += 2 * b / 2**f
        bits += math.ceil(cap / (b * load)) * b * f
        held += cap
        cap *= growth
        k += 1
    return bits / n


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10_000_000
    target = float(sys.argv[2]) if len(sys.argv) > 2 else 0.01
    print(f"{n} items, target {target}: bits per item")
    print("   r   fixed series   (1-r) of what is left")
    for r in (0.5, 0.6, 0.7, 0.75, 0.8, 0.9):
        print(f"{r:5.2f} {bits_per_item(r, False, n, target):13.1f} "
              f"{bits_per_item(r, True, n, target):22.1f}")


if __name__ == "__main__":
    main()

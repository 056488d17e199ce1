# SPDX-License-Identifier: Apache-2.0 OR MIT
"""The article's cuckoo filter in pure Python, written here as the baseline
the package is measured against: b = 4 slots per bucket, f-bit
fingerprints, a power-of-two bucket count (the article's XOR partner needs
one), random-walk eviction of up to max_kicks fingerprints.

    fp = low f bits of h (0 reserved for empty, so 0 becomes 1)
    i1 = (h >> 32) mod nb
    i2 = i1 XOR (mix(fp) mod nb)          # its own inverse: i1 = i2 XOR ...

As in the article, an insert that runs out of kicks drops the fingerprint in
hand (the library never does that; this baseline is for speed only)."""

import random

_MASK64 = (1 << 64) - 1


class PureCuckooFilter:
    def __init__(self, capacity, fingerprint_bits=12, bucket_size=4, max_kicks=500, seed=1):
        nb = 1
        while nb * bucket_size * 0.95 < capacity:
            nb *= 2
        self.nb, self.b, self.max_kicks = nb, bucket_size, max_kicks
        self.fp_mask = (1 << fingerprint_bits) - 1
        self.buckets = [[] for _ in range(nb)]
        self.rng = random.Random(seed)
        self.count = 0

    def _fingerprint_and_index(self, key):
        h = hash(key) & _MASK64
        fp = (h & self.fp_mask) or 1
        return fp, (h >> 32) % self.nb

    def _alt(self, i, fp):
        return i ^ (((fp * 0x9E3779B97F4A7C15) & _MASK64) >> 32) % self.nb

    def add(self, key):
        fp, i1 = self._fingerprint_and_index(key)
        i2 = self._alt(i1, fp)
        for i in (i1, i2):
            if len(self.buckets[i]) < self.b:
                self.buckets[i].append(fp)
                self.count += 1
                return True
        i = self.rng.choice((i1, i2))
        for _ in range(self.max_kicks):
            bucket = self.buckets[i]
            j = self.rng.randrange(self.b)
            fp, bucket[j] = bucket[j], fp
            i = self._alt(i, fp)
            if len(self.buckets[i]) < self.b:
                self.buckets[i].append(fp)
                self.count += 1
                return True
        return False  # the fingerprint in hand is lost, as in the article

    def __contains__(self, key):
        fp, i1 = self._fingerprint_and_index(key)
        return fp in self.buckets[i1] or fp in self.buckets[self._alt(i1, fp)]

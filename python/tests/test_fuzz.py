# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Hostile input from Python never crashes: random and mutated bytes for
from_bytes (every mutated filter that loads must work), random values for
the constructors' options.  Seeded, so a failure reproduces."""

import random

import pytest

import cuckoofilter as cf
from conftest import DATA, SANITIZED

ROUNDS = 1500 if SANITIZED else 6000
GOOD = [p.read_bytes() for p in sorted((DATA / "good").glob("*.cf"))]


def exercise(f):
    """Every call on a filter that loaded: answers, writes, re-serialization."""
    f.contains_many(range(50))
    s = f.stats
    assert s.items == len(f) <= s.slots
    try:
        f.add("fuzz")
        assert "fuzz" in f
        f.remove("fuzz")
    except cf.FilterFullError:
        pass
    assert cf.CuckooFilter.from_bytes(f.to_bytes()) == f


def mutate(rng, data):
    data = bytearray(data)
    kind = rng.randrange(4)
    if kind == 0 and data:  # flip bits
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif kind == 1:  # truncate or extend
        cut = rng.randrange(len(data) + 1)
        data = data[:cut] if rng.random() < 0.7 else data + bytes(rng.randrange(1, 64))
    elif kind == 2 and len(data) >= 64:  # overwrite a header field with an extreme
        off = rng.choice(range(0, 64, 4))
        data[off:off + 4] = rng.choice([b"\0\0\0\0", b"\xff\xff\xff\xff", b"\x01\0\0\0"])
    else:  # random bytes after a valid magic
        data = data[:8] + rng.randbytes(rng.randrange(0, 256))
    return bytes(data)


def test_from_bytes_random():
    rng = random.Random(1)
    for _ in range(ROUNDS):
        data = rng.randbytes(rng.randrange(0, 200))
        with pytest.raises(cf.FormatError):
            cf.CuckooFilter.from_bytes(data)


def test_from_bytes_mutated():
    rng = random.Random(2)
    loaded = 0
    for _ in range(ROUNDS):
        data = mutate(rng, rng.choice(GOOD))
        try:
            f = cf.CuckooFilter.from_bytes(data)
        except cf.FormatError as e:
            assert e.status_name.startswith("CF_E_") and e.status < 0
            continue
        loaded += 1
        exercise(f)
    assert loaded < ROUNDS  # the checksum catches nearly every mutation


def test_map_mutated(tmp_path):
    rng = random.Random(3)
    path = tmp_path / "m.cf"
    for _ in range(ROUNDS // 30):
        path.write_bytes(mutate(rng, rng.choice(GOOD)))
        try:
            m = cf.CuckooFilter.map(path)  # header only: a damaged table may pass
        except cf.FormatError:
            continue
        m.contains_many(range(100))
        len(m), m.stats, m.to_bytes()


# Sizes are small or beyond any machine (those fail at once, with
# CF_E_TOO_LARGE or ValueError): a middling size would allocate and zero
# gigabytes on a shared machine.
SMALL = [0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 32, 33, 64, 500, 1022, 1023, 65535, 65536]
BEYOND = [2**63, 2**64 - 1, 2**64, -1, -(2**63)]
WIDE = SMALL + BEYOND + [2**31, 2**32, 2**32 + 4]  # for fields that are not sizes
SIZES = SMALL + BEYOND
FLOATS = [0.0, 1e-300, 1e-12, 1e-6, 0.001, 0.5, 0.999999, 1.0, 2.0, -0.1,
          float("inf"), float("-inf"), float("nan")]


def test_constructor_options():
    rng = random.Random(4)
    names = {"capacity": SIZES, "num_buckets": SIZES, "fingerprint_bits": WIDE,
             "bucket_size": WIDE, "max_kicks": WIDE, "seed": WIDE}
    built = 0
    for _ in range(ROUNDS // 2):
        chosen = rng.sample(sorted(names), rng.randint(1, len(names)))
        kw = {n: rng.choice(names[n]) for n in chosen}
        if rng.random() < 0.5:
            kw["fpp"] = rng.choice(FLOATS)
        if rng.random() < 0.3:
            kw["max_load"] = rng.choice(FLOATS)
        kw["semi_sort"] = rng.random() < 0.2
        try:
            f = cf.CuckooFilter(**kw)
        except (ValueError, MemoryError):
            continue
        built += 1
        f.add("x")
        assert "x" in f
    assert built > 0


def test_bloom_constructor_options():
    rng = random.Random(5)
    for _ in range(ROUNDS // 4):
        kw = {"capacity": rng.choice(SIZES), "num_hashes": rng.choice(WIDE),
              "num_bits": rng.choice(SIZES), "seed": rng.choice(WIDE), "fpp": rng.choice(FLOATS)}
        try:
            b = cf.BloomFilter(**kw)
        except (ValueError, MemoryError):
            continue
        b.add("x")
        assert "x" in b

"""BloomFilter: add, in, update, contains_many, key=, len, stats, and its FPP
against its own formula."""

import math

import pytest

import cuckoofilter as cf


def test_basics():
    b = cf.BloomFilter(capacity=1000, fpp=0.01)
    assert len(b) == 0 and "x" not in b
    b.add("x")
    b.add("x")
    assert "x" in b and b"x" in b and len(b) == 2  # adds are counted, duplicates too
    s = b.stats
    assert isinstance(s, cf.BloomStats) and s.items == 2
    assert s.num_bits == math.ceil(-1000 * math.log(0.01) / math.log(2) ** 2)
    assert s.num_hashes == cf.bloom_optimal_k(s.num_bits, 1000)
    assert s.memory_bytes >= s.num_bits // 8
    assert repr(b).startswith("<cuckoofilter.BloomFilter items=2 ")


def test_exact_bits_and_hashes():
    b = cf.BloomFilter(num_bits=12_345, num_hashes=3, seed=9)
    assert (b.stats.num_bits, b.stats.num_hashes) == (12_345, 3)


def test_keys_as_for_cuckoo():
    b = cf.BloomFilter(capacity=100)
    b.add(7)
    assert (7).to_bytes(8, "little") in b
    b.add("é")
    assert "é".encode() in b
    with pytest.raises(TypeError):
        b.add(1.0)
    with pytest.raises(OverflowError):
        b.add(2**64)


def test_fpp_matches_formula():
    n = 50_000
    b = cf.BloomFilter(capacity=n, fpp=0.01)
    for i in range(n):
        b.add(i)
    assert all(i in b for i in range(n))
    trials = 100_000
    fp = sum(i in b for i in range(2**40, 2**40 + trials))
    p = b.stats.expected_fpp
    assert abs(fp - trials * p) <= 6 * math.sqrt(trials * p * (1 - p)) + 1


def test_bulk_calls_and_key_function():
    b = cf.BloomFilter(capacity=10_000, fpp=0.001)
    b.update(range(5000))
    assert len(b) == 5000 and all(b.contains_many(range(5000)))
    assert b.contains_many(range(5000)) == [k in b for k in range(5000)]
    assert sum(b.contains_many(range(10**6, 10**6 + 5000))) < 50
    assert b.contains_many([]) == [] and b.key is None
    with pytest.raises(TypeError):
        b.update("abc")  # one key, not an iterable of keys
    with pytest.raises(TypeError):
        b.update([1, 2.5])
    assert len(b) == 5000  # a bad key stops its chunk before it runs, as CuckooFilter.update
    k = cf.BloomFilter(capacity=100, key=lambda p: f"{p[0]},{p[1]}")
    k.add((1, 2))
    k.update([(3, 4)])
    assert (1, 2) in k and k.contains_many([(3, 4), (4, 3)]) == [True, False]
    with pytest.raises(TypeError, match="key must be a function"):
        cf.BloomFilter(capacity=100, key="str")

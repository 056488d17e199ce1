# SPDX-License-Identifier: Apache-2.0 OR MIT
"""BloomFilter.clear(), merge(), | and |=: the library's cf_bloom_clear and cf_bloom_merge."""

import pytest

import cuckoofilter as cf


def test_union_is_a_filter_of_both_key_sets(tmp_path):
    a = cf.BloomFilter(capacity=2000, fpp=0.01, seed=4)
    b = cf.BloomFilter(capacity=2000, fpp=0.01, seed=4)
    both = cf.BloomFilter(capacity=2000, fpp=0.01, seed=4)
    a.update(range(0, 1000, 2))
    b.update(range(1, 1000, 2))
    both.update(range(1000))
    assert a | b == both                 # the same bits and count
    c = a.copy()
    c |= b
    assert c == both and len(c) == 1000
    a.merge(b)
    assert a == both and all(a.contains_many(range(1000)))
    # a mapped source merges too
    path = tmp_path / "b.bf"
    b.save(path)
    with cf.BloomFilter.map(path) as m:
        d = cf.BloomFilter(capacity=2000, fpp=0.01, seed=4)
        d.merge(m)
        assert d == b
        with pytest.raises(cf.ReadOnlyError):
            m.merge(d)


def test_merge_refusals_name_what_differs():
    a = cf.BloomFilter(capacity=2000, fpp=0.01, seed=1)
    with pytest.raises(ValueError, match="same num_bits"):
        a.merge(cf.BloomFilter(capacity=2000, fpp=0.01, seed=2))
    with pytest.raises(ValueError, match=r"num_bits \(\d+ vs \d+\)"):
        a | cf.BloomFilter(capacity=4000, fpp=0.01, seed=1)
    with pytest.raises(ValueError, match="into itself"):
        a.merge(a)
    with pytest.raises(TypeError):
        a.merge(cf.CuckooFilter(capacity=100))
    with pytest.raises(TypeError):
        a | 5


def test_clear():
    b = cf.BloomFilter(capacity=1000, fpp=0.01)
    b.update(["x", "y"])
    b.clear()
    assert len(b) == 0 and "x" not in b and "y" not in b
    assert b == cf.BloomFilter(capacity=1000, fpp=0.01)

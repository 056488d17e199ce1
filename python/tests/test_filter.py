# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Every method of CuckooFilter on in-memory filters, checked against the
library's contracts (the header's numbered guarantees)."""

import array
import sys

import pytest

import cuckoofilter as cf


def table_of(data):
    """The bucket table of a serialized filter: after the 64-byte header,
    before the 8-byte checksum (docs/FORMAT.md)."""
    return data[64:-8]


def table(f):
    return table_of(f.to_bytes())


def test_add_contains_count_len():
    f = cf.CuckooFilter(capacity=1000, fpp=0.001)
    assert len(f) == 0 and "alice" not in f and f.count("alice") == 0
    assert f.add("alice") is None
    assert "alice" in f and len(f) == 1 and f.count("alice") == 1
    f.add("alice")
    assert len(f) == 2 and f.count("alice") == 2


def test_add_unique():
    f = cf.CuckooFilter(capacity=1000)
    assert f.add_unique(b"bob") is True
    assert f.add_unique(b"bob") is False
    assert len(f) == 1 and f.count(b"bob") == 1


def test_remove_and_discard():
    f = cf.CuckooFilter(capacity=1000)
    f.add("alice")
    f.add("alice")
    assert f.remove("alice") is None
    assert "alice" in f and len(f) == 1
    assert f.unsafe_discard("alice") is True
    assert "alice" not in f and len(f) == 0
    assert f.unsafe_discard("alice") is False
    with pytest.raises(KeyError) as e:
        f.remove("alice")
    assert e.value.args == ("alice",)


def test_same_key_at_most_twice_bucket_size():
    for b in (1, 2, 4, 8):
        f = cf.CuckooFilter(capacity=1000, bucket_size=b)
        for _ in range(2 * b):
            f.add("dup")
        before = f.to_bytes()
        with pytest.raises(cf.FilterFullError) as e:
            f.add("dup")
        assert e.value.status_name == "CF_E_FULL" and e.value.status < 0
        # A failed insert changes nothing but the failure count in the header.
        assert table(f) == table_of(before) and f.to_bytes()[:48] == before[:48]
        assert f.count("dup") == 2 * b and len(f) == 2 * b
        assert f.stats.failed_inserts == 1
        assert f.add_unique("dup") is False


def test_full_filter_keeps_every_key():
    f = cf.CuckooFilter(num_buckets=64, bucket_size=4, fingerprint_bits=16, max_kicks=50)
    added = []
    with pytest.raises(cf.FilterFullError):
        for i in range(10_000):
            f.add(i)
            added.append(i)
    assert len(f) == len(added) > 0.8 * 256
    assert all(f.contains_many(added))


def test_update_and_contains_many():
    f = cf.CuckooFilter(capacity=10_000)
    keys = [f"key{i}" for i in range(5000)]
    assert f.update(keys) is None
    assert len(f) == 5000
    assert f.contains_many(keys) == [True] * 5000
    assert f.contains_many(k for k in keys) == [True] * 5000  # any iterable
    others = [f"other{i}" for i in range(5000)]
    assert f.contains_many(others) == [k in f for k in others]
    assert f.contains_many([]) == []
    f.update(iter([]))
    assert len(f) == 5000


def test_update_inserts_like_add():
    keys = [b"%d" % i for i in range(3000)] + ["x", 5, bytearray(b"y"), memoryview(b"z")]
    f, g = cf.CuckooFilter(capacity=4000, seed=7), cf.CuckooFilter(capacity=4000, seed=7)
    f.update(keys)
    for k in keys:
        g.add(k)
    assert f == g  # same operations in the same order, same bytes


def test_update_full_reports_inserted():
    f = cf.CuckooFilter(num_buckets=16, bucket_size=4, fingerprint_bits=12, max_kicks=20)
    keys = list(range(1000))
    with pytest.raises(cf.FilterFullError) as e:
        f.update(keys)
    n = e.value.inserted
    assert 0 < n <= 64 and len(f) == n
    assert all(f.contains_many(keys[:n]))
    g = cf.CuckooFilter(num_buckets=16, bucket_size=4, fingerprint_bits=12, max_kicks=20)
    for k in keys[:n]:
        g.add(k)
    with pytest.raises(cf.FilterFullError):
        g.add(keys[n])
    assert table(g) == table(f)


def test_update_bad_key_midway():
    f = cf.CuckooFilter(capacity=100)
    with pytest.raises(TypeError):
        f.update(["a", "b", 1.5, "c"])
    with pytest.raises(TypeError):
        f.update(5)  # not iterable
    for one_key in ("abc", b"abc", bytearray(b"abc"), memoryview(b"abc")):
        with pytest.raises(TypeError, match="iterable of keys"):
            f.update(one_key)  # set.update would add the characters
        with pytest.raises(TypeError, match="iterable of keys"):
            f.contains_many(one_key)
    with pytest.raises(TypeError):
        f.contains_many(["a", None])


def test_update_generator_error_propagates():
    def gen():
        yield "a"
        raise RuntimeError("boom")

    f = cf.CuckooFilter(capacity=100)
    with pytest.raises(RuntimeError, match="boom"):
        f.update(gen())


def test_hashes_buffers():
    f = cf.CuckooFilter(capacity=10_000, seed=3)
    keys = [f"k{i}" for i in range(2000)]
    hs = array.array("Q", [f.hash(k) for k in keys])
    g = cf.CuckooFilter(capacity=10_000, seed=3)
    g.update(hs, hashes=True)
    f.update(keys)
    assert f == g
    assert g.contains_many(hs, hashes=True) == [True] * 2000
    # bytes, signed arrays and unaligned views carry the same hashes
    raw = hs.tobytes()
    assert g.contains_many(raw, hashes=True) == [True] * 2000
    assert g.contains_many(array.array("q", raw), hashes=True) == [True] * 2000
    unaligned = memoryview(b"\0" + raw)[1:]
    assert g.contains_many(unaligned, hashes=True) == [True] * 2000
    absent = array.array("Q", [f.hash(f"no{i}") for i in range(2000)])
    assert g.contains_many(absent, hashes=True) == [f"no{i}" in g for i in range(2000)]
    with pytest.raises(TypeError):
        g.contains_many(b"1234567", hashes=True)
    with pytest.raises(TypeError):
        g.contains_many(array.array("I", [1, 2]), hashes=True)
    with pytest.raises(TypeError):
        g.update(["a"], hashes=True)


def test_hash_depends_on_seed_only():
    a, b = cf.CuckooFilter(capacity=10, seed=1), cf.CuckooFilter(capacity=10**6, seed=1)
    c = cf.CuckooFilter(capacity=10, seed=2)
    assert a.hash("x") == b.hash("x") != c.hash("x")
    assert 0 <= a.hash("x") < 2**64


def test_clear():
    f = cf.CuckooFilter(capacity=100)
    f.update(range(50))
    f.clear()
    assert len(f) == 0 and f.contains_many(range(50)) == [False] * 50
    assert table(f) == table(cf.CuckooFilter(capacity=100))


def test_stats_fields():
    f = cf.CuckooFilter(capacity=1000, fpp=0.01, seed=42, max_kicks=77)
    f.update(range(500))
    s = f.stats
    assert isinstance(s, cf.Stats) and isinstance(s, tuple)
    assert s.items == 500 == len(f)
    assert s.bucket_size == 4 and s.seed == 42 and s.max_kicks == 77 and s.flags == 0
    assert s.slots == s.num_buckets * s.bucket_size >= 1000
    assert s.load_factor == pytest.approx(500 / s.slots)
    assert s.bits_per_slot == s.fingerprint_bits
    assert s.table_bytes == (s.slots * s.fingerprint_bits + 7) // 8
    assert s.bits_per_item == pytest.approx(s.table_bytes * 8 / 500)
    assert s.expected_fpp == pytest.approx(cf.theoretical_fpp(s.fingerprint_bits, 4, s.load_factor))
    assert s.memory_bytes >= s.table_bytes and s.read_only is False
    assert s.failed_inserts == 0 and s.total_kicks >= 0
    assert s.growth_mode == cf.GROWTH_CHAIN and s.doublings == 0
    assert s.growth_limit == cf.GROWTH_OPEN
    assert len(s) == 20 and s[0] == s.items and s[16] is s.read_only and s[-1] == s.growth_limit


def test_options_reach_the_library():
    f = cf.CuckooFilter(num_buckets=101, bucket_size=8, fingerprint_bits=7, seed=2**64 - 1)
    s = f.stats
    assert (s.num_buckets, s.bucket_size, s.fingerprint_bits, s.seed) == (101, 8, 7, 2**64 - 1)
    g = cf.CuckooFilter(capacity=1000, fingerprint_bits=12, semi_sort=True)
    assert g.stats.flags == cf.SEMI_SORT and g.stats.bits_per_slot == 11
    g.update(range(900))
    assert all(g.contains_many(range(900)))
    # max_load shrinks the table chosen for a capacity
    assert (cf.CuckooFilter(capacity=1000, max_load=0.5).stats.slots
            >= 2 * 1000 > cf.CuckooFilter(capacity=1000).stats.slots)
    # a wider fpp target gives narrower fingerprints
    assert (cf.CuckooFilter(capacity=10**5, fpp=0.1).stats.fingerprint_bits
            < cf.CuckooFilter(capacity=10**5, fpp=1e-6).stats.fingerprint_bits)
    # positional capacity and fpp
    assert cf.CuckooFilter(1000, 0.01).stats.fingerprint_bits == cf.CuckooFilter(
        capacity=1000, fpp=0.01).stats.fingerprint_bits


def test_optional_flags():
    for name in ("grow", "concurrent"):
        if hasattr(cf._cuckoofilter, name.upper()):
            f = cf.CuckooFilter(capacity=100, **{name: True})
            assert f.stats.flags & getattr(cf._cuckoofilter, name.upper())
        else:
            with pytest.raises(NotImplementedError, match=name):
                cf.CuckooFilter(capacity=100, **{name: True})
        assert cf.CuckooFilter(capacity=100, **{name: False}).stats.flags == 0


def test_repr_sizeof():
    f = cf.CuckooFilter(capacity=1000)
    f.add(1)
    r = repr(f)
    assert r.startswith("<cuckoofilter.CuckooFilter items=1 ") and "bucket_size=4" in r
    assert sys.getsizeof(f) >= f.stats.memory_bytes
    assert f.__hash__ is None  # mutable: unhashable
    with pytest.raises(TypeError):
        hash(f)


def test_subclass():
    class Mine(cf.CuckooFilter):
        pass

    m = Mine(capacity=100)
    m.add("a")
    assert type(Mine.from_bytes(m.to_bytes())) is Mine and "a" in m


def test_module_functions():
    assert cf.default_max_load(4) == 0.95 and cf.default_max_load(3) == 0.0
    assert cf.theoretical_fpp(12, 4, 0.0) == 0.0
    assert 0 < cf.theoretical_fpp(12, 4, 0.95) < 8 / 4096
    assert cf.bloom_optimal_k(1000, 100) == 7
    assert cf.library_version.count(".") == 2

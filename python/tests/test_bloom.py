# SPDX-License-Identifier: Apache-2.0 OR MIT
"""BloomFilter: add, in, update, contains_many, key=, len, stats, its FPP
against its own formula, and its bytes, files, pickling, copies and ==."""

import copy
import io
import math
import pickle
import pydoc

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


# ---- bytes, files, pickling, copies, == (the library's Bloom image) ----


def _filled(seed=3, n=500, **kw):
    b = cf.BloomFilter(capacity=1000, fpp=0.01, seed=seed, **kw)
    b.update(range(n))
    return b


def test_bytes_round_trip_same_bytes_same_answers():
    b = _filled()
    data = b.to_bytes()
    assert bytes(b) == data
    assert data[:8] == b"\x89CKB\r\n\x1a\n"  # its own magic, not the cuckoo filter's
    assert len(data) == 40 + (b.stats.num_bits + 7) // 8 + 8
    for buf in (data, bytearray(data), memoryview(data)):
        c = cf.BloomFilter.from_bytes(buf)
        assert c.to_bytes() == data and c.stats == b.stats and len(c) == len(b)
        probe = range(5000)
        assert c.contains_many(probe) == b.contains_many(probe)


def test_bad_bytes_raise_format_error_with_the_status():
    data = _filled().to_bytes()
    cases = {
        data[:-1]: "CF_E_TRUNCATED",
        data[:5]: "CF_E_TRUNCATED",
        data + b"\0": "CF_E_TRAILING",  # a whole image, then a byte
        b"\x88" + data[1:]: "CF_E_MAGIC",
        data[:8] + b"\x02\x00" + data[10:]: "CF_E_VERSION",
        data[:50] + bytes([data[50] ^ 1]) + data[51:]: "CF_E_CHECKSUM",
        cf.CuckooFilter(capacity=100).to_bytes(): "CF_E_MAGIC",
    }
    for bad, status in cases.items():
        with pytest.raises(cf.FormatError) as e:
            cf.BloomFilter.from_bytes(bad)
        assert e.value.status_name == status and "BloomFilter" in str(e.value)
    with pytest.raises(cf.FormatError):
        cf.CuckooFilter.from_bytes(data)  # and the reverse


def test_pickle_and_copies_keep_bits_counts_and_key():
    b = cf.BloomFilter(capacity=1000, seed=3, key=str.lower)
    b.update(f"Key-{i}" for i in range(300))
    b.add("MiXeD")
    for c in (
        pickle.loads(pickle.dumps(b)),
        copy.copy(b),
        copy.deepcopy(b),
        b.copy(),
    ):
        assert c is not b and c == b and c.key is str.lower and "mixed" in c and "KEY-7" in c
        c.add("only in the copy")
        assert c != b and "only in the copy" not in b
    plain = _filled()
    assert pickle.loads(pickle.dumps(plain)).key is None


def test_save_and_load_paths_and_file_objects(tmp_path):
    b = _filled()
    for path in (tmp_path / "b.bloom", str(tmp_path / "s.bloom"), bytes(tmp_path / "y.bloom")):
        b.save(path)
        c = cf.BloomFilter.load(path)
        assert c == b and c.to_bytes() == b.to_bytes()
    assert (tmp_path / "b.bloom").read_bytes() == b.to_bytes()
    b.add("more")
    b.save(tmp_path / "b.bloom")  # replaces the old file
    assert cf.BloomFilter.load(tmp_path / "b.bloom") == b
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.bloom", "s.bloom", "y.bloom"]
    buf = io.BytesIO()
    b.save(buf)
    buf.seek(0)
    c = cf.BloomFilter.load(buf, key=str.upper)
    assert c == b and c.key is str.upper
    with pytest.raises(FileNotFoundError):
        cf.BloomFilter.load(tmp_path / "absent.bloom")
    with pytest.raises(OSError, match="CF_E_NOT_REGULAR"):
        b.save(tmp_path)
    (tmp_path / "bad.bloom").write_bytes(b.to_bytes()[:-3])
    with pytest.raises(cf.FormatError, match="CF_E_TRUNCATED"):
        cf.BloomFilter.load(tmp_path / "bad.bloom")
    with pytest.raises(cf.FormatError, match="CF_E_MAGIC"):
        cf.CuckooFilter.load(tmp_path / "b.bloom")


def test_equality_is_same_bytes():
    a, b = _filled(), _filled()
    assert a == b and not a != b and bytes(a) == bytes(b)
    # Order does not matter (the bits are an OR) ...
    c = cf.BloomFilter(capacity=1000, fpp=0.01, seed=3)
    c.update(reversed(range(500)))
    assert c == a
    # ... but the add count does, and so does the seed.
    c.add(0)
    assert c != a and 0 in a
    assert _filled(seed=4) != a
    assert (a == "x") is False and a != 1
    with pytest.raises(TypeError):
        hash(a)
    with pytest.raises(TypeError):
        a < b  # noqa: B015
    doc = cf.BloomFilter.__doc__
    assert "same bytes" in doc and "another order compare equal" in doc
    text = pydoc.render_doc(cf.BloomFilter, renderer=pydoc.plaintext)
    assert "__lt__" not in text and "__eq__" in text


def test_map_reads_in_place_and_refuses_writes(tmp_path):
    b = cf.BloomFilter(capacity=50_000, fpp=0.01, seed=9)
    b.update(range(50_000))
    b.save(tmp_path / "m.bloom")
    m = cf.BloomFilter.map(tmp_path / "m.bloom", key=None)
    assert m.read_only and not b.read_only and not m.closed
    assert "read-only" in repr(m)
    probe = range(0, 100_000, 7)  # keys and non-keys
    assert m.contains_many(probe) == b.contains_many(probe)
    assert [k in m for k in probe] == [k in b for k in probe]
    assert m == b and m.to_bytes() == b.to_bytes() and len(m) == 50_000
    assert tuple(m.stats)[:3] == tuple(b.stats)[:3]
    absent = next(k for k in range(10**6, 10**7) if k not in b)
    with pytest.raises(cf.ReadOnlyError, match="CF_E_READONLY"):
        m.add(absent)
    with pytest.raises(cf.ReadOnlyError):
        m.update([absent, absent + 1])
    assert absent not in m and len(m) == 50_000
    c = m.copy()  # writable, in memory
    c.add(absent)
    assert absent in c and not c.read_only and absent not in m
    m.save(tmp_path / "saved.bloom")  # from a mapped filter
    assert (tmp_path / "saved.bloom").read_bytes() == b.to_bytes()
    assert pickle.loads(pickle.dumps(m)) == b
    # A save replaces the file; the mapping keeps the old bits.
    c.save(tmp_path / "m.bloom")
    assert absent not in m
    with cf.BloomFilter.map(tmp_path / "m.bloom", key=int) as m2:
        assert m2.key is int and "0" in m2 and str(absent) in m2
    assert m2.closed and "closed" in repr(m2)
    m.close()
    m.close()  # twice is fine
    for call in (lambda: 0 in m, lambda: len(m), m.to_bytes, lambda: m.stats,
                 lambda: m.contains_many([1]), lambda: m.update([1]), lambda: m.add(1),
                 lambda: m.save(tmp_path / "x.bloom"), m.copy, lambda: m == b):
        with pytest.raises(ValueError, match="closed"):
            call()
    with pytest.raises(ValueError, match="closed"):
        with m:
            pass

    class ClosingPath:  # a path whose __fspath__ closes the filter being saved
        def __fspath__(self):
            c.close()
            return str(tmp_path / "late.bloom")

    with pytest.raises(ValueError, match="closed"):
        c.save(ClosingPath())
    assert not (tmp_path / "late.bloom").exists()
    # An in-memory filter can be closed too.
    b.close()
    assert b.closed


def test_map_refusals(tmp_path):
    b = _filled()
    b.save(tmp_path / "b.bloom")
    data = b.to_bytes()
    with pytest.raises(FileNotFoundError):
        cf.BloomFilter.map(tmp_path / "absent.bloom")
    with pytest.raises(OSError, match="CF_E_NOT_REGULAR"):
        cf.BloomFilter.map(tmp_path)
    (tmp_path / "short.bloom").write_bytes(data[:-3])
    with pytest.raises(cf.FormatError, match="CF_E_TRUNCATED"):
        cf.BloomFilter.map(tmp_path / "short.bloom")
    bad = bytearray(data)
    bad[45] ^= 1  # a bit of the array: only the checksum can tell
    (tmp_path / "bad.bloom").write_bytes(bad)
    with pytest.raises(cf.FormatError, match="CF_E_CHECKSUM"):
        cf.BloomFilter.map(tmp_path / "bad.bloom")
    f = cf.CuckooFilter(capacity=100)
    f.save(tmp_path / "c.cf")
    with pytest.raises(cf.FormatError, match="CF_E_MAGIC.*BloomFilter"):
        cf.BloomFilter.map(tmp_path / "c.cf")
    with pytest.raises(cf.FormatError, match="CF_E_MAGIC"):
        cf.CuckooFilter.map(tmp_path / "b.bloom")
    with pytest.raises(TypeError):
        cf.BloomFilter.map(tmp_path / "b.bloom", key=3)

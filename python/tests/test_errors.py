"""Errors: bad options, the exception hierarchy, statuses and messages."""

import errno

import pytest

import cuckoofilter as cf


def test_hierarchy():
    assert issubclass(cf.FilterFullError, cf.Error)
    assert issubclass(cf.ReadOnlyError, cf.Error)
    assert issubclass(cf.FormatError, cf.Error) and issubclass(cf.FormatError, ValueError)
    assert issubclass(cf.Error, Exception)
    for e in (cf.Error, cf.FilterFullError, cf.FormatError, cf.ReadOnlyError):
        assert e.__module__ == "cuckoofilter" and e.__doc__


@pytest.mark.parametrize("kwargs", [
    {},                                         # capacity 0 without num_buckets
    {"capacity": 10, "fpp": 0.0},
    {"capacity": 10, "fpp": 1.0},
    {"capacity": 10, "fpp": -1.0},
    {"capacity": 10, "fpp": 1e-12},             # needs more than 32-bit fingerprints
    {"capacity": 10, "fingerprint_bits": 33},
    {"capacity": 10, "bucket_size": 3},
    {"capacity": 10, "bucket_size": 16},
    {"capacity": 10, "max_kicks": 65536},
    {"capacity": 10, "max_load": 1.5},
    {"capacity": 10, "max_load": -0.5},
    {"capacity": 10, "semi_sort": True, "bucket_size": 8},
    {"capacity": 10, "semi_sort": True, "fingerprint_bits": 20},
])
def test_bad_options_raise_value_error_with_reason(kwargs):
    with pytest.raises(ValueError, match=r"invalid argument \(CF_E_PARAM\): capacity="):
        cf.CuckooFilter(**kwargs)


@pytest.mark.parametrize("name", ["capacity", "fingerprint_bits", "bucket_size", "num_buckets",
                                  "max_kicks", "seed"])
def test_integer_options_range_and_type(name):
    with pytest.raises(ValueError, match=name):
        cf.CuckooFilter(**{"capacity": 10, name: -1})
    with pytest.raises(ValueError, match=name):
        cf.CuckooFilter(**{"capacity": 10, name: 2**64})
    with pytest.raises(TypeError, match=name):
        cf.CuckooFilter(**{"capacity": 10, name: "4"})
    with pytest.raises(TypeError, match=name):
        cf.CuckooFilter(**{"capacity": 10, name: 4.0})


def test_unsigned_options_do_not_wrap():
    # 2**32 + 4 would be 4 if truncated to the C field
    with pytest.raises(ValueError, match="bucket_size"):
        cf.CuckooFilter(capacity=10, bucket_size=2**32 + 4)
    with pytest.raises(ValueError, match="fingerprint_bits"):
        cf.CuckooFilter(capacity=10, fingerprint_bits=2**32 + 12)


def test_other_argument_errors():
    with pytest.raises(TypeError):
        cf.CuckooFilter(capacity=10, nonsense=1)
    with pytest.raises(TypeError):
        cf.CuckooFilter(10, 0.01, 12)  # only capacity and fpp are positional
    with pytest.raises(TypeError):
        cf.CuckooFilter(capacity=10, fpp="x")


def test_too_large_is_value_error():
    with pytest.raises(ValueError, match="CF_E_TOO_LARGE"):
        cf.CuckooFilter(num_buckets=2**62, bucket_size=8, fingerprint_bits=32)


def test_huge_but_addressable_is_memory_error():
    # 2**44 bytes of table: sizes are fine, the allocation fails.
    with pytest.raises(MemoryError):
        cf.CuckooFilter(num_buckets=2**40, bucket_size=4, fingerprint_bits=32)


def test_full_error_fields():
    f = cf.CuckooFilter(num_buckets=1, bucket_size=2, fingerprint_bits=8)
    f.add("a")
    f.add("a")  # both slots: the one bucket is both candidates
    with pytest.raises(cf.FilterFullError) as e:
        f.add("a")
    assert e.value.status_name == "CF_E_FULL"
    assert "nothing was changed" in str(e.value) and "CF_E_FULL" in str(e.value)


def test_read_only_errors(tmp_path):
    f = cf.CuckooFilter(capacity=100)
    f.add("a")
    f.save(tmp_path / "f.cf")
    m = cf.CuckooFilter.map(tmp_path / "f.cf")
    assert m.read_only and m.stats.read_only and "a" in m
    for call, arg in ((m.add, "b"), (m.add_unique, "b"), (m.remove, "a"), (m.discard, "a"),
                      (m.update, ["b"])):
        with pytest.raises(cf.ReadOnlyError) as e:
            call(arg)
        assert e.value.status_name == "CF_E_READONLY"
    with pytest.raises(cf.ReadOnlyError):
        m.update(b"\0" * 8, hashes=True)
    with pytest.raises(cf.ReadOnlyError):
        m.clear()
    assert "a" in m and len(m) == 1


def test_os_errors_carry_errno(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        cf.CuckooFilter.load(tmp_path / "missing.cf")
    assert e.value.errno == errno.ENOENT and e.value.filename == tmp_path / "missing.cf"
    with pytest.raises(FileNotFoundError):
        cf.CuckooFilter.map(str(tmp_path / "missing.cf"))
    f = cf.CuckooFilter(capacity=10)
    with pytest.raises(OSError) as e:
        f.save(tmp_path / "no" / "such" / "dir.cf")
    assert e.value.errno == errno.ENOENT
    with pytest.raises(OSError):  # errno as the library's failing call left it
        cf.CuckooFilter.load(tmp_path)
    with pytest.raises(TypeError):
        f.save(12)


@pytest.mark.parametrize("kwargs", [
    {},
    {"capacity": 10, "fpp": 1.0},
    {"num_bits": 100},                 # no capacity to derive k from
    {"capacity": 10, "num_hashes": 65},
])
def test_bloom_bad_options(kwargs):
    with pytest.raises(ValueError, match="CF_E_PARAM"):
        cf.BloomFilter(**kwargs)

# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Key kinds: each is hashed as its documented bytes, so the same key gives
the same answer whatever Python type carries it."""

import array

import pytest

import cuckoofilter as cf

F = cf.CuckooFilter(capacity=1000, seed=11)


@pytest.mark.parametrize("key", [b"abc", bytearray(b"abc"), memoryview(b"abc"), "abc",
                                 memoryview(b"xabcx")[1:4], memoryview(array.array("B", b"abc"))])
def test_byte_kinds_hash_alike(key):
    assert F.hash(key) == F.hash(b"abc")


def test_str_is_utf8():
    for s in ("", "plain", "héllo", "日本語", "😀 emoji"):
        assert F.hash(s) == F.hash(s.encode("utf-8"))
    with pytest.raises(UnicodeEncodeError):
        F.hash("\ud800")  # a lone surrogate has no UTF-8 form
    with pytest.raises(UnicodeEncodeError):
        F.add("\udcff")


@pytest.mark.parametrize("x", [0, 1, 255, 256, -1, -2**63, 2**63 - 1, 2**63, 2**64 - 1, 12345678901])
def test_int_is_8_bytes_little_endian_twos_complement(x):
    data = (x % 2**64).to_bytes(8, "little")
    assert F.hash(x) == F.hash(data)
    if x < 0:
        assert F.hash(x) == F.hash(x.to_bytes(8, "little", signed=True))


def test_int_range():
    f = cf.CuckooFilter(capacity=100)
    for bad in (2**64, -2**63 - 1, 10**30, -(10**30)):
        for call in (f.add, f.add_unique, f.hash, f.count, f.unsafe_discard, f.remove, f.__contains__):
            with pytest.raises(OverflowError):
                call(bad)
        with pytest.raises(OverflowError):
            f.update([1, bad])
    assert len(f) == 0  # a chunk with a bad key is not inserted


def test_bool_is_int():
    assert F.hash(True) == F.hash(1) and F.hash(False) == F.hash(0)


def test_int_subclass():
    class MyInt(int):
        pass

    assert F.hash(MyInt(7)) == F.hash(7)


def test_x_and_x_plus_2_64_differ_only_by_overflow():
    assert F.hash(-1) == F.hash(2**64 - 1)  # the same 8 bytes, by definition


def test_empty_key():
    f = cf.CuckooFilter(capacity=10)
    f.add(b"")
    assert "" in f and bytearray() in f and memoryview(b"") in f


@pytest.mark.parametrize("bad", [1.5, None, [1], (1,), {"a": 1}, object(), array.array("B", b"a"),
                                 complex(1, 2)])
def test_other_types_are_refused(bad):
    f = cf.CuckooFilter(capacity=10)
    for call in (f.add, f.add_unique, f.hash, f.count, f.unsafe_discard, f.remove):
        with pytest.raises(TypeError, match="key must be"):
            call(bad)
    with pytest.raises(TypeError):
        bad in f
    with pytest.raises(TypeError):
        f.update([bad])
    with pytest.raises(TypeError):
        f.contains_many([bad])
    assert len(f) == 0


def test_non_contiguous_memoryview_is_refused():
    view = memoryview(b"abcdef")[::2]
    with pytest.raises(BufferError):
        F.hash(view)


def test_bytearray_locked_while_used():
    f = cf.CuckooFilter(capacity=10)
    key = bytearray(b"grow me")
    f.add(key)
    key += b" more"  # no view is left behind: the key can be resized after the call
    assert b"grow me" in f and key not in f

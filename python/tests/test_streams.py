# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Filters one after another in one file object, and bytes after a filter.

from_bytes() wants one filter and nothing else, and names bytes after a
valid filter as such (FormatError, CF_E_TRAILING) rather than corruption;
load(file object) reads exactly one filter, so several saved to one file
come back in turn, also from a pipe that cannot seek back."""

import io
import os
import threading

import pytest

import cuckoofilter as cf
from conftest import DATA


def _kinds():
    plain = cf.CuckooFilter(capacity=500, seed=1)
    plain.update(range(300))
    semi = cf.CuckooFilter(capacity=500, seed=2, semi_sort=True)
    semi.update(range(300))
    chain = cf.CuckooFilter(capacity=50, seed=3, grow=True)
    chain.update(range(1000))  # several tables
    inplace = cf.CuckooFilter(capacity=64, seed=4, grow="inplace")
    inplace.update(range(1000))  # several doublings
    assert chain.stats.growth_mode == cf.GROWTH_CHAIN and len(chain) == 1000
    assert inplace.stats.doublings > 0
    return [plain, semi, chain, inplace]


def _bloom():
    b = cf.BloomFilter(capacity=300, seed=5)
    b.update(range(200))
    return b


@pytest.mark.parametrize("extra", [b"x", b"\0", bytes(100)])
def test_from_bytes_names_trailing_bytes(extra):
    for f in _kinds() + [_bloom()]:
        data = bytes(f)
        with pytest.raises(cf.FormatError) as e:
            type(f).from_bytes(data + extra)
        assert e.value.status_name == "CF_E_TRAILING", type(f)
        assert "trailing bytes" in str(e.value)
        assert f"{len(extra)} byte" in str(e.value) and f"filter's {len(data)}" in str(e.value)
        assert isinstance(e.value, ValueError)
        assert type(f).from_bytes(data) == f  # the filter alone still reads


def test_trailing_bytes_in_files_too(tmp_path):
    for f in _kinds() + [_bloom()]:
        path = tmp_path / "f.bin"
        path.write_bytes(bytes(f) + b"more")
        with pytest.raises(cf.FormatError, match="CF_E_TRAILING"):
            type(f).load(path)
        with pytest.raises(cf.FormatError, match="CF_E_TRAILING"):
            if isinstance(f, cf.BloomFilter):
                type(f).map(path)
            else:
                type(f).map(path, verify=True)


def test_corruption_is_still_corruption():
    """A damaged filter followed by bytes is not "trailing bytes": only a
    whole valid filter with more after it is."""
    data = bytearray(bytes(_kinds()[0]))
    data[40] ^= 1  # a statistic in the header (its check then fails)
    with pytest.raises(cf.FormatError) as e:
        cf.CuckooFilter.from_bytes(bytes(data) + b"x")
    assert e.value.status_name != "CF_E_TRAILING"
    # The golden file with a byte after a trailer that covers it too.
    with pytest.raises(cf.FormatError) as e:
        cf.CuckooFilter.from_bytes((DATA / "bad" / "trailing_byte.bin").read_bytes())
    assert e.value.status_name == "CF_E_CORRUPT"


def test_filters_one_after_another_in_one_file_object():
    filters = _kinds() + [_bloom()] + _kinds()
    buf = io.BytesIO()
    for f in filters:
        f.save(buf)
    buf.write(b"not a filter")
    buf.seek(0)
    at = 0
    for f in filters:
        g = type(f).load(buf)
        at += len(bytes(f))
        assert g == f and buf.tell() == at
    with pytest.raises(cf.FormatError) as e:
        cf.CuckooFilter.load(buf)
    assert e.value.status_name == "CF_E_MAGIC"
    with pytest.raises(EOFError):
        cf.CuckooFilter.load(io.BytesIO())
    with pytest.raises(EOFError):
        cf.BloomFilter.load(io.BytesIO())


def test_a_file_that_ends_inside_a_filter():
    for f in _kinds() + [_bloom()]:
        data = bytes(f)
        for cut in (1, 30, 64, len(data) // 2, len(data) - 1):
            with pytest.raises(cf.FormatError) as e:
                type(f).load(io.BytesIO(data[:cut]))
            assert e.value.status_name == "CF_E_TRUNCATED"
            assert f"ended after {cut} bytes" in str(e.value)


def test_a_pipe_reads_exactly_one_filter_at_a_time():
    """A pipe cannot seek back: each load() must read the filter and not a
    byte of the next (the writer closes only at the end)."""
    filters = _kinds() + [_bloom()]
    r, w = os.pipe()

    def write():
        with os.fdopen(w, "wb") as out:
            for f in filters:
                f.save(out)

    t = threading.Thread(target=write)
    t.start()
    with os.fdopen(r, "rb", buffering=0) as raw:  # unbuffered: what is read is gone
        got = [type(f).load(raw) for f in filters]
        assert raw.read() == b""
    t.join()
    assert got == filters


class _Trickle(io.RawIOBase):
    """read(n) returns at most 7 bytes: short reads, as sockets give."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def readable(self):
        return True

    def read(self, n=-1):
        chunk = self.data[self.pos:self.pos + min(n, 7)]
        self.pos += len(chunk)
        return chunk


def test_short_reads():
    f, b = _kinds()[2], _bloom()
    src = _Trickle(bytes(f) + bytes(b) + b"rest")
    assert cf.CuckooFilter.load(src) == f
    assert cf.BloomFilter.load(src) == b
    assert src.data[src.pos:] == b"rest"


def test_read_returning_text_says_so():
    with pytest.raises(TypeError, match="binary mode"):
        cf.CuckooFilter.load(io.StringIO("text"))

# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Signals during calls: a mapped file truncated by another program
(SIGBUS) becomes OSError with the interpreter alive; Ctrl-C stops bulk
calls between chunks, leaving a prefix of the keys inserted."""

import ctypes
import itertools
import os
import pickle
import signal
import subprocess
import sys

import pytest

import cuckoofilter as cf

def truncated_map(tmp_path, size):
    f = cf.CuckooFilter(capacity=200_000)
    f.update(range(100_000))
    f.save(tmp_path / "m.cf")
    m = cf.CuckooFilter.map(tmp_path / "m.cf")
    assert all(m.contains_many(range(1000)))
    with open(tmp_path / "m.cf", "r+b") as out:  # what another program may do
        out.truncate(size)
    return f, m


@pytest.mark.parametrize("size", [4096, 0])  # the table's pages gone; the header's too
def test_truncated_mapped_file_raises_oserror(tmp_path, size):
    f, m = truncated_map(tmp_path, size)
    calls = [lambda: m.contains_many(range(100_000)),
             lambda: [k in m for k in range(100_000)],
             lambda: [m.count(k) for k in range(100_000)],
             lambda: m.contains_many(bytes(8 * 100_000), hashes=True),
             m.to_bytes, m.copy, lambda: m == f, lambda: m.save(tmp_path / "copy.cf"),
             lambda: cf.CuckooFilter(capacity=200_000) | m]
    for call in calls:
        with pytest.raises(OSError, match="shrank while it was read") as e:
            call()
        assert e.value.errno == 5 and e.value.filename == tmp_path / "m.cf"
    assert not (tmp_path / "copy.cf").exists()
    assert len(m) == 100_000 and m.read_only  # kept in the handle, not read from the file
    m.close()
    assert m.closed
    assert all(f.contains_many(range(100_000)))  # the interpreter goes on


def test_truncated_mapped_file_in_a_child_interpreter(tmp_path):
    # The reproduction, as a script: exit 0 (it used to die of SIGBUS, 135).
    script = f"""
import cuckoofilter as cf
f = cf.CuckooFilter(capacity=200_000); f.update(range(100_000)); f.save({str(tmp_path / 'c.cf')!r})
m = cf.CuckooFilter.map({str(tmp_path / 'c.cf')!r})
open({str(tmp_path / 'c.cf')!r}, "r+b").truncate(4096)
try:
    m.contains_many(range(10**6))
except OSError as e:
    print("OSError", e.errno)
"""
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, env=env, text=True)
    assert r.returncode == 0 and r.stdout == "OSError 5\n", (r.returncode, r.stderr)


def keys_with_sigint(n, at):
    """range(1, n) with SIGINT sent to this process after key `at`, from
    C code only (libc's kill through ctypes inside C iterators): no Python
    bytecode runs during the call, so only the call itself can take the
    signal."""
    libc = ctypes.CDLL(None, use_errno=True)
    send = filter(None, itertools.starmap(libc.kill, [(os.getpid(), signal.SIGINT)]))
    rest = iter(range(at + 1, n))  # tells afterwards how far the call read
    return itertools.chain(range(1, at + 1), send, rest), rest


@pytest.fixture
def sigint_raises():
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_ctrl_c_stops_update_between_chunks(sigint_raises):
    n, at = 2_000_000, 100_000
    f = cf.CuckooFilter(capacity=n)
    keys, rest = keys_with_sigint(n, at)
    with pytest.raises(KeyboardInterrupt):
        f.update(keys)
    assert next(rest, None) is not None  # it stopped reading keys
    # The chunk holding the signal ran, then the call stopped: a prefix of
    # the keys is in, none after it (it used to insert all, then raise).
    inserted = len(f)
    assert at <= inserted < n // 2
    assert all(f.contains_many(range(1, inserted + 1)))
    assert sum(f.contains_many(range(inserted + 1, n))) < n // 500  # false positives only


def test_ctrl_c_stops_contains_many(sigint_raises):
    f = cf.CuckooFilter(capacity=1000)
    keys, rest = keys_with_sigint(2_000_000, 10)
    with pytest.raises(KeyboardInterrupt):
        f.contains_many(keys)
    assert next(rest) < 1_000_000  # it stopped reading keys (it used to read all)


@pytest.mark.parametrize("size", [4096, 0])
def test_truncated_mapped_bloom_file_raises_oserror(tmp_path, size):
    b = cf.BloomFilter(capacity=400_000, fpp=0.001)
    b.update(range(400_000))  # 5.7 Mbit: far more pages than the 4096 bytes kept
    b.save(tmp_path / "m.bloom")
    m = cf.BloomFilter.map(tmp_path / "m.bloom")
    assert all(m.contains_many(range(1000)))
    with open(tmp_path / "m.bloom", "r+b") as out:  # what another program may do
        out.truncate(size)
    calls = [lambda: m.contains_many(range(400_000)),
             lambda: [k in m for k in range(400_000)],
             m.to_bytes, m.copy, lambda: m == b, lambda: m.save(tmp_path / "copy.bloom"),
             lambda: pickle.dumps(m)]
    for call in calls:
        with pytest.raises(OSError, match="shrank while it was read") as e:
            call()
        assert e.value.errno == 5 and e.value.filename == tmp_path / "m.bloom"
    assert not (tmp_path / "copy.bloom").exists()
    assert len(m) == 400_000 and m.read_only  # kept in the handle, not read from the file
    m.close()
    assert all(b.contains_many(range(400_000)))  # the interpreter goes on

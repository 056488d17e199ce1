# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Filters whose items expire (CuckooFilter(expire=...)): the window, the
clock (an injected now=, the wall clock), refreshes, a stream that never
fills, refusals, files (and the cuckoo CLI's), copies and threads."""

import datetime
import threading
import time

import pytest

import cuckoofilter as cf

from conftest import SANITIZED


class Clock:
    """A clock the test moves: now= for the filter."""

    def __init__(self, t=1_000_000):
        self.t = t

    def __call__(self):
        return self.t


def test_window_no_false_negative_then_gone():
    clock = Clock()
    f = cf.CuckooFilter(capacity=2000, fpp=0.001, expire=3600, now=clock)
    st = f.stats
    assert st.expire_after == 3600 and st.now == clock.t
    assert st.stamps >= 1 and st.stamp_bits >= 1
    assert st.stamps * st.expire_span >= 3600  # the window, rounded up to whole stamps
    keys = [f"k{i}" for i in range(1500)]
    f.update(keys)
    written = clock.t
    # Found at every time inside the window...
    for dt in (0, 1, 1799, 3599):
        clock.t = written + dt
        assert f.contains_many(keys).count(False) == 0, dt
        assert all(k in f for k in keys[:50])
    # ... and gone, slots and all, once the window and one stamp have passed.
    clock.t = (written // st.expire_span + st.stamps + 1) * st.expire_span
    assert clock.t <= written + (st.stamps + 1) * st.expire_span
    assert len(f) == 0
    found = sum(f.contains_many(keys))
    assert found <= 10, found  # only false positives, in an empty table: none expected


def test_add_refreshes_one_copy():
    clock = Clock()
    f = cf.CuckooFilter(capacity=100, expire=100, now=clock)
    span = f.stats.expire_span
    f.add("alice")
    assert f.add_unique("alice") is False  # present: refreshed, not stored again
    assert f.count("alice") == 1
    f.add_unique("bob")
    start = clock.t
    clock.t += 90
    assert f.add_unique("alice") is False  # refreshed at start + 90: found to start + 189
    clock.t = start + 90 + 99
    assert "alice" in f
    # bob, written at start, is gone once a window and a stamp have passed.
    assert clock.t >= (start // span + f.stats.stamps + 1) * span
    assert "bob" not in f


def test_stream_of_100x_capacity_never_full():
    clock = Clock(0)
    cap, window = 500, 1000
    f = cf.CuckooFilter(capacity=cap, fpp=0.01, expire=window, now=clock)
    most = 0
    total = 100 * cap if not SANITIZED else 20 * cap
    for i in range(total):
        clock.t = i * window // cap  # cap items per window, each at its own time
        f.add(i)  # never FilterFullError
        if i % 97 == 0:
            most = max(most, len(f))
    assert f.stats.failed_inserts == 0
    st = f.stats
    # Expired items left: never more than the items of a window and a stamp.
    assert most <= (st.stamps + 1) * st.expire_span * cap // window + 1
    # The last window's items are all there.
    assert f.contains_many(range(total - cap, total)).count(False) == 0


def test_clock_backwards_refused_and_nothing_changes():
    clock = Clock(5000)
    f = cf.CuckooFilter(capacity=100, expire=60, now=clock)
    f.add("a")
    before = bytes(f)
    clock.t = 4999
    with pytest.raises(ValueError, match="backwards"):
        f.add("b")
    with pytest.raises(ValueError):
        "a" in f
    clock.t = 5000
    assert bytes(f) == before
    assert "b" not in f


def test_clock_values_checked():
    for bad, exc in ((-1, ValueError), (float("nan"), ValueError), ("now", TypeError),
                     (None, TypeError)):
        with pytest.raises(exc):
            cf.CuckooFilter(capacity=10, expire=10, now=lambda bad=bad: bad)
    f = cf.CuckooFilter(capacity=10, expire=10, now=lambda: 12.9)
    assert f.stats.now == 12  # whole seconds, floored


def test_refusals():
    for kw, exc in ((dict(expire=0), ValueError), (dict(expire=-5), ValueError),
                    (dict(expire=float("inf")), ValueError), (dict(expire="1h"), TypeError),
                    (dict(expire=True), TypeError),
                    (dict(expire=-datetime.timedelta(hours=1)), ValueError),
                    (dict(expire=10, grow=True), ValueError),
                    (dict(expire=10, grow="inplace"), ValueError),
                    (dict(expire=10, concurrent=True), ValueError),
                    (dict(expire=10, semi_sort=True), ValueError),
                    (dict(now=lambda: 1), ValueError),
                    (dict(expire=10, now=5), ValueError)):
        with pytest.raises(exc):
            cf.CuckooFilter(capacity=10, **kw)
    with pytest.raises(ValueError, match="expire"):
        cf.CuckooFilter(capacity=10, expire=10, grow=True)
    plain = cf.CuckooFilter(capacity=10)
    with pytest.raises(ValueError):
        plain.clock = lambda: 1
    assert plain.stats.expire_after == 0 and plain.stats.stamp_bits == 0


def test_expire_units():
    f = cf.CuckooFilter(capacity=10, expire=datetime.timedelta(hours=24), now=Clock())
    assert f.stats.expire_after == 86400
    g = cf.CuckooFilter(capacity=10, expire=1.2, now=Clock())
    assert g.stats.expire_after == 2  # rounded up: never forgotten early
    assert "expire=86400s" in repr(f)


def test_wall_clock_and_its_steps_back():
    f = cf.CuckooFilter(capacity=100, expire=3600)
    assert f.clock is None
    assert abs(f.stats.now - time.time()) < 120
    f.add("x")
    assert "x" in f
    # A clock set to the future, then the wall clock (behind it): held, no error.
    f.clock = lambda: int(time.time()) + 1000
    f.add("y")
    f.clock = None
    f.add("z")
    assert f.stats.now >= int(time.time()) + 1000
    assert all(k in f for k in "xyz")


def test_bytes_and_files_keep_the_clock(tmp_path):
    clock = Clock()
    f = cf.CuckooFilter(capacity=1000, expire=600, now=clock)
    f.update(f"k{i}" for i in range(500))
    clock.t += 100
    data = bytes(f)
    g = cf.CuckooFilter.from_bytes(data)
    g.clock = Clock(clock.t)
    assert g == f and g.stats.now == clock.t and g.stats.expire_after == 600
    assert g.contains_many(f"k{i}" for i in range(500)).count(False) == 0
    path = tmp_path / "x.cf"
    f.save(path)
    h = cf.CuckooFilter.load(path)
    h.clock = Clock(clock.t + 10_000)  # long after: all gone
    assert len(h) == 0
    m = cf.CuckooFilter.map(path)  # mapped: the file's clock, read-only
    assert m.stats.now == clock.t and "k1" in m
    m.close()
    c = f.copy()
    assert c.clock is f.clock and c == f


def test_cli_files_in_both_directions(cli, tmp_path):
    path = tmp_path / "cli.cf"
    cli("create", path, "--capacity", 1000, "--expire", "1h", "--at", 50_000)
    cli("add", path, "--at", 50_000, "alice", "bob")
    f = cf.CuckooFilter.load(path)
    f.clock = Clock(50_000 + 3599)
    assert "alice" in f and "bob" in f
    f.add("carol")
    f.save(path)
    r = cli("query", path, "--at", 50_000 + 3599, "alice", "carol")
    assert r.returncode == 0, r.stdout
    span = f.stats.expire_span
    r = cli("query", path, "--at", 50_000 + (f.stats.stamps + 1) * span + 1, "alice")
    assert r.returncode == 1  # gone, as Python says too
    f.clock = Clock(50_000 + (f.stats.stamps + 1) * span + 1)
    assert "alice" not in f and "carol" in f
    # A clock earlier than the file's is refused by the CLI, as here.
    r = cli("query", path, "--at", 10, "alice", check=False)
    assert r.returncode == 2


def test_merge_at_one_clock():
    clock = Clock()
    a = cf.CuckooFilter(capacity=1000, expire=60, now=clock, seed=3)
    b = cf.CuckooFilter(capacity=1000, expire=60, now=clock, seed=3)
    a.update(["x", "y"])
    b.update(["z"])
    a.merge(b)
    assert all(k in a for k in "xyz")
    other = cf.CuckooFilter(capacity=1000, expire=60, now=Clock(clock.t + 5000), seed=3)
    with pytest.raises(ValueError):
        a.merge(other)


def test_threads_share_one_expiring_filter():
    clock = Clock(0)
    f = cf.CuckooFilter(capacity=20_000, expire=100, now=clock)
    errors = []

    def writer(base):
        try:
            for i in range(0, 4000, 100):
                f.update(range(base + i, base + i + 100))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(k * 10_000,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(f) == 16_000
    assert all(f.contains_many(range(k * 10_000, k * 10_000 + 4000)).count(False) == 0
               for k in range(4))

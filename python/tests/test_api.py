# SPDX-License-Identifier: Apache-2.0 OR MIT
"""What a Python user expects to find: merge and |, copy(), capacity and
fpp, key=, close() and `with`, file objects, weak references, Key; and
what must not mislead: discard(), ==, help() without orderings."""

import gc
import io
import pickle
import pydoc
import weakref
from dataclasses import dataclass

import pytest

import cuckoofilter as cf


# ------------------------------------------------------------------ merge

def test_merge_union_and_in_place():
    f = cf.CuckooFilter(capacity=10_000, seed=7)
    g = cf.CuckooFilter(capacity=10_000, seed=7)
    f.update(range(0, 3000))
    g.update(range(3000, 6000))
    u = f | g
    assert all(u.contains_many(range(6000))) and len(u) == 6000
    assert len(f) == 3000 and len(g) == 3000  # | leaves both as they were
    assert f.merge(g) is None and f == u
    h = cf.CuckooFilter(capacity=10_000, seed=7)
    h |= g
    assert len(h) == 3000 and all(h.contains_many(range(3000, 6000)))
    # The same as one filter built from both parts' keys, as the CLI's merge.
    whole = cf.CuckooFilter(capacity=10_000, seed=7)
    whole.update(range(6000))
    assert sorted(whole.contains_many(range(6000, 60000))) == sorted(u.contains_many(range(6000, 60000)))


@pytest.mark.parametrize("other, why", [
    ({"capacity": 20_000}, "num_buckets differ"),
    ({"num_buckets": 2632, "bucket_size": 2}, "bucket_size differs"),
    ({"capacity": 10_000, "fingerprint_bits": 20}, "fingerprint_bits differ"),
    ({"capacity": 10_000, "seed": 1}, "seeds differ"),
])
def test_merge_refusals_say_what_differs(other, why):
    f = cf.CuckooFilter(capacity=10_000)
    f.add("a")
    with pytest.raises(ValueError, match="cannot merge: " + why):
        f.merge(cf.CuckooFilter(**other))
    assert len(f) == 1 and "a" in f


def test_merge_errors():
    f = cf.CuckooFilter(capacity=100)
    with pytest.raises(ValueError, match="into itself"):
        f.merge(f)
    with pytest.raises(TypeError):
        f.merge({"a"})
    with pytest.raises(TypeError):
        f | {"a"}
    with pytest.raises(ValueError, match="key functions"):
        f.merge(cf.CuckooFilter(capacity=100, key=str))
    small = cf.CuckooFilter(num_buckets=1, bucket_size=2, fingerprint_bits=16)
    other = cf.CuckooFilter(num_buckets=1, bucket_size=2, fingerprint_bits=16)
    small.add(1)
    other.update([2, 3])
    with pytest.raises(cf.FilterFullError):
        small |= other
    assert len(small) == 1  # all or nothing


def test_merge_mapped(tmp_path):
    f = cf.CuckooFilter(capacity=1000)
    g = cf.CuckooFilter(capacity=1000)
    g.update(range(100))
    g.save(tmp_path / "g.cf")
    m = cf.CuckooFilter.map(tmp_path / "g.cf")
    f |= m  # a mapped source is fine
    assert all(f.contains_many(range(100)))
    with pytest.raises(cf.ReadOnlyError):
        m.merge(f)


# ---------------------------------------------------- copies and attributes

def test_copy_capacity_fpp(tmp_path):
    f = cf.CuckooFilter(capacity=1000, fpp=0.001, key=str.lower)
    f.add("Alice")
    c = f.copy()
    assert c == f and c is not f and c.key is str.lower and "ALICE" in c
    c.add("bob")
    assert "bob" not in f
    assert f.capacity >= 1000
    assert f.capacity == int(f.stats.slots * cf.default_max_load(4))
    assert 0 < f.fpp <= 0.001
    assert f.fpp == cf.theoretical_fpp(f.stats.fingerprint_bits, 4, 1.0)
    f.save(tmp_path / "f.cf")
    g = cf.CuckooFilter.load(tmp_path / "f.cf")  # derived from the table: the same after a trip
    assert (g.capacity, g.fpp) == (f.capacity, f.fpp)
    assert pickle.loads(pickle.dumps(f)).capacity == f.capacity


def test_close_and_context_manager(tmp_path):
    f = cf.CuckooFilter(capacity=100)
    f.add("a")
    f.save(tmp_path / "f.cf")
    with cf.CuckooFilter.map(tmp_path / "f.cf") as m:
        assert "a" in m and not m.closed
    assert m.closed and repr(m) == "<cuckoofilter.CuckooFilter closed>"
    for call in (lambda: "a" in m, lambda: len(m), lambda: m.add("b"), m.to_bytes,
                 lambda: m.update(["b"]), lambda: m.contains_many(["a"]), lambda: m.stats,
                 m.copy, lambda: m.save(tmp_path / "x.cf"), lambda: f.merge(m)):
        with pytest.raises(ValueError, match="closed filter"):
            call()
    m.close()  # twice is fine
    f.close()
    assert f.closed


def test_file_objects():
    f = cf.CuckooFilter(capacity=100)
    f.update(["a", "b"])
    buf = io.BytesIO()
    f.save(buf)
    assert buf.getvalue() == bytes(f)
    buf.seek(0)
    assert cf.CuckooFilter.load(buf) == f
    with pytest.raises(cf.FormatError):
        cf.CuckooFilter.load(io.BytesIO(b"nonsense"))
    with pytest.raises(TypeError):
        cf.CuckooFilter.load(io.StringIO("text"))


@pytest.mark.parametrize("make", [lambda: cf.CuckooFilter(capacity=10),
                                  lambda: cf.BloomFilter(capacity=10)])
def test_weak_references(make):
    obj = make()
    r = weakref.ref(obj)
    assert r() is obj
    del obj
    gc.collect()
    assert r() is None


def test_key_type_is_public():
    import typing
    assert set(typing.get_args(cf.Key)) == {bytes, bytearray, memoryview, str, int}


# ------------------------------------------------------------------- key=

@dataclass(frozen=True)
class Point:
    x: int
    y: int


def point_key(p):
    return f"{p.x},{p.y}"


def test_key_function_everywhere(tmp_path):
    f = cf.CuckooFilter(capacity=1000, key=point_key)
    f.add(Point(1, 2))
    f.update(Point(i, i) for i in range(100))
    assert Point(1, 2) in f and Point(5, 5) in f and Point(2, 1) not in f
    assert f.contains_many([Point(1, 2), Point(2, 1)]) == [True, False]
    assert f.count(Point(1, 2)) == 1 and f.hash(Point(1, 2)) == f.hash.__self__.hash(Point(1, 2))
    assert cf.CuckooFilter(capacity=1000).hash("1,2") == f.hash(Point(1, 2))
    f.remove(Point(1, 2))
    assert Point(1, 2) not in f
    assert pickle.loads(pickle.dumps(f)).key is point_key
    f.save(tmp_path / "p.cf")
    assert Point(5, 5) in cf.CuckooFilter.load(tmp_path / "p.cf", key=point_key)
    assert Point(5, 5) in cf.CuckooFilter.map(tmp_path / "p.cf", key=point_key)
    assert Point(5, 5) in cf.CuckooFilter.from_bytes(bytes(f), key=point_key)
    with pytest.raises(TypeError, match="key must be a function"):
        cf.CuckooFilter(capacity=10, key=3)
    bad = cf.CuckooFilter(capacity=10, key=lambda k: [k])
    with pytest.raises(TypeError, match="not list"):
        bad.add(1)
    with pytest.raises(ZeroDivisionError):
        cf.CuckooFilter(capacity=10, key=lambda k: 1 / 0).update([1])
    # The default stays exact: no key function, no conversion.
    assert cf.CuckooFilter(capacity=10).key is None
    with pytest.raises(TypeError):
        cf.CuckooFilter(capacity=10).add(Point(1, 2))


# ------------------------------------------------ what must not mislead

def test_discard_is_deprecated_for_unsafe_discard():
    f = cf.CuckooFilter(capacity=100)
    f.add("a")
    with pytest.warns(DeprecationWarning, match="unsafe_discard"):
        assert f.discard("a") is True
    doc = cf.CuckooFilter.unsafe_discard.__doc__
    assert "UNSAFE" in doc and "false negative" in doc and "remove() only keys found" in doc


def test_unsafe_discard_of_never_added_keys_makes_false_negatives():
    # The danger the name warns of, shown: a tiny fingerprint collides often.
    f = cf.CuckooFilter(num_buckets=64, bucket_size=4, fingerprint_bits=4)
    f.update(range(200))
    removed = sum(f.unsafe_discard(k) for k in range(10_000, 20_000))
    assert removed > 0
    assert not all(f.contains_many(range(200)))


def test_equality_is_same_bytes():
    a = cf.CuckooFilter(capacity=100, seed=1)
    b = cf.CuckooFilter(capacity=100, seed=1)
    a.update(range(20))
    b.update(range(20))
    assert a == b and not a != b and bytes(a) == bytes(b)
    b.add(99)
    assert a != b
    assert "bytes are equal" in cf.CuckooFilter.__doc__
    assert (a == "x") is False


def test_help_lists_no_orderings():
    text = pydoc.render_doc(cf.CuckooFilter, renderer=pydoc.plaintext)
    for name in ("__lt__", "__le__", "__gt__", "__ge__"):
        assert name not in text and name not in vars(cf.CuckooFilter)
    with pytest.raises(TypeError):
        cf.CuckooFilter(capacity=1) < cf.CuckooFilter(capacity=1)
    assert "__eq__" in text and "merge" in text and "unsafe_discard" in text


def test_extension_for_another_interpreter_says_so(tmp_path):
    # PYTHONPATH=build/python with another python3 first on PATH: the
    # extension's file name carries another ABI tag, which this interpreter
    # does not load.  The error says what to do, not only "no module named".
    import shutil
    import subprocess
    import sys
    from pathlib import Path
    pkg = tmp_path / "cuckoofilter"
    pkg.mkdir()
    here = Path(cf.__file__).parent
    shutil.copy(here / "__init__.py", pkg)
    ext = next(here.glob("_cuckoofilter*.so"))
    shutil.copy(ext, pkg / "_cuckoofilter.cpython-39-other.so")
    r = subprocess.run([sys.executable, "-c", "import cuckoofilter"], capture_output=True,
                       text=True, env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
                       cwd=tmp_path)
    assert r.returncode == 1
    assert "_cuckoofilter.cpython-39-other.so) does not load in" in r.stderr
    assert f"-DPython3_EXECUTABLE={sys.executable}" in r.stderr


def _module_level_key(k):
    return str(k).lower()


@pytest.mark.parametrize("cls", [cf.CuckooFilter, cf.BloomFilter])
def test_pickling_an_unpicklable_key_function_says_so(cls):
    f = cls(capacity=100, key=lambda k: str(k))
    f.add("a")
    with pytest.raises(pickle.PicklingError) as e:
        pickle.dumps(f)
    msg = str(e.value)
    assert f"cannot pickle this cuckoofilter.{cls.__name__}: its key function" in msg
    assert "<lambda>" in msg and "module's top level" in msg and "from_bytes" in msg
    assert isinstance(e.value.__cause__, (pickle.PicklingError, AttributeError))
    # The way out the message gives works, and a module-level key pickles.
    g = cls.from_bytes(pickle.loads(pickle.dumps(bytes(f))), key=lambda k: str(k))
    assert "a" in g
    h = cls(capacity=100, key=_module_level_key)
    h.add("B")
    assert "b" in pickle.loads(pickle.dumps(h)) and pickle.loads(pickle.dumps(h)).key is _module_level_key


@pytest.mark.parametrize("cls", [cf.CuckooFilter, cf.BloomFilter])
def test_len_counts_duplicate_adds_as_documented(cls):
    f = cls(capacity=100)
    f.add("k")
    f.add("k")
    f.update(["k", "j"])
    assert len(f) == 4  # four adds, two distinct keys
    if cls is cf.CuckooFilter:
        assert f.count("k") >= 3
        f.remove("k")
        assert len(f) == 3
        assert f.add_unique("k") is False and len(f) == 3
        assert "len(f) counts the copies stored" in cls.__doc__
    else:
        assert "len() counts adds, duplicates again" in cls.__doc__


@pytest.mark.parametrize("cls", [cf.CuckooFilter, cf.BloomFilter])
def test_with_on_an_in_memory_filter_closes_it_as_documented(cls):
    with cls(capacity=100) as f:
        f.add("a")
        assert "a" in f
    assert f.closed
    with pytest.raises(ValueError, match=r"closed filter \(close\(\), or the end of a `with` block"):
        f.add("b")
    assert "in-memory filter too" in cls.__exit__.__doc__
    assert "`with" in cls.__doc__

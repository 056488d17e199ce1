# SPDX-License-Identifier: Apache-2.0 OR MIT
"""help(cuckoofilter) reads well and the type stubs say what the module has
(mypy.stubtest)."""

import doctest
import inspect
import os
import pydoc
import subprocess
import sys
from pathlib import Path

import cuckoofilter as cf

def test_every_public_name_documented():
    for name in cf.__all__:
        obj = getattr(cf, name)
        if callable(obj) and name != "Key":  # Key: a typing.Union
            assert obj.__doc__ and len(obj.__doc__) > 20, name
    for cls in (cf.CuckooFilter, cf.BloomFilter):
        for name, member in vars(cls).items():
            if not name.startswith("_"):
                assert member.__doc__, f"{cls.__name__}.{name}"


def test_signatures_are_introspectable():
    assert str(inspect.signature(cf.CuckooFilter.add)) == "(self, key, /)"
    assert "hashes=False" in str(inspect.signature(cf.CuckooFilter.contains_many))
    sig = inspect.signature(cf.CuckooFilter)
    assert list(sig.parameters)[:4] == ["capacity", "fpp", "fingerprint_bits", "bucket_size"]


def test_help_text():
    text = pydoc.render_doc(cf, renderer=pydoc.plaintext)
    for word in ("CuckooFilter", "BloomFilter", "FilterFullError", "contains_many", "UTF-8",
                 "little-endian", "ReadOnlyError", "FormatError"):
        assert word in text, word


def run_mypy(args, tmp_path, imports=False):
    package_dir = str(Path(cf.__file__).parent.parent)  # the package this test imported
    env = dict(os.environ, MYPY_CACHE_DIR=str(tmp_path / "mypy_cache"), PYTHONPATH=package_dir)
    if "site-packages" not in package_dir:  # installed ones mypy finds itself (py.typed)
        env["MYPYPATH"] = package_dir
    if not imports:  # mypy alone need not run under the sanitizer; stubtest imports the module
        env.pop("LD_PRELOAD", None)
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          env=env, cwd=tmp_path)


def test_stubtest_is_clean(tmp_path):
    # Debian's python3-mypy (scripts/deps.sh): the stub says what the
    # built module has, signature by signature.
    r = run_mypy(["mypy.stubtest", "cuckoofilter"], tmp_path, imports=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success: no issues found" in r.stdout
    assert (Path(cf.__file__).parent / "py.typed").exists()


def test_stub_types_what_runs(tmp_path):
    # Stats is a struct sequence: mypy --strict must refuse what fails at
    # run time (the stub once called it a NamedTuple), and accept the rest.
    (tmp_path / "use.py").write_text("""
import cuckoofilter as cf
k: cf.Key = "alice"
f = cf.CuckooFilter(capacity=10, key=str)
f.add(k)
n: int = f.stats.items + f.capacity
g = f | f.copy()
with cf.CuckooFilter.map("x.cf") as m:
    ok: bool = 1 in m
""")
    r = run_mypy(["mypy", "--strict", "use.py"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    (tmp_path / "bad.py").write_text("import cuckoofilter as cf\n"
                                     "cf.CuckooFilter(capacity=1).stats._asdict()\n")
    r = run_mypy(["mypy", "--strict", "bad.py"], tmp_path)
    assert r.returncode == 1 and '"Stats" has no attribute "_asdict"' in r.stdout, r.stdout
    assert not hasattr(cf.CuckooFilter(capacity=1).stats, "_asdict")


def test_stub_types_keys(tmp_path):
    # Keys are typed: cuckoofilter.Key without key= (f.add(1.5) is a type
    # error, as it is a TypeError at run time), the key function's argument
    # with one; the package's own annotations pass --strict too.
    (tmp_path / "keys_ok.py").write_text("""
from array import array
import cuckoofilter as cf
f = cf.CuckooFilter(capacity=10)
f.add("a"); f.add(b"b"); f.add(5); f.add(bytearray(b"c")); f.add(memoryview(b"d"))
f.update(range(3)); f.update(array("Q", [1]), hashes=True)
found: list[bool] = f.contains_many(["a", 1])
def point(p: tuple[int, int]) -> str:
    return f"{p[0]},{p[1]}"
points = cf.CuckooFilter(capacity=10, key=point)
points.add((3, 4))
anything = cf.CuckooFilter(capacity=10, key=lambda p: repr(p))  # a lambda: keys of any type
anything.add(1.5)
b: cf.BloomFilter[cf.Key] = cf.BloomFilter.from_bytes(bytes(cf.BloomFilter(capacity=10)))
b.add("a")
with cf.locked("f.cf") as locked:
    locked.add("x")
g: cf.CuckooFilter[tuple[int, int]] = cf.CuckooFilter.load("f.cf", key=point)
""")
    r = run_mypy(["mypy", "--strict", "keys_ok.py"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    (tmp_path / "keys_bad.py").write_text(
        "import cuckoofilter as cf\n"
        "f = cf.CuckooFilter(capacity=10)\n"
        "f.add(1.5)\n"
        "cf.BloomFilter(capacity=10).update([None])\n"
        "def point(p: tuple[int, int]) -> str:\n"
        "    return str(p)\n"
        "cf.CuckooFilter(capacity=10, key=point).add('not a point')\n")
    r = run_mypy(["mypy", "--strict", "keys_bad.py"], tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert ('keys_bad.py:3: error: Argument 1 to "add" of "CuckooFilter" has incompatible '
            'type "float"' in r.stdout), r.stdout
    assert 'keys_bad.py:4: error: List item 0 has incompatible type "None"' in r.stdout
    assert 'keys_bad.py:7: error: Argument 1 to "add" of "CuckooFilter" has incompatible ' \
           'type "str"; expected "Tuple[int, int]"' in r.stdout
    assert "Found 3 errors" in r.stdout
    assert cf.CuckooFilter[str] is not None  # the generic types subscript at run time too


def test_module_docstring_examples():
    failures, tried = doctest.testmod(cf)
    assert tried > 0 and failures == 0

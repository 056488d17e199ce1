"""help(cuckoofilter) reads well and the type stubs list what the module has."""

import ast
import doctest
import inspect
import pydoc
from pathlib import Path

import cuckoofilter as cf

STUB = Path(cf.__file__).with_name("_cuckoofilter.pyi")


def test_every_public_name_documented():
    for name in cf.__all__:
        obj = getattr(cf, name)
        if callable(obj):
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


def test_stub_matches_module():
    tree = ast.parse(STUB.read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    stubbed |= {n.target.id for n in tree.body
                if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    public = {n for n in vars(cf._cuckoofilter) if not n.startswith("_")}
    aliases = {"Key", "HashBuffer", "StrPath"}
    assert stubbed - aliases == public
    assert (Path(cf.__file__).parent / "py.typed").exists()
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    for cls in (cf.CuckooFilter, cf.BloomFilter):
        stub_members = {n.name for n in classes[cls.__name__].body
                        if isinstance(n, ast.FunctionDef)}
        real = {n for n in vars(cls) if not n.startswith("_")}
        assert real <= stub_members, real - stub_members
    for stub_name, real in (("Stats", cf.Stats), ("BloomStats", cf.BloomStats)):
        fields = [n.target.id for n in classes[stub_name].body if isinstance(n, ast.AnnAssign)]
        assert tuple(fields) == real.__match_args__


def test_module_docstring_examples():
    failures, tried = doctest.testmod(cf)
    assert tried > 0 and failures == 0

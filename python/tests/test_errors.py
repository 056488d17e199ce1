# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Errors: bad options, the exception hierarchy, statuses and messages."""

import errno
import json
import re
import os
import subprocess
import sys

import pytest

import cuckoofilter as cf


def test_hierarchy():
    assert issubclass(cf.FilterFullError, cf.Error)
    assert issubclass(cf.ReadOnlyError, cf.Error)
    assert issubclass(cf.FormatError, cf.Error) and issubclass(cf.FormatError, ValueError)
    assert issubclass(cf.Error, Exception)
    for e in (cf.Error, cf.FilterFullError, cf.FormatError, cf.ReadOnlyError):
        assert e.__module__ == "cuckoofilter" and e.__doc__


# The sentences are the library's (cf_config_explain, with this package's
# spelling of the options: the cuckoo CLI prints the same ones with
# "--fpp "); a few refusals only Python makes (values the library reads as
# "the default", a capacity beyond num_buckets' slots) are its own.
@pytest.mark.parametrize("kwargs, why", [
    ({}, r"capacity is required"),
    ({"capacity": 0}, r"capacity=0 holds nothing: give at least 1"),
    ({"num_buckets": 0}, r"num_buckets must be at least 1"),
    ({"capacity": 10, "fpp": 0.0}, r"fpp=0 is not a probability below 1: give one in \(0, 1\)"),
    ({"capacity": 10, "fpp": 1.0}, r"fpp=1 is not a probability below 1"),
    ({"capacity": 10, "fpp": -1.0}, r"fpp=-1 is not a probability"),
    ({"capacity": 10, "fpp": float("nan")}, r"fpp=nan is not a probability"),
    ({"capacity": 10, "fpp": 1e-12}, r"fpp=1e-12 needs 43-bit fingerprints with bucket_size=4, "
                                     r"and they have at most 32: ask for fpp=\S+ or more"),
    ({"capacity": 100, "bucket_size": 8, "fpp": 1e-9},
     r"fpp=1e-09 needs 34-bit fingerprints with bucket_size=8"),
    ({"capacity": 10, "fingerprint_bits": 33}, r"fingerprint_bits=33 is not a fingerprint width: "
                                               r"give 1 to 32"),
    ({"capacity": 10, "bucket_size": 3}, r"bucket_size=3 is not a bucket size: give 1, 2, 4 or 8"),
    ({"capacity": 10, "bucket_size": 16}, r"bucket_size=16 is not a bucket size"),
    ({"capacity": 10, "max_kicks": 65536}, r"max_kicks=65536 is above .*give 1 to 65535"),
    ({"capacity": 10, "max_kicks": 70000}, r"max_kicks=70000 is above"),
    ({"capacity": 10, "max_kicks": 0}, r"max_kicks=0 is outside 1..65535"),
    ({"capacity": 10, "max_load": 1.5}, r"max_load=1.5 is not a load factor: give one in \(0, 1\]"),
    ({"capacity": 10, "max_load": -0.5}, r"max_load=-0.5 is not a load factor"),
    ({"capacity": 10, "semi_sort": True, "bucket_size": 8},
     r"semi_sort=True needs bucket_size=4 .*, not 8"),
    ({"capacity": 10, "semi_sort": True, "fingerprint_bits": 20},
     r"semi_sort=True needs 5- to 16-bit fingerprints, not fingerprint_bits=20"),
    ({"capacity": 10, "semi_sort": True, "fpp": 1e-6},
     r"semi_sort=True needs 5- to 16-bit fingerprints, and fpp=1e-06 asks for 23 .*: ask for "
     r"fpp=\S+ or more, or leave semi_sort=True out"),
    ({"capacity": 10, "semi_sort": True, "concurrent": True},
     r"concurrent=True cannot be combined with semi_sort=True"),
    ({"capacity": 10, "grow": True, "concurrent": True},
     r"concurrent=True cannot be combined with grow=True"),
    ({"capacity": 10, "grow": "inplace", "semi_sort": True},
     r"grow='inplace'.*semi_sort=True"),
    ({"capacity": 10**6, "num_buckets": 3},
     r"capacity=1000000 does not fit num_buckets=3 \(12 slots of bucket_size=4\)"),
])
def test_bad_options_name_the_option_and_why(kwargs, why):
    with pytest.raises(ValueError, match=r"^invalid argument \(CF_E_PARAM\): " + why):
        cf.CuckooFilter(**kwargs)


# The same configurations given to the cuckoo command: its sentence, in its
# spelling of the options, is the one this package prints in its own (both
# are cf_config_explain's; this test fails when a front end words a refusal
# of its own instead).
CLI_SPELLING = [(r"--capacity\b ?", "capacity="), (r"--fpp\b ?", "fpp="),
                (r"--fingerprint-bits\b ?", "fingerprint_bits="),
                (r"--bucket-size\b ?", "bucket_size="), (r"--buckets\b ?", "num_buckets="),
                (r"--max-kicks\b ?", "max_kicks="), (r"--semi-sort\b", "semi_sort=True"),
                (r"--grow=inplace\b", "grow='inplace'"), (r"--grow\b", "grow=True")]


@pytest.mark.parametrize("args, kwargs", [
    (["--capacity", "10", "--fpp", "1e-20"], {"capacity": 10, "fpp": 1e-20}),
    (["--capacity", "10", "--fpp", "1e-300"], {"capacity": 10, "fpp": 1e-300}),
    (["--capacity", "10", "--bucket-size", "8", "--fpp", "1e-9"],
     {"capacity": 10, "bucket_size": 8, "fpp": 1e-9}),
    (["--capacity", "10", "--semi-sort", "--fpp", "1e-6"],
     {"capacity": 10, "semi_sort": True, "fpp": 1e-6}),
    (["--capacity", "10", "--semi-sort", "--bucket-size", "2"],
     {"capacity": 10, "semi_sort": True, "bucket_size": 2}),
    (["--capacity", "10", "--grow=inplace", "--semi-sort", "--fpp", "0.01"],
     {"capacity": 10, "grow": "inplace", "semi_sort": True, "fpp": 0.01}),
    (["--capacity", "10", "--grow=inplace", "--fingerprint-bits", "12"],
     {"capacity": 10, "grow": "inplace", "fingerprint_bits": 12}),
    (["--capacity", "10", "--grow=inplace", "--fpp", "1e-12"],
     {"capacity": 10, "grow": "inplace", "fpp": 1e-12}),
    (["--capacity", "1000", "--grow", "--fingerprint-bits", "4"],
     {"capacity": 1000, "grow": True, "fingerprint_bits": 4}),
    (["--capacity", "10", "--grow=inplace", "--bucket-size", "2"],
     {"capacity": 10, "grow": "inplace", "bucket_size": 2}),
])
def test_the_cuckoo_command_and_python_give_one_explanation(cli, tmp_path, args, kwargs):
    r = cli("create", str(tmp_path / "x.cf"), *args, check=False)
    assert r.returncode != 0
    said = r.stderr.decode().strip()
    prefix = "cuckoo: cannot create the filter: "
    assert said.startswith(prefix), said
    want = said[len(prefix):]
    for theirs, ours in CLI_SPELLING:
        want = re.sub(theirs, ours, want)
    with pytest.raises(ValueError) as e:
        cf.CuckooFilter(**kwargs)
    assert str(e.value) == "invalid argument (CF_E_PARAM): " + want


@pytest.mark.parametrize("kwargs", [{"capacity": 10, "fpp": 1e-12},
                                    {"capacity": 100, "bucket_size": 8, "fpp": 1e-9},
                                    {"capacity": 10, "semi_sort": True, "fpp": 1e-6}])
def test_what_the_refusal_suggests_works(kwargs):
    with pytest.raises(ValueError) as e:
        cf.CuckooFilter(**kwargs)
    suggested = float(re.search(r"ask for fpp=(\S+) or more", str(e.value)).group(1))
    assert suggested > kwargs["fpp"]
    cf.CuckooFilter(**dict(kwargs, fpp=suggested))  # as printed, it works


def test_capacity_and_num_buckets_that_agree():
    f = cf.CuckooFilter(capacity=12, num_buckets=3)
    assert f.stats.slots == 12
    assert cf.CuckooFilter(capacity=0, num_buckets=3).stats.slots == 12


@pytest.mark.parametrize("name", ["capacity", "fingerprint_bits", "bucket_size", "num_buckets",
                                  "max_kicks", "seed"])
def test_integer_options_range_and_type(name):
    # The case: capacity=-1 said "must be in 0..2**64-1", as if 0
    # were allowed (it is refused).  The message says only what is wrong.
    with pytest.raises(ValueError) as e:
        cf.CuckooFilter(**{"capacity": 10, name: -1})
    assert str(e.value) == f"{name}=-1 is negative"
    with pytest.raises(ValueError, match=rf"^{name}=18446744073709551616 is above \d+, the "
                                         rf"largest it takes$"):
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
    with pytest.raises(MemoryError, match=r"out of memory \(CF_E_NOMEM\): num_buckets="
                                          r"1099511627776 needs a table of 1.638e\+04 GiB"):
        cf.CuckooFilter(num_buckets=2**40, bucket_size=4, fingerprint_bits=32)
    with pytest.raises(MemoryError, match=r"capacity=100000000000000 needs a table of"):
        cf.CuckooFilter(capacity=10**14)


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
    for call, arg in ((m.add, "b"), (m.add_unique, "b"), (m.remove, "a"), (m.unsafe_discard, "a"),
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
    # The system's text for the errno, as open() says it (not "input/output error").
    assert e.value.strerror == os.strerror(errno.ENOENT)
    assert str(e.value) == f"[Errno 2] No such file or directory: {tmp_path / 'missing.cf'!r}"
    with pytest.raises(FileNotFoundError):
        cf.CuckooFilter.map(str(tmp_path / "missing.cf"))
    f = cf.CuckooFilter(capacity=10)
    with pytest.raises(OSError) as e:
        f.save(tmp_path / "no" / "such" / "dir.cf")
    assert e.value.errno == errno.ENOENT and e.value.strerror == os.strerror(errno.ENOENT)
    with pytest.raises(OSError):  # errno as the library's failing call left it
        cf.CuckooFilter.load(tmp_path)
    with pytest.raises(TypeError):
        f.save(12)


READ_ONLY_CHILD = """
import json, sys
import cuckoofilter as cf
d = sys.argv[1]
out = []
for obj in (cf.CuckooFilter(capacity=100), cf.BloomFilter(capacity=100)):
    for name in ("new.cf", "old.cf"):  # a new file, and one to replace
        try:
            obj.save(d + "/" + name)
            out.append(None)
        except OSError as e:
            out.append([type(e).__name__, e.errno, e.strerror, e.filename, str(e)])
out.append(len(cf.CuckooFilter.load(d + "/old.cf")))  # reading still works
print(json.dumps(out))
"""


def test_read_only_file_system_says_so(tmp_path):
    # The issue's case: a save on a read-only file system said "[Errno 30]
    # input/output error".  A real EROFS, without privileges a CI runner may
    # lack: a child in its own mount namespace (unshare: a user namespace
    # too where the kernel allows it, else root's plain one) bind-mounts
    # tmp_path over itself read-only; the parent's view stays writable.
    cf.CuckooFilter(capacity=100).save(tmp_path / "old.cf")
    mount = ('mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"')
    tried = []
    for flags in ("-Urm", "-m"):
        r = subprocess.run(["unshare", flags, "sh", "-c", mount, str(tmp_path), sys.executable,
                            "-c", READ_ONLY_CHILD, str(tmp_path)],
                           capture_output=True, text=True, env=dict(os.environ))
        if r.returncode == 0:
            break
        tried.append(f"unshare {flags}: exit {r.returncode}: {r.stderr.strip()}")
    assert r.returncode == 0, "no read-only mount could be made: " + "; ".join(tried)
    *saves, loaded = json.loads(r.stdout)
    assert loaded == 0
    for got, name in zip(saves, ["new.cf", "old.cf"] * 2):
        path = str(tmp_path / name)
        assert got == ["OSError", errno.EROFS, os.strerror(errno.EROFS), path,
                       f"[Errno 30] {os.strerror(errno.EROFS)}: {path!r}"], got
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.cf"]  # nothing left behind


@pytest.mark.parametrize("kwargs, why", [
    # The case: capacity=0 listed every parameter instead of naming it.
    ({"capacity": 0}, r"capacity=0 holds nothing: give at least 1"),
    ({}, r"capacity=0 holds nothing"),
    ({"capacity": 10, "fpp": 1.0}, r"fpp=1 is not a probability below 1"),
    ({"num_bits": 100}, r"num_bits=100 without num_hashes"),  # no capacity to derive k from
    ({"capacity": 10, "num_hashes": 65}, r"num_hashes=65 is above 64"),
])
def test_bloom_bad_options(kwargs, why):
    with pytest.raises(ValueError, match=r"^invalid argument \(CF_E_PARAM\): " + why) as e:
        cf.BloomFilter(**kwargs)
    assert "num_bits=0, num_hashes=0" not in str(e.value)


def test_bloom_negative_and_too_large():
    with pytest.raises(ValueError) as e:
        cf.BloomFilter(capacity=-1)
    assert str(e.value) == "capacity=-1 is negative"  # not "0..": 0 is refused too
    with pytest.raises(ValueError, match=r"CF_E_TOO_LARGE.*capacity=10000000000000000000 at "
                                         r"fpp=1e-300 needs more than 2\^64 bits"):
        cf.BloomFilter(capacity=10**19, fpp=1e-300)


def test_bloom_memory_error_gives_the_size():
    # Addressable, but more than any machine here has: the size is the
    # allocation the library asked for.
    with pytest.raises(MemoryError) as e:
        cf.BloomFilter(capacity=10**15, fpp=1e-9)
    m = re.search(r"^out of memory \(CF_E_NOMEM\): a Bloom filter of capacity=1000000000000000, "
                  r"fpp=1e-09 needs (\d+) bytes \((\S+) GiB\) for its bits", str(e.value))
    assert m, str(e.value)
    size = int(m.group(1))
    # The same count of bits as a filter the library does make at that fpp
    # holds per item, within the rounding of one filter's size.
    small = cf.BloomFilter(capacity=10**6, fpp=1e-9).stats.num_bits
    assert abs(size * 8 / 10**15 - small / 10**6) < 1e-3
    assert float(m.group(2)) == pytest.approx(size / 2**30, rel=1e-3)

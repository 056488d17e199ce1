# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Files and bytes: save/load/map, the golden files, files shared with the
cuckoo CLI (both directions), pickling, copies and equality."""

import copy
import os
import pickle
from pathlib import Path

import pytest

import cuckoofilter as cf
from conftest import DATA

GOOD = sorted((DATA / "good").glob("*.cf"))


def bad_files():
    for line in (DATA / "bad" / "MANIFEST").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, status = line.split()[:2]
            yield name, status


def test_round_trips(tmp_path):
    f = cf.CuckooFilter(capacity=5000, seed=5)
    f.update(f"k{i}" for i in range(4000))
    data = f.to_bytes()
    assert bytes(f) == data and len(data) == f.stats.table_bytes + 64 + 8
    for path in (tmp_path / "a.cf", str(tmp_path / "b.cf"), os.fsencode(tmp_path / "c.cf")):
        f.save(path)
        assert Path(os.fsdecode(path)).read_bytes() == data
        assert cf.CuckooFilter.load(path) == f
        assert cf.CuckooFilter.map(path) == f
        assert cf.CuckooFilter.map(path, verify=True) == f
    assert cf.CuckooFilter.from_bytes(data) == f
    assert cf.CuckooFilter.from_bytes(bytearray(data)) == f
    assert cf.CuckooFilter.from_bytes(memoryview(data)) == f
    g = cf.CuckooFilter.load(tmp_path / "a.cf")
    assert g.contains_many(f"k{i}" for i in range(4000)) == [True] * 4000
    assert not g.read_only
    g.add("more")
    assert g != f and "more" in g


def test_load_concurrent(tmp_path):
    f = cf.CuckooFilter(capacity=2000, seed=3)
    f.update(range(1500))
    f.save(tmp_path / "a.cf")
    g = cf.CuckooFilter.load(tmp_path / "a.cf", concurrent=True)
    assert g.stats.flags == cf._cuckoofilter.CONCURRENT
    assert g.stats.items == f.stats.items == 1500
    assert g.contains_many(range(1500)) == [True] * 1500
    g.unsafe_discard(7)
    f.unsafe_discard(7)
    assert g.to_bytes() == f.to_bytes()  # files never record the flag
    grown = cf.CuckooFilter(capacity=100, grow=True)
    grown.save(tmp_path / "g.cf")
    with pytest.raises(ValueError):
        cf.CuckooFilter.load(tmp_path / "g.cf", concurrent=True)
    assert cf.CuckooFilter.load(tmp_path / "a.cf").stats.flags == 0


def test_save_is_atomic_replacement(tmp_path):
    path = tmp_path / "f.cf"
    f = cf.CuckooFilter(capacity=100)
    f.save(path)
    m = cf.CuckooFilter.map(path)  # a reader of the old file
    f.update(range(50))
    f.save(path)
    assert len(m) == 0 and len(cf.CuckooFilter.load(path)) == 50
    assert [p.name for p in tmp_path.iterdir()] == ["f.cf"]  # no temporary left


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_golden_files_load(path):
    data = path.read_bytes()
    f = cf.CuckooFilter.from_bytes(data)
    assert f.to_bytes() == data  # re-serialized byte for byte
    assert cf.CuckooFilter.load(path) == f == cf.CuckooFilter.map(path, verify=True)


def test_golden_file_rebuilt_in_python():
    # docs/FORMAT.md: 380 keys "key-0".."key-379", f=12, b=4, nb=100, seed 2014.
    golden = (DATA / "good" / "article_f12_b4_nb100.cf").read_bytes()
    f = cf.CuckooFilter(num_buckets=100, bucket_size=4, fingerprint_bits=12, seed=2014)
    f.update(f"key-{i}" for i in range(380))
    assert f.to_bytes() == golden
    g = cf.CuckooFilter(num_buckets=100, bucket_size=4, fingerprint_bits=12, seed=2014)
    for i in range(380):
        g.add(f"key-{i}".encode())
    assert g.to_bytes() == golden


def _valid_filter_then_more(data):
    """True when a proper prefix of data is a whole valid filter: then this
    package names the bytes after it (CF_E_TRAILING) where the C library's
    readers say CF_E_CORRUPT (the MANIFEST's status)."""
    for n in range(len(data)):
        try:
            cf.CuckooFilter.from_bytes(data[:n])
            return True
        except cf.FormatError:
            pass
    return False


@pytest.mark.parametrize("name,status", list(bad_files()))
def test_bad_golden_files_name_their_status(name, status):
    path = DATA / "bad" / name
    if _valid_filter_then_more(path.read_bytes()):
        assert status == "CF_E_CORRUPT"
        status = "CF_E_TRAILING"
    with pytest.raises(cf.FormatError) as e:
        cf.CuckooFilter.from_bytes(path.read_bytes())
    assert e.value.status_name == status and status in str(e.value)
    with pytest.raises(cf.FormatError) as e:
        cf.CuckooFilter.load(path)
    assert e.value.status_name == status
    # map checks the header only; verify=True reads the rest too
    try:
        m = cf.CuckooFilter.map(path, verify=True)
    except cf.FormatError as e:
        assert e.status_name == status
    else:
        pytest.fail(f"map(verify=True) accepted {name}: {m!r}")


def test_cli_file_answers_the_same_in_python(cli, tmp_path):
    path = tmp_path / "cli.cf"
    keys = [f"user-{i}" for i in range(3000)] + ["héllo", "日本"]
    cli("create", path, "--capacity", 5000, "--fpp", 0.001, "--seed", 77)
    cli("add", path, input="\n".join(keys).encode() + b"\n")
    cli("delete", path, "user-0")
    f = cf.CuckooFilter.load(path)
    assert f.stats.seed == 77 and len(f) == len(keys) - 1
    assert f.contains_many(keys[1:]) == [True] * (len(keys) - 1)
    probes = [f"probe-{i}" for i in range(2000)] + ["user-0"]
    r = cli("query", path, input="\n".join(probes).encode() + b"\n")
    answers = dict(line.split("\t") for line in r.stdout.decode().splitlines())
    assert [answers[p] == "yes" for p in probes] == f.contains_many(probes)
    r = cli("count", path, "héllo")
    assert int(r.stdout) == f.count("héllo") == 1


def test_python_file_answers_the_same_in_cli(cli, tmp_path):
    path = tmp_path / "py.cf"
    f = cf.CuckooFilter(capacity=2000, seed=9, semi_sort=True, fingerprint_bits=10)
    added = [f"py-{i}" for i in range(1500)]
    f.update(added)
    f.save(path)
    probes = added + [f"nope-{i}" for i in range(3000)]
    r = cli("query", path, input="\n".join(probes).encode() + b"\n")
    answers = [line.split("\t")[1] == "yes" for line in r.stdout.decode().splitlines()]
    assert answers == f.contains_many(probes) and all(answers[:1500])
    info = cli("info", path, "--json").stdout.decode()
    assert '"items": 1500' in info and '"checksum_ok": true' in info
    # the CLI changes the file; Python reads the change
    cli("add", path, "from-cli")
    cli("delete", path, "py-0")
    g = cf.CuckooFilter.load(path)
    assert "from-cli" in g and len(g) == 1500
    f.add("from-cli")
    f.remove("py-0")
    assert g.contains_many(probes) == f.contains_many(probes)


def test_pickle_copy_equality():
    f = cf.CuckooFilter(capacity=1000, seed=4)
    f.update(range(700))
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        g = pickle.loads(pickle.dumps(f, protocol=proto))
        assert type(g) is cf.CuckooFilter and g == f and g is not f
    for g in (copy.copy(f), copy.deepcopy(f), copy.deepcopy([f])[0]):
        assert g == f
        g.add("new")  # independent tables
        assert "new" not in f and g != f
    assert f != cf.CuckooFilter(capacity=1000, seed=5)
    assert (f == "not a filter") is False and f != 3
    stats = pickle.loads(pickle.dumps(f.stats))
    assert stats == f.stats


def test_copy_of_mapped_filter_is_writable(tmp_path):
    f = cf.CuckooFilter(capacity=100)
    f.add("x")
    f.save(tmp_path / "m.cf")
    m = cf.CuckooFilter.map(tmp_path / "m.cf")
    c = copy.copy(m)
    assert c == m and not c.read_only
    c.add("y")
    p = pickle.loads(pickle.dumps(m))
    assert p == m and not p.read_only


def test_pickle_subclass():
    g = pickle.loads(pickle.dumps(Sub(capacity=10)))
    assert type(g) is Sub


class Sub(cf.CuckooFilter):
    pass

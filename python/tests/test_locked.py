# SPDX-License-Identifier: Apache-2.0 OR MIT
"""cuckoofilter.locked(): the file lock the cuckoo command takes, from Python.

The issue's case: a load/add/save loop in Python beside `cuckoo add` on one
file lost acknowledged adds (the last save wins).  Under locked() every add
either process acknowledged is in the file at the end."""

import os
import subprocess
import threading

import pytest

import cuckoofilter as cf
from conftest import SANITIZED, find_cli

ROUNDS = 60 if SANITIZED else 200


def _cli_env():
    return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def test_python_beside_cli_loses_nothing(cli, tmp_path):
    path = tmp_path / "shared.cf"
    cli("create", path, "--capacity", 100000, "--seed", 3)
    cuckoo = find_cli()
    acked_cli = []

    def cli_adds():
        for i in range(ROUNDS):
            key = "cli-%d" % i
            r = subprocess.run([cuckoo, "add", str(path), key], capture_output=True,
                               env=_cli_env())
            if r.returncode == 0:
                acked_cli.append(key)

    t = threading.Thread(target=cli_adds)
    t.start()
    acked_py = []
    for i in range(ROUNDS):
        key = "py-%d" % i
        with cf.locked(path) as f:
            f.add(key)
        acked_py.append(key)
    t.join()
    assert len(acked_cli) == ROUNDS and len(acked_py) == ROUNDS
    f = cf.CuckooFilter.load(path)
    lost = [k for k in acked_cli + acked_py if k not in f]
    assert lost == [], "acknowledged adds lost: %r" % lost[:10]
    assert len(f) == 2 * ROUNDS


def test_unlocked_loop_is_what_locked_prevents(cli, tmp_path):
    """The same race without the lock does lose adds on this machine often
    enough to show what locked() is for; it is not asserted (timing), only
    the locked run above is.  This checks the lock is really exclusive:
    while Python holds it, the CLI waits (--no-wait fails)."""
    path = tmp_path / "held.cf"
    cli("create", path, "--capacity", 1000)
    with cf.locked(path) as f:
        f.add("inside")
        r = cli("add", "--no-wait", path, "cli-key", check=False)
        assert r.returncode == 2 and b"locked" in r.stderr
    r = cli("add", "--no-wait", path, "cli-key", check=False)
    assert r.returncode == 0
    g = cf.CuckooFilter.load(path)
    assert "inside" in g and "cli-key" in g


def test_nothing_written_on_exception(tmp_path):
    path = tmp_path / "f.cf"
    cf.CuckooFilter(capacity=1000).save(path)
    before = path.read_bytes()
    with pytest.raises(KeyError):
        with cf.locked(path) as f:
            f.add("never saved")
            raise KeyError("boom")
    assert path.read_bytes() == before
    assert "never saved" not in cf.CuckooFilter.load(path)


def test_create_timeout_and_errors(tmp_path):
    path = tmp_path / "new.cf"
    with pytest.raises(FileNotFoundError):
        with cf.locked(path):
            pass
    assert not path.exists()
    assert not (tmp_path / "new.cf.lock").exists()  # a failed create leaves no lock file
    with cf.locked(path, create={"capacity": 500, "fpp": 0.01}) as f:
        f.add(1)
    assert 1 in cf.CuckooFilter.load(path)
    # Held by this process: another taker waits, and gives up at its timeout.
    with cf.locked(path):
        with pytest.raises(cf.LockedError) as e:
            with cf.locked(path, timeout=0.05):
                pass
        assert isinstance(e.value, TimeoutError) and e.value.status_name == "CF_E_LOCKED"
    with pytest.raises(ValueError):
        with cf.locked(path, timeout=-1):
            pass
    with pytest.raises(OSError, match="not a regular file"):
        with cf.locked(tmp_path, create={"capacity": 10}):
            pass


def test_lock_replaced_meanwhile_refuses_the_save(tmp_path):
    path = tmp_path / "f.cf"
    cf.CuckooFilter(capacity=1000).save(path)
    before = path.read_bytes()
    with pytest.raises(cf.LockedError):
        with cf.locked(path) as f:
            f.add("x")
            os.unlink(str(path) + ".lock")  # a human removed it: another writer may hold a new one
    assert path.read_bytes() == before


def test_save_doc_points_to_locked():
    assert "locked(" in cf.CuckooFilter.save.__doc__

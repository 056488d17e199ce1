# SPDX-License-Identifier: Apache-2.0 OR MIT
"""ShardedFilter keeps the local filter's contract for keys and removal,
without a server: a stand-in client answers the CF.* commands the sharded
filter sends with local filters and records the bytes it was sent.
(redis/tests/test_redis_sharded.py runs the same calls against a real
server.)

  - items are a local CuckooFilter's keys, as the same bytes
    (cuckoofilter.key_bytes): 5 and "5" are two items, "5" and b"5" one;
    1.5 and None are refused with the local TypeError;
  - remove() of an absent item raises KeyError, as CuckooFilter.remove."""

import pytest

import cuckoofilter as cf
from cuckoofilter.redis import ShardedFilter


class FakeRedis:
    """One Redis node with the module: CF.RESERVE, CF.INSERT NOCREATE ITEMS,
    CF.MEXISTS, CF.EXISTS, CF.DEL over local filters of bytes, a hash type
    for the metadata, and pipelines (run at execute())."""

    def __init__(self):
        self.data = {}
        self.sent = []  # every item's bytes, as the server received them

    def get_encoder(self):
        """redis-py's encoder (what ShardedFilter used to send items through:
        5 as b"5", 1.5 as b"1.5")."""
        from redis.connection import Encoder
        return Encoder("utf-8", "strict", False)

    def exists(self, key):
        return int(key in self.data)

    def delete(self, key):
        return int(self.data.pop(key, None) is not None)

    def hgetall(self, key):
        return dict(self.data.get(key, {}))

    def hsetnx(self, key, field, value):
        h = self.data.setdefault(key, {})
        if field.encode() in h:
            return 0
        h[field.encode()] = str(value).encode()
        return 1

    def hset(self, key, mapping):
        h = self.data.setdefault(key, {})
        for k, v in mapping.items():
            h[k.encode()] = v if isinstance(v, bytes) else str(v).encode()

    def _item(self, b):
        assert isinstance(b, bytes), "items reach the server as bytes: %r" % (b,)
        self.sent.append(b)
        return b

    def execute_command(self, verb, key, *args):
        if verb == "CF.RESERVE":
            self.data[key] = cf.CuckooFilter(capacity=int(args[0]), fpp=float(args[-1]), seed=1)
            return b"OK"
        f = self.data[key]
        if verb == "CF.INSERT":
            assert args[:2] == ("NOCREATE", "ITEMS")
            for b in args[2:]:
                f.add(self._item(b))
            return [1] * (len(args) - 2)
        if verb == "CF.MEXISTS":
            return [int(self._item(b) in f) for b in args]
        if verb == "CF.EXISTS":
            return int(self._item(args[0]) in f)
        if verb == "CF.DEL":
            return int(f.unsafe_discard(self._item(args[0])))
        raise AssertionError(verb)

    def pipeline(self, transaction=False):
        return _Pipe(self)


class _Pipe:
    def __init__(self, r):
        self.r, self.cmds = r, []

    def execute_command(self, *args):
        self.cmds.append(args)

    def execute(self, raise_on_error=True):
        return [self.r.execute_command(*c) for c in self.cmds]


@pytest.fixture
def sharded():
    return ShardedFilter.create(FakeRedis(), "s", capacity=10000, fpp=0.001, shards=3)


def test_items_are_the_local_filters_keys(sharded):
    local = cf.CuckooFilter(capacity=10000, fpp=0.001)
    for f in (local, sharded):
        f.add(5)
        assert 5 in f
        assert "5" not in f and b"5" not in f  # 5 is 8 bytes, not the text "5"
        f.add("5")
        assert b"5" in f and bytearray(b"5") in f and memoryview(b"5") in f
        f.add(2**64 - 1)
        assert -1 in f  # the same 8 bytes, two's complement
    assert sharded.contains_many([5, "5", b"5", 7, "7"]) == local.contains_many(
        [5, "5", b"5", 7, "7"])
    sent = sharded.client.sent
    assert sent[0] == (5).to_bytes(8, "little") == cf.key_bytes(5)
    assert cf.key_bytes("5") == cf.key_bytes(b"5") == b"5" != cf.key_bytes(5)


@pytest.mark.parametrize("bad", [1.5, None, ["a"], 2**64, -2**63 - 1])
def test_keys_refused_as_locally(sharded, bad):
    local = cf.CuckooFilter(capacity=100)
    for call in ("add", "remove", "__contains__"):
        with pytest.raises((TypeError, OverflowError)) as want:
            getattr(local, call)(bad)
        with pytest.raises(type(want.value)) as got:
            getattr(sharded, call)(bad)
        assert str(got.value) == str(want.value)
    with pytest.raises(type(want.value)):
        sharded.update(["ok", bad])
    with pytest.raises(type(want.value)):
        sharded.contains_many(["ok", bad])
    assert sharded.client.sent == []  # nothing reached the server


def test_remove_like_the_local_filter(sharded):
    local = cf.CuckooFilter(capacity=10000, fpp=0.001)
    for f in (local, sharded):
        f.update(["a", "a", 5])
        assert f.remove("a") is None and "a" in f  # one copy of two
        f.remove("a")
        assert "a" not in f
        with pytest.raises(KeyError) as e:
            f.remove("a")
        assert e.value.args == ("a",)
        with pytest.raises(KeyError):
            f.remove("5")  # 5 was added, not "5"
        f.remove(5)
        assert f.unsafe_discard("never added") is False

# SPDX-License-Identifier: Apache-2.0 OR MIT
"""The sharded filter's layout without a server (cuckoofilter.redis):
Redis Cluster's CRC16 and hash tags, the shard key names (distinct slots,
each in its part of the slot space), the routing function's definition, and
why routing must not share the shards' seed: with independent seeds S local
filters hold their share and keep the target FPP; with the same seed the
same measurement fails (inserts refused, FPP several times the target)."""

import pytest

import cuckoofilter as cf
from cuckoofilter.redis import SLOTS, Router, _crc16, key_slot, shard_keys


def test_crc16_is_redis_clusters():
    assert _crc16(b"123456789") == 0x31C3  # CRC16/XMODEM's check value
    assert key_slot(b"foo") == 12182  # the Redis Cluster specification's example
    assert key_slot(b"{user1000}.following") == key_slot(b"user1000")
    assert key_slot(b"foo{}{bar}") == _crc16(b"foo{}{bar}") % SLOTS  # empty tag: whole key
    assert key_slot(b"{a}{b}") == key_slot(b"a")


@pytest.mark.parametrize("shards", [1, 2, 3, 12, 64, 257])
def test_shard_keys_spread_over_the_slot_space(shards):
    name = b"visitors"
    keys = shard_keys(name, shards)
    origin = _crc16(name) % SLOTS
    assert len(keys) == shards and len(set(keys)) == shards
    for k, key in enumerate(keys):
        assert key.endswith(b"}" + name) and key.startswith(b"{%d." % k)
        part = (key_slot(key) - origin) % SLOTS
        assert k * SLOTS // shards <= part < (k + 1) * SLOTS // shards
    assert shard_keys(name, shards) == keys  # a rule, not a draw


def test_names_with_braces_keep_the_shard_tags():
    keys = shard_keys(b"a{b}c", 4)
    assert len({key_slot(k) for k in keys}) == 4
    for key in keys:  # the slot is the leading tag's, not NAME's {b}
        tag = key[1:key.index(b"}")]
        assert key_slot(key) == _crc16(tag) % SLOTS


def test_routing_definition():
    r = Router(12, 7)
    h = cf.CuckooFilter(capacity=1, seed=7).hash
    for item in (b"", b"a", b"alice", bytes(range(200))):
        assert r.shard(item) == (h(item) * 12) >> 64
    counts = [0] * 12
    for i in range(60000):
        counts[r.shard(b"k%d" % i)] += 1
    assert all(abs(c - 5000) < 5 * 5000 ** 0.5 for c in counts)


def _shard_locally(routing_seed, shard_seed, n=60000, shards=6, fpp=0.001):
    router = Router(shards, routing_seed)
    parts = [cf.CuckooFilter(capacity=int(n / shards * 1.02), fpp=fpp, seed=shard_seed)
             for _ in range(shards)]
    refused = 0
    for i in range(n):
        b = b"in%d" % i
        try:
            parts[router.shard(b)].add(b)
        except cf.FilterFullError:
            refused += 1
    probes = 150000
    fp = sum(b"out%d" % i in parts[router.shard(b"out%d" % i)] for i in range(probes))
    return refused, fp / probes


def test_independent_routing_keeps_the_target():
    refused, fpp = _shard_locally(routing_seed=0x6366726F75746531, shard_seed=0x6366726564697331)
    assert refused == 0
    assert fpp <= 0.001 + 4 * (0.001 / 150000) ** 0.5


def test_correlated_routing_is_caught():
    # The same seed for routing and shards: a shard's items all have their
    # first bucket in 1/S of its table.  The measurement above must see it.
    refused, fpp = _shard_locally(routing_seed=5, shard_seed=5)
    assert refused > 500
    assert fpp > 2 * 0.001

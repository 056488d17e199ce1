# SPDX-License-Identifier: Apache-2.0 OR MIT
"""One cuckoo filter spread over the masters of a Redis Cluster.

A *sharded filter* NAME is S ordinary keys of the cuckoo.so module (CF.*),
one per shard, whose hash tags put them on S distinct slots spread over the
slot space (and so over the masters), plus a metadata hash, the key NAME
itself, that every client reads.  An item goes to the shard
``(XXH3-64(item, routing_seed) * S) >> 64``; the module hashes it again
inside the shard with its own seed, so routing and fingerprints are
independent.  docs/REDIS.md ("Sharded filters") specifies the layout for
clients in other languages.

    >>> from redis.cluster import RedisCluster
    >>> from cuckoofilter.redis import ShardedFilter
    >>> rc = RedisCluster(host="127.0.0.1", port=7000)
    >>> f = ShardedFilter.create(rc, "visitors", capacity=10**9, fpp=0.001, shards=64)
    >>> f.update(["alice", "bob"])
    2
    >>> "alice" in f, f.contains_many(["bob", "mallory"])
    (True, [True, False])

Items are keys as in a local CuckooFilter, turned into the same bytes
(``cuckoofilter.key_bytes``): bytes, bytearray, memoryview, str (UTF-8) or
int (8 bytes little-endian), so 5 and "5" are two items and "5" and b"5"
one, and anything else (1.5, None) is a TypeError, as locally.

Works with redis-py's ``RedisCluster`` and with a plain ``Redis`` (every
shard on one server).  Bulk calls group the items per shard, send one
CF.INSERT / CF.MEXISTS per shard (in pieces of at most ``batch`` items), in
one pipeline per node, to all nodes at once (a thread per node).  A shard
whose command fails (a node down, a redirect that does not settle, a full
shard) raises ``ShardError`` naming the items that were not stored (or not
answered): nothing is dropped silently.

Durability: Redis acknowledges a write once the master applied it; a master
that dies before its replica received the write loses it when the replica
is promoted.  Pass ``wait=(replicas, timeout_ms)`` to ``add``/``update`` to
send ``WAIT`` after each node's commands: items whose node could not
confirm that many replicas are reported in ``ShardError.not_stored`` too.
"""

import concurrent.futures
import datetime
import math

from . import CuckooFilter, key_bytes

FORMAT = "cuckoofilter.sharded"
FORMAT_VERSION = 1
ROUTING = "xxh3-64-mulhi"
#: The routing seed of filters created here ("cfroute1"); the module's own
#: keys use another seed ("cfredis1"), and routing must not share it.
DEFAULT_ROUTING_SEED = 0x6366726F75746531
SLOTS = 16384
MAX_SHARDS = 1024
#: Largest number of items sent in one CF.INSERT / CF.MEXISTS.
DEFAULT_BATCH = 10000
#: Attempts per shard command after a redirect (MOVED, ASK, TRYAGAIN).
REDIRECT_ATTEMPTS = 5


class ShardError(Exception):
    """Some shards failed.  ``errors`` maps a shard index to its error text;
    ``not_stored`` (writes) lists the items not stored, in input order;
    ``unanswered`` (reads) the items not answered; ``stored`` counts the
    items that were added anyway; ``answers`` (reads) holds True/False, or
    None for unanswered items."""

    def __init__(self, message, errors, not_stored=(), unanswered=(), stored=0, answers=None):
        super().__init__(message)
        self.errors = errors
        self.not_stored = list(not_stored)
        self.unanswered = list(unanswered)
        self.stored = stored
        self.answers = answers


# ----------------------------------------------------------------- layout


def _crc16_table():
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return table


_CRC16 = _crc16_table()


def _crc16(data):
    """CRC16-CCITT (XMODEM), Redis Cluster's key hash."""
    crc = 0
    for b in data:
        crc = ((crc << 8) & 0xFF00) ^ _CRC16[(crc >> 8) ^ b]
    return crc


def key_slot(key):
    """The cluster slot of key (bytes): the hash tag's when it has one."""
    start = key.find(b"{")
    if start >= 0:
        end = key.find(b"}", start + 1)
        if end > start + 1:
            key = key[start + 1:end]
    return _crc16(key) % SLOTS


def shard_keys(name, shards):
    """The shard key names of a new filter NAME (bytes), docs/REDIS.md's rule:
    shard k's key is ``{k.n}NAME`` with n the smallest integer >= 0 for which
    the tag ``k.n`` hashes into shard k's part of the slot space, the k-th of
    S equal parts starting at CRC16(NAME) mod 16384."""
    if not 1 <= shards <= MAX_SHARDS:
        raise ValueError("shards must be in [1, %d]" % MAX_SHARDS)
    origin = _crc16(name) % SLOTS
    keys = []
    for k in range(shards):
        lo, hi = k * SLOTS // shards, (k + 1) * SLOTS // shards
        for n in range(SLOTS * 64):  # the expected number of tries is S
            tag = b"%d.%d" % (k, n)
            if lo <= (_crc16(tag) - origin) % SLOTS < hi:
                keys.append(b"{" + tag + b"}" + name)
                break
        else:  # pragma: no cover - CRC16 covers every slot long before
            raise RuntimeError("no tag found for shard %d" % k)
    return keys


class Router:
    """Maps encoded items to shards: (XXH3-64(item, seed) * shards) >> 64,
    with the library's own hash (cf_hash of a filter with that seed)."""

    def __init__(self, shards, seed):
        self.shards = shards
        self._hash = CuckooFilter(capacity=1, seed=seed).hash

    def shard(self, item):
        return (self._hash(item) * self.shards) >> 64


def _is_cluster(client):
    return hasattr(client, "get_node_from_key") and hasattr(client, "nodes_manager")


def _text(v):
    return v.decode() if isinstance(v, (bytes, bytearray)) else str(v)


def _expire_ms(expire):
    """expire (None, seconds as an int or float, or a timedelta) in whole
    milliseconds, at least 1; 0 for None.  ValueError for a time that is
    not positive and finite, TypeError for anything else."""
    if expire is None:
        return 0
    if isinstance(expire, datetime.timedelta):
        expire = expire.total_seconds()
    if isinstance(expire, bool) or not isinstance(expire, (int, float)):
        raise TypeError("expire must be seconds (int or float) or a timedelta, not %s" %
                        type(expire).__name__)
    if not (0 < expire < float("inf")):
        raise ValueError("expire must be a positive, finite time, not %r" % (expire,))
    ms = math.ceil(expire * 1000)
    if ms > 1000 * 4294967295:
        raise ValueError("expire must be at most 4294967295 seconds (CF.RESERVE's EXPIRE)")
    return ms


def _pairs(reply):
    """A flat [name, value, ...] reply as a dict with str names."""
    return {_text(reply[i]): reply[i + 1] for i in range(0, len(reply) - 1, 2)}


# ----------------------------------------------------------------- filter


class ShardedFilter:
    """An existing sharded filter, opened from its metadata (KeyError if NAME
    holds none).  Create one with ``ShardedFilter.create``."""

    def __init__(self, client, name, *, batch=DEFAULT_BATCH):
        self.client = client
        self.name = name.encode() if isinstance(name, str) else bytes(name)
        self.batch = batch
        # A local filter's key bytes, not redis-py's encoder (which sends 5
        # as b"5" and takes floats).
        self._encode = key_bytes
        meta = {_text(k): v for k, v in client.hgetall(self.name).items()}
        if not meta:
            raise KeyError("no sharded filter %r (its metadata key is missing)" % name)
        if _text(meta.get("format", b"")) != FORMAT:
            raise ValueError("%r is not a sharded filter's metadata" % name)
        if int(meta["version"]) != FORMAT_VERSION or _text(meta["routing"]) != ROUTING:
            raise ValueError("sharded filter %r: version %s / routing %s not supported" %
                             (name, _text(meta["version"]), _text(meta["routing"])))
        self.meta = meta
        self.shards = int(meta["shards"])
        self.keys = [bytes(meta["key.%d" % k]) for k in range(self.shards)]
        self.routing_seed = int(meta["routing_seed"])
        #: Milliseconds an item lives (0: forever); read by clients that know
        #: it, ignored by older ones, which then add copies, not refreshes.
        self.expire_ms = int(meta.get("expire_ms", 0))
        self.router = Router(self.shards, self.routing_seed)
        self._pool = None
        # Set when a node could not be reached: the cluster's map of slots to
        # nodes is read again before the next command (a failover may have
        # promoted a replica in the meantime).
        self._stale = False
        #: Commands retried after a redirect (MOVED, ASK, ...): slots moving.
        self.redirects = 0

    @classmethod
    def create(cls, client, name, capacity, fpp=0.01, shards=None, *, bucket_size=4,
               expansion=1, routing_seed=DEFAULT_ROUTING_SEED, batch=DEFAULT_BATCH,
               expire=None):
        """Reserves S shards (CF.RESERVE: capacity/S items each plus a margin
        of 4 standard deviations for the routing's imbalance, the FPP asked
        for, which is the whole filter's too: a lookup probes one shard) and
        then writes the metadata.  shards defaults to 4 per master.  Fails
        (nothing left behind) if NAME or any shard key exists.

        expire (seconds, int or float, or a datetime.timedelta): items are
        forgotten that long after they were added (each shard a key made
        with CF.RESERVE ... PEXPIRE, to the millisecond, on its server's
        clock; docs/REDIS.md, "Items that expire"); capacity is then the
        items added in one such window, the shards never grow (expansion
        is ignored: their expired slots are reused), and adding an item
        that is there refreshes it (CF.INSERTNX) instead of storing a copy."""
        name_b = name.encode() if isinstance(name, str) else bytes(name)
        expire_ms = _expire_ms(expire)
        if expire_ms:
            expansion = 0
        if shards is None:
            shards = 4 * len(client.get_primaries()) if _is_cluster(client) else 4
        if capacity < 1 or not 0 < fpp < 1:
            raise ValueError("capacity must be >= 1 and fpp in (0, 1)")
        if routing_seed == 0x6366726564697331:
            raise ValueError("the routing seed must differ from the module's key seed")
        keys = shard_keys(name_b, shards)
        per = capacity / shards
        shard_capacity = max(2 * bucket_size, math.ceil(per + 4 * math.sqrt(per)) + 16)
        if client.exists(name_b):
            raise ValueError("%r exists" % name)
        made = []
        try:
            for key in keys:
                client.execute_command("CF.RESERVE", key, shard_capacity, "BUCKETSIZE", bucket_size,
                                       "EXPANSION", expansion, "ERROR_RATE", repr(fpp),
                                       *(("PEXPIRE", expire_ms) if expire_ms else ()))
                made.append(key)
            meta = {"format": FORMAT, "version": FORMAT_VERSION, "shards": shards,
                    "routing": ROUTING, "routing_seed": routing_seed, "capacity": capacity,
                    "shard_capacity": shard_capacity, "fpp": repr(fpp), "bucket_size": bucket_size,
                    "expansion": expansion}
            if expire_ms:
                meta["expire_ms"] = expire_ms
            for k, key in enumerate(keys):
                meta["key.%d" % k] = key
            if not client.hsetnx(name_b, "format", FORMAT):
                raise ValueError("%r exists" % name)
            client.hset(name_b, mapping=meta)
        except Exception:
            for key in made:
                client.delete(key)
            raise
        return cls(client, name_b, batch=batch)

    # ---------------------------------------------------------- plumbing

    def _node_of(self, key):
        """The node name a key's command goes to (one name for a plain Redis)."""
        if not _is_cluster(self.client):
            return "single"
        return self.client.get_node_from_key(key).name

    def _node_client(self, node):
        if node == "single":
            return self.client
        return self.client.get_redis_connection(self.client.get_node(node_name=node))

    def _refresh(self):
        """Reads the cluster's slot map again, if that is possible now."""
        if not _is_cluster(self.client):
            return
        try:
            self.client.nodes_manager.initialize()
            self._stale = False
        except Exception:  # no node answers yet: try again next time
            pass

    def _run(self, commands, wait=None, idempotent=False):
        """Runs commands [(shard, item_indexes, args)], each on its shard's
        key: one pipeline per node, all nodes at once.  Returns {position: reply or Exception}.  Redirected
        commands (a slot moving or moved) are retried one by one through the
        cluster client, which follows MOVED and ASK.  Commands to a node that
        could not be reached fail (a write may or may not have been applied:
        the caller decides whether to resend), except idempotent ones (reads),
        which are retried once after the slot map is read again."""
        if self._stale:
            self._refresh()
        by_node = {}
        for pos, (shard, _, args) in enumerate(commands):
            by_node.setdefault(self._node_of(self.keys[shard]), []).append(pos)
        results = {}

        def one_node(node, positions):
            out = {}
            try:
                pipe = self._node_client(node).pipeline(transaction=False)
                for pos in positions:
                    pipe.execute_command(*commands[pos][2])
                if wait:
                    pipe.execute_command("WAIT", wait[0], wait[1])
                replies = pipe.execute(raise_on_error=False)
            except Exception as e:  # the node is unreachable: every command failed
                return {pos: e for pos in positions}
            if wait:
                acked = replies.pop()
                if isinstance(acked, Exception) or acked < wait[0]:
                    err = ConnectionError("WAIT %d: %s replicas confirmed" % (wait[0], acked))
                    replies = [r if isinstance(r, Exception) else _Unconfirmed(r, err)
                               for r in replies]
            for pos, r in zip(positions, replies):
                out[pos] = r
            return out

        if len(by_node) == 1:
            for node, positions in by_node.items():
                results.update(one_node(node, positions))
        else:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=16)
            futures = [self._pool.submit(one_node, n, p) for n, p in by_node.items()]
            for fut in futures:
                results.update(fut.result())
        unreachable = [pos for pos, r in results.items()
                       if isinstance(r, (ConnectionError, TimeoutError, OSError)) or
                       type(r).__name__ in ("ConnectionError", "TimeoutError")]
        if unreachable:
            self._stale = True
            if idempotent:
                self._refresh()
                for pos in unreachable:
                    results[pos] = self._retry(commands[pos], wait)
        for pos, r in results.items():
            if isinstance(r, Exception) and _redirected(r):
                self.redirects += 1
                results[pos] = self._retry(commands[pos], wait)
        return results

    def _retry(self, command, wait):
        shard, _, args = command
        err = None
        for _ in range(REDIRECT_ATTEMPTS):
            try:
                reply = self.client.execute_command(*args)
                if wait:
                    node = (self.client.get_node_from_key(self.keys[shard])
                            if _is_cluster(self.client) else None)
                    acked = (self.client.execute_command("WAIT", wait[0], wait[1], target_nodes=node)
                             if node is not None else self.client.execute_command("WAIT", *wait))
                    if acked < wait[0]:
                        return _Unconfirmed(reply, ConnectionError(
                            "WAIT %d: %s replicas confirmed" % (wait[0], acked)))
                return reply
            except Exception as e:
                err = e
                if not _redirected(e):
                    break
        return err

    def _group(self, items):
        """[(encoded item, input index)] grouped per shard: {shard: ([items], [indexes])}."""
        groups = {}
        enc, route = self._encode, self.router.shard
        for i, item in enumerate(items):
            b = enc(item)
            k = route(b)
            g = groups.get(k)
            if g is None:
                g = groups[k] = ([], [])
            g[0].append(b)
            g[1].append(i)
        return groups

    def _commands(self, groups, verb, extra=()):
        cmds = []
        for shard, (enc, idx) in sorted(groups.items()):
            for a in range(0, len(enc), self.batch):
                cmds.append((shard, idx[a:a + self.batch],
                             [verb, self.keys[shard], *extra, *enc[a:a + self.batch]]))
        return cmds

    def _chunks(self, iterable):
        chunk = []
        for item in iterable:
            chunk.append(item)
            if len(chunk) >= self.batch * max(1, self.shards):
                yield chunk
                chunk = []
        if chunk:
            yield chunk

    # ---------------------------------------------------------- writes

    def add(self, item, *, wait=None):
        """Adds one item (a second copy if it is there; a refresh, when the
        filter expires its items).  ShardError if its shard refused it or
        could not be reached."""
        self.update([item], wait=wait)

    def update(self, iterable, *, wait=None):
        """Adds every item; returns how many were stored.  Items go to their
        shards in CF.INSERT NOCREATE commands (a shard key that vanished is
        an error, never a new default-sized filter); when the filter
        expires its items, CF.INSERTNX NOCREATE, which refreshes an item
        that is there (counted as stored: it lives a window from now).
        With wait=(n, ms), each node's commands are followed by WAIT n ms.
        Raises ShardError after all chunks were tried if any item was not
        stored (refused by a full shard, or its shard failed, or WAIT fell
        short)."""
        stored, not_stored, errors = 0, [], {}
        verb = "CF.INSERTNX" if self.expire_ms else "CF.INSERT"
        # CF.INSERTNX answers 0 for an item it refreshed, -1 when full.
        ok = (1, 0) if self.expire_ms else (1,)
        for chunk in self._chunks(iterable):
            cmds = self._commands(self._group(chunk), verb, ("NOCREATE", "ITEMS"))
            results = self._run(cmds, wait)
            for pos, (shard, idx, _) in enumerate(cmds):
                r = results[pos]
                if isinstance(r, _Unconfirmed):
                    errors[shard] = str(r.error)
                    stored += sum(1 for v in r.reply if v in ok)
                    not_stored.extend(chunk[i] for i in idx)
                elif isinstance(r, Exception):
                    errors[shard] = str(r)
                    not_stored.extend(chunk[i] for i in idx)
                else:
                    for i, v in zip(idx, r):
                        if v in ok:
                            stored += 1
                        else:
                            errors.setdefault(shard, "shard full: %s answered %r" % (verb, v))
                            not_stored.append(chunk[i])
        if errors:
            raise ShardError("%d item(s) not stored; failed shards: %s" %
                             (len(not_stored), sorted(errors)), errors, not_stored=not_stored,
                             stored=stored)
        return stored

    def remove(self, item):
        """Removes one copy of item (CF.DEL), as CuckooFilter.remove does:
        KeyError when its shard holds no matching fingerprint.  Only remove
        items that were added: a filter stores fingerprints, so removing an
        item never added can remove another's (a false negative)."""
        if not self.unsafe_discard(item):
            raise KeyError(item)

    def unsafe_discard(self, item):
        """Removes one copy of item if its shard holds a matching
        fingerprint; returns whether it did (CuckooFilter.unsafe_discard):
        safe only for items that were added."""
        b = self._encode(item)
        key = self.keys[self.router.shard(b)]
        return bool(self.client.execute_command("CF.DEL", key, b))

    # ---------------------------------------------------------- reads

    def __contains__(self, item):
        b = self._encode(item)
        key = self.keys[self.router.shard(b)]
        return bool(self.client.execute_command("CF.EXISTS", key, b))

    def contains_many(self, iterable):
        """[item in self for item in iterable], one CF.MEXISTS per shard (per
        batch) pipelined per node.  ShardError (with .answers holding None
        for them) when some items could not be answered."""
        answers, unanswered, errors = [], [], {}
        for chunk in self._chunks(iterable):
            base = len(answers)
            answers.extend([None] * len(chunk))
            cmds = self._commands(self._group(chunk), "CF.MEXISTS")
            results = self._run(cmds, idempotent=True)
            for pos, (shard, idx, _) in enumerate(cmds):
                r = results[pos]
                if isinstance(r, Exception):
                    errors[shard] = str(r)
                    unanswered.extend(chunk[i] for i in idx)
                else:
                    for i, v in zip(idx, r):
                        answers[base + i] = bool(v)
        if errors:
            raise ShardError("%d item(s) not answered; failed shards: %s" %
                             (len(unanswered), sorted(errors)), errors, unanswered=unanswered,
                             answers=answers)
        return answers

    def info(self):
        """Per-shard and total figures: items (fingerprints stored), bytes of
        tables (CF.INFO Size), MEMORY USAGE, load, the FPP bound (the
        largest shard's: a lookup probes one shard), and expire_ms (0 when
        items never expire)."""
        cmds = [(k, [], ["CF.INFO", key]) for k, key in enumerate(self.keys)]
        cmds += [(k, [], ["MEMORY", "USAGE", key]) for k, key in enumerate(self.keys)]
        results = self._run(cmds, idempotent=True)
        shards, errors = [], {}
        for k, key in enumerate(self.keys):
            r, mem = results[k], results[len(self.keys) + k]
            if isinstance(r, Exception):
                errors[k] = str(r)
                continue
            d = _pairs(r)
            slots = int(d["Number of buckets"]) * int(d["Bucket size"])
            items = int(d["Number of items inserted"])
            shards.append({
                "shard": k, "key": key, "slot": key_slot(key), "node": self._node_of(key),
                "items": items, "table_bytes": int(d["Size"]),
                "memory_bytes": None if isinstance(mem, Exception) else int(mem),
                "tables": int(d["Number of filters"]), "slots": slots,
                "load": items / slots if slots else 0.0,
                "fpp_bound": float(d.get("False positive rate bound", b"nan"))})
        if errors:
            raise ShardError("CF.INFO failed on shards %s" % sorted(errors), errors)
        items = sum(s["items"] for s in shards)
        return {
            "name": self.name, "shards": self.shards, "items": items,
            "capacity": int(self.meta["capacity"]), "fpp": float(self.meta["fpp"]),
            "table_bytes": sum(s["table_bytes"] for s in shards),
            "memory_bytes": sum(s["memory_bytes"] or 0 for s in shards),
            "load": items / max(1, sum(s["slots"] for s in shards)),
            "fpp_bound": max(s["fpp_bound"] for s in shards),
            "expire_ms": self.expire_ms,
            "nodes": sorted({s["node"] for s in shards}),
            "per_shard": shards}

    def __len__(self):
        """Items stored in all shards (CF.INFO: fingerprints stored now)."""
        return self.info()["items"]

    def drop(self):
        """Deletes the metadata (first: no client opens a half-dropped
        filter), then every shard.  Returns the number of keys deleted."""
        n = self.client.delete(self.name)
        for key in self.keys:
            n += self.client.delete(key)
        return n

    def close(self):
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return "ShardedFilter(%r, shards=%d)" % (self.name.decode("utf-8", "replace"), self.shards)


class _Unconfirmed:
    """A reply whose WAIT fell short: applied on the master, not confirmed
    on enough replicas."""

    def __init__(self, reply, error):
        self.reply = reply
        self.error = error


def _redirected(e):
    s = str(e)
    return s.startswith(("MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN")) or \
        type(e).__name__ in ("MovedError", "AskError", "TryAgainError", "ClusterDownError")

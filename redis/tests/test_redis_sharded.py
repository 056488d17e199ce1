# SPDX-License-Identifier: Apache-2.0 OR MIT
"""One cuckoo filter sharded over a real Redis Cluster (cuckoofilter.redis.
ShardedFilter): 3 masters with a replica each on loopback, made by
`redis-cli --cluster create`.

  1. 2,000,000 items over 12 shards on all three masters: no false
     negatives, the FPP measured on 200,000 absent items within the target,
     shard sizes as the routing predicts, info() and len() agree.
  2. A filter whose tables exceed one node's maxmemory: spread over the
     cluster it takes writes; as one key on one node it is refused (OOM).
  3. `redis-cli --cluster reshard` moves a shard's slot while a thread keeps
     inserting: every item acknowledged (update() returned, or listed as
     stored) is present afterwards, and the shard's key lives elsewhere.
  4. WAIT: with a replica stopped, update(wait=(1, ms)) lists exactly its
     master's shards' items as unconfirmed.  A master killed (SIGKILL):
     writes to its shards are reported as not stored (ShardError), the
     others stored; its replica is promoted, and every item acknowledged
     with wait=(1, ms) (WAIT 1) is still answered, by the same client too.
  5. The same client on a plain Redis (one node), and open/drop.
Usage: test_redis_sharded.py cuckoo.so  (PYTHONPATH: the built python/)."""

import contextlib
import datetime
import io
import os
import re
import signal
import textwrap
import sys
import threading
import time
from pathlib import Path

from redis.cluster import RedisCluster

from cfr_clusterlib import Cluster
from cfr_testlib import SKIP, Server, check, eq, finish, module_path

try:
    from cuckoofilter import key_bytes as cf_key_bytes
    from cuckoofilter.redis import ShardError, ShardedFilter, key_slot
except ImportError as e:  # pragma: no cover
    print("SKIP: the cuckoofilter Python package is not built (%s)" % e)
    sys.exit(SKIP)

MOD = module_path()


def raised(fn, *args):
    """The exception fn(*args) raised, or None."""
    try:
        fn(*args)
    except Exception as e:
        return e
    return None


def items(prefix, n, start=0):
    return ["%s:%d" % (prefix, i) for i in range(start, start + n)]


def client_for(cluster):
    node = cluster.alive_nodes()[0]
    return RedisCluster(host="127.0.0.1", port=node.port, socket_timeout=60)


def big_filter(rc):
    n, fpp = 2_000_000, 0.001
    f = ShardedFilter.create(rc, "big", capacity=n, fpp=fpp, shards=12)
    slots = [key_slot(k) for k in f.keys]
    eq(len(set(slots)), 12, "12 shards on 12 distinct slots")
    owners = {rc.get_node_from_key(k).port for k in f.keys}
    eq(len(owners), 3, "the shards live on all three masters")
    eq(f.update(items("in", n)), n, "update() stored all 2M items")
    found = f.contains_many(items("in", n))
    eq(found.count(False), 0, "no false negatives among 2M items")
    absent = 200_000
    fp = f.contains_many(items("out", absent)).count(True)
    rate = fp / absent
    # The target is the filter's bound at full load; at 2M / capacity it
    # must hold, plus 4 standard deviations of the measurement.
    limit = fpp + 4 * (fpp / absent) ** 0.5
    print("2M items, 12 shards: FPP %.5f measured (%d / %d), target %.4f" % (rate, fp, absent, fpp))
    check(rate <= limit, "measured FPP %.5f within the target %.4f" % (rate, fpp))
    check(rate >= fpp / 20, "measured FPP %.5f is a real measurement (not 0)" % rate)
    info = f.info()
    eq(info["items"], n, "info(): items summed over shards")
    eq(len(f), n, "len()")
    per = [s["items"] for s in info["per_shard"]]
    mean, sd = n / 12, (n / 12 * (1 - 1 / 12)) ** 0.5
    check(all(abs(p - mean) <= 5 * sd for p in per),
          "shard sizes within 5 sd of n/S (routing is uniform): %s" % per)
    check(info["fpp_bound"] <= fpp, "FPP bound %.5f <= target" % info["fpp_bound"])
    print("2M items: %d table bytes (%.2f bits/item), %d bytes MEMORY USAGE" %
          (info["table_bytes"], info["table_bytes"] * 8 / n, info["memory_bytes"]))
    eq(f.drop(), 13, "drop() deletes the metadata and 12 shards")
    eq(rc.exists("big"), 0, "metadata gone")


def over_maxmemory(cluster, rc):
    masters = cluster.primaries()
    used = max(m.client().info("memory")["used_memory"] for m in masters)
    limit = used + (12 << 20)
    for m in masters:
        m.client().config_set("maxmemory", limit)
        m.client().config_set("maxmemory-policy", "noeviction")
    try:
        f = ShardedFilter.create(rc, "wide", capacity=12_000_000, fpp=0.001, shards=12)
        info = f.info()
        check(info["memory_bytes"] > limit,
              "the filter (%d bytes) is larger than one node's maxmemory (%d)" %
              (info["memory_bytes"], limit))
        eq(f.update(items("w", 30000)), 30000, "writes to every shard are accepted")
        eq(f.contains_many(items("w", 30000)).count(False), 0, "and answered")
        # The same filter as one key on one master: reserved (the check is
        # made before a command), then over maxmemory, so writes are refused.
        m = masters[0].client()
        slot_key = next(k for k in ("one{%d}" % i for i in range(100000))
                        if rc.get_node_from_key(k).port == masters[0].port)
        m.execute_command("CF.RESERVE", slot_key, 12_000_000, "BUCKETSIZE", 4, "ERROR_RATE", "0.001")
        err = None
        try:
            m.execute_command("CF.ADD", slot_key, "x")
        except Exception as e:
            err = str(e)
        if os.environ.get("CFR_TEST_PRELOAD"):
            # Sanitizer builds start the module with SANITIZER_MALLOC 1: its
            # tables come from libc malloc, which used_memory does not see.
            print("sanitizer build: maxmemory does not see the module's libc heap; OOM not checked")
        else:
            check(err is not None and "OOM" in err, "one key of that size on one node: %s" % err)
        m.delete(slot_key)
        f.drop()
    finally:
        for m in masters:
            m.client().config_set("maxmemory", 0)


def migration(cluster, rc):
    f = ShardedFilter.create(rc, "mig", capacity=400_000, fpp=0.001, shards=12)
    # The shard closest to the start of its master's range: reshard moves the
    # source's lowest slots first, so that many slots carry the shard along.
    ranges = {}
    for lo, hi, port in _slots(cluster):
        ranges[(lo, hi)] = port
    best = None
    for k, key in enumerate(f.keys):
        s = key_slot(key)
        (lo, hi), port = next(((lo, hi), p) for (lo, hi), p in ranges.items() if lo <= s <= hi)
        if best is None or s - lo < best[0]:
            best = (s - lo, k, port)
    count, shard, src_port = best[0] + 1, best[1], best[2]
    src = cluster.by_port(src_port)
    dst = next(m for m in cluster.primaries() if m.port != src_port)
    eq(f.update(items("pre", 50000)), 50000, "items before the move")

    acked, unacked, errors, redirects = [], [], [], []
    done, started = threading.Event(), threading.Event()

    def writer():
        g = ShardedFilter(client_for(cluster), "mig")
        seen_done = None  # the batch after which the writer saw the move end
        for b in range(5000):  # bounded; stops soon after the reshard ends
            batch = items("during", 1000, b * 1000)
            try:
                g.update(batch)
                acked.extend(batch)
            except ShardError as e:
                lost = set(e.not_stored)
                acked.extend(x for x in batch if x not in lost)
                unacked.extend(e.not_stored)
                errors.append(e.errors)
            if b == 3:  # the writer's slot map predates the move
                started.set()
            # Stop only after a whole batch begun once the move had ended: its
            # items reach every shard (1,000 over 12), so it meets the moved
            # slot with the slot map it had before, whatever the timing.
            if done.is_set():
                seen_done = b if seen_done is None else seen_done
                if b >= 20 and b > seen_done:
                    break
        redirects.append(g.redirects)
        g.close()

    t = threading.Thread(target=writer)
    t.start()
    check(started.wait(300), "the writer started")
    out = cluster.reshard(src, dst, count)
    done.set()
    t.join()
    check(out.returncode == 0, "redis-cli --cluster reshard: %s" % out.stdout.decode()[-400:])
    rc2 = client_for(cluster)
    eq(rc2.get_node_from_key(f.keys[shard]).port, dst.port, "shard %d moved to another master" % shard)
    g = ShardedFilter(rc2, "mig")
    check(len(acked) > 20000, "the writer kept inserting during the move (%d items)" % len(acked))
    check(redirects[0] > 0, "the writer met the move (redirects followed: %d)" % redirects[0])
    eq(g.contains_many(acked).count(False), 0,
       "all %d acknowledged items present after the move" % len(acked))
    eq(g.contains_many(items("pre", 50000)).count(False), 0, "items from before the move present")
    print("migration: %d slots moved, %d items acknowledged during it, %d reported not stored (%s),"
          " %d redirects followed" % (count, len(acked), len(unacked), errors[:2], redirects[0]))
    g.drop()


def _slots(cluster):
    """[(lo, hi, master port), ...] from CLUSTER SLOTS."""
    reply = cluster.alive_nodes()[0].client().execute_command("CLUSTER", "SLOTS")
    if isinstance(reply, dict):  # redis-py parsed it
        return [(lo, hi, int(v["primary"][1])) for (lo, hi), v in reply.items()]
    return [(int(r[0]), int(r[1]), int(r[2][1])) for r in reply]


def failover(cluster, rc):
    f = ShardedFilter.create(rc, "ha", capacity=200_000, fpp=0.001, shards=12)
    durable = items("durable", 60000)
    eq(f.update(durable, wait=(1, 5000)), len(durable), "update with WAIT 1: all confirmed")
    victim = cluster.by_port(rc.get_node_from_key(f.keys[0]).port)
    replica = cluster.replica_of(victim)
    on_victim = [k for k, key in enumerate(f.keys) if rc.get_node_from_key(key).port == victim.port]
    # WAIT reports what the replicas did not confirm: with the victim's
    # replica stopped, its shards' items are applied on the master but
    # listed as not stored; the other masters' replicas confirm theirs.
    replica.proc.send_signal(signal.SIGSTOP)
    try:
        stalled = items("stalled", 12000)
        try:
            f.update(stalled, wait=(1, 300))
            check(False, "update with WAIT and a stopped replica raised no ShardError")
        except ShardError as e:
            eq(sorted(e.errors), on_victim, "WAIT fell short exactly on the stopped replica's shards")
            check(all("WAIT 1" in v for v in e.errors.values()), "the reason is WAIT: %s" % e.errors)
            eq(e.stored, len(stalled), "every item was applied on its master")
            check(0 < len(e.not_stored) < len(stalled), "the unconfirmed items are listed (%d)" %
                  len(e.not_stored))
    finally:
        replica.proc.send_signal(signal.SIGCONT)
    check(cluster.wait_replicas_synced(), "the replica caught up")
    # The replica waits for our word before taking over, so the write below
    # meets a dead master whatever the timing.
    replica.client().config_set("cluster-replica-no-failover", "yes")
    cluster.kill(victim)
    # The victim's shards fail and are reported; the rest are stored.
    batch = items("meanwhile", 12000)
    try:
        f.update(batch)
        check(False, "update with a master down raised no ShardError")
    except ShardError as e:
        eq(sorted(e.errors), on_victim, "the failed shards are those of the killed master")
        check(0 < len(e.not_stored) < len(batch), "some items not stored (%d), the rest stored (%d)" %
              (len(e.not_stored), e.stored))
        eq(e.stored + len(e.not_stored), len(batch), "every item is either stored or reported")
        not_stored = e.not_stored
        lost = set(not_stored)
        stored_meanwhile = [x for x in batch if x not in lost]
    replica.client().config_set("cluster-replica-no-failover", "no")
    check(cluster.wait_promoted(replica), "the replica was promoted")
    check(cluster.wait_ok(), "the cluster is ok again after the failover")
    # The client that saw the master die reads the new slot map by itself.
    eq(f.contains_many(durable).count(False), 0, "the same client answers after the failover")
    g = ShardedFilter(client_for(cluster), "ha")
    eq(g.contains_many(durable).count(False), 0, "every item acknowledged with WAIT 1 is answered")
    eq(g.contains_many(stored_meanwhile).count(False), 0,
       "items stored on the surviving masters are answered")
    eq(f.update(not_stored), len(not_stored), "the reported items, sent again, are stored")
    eq(g.contains_many(batch).count(False), 0, "the whole batch is there after the retry")


def plain_redis():
    with Server(MOD) as s:
        r = s.client()
        f = ShardedFilter.create(r, "one", capacity=100000, fpp=0.01, shards=5)
        eq(f.update(items("p", 80000)), 80000, "plain Redis: update")
        eq(f.contains_many(items("p", 80000)).count(False), 0, "plain Redis: no false negatives")
        check("p:7" in f, "plain Redis: in")
        f.remove("p:7")
        check("p:7" not in f, "plain Redis: remove")
        err = raised(f.remove, "p:7")
        check(isinstance(err, KeyError), "remove of an absent item: KeyError, as locally (%r)" % err)
        check(isinstance(raised(f.add, 1.5), TypeError), "1.5 refused, as locally")
        f.add(5)
        check(5 in f and "5" not in f, "5 is 8 bytes, as locally, not the text 5")
        check(r.execute_command("CF.EXISTS", f.keys[f.router.shard(cf_key_bytes(5))],
                                (5).to_bytes(8, "little")) == 1,
              "the shard holds 5's 8 little-endian bytes")
        f.remove(5)
        f.add(b"\x00\xffbytes")
        check(b"\x00\xffbytes" in f, "plain Redis: binary items")
        eq(len(ShardedFilter(r, "one")), 80000, "plain Redis: open by name, len()")
        err = None
        try:
            ShardedFilter.create(r, "one", capacity=10, shards=2)
        except ValueError as e:
            err = str(e)
        check(err is not None, "create refuses an existing name (%s)" % err)
        r.delete(f.keys[3])
        try:
            f.update(items("q", 1000))
            check(False, "a vanished shard raised nothing")
        except ShardError as e:
            eq(sorted(e.errors), [3], "a vanished shard is reported, not recreated")
            eq(r.exists(f.keys[3]), 0, "NOCREATE: the shard was not recreated")
        eq(f.drop(), 5, "drop")
        eq(r.dbsize(), 0, "nothing left")


def expiring_sharded():
    """expire=: every shard an expiring key (PEXPIRE), re-adding refreshes
    (no copies), items go once their window passed, bad values refused."""
    with Server(MOD) as s:
        r = s.client()
        f = ShardedFilter.create(r, "exp", capacity=1000, fpp=0.01, shards=3, expire=0.3)
        eq(f.expire_ms, 300, "expire in milliseconds")
        eq(ShardedFilter(r, "exp").expire_ms, 300, "opened by name, it still expires")
        for key in f.keys:
            reply = r.execute_command("CF.INFO", key)
            d = {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}
            eq(int(d["Expire after (ms)"]), 300, "each shard expires after 300 ms")
        batch = items("e", 200)
        eq(f.update(batch), 200, "update")
        eq(f.update(batch), 200, "update again: refreshed, counted as stored")
        eq(len(f), 200, "refreshes stored no copies")
        eq(f.contains_many(batch).count(False), 0, "no false negatives inside the window")
        eq(f.info()["expire_ms"], 300, "info says the window")
        # The shards' clocks move when a command touches them: ask until
        # every item is gone (a window and a stamp's span: well under 1 s).
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(f) > 0:
            f.contains_many(batch)
            time.sleep(0.05)
        eq(len(f), 0, "every item expired and left its slot")
        for bad, why in ((0, ValueError), (-1, ValueError), (float("nan"), ValueError),
                         ("1", TypeError), (True, TypeError)):
            err = raised(lambda: ShardedFilter.create(r, "bad", 10, expire=bad))
            check(isinstance(err, why), "expire=%r refused: %r" % (bad, err))
        eq(r.exists("bad"), 0, "a refused create left no metadata")
        g = ShardedFilter.create(r, "td", capacity=100, shards=2,
                                 expire=datetime.timedelta(minutes=1))
        eq(g.expire_ms, 60000, "a timedelta")
        eq(g.drop() + f.drop(), 7, "drop: the shards and both metadata keys")
        eq(r.dbsize(), 0, "nothing left")


def readme_example():
    """docs/REDIS.md's runnable ShardedFilter example (a `python needs-server`
    block the docs test only compiles), as written, with Debian's redis-py,
    its redis.Redis() pointed at this test's server."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "REDIS.md").read_text()
    blocks = [textwrap.dedent(b) for b in
              re.findall(r"```python needs-server\n(.*?)```", doc, re.S)
              if "ShardedFilter" in b and "redis.Redis()" in b]
    eq(len(blocks), 1, "docs/REDIS.md has one runnable ShardedFilter example")
    with Server(MOD) as s:
        code = blocks[0].replace("redis.Redis()", "redis.Redis(port=%d)" % s.port)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "docs/REDIS.md (ShardedFilter)", "exec"), {})
        print("docs example printed: %s" % out.getvalue().strip())
        eq(s.client().dbsize(), 0, "the example's drop() left nothing")


def phase(name, fn, *args):
    """Runs one part; prints how long it took (for the log, never checked)."""
    t = time.monotonic()
    fn(*args)
    print("%s: %.1f s" % (name, time.monotonic() - t))


def main():
    phase("plain Redis", plain_redis)
    phase("expiring shards", expiring_sharded)
    phase("docs example", readme_example)
    with Cluster(MOD, masters=3, replicas=1) as cluster:
        rc = client_for(cluster)
        phase("2M items over 12 shards", big_filter, rc)
        phase("over maxmemory", over_maxmemory, cluster, rc)
        phase("reshard during inserts", migration, cluster, rc)
        phase("failover", failover, cluster, client_for(cluster))
        for n in cluster.alive_nodes():
            check(n.alive(), "node %d alive" % n.port)
    finish("redis_sharded")


main()

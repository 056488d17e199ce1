# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Throughput of a sharded filter (cuckoofilter.redis.ShardedFilter):
update() and contains_many() with 1 master (a one-node cluster owning all
16384 slots) and with 3 masters, the same client and shard count; the
client's own share (encoding, routing, grouping with no server); and bytes
per item against one unsharded key of the same capacity and FPP.

Usage: PYTHONPATH=build/release/python /usr/bin/python3 redis/bench_sharded.py \
           build/release/redis/cuckoo.so [items] [shards]
Prints one line per measurement (docs/BENCHMARKS.md, "Sharded filters")."""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests"))
from redis.cluster import RedisCluster  # noqa: E402

from cfr_clusterlib import Cluster, pick_ports  # noqa: E402
from cfr_testlib import Server, module_path  # noqa: E402
from cuckoofilter.redis import ShardedFilter  # noqa: E402

MOD = module_path()
N = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
S = int(sys.argv[3]) if len(sys.argv) > 3 else 12
FPP = 0.001


def rate(fn, n):
    t = time.perf_counter()
    fn()
    return n / (time.perf_counter() - t)


def server_usec(nodes):
    """usec of server CPU per command name, summed over nodes (INFO commandstats)."""
    out = {}
    for n in nodes:
        for name, st in n.client().info("commandstats").items():
            out[name] = out.get(name, 0) + st["usec"]
    return out


def measure(label, rc, nodes):
    for n in nodes:
        n.client().config_resetstat()
    f = ShardedFilter.create(rc, "bench", capacity=N, fpp=FPP, shards=S)
    items = ["item:%d" % i for i in range(N)]
    absent = ["absent:%d" % i for i in range(N)]
    up = rate(lambda: f.update(items), N)
    hit = rate(lambda: f.contains_many(items), N)
    miss = rate(lambda: f.contains_many(absent), N)
    client = rate(lambda: [f._commands(f._group(c), "CF.MEXISTS") for c in f._chunks(items)], N)
    info = f.info()
    cpu = server_usec(nodes)
    print("%-10s server CPU per item: CF.INSERT %.3f us, CF.MEXISTS %.3f us (all nodes)" %
          (label, cpu.get("cmdstat_cf.insert", 0) / N, cpu.get("cmdstat_cf.mexists", 0) / (2 * N)))
    print("%-10s S=%d n=%d  update %8.0f items/s  contains_many %8.0f (present) %8.0f (absent)"
          "  client alone %8.0f items/s  table %.2f bits/item  MEMORY USAGE %.2f bits/item" %
          (label, S, N, up, hit, miss, client, info["table_bytes"] * 8 / N,
           info["memory_bytes"] * 8 / N))
    f.drop()
    f.close()


def one_key(r):
    """The same items into one key, CF.INSERT / CF.MEXISTS of 10,000 items
    each in one pipeline: the unsharded baseline."""
    r.execute_command("CF.RESERVE", "one", N, "BUCKETSIZE", 4, "ERROR_RATE", repr(FPP))
    items = ["item:%d" % i for i in range(N)]

    def run(cmd):
        p = r.pipeline(transaction=False)
        for a in range(0, N, 10000):
            p.execute_command(*cmd, *items[a:a + 10000])
        p.execute()

    up = rate(lambda: run(["CF.INSERT", "one", "ITEMS"]), N)
    hit = rate(lambda: run(["CF.MEXISTS", "one"]), N)
    mem = r.execute_command("MEMORY", "USAGE", "one")
    print("one key    n=%d  update %8.0f items/s  contains_many %8.0f (present)"
          "  MEMORY USAGE %.2f bits/item" % (N, up, hit, mem * 8 / N))
    r.delete("one")


def one_master():
    extra = ["--cluster-enabled", "yes"]
    with Server(MOD, port=pick_ports(1)[0],
                extra=extra + ["--cluster-config-file", "nodes-bench.conf"]) as s:
        s.client().execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        for _ in range(300):
            if s.client().cluster("info")["cluster_state"] == "ok":
                break
            time.sleep(0.1)
        measure("1 master", RedisCluster(host="127.0.0.1", port=s.port, socket_timeout=120), [s])
        one_key(s.client())


def three_masters():
    with Cluster(MOD, masters=3) as c:
        measure("3 masters", RedisCluster(host="127.0.0.1", port=c.nodes[0].port, socket_timeout=120),
                c.nodes)


print("# %s, %s" % (subprocess.run(["redis-server", "--version"], capture_output=True,
                                   text=True).stdout.split()[2], os.uname().machine))
one_master()
three_masters()

# SPDX-License-Identifier: Apache-2.0 OR MIT
"""A 3-master Redis Cluster on loopback (redis-cli --cluster create), filters
in several hash slots through redis-py's RedisCluster and its cf() API, then
one slot holding filters moved to another node (MIGRATE uses our
rdb_save/rdb_load) and the filters queried there."""

import time

from redis.cluster import RedisCluster

from cfr_clusterlib import Cluster
from cfr_testlib import check, eq, finish, module_path

MOD = module_path()


def main():
    with Cluster(MOD, masters=3) as cluster:
        nodes = cluster.nodes
        ports = [n.port for n in nodes]
        rc = RedisCluster(host="127.0.0.1", port=ports[0])
        keys = ["filter{%d}" % i for i in range(12)]
        owners = {}
        items = {k: ["%s:item%d" % (k, j) for j in range(2000)] for k in keys}
        for k in keys:
            rc.cf().create(k, 1000, expansion=2)
            eq(rc.cf().insert(k, items[k]).count(1), 2000, "INSERT through the cluster into %s" % k)
            owners[k] = rc.get_node_from_key(k).port
        check(len(set(owners.values())) == 3, "filters live on all three masters: %s" % sorted(set(owners.values())))
        infos = {k: vars(rc.cf().info(k)) for k in keys}

        # Move the slot of keys[0] to another master.
        k0 = keys[0]
        slot = rc.keyslot(k0)
        src = next(n for n in nodes if n.port == owners[k0])
        dst = next(n for n in nodes if n.port != owners[k0])
        sc, dc = src.client(), dst.client()
        src_id, dst_id = sc.execute_command("CLUSTER", "MYID").decode(), dc.execute_command("CLUSTER", "MYID").decode()
        dc.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", src_id)
        sc.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", dst_id)
        in_slot = sc.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100)
        check(k0.encode() in in_slot, "the filter is in slot %d" % slot)
        eq(sc.execute_command("MIGRATE", "127.0.0.1", dst.port, "", 0, 5000, "KEYS", *in_slot), b"OK", "MIGRATE")
        for n in nodes:
            n.client().execute_command("CLUSTER", "SETSLOT", slot, "NODE", dst_id)
        for _ in range(100):  # every node agrees on the new owner
            if all(n.client().execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == (1 if n is dst else 0)
                   for n in nodes):
                break
            time.sleep(0.05)
        eq(dc.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot), len(in_slot), "keys arrived on the new owner")
        eq(dc.cf().exists(k0, items[k0][0]), 1, "CF.EXISTS directly on the new owner")
        moved = None
        try:
            sc.cf().exists(k0, items[k0][0])
        except Exception as e:
            moved = str(e)
        check(moved is not None and "MOVED" in moved, "the old owner redirects (%s)" % moved)

        rc2 = RedisCluster(host="127.0.0.1", port=ports[1])
        eq(rc2.get_node_from_key(k0).port, dst.port, "a fresh cluster client routes to the new owner")
        for k in keys:
            eq(rc2.cf().mexists(k, *items[k]).count(1), 2000, "no false negatives in %s after the move" % k)
            eq(vars(rc2.cf().info(k)), infos[k], "INFO of %s unchanged" % k)
        eq(rc2.cf().add(k0, "after-move"), 1, "writes after the move")
        eq(rc2.cf().exists(k0, "after-move"), 1, "reads after the move")
        for n in nodes:
            check(n.alive(), "node %d alive" % n.port)
    finish("redis_cluster")


main()

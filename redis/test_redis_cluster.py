"""A 3-master Redis Cluster on loopback (redis-cli --cluster create), filters
in several hash slots through redis-py's RedisCluster and its cf() API, then
one slot holding filters moved to another node (MIGRATE uses our
rdb_save/rdb_load) and the filters queried there."""

import random
import shutil
import socket
import subprocess
import time

from redis.cluster import RedisCluster

from cfr_testlib import REDIS_CLI, Server, check, eq, finish, module_path

MOD = module_path()


def port_pair_free(p):
    for q in (p, p + 10000):  # the cluster bus listens on port + 10000
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", q))
            except OSError:
                return False
    return True


def pick_ports(n):
    ports, rng = [], random.Random()
    while len(ports) < n:
        p = rng.randrange(20000, 40000)
        if p not in ports and port_pair_free(p):
            ports.append(p)
    return ports


def wait_ok(nodes):
    for _ in range(300):
        if all(n.client().cluster("info")["cluster_state"] == "ok" for n in nodes):
            return True
        time.sleep(0.1)
    return False


def main():
    ports = pick_ports(3)
    extra = ["--cluster-enabled", "yes", "--cluster-node-timeout", "3000"]
    nodes = [Server(MOD, port=p, extra=extra + ["--cluster-config-file", "nodes-%d.conf" % p]) for p in ports]
    try:
        for n in nodes:
            n.start()
        out = subprocess.run([REDIS_CLI, "--cluster", "create"] + ["127.0.0.1:%d" % p for p in ports] +
                             ["--cluster-replicas", "0", "--cluster-yes"], capture_output=True, timeout=60)
        check(out.returncode == 0, "redis-cli --cluster create: %s" % out.stdout.decode()[-300:])
        check(wait_ok(nodes), "cluster state ok")
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
    finally:
        for n in nodes:
            n.stop()
            shutil.rmtree(n.dir, ignore_errors=True)
    finish("redis_cluster")


main()

# SPDX-License-Identifier: Apache-2.0 OR MIT
"""A Redis Cluster on loopback for the tests: N masters (and R replicas
each) of Debian's redis-server with cuckoo.so loaded, made with `redis-cli
--cluster create`, always stopped.  Client ports come from 25000-25999 and
each node's cluster bus port (--cluster-port) is its port + 1000: both below
Linux's ephemeral range (32768-60999 by default), where Redis's own default
bus port (port + 10000) would be, and where any outgoing connection on the
machine, another cluster test's included, can take it first."""

import random
import shutil
import signal
import socket
import subprocess
import time

from cfr_testlib import REDIS_CLI, Server


BUS_OFFSET = 1000


def _port_pair_free(p):
    for q in (p, p + BUS_OFFSET):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", q))
            except OSError:
                return False
    return True


def pick_ports(n, lo=25000, hi=25999):
    ports, rng = [], random.Random()
    for _ in range(100000):
        if len(ports) == n:
            return ports
        p = rng.randrange(lo, hi + 1)
        if p not in ports and _port_pair_free(p):
            ports.append(p)
    raise RuntimeError("no %d free port pairs in %d..%d" % (n, lo, hi))


class Cluster:
    def __init__(self, module, masters=3, replicas=0, node_timeout=3000, extra=()):
        self.module = module
        self.masters, self.replicas = masters, replicas
        ports = pick_ports(masters * (1 + replicas))
        base = ["--cluster-enabled", "yes", "--cluster-node-timeout", str(node_timeout)] + list(extra)
        self.nodes = [Server(module, port=p, extra=base + ["--cluster-config-file", "nodes-%d.conf" % p,
                                                           "--cluster-port", str(p + BUS_OFFSET)])
                      for p in ports]

    def start(self):
        for n in self.nodes:
            n.start()
        out = subprocess.run([REDIS_CLI, "--cluster", "create"] +
                             ["127.0.0.1:%d" % n.port for n in self.nodes] +
                             ["--cluster-replicas", str(self.replicas), "--cluster-yes"],
                             capture_output=True, timeout=120)
        if out.returncode != 0:
            raise RuntimeError("redis-cli --cluster create: %s" % out.stdout.decode()[-500:])
        if not self.wait_ok(self.nodes):
            raise RuntimeError("the cluster did not reach state ok")
        if self.replicas and not self.wait_replicas_synced():
            raise RuntimeError("replicas did not sync")
        return self

    def alive_nodes(self):
        return [n for n in self.nodes if n.proc is not None and n.proc.poll() is None]

    def wait_ok(self, nodes=None, rounds=600):
        nodes = nodes or self.alive_nodes()
        for _ in range(rounds):
            try:
                if all(n.client().cluster("info")["cluster_state"] == "ok" for n in nodes):
                    return True
            except Exception:
                pass
            time.sleep(0.1)
        return False

    def wait_replicas_synced(self, rounds=600):
        for _ in range(rounds):
            roles = [n.client().info("replication") for n in self.alive_nodes()]
            reps = [r for r in roles if r["role"] == "slave"]
            if len(reps) == self.masters * self.replicas and \
                    all(r.get("master_link_status") == "up" for r in reps):
                return True
            time.sleep(0.1)
        return False

    def wait_promoted(self, replica, rounds=600):
        """Until replica is a master (the cluster failed its master over) and
        every live node routes the old master's slots to it."""
        for _ in range(rounds):
            try:
                if replica.client().info("replication")["role"] == "master":
                    return True
            except Exception:
                pass
            time.sleep(0.1)
        return False

    def node_id(self, node):
        return node.client().execute_command("CLUSTER", "MYID").decode()

    def by_port(self, port):
        return next(n for n in self.nodes if n.port == port)

    def primaries(self):
        return [n for n in self.alive_nodes() if n.client().info("replication")["role"] == "master"]

    def replica_of(self, master):
        mid = self.node_id(master)
        for n in self.alive_nodes():
            info = n.client().info("replication")
            if info["role"] == "slave" and int(info["master_port"]) == master.port:
                return n
        raise LookupError("no replica of %s" % mid)

    def kill(self, node):
        """SIGKILL: no shutdown save, no goodbye to the cluster."""
        node.proc.send_signal(signal.SIGKILL)
        node.proc.wait()
        node.proc = None
        node.errfile.close()

    def reshard(self, src, dst, slots):
        """redis-cli --cluster reshard of `slots` slots from src to dst
        (redis-cli takes the source's lowest slots first)."""
        return subprocess.run([REDIS_CLI, "--cluster", "reshard", "127.0.0.1:%d" % src.port,
                               "--cluster-from", self.node_id(src), "--cluster-to", self.node_id(dst),
                               "--cluster-slots", str(slots), "--cluster-yes"],
                              capture_output=True, timeout=300)

    def stop(self):
        for n in self.nodes:
            try:
                n.stop()
            finally:
                shutil.rmtree(n.dir, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except Exception:
            self.stop()
            raise

    def __exit__(self, *exc):
        self.stop()
        return False

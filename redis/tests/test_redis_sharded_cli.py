# SPDX-License-Identifier: Apache-2.0 OR MIT
"""`cuckoo export --shards` / `cuckoo import --shards` against a real
3-master Redis Cluster: a filter built offline with `cuckoo build` is split
into 12 shards, each shard's stream piped with `redis-cli --pipe` to the
master that owns its slot, the metadata last; the Python client opens it by
name and finds every key (so the CLI and the client route alike); a capture
of the shards' CF.SCANDUMP replies and the metadata comes back as shard
files byte-identical to the exported ones.  Wrong key lists and a routing
seed equal to the file's seed are refused.
Usage: test_redis_sharded_cli.py cuckoo.so path/to/cuckoo"""

import os
import shutil
import subprocess
import sys
import tempfile

from redis.cluster import RedisCluster

from cfr_clusterlib import Cluster
from cfr_testlib import REDIS_CLI, SKIP, check, eq, finish, module_path, resp

try:
    from cuckoofilter.redis import ShardedFilter, key_slot, shard_keys
except ImportError as e:  # pragma: no cover
    print("SKIP: the cuckoofilter Python package is not built (%s)" % e)
    sys.exit(SKIP)

MOD = module_path()
if len(sys.argv) < 3 or not os.path.exists(sys.argv[2]):
    print("usage: %s cuckoo.so path/to/cuckoo" % sys.argv[0])
    sys.exit(2)
CUCKOO = os.path.abspath(sys.argv[2])
# redis/load_sharded.sh, beside this directory (a tool for users, not a test).
LOADER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "load_sharded.sh")


# Sanitizer builds preload the shared ASan runtime into this interpreter (for
# the instrumented Python extension); the CLI carries its own runtime.
CLI_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def cuckoo(*args, stdin=None):
    return subprocess.run([CUCKOO] + [str(a) for a in args], input=stdin, capture_output=True,
                          timeout=300, env=CLI_ENV)


def owner(cluster, slot):
    reply = cluster.nodes[0].client().execute_command("CLUSTER", "SLOTS")
    rows = ([(lo, hi, int(v["primary"][1])) for (lo, hi), v in reply.items()]
            if isinstance(reply, dict) else [(int(r[0]), int(r[1]), int(r[2][1])) for r in reply])
    return next(p for lo, hi, p in rows if lo <= slot <= hi)


def pipe(port, path):
    with open(path, "rb") as f:
        out = subprocess.run([REDIS_CLI, "-h", "127.0.0.1", "-p", str(port), "--pipe"], stdin=f,
                             capture_output=True, timeout=300)
    text = out.stdout.decode()
    return out.returncode == 0 and "errors: 0" in text, text


def capture(cluster, rc, name, meta_last=False, split=False):
    """The sharded filter as a client would save it: the metadata as an
    HSET, then each shard's CF.SCANDUMP replies as CF.LOADCHUNK commands.
    meta_last puts the metadata after the shards, split spreads it over
    HMSETs of a few fields each, as a rewritten AOF may."""
    meta = rc.hgetall(name)
    fields = [b"format", meta.pop(b"format")]
    for k, v in meta.items():
        fields += [k, v]
    if split:
        head = [resp("HMSET", name, *fields[i:i + 6]) for i in range(0, len(fields), 6)]
    else:
        head = [resp("HSET", name, *fields)]
    out = []
    for k in range(int(fields[fields.index(b"shards") + 1])):
        key = meta[b"key.%d" % k]
        node = cluster.by_port(owner(cluster, key_slot(key))).client()
        it = 0
        for _ in range(1 << 20):
            it, data = node.execute_command("CF.SCANDUMP", key, it)
            if it == 0:
                break
            out.append(resp("CF.LOADCHUNK", key, it, data))
    return b"".join(out + head if meta_last else head + out)


def main():
    tmp = tempfile.mkdtemp(prefix="cfshcli-")
    try:
        with Cluster(MOD, masters=3) as cluster:
            run(tmp, cluster)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish("redis_sharded_cli")


def run(tmp, cluster):
    n = 200_000
    keys = "".join("user:%d\n" % i for i in range(n)).encode()
    src, out, back = (os.path.join(tmp, x) for x in ("built.cf", "out", "back"))
    eq(cuckoo("build", src, "--capacity", n, "--fpp", 0.001, stdin=keys).returncode, 0, "cuckoo build")

    # Refusals first: nothing may be lost silently.
    r = cuckoo("export", src, "v", "--shards", 12, "--output-dir", out, stdin=keys + b"stranger\n")
    check(r.returncode != 0 and b"not in the filter" in r.stderr, "a key not in FILE: %s" % r.stderr)
    r = cuckoo("export", src, "v", "--shards", 12, "--output-dir", out, stdin=keys[:keys.index(b"user:99\n")])
    check(r.returncode != 0 and b"keys were given" in r.stderr, "fewer keys than items: %s" % r.stderr)
    r = cuckoo("export", src, "v", "--shards", 12, "--output-dir", out, "--routing-seed", 0, stdin=keys)
    check(r.returncode != 0 and b"routing seed" in r.stderr, "routing seed = file seed: %s" % r.stderr)

    # The keys from --keys FILE: NAME is no key, so this is no "both".
    keys_file, out_k = os.path.join(tmp, "keys.txt"), os.path.join(tmp, "out_k")
    with open(keys_file, "wb") as kf:
        kf.write(keys)
    r = cuckoo("export", src, "offline{users}", "--shards", 12, "--output-dir", out_k,
               "--keys", keys_file)
    eq(r.returncode, 0, "export --shards --keys FILE: %s" % r.stderr.decode())
    r = cuckoo("export", src, "v", "extra", "--shards", 12, "--output-dir", out, "--keys", keys_file)
    check(r.returncode != 0 and b"not both ('extra')" in r.stderr,
          "a key argument beside --keys: %s" % r.stderr)

    name = "offline{users}"  # braces in NAME: the shard keys' own tags come first
    r = cuckoo("export", src, name, "--shards", 12, "--output-dir", out, stdin=keys)
    eq(r.returncode, 0, "export --shards: %s" % r.stderr.decode())
    for f in sorted(os.listdir(out)):
        with open(os.path.join(out, f), "rb") as a, open(os.path.join(out_k, f), "rb") as b:
            check(a.read() == b.read(), "%s: --keys FILE and stdin give the same bytes" % f)
    rows = [line.split("\t") for line in open(os.path.join(out, "shards.tsv")).read().splitlines()]
    eq(rows[-1], ["meta", str(key_slot(name.encode())), name, "meta.resp"], "the metadata row, last")
    rows = rows[:-1]
    eq([row[2].encode() for row in rows], shard_keys(name.encode(), 12),
       "the CLI and the Python client name the shards alike")
    eq(len({int(row[1]) for row in rows}), 12, "12 distinct slots")
    # One shard by hand, the rest (and the metadata) by the documented loader.
    ok, text = pipe(owner(cluster, int(rows[0][1])), os.path.join(out, rows[0][3]))
    check(ok, "redis-cli --pipe of %s: %s" % (rows[0][3], text[-200:]))
    r = subprocess.run(["bash", LOADER, out, "127.0.0.1", str(cluster.nodes[1].port)],
                       capture_output=True, timeout=300)
    eq(r.returncode, 0, "redis/load_sharded.sh: %s" % r.stderr.decode()[-300:])

    rc = RedisCluster(host="127.0.0.1", port=cluster.nodes[0].port, socket_timeout=60)
    f = ShardedFilter(rc, name)
    eq(len({rc.get_node_from_key(k).port for k in f.keys}), 3, "the shards are on three masters")
    member = ["user:%d" % i for i in range(n)]
    eq(f.contains_many(member).count(False), 0, "every key built offline answers in the cluster")
    fp = f.contains_many(["nobody:%d" % i for i in range(200_000)]).count(True) / 200_000
    check(fp <= 0.001 + 4 * (0.001 / 200_000) ** 0.5, "FPP %.5f within the file's 0.001" % fp)
    eq(len(f), n, "len(): every key stored once")

    cap = os.path.join(tmp, "capture.resp")
    with open(cap, "wb") as fh:
        fh.write(capture(cluster, rc, name))
    r = cuckoo("import", "--shards", back, cap)
    eq(r.returncode, 0, "import --shards: %s" % r.stderr.decode())
    for k in range(12):
        a = open(os.path.join(out, "shard-%d.cf" % k), "rb").read()
        b = open(os.path.join(back, "shard-%d.cf" % k), "rb").read()
        check(a == b, "shard %d came back byte-identical" % k)

    # Written to after loading: the shard files hold the new items too.
    eq(f.update(["late:%d" % i for i in range(1000)]), 1000, "writes after loading")
    with open(cap, "wb") as fh:
        fh.write(capture(cluster, rc, name, meta_last=True))
    r = cuckoo("import", "--shards", back, cap, "--force")
    eq(r.returncode, 0, "import --shards --force: %s" % r.stderr.decode())
    total = 0
    for k in range(12):
        info = cuckoo("info", os.path.join(back, "shard-%d.cf" % k), "--json").stdout.decode()
        total += int(info.split('"items":')[1].split(",")[0])
    eq(total, n + 1000, "the imported shard files hold every item")
    r = cuckoo("import", "--shards", back, cap)
    check(r.returncode != 0, "import --shards refuses to replace shard files without --force")

    # A filter the client created (the module's own seed) also comes back.
    g = ShardedFilter.create(rc, "live", capacity=50000, fpp=0.01, shards=6)
    g.update(["x%d" % i for i in range(30000)])
    with open(cap, "wb") as fh:
        fh.write(capture(cluster, rc, name) + capture(cluster, rc, "live", meta_last=True, split=True))
    r = cuckoo("import", "--shards", os.path.join(tmp, "live"), cap, "--key", "live")
    eq(r.returncode, 0, "import --shards of a client-made filter, metadata in HMSETs: %s" %
       r.stderr.decode())
    eq(sorted(x for x in os.listdir(os.path.join(tmp, "live")) if not x.endswith(".lock")),
       sorted(["meta.resp"] + ["shard-%d.cf" % k for k in range(6)]), "its six shard files")
    r = cuckoo("import", "--shards", os.path.join(tmp, "first"), cap)
    eq(r.returncode, 0, "import --shards without --key takes the first filter: %s" % r.stderr.decode())
    eq(len([x for x in os.listdir(os.path.join(tmp, "first")) if x.endswith(".cf")]), 12,
       "the first filter's twelve shards")
    r = cuckoo("import", "--shards", os.path.join(tmp, "none"), cap, "--key", "absent")
    check(r.returncode != 0 and b"no metadata" in r.stderr, "an absent --key: %s" % r.stderr)


main()

# SPDX-License-Identifier: Apache-2.0 OR MIT
"""A replica must hold byte-identical filters: writes before it attaches
arrive by full sync (RDB), writes after it attaches by the replicated
command stream, including failed inserts that mark sub-filters full,
deletes, COMPACT and LOADCHUNK, for chain keys and keys grown in place.  Compared with DEBUG DIGEST (the whole
dataset through our digest callback) and each key's SCANDUMP bytes."""


from cfr_testlib import Server, check, dump, eq, finish, module_path, plain, wait_sync

MOD = module_path()


def stream(r, key):
    chunks = dump(r, key)
    return chunks[0][1] + b"".join(c for _, c in chunks[1:])


def writes(r, tag, n):
    cf = r.cf()
    items = ["%s:%d" % (tag, i) for i in range(n)]
    cf.create(tag + ":grow", 100, expansion=2)
    r.execute_command("CF.INSERT", tag + ":grow", "ITEMS", *items)
    for it in items[: n // 3]:
        cf.delete(tag + ":grow", it)
    # Failed inserts change state (the "full" and "exhausted" marks); they
    # must replicate too.
    cf.create(tag + ":full", 50, expansion=0)
    r.execute_command("CF.INSERT", tag + ":full", "ITEMS", *items[:300])
    # Duplicates: 2b copies per sub-filter, more in new sub-filters.
    r.execute_command("CF.INSERT", tag + ":auto", "ITEMS", *["a%d" % (i % 7) for i in range(50)])
    cf.addnx(tag + ":auto", "fresh")
    r.execute_command("CF.INSERTNX", tag + ":auto", "ITEMS", "fresh", "fresher")
    r.execute_command("CF.COMPACT", tag + ":grow")
    # LOADCHUNK replicates chunk by chunk.
    for it, data in dump(r, tag + ":grow"):
        cf.loadchunk(tag + ":loaded", it, data)
    # Grown in place: doublings, deletes, and a doubling refused at the
    # key's FPP bound (the exhausted mark) replicate too.
    r.execute_command("CF.RESERVE", tag + ":inplace", 100, "GROWTH", "INPLACE")
    r.execute_command("CF.INSERT", tag + ":inplace", "ITEMS", *items)
    for it in items[: n // 3]:
        cf.delete(tag + ":inplace", it)
    r.execute_command("CF.RESERVE", tag + ":capped", 100, "GROWTH", "INPLACE",
                      "FINGERPRINT", 16, "ERROR_RATE", "0.0003")
    r.execute_command("CF.INSERT", tag + ":capped", "ITEMS", *items)
    return [tag + s for s in (":grow", ":full", ":auto", ":loaded", ":inplace", ":capped")]


def created(r, tag):
    """Keys whose kind, without GROWTH in the command, comes from the module
    argument GROWTH: reserved, and auto-created by each inserting command."""
    r.execute_command("CF.RESERVE", tag + ":reserved", 1000)
    r.execute_command("CF.RESERVE", tag + ":b2", 1000, "BUCKETSIZE", 2)  # always a chain key
    r.execute_command("CF.ADD", tag + ":add", "x")
    r.execute_command("CF.ADDNX", tag + ":addnx", "x")
    r.execute_command("CF.INSERT", tag + ":insert", "CAPACITY", 500, "ITEMS",
                      *["i%d" % i for i in range(3000)])
    r.execute_command("CF.INSERTNX", tag + ":insertnx", "ITEMS", "a", "b", "a")
    return [tag + s for s in (":reserved", ":b2", ":add", ":addnx", ":insert", ":insertnx")]


def same_keys(a, b, keys, what):
    """The same kind and bytes of every key on servers a and b."""
    for k in keys:
        eq(plain(b).execute_command("CF.INFO", k), plain(a).execute_command("CF.INFO", k),
           "%s: CF.INFO of %s" % (what, k))
    eq(b.execute_command("DEBUG", "DIGEST"), a.execute_command("DEBUG", "DIGEST"),
       what + ": DEBUG DIGEST")


def growth_argument():
    """The module argument GROWTH is not persisted: a replica, or an AOF
    replayed, under another one builds the keys the primary built (key
    creation replicates with GROWTH spelled out)."""
    for prim_args, repl_args in ((["GROWTH", "INPLACE"], []), ([], ["GROWTH", "INPLACE"])):
        with Server(MOD, module_args=prim_args) as prim, Server(MOD, module_args=repl_args) as repl:
            p, r = prim.client(), repl.client()
            r.replicaof("127.0.0.1", prim.port)
            check(wait_sync(p, r), "replica synced")
            keys = created(p, "g")
            kinds = {plain(p).execute_command("CF.INFO", k)[-4] == b"Growth" for k in keys}
            eq(kinds, {True, False} if prim_args else {False},
               "primary %s: the keys' kinds" % prim_args)
            p.execute_command("WAIT", 1, 5000)
            check(wait_sync(p, r), "replica caught up")
            same_keys(p, r, keys, "primary %s, replica %s" % (prim_args, repl_args))
    # An AOF replayed by a server started with another GROWTH.
    with Server(MOD, module_args=["GROWTH", "INPLACE"], extra=["--appendonly", "yes"]) as srv:
        r = srv.client()
        keys = created(r, "aof")
        want = {k: plain(r).execute_command("CF.INFO", k) for k in keys}
        digest = r.execute_command("DEBUG", "DIGEST")
        srv.module_args = []
        srv.restart()
        r = srv.client()
        for k in keys:
            eq(plain(r).execute_command("CF.INFO", k), want[k], "AOF replay: CF.INFO of " + k)
        eq(r.execute_command("DEBUG", "DIGEST"), digest, "AOF replay: DEBUG DIGEST")


def main():
    with Server(MOD, extra=["--repl-diskless-sync-delay", "0"]) as prim, Server(MOD) as repl:
        p, r = prim.client(), repl.client()
        keys = writes(p, "before", 3000)
        r.replicaof("127.0.0.1", prim.port)
        check(wait_sync(p, r), "replica synced (full sync)")
        keys += writes(p, "after", 3000)
        p.execute_command("WAIT", 1, 5000)
        check(wait_sync(p, r), "replica caught up with the command stream")
        eq(r.execute_command("DEBUG", "DIGEST"), p.execute_command("DEBUG", "DIGEST"),
           "DEBUG DIGEST of the whole dataset")
        for k in keys:
            eq(r.execute_command("DEBUG", "DIGEST-VALUE", k), p.execute_command("DEBUG", "DIGEST-VALUE", k),
               "digest of %s" % k)
            eq(stream(r, k), stream(p, k), "SCANDUMP bytes of %s" % k)
        eq(plain(r).execute_command("CF.INFO", "after:grow"), plain(p).execute_command("CF.INFO", "after:grow"),
           "INFO on the replica")
        # Replicas refuse writes but answer reads.
        err = None
        try:
            r.cf().add("after:grow", "x")
        except Exception as e:  # redis.exceptions.ReadOnlyError
            err = str(e)
        check(err is not None and "read only" in err.lower(), "replica refuses CF.ADD (%s)" % err)
        eq(r.cf().exists("after:grow", "after:2999"), 1, "replica answers CF.EXISTS")
        check(prim.alive() and repl.alive(), "both servers alive")
    growth_argument()
    finish("redis_replication")


main()

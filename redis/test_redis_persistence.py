"""Persistence of cuckoo filters: DEBUG RELOAD, restart from RDB, AOF rewrite
(our aof_rewrite callback, not the RDB preamble), DUMP/RESTORE, COPY,
MEMORY USAGE, and SCANDUMP/LOADCHUNK into a fresh server.  A filter's
signature is its SCANDUMP bytes plus CF.INFO: both must survive unchanged."""

import json
import os
import re
import shutil
import tempfile
import time

from cfr_testlib import (Server, check, dump, eq, finish, load, module_path, module_value,
                         plain)

MOD = module_path()
PROBE = ["p%d" % i for i in range(3000)] + ["q%d" % i for i in range(3000)]


def populate(r):
    """Filters of several shapes; returns their key names."""
    cf = r.cf()
    cf.create("plain", 1000)
    r.execute_command("CF.INSERT", "plain", "ITEMS", *PROBE[:800])
    r.execute_command("CF.RESERVE", "lowfpp", 2000, "ERROR_RATE", "0.0001", "BUCKETSIZE", 4)
    r.execute_command("CF.INSERT", "lowfpp", "ITEMS", *PROBE[:1500])
    # Several sub-filters, deletes, and a COUNT > 1 item.
    cf.create("grown", 200, expansion=2)
    r.execute_command("CF.INSERT", "grown", "ITEMS", *PROBE[:2500])
    for it in PROBE[:300]:
        cf.delete("grown", it)
    cf.add("grown", "twice")
    cf.add("grown", "twice")
    # Full, non-expanding (its sub-filter carries the "full" mark).
    cf.create("full", 100, expansion=0)
    r.execute_command("CF.INSERT", "full", "ITEMS", *PROBE[:400])
    cf.add("auto", "x")  # auto-created with defaults
    return ["plain", "lowfpp", "grown", "full", "auto"]


def signature(r, key):
    flat = plain(r).execute_command("CF.INFO", key)
    chunks = dump(r, key)
    # The bytes, not the chunking (servers may use different CHUNK_BYTES).
    stream = (chunks[0][1], b"".join(c for _, c in chunks[1:]))
    return (tuple(flat), stream, tuple(r.execute_command("CF.MEXISTS", key, *PROBE)))


def signatures(r, keys):
    return {k: signature(r, k) for k in keys}


def half_load(r, src_chunks):
    """A key in the middle of a LOADCHUNK restore (header + one chunk)."""
    load(r, "half", src_chunks[:2])


def finish_half(r, src_chunks):
    load(r, "half", src_chunks[2:])
    return signature(r, "half")


def legacy_rdb(name):
    """An RDB written by an earlier module (data/NAME.rdb, made by
    make_legacy_rdb.py): legacy_enc0, before keys were built on the library's
    CF_GROW; legacy_enc0_v2, before RDB saves were streamed in pieces, with
    a restore in progress.  Every key loads into one filter and answers
    exactly as it did, keeps growing, and survives a reload in today's
    layout; the restore in progress finishes with the chunks it was
    missing."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "data", name + ".json")) as f:
        want = json.load(f)
    tmp = tempfile.mkdtemp(prefix="cfredis-legacy-")
    try:
        shutil.copy(os.path.join(here, "data", name + ".rdb"), os.path.join(tmp, "dump.rdb"))
        with Server(MOD, workdir=tmp) as srv:
            r = srv.client()
            for key, w in want.items():
                for it, data in w.get("rest", []):
                    r.cf().loadchunk(key, it, bytes.fromhex(data))
                info = plain(r).execute_command("CF.INFO", key)
                got = [x.decode() if isinstance(x, bytes) else x for x in info[:16]]
                eq(got, w["info"], name + " " + key + ": CF.INFO as the old module answered")
                got = "".join(str(x) for x in r.execute_command("CF.MEXISTS", key, *PROBE))
                eq(got, w["mexists"], name + " " + key + ": MEXISTS as the old module answered")
                eq(r.execute_command("CF.COUNT", key, "same"), w["count_same"],
                   name + " " + key + ": COUNT")
            tables = plain(r).execute_command("CF.INFO", "grown")[5]
            more = ["more%d" % i for i in range(8000)]
            eq(set(r.execute_command("CF.INSERT", "grown", "ITEMS", *more)), {1}, "the old chain keeps growing")
            check(plain(r).execute_command("CF.INFO", "grown")[5] > tables, "by tables")
            eq(r.execute_command("CF.ADD", "dups", "same"), 1, "and takes more copies")
            before = signatures(r, list(want))
            r.execute_command("DEBUG", "RELOAD")
            eq(signatures(r, list(want)), before, "saved in the new format, the keys reload unchanged")
            check(srv.alive(), "server alive")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


CHUNK = 4096


def large_mallocs(r, at_least):
    """jemalloc's count of allocations of at least `at_least` bytes so far
    (MEMORY MALLOC-STATS, the table of large size classes): exact, unlike
    used_memory_peak, which Redis samples between commands.  Only the first
    such table counts: with several arenas jemalloc prints the merged totals
    first, then each arena's."""
    text = r.execute_command("MEMORY", "MALLOC-STATS").decode()
    total, rows, tables = 0, False, 0
    for line in text.splitlines():
        if re.match(r"large:\s+size\s+ind\s+allocated\s+nmalloc", line):
            tables += 1
            rows = tables == 1
            continue
        if rows and line.strip() == "---":
            continue
        m = re.match(r"\s+(\d+)\s+\d+\s+\d+\s+(\d+)\s", line) if rows else None
        if not m:
            rows = False
            continue
        if int(m.group(1)) >= at_least:
            total += int(m.group(2))
    return total


def check_pieces(r, key):
    """The key's RDB value (its DUMP payload) is encoding 1: the state, the
    dump header, the body length, then the body in pieces of CHUNK bytes,
    the last one shorter."""
    chunks = dump(r, key)
    header, body = chunks[0][1], b"".join(c for _, c in chunks[1:])
    type_id, items = module_value(r.dump(key))
    eq(type_id & 1023, 1, key + ": RDB encoding version 1")
    eq(items[:3], [("u", 1), ("s", header), ("u", len(body))], key + ": state, header, body length")
    pieces = [v for _, v in items[3:]]
    check(len(body) > 4 * CHUNK, key + ": the body spans several chunks (%d bytes)" % len(body))
    eq(b"".join(pieces), body, key + ": the pieces are the dump body")
    want = [CHUNK] * (len(body) // CHUNK) + ([len(body) % CHUNK] if len(body) % CHUNK else [])
    eq([len(p) for p in pieces], want, key + ": pieces of CHUNK_BYTES, the last one shorter")


def streamed_save():
    """An RDB save streams each key in CHUNK_BYTES pieces through one
    buffer: keys many chunks long (one table; one grown into several) are
    saved as such pieces, SAVE of a 4.7 MB key allocates nothing of 2 MiB
    or more (the earlier save allocated a copy of the key), and the keys
    come back from DEBUG RELOAD and from a restart with another CHUNK_BYTES
    with every item present and CF.INFO unchanged."""
    items = ["s%d" % i for i in range(20000)]
    with Server(MOD, module_args=["CHUNK_BYTES", str(CHUNK)], extra=["--rdbcompression", "no"]) as srv:
        r = srv.client()
        r.cf().create("one", 30000)
        r.execute_command("CF.INSERT", "one", "ITEMS", *items)
        r.cf().create("many", 1000, expansion=2)
        r.execute_command("CF.INSERT", "many", "ITEMS", *items)
        check(plain(r).execute_command("CF.INFO", "many")[5] >= 4, "many: grown into several tables")
        for k in ("one", "many"):
            check_pieces(r, k)
        half = 2 << 20
        made = large_mallocs(r, half)
        r.cf().create("big", 4000000)
        created = large_mallocs(r, half)
        r.execute_command("CF.INSERT", "big", "ITEMS", *items)
        size = int(plain(r).execute_command("CF.INFO", "big")[1])
        check(size >= 2 * half, "big: a table of %d bytes" % size)
        before = large_mallocs(r, half)
        eq(r.execute_command("SAVE"), True, "SAVE")
        # Sanitizer runs: the module's heap is ASan's malloc, which jemalloc
        # does not count (creating the table would count nothing).
        if os.environ.get("CFR_TEST_PRELOAD"):
            print("note: sanitizer run; the SAVE allocation check runs in the plain build")
        else:
            eq(created, made + 1, "jemalloc's counts see the module's allocations: the table is one")
            eq(large_mallocs(r, half), before,
               "SAVE of a %d-byte key allocates nothing of %d bytes or more" % (size, half))
        keys = ["one", "many", "big"]
        info = {k: plain(r).execute_command("CF.INFO", k) for k in keys}
        eq(r.execute_command("DEBUG", "RELOAD"), b"OK", "DEBUG RELOAD")
        for k in keys:
            eq(plain(r).execute_command("CF.INFO", k), info[k], k + ": CF.INFO after DEBUG RELOAD")
            eq(set(r.execute_command("CF.MEXISTS", k, *items)), {1}, k + ": every item after DEBUG RELOAD")
        # Pieces are read as they come, whatever the loading server's CHUNK_BYTES.
        srv.module_args = ["CHUNK_BYTES", str(CHUNK * 25 + 7)]
        srv.restart()
        r = srv.client()
        for k in keys:
            eq(plain(r).execute_command("CF.INFO", k), info[k], k + ": CF.INFO after a restart")
            eq(set(r.execute_command("CF.MEXISTS", k, *items)), {1}, k + ": every item after a restart")
        check(srv.alive(), "server alive")


def main():
    legacy_rdb("legacy_enc0")
    legacy_rdb("legacy_enc0_v2")
    streamed_save()
    with Server(MOD, module_args=["CHUNK_BYTES", "512"],
                extra=["--aof-use-rdb-preamble", "no"]) as srv:
        r = srv.client()
        keys = populate(r)
        before = signatures(r, keys)
        grown_chunks = dump(r, "grown")
        check(len(grown_chunks) > 3, "grown dumps in several chunks")
        half_load(r, grown_chunks)
        want_half = before["grown"]

        # DEBUG RELOAD: save + load the RDB in place.
        eq(r.execute_command("DEBUG", "RELOAD"), b"OK", "DEBUG RELOAD")
        eq(signatures(r, keys), before, "filters identical after DEBUG RELOAD")

        # Restart from the RDB written at shutdown.
        srv.restart()
        r = srv.client()
        eq(signatures(r, keys), before, "filters identical after a restart")

        # DUMP / RESTORE (rdb_save / rdb_load) and COPY (copy callback).
        for k in keys:
            r.restore(k + ":restored", 0, r.dump(k))
            r.copy(k, k + ":copy")
            eq(signature(r, k + ":restored"), before[k], "RESTORE of %s" % k)
            eq(signature(r, k + ":copy"), before[k], "COPY of %s" % k)
            eq(r.execute_command("DEBUG", "DIGEST-VALUE", k + ":copy"),
               r.execute_command("DEBUG", "DIGEST-VALUE", k), "DEBUG DIGEST-VALUE of the copy of %s" % k)
        r.cf().add("plain:copy", "only-in-copy")
        eq(signature(r, "plain"), before["plain"], "writing the copy leaves the source alone")
        check(r.cf().exists("plain:copy", "only-in-copy") == 1, "the copy took the write")

        # AOF: the rewrite emits CF.LOADCHUNK commands; later writes append.
        r.config_set("appendonly", "yes")
        for _ in range(200):
            if r.info("persistence")["aof_rewrite_in_progress"] == 0 and \
               r.info("persistence")["aof_rewrite_scheduled"] == 0:
                break
            time.sleep(0.05)
        r.bgrewriteaof()
        for _ in range(400):
            p = r.info("persistence")
            if p["aof_rewrite_in_progress"] == 0 and p["aof_rewrite_scheduled"] == 0:
                break
            time.sleep(0.05)
        aofdir = os.path.join(srv.dir, "appendonlydir")
        base = [f for f in os.listdir(aofdir) if ".base." in f]
        eq(len(base), 1, "one AOF base file")
        with open(os.path.join(aofdir, base[0]), "rb") as f:
            text = f.read()
        check(b"CF.LOADCHUNK" in text, "the AOF base holds CF.LOADCHUNK commands")
        check(not text.startswith(b"REDIS"), "the AOF base is commands, not an RDB preamble")
        r.cf().add("auto", "after-rewrite")
        after_aof = signatures(r, keys)
        r.config_set("save", "")
        srv.stop()
        # Start again from the AOF only (no RDB).
        for f in os.listdir(srv.dir):
            if f.endswith(".rdb"):
                os.remove(os.path.join(srv.dir, f))
        srv.extra = ["--aof-use-rdb-preamble", "no", "--appendonly", "yes"]
        srv.start()
        r = srv.client()
        eq(signatures(r, keys), after_aof, "filters identical after replaying the AOF")
        eq(r.cf().exists("auto", "after-rewrite"), 1, "the write after the rewrite replayed")

        # The half-loaded key survived RELOAD, restart and AOF; finish it.
        eq(finish_half(r, grown_chunks), want_half, "a half-finished LOADCHUNK survives and completes")

        # MEMORY USAGE reports the real allocation.
        r.cf().create("big", 1000000)
        size = int(plain(r).execute_command("CF.INFO", "big")[1])
        mem = r.memory_usage("big")
        check(size <= mem <= size + 65536, "MEMORY USAGE %d covers the table %d" % (mem, size))
        check(r.memory_usage("plain") < mem / 100, "small filters use little memory")

        # SCANDUMP from this server, LOADCHUNK into a fresh one.
        with Server(MOD) as fresh:
            r2 = fresh.client()
            for k in keys:
                load(r2, k, dump(r, k))
            eq(signatures(r2, keys), signatures(r, keys), "filters identical in a fresh server")
            check(fresh.alive(), "fresh server alive")
        check(srv.alive(), "server alive")
    finish("redis_persistence")


main()

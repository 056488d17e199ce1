# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Expiring keys (CF.RESERVE ... EXPIRE s | PEXPIRE ms; docs/REDIS.md, "Items
that expire").  The server's clock cannot be injected, so every assertion is
judged by the key's own clock, which CF.INFO reports and never moves: a read
and CF.INFO sent in one MULTI/EXEC give the clock the read answered at.  An
item written while the clock was in stamp span T (clock // span) must be
found while the clock's span is at most T + stamps, and be gone from span
T + stamps + 1 on (the library's contract, include/cuckoofilter.h,
"Expiring"); a loaded machine only changes how many polls land on each side.
Replicas, AOF replays, RDB reloads and SCANDUMP/LOADCHUNK must hold the
master's bytes and clock (DEBUG DIGEST-VALUE, CF.INFO), and answer alike."""

import os
import struct
import time

from cfr_testlib import Server, check, dump, eq, finish, load, module_path, plain, raw, resp, wait_sync

MOD = module_path()
POLL = 0.02      # seconds between polls: short, the key's clock decides
PATIENCE = 60.0  # seconds to wait for a span that must come (a stalled machine)


def info(r, key):
    flat = plain(r).execute_command("CF.INFO", key)
    return {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}


def probe_at(r, key, items):
    """MEXISTS and the clock it answered at (one MULTI/EXEC: nothing runs in
    between, and CF.INFO does not move the clock)."""
    p = plain(r).pipeline(transaction=True)
    p.execute_command("CF.MEXISTS", key, *items)
    p.execute_command("CF.INFO", key)
    got, flat = p.execute()
    fields = {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}
    return list(got), fields["Clock (ms)"]


def write_at(r, key, cmd, *args):
    """A write and the clock it used."""
    p = plain(r).pipeline(transaction=True)
    p.execute_command(cmd, key, *args)
    p.execute_command("CF.INFO", key)
    got, flat = p.execute()
    fields = {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}
    return got, fields["Clock (ms)"]


def judge(r, key, items, written, what, until_gone=True):
    """Polls items (written at clock `written`) until their span has ended,
    checking every answer against the clock it was given at.  Returns the
    number of polls on each side."""
    st = info(r, key)
    span, stamps, after = st["Stamp span (ms)"], st["Stamps per window"], st["Expire after (ms)"]
    check(stamps * span >= after, "%s: stamps * span covers the window" % what)
    last_live = written // span + stamps
    inside = outside = 0
    deadline = time.time() + PATIENCE
    while time.time() < deadline:
        got, clock = probe_at(r, key, items)
        if clock // span <= last_live:
            inside += 1
            eq(got, [1] * len(items), "%s: found at clock %d (written %d, span %d)"
               % (what, clock, written, span))
        else:
            outside += 1
            eq(got, [0] * len(items), "%s: gone at clock %d (written %d, span %d)"
               % (what, clock, written, span))
            if until_gone:
                break
        time.sleep(POLL)
    check(outside > 0, "%s: the window ended within %ds" % (what, PATIENCE))
    return inside, outside


def window(srv):
    r = srv.client()
    eq(r.execute_command("CF.RESERVE", "w", 1000, "PEXPIRE", 400), b"OK", "RESERVE PEXPIRE")
    st = info(r, "w")
    eq((st["Expire after (ms)"], st["Expansion rate"], st["Number of filters"]), (400, 0, 1),
       "CF.INFO: the window, no growth")
    check(st["Stamps per window"] >= 1 and st["Stamp bits"] >= 1, "CF.INFO: stamps")
    items = ["w%d" % i for i in range(40)]
    # Written and read in one unit: found (no time passes that could matter).
    p = plain(r).pipeline(transaction=True)
    p.execute_command("CF.INSERT", "w", "ITEMS", *items)
    p.execute_command("CF.MEXISTS", "w", *items)
    p.execute_command("CF.INFO", "w")
    ins, got, flat = p.execute()
    eq(list(ins), [1] * len(items), "inserted")
    eq(list(got), [1] * len(items), "found at once")
    written = {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}["Clock (ms)"]
    judge(r, "w", items, written, "PEXPIRE 400")
    # Gone means removed: the slots are free again.
    eq(info(r, "w")["Number of items inserted"], 0, "expired items leave the table")
    # CF.COUNT and CF.EXISTS agree.
    eq(r.execute_command("CF.COUNT", "w", "w1"), 0, "COUNT of an expired item")

    # EXPIRE in seconds: the same window in milliseconds.
    r.execute_command("CF.RESERVE", "s", 1000, "EXPIRE", 1)
    eq(info(r, "s")["Expire after (ms)"], 1000, "EXPIRE 1 is 1000 ms")
    got, written = write_at(r, "s", "CF.ADD", "x")
    eq(got, 1, "ADD on an EXPIRE key")
    judge(r, "s", ["x"], written, "EXPIRE 1")


def refresh(srv):
    """CF.ADDNX of an item present refreshes it: it lives a window from then;
    an item CF.ADD wrote at the same time is not refreshed.  Every answer is
    judged by the clock it came at; a machine that stalls past the moments
    the scenario needs (the refresh inside the first window, a poll between
    the two windows' ends) makes the attempt not count, and it runs again."""
    for attempt in range(3):
        if refresh_once(srv.client(), "f%d" % attempt):
            return
    check(False, "refresh: no attempt saw the refreshed item outlive its twin")


def refresh_once(r, key):
    # About half a window lies between the two windows' ends.
    r.execute_command("CF.RESERVE", key, 1000, "PEXPIRE", 3000)
    st = info(r, key)
    span, stamps = st["Stamp span (ms)"], st["Stamps per window"]
    p = plain(r).pipeline(transaction=True)
    p.execute_command("CF.ADD", key, "kept")
    p.execute_command("CF.ADD", key, "left")
    p.execute_command("CF.INFO", key)
    flat = p.execute()[2]
    t0 = {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}["Clock (ms)"]
    end0 = t0 // span + stamps  # the last span both are found in
    # Half a window later (by the key's clock), refresh one of them.
    deadline = time.time() + PATIENCE
    while time.time() < deadline:
        got, clock = probe_at(r, key, ["kept", "left"])
        alive = int(clock // span <= end0)
        eq(got, [alive, alive], "refresh: clock %d, written %d" % (clock, t0))
        if clock // span >= t0 // span + stamps // 2:
            break
        time.sleep(POLL)
    got, t1 = write_at(r, key, "CF.ADDNX", "kept")
    refreshed = t1 // span <= end0
    # Inside its window ADDNX finds it (0) and refreshes it; after, it adds it.
    eq(got, 0 if refreshed else 1, "ADDNX at clock %d, written %d" % (t1, t0))
    # Until t0's window ends both are found; then only the refreshed one,
    # until t1's window ends.
    seen_split = False
    deadline = time.time() + PATIENCE
    while time.time() < deadline:
        got, clock = probe_at(r, key, ["kept", "left"])
        tick = clock // span
        want = [int(tick <= t1 // span + stamps), int(tick <= end0)]
        eq(got, want, "refresh: clock %d, written %d, refreshed %d" % (clock, t0, t1))
        seen_split |= want == [1, 0]
        if want == [0, 0]:
            break
        time.sleep(POLL)
    return refreshed and seen_split


def reuse(srv):
    """A key sized for one window's items takes many windows' worth: expired
    slots are reused, it never answers full."""
    r = srv.client()
    cap = 64
    r.execute_command("CF.RESERVE", "u", cap, "PEXPIRE", 200)
    st = info(r, "u")
    span, stamps = st["Stamp span (ms)"], st["Stamps per window"]
    total = 0
    for batch in range(10):
        items = ["u%d:%d" % (batch, i) for i in range(cap * 3 // 4)]
        got, written = write_at(r, "u", "CF.INSERT", "ITEMS", *items)
        eq(list(got), [1] * len(items), "batch %d inserted (never full)" % batch)
        total += len(items)
        # Wait for the batch's window to end (reads move the clock).
        deadline = time.time() + PATIENCE
        while time.time() < deadline:
            got, clock = probe_at(r, "u", items[:1])
            if clock // span > written // span + stamps:
                break
            time.sleep(POLL)
        eq(got, [0], "batch %d gone after its window" % batch)
    check(total >= 7 * cap, "the stream was %d items through a key of capacity %d" % (total, cap))


def replication():
    with Server(MOD, extra=["--repl-diskless-sync-delay", "0"]) as prim, Server(MOD) as repl:
        p, r = prim.client(), repl.client()
        # One key before the replica attaches (full sync: the RDB), one after
        # (the command stream with its clock steps).
        p.execute_command("CF.RESERVE", "before", 1000, "PEXPIRE", 300)
        p.execute_command("CF.INSERT", "before", "ITEMS", *["b%d" % i for i in range(50)])
        r.replicaof("127.0.0.1", prim.port)
        check(wait_sync(p, r), "replica synced (full sync)")
        p.execute_command("CF.RESERVE", "after", 1000, "PEXPIRE", 300, "FINGERPRINT", 16)
        old = ["a%d" % i for i in range(50)]
        _, t_old = write_at(p, "after", "CF.INSERT", "ITEMS", *old)
        span = info(p, "after")["Stamp span (ms)"]
        stamps = info(p, "after")["Stamps per window"]
        # Let the old items expire on the primary (its reads move the clock).
        deadline = time.time() + PATIENCE
        while time.time() < deadline:
            _, clock = probe_at(p, "after", old[:1])
            if clock // span > t_old // span + stamps:
                break
            time.sleep(POLL)
        new = ["n%d" % i for i in range(50)]
        _, t_new = write_at(p, "after", "CF.INSERT", "ITEMS", *new)
        p.execute_command("CF.ADDNX", "after", "n0")
        p.execute_command("CF.DEL", "after", "n1")
        everything = old + new + ["b%d" % i for i in range(50)]
        for key in ("before", "after"):
            want = p.execute_command("CF.MEXISTS", key, *everything)
            p.execute_command("WAIT", 1, 5000)
            check(wait_sync(p, r), "replica caught up (%s)" % key)
            eq(r.execute_command("CF.MEXISTS", key, *everything), want,
               "%s: the replica answers as the primary did" % key)
            eq(info(r, key), info(p, key), "%s: CF.INFO (clock included) on the replica" % key)
            eq(r.execute_command("DEBUG", "DIGEST-VALUE", key),
               p.execute_command("DEBUG", "DIGEST-VALUE", key), "%s: the replica's bytes" % key)
        got, clock = probe_at(p, "after", old + ["n0", "n1", "n2"])
        live = int(clock // span <= t_new // span + stamps)
        eq(got, [0] * len(old) + [live, 0, live],
           "primary: old items gone, new found in their window, n1 deleted (clock %d, new %d)"
           % (clock, t_new))
        # The replica never reads its own clock: a window later it still
        # answers as the primary last did.
        want = r.execute_command("CF.MEXISTS", "after", *everything)
        clock = info(r, "after")["Clock (ms)"]
        time.sleep(3 * 300 / 1000.0)
        eq(r.execute_command("CF.MEXISTS", "after", *everything), want,
           "replica: same answers while the primary is silent")
        eq(info(r, "after")["Clock (ms)"], clock, "replica: its reads leave the clock alone")
        # The primary's next read moves the clock; the step replicates.
        want = p.execute_command("CF.MEXISTS", "after", *everything)
        eq(list(want), [0] * len(everything), "primary: everything expired")
        p.execute_command("WAIT", 1, 5000)
        check(wait_sync(p, r), "replica caught up (the read's clock step)")
        eq(r.execute_command("CF.MEXISTS", "after", *everything), want,
           "replica: the primary's read expired the items there too")
        eq(info(r, "after"), info(p, "after"), "replica: CF.INFO after the read's step")
        # A read inside the key's current span changes nothing and sends
        # nothing: at most one step per span per key travels.
        p.execute_command("CF.RESERVE", "slow", 1000, "EXPIRE", 3600)
        p.execute_command("CF.ADD", "slow", "x")
        clock = info(p, "slow")["Clock (ms)"]
        offset = p.info("replication")["master_repl_offset"]
        for _ in range(20):
            p.execute_command("CF.EXISTS", "slow", "x")
        if info(p, "slow")["Clock (ms)"] == clock:
            eq(p.info("replication")["master_repl_offset"], offset,
               "reads within a span replicate nothing")
        else:  # the reads crossed into the next span (once per 4 minutes): one step
            check(p.info("replication")["master_repl_offset"] > offset, "the span's step replicated")
        # The replica refuses a client's clock step like any write.
        err = None
        try:
            r.execute_command("CF._CLOCK", "after", 1)
        except Exception as e:
            err = str(e)
        check(err is not None, "replica refuses CF._CLOCK from a client (%s)" % err)
        check(prim.alive() and repl.alive(), "both servers alive")


def populate(r, tag):
    """An expiring key with expired, refreshed, deleted and live items; and
    one with a window longer than the test, whose answers must survive."""
    k = tag + ":short"
    r.execute_command("CF.RESERVE", k, 500, "PEXPIRE", 250, "BUCKETSIZE", 4)
    _, t = write_at(r, k, "CF.INSERT", "ITEMS", *["s%d" % i for i in range(30)])
    st = info(r, k)
    deadline = time.time() + PATIENCE
    while time.time() < deadline:
        _, clock = probe_at(r, k, ["s0"])
        if clock // st["Stamp span (ms)"] > t // st["Stamp span (ms)"] + st["Stamps per window"]:
            break
        time.sleep(POLL)
    r.execute_command("CF.INSERT", k, "ITEMS", *["t%d" % i for i in range(30)])
    r.execute_command("CF.DEL", k, "t3")
    long_ = tag + ":long"
    r.execute_command("CF.RESERVE", long_, 500, "EXPIRE", 3600, "ERROR_RATE", "0.001")
    r.execute_command("CF.INSERT", long_, "ITEMS", *["l%d" % i for i in range(100)])
    r.execute_command("CF.DEL", long_, "l7")
    r.execute_command("CF.ADDNX", long_, "l8")
    return [k, long_]


def state(r, keys):
    """What must survive: each key's CF.INFO (its clock included) and bytes,
    read without moving any clock."""
    return {k: (info(r, k), r.execute_command("DEBUG", "DIGEST-VALUE", k)) for k in keys}


LONG_ITEMS = ["l%d" % i for i in range(100)]


def persistence():
    with Server(MOD, extra=["--aof-use-rdb-preamble", "no", "--appendonly", "yes"]) as srv:
        r = srv.client()
        keys = populate(r, "p")
        want = state(r, keys)
        answers = r.execute_command("CF.MEXISTS", "p:long", *LONG_ITEMS)
        eq(sum(answers), 99, "long key: 99 of 100 found (one deleted)")
        want = state(r, keys)
        # Restart: the AOF's commands and clock steps replay, at a later time.
        srv.restart()
        r = srv.client()
        eq(state(r, keys), want, "AOF replay: the same bytes and clocks")
        eq(r.execute_command("CF.MEXISTS", "p:long", *LONG_ITEMS), answers,
           "AOF replay: the same answers")
        want = state(r, keys)
        # The rewrite turns keys into CF.LOADCHUNK commands (the clock is in
        # the image).
        r.bgrewriteaof()
        for _ in range(400):
            pi = r.info("persistence")
            if pi["aof_rewrite_in_progress"] == 0 and pi["aof_rewrite_scheduled"] == 0:
                break
            time.sleep(0.05)
        aofdir = os.path.join(srv.dir, "appendonlydir")
        base = [f for f in os.listdir(aofdir) if ".base." in f]
        with open(os.path.join(aofdir, base[0]), "rb") as f:
            check(b"CF.LOADCHUNK" in f.read(), "the rewritten AOF holds CF.LOADCHUNK")
        srv.restart()
        r = srv.client()
        eq(state(r, keys), want, "rewritten AOF replay: the same bytes and clocks")
        # RDB: DEBUG RELOAD, and DUMP / RESTORE.
        eq(r.execute_command("DEBUG", "RELOAD"), b"OK", "DEBUG RELOAD")
        eq(state(r, keys), want, "DEBUG RELOAD: the same bytes and clocks")
        for k in keys:
            r.restore(k + ":restored", 0, r.dump(k))
            eq(state(r, [k + ":restored"])[k + ":restored"], want[k], "RESTORE of " + k)
            r.copy(k, k + ":copy")
            eq(state(r, [k + ":copy"])[k + ":copy"], want[k], "COPY of " + k)
        eq(r.execute_command("CF.MEXISTS", "p:long", *LONG_ITEMS), answers,
           "after reloads: the same answers")
        check(srv.alive(), "server alive")


def scandump(srv):
    r = srv.client()
    keys = populate(r, "d")
    for k in keys:
        chunks = dump(r, k)
        load(r, k + ":loaded", chunks)
        a, b = state(r, [k])[k], state(r, [k + ":loaded"])[k + ":loaded"]
        eq(b, a, "LOADCHUNK of %s: the same bytes and clock" % k)
    eq(r.execute_command("CF.MEXISTS", "d:long:loaded", *LONG_ITEMS),
       r.execute_command("CF.MEXISTS", "d:long", *LONG_ITEMS), "the loaded key answers alike")
    # Corrupt chunks are refused and leave no key.
    chunks = dump(r, "d:long")
    (it0, hdr), (it1, body) = chunks[0], chunks[1]
    bad = bytearray(body)
    bad[len(bad) // 2] ^= 0x40
    eq(raw(srv.port, "CF.LOADCHUNK", "bad1", it0, hdr), "+OK", "header of the corrupt dump")
    eq(raw(srv.port, "CF.LOADCHUNK", "bad1", it1, bytes(bad)), "-Couldn't load chunk!",
       "a flipped bit in an expiring image")
    eq(r.exists("bad1"), 0, "the refused load leaves no key")
    # An expiring image under a header that says the key grows.
    grow = bytearray(hdr)
    struct.pack_into("<I", grow, 16, 2)
    struct.pack_into("<Q", grow, len(grow) - 8, fnv1a64(bytes(grow[:-8])))
    eq(raw(srv.port, "CF.LOADCHUNK", "bad2", it0, bytes(grow)), "+OK", "a header with EXPANSION 2")
    eq(raw(srv.port, "CF.LOADCHUNK", "bad2", it1, body), "-Couldn't load chunk!",
       "an expiring image refused under EXPANSION 2")
    eq(r.exists("bad2"), 0, "no key")
    # A header whose checksum does not match.
    eq(raw(srv.port, "CF.LOADCHUNK", "bad3", it0, hdr[:-1] + bytes([hdr[-1] ^ 1])),
       "-Couldn't create filter!", "a corrupt header")


def fnv1a64(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def hostile(srv):
    port = srv.port
    for args, want in [
        (("EXPIRE", 0), "-EXPIRE: value must be in the range [1, 4294967295] (seconds)"),
        (("EXPIRE", -5), "-EXPIRE: value must be in the range [1, 4294967295] (seconds)"),
        (("EXPIRE", 4294967296), "-EXPIRE: value must be in the range [1, 4294967295] (seconds)"),
        (("EXPIRE", "99999999999999999999999"), "-Couldn't parse EXPIRE"),
        (("EXPIRE", "1.5"), "-Couldn't parse EXPIRE"),
        (("EXPIRE", "soon"), "-Couldn't parse EXPIRE"),
        (("PEXPIRE", 0),
         "-PEXPIRE: value must be in the range [1, 4294967295000] (milliseconds)"),
        (("PEXPIRE", 4294967295001),
         "-PEXPIRE: value must be in the range [1, 4294967295000] (milliseconds)"),
        (("EXPIRE", 1, "PEXPIRE", 1000), "-ERR EXPIRE and PEXPIRE are mutually exclusive"),
        (("EXPIRE", 1, "EXPANSION", 1),
         "-ERR EXPIRE needs EXPANSION 0: an expiring filter never grows "
         "(the slots of expired items are reused)"),
        (("EXPIRE", 1, "GROWTH", "INPLACE"),
         "-ERR GROWTH INPLACE does not take EXPIRE: an expiring filter never grows"),
        (("EXPIRE",), "-ERR wrong number of arguments for 'cf.reserve' command"),
    ]:
        eq(raw(port, "CF.RESERVE", "h", 1000, *args), want, "CF.RESERVE h 1000 %r" % (args,))
    # The library's refusal, in its words: too wide for a stamp.
    got = raw(port, "CF.RESERVE", "h", 1000, "EXPIRE", 1, "FINGERPRINT", 30)
    check(got.startswith("-ERR ") and "28" in got, "FINGERPRINT 30 with EXPIRE: %s" % got)
    got = raw(port, "CF.RESERVE", "h", 1000, "EXPIRE", 1, "ERROR_RATE", "0.000000001")
    check(got.startswith("-ERR ") and "28" in got, "ERROR_RATE 1e-9 with EXPIRE: %s" % got)
    eq(srv.client().exists("h"), 0, "no refused RESERVE made a key")
    # Combinations that work.
    for args in (("EXPANSION", 0), ("GROWTH", "CHAIN"), ("BUCKETSIZE", 4, "MAXITERATIONS", 50),
                 ("FINGERPRINT", 28), ("ERROR_RATE", "0.0001")):
        key = "ok:" + ":".join(str(a) for a in args)
        eq(raw(port, "CF.RESERVE", key, 1000, "EXPIRE", 60, *args), "+OK", "EXPIRE with %r" % (args,))
        check("Clock (ms)" in info(srv.client(), key), "%s is an expiring key" % key)
    # The clock step is the master's and the AOF's, never a client's.
    for args in (("ok:EXPANSION:0", 1), ("ok:EXPANSION:0", -1), ("ok:EXPANSION:0", "x"),
                 ("missing", 5)):
        check(raw(port, "CF._CLOCK", *args).startswith("-ERR CF._CLOCK is internal"),
              "CF._CLOCK %r from a client is refused" % (args,))
    check(raw(port, "CF._CLOCK", "k").startswith("-ERR wrong number"), "CF._CLOCK arity")
    # A plain key says nothing about expiry.
    srv.client().execute_command("CF.RESERVE", "plainkey", 1000)
    check("Clock (ms)" not in info(srv.client(), "plainkey"), "a plain key's CF.INFO is as before")
    check(srv.alive(), "server alive")


def hostile_aof():
    """CF._CLOCK steps in an AOF that no master wrote: a time earlier than the
    clock, negative, not a number, a missing key, a key that does not expire,
    another type, no time.  Each is refused (Redis logs the error and goes
    on loading); the good steps apply."""
    with Server(MOD, extra=["--appendonly", "yes"]) as srv:
        srv.stop()
        steps = [("CF.RESERVE", "e", 100, "PEXPIRE", 1000, "GROWTH", "CHAIN"),
                 ("CF._CLOCK", "e", 5000), ("CF.ADD", "e", "a"),
                 ("CF._CLOCK", "e", 4000), ("CF._CLOCK", "e", -1), ("CF._CLOCK", "e", "x"),
                 ("CF._CLOCK", "nokey", 1), ("CF.RESERVE", "p", 100), ("CF._CLOCK", "p", 1),
                 ("SET", "s", "1"), ("CF._CLOCK", "s", 1), ("CF._CLOCK", "e"),
                 ("CF._CLOCK", "e", 5500), ("CF.ADD", "e", "b")]
        for f in os.listdir(srv.dir):
            path = os.path.join(srv.dir, f)
            if os.path.isdir(path):
                for g in os.listdir(path):
                    os.remove(os.path.join(path, g))
                os.rmdir(path)
        # A single-file AOF, as Redis before 7 wrote it: 7.0 loads it as the base.
        with open(os.path.join(srv.dir, "appendonly.aof"), "wb") as f:
            f.write(b"".join(resp(*c) for c in steps))
        srv.start()
        r = srv.client()
        st = info(r, "e")
        eq((st["Clock (ms)"], st["Number of items inserted"]), (5500, 2),
           "the good steps applied, the bad ones refused")
        with open(os.path.join(srv.dir, "redis-%d.log" % srv.port), errors="replace") as f:
            refused = f.read().count("after processing the command 'cf._clock'")
        eq(refused, 7, "each bad step answered an error to the AOF loader")
        eq(r.get("s"), b"1", "the other key untouched")
        # Now a master: the first read moves the clock to the server's time,
        # decades past the AOF's, and the items are gone.
        eq(r.execute_command("CF.MEXISTS", "e", "a", "b"), [0, 0], "expired at the server's time")
        check(info(r, "e")["Clock (ms)"] > 5500, "the clock moved to the server's time")
        check(srv.alive(), "server alive")


def default_growth_inplace():
    """Under the module argument GROWTH INPLACE an EXPIRE key is still made
    (the default applies only where in-place growth can serve the key)."""
    with Server(MOD, module_args=["GROWTH", "INPLACE"]) as srv:
        eq(raw(srv.port, "CF.RESERVE", "g", 1000, "EXPIRE", 5), "+OK", "EXPIRE under GROWTH INPLACE")
        st = info(srv.client(), "g")
        check("Growth" not in st and st["Expire after (ms)"] == 5000, "an expiring key")


def main():
    with Server(MOD) as srv:
        window(srv)
        refresh(srv)
        reuse(srv)
        scandump(srv)
        hostile(srv)
    replication()
    persistence()
    hostile_aof()
    default_growth_inplace()
    finish("redis_expire")


main()

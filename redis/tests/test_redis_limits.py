# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Memory and latency of the commands a production server must survive, each
measured against a plain Redis command doing work of the same size in the
same run (never a fixed number of milliseconds):

- CF.RESERVE of the largest capacity answers faster than creating a string
  of 1/16 of its table (the table is zeroed lazily), while Redis's memory
  accounting (MEMORY USAGE, INFO used_memory) still sees the whole table;
- dumps in progress cost no memory: ten readers in the middle of a
  CF.SCANDUMP leave MEMORY USAGE unchanged;
- a key that is full and cannot grow refuses a large CF.INSERT about as
  fast as SADD stores the same items in a set, also when the key fills up
  during that very command; the "exhausted" mark that makes this cheap is
  persisted, survives DEBUG RELOAD and is cleared by a delete."""

import os

from cfr_testlib import (Server, check, eq, error_of, finish, free_port_in, module_path,
                         plain)

MOD = module_path()
# Sanitizer runs give the module libc's heap, which Redis's own accounting
# (INFO used_memory) does not see; MEMORY USAGE is exact either way.
SANITIZER = bool(os.environ.get("CFR_TEST_PRELOAD"))


def timed(fn, *args):
    """(seconds the server spent in the command, its reply): the command's
    own time from INFO commandstats, so client-side packing of a 200,000-item
    command (slow in Python) does not drown the server's work."""
    r = fn.__self__  # the client the bound method belongs to
    r.config_resetstat()
    out = fn(*args)
    stats = r.info("commandstats")
    return sum(v["usec"] for v in stats.values()) / 1e6, out


def info_field(p, key, name):
    flat = p.execute_command("CF.INFO", key)
    return {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}[name]


def test_reserve_is_lazy(r, p):
    mem = r.info("memory")
    t_res, _ = timed(p.execute_command, "CF.RESERVE", "huge", 1 << 30)
    size = info_field(p, "huge", "Size")
    check(size > 1 << 30, "the largest capacity has a table over 1 GiB (%d)" % size)
    after = r.info("memory")
    t_set, _ = timed(r.setrange, "plain", size // 16 - 1, "x")
    r.delete("plain")
    print("CF.RESERVE of %d MB: %.4fs; SETRANGE of %d MB: %.4fs" % (size >> 20, t_res, size >> 24, t_set))
    if SANITIZER:
        # The module then allocates with ASan's calloc, which writes shadow
        # memory for the whole table; the production path (jemalloc through
        # RedisModule_Calloc) is timed by the plain build of this test.
        print("note: RESERVE's time is not compared in the sanitizer build (ASan's calloc)")
    else:
        check(t_res < t_set, "CF.RESERVE of %d MB (%.4fs) beats SETRANGE of %d MB (%.4fs)"
              % (size >> 20, t_res, size >> 24, t_set))
    used = r.memory_usage("huge")
    check(used >= size, "MEMORY USAGE %d counts the whole table %d" % (used, size))
    if not SANITIZER:
        grew = after["used_memory"] - mem["used_memory"]
        check(grew >= size, "INFO used_memory grew by the whole table (%d >= %d)" % (grew, size))
    rss = after["used_memory_rss"] - mem["used_memory_rss"]
    print("used_memory +%d MB, used_memory_rss +%d MB" % ((after["used_memory"] - mem["used_memory"]) >> 20, rss >> 20))
    check(rss < size // 8, "resident memory grew by %d MB only (table %d MB)" % (rss >> 20, size >> 20))
    # The table works: items land in pages zeroed on first touch.
    items = ["h%d" % i for i in range(1000)]
    eq(set(p.execute_command("CF.INSERT", "huge", "ITEMS", *items)), {1}, "inserts into a lazy table")
    eq(p.execute_command("CF.MEXISTS", "huge", *items).count(1), 1000, "and they are found")
    r.delete("huge")


def test_scandump_costs_no_memory(r, p):
    p.execute_command("CF.RESERVE", "big", 10 ** 7)
    for i in range(0, 200000, 20000):
        p.execute_command("CF.INSERT", "big", "ITEMS", *["b%d" % j for j in range(i, i + 20000)])
    size = info_field(p, "big", "Size")
    before, used0 = r.memory_usage("big"), r.info("memory")["used_memory"]
    # Ten readers each take the header and one body chunk, and stop there.
    for _ in range(10):
        it, _hdr = p.execute_command("CF.SCANDUMP", "big", 0)
        it, chunk = p.execute_command("CF.SCANDUMP", "big", it)
        check(chunk is not None and len(chunk) > 0, "a body chunk")
    eq(r.memory_usage("big"), before, "MEMORY USAGE unchanged by ten dumps in progress")
    grew = r.info("memory")["used_memory"] - used0
    print("ten dumps in progress: MEMORY USAGE %d -> %d, used_memory +%d (table %d)"
          % (before, r.memory_usage("big"), grew, size))
    check(grew < size // 4, "used_memory grew by %d bytes during the dumps (table %d)" % (grew, size))
    r.delete("big")


def header_flags(p, key):
    """The chain flags of the key's dump header (cf_redis_dump.h, offset 20)."""
    _it, hdr = p.execute_command("CF.SCANDUMP", key, 0)
    return int.from_bytes(hdr[20:24], "little")


def fill_until_refused(p, key):
    i = 0
    while True:
        reply = p.execute_command("CF.INSERT", key, "ITEMS", *["f%d" % j for j in range(i, i + 2000)])
        i += 2000
        if -1 in reply:
            return i


def test_full_key_refuses_cheaply(r, p):
    n = 100000
    items = ["new%d" % i for i in range(n)]
    t_sadd, _ = timed(r.sadd, "set", *items)
    r.delete("set")
    # A key that cannot grow (EXPANSION 0), and one at the sub-filter cap.
    p.execute_command("CF.RESERVE", "full0", 20000, "EXPANSION", 0)
    p.execute_command("CF.RESERVE", "capped", 4, "EXPANSION", 1)
    for key in ("full0", "capped"):
        fill_until_refused(p, key)
        eq(header_flags(p, key) & 1, 1, key + ": the exhausted mark is set")
        if key == "capped":  # at its cap: the whole command refused, as RedisBloom does
            p.config_resetstat()
            reply = error_of(p.execute_command, "CF.INSERT", key, "ITEMS", *items)
            t = sum(v["usec"] for v in p.info("commandstats").values()) / 1e6
            eq(reply, "Maximum expansions reached", key + ": the command refused at the cap")
        else:  # EXPANSION 0: only what does not fit is refused, cheaply
            t, reply = timed(p.execute_command, "CF.INSERT", key, "ITEMS", *items)
            check(set(reply) <= {1, -1} and reply.count(-1) > n // 2,
                  key + ": most items refused (%d of %d)" % (reply.count(-1), n))
            stored = [x for x, ok in zip(items, reply) if ok == 1]
            eq(p.execute_command("CF.MEXISTS", key, *stored).count(1) if stored else 0, len(stored),
               key + ": the items that fit are stored and found")
        print("%s: refusing %d items %.3fs, SADD of them %.3fs" % (key, n, t, t_sadd))
        check(t < 10 * t_sadd, "%s: refusing %d items took %.3fs, SADD of them %.3fs" % (key, n, t, t_sadd))
    # The mark is persisted, and a delete clears it.
    p.execute_command("DEBUG", "RELOAD")
    eq(header_flags(p, "full0") & 1, 1, "the exhausted mark survives DEBUG RELOAD")
    eq(p.execute_command("CF.DEL", "full0", "f0"), 1, "a delete")
    eq(header_flags(p, "full0") & 1, 0, "the delete cleared the exhausted mark")
    # One command that fills a key: the first failures end the searching.
    p.execute_command("CF.RESERVE", "fills", 10000, "EXPANSION", 0)
    t, reply = timed(p.execute_command, "CF.INSERT", "fills", "ITEMS", *items)
    stored = reply.count(1)
    check(stored >= 10000, "the key took its capacity (%d)" % stored)
    eq(reply.count(-1), n - stored, "the rest refused")
    print("filling and refusing %d items %.3fs, SADD of them %.3fs" % (n, t, t_sadd))
    check(t < 10 * t_sadd, "filling and refusing %d items took %.3fs, SADD of them %.3fs" % (n, t, t_sadd))
    eq(p.execute_command("CF.MEXISTS", "fills", *[x for x, ok in zip(items, reply) if ok == 1]).count(1),
       stored, "every stored item is found")


def main():
    with Server(MOD, port=free_port_in()) as srv:
        r = srv.client()
        p = plain(r)
        for t in (test_reserve_is_lazy, test_scandump_costs_no_memory, test_full_key_refuses_cheaply):
            t(r, p)
            check(srv.alive(), "server alive after %s" % t.__name__)
    finish("redis_limits")


main()

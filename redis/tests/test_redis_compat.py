# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Where a client can see it, behave as RedisBloom does (its cuckoo test
suite's expectations, docs/REDIS.md lists what still differs):

- CF.SCANDUMP of a key with no items, and past the end, answers [0, nil];
- LOADCHUNK's errors: a bad header "Couldn't create filter!", a chunk that
  does not fit "Couldn't load chunk!";
- a dump read across a write is refused by LOADCHUNK (whatever the write:
  an insert, a duplicate, a delete, an insert a full key refuses,
  a COMPACT that dropped a sub-filter), while an undisturbed dump of the
  same key loads, and so does one across a COMPACT that changed nothing;
- CF.INFO: RedisBloom's 8 pairs in order, then our 2; the FPP bound is the
  sum over sub-filters of 1 - (1 - 1/(2^f - 1))^(2b * load), recomputed
  here from the sub-filters' own headers in the dump (docs/FORMAT.md)."""

import struct

from cfr_testlib import (Server, check, eq, finish, free_port_in, module_path,
                         plain, raw)

MOD = module_path()
POS = (1 << 40) - 1


def dump(p, key):
    chunks, it = [], 0
    while True:
        it, data = p.execute_command("CF.SCANDUMP", key, it)
        if it == 0:
            return chunks
        chunks.append((it, data))


def load(port, key, chunks):
    """LOADCHUNK each chunk; returns the first reply that is not +OK."""
    for it, data in chunks:
        got = raw(port, "CF.LOADCHUNK", key, it, data)
        if got != "+OK":
            return got
    return "+OK"


def test_scandump_ends(srv, p):
    p.execute_command("CF.RESERVE", "empty", 1000)
    eq(p.execute_command("CF.SCANDUMP", "empty", 0), [0, None], "SCANDUMP of an empty filter")
    p.execute_command("CF.ADD", "one", "x")
    chunks = dump(p, "one")
    check(len(chunks) >= 2, "a filter with an item dumps a header and a body")
    last = chunks[-1][0]
    for it in (last, last + 1, (last & ~POS) | POS, (1 << 52) - 1, (1 << 63) - 1):
        eq(p.execute_command("CF.SCANDUMP", "one", it), [0, None], "SCANDUMP at or past the end (%d)" % it)
    # Deleting the only item makes the filter empty again.
    p.execute_command("CF.DEL", "one", "x")
    eq(p.execute_command("CF.SCANDUMP", "one", 0), [0, None], "SCANDUMP after the last delete")


def test_loadchunk_errors(srv, p):
    port = srv.port
    p.execute_command("CF.INSERT", "src", "ITEMS", *["s%d" % i for i in range(3000)])
    chunks = dump(p, "src")
    eq(raw(port, "CF.LOADCHUNK", "new", chunks[0][0], b"not a header"), "-Couldn't create filter!",
       "a bad first chunk")
    eq(p.exists("new"), 0, "no key after a bad header")
    eq(raw(port, "CF.LOADCHUNK", "src", chunks[1][0], chunks[1][1]), "-Couldn't load chunk!",
       "a body chunk for a live key")
    eq(p.execute_command("CF.EXISTS", "src", "s1"), 1, "the live key is untouched")
    eq(raw(port, "CF.LOADCHUNK", "src", chunks[0][0], chunks[0][1]), "-ERR item exists",
       "a header for an existing key")
    eq(raw(port, "CF.LOADCHUNK", "new", chunks[1][0], chunks[1][1]), "-ERR not found",
       "a body chunk for a missing key")
    eq(raw(port, "CF.LOADCHUNK", "new", 0, b"x"), "-Invalid position", "iterator 0")
    eq(load(port, "new", chunks), "+OK", "the dump itself loads")
    check([d for _, d in dump(p, "new")] == [d for _, d in chunks], "and dumps the same bytes")


WRITES = [
    ("an insert", ["CF.ADD", "k", "another"]),
    ("an insert of a duplicate", ["CF.ADD", "k", "i7"]),
    ("a delete", ["CF.DEL", "k", "i7"]),
    ("a delete of the first sub-filter's item, already sent", ["CF.DEL", "k", "i0"]),
]


def test_stale_dump_is_refused(srv, p):
    port = srv.port
    for name, cmd in WRITES:
        p.delete("k", "copy")
        p.execute_command("CF.RESERVE", "k", 500)
        p.execute_command("CF.INSERT", "k", "ITEMS", *["i%d" % i for i in range(2000)])
        # Read the header and half the body, write, read the rest.
        chunks, it = [], 0
        for _ in range(4):
            it, data = p.execute_command("CF.SCANDUMP", "k", it)
            chunks.append((it, data))
        p.execute_command(*cmd)
        while True:
            it, data = p.execute_command("CF.SCANDUMP", "k", it)
            if it == 0:
                break
            chunks.append((it, data))
        eq(load(port, "copy", chunks), "-Couldn't load chunk!", "dump across " + name)
        eq(p.exists("copy"), 0, "no half-loaded key after a dump across " + name)
    # A COMPACT with nothing to drop changes nothing: the dump stays valid.
    p.delete("copy")
    it, hdr = p.execute_command("CF.SCANDUMP", "k", 0)
    p.execute_command("CF.COMPACT", "k")
    chunks = [(it, hdr)]
    while True:
        it, data = p.execute_command("CF.SCANDUMP", "k", it)
        if it == 0:
            break
        chunks.append((it, data))
    eq(load(port, "copy", chunks), "+OK", "a dump across a COMPACT that dropped nothing loads")
    # A COMPACT that drops an emptied sub-filter is a write.
    p.delete("c", "copy")
    p.execute_command("CF.RESERVE", "c", 100)
    i = 0
    while info_of(p, "c")["Number of filters"] == 1:
        p.execute_command("CF.ADD", "c", "c%d" % i)
        i += 1
    for j in range(i, i + 20):
        p.execute_command("CF.ADD", "c", "c%d" % j)
    # The item that grew the key and the later ones all went to the new
    # sub-filter (the newest is tried first); deleting them empties it.
    for j in range(i - 1, i + 20):
        p.execute_command("CF.DEL", "c", "c%d" % j)
    it, hdr = p.execute_command("CF.SCANDUMP", "c", 0)
    p.execute_command("CF.COMPACT", "c")
    eq(info_of(p, "c")["Number of filters"], 1, "COMPACT dropped the emptied sub-filter")
    it2, body = p.execute_command("CF.SCANDUMP", "c", it)
    eq(load(port, "copy", [(it, hdr), (it2, body)]), "-Couldn't load chunk!", "dump across a COMPACT that dropped one")
    # Any insert counts as a write, also one a full key refuses.
    p.delete("k", "copy")
    p.execute_command("CF.RESERVE", "k", 100, "EXPANSION", 0)
    i = 0
    while -1 not in p.execute_command("CF.INSERT", "k", "ITEMS", "f%d" % i):
        i += 1
    it, hdr = p.execute_command("CF.SCANDUMP", "k", 0)
    # A full key still stores an item that fits (EXPANSION 0 refuses only
    # what does not): add new ones until one is refused.
    got = [raw(port, "CF.ADD", "k", "refused-%d" % j) for j in range(200)]
    check("-Filter is full" in got, "refused on the full key")
    it2, body = p.execute_command("CF.SCANDUMP", "k", it)
    eq(load(port, "copy", [(it, hdr), (it2, body)]), "-Couldn't load chunk!", "dump across a refused insert")
    # Undisturbed, the same dump loads and answers the same.
    p.delete("copy")
    eq(load(port, "copy", dump(p, "k")), "+OK", "an undisturbed dump loads")
    eq(p.execute_command("CF.MEXISTS", "copy", *["f%d" % j for j in range(i)]).count(1), i,
       "the copy holds every item")


def info_of(p, key):
    flat = p.execute_command("CF.INFO", key)
    return {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}


def fpp_bound_from_dump(chunks):
    """The tables of the key's one image (format version 1, or 2 once grown:
    a 64-byte header, then each table's version-1 image padded to 64 bytes)
    and the sum of their FPPs at full load, from their library headers."""
    body = b"".join(d for _, d in chunks[1:])
    version = struct.unpack_from("<H", body, 8)[0]
    if version == 1:
        starts = [0]
    else:
        n = struct.unpack_from("<H", body, 10)[0]
        starts, at = [], 64
        for _ in range(n):
            starts.append(at)
            f, b = body[at + 10], body[at + 11]
            nb = struct.unpack_from("<Q", body, at + 16)[0]
            image = 64 + (nb * b * f + 7) // 8 + 8
            at += (image + 63) // 64 * 64
    total = 0.0
    for at in starts:
        f, b = body[at + 10], body[at + 11]
        total += 1 - (1 - 1 / (2 ** f - 1)) ** (2 * b)
    return len(starts), total


def test_info(srv, p):
    p.execute_command("CF.RESERVE", "inf", 1000, "ERROR_RATE", 0.001)
    p.execute_command("CF.INSERT", "inf", "ITEMS", *["n%d" % i for i in range(5000)])
    flat = p.execute_command("CF.INFO", "inf")
    eq(len(flat), 20, "CF.INFO has 10 pairs")
    names = [flat[i].decode() for i in range(0, 20, 2)]
    eq(names, ["Size", "Number of buckets", "Number of filters", "Number of items inserted",
               "Number of items deleted", "Bucket size", "Expansion rate", "Max iterations",
               "Fingerprint bits", "False positive rate bound"], "CF.INFO names and order")
    n, want = fpp_bound_from_dump(dump(p, "inf"))
    check(n > 1, "the key grew (%d sub-filters)" % n)
    got = float(flat[19])
    check(abs(got - want) <= 1e-9 * max(want, 1e-12),
          "FPP bound %r is the sum over tables of their full-load FPP %r" % (got, want))
    absent = ["absent%d" % i for i in range(100000)]
    measured = p.execute_command("CF.MEXISTS", "inf", *absent).count(1) / len(absent)
    check(measured <= got * 1.5 + 1e-4, "measured FPP %.6f within the bound %.6f" % (measured, got))


def main():
    with Server(MOD, module_args=["CHUNK_BYTES", "512"], port=free_port_in()) as srv:
        p = plain(srv.client())
        for t in (test_scandump_ends, test_loadchunk_errors, test_stale_dump_is_refused, test_info):
            t(srv, p)
            check(srv.alive(), "server alive after %s" % t.__name__)
    finish("redis_compat")


main()

# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Keys grown in place (CF.RESERVE ... GROWTH INPLACE, or the module argument
GROWTH INPLACE): the options and their errors, no false negatives through
many doublings with one table and the FPP under the key's bound, deletes,
CF.INFO, MEMORY USAGE, MAX_KEY_BYTES and the FPP cap, SCANDUMP/LOADCHUNK in
chunks (a version-4 image), hostile LOADCHUNK data and RDB values, DEBUG RELOAD, and the
module default leaving RedisBloom's options on the chain.  Persistence
(RDB, AOF, COPY, RESTORE) and replication of such keys are in
test_redis_persistence.py and test_redis_replication.py."""

import struct

from cfr_testlib import (Server, check, dump, eq, error_of, finish, load, module_path,
                         module_payload, module_value, plain, raw)

MOD = module_path()
ITEMS = ["k%d" % i for i in range(40000)]
ABSENT = ["a%d" % i for i in range(40000)]


def info(r, key):
    flat = plain(r).execute_command("CF.INFO", key)
    return {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}


def fnv1a64(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def reseal(header, at, fmt, value):
    """The dump header with the field at `at` set and its checksum redone
    (cf_redis_dump.h): a header the module must judge by its contents."""
    h = bytearray(header)
    struct.pack_into(fmt, h, at, value)
    struct.pack_into("<Q", h, len(h) - 8, fnv1a64(bytes(h[:-8])))
    return bytes(h)


def options(srv, r):
    p = plain(r)
    for args, want in [
        (("GROWTH", "SIDEWAYS"), "-GROWTH: value must be CHAIN or INPLACE"),
        (("GROWTH", "INPLACE", "EXPANSION", 0),
         "-ERR GROWTH INPLACE needs EXPANSION of at least 1 (EXPANSION 0 never grows)"),
        (("GROWTH", "INPLACE", "BUCKETSIZE", 2), "-ERR GROWTH INPLACE needs BUCKETSIZE 4"),
        (("GROWTH", "INPLACE", "FINGERPRINT", 8),
         "-ERR GROWTH INPLACE takes FINGERPRINT 15, 16 or 32 (the slot width)"),
        (("GROWTH", "CHAIN", "FINGERPRINT", 16, "ERROR_RATE", "0.01"),
         "-ERR ERROR_RATE and FINGERPRINT are mutually exclusive"),
    ]:
        eq(raw(srv.port, "CF.RESERVE", "bad", 1000, *args), want, "CF.RESERVE %r" % (args,))
    # A target too strict for the slots: the library's sentence (cf_config_explain) in
    # CF.RESERVE's words, with a floor that works when asked for.
    for args, says in [
        (("GROWTH", "INPLACE", "ERROR_RATE", "1e-9"),
         "-ERR ERROR_RATE 1e-09 is too small for GROWTH INPLACE"),
        (("GROWTH", "INPLACE", "FINGERPRINT", 16, "ERROR_RATE", "0.0002"),
         "-ERR FINGERPRINT 16 with GROWTH INPLACE: the first table, filled, would pass "
         "ERROR_RATE 0.0002"),
    ]:
        reply = raw(srv.port, "CF.RESERVE", "bad", 1000, *args)
        check(reply.startswith(says), "CF.RESERVE %r: %r" % (args, reply))
        floor = reply.split("ask for ERROR_RATE ")[1].split(" ")[0]
        fixed = [a if a != args[-1] else floor for a in args]
        eq(raw(srv.port, "CF.RESERVE", "fixed", 1000, *fixed), "+OK", "the floor %s works" % floor)
        p.delete("fixed")
    eq(p.exists("bad"), 0, "no key made by a refused CF.RESERVE")
    # BUCKETSIZE 3 takes the next supported size, 4; any EXPANSION > 0 doubles.
    eq(p.execute_command("CF.RESERVE", "b3", 1000, "BUCKETSIZE", 3, "EXPANSION", 8,
                         "GROWTH", "inplace"), b"OK", "GROWTH INPLACE BUCKETSIZE 3")
    i = info(r, "b3")
    eq((i["Bucket size"], i["Expansion rate"], i["Growth"], i["Doublings"]), (4, 2, b"inplace", 0),
       "CF.INFO of a new in-place key")
    eq(i["Number of buckets"] & (i["Number of buckets"] - 1), 0, "a power of two of buckets")
    eq(i["Size"], i["Number of buckets"] * 15 // 2, "15-bit slots at the default bound")
    eq(p.execute_command("CF.RESERVE", "w32", 1000, "GROWTH", "INPLACE", "ERROR_RATE", "1e-6"),
       b"OK", "ERROR_RATE 1e-6 in place")
    eq(info(r, "w32")["Fingerprint bits"], 31, "32-bit slots below 15- and 16-bit ones' reach")
    eq(p.execute_command("CF.RESERVE", "chain", 1000, "GROWTH", "CHAIN"), b"OK", "GROWTH CHAIN")
    eq(len(p.execute_command("CF.INFO", "chain")), 20, "a chain key's CF.INFO is as before")


def growth(r):
    """From 100 items to 40,000: one table, every item found, FPP under the
    bound CF.INFO reports, deletes remove their items and no other."""
    p = plain(r)
    p.execute_command("CF.RESERVE", "ip", 100, "GROWTH", "INPLACE")
    first = info(r, "ip")
    for at in range(0, len(ITEMS), 5000):
        eq(set(p.execute_command("CF.INSERT", "ip", "ITEMS", *ITEMS[at:at + 5000])), {1},
           "ip: every insert accepted")
        eq(set(p.execute_command("CF.MEXISTS", "ip", *ITEMS[:at + 5000])), {1},
           "ip: every item found after %d" % (at + 5000))
    i = info(r, "ip")
    eq(i["Number of filters"], 1, "ip: still one table")
    eq(i["Number of items inserted"], len(ITEMS), "ip: items counted")
    check(i["Doublings"] >= 7, "ip: doubled %d times" % i["Doublings"])
    eq(i["Number of buckets"], first["Number of buckets"] << i["Doublings"], "ip: buckets doubled")
    bound = float(i["False positive rate bound"])
    check(bound < 8 / 256, "ip: bound %g under the default ERROR_RATE 2b/2^8" % bound)
    fp = sum(p.execute_command("CF.MEXISTS", "ip", *ABSENT)) / len(ABSENT)
    # The bound is the table's expected FPP once full (2S/nb); what a sample
    # measures may pass it by its noise (as tests/test_inplace.c allows).
    check(fp <= bound * 1.3 + 3e-4, "ip: measured FPP %g near the bound %g" % (fp, bound))
    mem = r.memory_usage("ip")
    check(i["Size"] <= mem <= i["Size"] + 4096, "ip: MEMORY USAGE %d is the table %d and a little"
          % (mem, i["Size"]))
    gone = ITEMS[:4000]
    eq(set(p.execute_command("CF.DEL", "ip", it) for it in gone), {1}, "ip: deletes")
    eq(set(p.execute_command("CF.MEXISTS", "ip", *ITEMS[4000:])), {1}, "ip: the others stay")
    left = sum(p.execute_command("CF.MEXISTS", "ip", *gone))
    # Items stored before their index bits ran out were copied by later
    # doublings; a delete removes one copy (include/cuckoofilter.h).
    check(left <= len(gone) // 10, "ip: %d of %d deleted items still answer" % (left, len(gone)))
    eq(info(r, "ip")["Number of items deleted"], len(gone), "ip: deletes counted")
    eq(p.execute_command("CF.COMPACT", "ip"), b"OK", "CF.COMPACT of an in-place key")
    eq(info(r, "ip")["Size"], i["Size"], "ip: COMPACT keeps the one table")


def chunks(r, srv):
    """SCANDUMP in CHUNK_BYTES pieces, LOADCHUNK into another key: the same
    bytes, answers and CF.INFO; then hostile variants of that dump."""
    p = plain(r)
    src = dump(r, "ip")
    header, body = src[0][1], b"".join(c for _, c in src[1:])
    check(len(src) > 100, "ip dumps in %d chunks of at most 512 bytes" % len(src))
    check(all(len(c) <= 512 for _, c in src), "chunks within CHUNK_BYTES")
    eq(struct.unpack_from("<H", body, 8)[0], 4, "the image is format version 4")
    load(r, "copy", src)
    eq(info(r, "copy"), info(r, "ip"), "LOADCHUNK copy: CF.INFO")
    eq(p.execute_command("CF.MEXISTS", "copy", *ITEMS[::7]),
       p.execute_command("CF.MEXISTS", "ip", *ITEMS[::7]), "LOADCHUNK copy: answers")
    check(stream(r, "copy") == header + body, "LOADCHUNK copy dumps the same bytes")

    def refused(name, chunks, what, err="Couldn't load chunk!"):
        got = None
        for it, c in chunks:
            got = error_of(r.cf().loadchunk, name, it, c)
            if got:
                break
        eq(got, err, what)
        eq(p.exists(name), 0, what + ": the key is gone")

    # EXPANSION 0 in the header: an in-place image grows, so it is refused.
    refused("e0", [(src[0][0], reseal(header, 16, "<I", 0))] + src[1:], "EXPANSION 0 header")
    # One flipped bit in the table, in the image header, in the trailer.
    for name, at in (("tbl", len(body) // 2), ("hdr", 20), ("trl", len(body) - 3)):
        bad = bytearray(body)
        bad[at] ^= 0x10
        pieces, off = [], 0
        for it, c in src[1:]:
            pieces.append((it, bytes(bad[off:off + len(c)])))
            off += len(c)
        refused(name, [src[0]] + pieces, "a flipped bit at %d of the image" % at)
    # A dump read across a write (two generations) is refused.
    half = dump(r, "ip")[: len(src) // 2]
    p.execute_command("CF.ADD", "ip", "one-more")
    refused("stale", half + dump(r, "ip")[len(src) // 2:], "a dump read across a write")
    # Truncated: the key stays loading (readable only once complete).
    load(r, "short", src[:-1])
    eq(error_of(r.cf().exists, "short", "k1"), "the filter is being restored by CF.LOADCHUNK",
       "a key missing its last chunk refuses reads")
    load(r, "short", src[-1:])
    eq(info(r, "short"), info(r, "copy"), "the last chunk completes it")
    check(srv.alive(), "server alive after hostile LOADCHUNK")


def stream(r, key):
    """The dump's bytes (iterators carry the key's generation, which a
    reload renews)."""
    return b"".join(c for _, c in dump(r, key))


def reload(r):
    want = {k: (info(r, k), stream(r, k)) for k in ("ip", "copy", "b3")}
    eq(r.execute_command("DEBUG", "RELOAD"), b"OK", "DEBUG RELOAD")
    for k, (i, d) in want.items():
        eq(info(r, k), i, k + ": CF.INFO after DEBUG RELOAD")
        check(stream(r, k) == d, k + ": the same dump bytes after DEBUG RELOAD")
    eq(set(plain(r).execute_command("CF.MEXISTS", "ip", *ITEMS[4000:])), {1},
       "ip: items after DEBUG RELOAD")


def rdb(r, srv):
    """RDB values of an in-place key (RESTORE payloads, CRC redone), intact
    and damaged: refused whole, never half-loaded."""
    r.config_set("rdbcompression", "no")  # module_value reads plain strings
    payload = r.dump("ip")
    tid, items = module_value(payload)
    version = payload[-10:-8]
    state, header, total = items[:3]
    pieces = items[3:]
    check(len(pieces) > 100, "ip saves in %d pieces of CHUNK_BYTES" % len(pieces))

    def value(*its):
        return module_payload(tid, list(its), version)

    third = pieces[len(pieces) // 3][1]
    for what, bad in [
        ("EXPANSION 0 in the header", value(state, ("s", reseal(header[1], 16, "<I", 0)), total,
                                            *pieces)),
        ("a damaged table byte", value(state, header, total, *pieces[:len(pieces) // 3],
                                       ("s", third[:9] + bytes([third[9] ^ 1]) + third[10:]),
                                       *pieces[len(pieces) // 3 + 1:])),
        ("one piece short", value(state, header, total, *pieces[:-1])),
    ]:
        err = error_of(r.restore, "rdb:bad", 0, bad)
        check(err is not None and "Bad data format" in err,
              "RESTORE with %s refused (%s)" % (what, err))
        eq(plain(r).exists("rdb:bad"), 0, "RESTORE with %s: no key" % what)
    r.restore("rdb:good", 0, value(*items))
    eq(info(r, "rdb:good"), info(r, "ip"), "an intact value restores")
    # Any EXPANSION but 0 is an in-place key's (it doubles): read as 2.
    r.restore("rdb:e4", 0, value(state, ("s", reseal(header[1], 16, "<I", 4)), total, *pieces))
    eq(info(r, "rdb:e4")["Expansion rate"], 2, "EXPANSION 4 in the header reads as 2")
    check(srv.alive(), "server alive after hostile RDB values")


def caps():
    """MAX_KEY_BYTES bounds the doublings ("Insufficient memory"); a key's
    ERROR_RATE bounds them too ("Maximum expansions reached"); items that
    find a free slot still go in, and nothing stored is lost."""
    with Server(MOD, module_args=["MAX_KEY_BYTES", "65536"]) as srv:
        r = srv.client()
        p = plain(r)
        eq(raw(srv.port, "CF.RESERVE", "huge", 10000000, "GROWTH", "INPLACE")[:28],
           "-ERR Insufficient memory: th", "a key above MAX_KEY_BYTES is refused")
        p.execute_command("CF.RESERVE", "m", 100, "GROWTH", "INPLACE")
        res = p.execute_command("CF.INSERT", "m", "ITEMS", *ITEMS)
        took = [it for it, x in zip(ITEMS, res) if x == 1]
        check(-1 in res, "m: inserts refused at MAX_KEY_BYTES")
        i = info(r, "m")
        # 15-bit slots: 8,192 buckets of 7.5 bytes, the largest doubling under it.
        eq(i["Size"], 61440, "m: grew to the last doubling under MAX_KEY_BYTES")
        check(len(took) >= 0.9 * 65536 / 2, "m: %d items in 32768 slots" % len(took))
        eq(set(p.execute_command("CF.MEXISTS", "m", *took)), {1}, "m: every accepted item found")
        m_took = took
        eq(raw(srv.port, "CF.ADD", "m", "more"), "-ERR Insufficient memory",
           "m: CF.ADD at the limit")
        p.execute_command("CF.DEL", "m", took[0])
        eq(p.execute_command("CF.ADD", "m", took[0]), 1, "m: a delete makes room again")
        p.execute_command("CF.RESERVE", "f", 100, "GROWTH", "INPLACE", "FINGERPRINT", 16,
                          "ERROR_RATE", "0.001")
        res = p.execute_command("CF.INSERT", "f", "ITEMS", *ITEMS[:20000])
        check(-1 in res, "f: inserts refused at the FPP bound")
        i = info(r, "f")
        check(i["Doublings"] >= 1, "f: doubled %d times before its bound" % i["Doublings"])
        check(float(i["False positive rate bound"]) < 0.001, "f: bound kept")
        eq(raw(srv.port, "CF.ADD", "f", "more"), "-Maximum expansions reached",
           "f: CF.ADD at the cap")
        took = [it for it, x in zip(ITEMS, res) if x == 1]
        eq(set(p.execute_command("CF.MEXISTS", "f", *took)), {1}, "f: every accepted item found")
        # Whatever the module lets a key become loads again under the same
        # limit: the dump adds the image's header and trailer to a table of
        # MAX_KEY_BYTES (m), or to a chain key's first table of that size (c).
        lo, hi = 1000, 100000  # the largest capacity CF.RESERVE takes: lo
        while hi - lo > 1:
            mid = (lo + hi) // 2
            ok = raw(srv.port, "CF.RESERVE", "c", mid) == "+OK"
            r.delete("c")
            lo, hi = (mid, hi) if ok else (lo, mid)
        p.execute_command("CF.RESERVE", "c", lo)
        check(65536 - 72 < info(r, "c")["Size"] <= 65536,
              "c: a chain key's table within 72 bytes of MAX_KEY_BYTES (%d)" % info(r, "c")["Size"])
        p.execute_command("CF.INSERT", "c", "ITEMS", *ITEMS[:1000])
        full = {k: (info(r, k), r.dump(k)) for k in ("m", "c")}
        for k, (i, d) in full.items():
            eq(r.restore(k + ":r", 0, d), b"OK", k + ": RESTORE of a key at MAX_KEY_BYTES")
            eq(r.execute_command("COPY", k, k + ":c"), 1, k + ": COPY of a key at MAX_KEY_BYTES")
        eq(r.execute_command("DEBUG", "RELOAD"), b"OK", "DEBUG RELOAD with keys at MAX_KEY_BYTES")
        for k, (i, d) in full.items():
            for name in (k, k + ":r", k + ":c"):
                eq(info(r, name), i, name + ": CF.INFO after RESTORE, COPY and DEBUG RELOAD")
                eq(r.dump(name), d, name + ": the same dump")
        eq(set(p.execute_command("CF.MEXISTS", "m:r", *m_took)), {1}, "m:r: every item found")
        eq(raw(srv.port, "CF.ADD", "m:r", "more"), "-ERR Insufficient memory",
           "m:r: CF.ADD at the limit after RESTORE")
        # A restart with a higher limit: the key keeps the limit it was made with.
        srv.module_args = ["MAX_KEY_BYTES", str(1 << 20)]
        srv.restart()
        r = srv.client()
        eq(info(r, "m")["Size"], 61440, "m: loaded with its size")
        eq(raw(srv.port, "CF.ADD", "m", "more"), "-ERR Insufficient memory",
           "m: keeps the limit it was created with")
        check(srv.alive(), "server alive")


def module_default():
    """GROWTH INPLACE as a module argument: keys that can grow in place do
    (auto-created ones too); RedisBloom's BUCKETSIZE 2 and EXPANSION 0 keys,
    and an ERROR_RATE below in-place slots' reach, keep the chain, and
    GROWTH CHAIN asks for it."""
    with Server(MOD, module_args=["GROWTH", "INPLACE"]) as srv:
        r = srv.client()
        p = plain(r)
        p.execute_command("CF.ADD", "auto", "x")
        eq((info(r, "auto")["Growth"], info(r, "auto")["Bucket size"]), (b"inplace", 4),
           "auto-created key grows in place")
        p.execute_command("CF.RESERVE", "b2", 1000, "BUCKETSIZE", 2)
        p.execute_command("CF.RESERVE", "e0", 1000, "EXPANSION", 0)
        p.execute_command("CF.RESERVE", "fp8", 1000, "FINGERPRINT", 8)
        p.execute_command("CF.RESERVE", "ch", 1000, "GROWTH", "CHAIN")
        # Below what in-place slots allow: the default yields to the chain.
        p.execute_command("CF.RESERVE", "tiny", 1000, "ERROR_RATE", "1e-9")
        for k in ("b2", "e0", "fp8", "ch", "tiny"):
            check("Growth" not in info(r, k), k + ": a chain key")
        p.execute_command("CF.RESERVE", "r", 1000)
        eq(info(r, "r")["Growth"], b"inplace", "CF.RESERVE without options grows in place")
    for bad in (["GROWTH", "SIDEWAYS"], ["GROWTH"]):
        srv = Server(MOD, module_args=bad)
        try:
            srv.start()
            started = True
        except RuntimeError:
            started = False
        finally:
            srv.__exit__(None, None, None)
        check(not started, "module argument %r refused" % bad)


def main():
    with Server(MOD, module_args=["CHUNK_BYTES", "512"]) as srv:
        r = srv.client()
        options(srv, r)
        growth(r)
        chunks(r, srv)
        reload(r)
        rdb(r, srv)
        check(srv.alive(), "server alive")
    caps()
    module_default()
    finish("redis_inplace")


main()

# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Hostile inputs: each row is a malformed command or payload with the exact
error it must get; after every row the server must still answer PING.  The
module runs with small limits (MAX_KEY_BYTES 1 MiB, MAX_FILTERS 8) so the
limits themselves are exercised without allocating much."""

import ctypes
import os
import shutil
import struct

from cfr_testlib import (Server, check, crc64, dump, eq, finish, module_path, module_payload,
                         module_value, plain, raw, reseal_dump)

MOD = module_path()
LIMIT = 1 << 20
V1_OVERHEAD = 64 + 8  # a version-1 file's header and trailer (docs/FORMAT.md)
V2_OVERHEAD = 64 + 64 * (64 + 8 + 63)  # a chain file of 64 tables, each record padded to 64
NOMEM = ("-ERR Insufficient memory: the filter would exceed the module's per-key limit "
         "(MAX_KEY_BYTES) or the server's memory")
ARITY = "-ERR wrong number of arguments for '%s' command"

# ---- crafting dump streams (layout in cf_redis_chain.h) ----


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def make_header(subs, expansion=1, capacity=1000, deleted=0, body_len=None, version=1,
                nsubs=None, fix_check=True, chain_flags=0):
    """subs: [(length, flags)].  Returns header bytes with a valid check."""
    n = len(subs) if nsubs is None else nsubs
    body = sum(s[0] for s in subs) if body_len is None else body_len
    h = b"CFRDUMP\0" + struct.pack("<HHIII", version, 0, n, expansion, chain_flags)
    h += struct.pack("<QQQ", capacity, deleted, body)
    for ln, fl in subs:
        h += struct.pack("<QQ", ln, fl)
    check_value = fnv1a64(h) if fix_check else fnv1a64(h) ^ 1
    return h + struct.pack("<Q", check_value)


def parse_header(h):
    n = struct.unpack_from("<I", h, 12)[0]
    subs = [struct.unpack_from("<QQ", h, 48 + 16 * i) for i in range(n)]
    return subs


try:
    _xx = ctypes.CDLL("libxxhash.so.0")
    _xx.XXH3_64bits.restype = ctypes.c_uint64
    _xx.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
except OSError:
    _xx = None


def xxh3(data):
    return _xx.XXH3_64bits(data, len(data))


def reseal(sub):
    """Recomputes a library sub-filter's header check (bytes 60..64: XXH3 of
    bytes 0..60, low 32 bits) and its trailer (XXH3 of all but the last 8)."""
    sub = bytearray(sub)
    sub[60:64] = struct.pack("<I", xxh3(bytes(sub[:60])) & 0xFFFFFFFF)
    sub[-8:] = struct.pack("<Q", xxh3(bytes(sub[:-8])))
    return bytes(sub)


# ---- the table ----


def rows_commands():
    big = 1 << 30
    return [
        ("keyword without value at the end", ["CF.RESERVE", "h", 1000, "EXPANSION"], ARITY % "cf.reserve"),
        ("unknown word then keyword", ["CF.RESERVE", "h", 1000, "foo", "EXPANSION"], "-Unknown argument received"),
        ("BUCKETSIZE value missing mid-way", ["CF.RESERVE", "h", 1000, "BUCKETSIZE", 2, "MAXITERATIONS"],
         ARITY % "cf.reserve"),
        ("INSERT CAPACITY without value", ["CF.INSERT", "h", "CAPACITY"], ARITY % "cf.insert"),
        ("INSERT CAPACITY then end", ["CF.INSERT", "h", "NOCREATE", "CAPACITY"], ARITY % "cf.insert"),
        ("capacity 2^30 over the key limit", ["CF.RESERVE", "h", big], NOMEM),
        ("capacity 2^30 with 32-bit fingerprints", ["CF.RESERVE", "h", big, "FINGERPRINT", 32], NOMEM),
        ("INSERT CAPACITY 2^30", ["CF.INSERT", "h", "CAPACITY", big, "ITEMS", "a"], NOMEM),
        ("capacity INT64_MAX", ["CF.RESERVE", "h", (1 << 63) - 1],
         "-Capacity must be in the range [2 * BUCKETSIZE, 1073741824]"),
        ("capacity beyond int64", ["CF.RESERVE", "h", "99999999999999999999"], "-Bad capacity"),
        ("negative capacity", ["CF.RESERVE", "h", -5],
         "-Capacity must be in the range [2 * BUCKETSIZE, 1073741824]"),
        ("ERROR_RATE nan", ["CF.RESERVE", "h", 100, "ERROR_RATE", "nan"], "-Couldn't parse ERROR_RATE"),
        ("ERROR_RATE inf", ["CF.RESERVE", "h", 100, "ERROR_RATE", "inf"],
         "-ERROR_RATE: value must be in the range (0, 1)"),
        ("MAXITERATIONS huge", ["CF.RESERVE", "h", 100, "MAXITERATIONS", 1 << 40],
         "-MAXITERATIONS: value must be in the range [1, 65535]"),
        ("SCANDUMP huge iterator", ["CF.SCANDUMP", "ok", (1 << 63) - 1], "*2"),  # [0, nil]
        ("LOADCHUNK garbage header", ["CF.LOADCHUNK", "h", 1, os.urandom(100)], "-Couldn't create filter!"),
        ("LOADCHUNK empty header", ["CF.LOADCHUNK", "h", 1, b""], "-Couldn't create filter!"),
        ("LOADCHUNK huge iterator, no key", ["CF.LOADCHUNK", "h", (1 << 63) - 1, b"x"], "-ERR not found"),
        ("LOADCHUNK negative iterator", ["CF.LOADCHUNK", "h", -1, b"x"], "-Invalid position"),
        ("header: 2000 sub-filters", ["CF.LOADCHUNK", "h", 1, make_header([(100, 0)] * 2000)], "-Couldn't create filter!"),
        ("header: sub-filter of 2^62 bytes", ["CF.LOADCHUNK", "h", 1, make_header([(1 << 62, 0)])],
         "-Couldn't create filter!"),
        ("header: total over the key limit", ["CF.LOADCHUNK", "h", 1, make_header([(LIMIT // 2 + 8, 0)] * 3)],
         "-Couldn't create filter!"),
        # MAX_KEY_BYTES bounds tables: an image may add its format's
        # overhead (72 bytes for a single table; 64 + 135 per table of a
        # chain of 64 for version 2's one image), not a byte more.
        ("header: images of the limit and their overhead",
         ["CF.LOADCHUNK", "h", 1, make_header([(LIMIT // 2 + V1_OVERHEAD, 0)] * 2)], "+OK"),
        ("header: one byte more",
         ["CF.LOADCHUNK", "h", 1, make_header([(LIMIT // 2 + V1_OVERHEAD, 0), (LIMIT // 2 + V1_OVERHEAD + 1, 0)])],
         "-Couldn't create filter!"),
        ("header: version 2, the limit and its overhead",
         ["CF.LOADCHUNK", "h", 1, make_header([(LIMIT + V2_OVERHEAD, 0)], version=2)], "+OK"),
        ("header: version 2, one byte more",
         ["CF.LOADCHUNK", "h", 1, make_header([(LIMIT + V2_OVERHEAD + 1, 0)], version=2)],
         "-Couldn't create filter!"),
        ("header: body length disagrees", ["CF.LOADCHUNK", "h", 1, make_header([(100, 0)], body_len=99)],
         "-Couldn't create filter!"),
        ("header: sum overflows 64 bits",
         ["CF.LOADCHUNK", "h", 1, make_header([(1 << 63, 0), (1 << 63, 0)], body_len=0)], "-Couldn't create filter!"),
        ("header: bad check", ["CF.LOADCHUNK", "h", 1, make_header([(100, 0)], fix_check=False)],
         "-Couldn't create filter!"),
        ("header: expansion 3", ["CF.LOADCHUNK", "h", 1, make_header([(100, 0)], expansion=3)],
         "-Couldn't create filter!"),
        ("header: version 3", ["CF.LOADCHUNK", "h", 1, make_header([(100, 0)], version=3)], "-Couldn't create filter!"),
        ("header: version 2 with two images",
         ["CF.LOADCHUNK", "h", 1, make_header([(100, 0), (100, 0)], version=2)], "-Couldn't create filter!"),
        ("header: version 2 with a sub-filter flag",
         ["CF.LOADCHUNK", "h", 1, make_header([(100, 1)], version=2)], "-Couldn't create filter!"),
        ("header: unknown flags", ["CF.LOADCHUNK", "h", 1, make_header([(100, 4)])], "-Couldn't create filter!"),
        ("header: unknown chain flags", ["CF.LOADCHUNK", "h", 1, make_header([(100, 0)], chain_flags=2)],
         "-Couldn't create filter!"),
        ("header: tiny sub-filter", ["CF.LOADCHUNK", "h", 1, make_header([(10, 0)])], "-Couldn't create filter!"),
        ("header: count says 1, lists 2", ["CF.LOADCHUNK", "h", 1, make_header([(100, 0), (100, 0)], nsubs=1)],
         "-Couldn't create filter!"),
    ]


def run_rows(srv, rows):
    for name, args, want in rows:
        got = raw(srv.port, *args)
        eq(got, want, name)
        check(srv.alive(), "server alive after: %s" % name)
        srv.client().delete("h")


def chunked_rows(srv, r):
    """Valid headers followed by bad bodies; the key must vanish on failure."""
    p = srv.port
    r.cf().create("ok", 1000)
    r.execute_command("CF.INSERT", "ok", "ITEMS", *["v%d" % i for i in range(500)])
    chunks = dump(r, "ok")
    header = chunks[0][1]
    body = b"".join(c for _, c in chunks[1:])
    cases = [
        ("body of garbage", os.urandom(len(body)), "-Couldn't load chunk!"),
        ("one table byte flipped", body[:100] + bytes([body[100] ^ 0x40]) + body[101:], "-Couldn't load chunk!"),
        ("body longer than declared", body + b"extra", "-Couldn't load chunk!"),
    ]
    for name, data, want in cases:
        eq(raw(p, "CF.LOADCHUNK", "h", 1, header), "+OK", "header before: " + name)
        eq(raw(p, "CF.LOADCHUNK", "h", 1 + len(data), data), want, name)
        eq(r.exists("h"), 0, "key removed after: " + name)
        check(srv.alive(), "server alive after: " + name)
    # A chunk at the wrong offset is refused and the load can continue.
    eq(raw(p, "CF.LOADCHUNK", "h", 1, header), "+OK", "header (order test)")
    eq(raw(p, "CF.LOADCHUNK", "h", 1 + len(body) + 7, body), "-Couldn't load chunk!", "chunk at a wrong offset")
    eq(raw(p, "CF.LOADCHUNK", "h", 1 + len(body), body), "+OK", "the right chunk after a wrong one")
    eq(raw(p, "CF.LOADCHUNK", "h", 1 + len(body), body), "-Couldn't load chunk!", "a chunk after the end")
    r.delete("h")
    # A header that announces a big sub-filter costs only what actually arrives.
    eq(raw(p, "CF.LOADCHUNK", "h", 1, make_header([(LIMIT - 4096, 0)])), "+OK", "header announcing ~1 MiB")
    eq(raw(p, "CF.LOADCHUNK", "h", 2, b"x"), "+OK", "one byte of it")
    mem = r.memory_usage("h")
    check(mem < 64 * 1024, "memory follows received bytes, not the header's claim (%d)" % mem)
    r.delete("h")

    if _xx is None:
        print("note: libxxhash.so.0 not loadable; skipping the resealed sub-filter cases")
        return
    sub = body
    eq(reseal(sub), sub, "reseal() reproduces the library's checks")
    crafted = []
    b = bytearray(sub)
    b[16:24] = struct.pack("<Q", 1 << 40)  # num_buckets: a terabyte table
    crafted.append(("sub-filter claiming 2^40 buckets", bytes(b)))
    b = bytearray(sub)
    b[24:32] = struct.pack("<Q", 12345)  # another seed than the first sub-filter's
    crafted.append(("sub-filter with another seed", bytes(b)))
    b = bytearray(sub)
    b[32:40] = struct.pack("<Q", 499)  # items disagrees with the table
    crafted.append(("sub-filter whose item count lies", bytes(b)))
    b = bytearray(sub)
    b[11] = 3  # bucket size 3
    crafted.append(("sub-filter with bucket size 3", bytes(b)))
    # Each crafted sub-filter follows a valid first one in a two-sub chain.
    for name, data in crafted:
        data = sub + reseal(data)
        hdr = make_header([(len(sub), 0), (len(data) - len(sub), 0)])
        eq(raw(p, "CF.LOADCHUNK", "h", 1, hdr), "+OK", "header before: " + name)
        eq(raw(p, "CF.LOADCHUNK", "h", 1 + len(data), data), "-Couldn't load chunk!", name)
        eq(r.exists("h"), 0, "key removed after: " + name)
        check(srv.alive(), "server alive after: " + name)
    # Version-1 dumps (earlier modules' chains) become one growing filter:
    # a wider later sub-filter is what growth makes, and loads; sub-filters
    # that disagree on bucket size cannot share one hash, and do not.
    r.execute_command("CF.RESERVE", "w8", 50, "FINGERPRINT", 8)
    r.execute_command("CF.RESERVE", "w9", 50, "FINGERPRINT", 9)
    r.execute_command("CF.RESERVE", "b4", 50, "BUCKETSIZE", 4)
    for k in ("w8", "w9", "b4"):
        r.execute_command("CF.ADD", k, "x")  # an empty key dumps as [0, nil]
    s8 = b"".join(c for _, c in dump(r, "w8")[1:])
    s9 = b"".join(c for _, c in dump(r, "w9")[1:])
    s4 = b"".join(c for _, c in dump(r, "b4")[1:])
    hdr = make_header([(len(s8), 0), (len(s9), 0)])
    eq(raw(p, "CF.LOADCHUNK", "h", 1, hdr), "+OK", "two-sub header")
    eq(raw(p, "CF.LOADCHUNK", "h", 1 + len(s8) + len(s9), s8 + s9), "+OK",
       "a version-1 chain whose second sub-filter is wider loads")
    eq(r.execute_command("CF.EXISTS", "h", "x"), 1, "and holds its item")
    eq(plain(r).execute_command("CF.INFO", "h")[5], 2, "in two tables")
    r.delete("h")
    hdr = make_header([(len(s8), 0), (len(s4), 0)])
    eq(raw(p, "CF.LOADCHUNK", "h", 1, hdr), "+OK", "two-sub header")
    eq(raw(p, "CF.LOADCHUNK", "h", 1 + len(s8) + len(s4), s8 + s4), "-Couldn't load chunk!",
       "sub-filters of different bucket sizes")
    check(srv.alive(), "server alive after mixed widths")


def restore_rows(srv, r):
    """RESTORE payloads with our bytes damaged but a correct RDB CRC: the
    rdb_load callback must refuse them (Redis answers 'Bad data format')."""
    payload = r.dump("ok")
    if crc64(payload[:-8]) != struct.unpack("<Q", payload[-8:])[0]:
        check(False, "CRC-64 of DUMP payloads not reproduced; RESTORE cases skipped")
        return
    at = payload.find(b"CFRDUMP")
    check(at > 0, "our dump header is inside the DUMP payload")
    cases = [
        ("RESTORE with a damaged header", payload[:at + 20] + bytes([payload[at + 20] ^ 1]) + payload[at + 21:]),
        ("RESTORE with a damaged table", payload[:-40] + bytes([payload[-40] ^ 1]) + payload[-39:]),
        ("RESTORE truncated", payload[:at + 30] + payload[-10:]),
    ]
    for name, data in cases:
        got = None
        try:
            r.restore("h", 0, reseal_dump(data))
        except Exception as e:
            got = str(e)
        check(got is not None and "Bad data format" in got, "%s: %r" % (name, got))
        eq(r.exists("h"), 0, "no key after: " + name)
        check(srv.alive(), "server alive after: " + name)
    r.restore("h", 0, payload)
    eq(r.cf().exists("h", "v1"), 1, "an intact payload still restores")
    r.delete("h")


def rdb_cases(r):
    """RDB values (as RESTORE payloads with a correct CRC) of a key several
    pieces long, each damaged one way: [(name, payload)], and an intact
    payload of each encoding."""
    r.config_set("rdbcompression", "no")  # module_value reads plain strings
    r.cf().create("rdbsrc", 4000)
    r.execute_command("CF.INSERT", "rdbsrc", "ITEMS", *["v%d" % i for i in range(3000)])
    payload = r.dump("rdbsrc")
    r.delete("rdbsrc")
    tid, items = module_value(payload)
    version = payload[-10:-8]
    state, header, total = items[:3]
    pieces = items[3:]
    check(len(pieces) >= 3, "the key is saved in several pieces (%d)" % len(pieces))
    body = b"".join(v for _, v in pieces)

    def v1(*its):
        return module_payload(tid, list(its), version)

    def v0(*its):
        return module_payload(tid & ~1023, list(its), version)

    last = pieces[-1][1]
    bad = [
        ("body length beyond the header's", v1(state, header, ("u", total[1] + 1), *pieces[:-1],
                                               ("s", last + b"x"))),
        ("a live key with a body length short of the header's",
         v1(state, header, ("u", total[1] - len(last)), *pieces[:-1])),
        ("body length 2^64 - 1", v1(state, header, ("u", (1 << 64) - 1), *pieces)),
        ("an empty piece", v1(state, header, total, ("s", b""), *pieces)),
        ("a piece past the body length", v1(state, header, total, *pieces[:-1], ("s", last + b"x"))),
        ("one piece short (the value ends)", v1(state, header, total, *pieces[:-1])),
        ("a piece with a damaged table byte",
         v1(state, header, total, pieces[0], ("s", pieces[1][1][:9] + b"\xff" + pieces[1][1][10:]),
            *pieces[2:])),
        ("a restore in progress whose body is complete", v1(("u", 0), header, total, *pieces)),
        ("encoding version 2", module_payload(tid + 1, items, version)),
        ("encoding 0: more pieces than images and one",
         v0(state, header, ("u", len(pieces)), *pieces)),
        ("encoding 0: 2^64 - 1 pieces", v0(state, header, ("u", (1 << 64) - 1), ("s", body))),
        ("encoding 0: an empty piece", v0(state, header, ("u", 2), ("s", b""), ("s", body))),
        # The count allows one piece more than the images: one after the
        # complete body arrives once the load has ended.
        ("encoding 0: a piece after the complete body",
         v0(state, header, ("u", 2), ("s", body), ("s", b"x"))),
    ]
    whole = v1(*items)
    # The payload cut inside a piece: the RDB string ends early.
    bad.append(("truncated inside a piece", reseal_dump(whole[:len(whole) // 2] + whole[-10:])))
    good = [("encoding 1 as saved", whole),
            ("encoding 0: the body as one piece", v0(state, header, ("u", 1), ("s", body)))]
    return bad, good


def module_memory(r):
    """used_memory without the clients' buffers, which move by 32 KiB
    steps as payloads of different sizes come and go."""
    m = r.info("memory")
    return m["used_memory"] - m["mem_clients_normal"]


def rdb_rows():
    """rdb_load refuses every damaged value (Redis answers 'Bad data
    format'), keeps no key and leaks nothing: over 800 refusals of each
    case, memory (which counts the module's allocations unless
    SANITIZER_MALLOC is on) grows by less than a leaked key each would add
    (one chain, about 110 bytes: 88+ KB; the reading moves by about 13 KB
    without a leak); the intact values of both encodings load.  Small
    chunks keep the payloads small and the repetitions fast."""
    with Server(MOD, module_args=["CHUNK_BYTES", "1024"]) as srv:
        rdb_refusals(srv, srv.client())


def rdb_refusals(srv, r):
    bad, good = rdb_cases(r)
    for name, data in good:
        eq(r.restore("h", 0, data), b"OK", "RESTORE: " + name)
        eq(r.cf().exists("h", "v2999"), 1, name + ": holds its items")
        r.delete("h")

    def refuse(name, data):
        got = None
        try:
            r.restore("h", 0, data)
        except Exception as e:
            got = str(e)
        check(got is not None and "Bad data format" in got, "RDB: %s: %r" % (name, got))
        eq(r.exists("h"), 0, "no key after RDB: " + name)
        check(srv.alive(), "server alive after RDB: " + name)

    for name, data in bad:
        refuse(name, data)  # also warms up the server's own buffers
    for name, data in bad:
        used = module_memory(r)
        for _ in range(800):
            refuse(name, data)
        grown = module_memory(r) - used
        check(grown < 32768, "refused RDB value %s leaks nothing (memory grew by %d)" % (name, grown))


def limit_rows(srv, r):
    cf = r.cf()
    # Growth stops at the key's memory limit.
    cf.create("grow", 20000, expansion=2)
    err, i = None, 0
    while err is None and i < 2000000:
        pipe = r.pipeline(transaction=False)
        for j in range(i, i + 5000):
            pipe.execute_command("CF.ADD", "grow", "g%d" % j)
        i += 5000
        errors = [str(x) for x in pipe.execute(raise_on_error=False) if isinstance(x, Exception)]
        if errors:
            err = "-ERR " + errors[0]  # redis-py strips the ERR prefix
    eq(err, "-ERR Insufficient memory", "growth refused at MAX_KEY_BYTES")
    mem = r.memory_usage("grow")
    check(mem <= LIMIT + 4096, "the key stays within its limit (%d)" % mem)
    # The sub-filter cap (MAX_FILTERS 8).
    cf.create("capped", 4, expansion=1)
    err = None
    for j in range(10000):
        got = raw(srv.port, "CF.ADD", "capped", "c%d" % j)
        if got != ":1":
            err = got
            break
    eq(err, "-Maximum expansions reached", "MAX_FILTERS 8 reached")
    eq(plain(r).execute_command("CF.INFO", "capped")[5], 8, "8 sub-filters")
    # A million duplicates: 2b per sub-filter up to the cap, bounded work.
    # The command and its reply are large: a sanitized server on a loaded
    # machine can take longer than the usual 30 s to answer.
    patient = srv.client(socket_timeout=600)
    reply = patient.execute_command("CF.INSERT", "dups", "ITEMS", *(["same"] * 1000000))
    eq((reply.count(1), reply.count(-1)), (4 * 8, 1000000 - 4 * 8), "a million duplicates: 2b per sub-filter stored")
    eq(plain(r).execute_command("CF.INFO", "dups")[5], 8, "duplicates stopped at MAX_FILTERS")
    check(srv.alive(), "server alive after the limits")


def main():
    with Server(MOD, module_args=["MAX_KEY_BYTES", str(LIMIT), "MAX_FILTERS", "8", "CHUNK_BYTES", "65536"]) as srv:
        r = srv.client()
        r.cf().create("ok", 100)
        run_rows(srv, rows_commands())
        r.delete("ok")
        chunked_rows(srv, r)
        restore_rows(srv, r)
        limit_rows(srv, r)
        check(srv.alive(), "server alive at the end")
        log = srv.log_tail(200)
        check("crashed" not in log.lower() and "assert" not in log.lower(), "no crash in the server log")
    rdb_rows()
    # Module arguments are validated too: a bad one refuses to load.
    bad = Server(MOD, module_args=["MAX_FILTERS", "0"])
    try:
        bad.start()
        check(False, "MAX_FILTERS 0 must refuse to load")
    except RuntimeError:
        pass
    finally:
        bad.stop()
        shutil.rmtree(bad.dir, ignore_errors=True)
    finish("redis_hostile")


main()

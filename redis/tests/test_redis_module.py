# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Every CF.* command against a real redis-server with cuckoo.so: replies
through redis-py's r.cf() API and redis-cli, exact error strings over a raw
socket, and a model (a Python set) that the filter must never contradict."""

import math

from cfr_testlib import (Server, check, dump, eq, error_of, finish, load,
                         module_path, plain, raw)

MOD = module_path()


def info(r, key):
    i = r.cf().info(key)
    return i


PLAIN = []  # a client on which r.cf() never installed its reply callbacks


def raw_info(r, key):
    flat = PLAIN[0].execute_command("CF.INFO", key)
    return {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}


def test_reserve(srv, r):
    cf = r.cf()
    eq(cf.create("f", 1000), True, "CF.RESERVE replies OK")
    eq(raw(srv.port, "CF.RESERVE", "f", 1000), "-ERR item exists", "RESERVE on an existing key")
    r.set("str", "v")
    eq(raw(srv.port, "CF.RESERVE", "str", 1000),
       "-WRONGTYPE Operation against a key holding the wrong kind of value", "RESERVE on a string")
    cases = [
        (["abc"], "-Bad capacity"),
        (["3"], "-Capacity must be in the range [2 * BUCKETSIZE, 1073741824]"),
        (["1073741825"], "-Capacity must be in the range [2 * BUCKETSIZE, 1073741824]"),
        (["7", "BUCKETSIZE", "4"], "-Capacity must be in the range [2 * BUCKETSIZE, 1073741824]"),
        (["100", "BUCKETSIZE", "x"], "-Couldn't parse BUCKETSIZE"),
        (["100", "BUCKETSIZE", "0"], "-BUCKETSIZE: value must be in the range [1, 255]"),
        (["100", "BUCKETSIZE", "256"], "-BUCKETSIZE: value must be in the range [1, 255]"),
        (["100", "MAXITERATIONS", "x"], "-Couldn't parse MAXITERATIONS"),
        (["100", "MAXITERATIONS", "0"], "-MAXITERATIONS: value must be in the range [1, 65535]"),
        (["100", "MAXITERATIONS", "65536"], "-MAXITERATIONS: value must be in the range [1, 65535]"),
        (["100", "EXPANSION", "x"], "-Couldn't parse EXPANSION"),
        (["100", "EXPANSION", "-1"], "-EXPANSION: value must be in the range [0, 32768]"),
        (["100", "EXPANSION", "32769"], "-EXPANSION: value must be in the range [0, 32768]"),
        (["100", "BUCKETSIZE", "0", "MAXITERATIONS", "0"],
         "-MAXITERATIONS: value must be in the range [1, 65535]"),
        (["100", "ERROR_RATE", "x"], "-Couldn't parse ERROR_RATE"),
        (["100", "ERROR_RATE", "0"], "-ERROR_RATE: value must be in the range (0, 1)"),
        (["100", "ERROR_RATE", "1"], "-ERROR_RATE: value must be in the range (0, 1)"),
        (["100", "FINGERPRINT", "0"], "-FINGERPRINT: value must be in the range [1, 32]"),
        (["100", "FINGERPRINT", "33"], "-FINGERPRINT: value must be in the range [1, 32]"),
        (["100", "FINGERPRINT", "8", "ERROR_RATE", "0.01"],
         "-ERR ERROR_RATE and FINGERPRINT are mutually exclusive"),
        (["100", "foo", "1"], "-Unknown argument received"),
        (["100", "EXPANSION"], "-ERR wrong number of arguments for 'cf.reserve' command"),
        (["100", "foo", "EXPANSION"], "-Unknown argument received"),
    ]
    for args, want in cases:
        eq(raw(srv.port, "CF.RESERVE", "new", *args), want, "CF.RESERVE new %s" % " ".join(args))
    # A rate too strict for 32-bit fingerprints: the library's sentence (cf_config_explain)
    # in CF.RESERVE's words; the rate it suggests is accepted.
    reply = raw(srv.port, "CF.RESERVE", "new", 100, "ERROR_RATE", "1e-12")
    check(reply.startswith("-ERR ERROR_RATE 1e-12 needs ") and "at most 32" in reply, reply)
    floor = reply.split("ask for ERROR_RATE ")[1].split(" ")[0]
    eq(raw(srv.port, "CF.RESERVE", "floor", 100, "ERROR_RATE", floor), "+OK", "the rate suggested")
    r.delete("floor")
    eq(r.exists("new"), 0, "no key is created by a refused RESERVE")
    eq(raw(srv.port, "CF.RESERVE", "new"), "-ERR wrong number of arguments for 'cf.reserve' command",
       "RESERVE without capacity")

    # Options are applied and reported (BUCKETSIZE rounds up to 1/2/4/8).
    eq(cf.create("opt", 5000, expansion=3, bucket_size=3, max_iterations=77), True, "RESERVE with options")
    i = info(r, "opt")
    eq((i.bucketSize, i.expansionRate, i.maxIteration, i.filterNum), (4, 4, 77, 1),
       "INFO reflects BUCKETSIZE 3->4, EXPANSION 3->4, MAXITERATIONS")
    # ERROR_RATE picks f = ceil(log2(2b/p)), or the library's floor for the table when
    # that is more (a loose rate); either way the first sub-filter holds the capacity.
    # FINGERPRINT sets it directly.
    for p in (0.01, 0.001, 0.0001, 0.4):
        key = "er%s" % p
        eq(PLAIN[0].execute_command("CF.RESERVE", key, 1000, "ERROR_RATE", p), b"OK", "ERROR_RATE %s" % p)
        want = math.ceil(math.log2(2 * 2 / p))
        got = raw_info(r, key)["Fingerprint bits"]
        check(got == want if p < 0.1 else got >= want, "fingerprint bits %d for ERROR_RATE %s" % (got, p))
        for k in range(1000):
            PLAIN[0].execute_command("CF.ADD", key, "k%d" % k)
        eq(raw_info(r, key)["Number of filters"], 1, "ERROR_RATE %s: 1000 items in one sub-filter" % p)
    eq(PLAIN[0].execute_command("CF.RESERVE", "fp16", 1000, "FINGERPRINT", 16), b"OK", "FINGERPRINT 16")
    eq(raw_info(r, "fp16")["Fingerprint bits"], 16, "FINGERPRINT 16 reported")
    # Bigger capacities get more buckets (sizing follows capacity, no power of two).
    r.cf().create("c1", 1000)
    r.cf().create("c2", 3000)
    b1, b2 = info(r, "c1").bucketNum, info(r, "c2").bucketNum
    check(2.9 < b2 / b1 < 3.1, "buckets grow linearly with capacity (%d vs %d)" % (b1, b2))


def test_add_exists_model(srv, r):
    cf = r.cf()
    n = 5000
    items = ["item:%d" % i for i in range(n)]
    # CF.ADD auto-creates with capacity 1024 and must expand to hold 5000.
    pipe = r.pipeline(transaction=False)
    for it in items:
        pipe.execute_command("CF.ADD", "m", it)
    eq(set(pipe.execute()), {1}, "CF.ADD answers 1 for every new item")
    i = info(r, "m")
    eq(i.insertedNum, n, "INFO items inserted")
    check(i.filterNum > 1, "auto-created filter expanded (%d sub-filters)" % i.filterNum)
    eq(i.bucketSize, 2, "default bucket size is RedisBloom's 2")
    # No false negatives, ever.
    got = r.execute_command("CF.MEXISTS", "m", *items)
    eq(got.count(1), n, "MEXISTS finds every inserted item")
    # False positives stay near the bound the module itself reports.
    absent = ["absent:%d" % i for i in range(20000)]
    fp = r.execute_command("CF.MEXISTS", "m", *absent).count(1) / len(absent)
    bound = float(raw_info(r, "m")["False positive rate bound"])
    check(fp <= 2 * bound + 0.005, "measured FPP %.4f within 2x the reported %.4f" % (fp, bound))
    eq(cf.exists("missing-key", "x"), 0, "EXISTS on a missing key is 0")
    eq(cf.mexists("missing-key", "x", "y"), [0, 0], "MEXISTS on a missing key")
    eq(cf.count("missing-key", "x"), 0, "COUNT on a missing key")
    # Deletes: one copy each; the rest stay findable.
    for it in items[:1000]:
        eq(cf.delete("m", it), 1, "DEL of an inserted item") if it == items[0] else cf.delete("m", it)
    i = info(r, "m")
    # A delete whose fingerprint sits in two tables keeps the copy (the
    # library's rule: a false positive, never a false negative), so the
    # items count drops by at most one per delete.
    eq(i.deletedNum, 1000, "INFO counts 1000 deletes")
    check(n - 1000 <= i.insertedNum <= n, "INFO items after 1000 deletes: %d" % i.insertedNum)
    eq(r.execute_command("CF.MEXISTS", "m", *items[1000:]).count(1), n - 1000,
       "no false negatives after deletes")
    # redis-cli speaks the same commands.
    eq(srv.cli("CF.ADD", "cli", "hello"), "1", "redis-cli CF.ADD")
    eq(srv.cli("CF.EXISTS", "cli", "hello"), "1", "redis-cli CF.EXISTS")
    eq(srv.cli("CF.INFO", "cli").splitlines()[0], "Size", "redis-cli CF.INFO first field")


def test_addnx_insert(srv, r):
    cf = r.cf()
    eq(cf.addnx("nx", "a"), 1, "ADDNX new item")
    eq(cf.addnx("nx", "a"), 0, "ADDNX existing item")
    eq(cf.count("nx", "a"), 1, "ADDNX stored one copy")
    eq(cf.insert("ins", ["a", "b", "a"]), [1, 1, 1], "INSERT replies per item")
    eq(cf.count("ins", "a"), 2, "INSERT stored two copies of a")
    eq(cf.insertnx("ins", ["a", "c", "c"]), [0, 1, 0], "INSERTNX replies per item")
    eq(cf.insert("cap", ["x"], capacity=100000), [1], "INSERT CAPACITY creates")
    check(info(r, "cap").bucketNum > info(r, "ins").bucketNum * 50, "INSERT CAPACITY is applied")
    eq(cf.insert("cap", ["y"], capacity=5), [1], "CAPACITY is ignored when the key exists")
    eq(raw(srv.port, "CF.INSERT", "cap", "CAPACITY", -1, "ITEMS", "x"),
       "-Capacity must be in the range [2 * BUCKETSIZE, 1073741824]", "CAPACITY is validated when the key exists")
    p = srv.port
    eq(raw(p, "CF.INSERT", "none", "NOCREATE", "ITEMS", "a"), "-ERR not found", "INSERT NOCREATE on a missing key")
    eq(raw(p, "CF.INSERT", "ins", "NOCREATE", "ITEMS", "z"), "*1", "INSERT NOCREATE on an existing key")
    eq(raw(p, "CF.INSERT", "ins", "BOGUS", "ITEMS", "a"), "-Unknown argument received", "INSERT unknown option")
    eq(raw(p, "CF.INSERT", "ins", "CAPACITY", "abc", "ITEMS", "a"), "-Bad capacity", "INSERT bad capacity")
    eq(raw(p, "CF.INSERT", "new2", "CAPACITY", "1", "ITEMS", "a"),
       "-Capacity must be in the range [2 * BUCKETSIZE, 1073741824]", "INSERT capacity range")
    eq(raw(p, "CF.INSERT", "ins", "NOCREATE", "CAPACITY"), "-ERR wrong number of arguments for 'cf.insert' command",
       "INSERT CAPACITY without a value")
    eq(raw(p, "CF.INSERT", "ins", "NOCREATE", "ITEMS"), "-ERR wrong number of arguments for 'cf.insert' command",
       "INSERT ITEMS without items")
    eq(raw(p, "CF.INSERT", "ins", "a", "b"), "-Unknown argument received", "INSERT without ITEMS")
    eq(raw(p, "CF.INSERTNX", "ins", "NOCREATE"), "-ERR wrong number of arguments for 'cf.insertnx' command",
       "INSERTNX too short")
    eq(raw(p, "CF.ADD", "ins"), "-ERR wrong number of arguments for 'cf.add' command", "ADD arity")
    eq(raw(p, "CF.ADDNX", "ins", "a", "b"), "-ERR wrong number of arguments for 'cf.addnx' command", "ADDNX arity")
    eq(raw(p, "CF.EXISTS", "ins"), "-ERR wrong number of arguments for 'cf.exists' command", "EXISTS arity")
    eq(raw(p, "CF.MEXISTS", "ins"), "-ERR wrong number of arguments for 'cf.mexists' command", "MEXISTS arity")
    eq(raw(p, "CF.COUNT", "ins"), "-ERR wrong number of arguments for 'cf.count' command", "COUNT arity")
    eq(raw(p, "CF.DEL", "ins"), "-ERR wrong number of arguments for 'cf.del' command", "DEL arity")
    eq(raw(p, "CF.INFO"), "-ERR wrong number of arguments for 'cf.info' command", "INFO arity")
    eq(raw(p, "CF.COMPACT"), "-ERR wrong number of arguments for 'cf.compact' command", "COMPACT arity")
    r.set("s", "v")
    wt = "-WRONGTYPE Operation against a key holding the wrong kind of value"
    for cmd in (["CF.ADD", "s", "a"], ["CF.ADDNX", "s", "a"], ["CF.INSERT", "s", "ITEMS", "a"],
                ["CF.EXISTS", "s", "a"], ["CF.MEXISTS", "s", "a"], ["CF.COUNT", "s", "a"],
                ["CF.DEL", "s", "a"], ["CF.INFO", "s"], ["CF.COMPACT", "s"], ["CF.SCANDUMP", "s", "0"],
                ["CF.LOADCHUNK", "s", "1", "x"]):
        eq(raw(p, *cmd), wt, "%s on a string key" % cmd[0])


def test_count_del_compact(srv, r):
    cf = r.cf()
    for _ in range(3):
        cf.add("cnt", "dup")
    check(cf.count("cnt", "dup") >= 3, "COUNT is an upper bound on copies")
    c0 = cf.count("cnt", "dup")
    eq(cf.delete("cnt", "dup"), 1, "DEL removes one copy")
    eq(cf.count("cnt", "dup"), c0 - 1, "COUNT drops by one")
    eq(raw(srv.port, "CF.DEL", "nokey", "a"), "-Not found", "DEL on a missing key")
    eq(raw(srv.port, "CF.COMPACT", "nokey"), "-Cuckoo filter was not found", "COMPACT on a missing key")
    eq(raw(srv.port, "CF.INFO", "nokey"), "-ERR not found", "INFO on a missing key")
    # COMPACT drops the newest tables emptied by deletes and keeps every item.
    cf.create("cmp", 100)
    items, i = [], 0
    while len(items) < 100 or info(r, "cmp").filterNum == 1:
        items.append("c%d" % i)
        eq(cf.add("cmp", items[-1]), 1, "inserted")
        i += 1
    newer = items[-1:]  # the item that grew the key, and the next ones
    for j in range(20):
        newer.append("c%d" % (i + j))
        cf.add("cmp", newer[-1])
    nf = info(r, "cmp").filterNum
    check(nf > 1, "the filter grew (%d sub-filters)" % nf)
    eq(r.execute_command("CF.COMPACT", "cmp"), b"OK", "COMPACT replies OK")
    eq(info(r, "cmp").filterNum, nf, "COMPACT keeps sub-filters that hold items")
    for it in newer:
        cf.delete("cmp", it)
    r.execute_command("CF.COMPACT", "cmp")
    after = info(r, "cmp").filterNum
    check(after < nf, "COMPACT dropped emptied sub-filters (%d -> %d)" % (nf, after))
    items = items[:100]
    eq(r.execute_command("CF.MEXISTS", "cmp", *items[:100]).count(1), 100, "items survive COMPACT")


def test_churn_keeps_memory(srv, r):
    """Issue 48: add/delete churn of a bounded set of items never grows a key.
    A delete the chain cannot tell apart is owed, and the item's next CF.ADD
    takes it back instead of storing another copy (before, 200 pairs of 100
    items took such a key from 5 KB to 4.29 GB)."""
    cf = r.cf()
    cf.create("churn", 100, expansion=2)
    items = ["ch%d" % i for i in range(400)]  # 4x the first capacity
    eq(cf.insert("churn", items), [1] * len(items), "the key grows to hold 400 items")
    first = filters = None
    for cycle in range(200):
        pipe = r.pipeline(transaction=False)
        for it in items:
            pipe.execute_command("CF.DEL", "churn", it)
        eq(pipe.execute(), [1] * len(items), "cycle %d: every delete answers 1" % cycle)
        eq(r.execute_command("CF.INSERT", "churn", "ITEMS", *items), [1] * len(items),
           "cycle %d: every insert answers 1" % cycle)
        if cycle == 0:
            first, filters = r.memory_usage("churn"), info(r, "churn").filterNum
    eq(r.memory_usage("churn"), first, "MEMORY USAGE after 200 cycles is that after the first")
    eq(info(r, "churn").filterNum, filters, "no sub-filter added by churn")
    eq(r.execute_command("CF.MEXISTS", "churn", *items), [1] * len(items), "every item found")
    before = r.memory_usage("churn")
    pipe = r.pipeline(transaction=False)
    for _ in range(1000):
        for it in items[:100]:
            pipe.execute_command("CF.ADD", "churn", "pair-" + it)
            pipe.execute_command("CF.DEL", "churn", "pair-" + it)
    eq(set(pipe.execute()), {1}, "100 items x 1,000 add/delete pairs: every reply 1")
    eq(r.memory_usage("churn"), before, "MEMORY USAGE unchanged by the pairs")
    eq(info(r, "churn").filterNum, filters, "no sub-filter added by the pairs")
    # A replica of this key (DUMP/RESTORE) owes what the key owes and answers alike.
    r.execute_command("RESTORE", "churn2", 0, r.dump("churn"))
    eq([d for _, d in dump(r, "churn2")], [d for _, d in dump(r, "churn")],
       "DUMP/RESTORE keeps the bytes, owed deletes included")


def test_growth_limits(srv, r):
    cf = r.cf()
    # EXPANSION 0: "Filter is full", nothing lost.
    cf.create("ne", 100, expansion=0)
    added, err = [], None
    for i in range(1000):
        err = error_of(cf.add, "ne", "n%d" % i)
        if err:
            break
        added.append("n%d" % i)
    eq(err, "Filter is full", "EXPANSION 0 filter reports full")
    check(len(added) >= 100, "a non-expanding filter holds its capacity (%d >= 100)" % len(added))
    eq(info(r, "ne").filterNum, 1, "EXPANSION 0 never grows")
    eq(r.execute_command("CF.MEXISTS", "ne", *added).count(1), len(added), "no item lost when full")
    # A refused insert changes nothing, so the same item is refused again.
    eq(r.execute_command("CF.INSERT", "ne", "ITEMS", "n%d" % len(added)), [-1],
       "INSERT of the refused item gives -1")
    # Only what does not fit is refused: after "Filter is full", items whose
    # buckets still have room are stored (RedisBloom stores them too).
    more = ["m%d" % i for i in range(200)]
    reply = r.execute_command("CF.INSERT", "ne", "ITEMS", *more)
    check(reply.count(1) > 0, "EXPANSION 0: items that fit are stored after a refusal (%d of 200)" % reply.count(1))
    eq(reply.count(1) + reply.count(-1), 200, "EXPANSION 0: 1 or -1 per item")
    stored = [x for x, ok in zip(more, reply) if ok == 1]
    eq(r.execute_command("CF.MEXISTS", "ne", *stored).count(1), len(stored), "and they are found")
    eq(r.execute_command("CF.MEXISTS", "ne", *added).count(1), len(added), "nothing lost")
    # The sub-filter cap: "Maximum expansions reached" at 32 sub-filters.
    cf.create("capped", 4, expansion=1)
    err = None
    for i in range(5000):
        err = error_of(cf.add, "capped", "k%d" % i)
        if err:
            break
    eq(err, "Maximum expansions reached", "growth stops at the cap")
    eq(info(r, "capped").filterNum, 32, "cap is 32 sub-filters by default")
    # At the cap every insert command answers the error, as RedisBloom does,
    # not one -1 per item: clients that catch the error see it.
    for cmd in ("CF.INSERT", "CF.INSERTNX"):
        eq(error_of(r.execute_command, cmd, "capped", "ITEMS", "a", "b"), "Maximum expansions reached",
           cmd + " on a key at its cap")
    eq(error_of(cf.addnx, "capped", "k0"), "Maximum expansions reached", "CF.ADDNX on a key at its cap")
    eq(r.execute_command("CF.EXISTS", "capped", "k0"), 1, "the key still answers lookups")
    eq(r.execute_command("CF.DEL", "capped", "k0"), 1, "a delete frees a slot")
    check(isinstance(r.execute_command("CF.INSERT", "capped", "ITEMS", "k0"), list),
          "after it, an insert is tried again (the delete cleared the mark)")
    # Duplicates: 2b copies per sub-filter; more add sub-filters (as
    # RedisBloom does) up to the cap; with EXPANSION 0, "Filter is full".
    cf.create("dup", 1000)
    res = [error_of(cf.add, "dup", "same") for _ in range(10)]
    eq(res, [None] * 10, "10 copies fit")
    eq(info(r, "dup").filterNum, 3, "copies 5..8 and 9..10 went to two new sub-filters")
    eq(cf.count("dup", "same"), 10, "COUNT sees all 10 copies")
    # Inserts go to the newest table (the library's rule): the copies fill
    # it and each table added after it, 4 per table up to the cap.
    before = info(r, "dup").filterNum
    reply = r.execute_command("CF.INSERT", "dup", "ITEMS", *(["same2"] * 100000))
    stored = 4 * (32 - before + 1)
    eq((reply.count(1), reply.count(-1)), (stored, 100000 - stored),
       "100000 duplicates: 4 per table from the newest up to the cap of 32, the rest refused")
    eq(info(r, "dup").filterNum, 32, "the duplicates stopped at the cap")
    cf.create("dup0", 1000, expansion=0)
    res = [error_of(cf.add, "dup0", "same") for _ in range(6)]
    eq(res, [None] * 4 + ["Filter is full"] * 2, "EXPANSION 0: the 5th copy is refused")
    eq(info(r, "dup0").filterNum, 1, "EXPANSION 0 never grows")
    # Repeats of many items in a lightly loaded filter do not mark it full:
    # only the rare pair of items sharing a fingerprint and a bucket (6
    # copies for 4 slots) takes a new sub-filter.
    cf.create("rep", 40000)
    batch = ["r%d" % i for i in range(4000)]
    for _ in range(3):
        r.execute_command("CF.INSERT", "rep", "ITEMS", *batch)
    check(info(r, "rep").filterNum <= 2, "three copies of 4000 items keep at most 2 sub-filters (%d)" % info(r, "rep").filterNum)
    eq(r.execute_command("CF.MEXISTS", "rep", *batch).count(1), 4000, "and all are found")


def test_scandump_roundtrip(srv, r):
    cf = r.cf()
    cf.create("src", 2000, bucket_size=4)
    items = ["s%d" % i for i in range(5000)]
    r.execute_command("CF.INSERT", "src", "ITEMS", *items)
    r.execute_command("CF.DEL", "src", "s0")
    chunks = dump(r, "src")
    check(len(chunks) >= 2, "dump has a header and body chunks (%d)" % len(chunks))
    eq(chunks[0][0] & ((1 << 40) - 1), 1, "the header comes with position 1")
    load(r, "dst", chunks)
    a, b = raw_info(r, "src"), raw_info(r, "dst")
    eq(b, a, "loaded filter reports the same INFO")
    probe = items + ["other%d" % i for i in range(5000)]
    eq(r.execute_command("CF.MEXISTS", "dst", *probe), r.execute_command("CF.MEXISTS", "src", *probe),
       "loaded filter answers identically")
    eq([(it & ((1 << 40) - 1), d) for it, d in dump(r, "dst")], [(it & ((1 << 40) - 1), d) for it, d in chunks],
       "dumping the copy gives the same chunks at the same positions")
    p = srv.port
    eq(raw(p, "CF.SCANDUMP", "nokey", 0), "-ERR not found", "SCANDUMP on a missing key")
    eq(raw(p, "CF.SCANDUMP", "src", -1), "-Invalid position", "SCANDUMP negative iterator")
    eq(raw(p, "CF.SCANDUMP", "src", "x"), "-Invalid position", "SCANDUMP bad iterator")
    eq(r.cf().scandump("src", 1 << 39), [0, None], "SCANDUMP iterator past the end")
    eq(raw(p, "CF.LOADCHUNK", "src", 1, chunks[0][1]), "-ERR item exists", "LOADCHUNK header onto an existing key")
    eq(raw(p, "CF.LOADCHUNK", "x", 0, "a"), "-Invalid position", "LOADCHUNK iterator 0")
    eq(raw(p, "CF.LOADCHUNK", "x", 5, "a"), "-ERR not found", "LOADCHUNK body without header")
    eq(raw(p, "CF.LOADCHUNK", "x", 1, "garbage"), "-Couldn't create filter!", "LOADCHUNK garbage header")
    eq(raw(p, "CF.LOADCHUNK", "x", 1), "-ERR wrong number of arguments for 'cf.loadchunk' command",
       "LOADCHUNK arity")
    # Out of order: skip the first body chunk.
    load(r, "ooo", chunks[:1])
    eq(raw(p, "CF.LOADCHUNK", "ooo", chunks[2][0] if len(chunks) > 2 else chunks[1][0] + 1, chunks[1][1]),
       "-Couldn't load chunk!", "LOADCHUNK out of order")
    eq(raw(p, "CF.ADD", "ooo", "a"), "-ERR the filter is being restored by CF.LOADCHUNK",
       "a half-loaded key refuses other commands")
    load(r, "ooo", chunks[1:])
    eq(raw_info(r, "ooo"), a, "finishing the load after a refused chunk works")


def test_random_model(srv, r):
    """Random ADD / ADDNX / INSERT / DEL against an exact multiset, with
    DEBUG RELOAD now and then: no false negatives, COUNT never below the
    model, DEL of a stored item always succeeds.  Two chains: equal-sized
    sub-filters (EXPANSION 1, the default), where a delete is exactly as safe
    as in one filter; and doubling ones with 32-bit fingerprints, where the
    cross-sub-filter collision that could make a delete take another item's
    fingerprint (docs/REDIS.md) has probability ~2^-29 per delete."""
    random_model(r, "rm1", ["BUCKETSIZE", 4])
    random_model(r, "rm2", ["EXPANSION", 2, "FINGERPRINT", 32])


def random_model(r, key, options):
    import random
    rng = random.Random(2026)
    p = plain(r)
    p.execute_command("CF.RESERVE", key, 300, *options)
    model = {}
    universe = ["u%d" % i for i in range(3000)]
    for step in range(40):
        pipe = p.pipeline(transaction=False)
        ops, queued_dels = [], {}
        for _ in range(250):
            x = rng.choice(universe)
            k = rng.random()
            if k < 0.45:
                ops.append(("add", x))
                pipe.execute_command("CF.ADD", key, x)
            elif k < 0.6:
                ops.append(("addnx", x))
                pipe.execute_command("CF.ADDNX", key, x)
            elif k < 0.75:
                ops.append(("insert", x))
                pipe.execute_command("CF.INSERT", key, "ITEMS", x)
            else:
                # Only delete copies known to be stored (cf_delete's contract),
                # counting the deletes already queued in this batch.
                if model.get(x, 0) - queued_dels.get(x, 0) <= 0:
                    continue
                queued_dels[x] = queued_dels.get(x, 0) + 1
                ops.append(("del", x))
                pipe.execute_command("CF.DEL", key, x)
        for (op, x), res in zip(ops, pipe.execute(raise_on_error=False)):
            if op == "insert":
                res = res[0]
            if op == "del":
                check(res == 1, key + " step %d: DEL of a stored %s answered %r" % (step, x, res))
                model[x] -= 1
            elif res == 1:
                model[x] = model.get(x, 0) + 1
            elif op == "addnx" and res == 0:
                pass  # may exist: a false positive or a stored copy
            else:
                check(model.get(x, 0) >= 2, key + " step %d: %s refused (%r) with %d copies" % (step, op, res, model.get(x, 0)))
        stored = [x for x, n in model.items() if n > 0]
        got = p.execute_command("CF.MEXISTS", key, *stored) if stored else []
        check(all(v == 1 for v in got), key + " step %d: a stored item is missing" % step)
        for x in rng.sample(stored, min(20, len(stored))):
            check(p.execute_command("CF.COUNT", key, x) >= model[x], key + " step %d: COUNT of %s" % (step, x))
        if step % 10 == 9:
            p.execute_command("DEBUG", "RELOAD")
    info = raw_info(r, key)
    # Ambiguous deletes keep their copy (the library's rule for grown filters).
    total = sum(model.values())
    check(total <= info["Number of items inserted"] <= total + info["Number of items deleted"],
          "INFO items %d between the model's total %d and that plus the deletes"
          % (info["Number of items inserted"], total))
    check(info["Number of filters"] > 1, "%s grew (%d sub-filters)" % (key, info["Number of filters"]))


def test_runs_match_singles(srv, r):
    """CF.INSERT[NX] and CF.MEXISTS give their items to the library in runs
    (its batches): the answers, and the key's bytes, must be those of the
    same items added one CF.ADD[NX] at a time and looked up one CF.EXISTS at
    a time.  Keys that fill up within a run (refusals mid-run), grow within
    one (a chain, in place), reach their sub-filter cap within one, and an
    expiring key (NX refreshes: answers only, its stamps follow the clock)."""
    p = plain(r)
    items = ["run:%d" % i for i in range(1500)] + ["run:7"] * 12  # copies past 2b too
    nx_items = items + items[::5]  # NX: the repeats answer 0
    probes = items + ["absent:%d" % i for i in range(1500)]
    for name, opts in (("full", [200, "BUCKETSIZE", 4, "EXPANSION", 0]),
                       ("grows", [100, "EXPANSION", 2]),
                       ("capped", [8, "BUCKETSIZE", 1, "EXPANSION", 1]),
                       ("inplace", [100, "GROWTH", "INPLACE"]),
                       ("expiring", [1000, "EXPANSION", 0, "EXPIRE", 3600])):
        for nx, batch, single, work in ((False, "CF.INSERT", "CF.ADD", items),
                                        (True, "CF.INSERTNX", "CF.ADDNX", nx_items)):
            one, runs = "one-%s-%d" % (name, nx), "runs-%s-%d" % (name, nx)
            what = "%s %s: " % (name, batch)
            p.execute_command("CF.RESERVE", one, *opts)
            p.execute_command("CF.RESERVE", runs, *opts)
            pipe = p.pipeline(transaction=False)
            for x in work:
                pipe.execute_command(single, one, x)
            want = [v if v in (0, 1) else -1 for v in pipe.execute(raise_on_error=False)]
            got = p.execute_command(batch, runs, "ITEMS", *work)
            if name == "capped" and nx:
                # At its cap a key refuses a whole CF.ADDNX before looking
                # at the item; one CF.INSERTNX still answers 0 for an item
                # it finds there (docs/REDIS.md).
                check(len(got) == len(want) and
                      all(g == w or (w == -1 and g in (0, -1)) for g, w in zip(got, want)),
                      what + "answers as CF.ADDNX item by item, or 0 past the cap")
            else:
                eq(got, want, what + "answers as %s item by item" % single)
            check(want.count(1) < len(set(work)) or name in ("grows", "inplace"),
                  what + "the key refused some items (%d in)" % want.count(1))
            if name != "expiring":  # the bytes, not the iterators (each key's generation)
                check([d for _, d in dump(r, runs)] == [d for _, d in dump(r, one)],
                      what + "the same bytes as %s item by item" % single)
            pipe = p.pipeline(transaction=False)
            for x in probes:
                pipe.execute_command("CF.EXISTS", runs, x)
            eq(p.execute_command("CF.MEXISTS", runs, *probes), pipe.execute(),
               what + "CF.MEXISTS answers as CF.EXISTS item by item")


def main():
    # Small chunks so dumps of small filters still span several chunks.
    with Server(MOD, module_args=["CHUNK_BYTES", "1024"]) as srv:
        r = srv.client()
        PLAIN.append(srv.client())
        for t in (test_reserve, test_add_exists_model, test_addnx_insert, test_count_del_compact,
                  test_churn_keeps_memory, test_growth_limits, test_scandump_roundtrip, test_random_model,
                  test_runs_match_singles):
            t(srv, r)
            check(srv.alive(), "server alive after %s" % t.__name__)
    finish("redis_module")


main()

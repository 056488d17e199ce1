# SPDX-License-Identifier: Apache-2.0 OR MIT
"""`cuckoo export` / `cuckoo import` against a real redis-server with
cuckoo.so: a filter built offline is served by Redis (exported as
CF.LOADCHUNK commands through `redis-cli --pipe`) and answers every query
exactly as the file does; a key comes back as a file from a capture of its
CF.SCANDUMP replies and from a rewritten AOF, byte-identical to the original
when nothing changed and holding the new items when something did.
Usage: test_redis_cli_io.py cuckoo.so path/to/cuckoo"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

from cfr_testlib import (REDIS_CLI, Server, check, dump, eq, finish, free_port_in,
                         module_path, plain, resp)

MOD = module_path()
if len(sys.argv) < 3 or not os.path.exists(sys.argv[2]):
    print("usage: %s cuckoo.so path/to/cuckoo" % sys.argv[0])
    sys.exit(2)
CUCKOO = os.path.abspath(sys.argv[2])


def cuckoo(*args, stdin=None):
    return subprocess.run([CUCKOO] + [str(a) for a in args], input=stdin, capture_output=True,
                          timeout=120)


def scandump_stream(p, key):
    """What a client replaying CF.SCANDUMP's replies would send."""
    out, it = [], 0
    while True:
        it, data = p.execute_command("CF.SCANDUMP", key, it)
        if it == 0:
            return b"".join(out)
        out.append(resp("CF.LOADCHUNK", key, it, data))


def file_answers(path, keys):
    """`cuckoo query` of each key: 1 found, 0 not."""
    res = subprocess.run([CUCKOO, "query", path], input="\n".join(keys).encode() + b"\n",
                         capture_output=True, timeout=120)
    lines = res.stdout.decode().splitlines()
    return [1 if line.endswith("\tyes") else 0 for line in lines]


def main():
    tmp = tempfile.mkdtemp(prefix="cfcli-")
    try:
        run(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish("redis_cli_io")


def run(tmp):
    src = os.path.join(tmp, "offline.cf")
    keys = ["k%d" % i for i in range(10000)]
    absent = ["a%d" % i for i in range(20000)]
    eq(cuckoo("create", src, "--capacity", 20000, "--seed", 42, "--fpp", 0.01).returncode, 0, "create")
    eq(cuckoo("add", src, stdin="\n".join(keys).encode() + b"\n").returncode, 0, "add 10000 keys")
    with Server(MOD, port=free_port_in(), extra=["--aof-use-rdb-preamble", "no"]) as srv:
        p = plain(srv.client())
        # Offline file -> Redis.
        exported = cuckoo("export", src, "served", "--chunk-bytes", 4096)
        eq(exported.returncode, 0, "export")
        piped = subprocess.run([REDIS_CLI, "-h", "127.0.0.1", "-p", str(srv.port), "--pipe"],
                               input=exported.stdout, capture_output=True, timeout=120)
        check(b"errors: 0" in piped.stdout, "redis-cli --pipe loaded it: %r" % piped.stdout[-200:])
        eq(p.execute_command("CF.MEXISTS", "served", *keys).count(1), len(keys), "every key is served")
        eq(p.execute_command("CF.MEXISTS", "served", *absent), file_answers(src, absent),
           "Redis answers absent keys exactly as the file does")
        flat = p.execute_command("CF.INFO", "served")
        info = {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}
        eq((info["Number of items inserted"], info["Number of filters"], info["Bucket size"]),
           (10000, 1, 4), "CF.INFO of the served key")

        # Redis -> file, nothing changed: the same bytes.
        back = os.path.join(tmp, "back.cf")
        got = cuckoo("import", back, stdin=scandump_stream(p, "served"))
        eq(got.returncode, 0, "import of a SCANDUMP capture: %s" % got.stderr.decode().strip())
        with open(src, "rb") as a, open(back, "rb") as b:
            check(a.read() == b.read(), "exported and imported back: byte-identical file")

        # The key changes in Redis; the file follows.
        more = ["m%d" % i for i in range(2000)]
        p.execute_command("CF.INSERT", "served", "ITEMS", *more)
        p.execute_command("CF.DEL", "served", "k0")
        changed = os.path.join(tmp, "changed.cf")
        eq(cuckoo("import", changed, stdin=scandump_stream(p, "served")).returncode, 0, "import after writes")
        eq(file_answers(changed, keys[1:] + more).count(1), len(keys) - 1 + len(more),
           "the file holds the items added in Redis")
        eq(cuckoo("info", changed).returncode, 0, "the imported file verifies")

        # From a rewritten AOF (other commands and keys in it are skipped).
        p.execute_command("SET", "other", "value")
        p.execute_command("CF.ADD", "second", "x")
        p.execute_command("CONFIG", "SET", "appendonly", "yes")
        deadline = time.time() + 60
        base = []
        while time.time() < deadline:
            mem = srv.client().info("persistence")
            base = glob.glob(os.path.join(srv.dir, "appendonlydir", "*.base.aof"))
            if base and not mem["aof_rewrite_in_progress"] and not mem["aof_rewrite_scheduled"]:
                break
            time.sleep(0.1)
        check(len(base) == 1, "one AOF base file (%r)" % base)
        from_aof = os.path.join(tmp, "aof.cf")
        got = cuckoo("import", from_aof, base[0], "--key", "served")
        eq(got.returncode, 0, "import --key from the AOF: %s" % got.stderr.decode().strip())
        with open(changed, "rb") as a, open(from_aof, "rb") as b:
            check(a.read() == b.read(), "the AOF gives the same file as SCANDUMP")
        got = cuckoo("import", os.path.join(tmp, "x.cf"), base[0])
        eq(got.returncode, 2, "an AOF of several keys needs --key")

        # A key that grew is one grown filter: it becomes a grown file
        # (format version 2) and goes back into Redis unchanged.
        grown_items = ["c%d" % i for i in range(1000)]
        p.execute_command("CF.RESERVE", "chain", 100)
        p.execute_command("CF.INSERT", "chain", "ITEMS", *grown_items)
        check(p.execute_command("CF.INFO", "chain")[5] > 1, "the key grew")
        grown_file = os.path.join(tmp, "chain.cf")
        got = cuckoo("import", grown_file, stdin=scandump_stream(p, "chain"))
        eq(got.returncode, 0, "a grown key imports: %s" % got.stderr.decode().strip())
        eq(file_answers(grown_file, grown_items + absent),
           p.execute_command("CF.MEXISTS", "chain", *(grown_items + absent)),
           "the grown file answers as the key does")
        exported = cuckoo("export", grown_file, "chain2")
        eq(exported.returncode, 0, "export of a grown file")
        piped = subprocess.run([REDIS_CLI, "-h", "127.0.0.1", "-p", str(srv.port), "--pipe"],
                               input=exported.stdout, capture_output=True, timeout=120)
        check(b"errors: 0" in piped.stdout, "the grown file loads: %r" % piped.stdout[-200:])
        eq(p.execute_command("CF.INFO", "chain2")[:16], p.execute_command("CF.INFO", "chain")[:16],
           "CF.INFO of the round trip")
        eq(b"".join(d for _, d in dump(p, "chain2")[1:]), b"".join(d for _, d in dump(p, "chain")[1:]),
           "the round trip dumps the same filter bytes")
        got = cuckoo("export", grown_file, "chain3", "--expansion", 2)
        eq(got.returncode, 2, "a grown file refuses another --expansion")

        # An expiring key counts milliseconds and a file seconds: import
        # refuses it, clearly, and writes nothing.
        p.execute_command("CF.RESERVE", "xp", 100, "EXPIRE", 60)
        p.execute_command("CF.ADD", "xp", "a")
        xp_file = os.path.join(tmp, "xp.cf")
        got = cuckoo("import", xp_file, stdin=scandump_stream(p, "xp"))
        eq(got.returncode, 2, "an expiring key does not import")
        check(b"cannot become a file" in got.stderr, "import says why: %r" % got.stderr)
        check(not os.path.exists(xp_file), "a refused import writes no file")

        # A key that grows in place becomes an in-place file (format
        # version 4), and such a file, made by the CLI too, a key again.
        ip_items = ["i%d" % i for i in range(3000)]
        p.execute_command("CF.RESERVE", "ip", 100, "GROWTH", "INPLACE")
        p.execute_command("CF.INSERT", "ip", "ITEMS", *ip_items)
        flat = plain(p).execute_command("CF.INFO", "ip")
        ip_info = {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}
        check(ip_info.get("Doublings", 0) > 0, "the in-place key doubled: %r" % ip_info)
        ip_file = os.path.join(tmp, "ip.cf")
        got = cuckoo("import", ip_file, stdin=scandump_stream(p, "ip"))
        eq(got.returncode, 0, "an in-place key imports: %s" % got.stderr.decode().strip())
        info = cuckoo("info", ip_file)
        check(b"inplace" in info.stdout.replace(b"-", b"").replace(b" ", b"").lower(),
              "the file grows in place: %r" % info.stdout)
        eq(file_answers(ip_file, ip_items + absent),
           p.execute_command("CF.MEXISTS", "ip", *(ip_items + absent)),
           "the in-place file answers as the key does")
        exported = cuckoo("export", ip_file, "ip2")
        eq(exported.returncode, 0, "export of an in-place file: %s" % exported.stderr.decode().strip())
        piped = subprocess.run([REDIS_CLI, "-h", "127.0.0.1", "-p", str(srv.port), "--pipe"],
                               input=exported.stdout, capture_output=True, timeout=120)
        check(b"errors: 0" in piped.stdout, "the in-place file loads: %r" % piped.stdout[-200:])
        eq(plain(p).execute_command("CF.INFO", "ip2"), flat,
           "CF.INFO of the in-place round trip")
        eq(b"".join(d for _, d in dump(p, "ip2")[1:]), b"".join(d for _, d in dump(p, "ip")[1:]),
           "the in-place round trip dumps the same filter bytes")
        p.execute_command("CF.ADD", "ip2", "after")
        eq(p.execute_command("CF.EXISTS", "ip2", "after"), 1, "the loaded key takes inserts")
        got = cuckoo("export", ip_file, "ip3", "--expansion", 4)
        eq(got.returncode, 2, "an in-place file refuses --expansion other than 2")
        cli_ip = os.path.join(tmp, "cli_ip.cf")
        eq(cuckoo("create", cli_ip, "--capacity", 100, "--grow=inplace").returncode, 0,
           "create --grow=inplace")
        keys_path = os.path.join(tmp, "ip_keys.txt")
        with open(keys_path, "w") as kf:
            kf.write("".join(k + "\n" for k in ip_items))
        eq(cuckoo("add", cli_ip, "--keys", keys_path).returncode, 0, "add to an in-place file")
        exported = cuckoo("export", cli_ip, "ip4")
        eq(exported.returncode, 0, "export of a CLI-made in-place file")
        piped = subprocess.run([REDIS_CLI, "-h", "127.0.0.1", "-p", str(srv.port), "--pipe"],
                               input=exported.stdout, capture_output=True, timeout=120)
        check(b"errors: 0" in piped.stdout, "it loads: %r" % piped.stdout[-200:])
        eq(p.execute_command("CF.MEXISTS", "ip4", *ip_items), [1] * len(ip_items),
           "the key holds every item of the file")
        stream = scandump_stream(p, "served")
        got = cuckoo("import", os.path.join(tmp, "short.cf"), stdin=stream[:len(stream) // 2])
        eq(got.returncode, 2, "a truncated stream is refused")
        eq(os.path.exists(os.path.join(tmp, "short.cf")), False, "and writes no file")
        # A dump read across a write.
        it, hdr = p.execute_command("CF.SCANDUMP", "served", 0)
        p.execute_command("CF.ADD", "served", "late")
        rest = scandump_stream(p, "served").split(b"*4\r\n", 2)[2]
        got = cuckoo("import", os.path.join(tmp, "stale.cf"),
                     stdin=resp("CF.LOADCHUNK", "served", it, hdr) + b"*4\r\n" + rest)
        eq(got.returncode, 2, "a dump read across a write is refused")
        eq(cuckoo("import", back, stdin=scandump_stream(p, "served")).returncode, 2,
           "an existing file is not replaced without --force")
        check(srv.alive(), "server alive")


main()

"""Writes redis/data/legacy_enc0.rdb and legacy_enc0.json: keys saved by the
module as it was before keys were built on the library's CF_GROW (RDB
encoding 0, dump version 1: one library image per sub-filter).  Run once
with that module, built from commit ca994b1 (e.g. `git worktree add /tmp/old
ca994b1 && cmake -S /tmp/old -B /tmp/old/build && cmake --build /tmp/old/build
--target cuckoo_redis`):

    cd redis && /usr/bin/python3 make_legacy_rdb.py /tmp/old/build/redis/cuckoo.so

test_redis_persistence.py loads the RDB into today's module and checks
every key answers as it did (the JSON: CF.INFO's first pairs and MEXISTS
over a probe set)."""

import json
import os
import shutil
import sys

from cfr_testlib import Server, plain

PROBE = ["p%d" % i for i in range(3000)] + ["q%d" % i for i in range(3000)]


def main():
    mod = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    with Server(mod) as srv:
        r = srv.client()
        cf = r.cf()
        cf.create("plain", 1000)
        r.execute_command("CF.INSERT", "plain", "ITEMS", *PROBE[:800])
        cf.create("grown", 200, expansion=2)
        r.execute_command("CF.INSERT", "grown", "ITEMS", *PROBE[:2500])
        for it in PROBE[:300]:
            cf.delete("grown", it)
        cf.create("flat", 64, expansion=1)
        r.execute_command("CF.INSERT", "flat", "ITEMS", *PROBE[:300])
        cf.create("full", 100, expansion=0)
        r.execute_command("CF.INSERT", "full", "ITEMS", *PROBE[:400])
        for _ in range(10):
            cf.add("dups", "same")
        keys = ["plain", "grown", "flat", "full", "dups"]
        want = {}
        for k in keys:
            info = plain(r).execute_command("CF.INFO", k)
            want[k] = {"info": [x.decode() if isinstance(x, bytes) else x for x in info[:16]],
                       "mexists": "".join(str(x) for x in r.execute_command("CF.MEXISTS", k, *PROBE)),
                       "count_same": r.execute_command("CF.COUNT", k, "same")}
        r.execute_command("SAVE")
        shutil.copy(os.path.join(srv.dir, "dump.rdb"), os.path.join(here, "data", "legacy_enc0.rdb"))
    with open(os.path.join(here, "data", "legacy_enc0.json"), "w") as f:
        json.dump(want, f)


if __name__ == "__main__":
    main()

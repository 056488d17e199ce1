# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Writes an RDB fixture for redis/tests/data/ and the answers its keys gave: keys
saved by a module of an earlier RDB layout, which today's module must still
load.  Run once with that module:

    cd redis/tests && /usr/bin/python3 make_legacy_rdb.py MODULE.so [NAME [--half]]

- legacy_enc0 (the default): RDB encoding 0, dump version 1 (one library
  image per sub-filter), written by the module before keys were built on the
  library's CF_GROW, built from commit ca994b1 (e.g. `git worktree add
  /tmp/old ca994b1 && cmake -S /tmp/old -B /tmp/old/build && cmake --build
  /tmp/old/build --target cuckoo_redis`).
- legacy_enc0_v2 --half: RDB encoding 0, dump version 2 (the key's filter
  as one image, saved as one RDB string), written by the module of commit
  10158ef, the last before RDB saves were streamed in pieces (encoding 1).
  --half adds a key in the middle of a CF.LOADCHUNK restore, saved with its
  partial bytes; the JSON keeps the chunks that finish it ("rest").

test_redis_persistence.py loads each RDB into today's module and checks
every key answers as it did (the JSON: CF.INFO's first pairs, MEXISTS over
a probe set, COUNT of a repeated item)."""

import json
import os
import shutil
import sys

from cfr_testlib import Server, dump, load, plain

PROBE = ["p%d" % i for i in range(3000)] + ["q%d" % i for i in range(3000)]


def answers(r, k):
    info = plain(r).execute_command("CF.INFO", k)
    return {"info": [x.decode() if isinstance(x, bytes) else x for x in info[:16]],
            "mexists": "".join(str(x) for x in r.execute_command("CF.MEXISTS", k, *PROBE)),
            "count_same": r.execute_command("CF.COUNT", k, "same")}


def main():
    mod = os.path.abspath(sys.argv[1])
    name = sys.argv[2] if len(sys.argv) > 2 else "legacy_enc0"
    half = "--half" in sys.argv[3:]
    here = os.path.dirname(os.path.abspath(__file__))
    # Small chunks, so the half-loaded key holds complete and partial bytes.
    args = ["CHUNK_BYTES", "512"] if half else []
    with Server(mod, module_args=args) as srv:
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
        want = {k: answers(r, k) for k in keys}
        if half:
            chunks = dump(r, "grown")
            load(r, "half", chunks[:3])
            want["half"] = dict(want["grown"], rest=[[it, data.hex()] for it, data in chunks[3:]])
        r.execute_command("SAVE")
        shutil.copy(os.path.join(srv.dir, "dump.rdb"), os.path.join(here, "data", name + ".rdb"))
    with open(os.path.join(here, "data", name + ".json"), "w") as f:
        json.dump(want, f)


if __name__ == "__main__":
    main()

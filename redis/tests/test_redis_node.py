# SPDX-License-Identifier: Apache-2.0 OR MIT
"""node-redis 4.x (npm's `redis`, pinned by redis/tests/node/package-lock.json)
against cuckoo.so: redis/tests/node/node_client.js runs the cf.* helpers and a
SCANDUMP/LOADCHUNK round trip with commandOptions({ returnBuffers: true }),
the call docs/REDIS.md documents.  The packages are installed with `npm ci`
into the build tree (never the source tree) on the first run.  Skipped, with
the reason printed, only when node or npm is not installed."""

import os
import shutil
import subprocess
import sys

from cfr_testlib import SKIP, Server, check, finish, free_port_in, module_path

MOD = module_path()
NODE, NPM = shutil.which("node"), shutil.which("npm")
if not NODE or not NPM:
    print("SKIP: node/npm not installed (Debian: nodejs npm; scripts/deps.sh installs them)")
    sys.exit(SKIP)

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node")
# The test runs in the build directory (redis/CMakeLists.txt sets it).
WORK = os.path.join(os.getcwd(), "node")


def install():
    """npm ci into WORK when the lock file changed or nothing is installed."""
    os.makedirs(WORK, exist_ok=True)
    lock = os.path.join(SRC, "package-lock.json")
    stamp = os.path.join(WORK, "node_modules", ".cuckoo-lock")
    want = open(lock, "rb").read()
    if os.path.exists(stamp) and open(stamp, "rb").read() == want:
        return
    for name in ("package.json", "package-lock.json", "node_client.js"):
        shutil.copy(os.path.join(SRC, name), WORK)
    out = subprocess.run([NPM, "ci", "--no-audit", "--no-fund"], cwd=WORK, capture_output=True,
                         text=True, timeout=300)
    if out.returncode != 0:
        print(out.stdout[-2000:], out.stderr[-2000:])
        raise RuntimeError("npm ci failed in %s" % WORK)
    with open(stamp, "wb") as f:
        f.write(want)


def main():
    install()
    shutil.copy(os.path.join(SRC, "node_client.js"), WORK)
    with Server(MOD, module_args=["CHUNK_BYTES", "4096"], port=free_port_in()) as srv:
        out = subprocess.run([NODE, os.path.join(WORK, "node_client.js"), str(srv.port)], cwd=WORK,
                             capture_output=True, text=True, timeout=120)
        print(out.stdout.strip())
        if out.stderr.strip():
            print(out.stderr.strip()[-2000:])
        check(out.returncode == 0 and out.stdout.strip().endswith("ok"), "node-redis checks")
        check(srv.alive(), "server alive after node-redis")
    finish("redis_node")


main()

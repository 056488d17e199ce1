# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Shared helpers for the Redis module tests: start Debian's redis-server on a
free loopback port with cuckoo.so loaded, always stop it, and small assertion
helpers.  Run the tests with /usr/bin/python3 (Debian's python3-redis)."""

import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

SKIP = 77  # CTest's SKIP_RETURN_CODE for this directory

try:
    import redis  # noqa: F401
    from redis.exceptions import ResponseError  # noqa: F401
except ImportError:  # pragma: no cover
    print("SKIP: python3-redis is not installed (scripts/deps.sh installs it)")
    sys.exit(SKIP)

REDIS_SERVER = shutil.which("redis-server")
REDIS_CLI = shutil.which("redis-cli")
if not REDIS_SERVER or not REDIS_CLI:
    print("SKIP: redis-server / redis-cli not installed (scripts/deps.sh installs them)")
    sys.exit(SKIP)


def module_path():
    if len(sys.argv) < 2 or not os.path.exists(sys.argv[1]):
        print("usage: %s path/to/cuckoo.so" % sys.argv[0])
        sys.exit(2)
    return os.path.abspath(sys.argv[1])


def resp(*args):
    """The RESP array a client sends for the command args (redis-cli --pipe input)."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_port_in(lo=27000, hi=27999):
    """A free loopback port from [lo, hi], tried from a random start: the
    newer tests keep to this range so that several checkouts can run their
    suites at once without meeting the ephemeral ports others pick."""
    import random
    start = random.randrange(lo, hi + 1)
    for i in range(hi - lo + 1):
        port = lo + (start - lo + i) % (hi - lo + 1)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in %d..%d" % (lo, hi))


class Server:
    """One redis-server process; use as a context manager so it always stops."""

    def __init__(self, module, module_args=(), extra=(), workdir=None, port=None):
        self.module = module
        self.module_args = list(module_args)
        self.extra = list(extra)
        self.own_dir = workdir is None
        self.dir = workdir or tempfile.mkdtemp(prefix="cfredis-")
        self.port = port or free_port()
        self.proc = None

    def start(self):
        args = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", self.dir, "--save", "", "--appendonly", "no",
                "--enable-debug-command", "yes",
                "--logfile", os.path.join(self.dir, "redis-%d.log" % self.port),
                "--loadmodule", self.module] + self.module_args + self.extra
        env = dict(os.environ)
        # Sanitizer builds (redis/CMakeLists.txt): preload the shared ASan
        # runtime into redis-server only, and let the module use libc malloc.
        if os.environ.get("CFR_TEST_PRELOAD"):
            env["LD_PRELOAD"] = os.environ["CFR_TEST_PRELOAD"]
            env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
            env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
            i = args.index(self.module) + 1
            args[i:i] = ["SANITIZER_MALLOC", "1"]
        self.errfile = open(os.path.join(self.dir, "stderr-%d.log" % self.port), "ab")
        self.proc = subprocess.Popen(args, stdout=self.errfile, stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("redis-server exited at start:\n" + self.log_tail())
            try:
                if self.client().ping():
                    return self
            except Exception:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start:\n" + self.log_tail())

    def client(self, **kw):
        kw.setdefault("socket_timeout", 30)
        return redis.Redis(host="127.0.0.1", port=self.port, **kw)

    def cli(self, *args, raw=False):
        """Runs redis-cli; returns its stdout as text (bytes if raw)."""
        out = subprocess.run([REDIS_CLI, "-h", "127.0.0.1", "-p", str(self.port)] + list(args),
                             capture_output=True, timeout=30)
        return out.stdout if raw else out.stdout.decode("utf-8", "replace").strip()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None and self.client().ping()

    def log_tail(self, n=30):
        path = os.path.join(self.dir, "redis-%d.log" % self.port)
        try:
            with open(path, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return "(no log)"

    def sanitizer_reports(self):
        path = os.path.join(self.dir, "stderr-%d.log" % self.port)
        try:
            with open(path, errors="replace") as f:
                text = f.read()
        except OSError:
            return ""
        marks = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer")
        return text if any(m in text for m in marks) else ""

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.client().shutdown(nosave=True)
            except Exception:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        self.errfile.close()
        report = self.sanitizer_reports()
        if report:
            FAILURES.append("sanitizer report from redis-server %d" % self.port)
            print(report[-4000:])

    def restart(self, extra=None):
        """Stops (saving as configured) and starts again on the same port and dir."""
        if extra is not None:
            self.extra = list(extra)
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.client().shutdown(save=True)
            except Exception:
                pass
            self.proc.wait(timeout=20)
        self.proc = None
        self.errfile.close()
        return self.start()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        if self.own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False


FAILURES = []


def check(cond, what):
    if cond:
        return
    FAILURES.append(what)
    print("FAIL:", what)


def eq(got, want, what):
    check(got == want, "%s: got %r, want %r" % (what, got, want))


def error_of(fn, *args):
    """The error message fn(*args) raised, or None if it succeeded."""
    try:
        fn(*args)
    except ResponseError as e:
        return str(e)
    return None


def finish(name):
    if FAILURES:
        print("%s: %d failure(s)" % (name, len(FAILURES)))
        sys.exit(1)
    print("%s: all checks passed" % name)
    sys.exit(0)


def wait_sync(primary, replica):
    """Whether replica caught up with primary (its link up, its offset the
    primary's) within 20 s."""
    for _ in range(400):
        inf = replica.info("replication")
        if inf.get("master_link_status") == "up" and \
           inf.get("master_repl_offset") == primary.info("replication")["master_repl_offset"]:
            return True
        time.sleep(0.05)
    return False


def dump(r, key):
    """CF.SCANDUMP key until the end; returns [(iterator, bytes), ...]."""
    chunks, it = [], 0
    for _ in range(1 << 20):
        it, data = r.cf().scandump(key, it)
        if it == 0:
            return chunks
        chunks.append((it, data))
    raise AssertionError("SCANDUMP never ended")


def load(r, key, chunks):
    for it, data in chunks:
        r.cf().loadchunk(key, it, data)


def _enc(a):
    if isinstance(a, bytes):
        return a
    return str(a).encode()


def raw(port, *args):
    """Sends one command over a plain socket and returns the reply's first
    line as text: exact error strings ('-Bad capacity'), no client parsing."""
    parts = [b"*%d\r\n" % len(args)]
    for a in args:
        a = _enc(a)
        parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"".join(parts))
        buf = b""
        while b"\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    return buf.split(b"\r\n", 1)[0].decode("utf-8", "replace")


def plain(r):
    """A client sharing r's connections but without the reply callbacks that
    r.cf() installs (which turn CF.INFO into an object, CF.RESERVE into True)."""
    return redis.Redis(connection_pool=r.connection_pool)


# ---- DUMP payloads: one RDB value, read and written by hand ----
#
# A payload is the value's type byte, the value, the RDB version (2 bytes)
# and a CRC-64 (Jones, reflected) of everything before it.  A module value
# is its 64-bit type id (the name's 54 bits, then the encoding version in
# the low 10), then what rdb_save wrote, one item after an opcode each
# (2: unsigned, 5: string), then opcode 0.  Start the server with
# "--rdbcompression no" to read the strings: LZF-packed ones are not
# decoded here.

RDB_TYPE_MODULE_2 = 7


def _crc64_table():
    poly = 0x95AC9329AC4BC9B5  # 0xad93d23594c935a9 bit-reversed
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return table


_CRC = _crc64_table()


def crc64(data):
    c = 0
    for b in data:
        c = _CRC[(c ^ b) & 0xFF] ^ (c >> 8)
    return c


def reseal_dump(payload):
    body = payload[:-8]
    return body + struct.pack("<Q", crc64(body))


def _rdb_len(buf, at):
    """An RDB length at buf[at]: (value, next offset, encoded-string kind or None)."""
    b = buf[at]
    kind = b >> 6
    if kind == 0:
        return b & 0x3F, at + 1, None
    if kind == 1:
        return ((b & 0x3F) << 8) | buf[at + 1], at + 2, None
    if kind == 3:
        return None, at + 1, b & 0x3F
    if b == 0x80:
        return struct.unpack_from(">I", buf, at + 1)[0], at + 5, None
    if b == 0x81:
        return struct.unpack_from(">Q", buf, at + 1)[0], at + 9, None
    raise ValueError("bad RDB length byte 0x%02x" % b)


def _rdb_put_len(n):
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    if n <= 0xFFFFFFFF:
        return b"\x80" + struct.pack(">I", n)
    return b"\x81" + struct.pack(">Q", n)


def module_value(payload):
    """Reads a module value's DUMP payload: (type id, [("u", int) or ("s",
    bytes), ...]) with the encoding version in the id's low 10 bits."""
    if payload[0] != RDB_TYPE_MODULE_2:
        raise ValueError("not a module value")
    type_id, at, _ = _rdb_len(payload, 1)
    items, end = [], len(payload) - 10
    while at < end:
        op, at, _ = _rdb_len(payload, at)
        if op == 0:
            return type_id, items
        if op == 2:
            v, at, _ = _rdb_len(payload, at)
            items.append(("u", v))
        elif op == 5:
            n, at, enc = _rdb_len(payload, at)
            if enc is not None:  # a short string that reads as an integer
                width = {0: 1, 1: 2, 2: 4}[enc]
                v = int.from_bytes(payload[at:at + width], "little", signed=True)
                items.append(("s", str(v).encode()))
                at += width
            else:
                items.append(("s", payload[at:at + n]))
                at += n
        else:
            raise ValueError("module opcode %d" % op)
    raise ValueError("no end of module value")


def module_payload(type_id, items, rdb_version):
    """The DUMP payload of a module value (see module_value), CRC included."""
    out = bytearray([RDB_TYPE_MODULE_2]) + _rdb_put_len(type_id)
    for kind, v in items:
        if kind == "u":
            out += _rdb_put_len(2) + _rdb_put_len(v)
        else:
            out += _rdb_put_len(5) + _rdb_put_len(len(v)) + v
    out += _rdb_put_len(0) + rdb_version
    return reseal_dump(bytes(out) + bytes(8))

// SPDX-License-Identifier: Apache-2.0 OR MIT
// Filters whose items expire (create({ expire })): the window, the clock
// (an injected now(), the wall clock), refreshes, a stream that never fills,
// refusals, bytes, and files of the `cuckoo` command (seconds, as here).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";

import { loadPackage } from "./env.mjs";

const { CuckooFilter, CuckooFilterError } = await loadPackage();
const dir = mkdtempSync(join(tmpdir(), "cf-web-expire-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function clockAt(t) {
  const c = () => c.t;
  c.t = t;
  return c;
}

test("found for the whole window, gone a stamp after it, slots freed", async () => {
  const now = clockAt(1_000_000);
  const f = await CuckooFilter.create({ capacity: 2000, fpp: 0.001, expire: 3600, now });
  const st = f.stats();
  assert.equal(st.expireAfter, 3600);
  assert.equal(st.clock, now.t);
  assert.ok(st.stamps >= 1 && st.stampBits >= 1 && st.stamps * st.expireSpan >= 3600);
  const keys = Array.from({ length: 1500 }, (_, i) => `k${i}`);
  assert.equal(f.addMany(keys), 1500);
  const written = now.t;
  for (const dt of [0, 1, 1799, 3599]) {
    now.t = written + dt;
    assert.ok(f.hasMany(keys).every(Boolean), `inside the window at +${dt}`);
    assert.ok(f.has("k7"));
  }
  now.t = (Math.floor(written / st.expireSpan) + st.stamps + 1) * st.expireSpan;
  assert.ok(now.t <= written + (st.stamps + 1) * st.expireSpan);
  assert.equal(f.size, 0);
  assert.ok(f.hasMany(keys).filter(Boolean).length <= 10);
  f.dispose();
});

test("adding a key it holds refreshes it: one copy, a window from now", async () => {
  const now = clockAt(1_000_000);
  const f = await CuckooFilter.create({ capacity: 100, expire: 100, now });
  const span = f.stats().expireSpan;
  const start = now.t;
  f.add("alice");
  f.add("bob");
  f.add("alice");
  assert.equal(f.count("alice"), 1);
  now.t = start + 90;
  f.addMany(["alice", "alice"]); // refreshed, still one copy
  assert.equal(f.count("alice"), 1);
  now.t = start + 90 + 99;
  assert.ok(now.t >= (Math.floor(start / span) + f.stats().stamps + 1) * span);
  assert.ok(f.has("alice"));
  assert.ok(!f.has("bob"));
  f.dispose();
});

test("a stream of 100 times the capacity never fills", async () => {
  const now = clockAt(0);
  const cap = 500;
  const window = 1000;
  const f = await CuckooFilter.create({ capacity: cap, fpp: 0.01, expire: window, now });
  for (let i = 0; i < 100 * cap; i++) {
    now.t = Math.floor((i * window) / cap);
    f.add(`s${i}`); // never CF_E_FULL
  }
  assert.equal(f.stats().failedInserts, 0);
  const last = Array.from({ length: cap }, (_, i) => `s${100 * cap - cap + i}`);
  assert.ok(f.hasMany(last).every(Boolean));
  f.dispose();
});

test("a clock that goes back is refused, and nothing changes", async () => {
  const now = clockAt(5000);
  const f = await CuckooFilter.create({ capacity: 100, expire: 60, now });
  f.add("a");
  const before = f.toBytes();
  now.t = 4999;
  assert.throws(() => f.add("b"), (e) => e instanceof CuckooFilterError && e.code === "CF_E_INVAL" && /backwards/.test(e.message));
  assert.throws(() => f.has("a"), CuckooFilterError);
  now.t = 5000;
  assert.deepEqual(f.toBytes(), before);
  now.t = 12.9;
  assert.throws(() => f.size, CuckooFilterError);
  for (const bad of [-1, NaN, "now", undefined]) {
    now.t = bad;
    assert.throws(() => f.has("a"), RangeError);
  }
  f.dispose();
});

test("the wall clock: the clock starts at it, in seconds", async () => {
  const f = await CuckooFilter.create({ capacity: 100, expire: 3600 });
  assert.ok(Math.abs(f.stats().clock - Date.now() / 1000) < 120);
  f.add("x");
  assert.ok(f.has("x"));
  f.dispose();
});

test("refusals", async () => {
  for (const [opts, type] of [
    [{ capacity: 10, expire: 0 }, RangeError],
    [{ capacity: 10, expire: -1 }, RangeError],
    [{ capacity: 10, expire: Infinity }, RangeError],
    [{ capacity: 10, expire: "1h" }, RangeError],
    [{ capacity: 10, now: () => 1 }, TypeError],
    [{ capacity: 10, expire: 10, now: 5 }, TypeError],
  ])
    await assert.rejects(CuckooFilter.create(opts), type, JSON.stringify(opts));
  await assert.rejects(
    CuckooFilter.create({ capacity: 10, expire: 10, semiSort: true }),
    (e) => e instanceof CuckooFilterError && /expire: 10/.test(e.message) && /semiSort/.test(e.message),
  );
  const f = await CuckooFilter.create({ capacity: 10, expire: 1.2, now: clockAt(7) });
  assert.equal(f.stats().expireAfter, 2); // whole seconds, rounded up
  f.dispose();
  const plain = await CuckooFilter.create({ capacity: 10 });
  await assert.rejects(CuckooFilter.fromBytes(plain.toBytes(), { now: () => 1 }), TypeError);
  assert.equal(plain.stats().expireAfter, 0);
  plain.dispose();
});

test("bytes keep the clock; fromBytes takes now", async () => {
  const now = clockAt(1_000_000);
  const f = await CuckooFilter.create({ capacity: 1000, expire: 600, now });
  f.addMany(Array.from({ length: 500 }, (_, i) => `k${i}`));
  now.t += 100;
  const bytes = f.toBytes();
  const g = await CuckooFilter.fromBytes(bytes, { now: clockAt(now.t) });
  assert.equal(g.stats().clock, now.t);
  assert.deepEqual(g.toBytes(), bytes);
  const h = await CuckooFilter.fromBytes(bytes, { now: clockAt(now.t + 10_000) });
  assert.equal(h.size, 0);
  for (const x of [f, g, h]) x.dispose();
});

const cuckoo = process.env.CF_CUCKOO;
test("the cuckoo command's expiring files, both ways", { skip: !cuckoo && "no CF_CUCKOO" }, async () => {
  const path = join(dir, "cli.cf");
  const run = (...args) => spawnSync(cuckoo, args.map(String), { encoding: "utf8" });
  assert.equal(run("create", path, "--capacity", 1000, "--expire", "1h", "--at", 50_000).status, 0);
  assert.equal(run("add", path, "--at", 50_000, "alice", "bob").status, 0);
  const f = await CuckooFilter.fromBytes(readFileSync(path), { now: clockAt(50_000 + 3599) });
  assert.ok(f.has("alice") && f.has("bob"));
  f.add("carol");
  writeFileSync(path, f.toBytes());
  assert.equal(run("query", path, "--at", 50_000 + 3599, "alice", "carol").status, 0);
  const st = f.stats();
  const gone = 50_000 + (st.stamps + 1) * st.expireSpan + 1;
  assert.equal(run("query", path, "--at", gone, "alice").status, 1);
  f.dispose();
});

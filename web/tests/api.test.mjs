// SPDX-License-Identifier: Apache-2.0 OR MIT
// The package's calls, as a JavaScript user makes them: sizing, the answers,
// the bulk calls against the single ones, a full filter changing nothing,
// refusals with the library's reasons, and the lifetime of a filter.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import { loadPackage, packageDir } from "./env.mjs";

const { CuckooFilter, CuckooFilterError } = await loadPackage();
const utf8 = new TextEncoder();

const keys = (n, prefix = "key-") => Array.from({ length: n }, (_, i) => prefix + i);
const catching = (fn) => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail("no exception");
};
const same = (a, b) => assert.deepEqual(Buffer.from(a), Buffer.from(b));

test("a filter sized from capacity and fpp holds its capacity and meets its fpp", async () => {
  const capacity = 100000, fpp = 0.001;
  const f = await CuckooFilter.create({ capacity, fpp, seed: 1 });
  assert.equal(f.addMany(keys(capacity)), capacity);
  assert.equal(f.size, capacity);
  assert.ok(f.hasMany(keys(capacity)).every(Boolean), "no false negatives");
  const queries = 200000;
  const fp = f.hasMany(keys(queries, "absent-")).filter(Boolean).length;
  assert.ok(fp / queries <= fpp, `measured fpp ${fp / queries} above ${fpp}`);
  const st = f.stats();
  assert.ok(st.expectedFpp <= fpp && st.fppBound <= fpp);
  f.dispose();
});

test("the exact form builds exactly that shape", async () => {
  const f = await CuckooFilter.create({ buckets: 1000, fingerprintBits: 12, bucketSize: 2, seed: 5n });
  const st = f.stats();
  assert.equal(st.buckets, 1000);
  assert.equal(st.bucketSize, 2);
  assert.equal(st.slots, 2000);
  assert.equal(st.fingerprintBits, 12);
  assert.equal(st.seed, 5n);
  assert.equal(st.semiSort, false);
  f.dispose();
});

test("add when full throws CF_E_FULL and changes nothing; nothing is ever lost", async () => {
  const f = await CuckooFilter.create({ buckets: 64, fingerprintBits: 12, seed: 3 });
  const added = [];
  let err;
  for (const k of keys(1000)) {
    try {
      f.add(k);
      added.push(k);
    } catch (e) {
      err = e;
      const before = f.readTable();
      assert.throws(() => f.add(k), { code: "CF_E_FULL" });
      same(f.readTable(), before);
      break;
    }
  }
  assert.ok(err instanceof CuckooFilterError && err instanceof Error);
  assert.equal(err.code, "CF_E_FULL");
  assert.ok(err.status < 0);
  assert.match(err.message, /nothing was changed \(CF_E_FULL\)/);
  assert.equal(f.size, added.length);
  assert.ok(f.hasMany(added).every(Boolean), "every key added is still found");
  assert.equal(f.stats().failedInserts, 2);
});

test("a key's own copies fill its buckets: 2b copies, then CF_E_FULL", async () => {
  const f = await CuckooFilter.create({ buckets: 1, bucketSize: 2, fingerprintBits: 8 });
  f.add("a");
  f.add("a");
  assert.equal(f.count("a"), 2);
  assert.throws(() => f.add("a"), { code: "CF_E_FULL" });
  assert.equal(f.delete("a"), true);
  assert.equal(f.count("a"), 1);
  assert.equal(f.delete("a"), true);
  assert.equal(f.delete("a"), false);
  assert.equal(f.has("a"), false);
});

test("string keys are their UTF-8 bytes", async () => {
  const f = await CuckooFilter.create({ capacity: 100 });
  const words = ["héllo", "日本語", "emoji 🐦", ""];
  for (const w of words) f.add(w);
  for (const w of words) assert.ok(f.has(utf8.encode(w)), w);
  const g = await CuckooFilter.create({ capacity: 100 });
  for (const w of words) g.add(utf8.encode(w));
  same(f.toBytes(), g.toBytes());
});

test("addMany and hasMany answer as add and has do, for every kind of key", async () => {
  const mixed = [
    ...keys(3000),
    ...keys(500, "ключ-"),
    ...keys(200).map((k) => utf8.encode(k + "/bytes")),
    "",
    new Uint8Array(0),
  ];
  const one = await CuckooFilter.create({ capacity: 5000, seed: 9 });
  const many = await CuckooFilter.create({ capacity: 5000, seed: 9 });
  for (const k of mixed) one.add(k);
  assert.equal(many.addMany(mixed), mixed.length);
  same(many.toBytes(), one.toBytes()); // same keys, same order: same bytes
  const ascii = await CuckooFilter.create({ capacity: 5000, seed: 9 });
  const many2 = await CuckooFilter.create({ capacity: 5000, seed: 9 });
  ascii.addMany(keys(3000));
  for (const k of keys(3000)) many2.add(k);
  same(ascii.toBytes(), many2.toBytes());
  const probe = [...mixed, ...keys(5000, "no-"), ...keys(100, "нет-")];
  assert.deepEqual(many.hasMany(probe), probe.map((k) => one.has(k)));
  assert.deepEqual(many.hasMany(new Set(keys(10))), Array(10).fill(true)); // any iterable
  assert.deepEqual(many.hasMany([]), []);
  assert.equal(many.addMany([]), 0);
});

test("addMany stops at a full filter: the keys before it went in, no other", async () => {
  const shape = { buckets: 16, fingerprintBits: 12, maxKicks: 20, seed: 2 };
  const list = keys(1000);
  const g = await CuckooFilter.create(shape);
  const err = catching(() => g.addMany(list));
  assert.equal(err.code, "CF_E_FULL");
  const n = err.added;
  assert.ok(n > 0 && n < list.length && g.size === n);
  assert.match(err.message, new RegExp(`first ${n} of 1000 keys were added`));
  // One key at a time: the same table, and the same key refused.
  const h = await CuckooFilter.create(shape);
  for (const k of list.slice(0, n)) h.add(k);
  assert.throws(() => h.add(list[n]), { code: "CF_E_FULL" });
  same(g.readTable(), h.readTable());
  assert.equal(catching(() => g.addMany(list.slice(n))).added, 0);
});

test("bulk calls over many runs of keys: the same answers, the same stop", async () => {
  // The package packs keys 4,096 at a time: mixed and non-ASCII keys across
  // run boundaries, and a filter that fills up in a later run.
  const mixed = keys(9000).map((k, i) => (i % 3 === 0 ? utf8.encode(k) : i % 7 === 0 ? k + "-é" : k));
  const one = await CuckooFilter.create({ capacity: 20000, seed: 4 });
  const many = await CuckooFilter.create({ capacity: 20000, seed: 4 });
  for (const k of mixed) one.add(k);
  assert.equal(many.addMany(mixed), mixed.length);
  same(many.toBytes(), one.toBytes());
  const probe = [...keys(5000, "x-"), ...mixed];
  assert.deepEqual(many.hasMany(probe), probe.map((k) => one.has(k)));
  const shape = { buckets: 2048, bucketSize: 4, fingerprintBits: 12, maxKicks: 20, seed: 2 };
  const list = keys(20000);
  const g = await CuckooFilter.create(shape);
  const err = catching(() => g.addMany(list));
  assert.equal(err.code, "CF_E_FULL");
  const n = err.added;
  assert.ok(n > 4096 && n < list.length && g.size === n, `${n} keys added`);
  const h = await CuckooFilter.create(shape);
  for (const k of list.slice(0, n)) h.add(k);
  assert.throws(() => h.add(list[n]), { code: "CF_E_FULL" });
  same(g.readTable(), h.readTable());
});

test("bad keys are refused before anything is added", async () => {
  const f = await CuckooFilter.create({ capacity: 100 });
  assert.throws(() => f.add(5), TypeError);
  assert.throws(() => f.has(null), TypeError);
  assert.throws(() => f.addMany(["a", "b", 7]), /index 2/);
  assert.equal(f.size, 0);
  assert.throws(() => f.addMany(5), TypeError);
  assert.throws(() => f.hasMany("abc"), TypeError); // a string is not a list of keys
});

test("refused configurations say why, in the package's option names", async () => {
  await assert.rejects(CuckooFilter.create({ capacity: 1000, fpp: 1e-20 }), (e) => {
    assert.equal(e.code, "CF_E_PARAM");
    assert.match(e.message, /^fpp: 1e-20 needs \d+-bit fingerprints.*ask for fpp: [\d.e-]+ or more/);
    return true;
  });
  await assert.rejects(CuckooFilter.create({ capacity: 100, bucketSize: 2, semiSort: true }), (e) => {
    assert.equal(e.code, "CF_E_PARAM");
    assert.match(e.message, /semiSort: true/);
    assert.match(e.message, /needs bucketSize: 4/);
    return true;
  });
  await assert.rejects(CuckooFilter.create({ capacity: 0 }), { code: "CF_E_PARAM" });
  await assert.rejects(CuckooFilter.create({ buckets: 10, fingerprintBits: 33 }), /fingerprintBits: 33/);
  await assert.rejects(CuckooFilter.create({ capacity: 10, fpr: 0.1 }), TypeError);
  await assert.rejects(CuckooFilter.create({ capacity: 1.5 }), RangeError);
  await assert.rejects(CuckooFilter.create({ capacity: 10, seed: -1 }), RangeError);
  await assert.rejects(CuckooFilter.create({ capacity: 10, seed: 1n << 64n }), RangeError);
  await assert.rejects(CuckooFilter.create({ capacity: 10, fpp: "0.1" }), RangeError);
  await assert.rejects(CuckooFilter.create(null), TypeError);
  const f = await CuckooFilter.create({ capacity: 10, seed: (1n << 64n) - 1n });
  assert.equal(f.stats().seed, (1n << 64n) - 1n);
});

test("bytes round trip: the same filter, the same answers", async () => {
  const f = await CuckooFilter.create({ capacity: 2000, fpp: 0.01, semiSort: true, seed: 11 });
  f.addMany(keys(1500));
  const bytes = f.toBytes();
  const g = await CuckooFilter.fromBytes(bytes);
  same(g.toBytes(), bytes);
  assert.deepEqual(g.stats(), f.stats());
  const probe = [...keys(1500), ...keys(3000, "x")];
  assert.deepEqual(g.hasMany(probe), f.hasMany(probe));
  const h = await CuckooFilter.fromBytes(bytes.buffer.slice(0)); // an ArrayBuffer too
  assert.equal(h.size, 1500);
  await assert.rejects(CuckooFilter.fromBytes("bytes"), TypeError);
});

test("inspection: a key's buckets hold its fingerprint, and a traced add moves as it says", async () => {
  const f = await CuckooFilter.create({ buckets: 32, fingerprintBits: 8, seed: 4 });
  let kicks = 0;
  for (const k of keys(120)) {
    const where = f.locate(k);
    const before = f.readTable();
    const moves = f.addTraced(k);
    const last = moves.at(-1);
    assert.equal(last.from, null);
    assert.equal(last.fingerprint, where.fingerprint);
    assert.ok(last.to.bucket === where.bucket1 || last.to.bucket === where.bucket2);
    kicks += moves.length - 1;
    // Replaying the moves on the table read before gives the table after.
    const b = f.stats().bucketSize;
    for (const m of moves) {
      if (m.from) {
        assert.equal(before[m.from.bucket * b + m.from.slot], m.fingerprint);
        before[m.from.bucket * b + m.from.slot] = 0;
      }
      assert.equal(before[m.to.bucket * b + m.to.slot], 0);
      before[m.to.bucket * b + m.to.slot] = m.fingerprint;
    }
    same(f.readTable(), before);
    const slots = [...f.readBucket(where.bucket1), ...f.readBucket(where.bucket2)];
    assert.ok(slots.includes(where.fingerprint));
  }
  assert.equal(kicks, f.stats().totalKicks);
  assert.ok(kicks > 0, "120 keys in 128 slots make kicks");
  assert.throws(() => f.readBucket(32), { code: "CF_E_PARAM" });
  assert.throws(() => f.readBucket(-1), RangeError);
});

test("dispose frees now; later calls throw; Symbol.dispose is dispose", async () => {
  const f = await CuckooFilter.create({ capacity: 10 });
  f.add("a");
  assert.equal(f.disposed, false);
  f[Symbol.dispose]();
  assert.equal(f.disposed, true);
  assert.throws(() => f.has("a"), { code: "ERR_DISPOSED" });
  assert.throws(() => f.size, { code: "ERR_DISPOSED" });
  f.dispose(); // twice is fine
  assert.throws(() => new CuckooFilter(), TypeError);
});

test("filters never disposed are freed when collected (FinalizationRegistry)", () => {
  const script = fileURLToPath(new URL("./gc_check.mjs", import.meta.url));
  const r = spawnSync(process.execPath, ["--expose-gc", script, packageDir()], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test("V8: methods optimized for string and byte keys still refuse other keys (Node 20 crashed)", () => {
  const script = fileURLToPath(new URL("./v8_inline_check.mjs", import.meta.url));
  const r = spawnSync(process.execPath, [script, packageDir()], { encoding: "utf8" });
  assert.equal(r.signal, null, `killed by ${r.signal}`);
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

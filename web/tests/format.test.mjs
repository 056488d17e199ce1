// SPDX-License-Identifier: Apache-2.0 OR MIT
// The package and the `cuckoo` command read each other's files: a file
// `cuckoo build` wrote opens with fromBytes and answers every key as
// `cuckoo query` does; toBytes writes what `cuckoo` opens, verifies and
// answers from; the same keys give the same bytes.  And bytes that are not a
// filter throw a CuckooFilterError, whatever is wrong with them, never
// anything worse.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";

import { loadPackage, need } from "./env.mjs";

const { CuckooFilter, CuckooFilterError } = await loadPackage();
const cuckoo = need("CF_CUCKOO");
const dir = mkdtempSync(join(tmpdir(), "cf-web-format-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// Keys with UTF-8 beyond ASCII, one per line as `cuckoo` reads them.
const members = Array.from({ length: 3000 }, (_, i) => (i % 3 ? `user:${i}` : `usuário-${i}-ñ`));
const strangers = Array.from({ length: 20000 }, (_, i) => `visitor:${i}`);
const keyFile = (name, list) => {
  const p = join(dir, name);
  writeFileSync(p, list.join("\n") + "\n");
  return p;
};
const membersFile = keyFile("members.txt", members);
const probe = [...members, ...strangers];
const probeFile = keyFile("probe.txt", probe);

function run(...args) {
  return execFileSync(cuckoo, args, { encoding: "utf8", maxBuffer: 1 << 26 });
}

// `cuckoo query --json` on every probe key: what the CLI answers.
function cliAnswers(file) {
  const r = spawnSync(cuckoo, ["query", file, "--json", "--keys", probeFile], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  return r.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line).found);
}

const shapes = [
  ["plain", ["--capacity", "4000", "--fpp", "0.01", "--seed", "7"], { capacity: 4000, fpp: 0.01, seed: 7 }],
  ["semi-sorted", ["--capacity", "4000", "--fpp", "0.01", "--semi-sort"], { capacity: 4000, fpp: 0.01, semiSort: true }],
  ["exact", ["--buckets", "2001", "--fingerprint-bits", "9", "--bucket-size", "2", "--seed", "99"],
    { buckets: 2001, fingerprintBits: 9, bucketSize: 2, seed: 99 }],
];

for (const [name, args, options] of shapes) {
  test(`${name}: a file of cuckoo build opens with fromBytes and answers as cuckoo query`, async () => {
    const file = join(dir, `${name}.cf`);
    run("build", file, ...args, "--keys", membersFile);
    const bytes = readFileSync(file);
    const f = await CuckooFilter.fromBytes(bytes);
    assert.equal(f.size, members.length);
    const cli = cliAnswers(file);
    assert.ok(cli.slice(0, members.length).every(Boolean));
    assert.ok(cli.slice(members.length).some((x) => !x), "some stranger is absent");
    assert.deepEqual(f.hasMany(probe), cli);
    assert.deepEqual(probe.slice(0, 500).map((k) => f.has(k)), cli.slice(0, 500));
    // The same keys added here make the same bytes.
    const g = await CuckooFilter.create(options);
    g.addMany(members);
    assert.deepEqual(Buffer.from(g.toBytes()), bytes);
  });

  test(`${name}: toBytes writes a file cuckoo verifies and answers from`, async () => {
    const f = await CuckooFilter.create(options);
    f.addMany(members);
    f.delete(members[0]);
    const file = join(dir, `${name}-js.cf`);
    writeFileSync(file, f.toBytes());
    const info = JSON.parse(run("info", file, "--json"));
    assert.equal(info.items, members.length - 1);
    assert.deepEqual(cliAnswers(file), f.hasMany(probe));
    // ... and changes it as the package would.
    run("add", file, "late-key");
    f.add("late-key");
    assert.deepEqual(Buffer.from(f.toBytes()), readFileSync(file));
  });
}

test("a grown filter's file (cuckoo build --grow) opens and answers", async () => {
  const file = join(dir, "grown.cf");
  run("build", file, "--capacity", "300", "--grow", "--keys", membersFile);
  const f = await CuckooFilter.fromBytes(readFileSync(file));
  assert.ok(f.stats().tables > 1);
  assert.deepEqual(f.hasMany(probe), cliAnswers(file));
  assert.throws(() => f.locate("x"), { code: "CF_E_PARAM" }); // inspection: single tables
});

test("the package's refusal is the sentence cuckoo prints, in its own option names", async () => {
  const r = spawnSync(cuckoo, ["create", join(dir, "no.cf"), "--capacity", "1000", "--fpp", "1e-20"], {
    encoding: "utf8",
  });
  assert.notEqual(r.status, 0);
  const err = await CuckooFilter.create({ capacity: 1000, fpp: 1e-20 }).catch((e) => e);
  const cli = { "fpp: ": "--fpp ", "bucketSize: ": "--bucket-size " };
  let ours = err.message.replace(/ \(CF_E_PARAM\)$/, "");
  for (const [js, flag] of Object.entries(cli)) ours = ours.replaceAll(js, flag);
  assert.ok(r.stderr.includes(ours), `cuckoo said: ${r.stderr}\nthe package: ${err.message}`);
});

test("corrupt bytes throw a CuckooFilterError, and the module works on", async () => {
  const f = await CuckooFilter.create({ buckets: 16, fingerprintBits: 12, seed: 1 });
  f.addMany(members.slice(0, 40));
  const good = f.toBytes();
  const codes = new Map();
  const tryBytes = async (bytes) => {
    try {
      (await CuckooFilter.fromBytes(bytes)).dispose();
      return "ok";
    } catch (e) {
      assert.ok(e instanceof CuckooFilterError, `not a CuckooFilterError: ${e}`);
      assert.match(e.code, /^CF_E_/);
      codes.set(e.code, (codes.get(e.code) ?? 0) + 1);
      return e.code;
    }
  };
  // Every prefix, every byte flipped in each bit, and trailing bytes.
  for (let n = 0; n < good.length; n++) assert.notEqual(await tryBytes(good.subarray(0, n)), "ok");
  for (let i = 0; i < good.length; i++)
    for (let bit = 0; bit < 8; bit++) {
      const bad = good.slice();
      bad[i] ^= 1 << bit;
      assert.notEqual(await tryBytes(bad), "ok", `byte ${i} bit ${bit} went unnoticed`);
    }
  const longer = new Uint8Array(good.length + 1);
  longer.set(good);
  assert.notEqual(await tryBytes(longer), "ok");
  // Random bytes, and random bytes behind a valid header.
  let x = 12345;
  const rnd = () => (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  for (let t = 0; t < 200; t++) {
    const junk = Uint8Array.from({ length: 1 + (rnd() << 4) }, rnd);
    if (t % 2) junk.set(good.subarray(0, Math.min(junk.length, 64)));
    assert.notEqual(await tryBytes(junk), "ok");
  }
  for (const code of ["CF_E_TRUNCATED", "CF_E_MAGIC", "CF_E_CHECKSUM"]) assert.ok(codes.has(code), code);
  const g = await CuckooFilter.create({ capacity: 1000 });
  g.add("still here");
  assert.ok(g.has("still here"));
  assert.equal(await tryBytes(good), "ok");
});

// The golden files of the C tests (tests/data, tests/test_golden.c): every
// good one opens, answers its keys' lookups as written, and writes itself
// back byte for byte; every bad one fails with the status its MANIFEST gives.
const data = fileURLToPath(new URL("../../tests/data/", import.meta.url));

test("every golden file opens and writes itself back", async () => {
  for (const sub of ["good", "inplace/good"]) {
    const names = readdirSync(join(data, sub)).filter((n) => n.endsWith(".cf"));
    assert.ok(names.length > 0);
    for (const name of names) {
      const bytes = readFileSync(join(data, sub, name));
      const f = await CuckooFilter.fromBytes(bytes);
      assert.deepEqual(Buffer.from(f.toBytes()), bytes, name);
      f.dispose();
    }
  }
});

// A version-1 header whose table (docs/FORMAT.md: ceil(nb * b * f / 8)
// bytes) does not fit in 32-bit memory: the module, a 32-bit machine,
// cannot address it (CF_E_TOO_LARGE) before it could see the file is short.
function beyond32Bits(bytes) {
  if (bytes.length < 24 || bytes.readUInt16LE(8) !== 1) return false;
  const bits = bytes.readBigUInt64LE(16) * BigInt(bytes[11]) * BigInt(bytes[10]);
  return (bits + 7n) / 8n >= 1n << 32n;
}

test("every bad golden file fails with its status", async () => {
  for (const sub of ["bad", "inplace/bad"]) {
    const manifest = readFileSync(join(data, sub, "MANIFEST"), "utf8");
    let n = 0;
    for (const line of manifest.split("\n")) {
      const m = /^(\S+)\s+(CF_E_\w+)/.exec(line);
      if (!m) continue;
      n++;
      const bytes = readFileSync(join(data, sub, m[1]));
      const err = await CuckooFilter.fromBytes(bytes).catch((e) => e);
      assert.ok(err instanceof CuckooFilterError, `${m[1]}: ${err}`);
      assert.equal(err.code, beyond32Bits(bytes) ? "CF_E_TOO_LARGE" : m[2], m[1]);
    }
    assert.ok(n > 10, `${sub}/MANIFEST lists ${n} files`);
  }
});

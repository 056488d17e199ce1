// SPDX-License-Identifier: Apache-2.0 OR MIT
// The package as npm ships it: `npm pack` makes a tarball with what the
// package needs and nothing else; `npm install ./cuckoofilter-*.tgz` in a
// new project installs it (no registry: it has no dependencies); a program
// there imports it by name and uses it; and its types check with tsc, where
// a wrong call fails to compile.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";

import { depRequire, packageDir } from "./env.mjs";

const dir = mkdtempSync(join(tmpdir(), "cf-web-npm-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const npm = (args, cwd) => execFileSync("npm", args, { cwd, encoding: "utf8" });

let tarball;
test("npm pack: the tarball holds the module, its loader, its types, and no more", () => {
  const out = JSON.parse(npm(["pack", "--json", "--pack-destination", dir], packageDir()));
  tarball = join(dir, out[0].filename);
  assert.match(out[0].filename, /^cuckoofilter-\d+\.\d+\.\d+\.tgz$/);
  const files = out[0].files.map((f) => f.path).sort();
  assert.deepEqual(files, [
    "README.md",
    "cuckoofilter.wasm",
    "explain.wasm",
    "index.d.ts",
    "index.js",
    "package.json",
  ]);
});

test("npm install of the tarball in a new project; the package imports and works", () => {
  const app = join(dir, "app");
  execFileSync("mkdir", ["-p", app]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  npm(["install", "--offline", "--no-audit", "--no-fund", tarball], app);
  assert.ok(readdirSync(join(app, "node_modules", "cuckoofilter")).includes("cuckoofilter.wasm"));
  writeFileSync(
    join(app, "main.mjs"),
    `import CuckooFilter, { CuckooFilterError } from "cuckoofilter";
const f = await CuckooFilter.create({ capacity: 1000, fpp: 0.01 });
f.addMany(["a", "b", "c"]);
const g = await CuckooFilter.fromBytes(f.toBytes());
const refused = await CuckooFilter.create({ capacity: 10, fpp: 2 }).catch((e) => e);
console.log(JSON.stringify({ has: g.hasMany(["a", "z"]), size: g.size,
  error: refused instanceof CuckooFilterError, message: refused.message }));`,
  );
  const r = spawnSync(process.execPath, ["main.mjs"], { cwd: app, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const got = JSON.parse(r.stdout);
  assert.deepEqual(got.has, [true, false]);
  assert.equal(got.size, 3);
  assert.equal(got.error, true);
  assert.match(got.message, /^fpp: 2 /); // the library's sentence, from the installed explain.wasm
});

test("every example of the package's README runs, installed", () => {
  const app = join(dir, "app");
  const readme = readFileSync(join(app, "node_modules", "cuckoofilter", "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 3);
  blocks.forEach((code, i) => {
    writeFileSync(join(app, `readme_${i}.mjs`), code);
    const r = spawnSync(process.execPath, [`readme_${i}.mjs`], { cwd: app, encoding: "utf8" });
    assert.equal(r.status, 0, `README example ${i + 1}:\n${code}\n${r.stderr}`);
  });
});

test("the types check with tsc, and a wrong call does not compile", () => {
  const app = join(dir, "app");
  const tsc = join(dirname(depRequire().resolve("typescript/package.json")), "bin", "tsc");
  writeFileSync(
    join(app, "good.ts"),
    `import { CuckooFilter, CuckooFilterError, type Stats, type Move } from "cuckoofilter";
const f: CuckooFilter = await CuckooFilter.create({ capacity: 1000, fpp: 0.01, seed: 1n });
const g = await CuckooFilter.create({ buckets: 64, fingerprintBits: 12, bucketSize: 4 });
f.add("a");
f.add(new Uint8Array([1, 2]));
const n: number = f.addMany(new Set(["x", "y"]));
const answers: boolean[] = f.hasMany(["a", "b"]);
const st: Stats = f.stats();
const seed: bigint = st.seed;
const moves: Move[] = g.addTraced("k");
const first = moves[0].from?.bucket;
const bytes: Uint8Array = f.toBytes();
try { await CuckooFilter.fromBytes(bytes); } catch (e) { if (e instanceof CuckooFilterError) e.code.startsWith("CF_E_"); }
f[Symbol.dispose]();
console.log(n, answers, seed, first, g.locate("k").bucket2, g.readBucket(0).length);
`,
  );
  writeFileSync(
    join(app, "bad.ts"),
    `import { CuckooFilter } from "cuckoofilter";
const f = await CuckooFilter.create({ capacity: 10 });
f.add(5);
`,
  );
  const opts = ["--noEmit", "--strict", "--target", "es2022", "--module", "nodenext",
    "--moduleResolution", "nodenext", "--lib", "es2022,dom,esnext.disposable"];
  // One run over both files: the only errors are bad.ts's.
  const r = spawnSync(process.execPath, [tsc, ...opts, "good.ts", "bad.ts"], { cwd: app, encoding: "utf8" });
  const errors = r.stdout.split("\n").filter((line) => /error TS/.test(line));
  assert.equal(errors.length, 1, r.stdout + r.stderr);
  assert.match(errors[0], /^bad\.ts\(3,7\): error TS2345: Argument of type 'number'/);
});

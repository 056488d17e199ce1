// SPDX-License-Identifier: Apache-2.0 OR MIT
// The package's bulk calls against the same C natively, and against
// bloom-filters' CuckooFilter (the pure-JavaScript one most used on npm),
// on the same string keys ("key:0", "key:1", ...; absent: "miss:0", ...),
// in CPU time (the machines here are shared: time spent waiting for a core
// is not counted; Node's includes its helper threads, garbage collection).
//   node web/bench/bench.mjs PACKAGE_DIR NATIVE_BENCH BENCH_DEPS [N] [ROUNDS]
// (web/bench/bench.sh builds and installs what it takes.)  Prints ns per key,
// the best of ROUNDS rounds (the machines here are shared: the best round
// is the one least disturbed), and the ratios.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const [pkgDir, native, depsDir] = process.argv.slice(2, 5).map((p) => resolve(p));
const N = Number(process.argv[5] ?? 1 << 20);
const ROUNDS = Number(process.argv[6] ?? 5);
const { CuckooFilter } = await import(pathToFileURL(join(pkgDir, "index.js")).href);

const keys = Array.from({ length: N }, (_, i) => `key:${i}`);
const miss = Array.from({ length: N }, (_, i) => `miss:${i}`);
const best = (rows, k) => Math.min(...rows.map((r) => r[k]));
// Milliseconds of CPU this process used (user + system).
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const ns = (ms, n) => (ms * 1e6) / n;

// The package.
const ours = [];
for (let r = 0; r < ROUNDS; r++) {
  const f = await CuckooFilter.create({ capacity: N, fpp: 0.001 });
  let t = cpu();
  f.addMany(keys);
  const add = ns(cpu() - t, N);
  t = cpu();
  const a = f.hasMany(keys);
  const hit = ns(cpu() - t, N);
  t = cpu();
  const b = f.hasMany(miss);
  const absent = ns(cpu() - t, N);
  const found = a.filter(Boolean).length, fp = b.filter(Boolean).length;
  if (found !== N) throw new Error(`the package lost keys: ${found} of ${N}`);
  ours.push({ add, hit, absent, fpp: fp / N });
  f.dispose();
}

// The C part alone: the same module instantiated bare, the keys packed
// beforehand, only the calls timed (what the package adds is the rest).
async function cPart() {
  let inst;
  const imports = {
    env: { emscripten_notify_memory_growth() {} },
    wasi_snapshot_preview1: {
      environ_sizes_get(a, b) {
        const dv = new DataView(inst.exports.memory.buffer);
        dv.setUint32(a, 0, true);
        dv.setUint32(b, 0, true);
        return 0;
      },
      environ_get: () => 0,
    },
  };
  inst = (await WebAssembly.instantiate(readFileSync(join(pkgDir, "cuckoofilter.wasm")), imports)).instance;
  const x = inst.exports;
  x._initialize();
  const pack = (list) => {
    const total = list.reduce((n, k) => n + k.length, 0);
    const bytes = x.malloc(total), ends = x.malloc(4 * list.length);
    new TextEncoder().encodeInto(list.join(""), new Uint8Array(x.memory.buffer, bytes, total));
    const e = new Uint32Array(x.memory.buffer, ends, list.length);
    let end = 0;
    list.forEach((k, i) => (e[i] = end += k.length));
    return [bytes, ends];
  };
  const [hb, he] = pack(keys), [mb, me] = pack(miss);
  const found = x.malloc(N), out = x.malloc(8), done = x.malloc(8);
  const rows = [];
  for (let r = 0; r < ROUNDS; r++) {
    x.cfjs_new(N, 0.001, 0, 0, 0, 0, NaN, 0, 0, 0, out);
    const f = new Uint32Array(x.memory.buffer, out, 1)[0];
    let t = cpu();
    x.cfjs_insert_many(f, hb, he, N, done);
    const add = ns(cpu() - t, N);
    t = cpu();
    x.cfjs_contains_many(f, hb, he, N, found);
    const hit = ns(cpu() - t, N);
    t = cpu();
    x.cfjs_contains_many(f, mb, me, N, found);
    rows.push({ add, hit, absent: ns(cpu() - t, N) });
    x.cf_free(f);
  }
  return rows;
}
const bare = await cPart();

// The same C, natively (web/bench/native_bench.c).
const out = execFileSync(native, [String(N), String(ROUNDS)], { encoding: "utf8" });
const nat = out.trim().split("\n").map((line) => {
  const m = /addMany ([\d.]+) .*hasMany\(hit\) ([\d.]+), hasMany\(miss\) ([\d.]+)/.exec(line);
  return { add: +m[1], hit: +m[2], absent: +m[3] };
});

// bloom-filters 3.0.4, key by key (it has no bulk call): on fewer keys, as
// it takes tens of microseconds a key.
const BF_N = Math.min(N, 1 << 16);
const { CuckooFilter: BF } = createRequire(join(depsDir, "package.json"))("bloom-filters");
const bf = BF.create(BF_N, 0.001);
let t = cpu();
let accepted = 0;
for (let i = 0; i < BF_N; i++) accepted += bf.add(keys[i]) ? 1 : 0;
const bfAdd = ns(cpu() - t, BF_N);
t = cpu();
let bfFound = 0;
for (let i = 0; i < BF_N; i++) bfFound += bf.has(keys[i]) ? 1 : 0;
const bfHit = ns(cpu() - t, BF_N);
t = cpu();
let bfFp = 0;
for (let i = 0; i < BF_N; i++) bfFp += bf.has(miss[i]) ? 1 : 0;
const bfAbsent = ns(cpu() - t, BF_N);

const wasm = readFileSync(join(pkgDir, "cuckoofilter.wasm"));
const row = (name, a, b, c) => console.log(`${name.padEnd(34)} ${a.padStart(12)} ${b.padStart(12)} ${c.padStart(12)}`);
const f1 = (x) => x.toFixed(1);
console.log(`${N} keys, capacity ${N}, fpp 0.001; best of ${ROUNDS} rounds; ns per key`);
row("", "addMany", "hasMany hit", "hasMany miss");
const o = { add: best(ours, "add"), hit: best(ours, "hit"), absent: best(ours, "absent") };
const n = { add: best(nat, "add"), hit: best(nat, "hit"), absent: best(nat, "absent") };
row("native C (cfjs.c, gcc -O2)", f1(n.add), f1(n.hit), f1(n.absent));
row("package in Node (WebAssembly)", f1(o.add), f1(o.hit), f1(o.absent));
row("  package / native", f1(o.add / n.add) + "x", f1(o.hit / n.hit) + "x", f1(o.absent / n.absent) + "x");
const c = { add: best(bare, "add"), hit: best(bare, "hit"), absent: best(bare, "absent") };
row("  its C part (keys packed before)", f1(c.add), f1(c.hit), f1(c.absent));
row("  C part / native", f1(c.add / n.add) + "x", f1(c.hit / n.hit) + "x", f1(c.absent / n.absent) + "x");
row(`bloom-filters 3.0.4 (${BF_N} keys)`, f1(bfAdd), f1(bfHit), f1(bfAbsent));
row("  bloom-filters / package", f1(bfAdd / o.add) + "x", f1(bfHit / o.hit) + "x", f1(bfAbsent / o.absent) + "x");
console.log(`package: measured fpp ${(100 * ours[0].fpp).toFixed(4)}%, no key lost`);
console.log(`bloom-filters: fingerprint ${bf._fingerprintLength} bytes; found ${bfFound} of ${accepted} keys it accepted; measured fpp ${((100 * bfFp) / BF_N).toFixed(3)}%`);
console.log(`cuckoofilter.wasm: ${wasm.length} bytes (${gzipSync(wasm, { level: 9 }).length} gzipped)`);

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
  const found = f.hasMany(keys).filter(Boolean).length;
  const hit = ns(cpu() - t, N);
  t = cpu();
  const fp = f.hasMany(miss).filter(Boolean).length;
  const absent = ns(cpu() - t, N);
  if (found !== N) throw new Error(`the package lost keys: ${found} of ${N}`);
  ours.push({ add, hit, absent, fpp: fp / N });
  f.dispose();
}

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
row(`bloom-filters 3.0.4 (${BF_N} keys)`, f1(bfAdd), f1(bfHit), f1(bfAbsent));
row("  bloom-filters / package", f1(bfAdd / o.add) + "x", f1(bfHit / o.hit) + "x", f1(bfAbsent / o.absent) + "x");
console.log(`package: measured fpp ${(100 * ours[0].fpp).toFixed(4)}%, no key lost`);
console.log(`bloom-filters: fingerprint ${bf._fingerprintLength} bytes; found ${bfFound} of ${accepted} keys it accepted; measured fpp ${((100 * bfFp) / BF_N).toFixed(3)}%`);
console.log(`cuckoofilter.wasm: ${wasm.length} bytes (${gzipSync(wasm, { level: 9 }).length} gzipped)`);

// SPDX-License-Identifier: Apache-2.0 OR MIT
// Run by api.test.mjs: a filter used with string and Uint8Array keys until
// V8 optimizes its methods, then given keys of other types, must throw
// TypeError.  With V8 11 (Node 20) inlining the call into WebAssembly into
// CuckooFilter.add, this crashed Node with SIGSEGV every time (the package
// now calls the module through one megamorphic site; index.js, via()).
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const { CuckooFilter } = await import(pathToFileURL(join(process.argv[2], "index.js")).href);
const utf8 = new TextEncoder();
let refused = 0,
  tries = 0;
for (let round = 0; round < 30; round++) {
  const f = await CuckooFilter.create({ capacity: 1 << 16 });
  for (let i = 0; i < 3000; i++) {
    f.add(`k${round}:${i}`);
    f.has(utf8.encode(`b${i}`));
    f.add(utf8.encode(`u${i}`));
  }
  await new Promise((r) => setTimeout(r, 1)); // time for the optimizing compiler
  for (const bad of [5, null, undefined, {}, 1.5])
    for (const op of ["add", "has", "delete", "count", "locate"]) {
      tries++;
      try {
        f[op](bad);
      } catch (e) {
        if (e instanceof TypeError) refused++;
      }
    }
  f.dispose();
}
console.log(`${refused} of ${tries} bad keys refused with TypeError`);
process.exit(refused === tries ? 0 : 1);

// SPDX-License-Identifier: Apache-2.0 OR MIT
// Run by api.test.mjs with --expose-gc: filters dropped without dispose()
// are freed by the package's FinalizationRegistry, so the module's memory
// (Node counts it in process.memoryUsage().external) stays near one
// filter's size.  Kept alive instead, the 24 filters of 32 MiB below take
// 770 MiB (argument "keep": the check then fails, as it should).
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const { CuckooFilter } = await import(pathToFileURL(join(process.argv[2], "index.js")).href);
const keep = [];
const tick = () => new Promise((r) => setTimeout(r, 0));
for (let i = 0; i < 24; i++) {
  // 2^23 buckets of 4 x 8 bits: 32 MiB of table.
  let f = await CuckooFilter.create({ buckets: 1 << 23, fingerprintBits: 8 });
  f.add("touch");
  if (process.argv[3] === "keep") keep.push(f);
  f = null;
  globalThis.gc();
  await tick();
}
const mib = process.memoryUsage().external / 2 ** 20;
if (mib > 8 * 32) {
  console.log(`the module holds ${mib.toFixed(0)} MiB after 24 filters of 32 MiB were dropped`);
  process.exit(1);
}
console.log(`ok: ${mib.toFixed(0)} MiB`);

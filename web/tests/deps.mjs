// SPDX-License-Identifier: Apache-2.0 OR MIT
// Installs web/tests/package.json's packages (puppeteer-core, typescript),
// exactly as web/tests/package-lock.json pins them, into DIR/node_modules:
//   node web/tests/deps.mjs DIR [FROM]
// (FROM: another folder's package.json and lock, e.g. web/bench.)
// `npm ci` runs only when the lock file changed since the last install
// (a stamp in DIR), so only the first run needs the npm registry.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = process.argv[2];
if (!dir) throw new Error("usage: node web/tests/deps.mjs DIR");
const here = process.argv[3] ?? fileURLToPath(new URL(".", import.meta.url));
const lock = readFileSync(join(here, "package-lock.json"));
const stamp = join(dir, "node_modules", ".cuckoofilter-lock");
if (existsSync(stamp) && readFileSync(stamp).equals(lock)) process.exit(0);
mkdirSync(dir, { recursive: true });
for (const name of ["package.json", "package-lock.json"]) copyFileSync(join(here, name), join(dir, name));
execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, stdio: "inherit" });
writeFileSync(stamp, lock);

// SPDX-License-Identifier: Apache-2.0 OR MIT
// What the tests of web/ are given (web/CMakeLists.txt sets it for ctest):
//   CF_WEB_BUILD  the output of web/build.sh: package/ and playground/
//   CF_CUCKOO     the `cuckoo` command, for the file-format cross-checks
//   CF_WEB_DEPS   a directory with the node_modules of web/tests/package.json
// A test that needs one and does not have it fails, saying which.
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (ctest sets it: see web/CMakeLists.txt)`);
  return v;
}

export const buildDir = () => need("CF_WEB_BUILD");
export const packageDir = () => join(buildDir(), "package");

/** The built package, imported as a user would (its index.js). */
export async function loadPackage() {
  return import(pathToFileURL(join(packageDir(), "index.js")).href);
}

/** A require() for the npm packages of web/tests/package.json (puppeteer-core, typescript). */
export function depRequire() {
  return createRequire(join(resolve(need("CF_WEB_DEPS")), "package.json"));
}

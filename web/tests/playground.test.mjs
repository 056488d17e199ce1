// SPDX-License-Identifier: Apache-2.0 OR MIT
// The playground in a real browser (Debian's chromium, headless, driven by
// puppeteer-core), served over http by web/serve.mjs.  Every state the page
// draws is checked against the library's own answers: the same operations
// replayed here with the package, the file `cuckoo build` writes for the same
// keys, and `cuckoo report --json` for the experiment.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { promisify } from "node:util";

import { buildDir, depRequire, loadPackage, need } from "./env.mjs";
import { decodePng, inkStats } from "./png.mjs";

const { CuckooFilter } = await loadPackage();
const playground = join(buildDir(), "playground");
const { dict } = await import(pathToFileURL(join(playground, "i18n.js")).href);
const { articleFill } = await import(pathToFileURL(join(playground, "article.js")).href);
const cuckoo = need("CF_CUCKOO");
const run = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), "cf-web-page-"));
const shots = join(buildDir(), "screenshots");

// `cuckoo report --json` runs natively while the page works (4 s or so).
const cliReport = run(cuckoo, ["report", "--json"], { maxBuffer: 1 << 24 }).then((r) => JSON.parse(r.stdout));

let server, browser, page;
const problems = []; // console errors, page errors, failed requests

before(async () => {
  server = spawn(process.execPath, [fileURLToPath(new URL("../serve.mjs", import.meta.url)), playground, "0"]);
  const url = await new Promise((resolve, reject) => {
    server.stdout.once("data", (d) => resolve(String(d).trim()));
    server.once("exit", (c) => reject(new Error(`serve.mjs exited with ${c}`)));
  });
  const puppeteer = depRequire()("puppeteer-core");
  browser = await puppeteer.launch({
    executablePath: need("CF_CHROMIUM"),
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 1000 });
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
  page.on("response", (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("body[data-ready=true]", { timeout: 30000 });
});

after(async () => {
  await browser?.close();
  server?.kill();
  rmSync(tmp, { recursive: true, force: true });
});

const slots = () => page.$$eval("#table .slot", (s) => s.map((x) => Number(x.dataset.fp)));
const text = (sel) => page.$eval(sel, (e) => e.textContent);
const data = (sel, name) => page.$eval(sel, (e, n) => e.dataset[n], name);

async function typeKey(key) {
  await page.$eval("#key", (e) => (e.value = ""));
  await page.type("#key", key);
}

async function shape() {
  return page.evaluate(() => ({
    buckets: Number(document.getElementById("nb").value),
    bucketSize: Number(document.getElementById("b").value),
    fingerprintBits: Number(document.getElementById("f").value),
    seed: Number(document.getElementById("seed").value),
  }));
}

const keys = Array.from({ length: 40 }, (_, i) => (i % 4 ? `khóa-${i}` : `key ${i}`));
let replay; // the package, fed what the page was fed

test("the page loads with no console error", async () => {
  assert.deepEqual(problems, []);
  assert.equal(await page.$eval("html", (e) => e.lang), "vi");
  assert.equal((await slots()).filter(Boolean).length, 0);
});

test("inserting 40 keys shows 40 filled slots, the library's table", async () => {
  for (const k of keys) {
    await typeKey(k);
    await page.click("#insert");
  }
  const drawn = await slots();
  assert.equal(drawn.filter(Boolean).length, 40);
  const sh = await shape();
  replay = await CuckooFilter.create(sh);
  for (const k of keys) replay.add(k);
  assert.deepEqual(drawn, Array.from(replay.readTable()));
  assert.equal(Number(await data("#items", "value")), replay.size);
  // The native library, through the cuckoo command, builds the same table.
  const keyFile = join(tmp, "keys.txt");
  writeFileSync(keyFile, keys.join("\n") + "\n");
  const file = join(tmp, "page.cf");
  await run(cuckoo, ["build", file, "--buckets", sh.buckets, "--bucket-size", sh.bucketSize,
    "--fingerprint-bits", sh.fingerprintBits, "--seed", sh.seed, "--keys", keyFile].map(String));
  const native = await CuckooFilter.fromBytes(readFileSync(file));
  assert.deepEqual(drawn, Array.from(native.readTable()));
});

test("a lookup outlines the key's two buckets and answers as the library", async () => {
  for (const k of [keys[7], "not a key"]) {
    await typeKey(k);
    await page.click("#lookup");
    const where = replay.locate(k);
    const outlined = await page.$$eval("#table .bucket.cand", (b) => b.map((x) => Number(x.dataset.bucket)));
    assert.deepEqual(outlined.sort((a, b) => a - b), [...new Set([where.bucket1, where.bucket2])].sort((a, b) => a - b));
    assert.equal(outlined.length, where.bucket1 === where.bucket2 ? 1 : 2);
    assert.equal(Number(await data("#fp", "value")), where.fingerprint);
    assert.equal(Number(await data("#b1", "value")), where.bucket1);
    assert.equal(Number(await data("#b2", "value")), where.bucket2);
    assert.equal(await data("#answer", "answer"), replay.has(k) ? "yes" : "no");
  }
});

test("an insert that kicks lists and draws each move the library made", async () => {
  // The first key (in this order) whose insert kicks, found on a copy.
  let key, moves;
  for (let i = 0; ; i++) {
    const copy = await CuckooFilter.fromBytes(replay.toBytes());
    moves = copy.addTraced(`kick ${i}`);
    copy.dispose();
    if (moves.length > 1) {
      key = `kick ${i}`;
      break;
    }
    replay.add(`kick ${i}`);
    await typeKey(`kick ${i}`);
    await page.click("#insert");
  }
  await typeKey(key);
  await page.click("#insert");
  assert.deepEqual(moves, replay.addTraced(key));
  assert.equal(await page.$$eval("#moves li", (l) => l.length), moves.length);
  assert.equal(await page.$$eval("#arrows > path", (p) => p.length), moves.length - 1);
  assert.deepEqual(await slots(), Array.from(replay.readTable()));
  const placed = moves.at(-1).to;
  assert.equal(await page.$eval(`#table .bucket[data-bucket="${placed.bucket}"] .slot[data-slot="${placed.slot}"]`,
    (s) => s.classList.contains("placed")), true);
});

test("a delete removes one copy, as the library does", async () => {
  await typeKey(keys[3]);
  await page.click("#delete");
  assert.equal(replay.delete(keys[3]), true);
  assert.deepEqual(await slots(), Array.from(replay.readTable()));
  assert.equal(await data("#answer", "answer"), "yes");
});

test("the language switch changes every label", async () => {
  const before = await page.$$eval("[data-i18n]", (els) => els.map((e) => [e.dataset.i18n, e.textContent]));
  await page.click("#lang");
  assert.equal(await page.$eval("html", (e) => e.lang), "en");
  const after = await page.$$eval("[data-i18n]", (els) => els.map((e) => [e.dataset.i18n, e.textContent]));
  for (const [i, [key, shown]] of after.entries()) {
    assert.equal(shown, dict.en[key], key);
    assert.equal(before[i][1], dict.vi[key], key);
  }
  assert.ok(after.filter(([, s], i) => s !== before[i][1]).length > 20);
  assert.match(await text("#answer"), /^Deleted one copy of /);
  // Answers given before the switch are reworded too (the log's kick counts).
  const log = await text("#log");
  assert.match(log, / after \d+ kicks/);
  assert.doesNotMatch(log, /lần đá|Đã chèn/);
});

test("the experiment shows the article's run, as cuckoo report measures it", async () => {
  await page.click("#tab-experiment");
  await page.waitForSelector("#exp-status[data-state=done]", { timeout: 180000 });
  const ours = JSON.parse(await data("#exp-table", "json"));
  const cli = await cliReport;
  // Bit for bit what the native library measures, but the bytes the handle
  // takes (pointers are 4 bytes in WebAssembly).
  delete ours.fill.memory_bytes;
  delete cli.fill.memory_bytes;
  assert.deepEqual(ours, cli);
  assert.equal(await page.$eval('tr[data-row="items"] td:nth-child(2)', (e) => e.textContent), "249,036");
  assert.equal(Number(await page.$eval('tr[data-row="items"] td:nth-child(2)', (e) => e.dataset.value)), cli.fill.items);
  // The FPP measured is within the article's: its 95% interval holds the
  // article's figure (read from the page's article column) and it is under
  // the bound the page shows.
  const theirs = await page.$eval('tr[data-row="fpp"] td.article', (e) => e.textContent);
  const articleFpp = Number(/^([\d.]+)%/.exec(theirs)[1]) / 100;
  const [lo, hi] = (await page.$eval('tr[data-row="ci"] td:nth-child(2)', (e) => e.dataset.value)).split(" ").map(Number);
  assert.ok(lo <= articleFpp && articleFpp <= hi, `${articleFpp} outside [${lo}, ${hi}]`);
  assert.ok(ours.fpp.fpp <= ours.fpp.bound);
  // The charts: every row of the sweep, and the report's own text.
  const points = await page.$$eval("#chart-fpp g[data-series]", (g) => g.map((x) => Number(x.dataset.points)));
  assert.equal(points[0], cli.compare.filter((r) => r.cuckoo_fpp > 0).length);
  assert.equal(await page.$$eval("#chart-maxload rect", (r) => r.length), cli.max_load.length);
  assert.match(await text("#report-text"), /^cuckoo report: the article's experiment/);
  const ms = await data("#exp-status", "ms"), experimentMs = await data("#exp-status", "experimentMs");
  console.log(`# experiment figures in ${experimentMs} ms, with the Bloom comparison in ${ms} ms (headless chromium)`);
});

test("the sliders rerun the experiment and redraw its charts", async () => {
  const bars = () => page.$$eval("#chart-maxload rect", (r) => r.map((x) => Number(x.dataset.value)));
  const at12 = await bars();
  await page.$eval("#s-f", (e) => {
    e.value = "8";
    e.dispatchEvent(new Event("input"));
  });
  // Up to the maximum loads (the Bloom comparison goes on in its worker).
  await page.waitForFunction(() => {
    const t = document.getElementById("exp-table");
    return t.dataset.phase === "buckets" && JSON.parse(t.dataset.json).params.fingerprint_bits === 8;
  }, { timeout: 180000 });
  const json = JSON.parse(await data("#exp-table", "json"));
  assert.deepEqual(await bars(), json.max_load.map((r) => r.max_load));
  const kicks = await page.$eval('#chart-kicks g[data-series]', (g) => Number(g.dataset.points));
  assert.equal(kicks, json.kicks_by_load.filter((r) => r.inserts > 0).length);
  assert.notDeepEqual(await bars(), at12);
  assert.equal(await page.$eval("#s-f-v", (e) => e.textContent), "8");
});

test("a failed insert loses nothing here, and one key in the article's code", async () => {
  await page.click("#tab-full");
  await page.click("#fill");
  await page.waitForFunction(() => document.getElementById("article-result").dataset.lost !== undefined);
  const FULL = { buckets: 8, bucketSize: 4, fingerprintBits: 8, seed: 7 };
  const list = Array.from({ length: 4 * 32 }, (_, i) => `key-${i + 1}`);
  const f = await CuckooFilter.create(FULL);
  let taken = 0;
  for (const k of list) {
    try {
      f.add(k);
      taken++;
    } catch {
      break;
    }
  }
  assert.equal(Number(await data("#ours-result", "taken")), taken);
  assert.equal(Number(await data("#ours-result", "lost")), 0);
  assert.ok(f.hasMany(list.slice(0, taken)).every(Boolean));
  const art = articleFill(list, FULL);
  assert.equal(Number(await data("#article-result", "taken")), art.taken);
  assert.equal(Number(await data("#article-result", "lost")), art.lost.length);
  assert.ok(art.lost.length >= 1, "the article's code drops its victim");
});

test("screenshots are written under build/ and are not blank", async () => {
  mkdirSync(shots, { recursive: true });
  for (const tab of ["table", "experiment", "full"]) {
    await page.click(`#tab-${tab}`);
    const file = join(shots, `playground-${tab}.png`);
    await page.screenshot({ path: file, fullPage: true });
    const { colors, ink } = inkStats(decodePng(readFileSync(file)));
    assert.ok(colors > 50 && ink > 0.05, `${file}: ${colors} colours, ${(100 * ink).toFixed(1)}% ink`);
  }
  assert.deepEqual(problems, []);
});

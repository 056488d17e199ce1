// SPDX-License-Identifier: Apache-2.0 OR MIT
// The playground: a live table drawn from the package's filter (the library
// compiled to WebAssembly, ./cuckoofilter/), the article's experiment
// (experiment.js), and a failed insert here and in the article's code.
// Everything shown about the table comes from the library: fingerprints and
// buckets from locate(), slots from readTable(), kicks from addTraced(),
// load and FPP from stats().
import { CuckooFilter } from "./cuckoofilter/index.js";
import { articleFill } from "./article.js";
import { startExperiment } from "./experiment.js";
import { num, onLanguage, pct, setLanguage, t, language } from "./i18n.js";

const $ = (id) => document.getElementById(id);

// ---- Tabs and language

function showTab(name) {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    const on = tab.id === `tab-${name}`;
    tab.setAttribute("aria-selected", String(on));
    $(tab.getAttribute("aria-controls")).hidden = !on;
  }
  if (name === "experiment") startExperiment();
}
for (const tab of document.querySelectorAll("[role=tab]"))
  tab.addEventListener("click", () => showTab(tab.id.slice(4)));
$("lang").addEventListener("click", () => setLanguage(language() === "vi" ? "en" : "vi"));

// ---- The live table

let filter = null; // the CuckooFilter drawn
let shape = null; // its options, as given to create()
let lastMoves = []; // the last insert's moves, listed
let arrows = false; // and drawn as arrows, right after that insert
let highlight = null; // { key, where } of the last key typed
const logLines = []; // [i18n key, params, css class] of each answer

function fpText(fp) {
  const digits = Math.ceil(shape.fingerprintBits / 4);
  return fp.toString(16).padStart(digits, "0");
}

/** Draws slots (bucket after bucket) into el; returns the slot elements. */
export function drawTable(el, slots, bucketSize, bits) {
  const digits = Math.ceil(bits / 4);
  const frag = document.createDocumentFragment();
  for (let i = 0; i < slots.length / bucketSize; i++) {
    const row = document.createElement("div");
    row.className = "bucket";
    row.dataset.bucket = i;
    const idx = document.createElement("span");
    idx.className = "bidx";
    idx.textContent = i;
    row.append(idx);
    for (let j = 0; j < bucketSize; j++) {
      const fp = slots[i * bucketSize + j];
      const s = document.createElement("span");
      s.className = "slot";
      s.dataset.slot = j;
      s.dataset.fp = fp;
      s.textContent = fp ? fp.toString(16).padStart(digits, "0") : "·";
      if (fp) s.style.background = `hsl(${(fp * 47) % 360} 70% 88%)`;
      row.append(s);
    }
    frag.append(row);
  }
  el.replaceChildren(frag);
}

function slotEl(bucket, slot) {
  return document.querySelector(`#table .bucket[data-bucket="${bucket}"] .slot[data-slot="${slot}"]`);
}

function redraw() {
  const st = filter.stats();
  drawTable($("table"), filter.readTable(), st.bucketSize, st.fingerprintBits);
  $("load").textContent = pct(st.loadFactor);
  $("load-bar").style.width = `${100 * st.loadFactor}%`;
  $("items").textContent = num(st.items);
  $("items").dataset.value = st.items;
  $("slots").textContent = num(st.slots);
  $("fpp-now").textContent = pct(st.expectedFpp);
  $("bpi").textContent = st.items ? num(st.bitsPerItem, 2) : "–";
  if (highlight) {
    const { fingerprint, bucket1, bucket2 } = highlight.where;
    for (const b of new Set([bucket1, bucket2])) {
      const row = document.querySelector(`#table .bucket[data-bucket="${b}"]`);
      row.classList.add("cand");
      for (const s of row.querySelectorAll(".slot"))
        if (Number(s.dataset.fp) === fingerprint) s.classList.add("match");
    }
  }
  if (arrows)
    for (const m of lastMoves) slotEl(m.to.bucket, m.to.slot)?.classList.add(m.from ? "moved" : "placed");
  drawArrows();
  drawMoves();
}

// Arrows from each kicked fingerprint's old slot to its new one, numbered in
// the order the library made the moves.
function drawArrows() {
  const svg = $("arrows");
  const box = $("table-wrap").getBoundingClientRect();
  const center = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left - box.left + r.width / 2, r.top - box.top + r.height / 2];
  };
  const parts = arrows ? [] : null;
  if (!parts) {
    svg.replaceChildren();
    return;
  }
  parts.push(
    '<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#b45309"/></marker></defs>',
  );
  lastMoves.forEach((m, i) => {
    if (!m.from) return;
    const a = slotEl(m.from.bucket, m.from.slot), b = slotEl(m.to.bucket, m.to.slot);
    if (!a || !b) return;
    const [x1, y1] = center(a), [x2, y2] = center(b);
    const bend = Math.max(30, Math.abs(y2 - y1) / 3);
    parts.push(`<path d="M${x1},${y1} C${x1 + bend},${y1} ${x2 + bend},${y2} ${x2},${y2}"/>`);
    parts.push(`<text x="${(x1 + x2) / 2 + bend * 0.8}" y="${(y1 + y2) / 2}">${i + 1}</text>`);
  });
  svg.innerHTML = parts.join("");
}

function drawMoves() {
  const ol = $("moves");
  if (!lastMoves.length) {
    ol.innerHTML = `<li>${t("noKicks")}</li>`;
    return;
  }
  const items = lastMoves.map((m) =>
    m.from
      ? t("move", { fp: fpText(m.fingerprint), fb: m.from.bucket, fs: m.from.slot, tb: m.to.bucket, ts: m.to.slot })
      : t("place", { fp: fpText(m.fingerprint), tb: m.to.bucket, ts: m.to.slot }),
  );
  if (lastMoves.length === 1) items.push(t("directPlace"));
  ol.replaceChildren(...items.map((s) => Object.assign(document.createElement("li"), { textContent: s })));
}

// An answer in the language shown now (a count of kicks is worded then).
function answerText(key, params) {
  if (key !== "ansInserted") return t(key, params);
  return t(key, { ...params, kicks: params.kicks > 0 ? t("ansKicks", { n: params.kicks }) : "" });
}

function say(key, params, cls) {
  logLines.unshift([key, params, cls]);
  logLines.length = Math.min(logLines.length, 200);
  const a = $("answer");
  a.textContent = answerText(key, params);
  a.className = `answer ${cls}`;
  a.dataset.answer = cls;
  drawLog();
}

function drawLog() {
  $("log").replaceChildren(
    ...logLines.map(([k, p]) => Object.assign(document.createElement("li"), { textContent: answerText(k, p) })),
  );
}

function showKey(key) {
  const where = filter.locate(key);
  highlight = { key, where };
  $("fp").textContent = `${fpText(where.fingerprint)} (${where.fingerprint})`;
  $("fp").dataset.value = where.fingerprint;
  $("b1").textContent = where.bucket1;
  $("b1").dataset.value = where.bucket1;
  $("b2").textContent = where.bucket2;
  $("b2").dataset.value = where.bucket2;
  return where;
}

function insert(key) {
  const where = showKey(key);
  arrows = true;
  try {
    lastMoves = filter.addTraced(key);
    const last = lastMoves[lastMoves.length - 1];
    const kicks = lastMoves.length - 1;
    say("ansInserted", { key, fp: fpText(where.fingerprint), bucket: last.to.bucket, slot: last.to.slot, kicks }, "yes");
  } catch (e) {
    if (e.code !== "CF_E_FULL") throw e;
    lastMoves = [];
    arrows = false;
    say("ansFull", { key }, "full");
  }
}

async function newTable() {
  shape = {
    buckets: Number($("nb").value),
    bucketSize: Number($("b").value),
    fingerprintBits: Number($("f").value),
    seed: Number($("seed").value),
  };
  filter?.dispose();
  filter = await CuckooFilter.create(shape);
  lastMoves = [];
  arrows = false;
  highlight = null;
  logLines.length = 0;
  for (const id of ["fp", "b1", "b2"]) $(id).textContent = "–";
  $("answer").textContent = "";
  drawLog();
  redraw();
}

const words = ["táo", "chuối", "cam", "xoài", "mít", "ổi", "nho", "dưa", "lê", "mận", "apple", "pear",
  "plum", "kiwi", "lime", "fig", "date", "peach", "cherry", "melon", "cuckoo", "bloom", "filter", "bucket"];
let wordCount = 0;

$("shape").addEventListener("submit", (e) => {
  e.preventDefault();
  newTable().catch(report);
});
$("ops").addEventListener("submit", (e) => {
  e.preventDefault();
  const key = $("key").value;
  insert(key);
  redraw();
});
$("lookup").addEventListener("click", () => {
  const key = $("key").value;
  const where = showKey(key);
  arrows = false;
  if (filter.has(key))
    say("ansFound", { key, fp: fpText(where.fingerprint), b1: where.bucket1, b2: where.bucket2 }, "yes");
  else say("ansNotFound", { key }, "no");
  redraw();
});
$("delete").addEventListener("click", () => {
  const key = $("key").value;
  showKey(key);
  arrows = false;
  if (filter.delete(key)) say("ansDeleted", { key }, "yes");
  else say("ansNotDeleted", { key }, "no");
  redraw();
});
$("random").addEventListener("click", () => {
  for (let i = 0; i < 10; i++) {
    const w = words[wordCount % words.length] + (wordCount >= words.length ? `-${Math.floor(wordCount / words.length)}` : "");
    wordCount++;
    insert(w);
  }
  redraw();
});
window.addEventListener("resize", () => filter && drawArrows());

// ---- When the table is full: this library and the article's code

const FULL = { buckets: 8, bucketSize: 4, fingerprintBits: 8, seed: 7 };

async function fillBoth() {
  const keys = Array.from({ length: 4 * FULL.buckets * FULL.bucketSize }, (_, i) => `key-${i + 1}`);
  // This library: add until CF_E_FULL, then look every key taken up again.
  const f = await CuckooFilter.create(FULL);
  let taken = 0;
  let refused = null;
  for (const k of keys) {
    try {
      f.add(k);
      taken++;
    } catch (e) {
      if (e.code !== "CF_E_FULL") throw e;
      refused = k;
      break;
    }
  }
  const found = f.hasMany(keys.slice(0, taken));
  const lostOurs = keys.slice(0, taken).filter((_, i) => !found[i]);
  drawTable($("ours-table"), f.readTable(), FULL.bucketSize, FULL.fingerprintBits);
  f.dispose();
  showResult("ours-result", taken, refused, lostOurs);
  // The article's code, on the same keys and shape.
  const a = articleFill(keys, FULL);
  drawTable($("article-table"), a.table, FULL.bucketSize, FULL.fingerprintBits);
  showResult("article-result", a.taken, a.refused, a.lost);
}

let fullState = null;
function showResult(id, taken, refused, lost) {
  fullState = { ...fullState, [id]: { taken, refused, lost } };
  const el = $(id);
  el.dataset.taken = taken;
  el.dataset.lost = lost.length;
  el.textContent =
    t("accepted", { n: taken, key: refused ?? "–" }) +
    " " +
    (lost.length ? t("lostSome", { n: taken, lost: lost.length, keys: lost.join(", ") }) : t("lostNone", { n: taken }));
}
$("fill").addEventListener("click", () => fillBoth().catch(report));

function report(e) {
  $("answer").textContent = String(e && e.message ? e.message : e);
  $("answer").className = "answer full";
}

function intros() {
  $("full-intro").textContent = t("fullIntro", { nb: FULL.buckets, b: FULL.bucketSize, f: FULL.fingerprintBits });
}

onLanguage(() => {
  intros();
  if (filter) {
    drawMoves();
    drawLog();
    if (logLines.length) {
      const [k, p] = logLines[0];
      $("answer").textContent = answerText(k, p);
    }
    redraw();
  }
  if (fullState)
    for (const [id, r] of Object.entries(fullState)) showResult(id, r.taken, r.refused, r.lost);
});

setLanguage("vi");
await newTable();
document.body.dataset.ready = "true";

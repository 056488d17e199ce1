// SPDX-License-Identifier: Apache-2.0 OR MIT
// The experiment tab: the article's experiment run by `cuckoo report`'s own
// code in a worker (worker.js), its figures beside the article's, and the
// three charts, redrawn when the sliders change the fingerprint bits, the
// bucket size or the load.  The article's figures come from the report's
// text (its right-hand column, as `cuckoo report` prints it): the page holds
// no copy of them.
import { barChart, lineChart } from "./charts.js";
import { num, onLanguage, pct, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const SIZES = [1, 2, 4, 8];

let worker = null;
let defaults = null; // the report's defaults, from the module
let runId = 0;
let started = false;
let busy = false;
let timer = 0;
let last = null; // { json, text, phase, ms } of the current run
let t0 = 0;

export function startExperiment() {
  if (started) return;
  started = true;
  spawn();
  for (const id of ["s-f", "s-b", "s-load"]) {
    $(id).addEventListener("input", () => {
      labels();
      clearTimeout(timer);
      timer = setTimeout(run, 250);
    });
  }
  $("run").addEventListener("click", run);
}

function spawn() {
  worker?.terminate();
  worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  worker.onmessage = ({ data }) => receive(data);
  worker.onerror = (e) => status("failed", t("failed", { why: e.message }));
}

function params() {
  return {
    id: runId,
    f: Number($("s-f").value),
    b: SIZES[Number($("s-b").value)],
    load: Number($("s-load").value) / 100,
    buckets: defaults.buckets,
    queries: defaults.queries,
    seed: defaults.seed,
    maxKicks: defaults.maxKicks,
  };
}

function labels() {
  $("s-f-v").textContent = $("s-f").value;
  $("s-b-v").textContent = SIZES[Number($("s-b").value)];
  $("s-load-v").textContent = `${$("s-load").value}%`;
}

function run() {
  if (!defaults) return;
  if (busy) spawn(); // a run under way is for other parameters: start over
  runId++;
  busy = true;
  delete $("exp-status").dataset.ms;
  delete $("exp-status").dataset.experimentMs;
  delete $("exp-table").dataset.phase;
  t0 = performance.now();
  status("running", t("running", { phase: t("phaseFill") }));
  worker.postMessage(params());
}

function status(state, text) {
  const s = $("exp-status");
  s.dataset.state = state;
  s.textContent = text;
}

function receive(data) {
  if (data.defaults) {
    defaults = data.defaults;
    $("s-f").value = defaults.f;
    $("s-b").value = SIZES.indexOf(defaults.b);
    $("s-load").value = Math.round(100 * defaults.load);
    labels();
    intro();
    run();
    return;
  }
  if (data.id !== undefined && data.id !== runId) return; // a run since replaced
  if (data.error) {
    busy = false;
    status("failed", t("failed", { why: data.error }));
    return;
  }
  last = data;
  render();
  // The report so far, for tests and the curious (fields of phases still
  // to run are zeros).
  $("exp-table").dataset.json = JSON.stringify(data.json);
  $("exp-table").dataset.phase = data.phase;
  const s = $("exp-status");
  const ms = Math.round(performance.now() - t0);
  // The experiment's figures are all there once the bucket sizes ran;
  // the comparison with Bloom (33 filters of each) comes last.
  if (data.phase === "buckets") s.dataset.experimentMs = ms;
  if (data.phase === "compare") {
    busy = false;
    s.dataset.ms = ms;
    status("done", doneText());
  } else status("running", t("running", { phase: t(data.phase === "fill" ? "phaseBuckets" : "phaseCompare") }));
}

function intro() {
  if (defaults)
    $("exp-intro").textContent = t("expIntro", {
      buckets: num(defaults.buckets),
      queries: num(defaults.queries),
      seed: defaults.seed,
    });
}

// The article's figure on the report's text line whose label matches re:
// what `cuckoo report` prints right of " | " (nothing when the parameters
// are not the article's, as the command prints nothing there then).
function article(text, re) {
  for (const line of text.split("\n")) {
    const bar = line.indexOf(" | ");
    if (bar > 0 && re.test(line.slice(0, bar))) return line.slice(bar + 3).trim();
  }
  return "";
}

// The paper's maximum loads, the last column of the report's part 8.
function paperLoads(text) {
  const loads = [];
  for (const b of SIZES) {
    const m = new RegExp(`^\\s+${b}\\s+[\\d,]+\\s+[\\d.]+%.*\\s(~\\d+%)\\s*$`, "m").exec(text);
    if (m) loads.push(m[1]);
  }
  return loads.length === SIZES.length ? loads.join(" / ") : "";
}

function rows(j, text, phase) {
  const fill = j.fill, fpp = j.fpp, k = j.kicks, d = j.delete, fail = j.failure;
  const out = [
    ["items", "rowItems", num(fill.items), fill.items, /^1\. items inserted/],
    ["memory", "rowMemory", `${num(fill.table_bytes)} B = ${num(fill.table_kib)} KiB`, fill.table_bytes, /^\s+memory \(bucket table\)/],
    ["bits", "rowBits", num(fill.bits_per_item, 2), fill.bits_per_item, /^\s+bits per item/],
    ["falseNegatives", "rowFalseNeg", num(j.false_negatives.false_negatives), j.false_negatives.false_negatives, /^2\. false negatives/],
    ["fpp", "rowFpp", `${pct(fpp.fpp)} (${num(fpp.false_positives)} / ${num(fpp.queries)})`, fpp.fpp, /^3\. false-positive rate/],
    ["ci", "rowCi", `[${pct(fpp.ci95_low)}, ${pct(fpp.ci95_high)}]`, `${fpp.ci95_low} ${fpp.ci95_high}`, null],
    ["theory", "rowTheory", pct(fpp.theory), fpp.theory, null],
    ["bound", "rowBound", pct(fpp.bound), fpp.bound, /bound 2b\/2\^f/],
    ["kicks", "rowKicks", `${num(k.mean, 3)}, p99 ${k.p99}, max ${k.max}`, k.mean, /^4\. kicks per insert/],
    ["delete", "rowDelete", `${d.found_before}/${d.items} → ${d.found_after}/${d.items}`, d.found_after, /^5\. delete/],
    ["fail", "rowFail", `${pct(fail.load)} (${num(fail.items)})`, fail.load, /^6\. fill until/],
    ["lost", "rowLost", num(fail.lost), fail.lost, /items lost at that point/],
  ];
  if (phase !== "fill") {
    const ml = j.max_load.map((r) => pct(r.max_load)).join(" / ");
    out.push(["maxLoad", "rowMaxLoad", ml, j.max_load.map((r) => r.max_load).join(" "), "paper"]);
  }
  return out.map(([id, label, ours, value, re]) => ({
    id, label, ours, value,
    theirs: re === "paper" ? paperLoads(text) : re ? article(text, re) : "",
  }));
}

function render() {
  if (!last) return;
  const { json: j, text, phase } = last;
  const body = $("exp-table").tBodies[0];
  body.replaceChildren(
    ...rows(j, text, phase).map((r) => {
      const tr = document.createElement("tr");
      tr.dataset.row = r.id;
      const a = document.createElement("td"), b = document.createElement("td"), c = document.createElement("td");
      a.textContent = t(r.label);
      b.textContent = r.ours;
      b.dataset.value = r.value;
      c.textContent = r.theirs;
      c.className = "article";
      tr.append(a, b, c);
      return tr;
    }),
  );
  drawKicks(j);
  if (phase !== "fill") drawMaxLoad(j);
  if (phase === "compare") {
    drawFpp(j, text);
    $("report-text").textContent = text;
  }
}

function drawKicks(j) {
  const bins = j.kicks_by_load.filter((r) => r.inserts > 0);
  lineChart($("chart-kicks"), [
    { name: t("sMean"), points: bins.map((r) => [r.load_pct, r.mean]), line: true },
    { name: t("sMax"), points: bins.map((r) => [r.load_pct, r.max]), line: true, dash: true, color: "#dc2626" },
  ], { xLabel: t("axisLoad"), yLabel: t("axisKicks") });
}

function drawMaxLoad(j) {
  const b = j.params.bucket_size;
  barChart($("chart-maxload"), j.max_load.map((r) => ({ label: String(r.b), value: r.max_load, highlight: r.b === b })), {
    xLabel: t("axisB"), yLabel: t("axisMaxLoad"), valueText: pct,
  });
}

// The article's three rows of part 7 ("| 2.96% / 1.75%"): bits per item is
// the row's second column.
function articlePoints(text) {
  const pts = [];
  for (const line of text.split("\n")) {
    const m = /^\s+\d+\s+([\d.]+)\s.*\|\s*([\d.]+)% \/ ([\d.]+)%\s*$/.exec(line);
    if (m) pts.push([+m[1], m[2] / 100], [+m[1], m[3] / 100]);
  }
  return pts;
}

function drawFpp(j, text) {
  const plain = j.compare, semi = j.compare_semi ?? [];
  const bloom = [...plain, ...semi].sort((a, b) => a.bits_per_item - b.bits_per_item);
  const series = [
    { name: t("sCuckoo"), points: plain.map((r) => [r.bits_per_item, r.cuckoo_fpp]) },
    { name: t("sCuckooTheory"), points: plain.map((r) => [r.bits_per_item, r.cuckoo_theory]), line: true },
    { name: t("sSemi"), points: semi.map((r) => [r.bits_per_item, r.cuckoo_fpp]), color: "#16a34a" },
    { name: t("sSemiTheory"), points: semi.map((r) => [r.bits_per_item, r.cuckoo_theory]), line: true, color: "#16a34a", dash: true },
    { name: t("sBloom"), points: bloom.map((r) => [r.bits_per_item, r.bloom_fpp]), color: "#dc2626" },
    { name: t("sBloomTheory"), points: bloom.map((r) => [r.bits_per_item, r.bloom_theory]), line: true, color: "#dc2626", dash: true },
  ];
  const art = articlePoints(text);
  if (art.length) series.push({ name: t("sArticle"), points: art, square: true, color: "#111827" });
  const row = plain.find((r) => r.f === j.params.fingerprint_bits);
  const markers = row ? [{ x: row.bits_per_item, label: `f = ${row.f}` }] : [];
  lineChart($("chart-fpp"), series.filter((s) => s.points.length), {
    xLabel: t("axisBits"), yLabel: t("axisFpp"), logY: true, yPercent: true, markers,
  });
}

onLanguage(() => {
  intro();
  render();
  const s = $("exp-status");
  if (s.dataset.state === "done") s.textContent = doneText();
});

function doneText() {
  const s = $("exp-status").dataset;
  return t("done", { e: num(s.experimentMs / 1000, 2), s: num(s.ms / 1000, 2) });
}

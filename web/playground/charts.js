// SPDX-License-Identifier: Apache-2.0 OR MIT
// Small SVG charts for the experiment tab: lines and points on linear or
// logarithmic axes, and bars.  No library: the page has no dependencies.

const NS = "http://www.w3.org/2000/svg";
const COLORS = ["#2563eb", "#93c5fd", "#16a34a", "#86efac", "#dc2626", "#fca5a5", "#111827", "#a16207"];

function el(name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function ticks(lo, hi, n) {
  const step = Math.pow(10, Math.floor(Math.log10((hi - lo) / n)));
  const mult = [1, 2, 5, 10].find((m) => (hi - lo) / (step * m) <= n) * step;
  const out = [];
  for (let v = Math.ceil(lo / mult) * mult; v <= hi + 1e-9; v += mult) out.push(+v.toFixed(10));
  return out;
}

function fmt(v) {
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e-4 && a < 1e5) return String(+v.toPrecision(3));
  return v.toExponential(0);
}

/**
 * series: [{ name, points: [[x, y], ...], line: bool, dash: bool, color }]
 * opts: { xLabel, yLabel, logY, yPercent, markers: [{ x, label }] }
 * Points with y <= 0 are left out on a log axis.
 */
export function lineChart(svg, series, opts) {
  const { width, height } = svg.getBoundingClientRect();
  const W = Math.max(width, 320), H = Math.max(height, 200);
  const m = { l: 56, r: 12, t: 10, b: 72 };
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.replaceChildren();
  const pts = series.flatMap((s) => s.points).filter(([, y]) => !opts.logY || y > 0);
  if (!pts.length) return;
  const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs);
  const fy = opts.logY ? Math.log10 : (v) => v;
  let y0 = fy(Math.min(...ys)), y1 = fy(Math.max(...ys));
  if (opts.logY) {
    y0 = Math.floor(y0);
    y1 = Math.ceil(y1);
  } else {
    y0 = Math.min(0, y0);
    y1 = y1 === y0 ? y0 + 1 : y1 * 1.05;
  }
  const sx = (x) => m.l + ((x - x0) / (x1 - x0 || 1)) * (W - m.l - m.r);
  const sy = (y) => H - m.b - ((fy(y) - y0) / (y1 - y0 || 1)) * (H - m.t - m.b);
  const grid = el("g", { class: "grid" }), axis = el("g", { class: "axis" });
  for (const tx of ticks(x0, x1, 10)) {
    grid.append(el("line", { x1: sx(tx), x2: sx(tx), y1: m.t, y2: H - m.b }));
    axis.append(el("text", { x: sx(tx), y: H - m.b + 14, "text-anchor": "middle" }, fmt(tx)));
  }
  const yt = opts.logY
    ? Array.from({ length: y1 - y0 + 1 }, (_, i) => Math.pow(10, y0 + i))
    : ticks(y0, y1, 5);
  for (const ty of yt) {
    grid.append(el("line", { x1: m.l, x2: W - m.r, y1: sy(ty), y2: sy(ty) }));
    const label = opts.yPercent ? `${fmt(100 * ty)}%` : fmt(ty);
    axis.append(el("text", { x: m.l - 4, y: sy(ty) + 4, "text-anchor": "end" }, label));
  }
  axis.append(el("line", { x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b }));
  axis.append(el("line", { x1: m.l, x2: m.l, y1: m.t, y2: H - m.b }));
  axis.append(el("text", { x: (m.l + W - m.r) / 2, y: H - m.b + 30, "text-anchor": "middle" }, opts.xLabel));
  axis.append(el("text", { x: 12, y: (m.t + H - m.b) / 2, transform: `rotate(-90 12 ${(m.t + H - m.b) / 2})`, "text-anchor": "middle" }, opts.yLabel));
  svg.append(grid, axis);
  for (const mk of opts.markers ?? []) {
    svg.append(el("line", { x1: sx(mk.x), x2: sx(mk.x), y1: m.t, y2: H - m.b, stroke: "#a16207", "stroke-dasharray": "4 3" }));
    svg.append(el("text", { x: sx(mk.x) + 4, y: m.t + 12, fill: "#a16207" }, mk.label));
  }
  series.forEach((s, i) => {
    const color = s.color ?? COLORS[i % COLORS.length];
    const p = s.points.filter(([, y]) => !opts.logY || y > 0);
    const g = el("g", { "data-series": s.name, "data-points": p.length });
    if (s.line && p.length > 1)
      g.append(el("path", {
        d: p.map(([x, y], j) => `${j ? "L" : "M"}${sx(x)},${sy(y)}`).join(" "),
        fill: "none", stroke: color, "stroke-width": 2, "stroke-dasharray": s.dash ? "5 4" : "none",
      }));
    if (!s.line)
      for (const [x, y] of p)
        g.append(s.square
          ? el("rect", { x: sx(x) - 5, y: sy(y) - 5, width: 10, height: 10, fill: "none", stroke: color, "stroke-width": 2 })
          : el("circle", { cx: sx(x), cy: sy(y), r: 3.5, fill: color }));
    svg.append(g);
  });
  legend(svg, series, m.l, H - 26, W);
}

function legend(svg, series, x, y, W) {
  let cx = x, cy = y;
  series.forEach((s, i) => {
    const color = s.color ?? COLORS[i % COLORS.length];
    const w = 30 + 6.5 * s.name.length;
    if (cx + w > W) {
      cx = x;
      cy += 14;
    }
    svg.append(s.line
      ? el("line", { x1: cx, x2: cx + 18, y1: cy - 4, y2: cy - 4, stroke: color, "stroke-width": 2, "stroke-dasharray": s.dash ? "5 4" : "none" })
      : el("circle", { cx: cx + 9, cy: cy - 4, r: 3.5, fill: color }));
    svg.append(el("text", { x: cx + 22, y: cy }, s.name));
    cx += w;
  });
}

/** bars: [{ label, value, highlight }]; values in [0, 1], drawn as percentages. */
export function barChart(svg, bars, opts) {
  const { width, height } = svg.getBoundingClientRect();
  const W = Math.max(width, 320), H = Math.max(height, 200);
  const m = { l: 56, r: 12, t: 16, b: 44 };
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.replaceChildren();
  const sy = (v) => H - m.b - v * (H - m.t - m.b);
  const bw = (W - m.l - m.r) / bars.length;
  const axis = el("g", { class: "axis" });
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    svg.append(el("line", { x1: m.l, x2: W - m.r, y1: sy(v), y2: sy(v), stroke: "#eef0f4" }));
    axis.append(el("text", { x: m.l - 4, y: sy(v) + 4, "text-anchor": "end" }, `${100 * v}%`));
  }
  bars.forEach((b, i) => {
    const x = m.l + i * bw + bw * 0.2;
    svg.append(el("rect", {
      x, y: sy(b.value), width: bw * 0.6, height: sy(0) - sy(b.value),
      fill: b.highlight ? "#2563eb" : "#93c5fd", "data-label": b.label, "data-value": b.value,
    }));
    svg.append(el("text", { x: x + bw * 0.3, y: sy(b.value) - 4, "text-anchor": "middle" }, opts.valueText(b.value)));
    axis.append(el("text", { x: x + bw * 0.3, y: H - m.b + 14, "text-anchor": "middle" }, b.label));
  });
  axis.append(el("text", { x: (m.l + W - m.r) / 2, y: H - m.b + 32, "text-anchor": "middle" }, opts.xLabel));
  axis.append(el("text", { x: 12, y: (m.t + H - m.b) / 2, transform: `rotate(-90 12 ${(m.t + H - m.b) / 2})`, "text-anchor": "middle" }, opts.yLabel));
  svg.append(axis);
}

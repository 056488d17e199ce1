// SPDX-License-Identifier: Apache-2.0 OR MIT
// Runs the article's experiment off the page's thread: report.wasm is the
// code of `cuckoo report` (experiment/, with the library) driven by
// web/src/report_js.c.  Messages:
//   in:  { id, f, b, buckets, load, queries, seed, maxKicks }
//   out: { id, phase: "fill" | "buckets" | "compare", json, text, ms }
//        { id, error }          and once loaded: { defaults }
// Each phase posts the report so far (JSON, and the text `cuckoo report`
// prints); the page draws what it has.

let x = null; // the module's exports
let stderr = "";

function wasi(get) {
  const view = () => new DataView(get().memory.buffer);
  const origin = performance.now();
  return {
    // The report times its phase 9 (throughput) with CLOCK_MONOTONIC.
    clock_time_get(id, precision, out) {
      view().setBigUint64(out, BigInt(Math.round((performance.now() - origin) * 1e6)), true);
      return 0;
    },
    // stderr (cli_error's reasons) is kept for the error message; nothing
    // else writes.
    fd_write(fd, iov, count, written) {
      const dv = view();
      let n = 0;
      for (let i = 0; i < count; i++) {
        const p = dv.getUint32(iov + 8 * i, true), len = dv.getUint32(iov + 8 * i + 4, true);
        stderr += new TextDecoder().decode(new Uint8Array(get().memory.buffer, p, len));
        n += len;
      }
      dv.setUint32(written, n, true);
      return 0;
    },
    fd_close: () => 0,
    fd_seek: () => 70, // ESPIPE: no files here
    environ_sizes_get(count, size) {
      view().setUint32(count, 0, true);
      view().setUint32(size, 0, true);
      return 0;
    },
    environ_get: () => 0,
  };
}

async function load() {
  const res = await fetch(new URL("./report.wasm", import.meta.url));
  if (!res.ok) throw new Error(`report.wasm: HTTP ${res.status}`);
  let inst;
  const imports = {
    wasi_snapshot_preview1: wasi(() => inst.exports),
    env: { emscripten_notify_memory_growth() {} },
  };
  inst = (await WebAssembly.instantiate(await res.arrayBuffer(), imports)).instance;
  inst.exports._initialize();
  x = inst.exports;
  const p = x.malloc(8 * 8);
  x.rjs_defaults(p);
  const d = new Float64Array(x.memory.buffer, p, 7);
  const defaults = { f: d[0], buckets: d[1], load: d[2], queries: d[3], seed: d[4], b: d[5], maxKicks: d[6] };
  x.free(p);
  return defaults;
}

function output(format) {
  const n = x.rjs_write(format);
  if (n < 0) throw new Error("out of memory writing the report");
  return new TextDecoder().decode(new Uint8Array(x.memory.buffer, x.rjs_output(), n));
}

const ready = load();
ready.then(
  (defaults) => postMessage({ defaults }),
  (e) => postMessage({ error: String(e) }),
);

onmessage = async ({ data: p }) => {
  try {
    await ready;
    const seed = BigInt(p.seed);
    x.rjs_params(p.f, p.b, p.buckets, p.load, p.queries, p.maxKicks,
      Number(seed & 0xffffffffn), Number(seed >> 32n), false);
    const t0 = performance.now();
    for (const [phase, n] of [["fill", 1], ["buckets", 8], ["compare", 7]]) {
      stderr = "";
      if (x.rjs_phase(n) !== 0) throw new Error(stderr.trim() || `phase ${phase} failed`);
      postMessage({ id: p.id, phase, json: JSON.parse(output(1)), text: output(0), ms: performance.now() - t0 });
    }
  } catch (e) {
    postMessage({ id: p.id, error: String(e && e.message ? e.message : e) });
  }
};

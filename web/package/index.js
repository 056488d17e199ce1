// SPDX-License-Identifier: Apache-2.0 OR MIT
// cuckoofilter: the C library libcuckoofilter, compiled to WebAssembly
// unchanged, as an ES module for Node and browsers.
//
//   const f = await CuckooFilter.create({ capacity: 1_000_000, fpp: 0.001 });
//   f.add("apple");  f.has("apple");  f.delete("apple");
//   const bytes = f.toBytes();          // the library's file format
//   const g = await CuckooFilter.fromBytes(bytes);
//
// index.d.ts documents every call.  How it works: one WebAssembly instance
// (cuckoofilter.wasm: the library and web/src/cfjs.c) holds every filter;
// a CuckooFilter is a pointer into its memory.  Keys are copied into that
// memory (strings as UTF-8) and handed to the library; bulk calls pack a
// whole array into one buffer and make one call.  The module is standalone
// WebAssembly, so this file is its whole loader: it reads the .wasm with
// the file system in Node and with fetch in browsers, and supplies its few
// imports itself.

const WASM_URL = new URL("./cuckoofilter.wasm", import.meta.url);
// Loaded only to explain a refused configuration (web/src/cfjs.h says why).
const EXPLAIN_URL = new URL("./explain.wasm", import.meta.url);

// Bytes of scratch memory for out-parameters (see SCRATCH_* offsets).
const SCRATCH_BYTES = 2048;
const SCRATCH_PTR = 0; // a cf_filter * out-parameter (4 bytes)
const SCRATCH_SIZE = 8; // a size_t out-parameter (4 bytes)
const SCRATCH_DOUBLES = 16; // up to 32 doubles (cfjs_locate, cfjs_stats)
// Doubles from cfjs_stats, named in the order of enum cfjs_stat (cfjs.h).
const STATS = ["items", "buckets", "slots", "bucketSize", "fingerprintBits", "bitsPerSlot",
  "maxKicks", "seedLo", "seedHi", "semiSort", "loadFactor", "bitsPerItem", "expectedFpp",
  "fppBound", "tableBytes", "memoryBytes", "totalKicks", "failedInserts", "formatVersion", "tables",
  "expireAfter", "expireSpan", "stampBits", "stamps", "clock"];
// Doubles per move from cfjs_insert_traced (CFJS_MOVE_FIELDS in cfjs.h).
const MOVE_FIELDS = 5;

/** The error every failed call throws: code is the library's status name. */
export class CuckooFilterError extends Error {
  constructor(message, code, status) {
    super(message);
    this.name = "CuckooFilterError";
    /** The library's status name, e.g. "CF_E_FULL", "CF_E_CORRUPT". */
    this.code = code;
    /** The library's status number (negative). */
    this.status = status;
  }
}

let loading = null; // Promise of the module, once init() was called
let lib = null; // the module, once loaded

async function wasmBytes(url) {
  if (url.protocol === "file:") {
    // Node: its fetch does not read file: URLs.
    const { readFile } = await import("node:fs/promises");
    return readFile(url);
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`cuckoofilter: cannot load ${url}: HTTP ${res.status}`);
  return res.arrayBuffer();
}

async function instantiate(src) {
  let instance;
  const imp = imports(() => instance.exports);
  if (src instanceof WebAssembly.Module) instance = await WebAssembly.instantiate(src, imp);
  else instance = (await WebAssembly.instantiate(src, imp)).instance;
  instance.exports._initialize();
  return instance.exports;
}

// The imports of the standalone module: no environment variables (the
// library reads one, CF_HUGEPAGES, which means nothing here), and a
// notification of memory growth that needs no action (views are renewed
// when the buffer changes).
function imports(get) {
  const zeros = (a, b) => {
    const dv = new DataView(get().memory.buffer);
    dv.setUint32(a, 0, true);
    dv.setUint32(b, 0, true);
    return 0;
  };
  return {
    env: { emscripten_notify_memory_growth() {} },
    wasi_snapshot_preview1: { environ_sizes_get: zeros, environ_get: () => 0 },
  };
}

// V8 11 (Node 20 and 21) miscompiles some JavaScript functions into which
// its optimizing compiler inlined a call into WebAssembly: CuckooFilter.add,
// optimized while adding string and Uint8Array keys, then given a number,
// crashed Node with SIGSEGV instead of throwing TypeError
// (tests/v8_inline_check.mjs, every run).  Turning that inlining off, before
// any of this file's functions is optimized, avoids it; it costs the
// single-key calls a few nanoseconds, in this process only, and other
// engines are left alone.  (Code-level detours did not help: a call site
// that sees every export, a type check first.)
async function avoidV8Bug() {
  const node = typeof process === "object" && process.versions && process.versions.node;
  if (!node || !/^11\./.test(process.versions.v8 || "")) return;
  const v8 = await import("node:v8");
  v8.setFlagsFromString("--no-turbo-inline-js-wasm-calls");
}

/**
 * Loads the WebAssembly module (once; every other call waits for it).
 * source: the module's bytes, a WebAssembly.Module, or a URL, for
 * bundlers and pages that serve the .wasm elsewhere; by default the
 * cuckoofilter.wasm beside this file.
 */
export function init(source) {
  if (loading) return loading;
  loading = (async () => {
    await avoidV8Bug();
    let src = source;
    if (src === undefined) src = WASM_URL;
    if (typeof src === "string") src = new URL(src, WASM_URL);
    if (src instanceof URL) src = await wasmBytes(src);
    lib = makeLib(await instantiate(src));
    return { libraryVersion: lib.libraryVersion };
  })();
  loading.catch(() => {
    loading = null; // a failed load may be retried
  });
  return loading;
}

function makeLib(x) {
  const L = {
    x,
    buf: null,
    u8: null,
    scratch: x.malloc(SCRATCH_BYTES),
    keyPtr: 0,
    keyCap: 0,
    runEnds: 0, // the run buffers of bulk calls (runBuffers)
    runFlags: 0,
    runBytes: 0,
    runCap: 0,
    // Views of the memory, renewed when it grew (its buffer then changes).
    mem() {
      if (L.buf !== x.memory.buffer) {
        L.buf = x.memory.buffer;
        L.u8 = new Uint8Array(L.buf);
        L.dv = new DataView(L.buf);
      }
      return L.u8;
    },
    dview() {
      L.mem();
      return L.dv;
    },
    text(ptr, len) {
      return decoder.decode(L.mem().subarray(ptr, ptr + len));
    },
    cstring(ptr) {
      const u8 = L.mem();
      let end = ptr;
      while (u8[end] !== 0) end++;
      return L.text(ptr, end - ptr);
    },
    alloc(n) {
      const p = x.malloc(Math.max(n, 1));
      if (p === 0) throw statusError(L, STATUS.NOMEM);
      return p;
    },
  };
  if (L.scratch === 0) throw new Error("cuckoofilter: no memory for the module's scratch");
  L.libraryVersion = L.cstring(x.cf_version_string());
  // The statuses this file tests for, by name, from the library's table
  // (success is 0 and failures are negative: cuckoofilter.h).
  const named = {};
  for (let s = 0; s >= -64; s--) named[L.cstring(x.cf_status_name(s))] = s;
  for (const [key, name] of Object.entries(STATUS_NAMES)) {
    if (!(name in named)) throw new Error(`cuckoofilter: the module has no status ${name}`);
    STATUS[key] = named[name];
  }
  return L;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// The statuses this file tests for, numbered when the module loads (makeLib);
// every other one is only named, by the library.
const STATUS_NAMES = { OK: "CF_OK", NOT_FOUND: "CF_E_NOT_FOUND", NOMEM: "CF_E_NOMEM", EXISTS: "CF_E_EXISTS" };
const STATUS = {};

function statusError(L, s, why) {
  const name = L.cstring(L.x.cf_status_name(s));
  const message = why || L.cstring(L.x.cf_strerror(s));
  return new CuckooFilterError(`${message} (${name})`, name, s);
}

let explainer = null; // Promise of explain.wasm's exports, once needed

// The library's sentence for a configuration cfjs_new refused, from
// explain.wasm (args: cfjs_new's, without the out-parameter).  Undefined
// when it cannot be had (the status' own message is used then).
async function explain(args) {
  try {
    explainer ??= wasmBytes(EXPLAIN_URL).then(instantiate);
    const x = await explainer;
    const cap = 512;
    const why = x.malloc(cap);
    if (why === 0) return undefined;
    try {
      x.cfjs_explain(...args, why, cap);
      const u8 = new Uint8Array(x.memory.buffer, why, cap);
      const text = decoder.decode(u8.subarray(0, u8.indexOf(0)));
      return text || undefined;
    } finally {
      x.free(why);
    }
  } catch {
    explainer = null;
    return undefined;
  }
}

function needLib() {
  if (!lib) throw new Error("cuckoofilter: call `await init()` (or create/fromBytes) first");
  return lib;
}

// Copies one key into the module's key buffer; returns its length.
function putKey(L, key) {
  let need;
  if (typeof key === "string") need = key.length * 3;
  else if (key instanceof Uint8Array) need = key.length;
  else throw new TypeError(`cuckoofilter: a key is a string or a Uint8Array, not ${describe(key)}`);
  if (need > L.keyCap) {
    if (L.keyPtr) L.x.free(L.keyPtr);
    L.keyPtr = 0;
    L.keyCap = 0;
    const cap = Math.max(need, 256);
    L.keyPtr = L.alloc(cap);
    L.keyCap = cap;
  }
  const u8 = L.mem();
  if (typeof key === "string")
    return encoder.encodeInto(key, u8.subarray(L.keyPtr, L.keyPtr + L.keyCap)).written;
  u8.set(key, L.keyPtr);
  return key.length;
}

function describe(v) {
  if (v === null) return "null";
  if (typeof v === "object") return v.constructor ? v.constructor.name : "an object";
  return typeof v;
}

// Keys per call of a bulk operation (bulk): their bytes are packed into one
// buffer kept from call to call, with their end offsets, and handed to C in
// one call.  A run of ASCII strings is packed by concatenating it and
// encoding the result once (one encodeInto per key costs ~80 ns, the call
// into C++ itself; a string of 4,096 keys ~15 ns a key); the rest key by key.
const RUN = 4096;

// Checks that keys is a list of keys and returns it as an array, and whether
// every key is a string; throws TypeError for the first bad key, so that a
// bulk call refuses bad keys before it changes anything.
function keyList(keys) {
  if (typeof keys === "string" || keys == null || typeof keys[Symbol.iterator] !== "function")
    throw new TypeError(`cuckoofilter: keys are an array or another iterable of keys, not ${describe(keys)}`);
  const list = Array.isArray(keys) ? keys : Array.from(keys);
  let strings = true;
  for (let i = 0; i < list.length; i++) {
    const k = list[i];
    if (typeof k === "string") continue;
    if (!(k instanceof Uint8Array))
      throw new TypeError(`cuckoofilter: a key is a string or a Uint8Array, not ${describe(k)} (index ${i})`);
    strings = false;
  }
  return { list, strings };
}

// The run buffers, in the module's memory, allocated once: the end offsets
// of a run's keys, a byte per key for answers, and the keys' bytes (grown
// when a run needs more).
function runBuffers(L) {
  if (!L.runEnds) {
    L.runEnds = L.alloc(4 * RUN);
    L.runFlags = L.alloc(RUN);
  }
  return L;
}

function runRoom(L, need) {
  if (need <= L.runCap) return;
  const cap = Math.max(need, 2 * L.runCap, 65536);
  if (L.runBytes) L.x.free(L.runBytes);
  L.runBytes = 0;
  L.runCap = 0;
  L.runBytes = L.alloc(cap); // may grow the memory: views are renewed after
  L.runCap = cap;
}

// Packs keys list[from .. to) into the run buffers (key i - from: bytes
// runBytes[ends[i - from - 1] .. ends[i - from]); returns the bytes used.
function packRun(L, list, from, to, strings) {
  if (strings) {
    // ASCII first: a byte per character.
    let s = "";
    let end = 0;
    let e = new Uint32Array(L.mem().buffer, L.runEnds, to - from);
    for (let i = from; i < to; i++) {
      const k = list[i];
      s += k;
      e[i - from] = end += k.length;
    }
    runRoom(L, end);
    const r = encoder.encodeInto(s, L.mem().subarray(L.runBytes, L.runBytes + end));
    if (r.read === s.length && r.written === end) return end;
  }
  let need = 0;
  for (let i = from; i < to; i++) {
    const k = list[i];
    need += typeof k === "string" ? 3 * k.length : k.length;
  }
  runRoom(L, need);
  const u8 = L.mem();
  const e = new Uint32Array(u8.buffer, L.runEnds, to - from);
  let end = 0;
  for (let i = from; i < to; i++) {
    const k = list[i];
    const at = L.runBytes + end;
    if (typeof k === "string") end += encoder.encodeInto(k, u8.subarray(at, L.runBytes + need)).written;
    else {
      u8.set(k, at);
      end += k.length;
    }
    e[i - from] = end;
  }
  return end;
}

const OPTIONS = [
  "capacity",
  "fpp",
  "buckets",
  "fingerprintBits",
  "bucketSize",
  "maxKicks",
  "maxLoad",
  "seed",
  "semiSort",
  "expire",
  "now",
];

// expire: seconds (a number above 0, finite), as whole seconds rounded up
// (the clock's unit: an item is never forgotten early); 0 when not given.
function expireOf(opts) {
  const v = opts.expire;
  if (v === undefined) return 0;
  if (typeof v !== "number" || !(v > 0) || !Number.isFinite(v) || v > Number.MAX_SAFE_INTEGER)
    throw new RangeError(`cuckoofilter: expire: ${String(v)} is not a time in seconds above 0`);
  return Math.ceil(v);
}

// now: a function of no arguments returning the time in seconds, for a
// filter whose items expire.
function clockOf(opts, expiring) {
  const v = opts.now;
  if (v === undefined) return null;
  if (typeof v !== "function") throw new TypeError(`cuckoofilter: now: ${describe(v)} is not a function`);
  if (!expiring) throw new TypeError("cuckoofilter: now is the clock of a filter whose items expire: give expire too");
  return v;
}

// A count: a whole number from 0 to 2^53 (the library checks its range).
function count(opts, name, max = Number.MAX_SAFE_INTEGER) {
  const v = opts[name];
  if (v === undefined) return 0;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max)
    throw new RangeError(`cuckoofilter: ${name}: ${String(v)} is not a whole number from 0 to ${max}`);
  return v;
}

function real(opts, name) {
  const v = opts[name];
  if (v === undefined) return NaN; // the library's default
  if (typeof v !== "number" || Number.isNaN(v))
    throw new RangeError(`cuckoofilter: ${name}: ${String(v)} is not a number`);
  return v;
}

function seedOf(opts) {
  let v = opts.seed;
  if (v === undefined) return 0n;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) v = BigInt(v);
  if (typeof v !== "bigint" || v < 0n || v >= 1n << 64n)
    throw new RangeError(`cuckoofilter: seed: ${String(v)} is not a whole number from 0 to 2^64 - 1`);
  return v;
}

// The constructor's key: filters come from create() and fromBytes() only.
const CONSTRUCT = Symbol("CuckooFilter");

// The safety net for filters never disposed: freed when collected.
const registry = new FinalizationRegistry((ptr) => {
  if (lib) lib.x.cf_free(ptr);
});

const disposeSymbol = typeof Symbol.dispose === "symbol" ? Symbol.dispose : Symbol.for("Symbol.dispose");

export class CuckooFilter {
  #ptr;
  #L;
  // An expiring filter's clock: the now() option (null: the wall clock)
  // and the time last set; #expiring false for the other filters.
  #expiring = false;
  #now = null;
  #clock = 0;

  /** @private Use CuckooFilter.create or CuckooFilter.fromBytes. */
  constructor(token, L, ptr, now) {
    if (token !== CONSTRUCT) throw new TypeError("cuckoofilter: use CuckooFilter.create() or CuckooFilter.fromBytes()");
    this.#L = L;
    this.#ptr = ptr;
    registry.register(this, ptr, this);
    const st = this.#rawStats();
    this.#expiring = st.expireAfter > 0;
    this.#clock = st.clock;
    this.#now = now;
  }

  // The filter, after an expiring filter's clock was set (cf_set_time) from
  // now() or the wall clock, once per call: the wall clock (whole seconds,
  // as the cuckoo command's files count them) is held at the filter's time
  // if the system's steps back; a now() that goes back throws CF_E_INVAL.
  #use() {
    const f = this.#live();
    if (!this.#expiring) return f;
    let t;
    if (this.#now) {
      const v = this.#now();
      if (typeof v !== "number" || !(v >= 0) || !Number.isFinite(v))
        throw new RangeError(`cuckoofilter: now() returned ${String(v)}, not a time in seconds`);
      t = Math.floor(v);
    } else {
      t = Math.max(Math.floor(Date.now() / 1000), this.#clock);
    }
    const L = this.#L;
    const s = L.x.cfjs_set_time(f, t);
    if (s !== STATUS.OK) {
      const back = L.cstring(L.x.cf_status_name(s)) === "CF_E_INVAL";
      throw statusError(L, s, back ? `now() gave ${t}, before the filter's clock, ${this.#clock}: time never runs backwards` : undefined);
    }
    this.#clock = t;
    return f;
  }

  static async create(options) {
    await init();
    const L = needLib();
    if (options === null || typeof options !== "object")
      throw new TypeError("cuckoofilter: create() takes an options object, e.g. { capacity: 1000, fpp: 0.01 }");
    for (const k of Object.keys(options))
      if (!OPTIONS.includes(k))
        throw new TypeError(`cuckoofilter: unknown option ${k} (options: ${OPTIONS.join(", ")})`);
    const u32 = 0xffffffff;
    const seed = seedOf(options);
    const semi = options.semiSort;
    if (semi !== undefined && typeof semi !== "boolean")
      throw new TypeError(`cuckoofilter: semiSort: ${String(semi)} is not true or false`);
    const expire = expireOf(options);
    const now = clockOf(options, expire > 0);
    const args = [
      count(options, "capacity"),
      real(options, "fpp"),
      count(options, "fingerprintBits", u32),
      count(options, "bucketSize", u32),
      count(options, "buckets"),
      count(options, "maxKicks", u32),
      real(options, "maxLoad"),
      Number(seed & 0xffffffffn),
      Number(seed >> 32n),
      semi === true,
      expire,
    ];
    const s = L.x.cfjs_new(...args, L.scratch + SCRATCH_PTR);
    if (s !== STATUS.OK) throw statusError(L, s, await explain(args));
    const f = new CuckooFilter(CONSTRUCT, L, L.dview().getUint32(L.scratch + SCRATCH_PTR, true), now);
    if (expire) f.#use(); // the clock starts now
    return f;
  }

  static async fromBytes(bytes, options = {}) {
    await init();
    const L = needLib();
    if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
    if (!(bytes instanceof Uint8Array))
      throw new TypeError(`cuckoofilter: fromBytes() takes a Uint8Array or an ArrayBuffer, not ${describe(bytes)}`);
    if (options === null || typeof options !== "object" || Object.keys(options).some((k) => k !== "now"))
      throw new TypeError("cuckoofilter: fromBytes() takes an options object with now, if any");
    const p = L.alloc(bytes.length);
    try {
      L.mem().set(bytes, p);
      const s = L.x.cf_deserialize(p, bytes.length, 0, L.scratch + SCRATCH_PTR);
      if (s !== STATUS.OK) throw statusError(L, s);
    } finally {
      L.x.free(p);
    }
    const f = new CuckooFilter(CONSTRUCT, L, L.dview().getUint32(L.scratch + SCRATCH_PTR, true), null);
    try {
      f.#now = clockOf(options, f.#expiring);
    } catch (e) {
      f.dispose();
      throw e;
    }
    return f;
  }

  #live() {
    if (this.#ptr === 0) {
      const e = new Error("cuckoofilter: this filter was disposed");
      e.code = "ERR_DISPOSED";
      throw e;
    }
    return this.#ptr;
  }

  add(key) {
    const f = this.#use();
    const L = this.#L;
    const len = putKey(L, key); // first: it may move the key buffer
    // An expiring filter refreshes a key it holds (one copy, a window from now).
    const s = this.#expiring ? L.x.cfjs_insert_unique(f, L.keyPtr, len) : L.x.cf_insert(f, L.keyPtr, len);
    if (s !== STATUS.OK && s !== STATUS.EXISTS) throw statusError(L, s);
  }

  has(key) {
    const f = this.#use();
    const L = this.#L;
    const len = putKey(L, key);
    return L.x.cf_contains(f, L.keyPtr, len) !== 0;
  }

  delete(key) {
    const f = this.#use();
    const L = this.#L;
    const len = putKey(L, key);
    const s = L.x.cf_delete(f, L.keyPtr, len);
    if (s === STATUS.NOT_FOUND) return false;
    if (s !== STATUS.OK) throw statusError(L, s);
    return true;
  }

  count(key) {
    const f = this.#use();
    const L = this.#L;
    const len = putKey(L, key);
    return L.x.cf_count(f, L.keyPtr, len) >>> 0;
  }

  get size() {
    return this.#L.x.cfjs_items(this.#use());
  }

  addMany(keys) {
    const f = this.#use();
    const L = runBuffers(this.#L);
    const { list, strings } = keyList(keys);
    const n = list.length;
    let added = 0;
    for (let from = 0; from < n; from += RUN) {
      const to = Math.min(n, from + RUN);
      packRun(L, list, from, to, strings);
      const s = L.x.cfjs_insert_many(f, L.runBytes, L.runEnds, to - from, this.#expiring, L.scratch + SCRATCH_SIZE);
      added += L.dview().getUint32(L.scratch + SCRATCH_SIZE, true);
      if (s !== STATUS.OK) {
        const e = statusError(L, s);
        e.added = added;
        e.message = `${e.message}: the first ${added} of ${n} keys were added, key ${added} and later ones were not`;
        throw e;
      }
    }
    return added;
  }

  hasMany(keys) {
    const f = this.#use();
    const L = runBuffers(this.#L);
    const { list, strings } = keyList(keys);
    const n = list.length;
    const out = new Array(n);
    for (let from = 0; from < n; from += RUN) {
      const to = Math.min(n, from + RUN);
      packRun(L, list, from, to, strings);
      L.x.cfjs_contains_many(f, L.runBytes, L.runEnds, to - from, L.runFlags);
      const flags = L.mem();
      for (let i = from, p = L.runFlags - from; i < to; i++) out[i] = flags[p + i] !== 0;
    }
    return out;
  }

  clear() {
    const s = this.#L.x.cf_clear(this.#live());
    if (s !== STATUS.OK) throw statusError(this.#L, s);
  }

  toBytes() {
    const f = this.#use();
    const L = this.#L;
    const n = L.x.cf_serialized_size(f) >>> 0;
    const p = L.alloc(n);
    try {
      const s = L.x.cf_serialize(f, p, n, 0);
      if (s !== STATUS.OK) throw statusError(L, s);
      return L.mem().slice(p, p + n);
    } finally {
      L.x.free(p);
    }
  }

  stats() {
    this.#use();
    return this.#rawStats();
  }

  #rawStats() {
    const f = this.#live();
    const L = this.#L;
    const p = L.scratch + SCRATCH_DOUBLES;
    const s = L.x.cfjs_stats(f, p);
    if (s !== STATUS.OK) throw statusError(L, s);
    const d = new Float64Array(L.mem().buffer, p, STATS.length);
    const st = {};
    STATS.forEach((name, i) => (st[name] = d[i]));
    st.seed = (BigInt(st.seedHi) << 32n) | BigInt(st.seedLo);
    delete st.seedLo;
    delete st.seedHi;
    st.semiSort = st.semiSort !== 0;
    return st;
  }

  // ---- Inspection: where a key goes, what a bucket holds, the moves of an insert.

  locate(key) {
    const f = this.#live();
    const L = this.#L;
    const out = L.scratch + SCRATCH_DOUBLES;
    const len = putKey(L, key);
    const s = L.x.cfjs_locate(f, L.keyPtr, len, out);
    if (s !== STATUS.OK) throw statusError(L, s);
    const dv = L.dview();
    return {
      fingerprint: dv.getFloat64(out, true),
      bucket1: dv.getFloat64(out + 8, true),
      bucket2: dv.getFloat64(out + 16, true),
    };
  }

  readBucket(bucket) {
    const f = this.#live();
    const L = this.#L;
    if (!Number.isSafeInteger(bucket) || bucket < 0)
      throw new RangeError(`cuckoofilter: bucket ${String(bucket)} is not a bucket index`);
    const b = this.stats().bucketSize;
    const p = L.alloc(4 * b);
    try {
      const s = L.x.cfjs_read_bucket(f, bucket, p, b);
      if (s !== STATUS.OK) throw statusError(L, s);
      return Array.from(new Uint32Array(L.mem().buffer, p, b));
    } finally {
      L.x.free(p);
    }
  }

  readTable() {
    const f = this.#live();
    const L = this.#L;
    const n = this.stats().slots;
    const p = L.alloc(4 * n);
    try {
      const s = L.x.cfjs_read_table(f, p, n);
      if (s !== STATUS.OK) throw statusError(L, s);
      return new Uint32Array(L.mem().buffer, p, n).slice();
    } finally {
      L.x.free(p);
    }
  }

  addTraced(key) {
    const f = this.#live();
    const L = this.#L;
    // A path visits at most maxKicks buckets; then the key's own write.
    const cap = this.stats().maxKicks + 1;
    const p = L.alloc(8 * MOVE_FIELDS * cap);
    try {
      const len = putKey(L, key);
      const s = L.x.cfjs_insert_traced(f, L.keyPtr, len, p, cap, L.scratch + SCRATCH_SIZE);
      if (s !== STATUS.OK) throw statusError(L, s);
      const n = Math.min(L.dview().getUint32(L.scratch + SCRATCH_SIZE, true), cap);
      const d = new Float64Array(L.mem().buffer, p, n * MOVE_FIELDS);
      const moves = [];
      for (let i = 0; i < n; i++) {
        const m = d.subarray(i * MOVE_FIELDS, (i + 1) * MOVE_FIELDS);
        moves.push({
          from: m[0] < 0 ? null : { bucket: m[0], slot: m[1] },
          to: { bucket: m[2], slot: m[3] },
          fingerprint: m[4],
        });
      }
      return moves;
    } finally {
      L.x.free(p);
    }
  }

  dispose() {
    if (this.#ptr === 0) return;
    registry.unregister(this);
    this.#L.x.cf_free(this.#ptr);
    this.#ptr = 0;
  }

  [disposeSymbol]() {
    this.dispose();
  }

  get disposed() {
    return this.#ptr === 0;
  }
}

export default CuckooFilter;

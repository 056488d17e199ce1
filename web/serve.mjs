// SPDX-License-Identifier: Apache-2.0 OR MIT
// A static file server for the playground (pages with ES modules and
// WebAssembly must come over http, not file:).  Serves DIR on 127.0.0.1:
//   node web/serve.mjs DIR [PORT]      (PORT 0 or none: any free port)
// Prints "http://127.0.0.1:PORT/" on its first line once it listens.
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";

const root = resolve(process.argv[2] ?? ".");
const port = Number(process.argv[3] ?? 0);
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".md": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
};

const server = createServer((req, res) => {
  let path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  if (path.endsWith("/")) path += "index.html";
  const file = normalize(join(root, path));
  let st;
  try {
    st = file.startsWith(root + sep) && statSync(file);
  } catch {
    st = null;
  }
  if (!st || !st.isFile() || (req.method !== "GET" && req.method !== "HEAD")) {
    res.writeHead(st ? 405 : 404, { "content-type": "text/plain" });
    res.end(st ? "method not allowed\n" : "not found\n");
    return;
  }
  res.writeHead(200, {
    "content-type": types[extname(file)] ?? "application/octet-stream",
    "content-length": st.size,
    "cache-control": "no-cache",
  });
  if (req.method === "HEAD") res.end();
  else createReadStream(file).pipe(res);
});
server.listen(port, "127.0.0.1", () => {
  console.log(`http://127.0.0.1:${server.address().port}/`);
});

// SPDX-License-Identifier: Apache-2.0 OR MIT
// node-redis 4.x against cuckoo.so (run by redis/tests/test_redis_node.py with the
// server's port).  Exercises what a node user calls: the cf.* helpers, CF.INFO's
// fields, CF.MEXISTS through sendCommand (node-redis has no helper for it), and
// a SCANDUMP / LOADCHUNK round trip.  Chunks are binary: scanDump must be called
// with commandOptions({ returnBuffers: true }), or node-redis decodes them as
// UTF-8 strings and corrupts them (checked here too).  Prints "ok" and exits 0
// when every check holds; prints the failures and exits 1 otherwise.
'use strict';
const { createClient, commandOptions } = require('redis');

const failures = [];
function check(cond, what) {
  if (!cond) failures.push(what);
}

async function dump(client, key, options) {
  const chunks = [];
  let iterator = 0;
  for (;;) {
    const reply = options ? await client.cf.scanDump(options, key, iterator)
                          : await client.cf.scanDump(key, iterator);
    if (reply.iterator === 0) return chunks;
    chunks.push(reply);
    iterator = reply.iterator;
  }
}

async function load(client, key, chunks) {
  for (const { iterator, chunk } of chunks) await client.cf.loadChunk(key, iterator, chunk);
}

async function main() {
  const client = createClient({ socket: { host: '127.0.0.1', port: Number(process.argv[2]) } });
  await client.connect();
  try {
    check(await client.cf.reserve('n', 1000, { BUCKETSIZE: 4, EXPANSION: 2 }) === 'OK', 'reserve');
    const items = Array.from({ length: 5000 }, (_, i) => 'item:' + i);
    const added = await client.cf.insert('n', items);
    check(added.every((x) => x === true), 'insert answers true for every item');
    check(await client.cf.exists('n', 'item:7') === true, 'exists');
    check(await client.cf.addNX('n', 'item:7') === false, 'addNX of a present item');
    check(await client.cf.count('n', 'item:7') >= 1, 'count');
    const found = await client.sendCommand(['CF.MEXISTS', 'n', ...items]);
    check(found.every((x) => x === 1), 'CF.MEXISTS finds every item');
    const info = await client.cf.info('n');
    check(info.numberOfInsertedItems === 5000 && info.bucketSize === 4 && info.expansionRate === 2,
          'info fields: ' + JSON.stringify(info));
    check(info.numberOfFilters > 1, 'the filter grew');
    check(await client.cf.del('n', 'item:0') === true, 'del');

    // The documented call: buffers in, buffers out.
    const chunks = await dump(client, 'n', commandOptions({ returnBuffers: true }));
    check(chunks.length >= 2 && chunks.every((c) => Buffer.isBuffer(c.chunk)), 'chunks are Buffers');
    check(chunks.every((c) => Number.isSafeInteger(c.iterator)), 'iterators are exact JS integers');
    await load(client, 'copy', chunks);
    const copied = await client.sendCommand(['CF.MEXISTS', 'copy', ...items.slice(1)]);
    check(copied.every((x) => x === 1), 'the loaded copy finds every item');
    const again = await dump(client, 'copy', commandOptions({ returnBuffers: true }));
    check(Buffer.concat(again.map((c) => c.chunk)).equals(Buffer.concat(chunks.map((c) => c.chunk))),
          'the copy dumps the same bytes');

    // Without returnBuffers the chunks come back as strings, and binary bytes
    // are lost in UTF-8 decoding: the load is refused, never silently wrong.
    const strings = await dump(client, 'n');
    check(typeof strings[0].chunk === 'string', 'without returnBuffers chunks are strings');
    let refused = null;
    try {
      await load(client, 'broken', strings);
    } catch (e) {
      refused = e.message;
    }
    check(refused !== null && /Couldn't (create filter|load chunk)!/.test(refused),
          'a dump decoded as UTF-8 is refused: ' + refused);
    check(await client.exists('broken') === 0, 'and leaves no key');
  } finally {
    await client.quit();
  }
  if (failures.length) {
    for (const f of failures) console.log('FAIL: ' + f);
    process.exit(1);
  }
  console.log('ok');
}

main().catch((e) => {
  console.log('FAIL: ' + (e && e.stack ? e.stack : e));
  process.exit(1);
});

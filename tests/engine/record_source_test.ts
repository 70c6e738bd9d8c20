/**
 * The CSV body cut into blocks: offsets index the file even when the consumer hands each block to a worker
 * (a transfer empties the block's view, so nothing may be measured after it).
 */

import assert from "node:assert/strict";
import { csvBodyBlocks } from "../../src/engine/record_source.ts";
import type { EngineFs } from "../../src/engine/host.ts";

function memoryFs(bytes: Uint8Array, chunk: number): EngineFs {
  return {
    async *readChunks() {
      for (let at = 0; at < bytes.length; at += chunk) yield bytes.slice(at, at + chunk);
    },
  } as unknown as EngineFs;
}

Deno.test("block offsets index the file although every block is transferred away when received", async () => {
  const lines = Array.from({ length: 50 }, (_, i) => `2032-01-01,payee ${i}\n`);
  const text = "Paid,Payee\n" + lines.join("");
  const bytes = new TextEncoder().encode(text);
  for (const chunk of [7, 64, 1000]) {
    const seen: { offset: number; text: string }[] = [];
    for await (const block of csvBodyBlocks(memoryFs(bytes, chunk), "x.csv", 1, 64, "x.csv")) {
      seen.push({ offset: block.offset, text: new TextDecoder().decode(block.bytes) });
      structuredClone(block.bytes.buffer, { transfer: [block.bytes.buffer as ArrayBuffer] }); // as postMessage does
      assert.equal(block.bytes.length, 0, "the view is empty after the transfer");
    }
    assert.ok(seen.length > 3, "several blocks");
    for (const b of seen) {
      assert.equal(text.substring(b.offset, b.offset + b.text.length), b.text, `chunk ${chunk}`);
    }
    assert.equal(seen.map((b) => b.text).join(""), lines.join(""));
  }
});

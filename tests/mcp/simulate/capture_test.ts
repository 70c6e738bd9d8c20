import assert from "node:assert/strict";
import {
  capturedText,
  FileTooLargeError,
  readCapped,
  readFileCapped,
} from "../../../src/mcp/simulate/capture.ts";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

Deno.test("readCapped keeps the first cap bytes and counts the rest, draining to the end", async () => {
  const chunks = [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5]), new Uint8Array([6, 7, 8, 9])];
  const kept = await readCapped(streamOf(chunks), 4);
  assert.deepEqual([...kept.bytes], [1, 2, 3, 4]);
  assert.equal(kept.dropped, 5);
  const all = await readCapped(streamOf(chunks), 100);
  assert.deepEqual([...all.bytes], [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(all.dropped, 0);
  const none = await readCapped(streamOf(chunks), 0);
  assert.equal(none.bytes.length, 0);
  assert.equal(none.dropped, 9);
});

Deno.test("capturedText decodes UTF-8 and marks a truncation", () => {
  const text = new TextEncoder().encode("héllo");
  assert.equal(capturedText({ bytes: text, dropped: 0 }, "stdout"), "héllo");
  assert.match(
    capturedText({ bytes: text, dropped: 7 }, "stdout"),
    /^héllo\n\[bxp-mcp: stdout truncated: 7 bytes/,
  );
});

Deno.test("readFileCapped reads files up to the cap and refuses larger ones", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const path = `${tmp}/f`;
    await Deno.writeFile(path, new Uint8Array(200_000).fill(7));
    assert.equal((await readFileCapped(path, 200_000)).length, 200_000);
    await assert.rejects(readFileCapped(path, 199_999), FileTooLargeError);
    await Deno.writeFile(`${tmp}/e`, new Uint8Array());
    assert.equal((await readFileCapped(`${tmp}/e`, 10)).length, 0);
    await assert.rejects(readFileCapped(`${tmp}/missing`, 10), Deno.errors.NotFound);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

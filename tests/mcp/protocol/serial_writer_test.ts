import assert from "node:assert/strict";
import { SerialWriter } from "../../../src/mcp/protocol/serial_writer.ts";

Deno.test("each message is one chunk ending in a newline, in call order, even with a slow sink", async () => {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  const stream = new WritableStream<Uint8Array>({
    write: async (chunk) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      chunks.push(decoder.decode(chunk));
    },
  });
  const out = new SerialWriter(stream, () => {});
  for (let i = 0; i < 20; i++) out.writeLine(JSON.stringify({ i }));
  await out.flush();
  out.release();
  assert.deepEqual(chunks, Array.from({ length: 20 }, (_, i) => `{"i":${i}}\n`));
});

Deno.test("a failed stream is logged once and later messages are dropped", async () => {
  const logs: string[] = [];
  let writes = 0;
  const stream = new WritableStream<Uint8Array>({
    write: () => {
      writes++;
      throw new Error("broken pipe");
    },
  });
  const out = new SerialWriter(stream, (message) => logs.push(message));
  out.writeLine("{}");
  await out.flush();
  assert.equal(out.failed, true);
  out.writeLine("{}");
  await out.flush();
  assert.equal(writes, 1);
  assert.equal(logs.length, 1);
  assert.match(logs[0], /broken pipe/);
});

Deno.test("release leaves the stream usable by its owner", async () => {
  const stream = new WritableStream<Uint8Array>({ write: () => {} });
  const out = new SerialWriter(stream, () => {});
  out.writeLine("{}");
  await out.flush();
  out.release();
  const again = stream.getWriter();
  await again.write(new Uint8Array([1]));
  again.releaseLock();
});

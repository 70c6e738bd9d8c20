import assert from "node:assert/strict";
import { SerialWriter } from "../../../src/mcp/protocol/serial_writer.ts";
import {
  createOutputLock,
  OUTPUT_FREE,
  OUTPUT_SESSION,
  tryLockOutput,
  unlockOutput,
} from "../../../src/util/output_lock.ts";

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

/** A sink whose writes finish only when the test lets them (a client that has stopped reading). */
function gatedSink() {
  const chunks: string[] = [];
  const gates: (() => void)[] = [];
  const decoder = new TextDecoder();
  const stream = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve) =>
        gates.push(() => {
          chunks.push(decoder.decode(chunk));
          resolve();
        })
      ),
  });
  const turn = async () => {
    while (gates.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    gates.shift()!();
  };
  return { stream, chunks, turn };
}

Deno.test("with an output lock, the writer holds it for as long as any of its lines is being written", async () => {
  const { stream, chunks, turn } = gatedSink();
  const lock = createOutputLock();
  const out = new SerialWriter(stream, () => {}, lock);
  out.writeLine('{"big":1}');
  out.writeLine('{"big":2}');
  assert.equal(lock[0], OUTPUT_SESSION, "taken at once when free");
  assert.equal(tryLockOutput(lock, 7), false, "a direct writer is turned away mid-line");
  await turn();
  assert.equal(tryLockOutput(lock, 7), false, "still held: the second line is not written yet");
  await turn();
  await out.flush();
  assert.deepEqual(chunks, ['{"big":1}\n', '{"big":2}\n']);
  assert.equal(lock[0], OUTPUT_FREE, "released once nothing of the writer's is in flight");
  out.release();
});

Deno.test("with an output lock held by a direct writer, lines wait for it, in order, without blocking", async () => {
  const { stream, chunks, turn } = gatedSink();
  const lock = createOutputLock();
  assert.equal(tryLockOutput(lock, 7), true);
  const out = new SerialWriter(stream, () => {}, lock);
  for (let i = 0; i < 3; i++) out.writeLine(JSON.stringify({ i }));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(chunks, [], "nothing reaches the stream while another owner holds the lock");
  assert.equal(out.queuedBytes, 3 * '{"i":0}\n'.length, "the waiting lines count as queued");
  assert.equal(unlockOutput(lock, 7), true);
  for (let i = 0; i < 3; i++) await turn();
  await out.flush();
  assert.deepEqual(chunks, ['{"i":0}\n', '{"i":1}\n', '{"i":2}\n']);
  assert.equal(out.queuedBytes, 0);
  assert.equal(lock[0], OUTPUT_FREE);
  out.release();
});

Deno.test("release gives up waiting for an output lock that never comes free; flush still resolves", async () => {
  const { stream, chunks } = gatedSink();
  const lock = createOutputLock();
  assert.equal(tryLockOutput(lock, 7), true);
  const out = new SerialWriter(stream, () => {}, lock);
  out.writeLine("{}");
  const flushed = out.flush();
  out.release();
  await flushed;
  assert.deepEqual(chunks, []);
  assert.equal(lock[0], 7, "the other owner's lock is left alone");
});

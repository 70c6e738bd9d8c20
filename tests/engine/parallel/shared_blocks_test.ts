/**
 * Blocks in shared memory (a pool with workers, see recycler.ts): the session copies the input into its own
 * buffer a parse slice at a time and writes its rows straight into the shared output buffer, with the same
 * bytes as plain buffers give; an output buffer its rows did not go into is handed back.
 */

import assert from "node:assert/strict";
import { BlockSession } from "../../../src/engine/parallel/block_eval.ts";
import { BufferRecycler } from "../../../src/engine/parallel/recycler.ts";
import { blockFileContext } from "../../_support/block_context.ts";

const CONFIG = `{conversion_templates: {t: {
  data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out",
  input_schema: { $a: "[A]", $b: "[B] & '-' & [A]", $c: "[C]" },
  row_rules: [{ when: "1 = 1", rows: [{}] }],
  output_schema: { a: "$a", b: "$b", c: "$c" },
}}}`;

function body(rows: number): Uint8Array {
  let text = "";
  for (let i = 0; i < rows; i++) text += `${i},name${i},${(i * 7) % 1000}.5\n`;
  return new TextEncoder().encode(text);
}

function shared(bytes: Uint8Array, capacity = bytes.length): Uint8Array {
  const view = new Uint8Array(new SharedArrayBuffer(capacity), 0, bytes.length);
  view.set(bytes);
  return view;
}

function run(session: BlockSession, bytes: Uint8Array, out: Uint8Array | null) {
  return session.run({ kind: "main", bytes, baseOffset: 0, baseRecord: 0, out, last: false });
}

Deno.test("a block in shared memory gives the bytes a plain one gives, its rows in the shared output buffer", () => {
  const context = blockFileContext(CONFIG, ["A", "B", "C"]);
  // Several parse slices (64 KiB), with lines across their ends.
  const input = body(12000);
  assert.ok(input.length > 3 * 64 * 1024);
  const plain = run(new BlockSession(context), input.slice(), null);
  const session = new BlockSession(context);
  const outBuffer = new Uint8Array(new SharedArrayBuffer(512 * 1024));
  const result = run(session, shared(input), outBuffer);
  assert.deepEqual(result.out, plain.out);
  assert.equal(result.out.buffer, outBuffer.buffer); // written into the shared buffer, not a buffer of its own
  assert.equal(result.spareOut, null);
  assert.equal(result.rowsWritten, 12000);
  const second = run(session, shared(body(3)), new Uint8Array(new SharedArrayBuffer(64 * 1024)));
  assert.equal(new TextDecoder().decode(second.out), "0,name0-0,0.5\n1,name1-1,7.5\n2,name2-2,14.5\n");
  assert.deepEqual(result.out, plain.out);
});

Deno.test("rows that do not fit the shared output buffer come back in a buffer of their own", () => {
  const context = blockFileContext(CONFIG, ["A", "B", "C"]);
  const input = body(200);
  const plain = run(new BlockSession(context), input.slice(), null);
  const small = new Uint8Array(new SharedArrayBuffer(100));
  const result = run(new BlockSession(context), shared(input), small);
  assert.deepEqual(result.out, plain.out);
  assert.ok(!(result.out.buffer instanceof SharedArrayBuffer));
  assert.equal(result.spareOut, small); // handed back, so the pool can lend it again
});

Deno.test("a shared recycler hands out shared memory and keeps only shared buffers", () => {
  const r = new BufferRecycler(64, 4, true);
  const a = r.take(10);
  assert.ok(a.buffer instanceof SharedArrayBuffer);
  r.give(new Uint8Array(128)); // rows past a block's buffer: not kept
  r.give(a);
  assert.equal(r.take(20).buffer, a.buffer);
  assert.ok(!(new BufferRecycler(64, 4).take(10).buffer instanceof SharedArrayBuffer));
});

Deno.test("a block without output rows hands its shared output buffer back, empty", () => {
  const context = blockFileContext(CONFIG.replace("1 = 1", "[A] = 'none'"), ["A", "B", "C"]);
  const target = new Uint8Array(new SharedArrayBuffer(1024));
  const result = run(new BlockSession(context), shared(body(50)), target);
  assert.equal(result.rowsWritten, 0);
  assert.equal(result.out.length, 0);
  assert.equal(result.spareOut, target); // so the pool can lend it again
});

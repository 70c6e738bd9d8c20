import assert from "node:assert/strict";
import { BufferRecycler } from "../../../src/engine/parallel/recycler.ts";
import { recyclerFor } from "../../../src/engine/parallel/file_passes.ts";
import { BlockPool } from "../../../src/engine/parallel/pool.ts";
import { BlockSplitter } from "../../../src/engine/parallel/lines.ts";

Deno.test("a given-back buffer is handed out again instead of a new one", () => {
  const r = new BufferRecycler(1024, 2);
  const a = r.take(100);
  assert.equal(a.length, 100);
  assert.equal(a.buffer.byteLength, 1024);
  r.give(a);
  const b = r.take(900);
  assert.equal(b.buffer, a.buffer);
  assert.equal(r.allocated, 1);
  // Larger than the capacity: a buffer of its own size.
  const big = r.take(5000);
  assert.equal(big.buffer.byteLength, 5000);
  assert.equal(r.allocated, 2);
});

Deno.test("the recycler keeps at most maxSpare idle buffers and ignores small or repeated ones", () => {
  const r = new BufferRecycler(64, 1);
  const a = r.take(10);
  const b = r.take(10);
  r.give(a);
  r.give(a); // twice: kept once
  r.give(b); // over maxSpare: dropped
  r.give(new Uint8Array(8)); // smaller than the capacity: dropped
  const c = r.take(10);
  const d = r.take(10);
  assert.equal(c.buffer, a.buffer);
  assert.notEqual(d.buffer, b.buffer);
  assert.equal(r.allocated, 3);
});

Deno.test("the block splitter fills blocks from the given allocator; contents are the cut lines", () => {
  const r = new BufferRecycler(64, 4);
  const s = new BlockSplitter(16, 1000, () => {
    throw new Error("too long");
  }, (n) => r.take(n));
  const text = "aaaa\nbbbbbbbbbb\ncccccc\ndddddddddddddddddd\nee";
  const blocks = [...s.push(new TextEncoder().encode(text))];
  const rest = s.finish();
  if (rest !== null) blocks.push(rest);
  const decoded = blocks.map((b) => new TextDecoder().decode(b));
  assert.equal(decoded.join(""), text);
  for (const b of blocks) assert.equal(b.buffer.byteLength, 64);
  // Given back, they serve the next blocks (no new allocation).
  const before = r.allocated;
  for (const b of blocks) r.give(b);
  for (const _ of s.push(new TextEncoder().encode("x".repeat(20) + "\n"))) break;
  assert.equal(r.allocated, before);
});

Deno.test("the passes of a run share one pool's block buffers", () => {
  const pool = new BlockPool(1); // the calling thread only: no worker to start
  const other = new BlockPool(1);
  try {
    const first = recyclerFor(pool, 1024, 4);
    const view = first.take(10);
    first.give(view);
    // The next file's pass gets the same recycler, so the buffer the first file gave back is reused.
    const second = recyclerFor(pool, 1024, 4);
    assert.equal(second, first);
    assert.equal(second.take(10).buffer, view.buffer);
    assert.notEqual(recyclerFor(other, 1024, 4), first);
    assert.notEqual(recyclerFor(pool, 2048, 4), first); // another block size: buffers of another size
  } finally {
    pool.close();
    other.close();
  }
});

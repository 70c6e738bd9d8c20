import assert from "node:assert/strict";
import { concatBytes, GrowableBytes } from "../../src/util/bytes.ts";

Deno.test("concatBytes joins in order and returns a lone chunk as is", () => {
  const one = new Uint8Array([7]);
  assert.equal(concatBytes([one]), one);
  assert.deepEqual(
    concatBytes([new Uint8Array([1]), new Uint8Array(), new Uint8Array([2, 3])]),
    new Uint8Array([1, 2, 3]),
  );
  assert.deepEqual(concatBytes([]), new Uint8Array());
});

Deno.test("GrowableBytes grows past its capacity and drops from the front", () => {
  const b = new GrowableBytes(2);
  b.append(new Uint8Array([1, 2, 3]));
  b.append(new Uint8Array([4, 5, 6, 7, 8]));
  assert.deepEqual(b.data.subarray(0, b.length), new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]));
  b.dropFront(3);
  assert.deepEqual(b.data.subarray(0, b.length), new Uint8Array([4, 5, 6, 7, 8]));
  b.append(new Uint8Array([9]));
  assert.deepEqual(b.data.subarray(0, b.length), new Uint8Array([4, 5, 6, 7, 8, 9]));
});

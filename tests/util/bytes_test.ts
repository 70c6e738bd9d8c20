import assert from "node:assert/strict";
import { concatBytes } from "../../src/util/bytes.ts";

Deno.test("concatBytes joins in order and returns a lone chunk as is", () => {
  const one = new Uint8Array([7]);
  assert.equal(concatBytes([one]), one);
  assert.deepEqual(
    concatBytes([new Uint8Array([1]), new Uint8Array(), new Uint8Array([2, 3])]),
    new Uint8Array([1, 2, 3]),
  );
  assert.deepEqual(concatBytes([]), new Uint8Array());
});

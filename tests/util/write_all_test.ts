import assert from "node:assert/strict";
import { writeAll } from "../../src/util/write_all.ts";

Deno.test("writeAll goes on after short writes, handing the array itself to the first write", async () => {
  const bytes = new Uint8Array(1000).map((_, i) => i & 0xff);
  const got: number[] = [];
  const calls: Uint8Array[] = [];
  // Takes at most 300 bytes a call, as a pipe or a busy file may.
  const writer = {
    write(part: Uint8Array): Promise<number> {
      calls.push(part);
      const n = Math.min(300, part.length);
      got.push(...part.subarray(0, n));
      return Promise.resolve(n);
    },
  };
  await writeAll(writer, bytes);
  assert.deepEqual(new Uint8Array(got), bytes);
  assert.equal(calls.length, 4);
  assert.equal(calls[0], bytes, "no second view unless a write fell short");
  await writeAll(writer, new Uint8Array(0));
  assert.equal(calls.length, 4, "nothing to write: no call");
});

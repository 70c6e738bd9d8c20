/** Staged outputs of the real file system adapter copy what they are given and keep the order of writes. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { DenoEngineFs } from "../../src/cli/deno_fs.ts";

Deno.test("a staged write copies its bytes: the caller may reuse the array at once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-write-" });
  try {
    const fs = new DenoEngineFs(dir);
    assert.equal(fs.writesCopy, true);
    const out = await fs.createOutput("out.csv", false);
    assert.notEqual(out, "exists");
    if (out === "exists") return;
    const reused = new Uint8Array(3000);
    const expected: number[] = [];
    // Pieces of every size around the internal buffer size, the same array overwritten after each write.
    const sizes = [1, 2999, 3000, 700_000, 1_048_576, 1_048_577, 5, 2_500_000];
    let fill = 0;
    for (const size of sizes) {
      const bytes = size <= reused.length ? reused.subarray(0, size) : new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = (fill + i) % 251;
      await out.write(bytes);
      for (let i = 0; i < size; i++) expected.push((fill + i) % 251);
      bytes.fill(0); // reuse: the file must not see this
      fill += 7;
    }
    await out.commit();
    const written = await Deno.readFile(join(dir, "out.csv"));
    assert.equal(written.length, expected.length);
    assert.deepEqual(written, new Uint8Array(expected));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an aborted staged output leaves nothing behind, even with bytes still buffered", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-write-" });
  try {
    const fs = new DenoEngineFs(dir);
    const out = await fs.createOutput("out.csv", false);
    if (out === "exists") throw new Error("unexpected");
    await out.write(new Uint8Array(10));
    await out.write(new Uint8Array(3 * 1024 * 1024));
    await out.abort();
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

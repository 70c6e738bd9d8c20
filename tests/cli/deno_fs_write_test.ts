/** Staged outputs of the real file system adapter copy what they are given and keep the order of writes. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { DenoEngineFs } from "../../src/cli/deno_fs.ts";
import type { StagedOutput } from "../../src/engine/host.ts";

/** Runs `body` on a fresh staged `out.csv` of the real adapter in a temp folder, removed afterwards. */
async function withOutput(
  prefix: string,
  body: (out: StagedOutput, dir: string, fs: DenoEngineFs) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    const fs = new DenoEngineFs(dir);
    const out = await fs.createOutput("out.csv", false);
    assert.notEqual(out, "exists");
    if (out === "exists") return;
    await body(out, dir, fs);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a staged write copies its bytes: the caller may reuse the array at once", async () => {
  await withOutput("bxp-write-", async (out, dir, fs) => {
    assert.equal(fs.writesCopy, true);
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
  });
});

Deno.test("shared-memory pieces are written in place, in order with the copied ones, and reusable after", async () => {
  await withOutput("bxp-write-shared-", async (out, dir) => {
    // One shared buffer reused for every shared piece (as a parallel run's output blocks are), small shared
    // pieces (copied) and plain pieces between them, the write buffer half full at times.
    const shared = new Uint8Array(new SharedArrayBuffer(2_000_000));
    const sizes = [10, 1_500_000, 300, 65_536, 700_000, 65_535, 1_999_999, 1];
    const expected: number[] = [];
    let fill = 0;
    for (const [i, size] of sizes.entries()) {
      const bytes = i % 2 === 1 ? shared.subarray(0, size) : new Uint8Array(size);
      for (let j = 0; j < size; j++) bytes[j] = (fill + j) % 253;
      await out.write(bytes);
      for (let j = 0; j < size; j++) expected.push((fill + j) % 253);
      bytes.fill(0); // reused at once: the file must not see this
      fill += 11;
    }
    await out.commit();
    assert.deepEqual(await Deno.readFile(join(dir, "out.csv")), new Uint8Array(expected));
  });
});

Deno.test("an aborted staged output leaves nothing behind, even with bytes still buffered", async () => {
  await withOutput("bxp-write-", async (out, dir) => {
    await out.write(new Uint8Array(10));
    await out.write(new Uint8Array(3 * 1024 * 1024));
    await out.abort();
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  });
});

Deno.test("staged outputs written one after another (and side by side) reuse write buffers without mixing bytes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-buffers-" });
  try {
    const fs = new DenoEngineFs(dir);
    // Each file is several write buffers long, written in odd-sized pieces its caller reuses at once.
    const content = (seed: number) => {
      const bytes = new Uint8Array(3 * 512 * 1024 + 12345);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + seed * 7) & 0xff;
      return bytes;
    };
    const writeAll = async (out: { write(b: Uint8Array): Promise<void> }, bytes: Uint8Array) => {
      const piece = new Uint8Array(70_001);
      for (let at = 0; at < bytes.length; at += piece.length) {
        const n = Math.min(piece.length, bytes.length - at);
        piece.set(bytes.subarray(at, at + n));
        await out.write(piece.subarray(0, n));
        piece.fill(0); // the caller reuses its array: the output must have copied it
      }
    };
    const expected = new Map<string, Uint8Array>();
    for (let i = 0; i < 3; i++) { // one after another: the second and third take the first's buffers
      const out = await fs.createOutput(`seq${i}.csv`, false);
      if (out === "exists") throw new Error("unexpected");
      expected.set(`seq${i}.csv`, content(i));
      await writeAll(out, expected.get(`seq${i}.csv`)!);
      if (i === 1) await out.flush!(); // a flushed output hands its buffers on while it waits staged
      await out.commit();
    }
    const a = await fs.createOutput("a.csv", false);
    const b = await fs.createOutput("b.csv", false);
    if (a === "exists" || b === "exists") throw new Error("unexpected");
    expected.set("a.csv", content(10));
    expected.set("b.csv", content(11));
    await Promise.all([writeAll(a, expected.get("a.csv")!), writeAll(b, expected.get("b.csv")!)]);
    await a.commit();
    await b.commit();
    for (const [name, bytes] of expected) {
      assert.deepEqual(await Deno.readFile(join(dir, name)), bytes, name);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

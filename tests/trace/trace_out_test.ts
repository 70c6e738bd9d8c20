import assert from "node:assert/strict";
import { TraceOut } from "../../src/cli/trace_out.ts";
import { BxtbWriter, readBxtb } from "../../src/trace/bxtb.ts";
import { concatBytes } from "../../src/util/bytes.ts";

/** Frames without magic, as a parallel block hands them over: a whole buffer of its own. */
function blockFrames(from: number, count: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  const w = new BxtbWriter((c) => chunks.push(c.slice()), { writeMagic: false, reuseBuffer: true });
  for (let i = 0; i < count; i++) w.outputRow(from + i, from + i, 0, "emit");
  w.flush();
  return concatBytes(chunks);
}

Deno.test("TraceOut: file bytes as encoded, chunks reused across flushes, appended blocks released", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/t.bxtb`;
    const trace = await TraceOut.open({ toStdout: false, file: path });
    const ref: Uint8Array[] = [];
    const expected = new BxtbWriter((c) => ref.push(c));
    const both = (f: (w: TraceOut | BxtbWriter) => void) => {
      f(trace);
      f(expected);
    };
    both((w) => w.fileStart(0, "t", "in.csv", ["a", "ü"]));
    const appended: Uint8Array[] = [];
    let row = 0;
    for (let block = 0; block < 40; block++) {
      // Large blocks go to the sink as they are, small ones are copied; more rows than a chunk holds also
      // come between flushes.
      const count = block % 3 === 0 ? 2 : block % 3 === 1 ? 1500 : 9000;
      const bytes = blockFrames(row, count);
      expected.appendRaw(bytes.slice());
      trace.appendFrames(bytes);
      appended.push(bytes);
      row += count;
      both((w) => w.filteredRow(row, "rule_skip"));
      await trace.flush();
    }
    both((w) => w.fileEnd(row, row, 0, 0));
    both((w) => w.done(0));
    await trace.close();
    expected.flush();
    const got = await Deno.readFile(path);
    assert.deepEqual(got, concatBytes(ref));
    assert.equal(readBxtb(got).length, row + 40 + 3);
    for (const b of appended) {
      assert.equal(b.byteLength, 0, "an appended block's buffer is released once written");
    }
    assert.ok(trace.chunksAllocated <= 2, `${trace.chunksAllocated} chunk buffers for 40 flushes`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("TraceOut: a view into a larger buffer is written but not released", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/t.bxtb`;
    const trace = await TraceOut.open({ toStdout: false, file: path });
    const frames = blockFrames(0, 2000);
    const backing = new Uint8Array(frames.length + 10);
    backing.set(frames, 5);
    const view = backing.subarray(5, 5 + frames.length);
    trace.appendFrames(view);
    trace.done(0);
    await trace.close();
    assert.equal(backing.byteLength, frames.length + 10, "the caller's larger buffer stays");
    assert.equal(readBxtb(await Deno.readFile(path)).length, 2001);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

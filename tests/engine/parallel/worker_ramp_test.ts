/**
 * Worker threads join a pass only when the calling thread's own timing forecasts enough remaining work, and
 * then only once they have loaded; the output is the same either way.
 */

import assert from "node:assert/strict";
import { BlockSession } from "../../../src/engine/parallel/block_eval.ts";
import { BlockPool } from "../../../src/engine/parallel/pool.ts";
import type { BlockJob, FileContext } from "../../../src/engine/parallel/protocol.ts";
import { WorkerRamp } from "../../../src/engine/parallel/worker_ramp.ts";
import { blockFileContext } from "../../_support/block_context.ts";

const MB = 1024 * 1024;

Deno.test("WorkerRamp: no forecast before three timed spans, then the fastest span decides", () => {
  const ramp = new WorkerRamp(500);
  ramp.observe(MB, 100); // cold: 100 ms per MiB
  ramp.observe(MB, 40);
  assert.equal(ramp.shouldJoin(1000 * MB), false, "two spans say too little");
  ramp.observe(MB, 10); // warm: 10 ms per MiB
  assert.equal(ramp.shouldJoin(49 * MB), false, "490 ms left at the fastest rate");
  assert.equal(ramp.shouldJoin(50 * MB), true, "500 ms left");
  ramp.observe(MB, 80); // a slow block (descheduled) does not undo the warm rate
  assert.equal(ramp.shouldJoin(49 * MB), false);
  assert.equal(ramp.shouldJoin(50 * MB), true);
});

Deno.test("WorkerRamp: blocks too short to time are summed into one span", () => {
  const ramp = new WorkerRamp(100);
  // Blocks of 1 KiB in 0.5 ms each: a span every four blocks (2 ms per 4 KiB), three from twelve blocks.
  for (let i = 0; i < 12; i++) ramp.observe(1024, 0.5);
  assert.equal(ramp.shouldJoin(199 * 1024), false, "99.5 ms left");
  assert.equal(ramp.shouldJoin(200 * 1024), true, "100 ms left");
  const zero = new WorkerRamp(100);
  for (let i = 0; i < 100; i++) zero.observe(1024, 0); // an unusable clock never forecasts
  assert.equal(zero.shouldJoin(1e12), false);
});

function blockContext(): FileContext {
  return blockFileContext(
    `{conversion_templates: {t: {
    data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out",
    input_schema: { $n: "UPPER([Name])", $v: "[Value] * 2" },
    row_rules: [{ when: "1 = 1", rows: [{}] }],
    output_schema: { name: "$n", value: "$v" },
  }}}`,
    ["Name", "Value"],
  );
}

function body(rows: number): Uint8Array {
  let text = "";
  for (let i = 0; i < rows; i++) text += `n${(i * 7919) % 100003},${(i * 31) % 1000}.5\n`;
  return new TextEncoder().encode(text);
}

const job = (bytes: Uint8Array): BlockJob => ({
  kind: "main",
  bytes: bytes.slice(),
  baseOffset: 0,
  baseRecord: 0,
  last: false,
});

Deno.test("a ramped pool keeps a pass on the calling thread while little work remains", async () => {
  const context = blockContext();
  const bytes = body(2000);
  const expected = new BlockSession(context).run(job(bytes));
  const pool = new BlockPool(2, null, 60_000);
  try {
    pool.setFile(context);
    for (let i = 0; i < 20; i++) {
      const r = await pool.submit(job(bytes), 10 * bytes.length);
      assert.deepEqual(r.out, expected.out);
    }
    assert.equal(pool.joined, false);
    assert.equal(pool.blocksOnWorkers, 0);
    assert.equal(pool.workersStarted, 0, "no thread even loads for a pass this small");
  } finally {
    pool.close();
  }
});

Deno.test("a ramped pool brings its worker in once the forecast is long enough", async () => {
  const context = blockContext();
  const bytes = body(4000);
  const expected = new BlockSession(context).run(job(bytes));
  const pool = new BlockPool(2, null, 1);
  try {
    pool.setFile(context);
    // Joins after three timed spans; the worker then takes blocks once it has loaded.
    for (let i = 0; i < 2000 && pool.blocksOnWorkers === 0; i++) {
      const r = await pool.submit(job(bytes), 1e12);
      assert.deepEqual(r.out, expected.out);
    }
    assert.equal(pool.joined, true);
    assert.equal(pool.workersStarted, 1);
    assert.ok(pool.blocksOnWorkers > 0, "the worker evaluated blocks");
    const results = await Promise.all([0, 1, 2, 3, 4, 5].map(() => pool.submit(job(bytes), 1e12)));
    for (const r of results) assert.deepEqual(r.out, expected.out);
    // A new pass starts joined: the workers stay for the rest of the run.
    pool.setFile(context);
    assert.equal(pool.joined, true);
  } finally {
    pool.close();
  }
});

Deno.test("an eager pool (no ramp) gives its worker blocks from the first one", async () => {
  const context = blockContext();
  const bytes = body(500);
  const expected = new BlockSession(context).run(job(bytes));
  const pool = new BlockPool(2);
  try {
    pool.setFile(context);
    assert.equal(pool.joined, true);
    const results = await Promise.all([0, 1, 2].map(() => pool.submit(job(bytes))));
    for (const r of results) assert.deepEqual(r.out, expected.out);
    assert.equal(pool.blocksOnWorkers, 3, "the worker queue takes three before the calling thread does");
  } finally {
    pool.close();
  }
});

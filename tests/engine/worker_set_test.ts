/**
 * A run's worker threads serve its passes one after another: the unpacking of an archive, then the block
 * pool, on the same threads and never two users at once; an inflate session abandoned midway on a shared
 * thread cannot disturb the blocks evaluated there next.
 */

import assert from "node:assert/strict";
import { zipSync } from "fflate";
import { memberChunks } from "../../src/engine/containers/member_stream.ts";
import { ContainerThreads } from "../../src/engine/containers/threads.ts";
import { BlockSession } from "../../src/engine/parallel/block_eval.ts";
import { BlockPool } from "../../src/engine/parallel/pool.ts";
import type { FileContext } from "../../src/engine/parallel/protocol.ts";
import { WorkerSet } from "../../src/engine/worker_set.ts";
import { bytesReader, readZipEntries } from "../../src/formats/zip/archive.ts";
import { blockFileContext } from "../_support/block_context.ts";

function csv(rows: number): Uint8Array {
  let text = "Name,Value\n";
  for (let i = 0; i < rows; i++) text += `n${(i * 7919) % 100003},${(i * 31) % 1000}.5\n`;
  return new TextEncoder().encode(text);
}

function blockContext(): FileContext {
  return blockFileContext(
    `{conversion_templates: {t: {
    data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out",
    input_schema: { $n: "[Name]", $v: "[Value] * 2", $r: "RECORD_NUM()" },
    row_rules: [{ when: "1 = 1", rows: [{}] }],
    output_schema: { name: "$n", value: "$v", record: "$r" },
  }}}`,
    ["Name", "Value"],
  );
}

Deno.test("a WorkerSet lends its threads to one user at a time and replaces a retired one", () => {
  const set = new WorkerSet(1);
  try {
    const first = set.lease();
    assert.ok(first !== null);
    assert.equal(first.workers.length, 1);
    assert.equal(set.lease(), null, "held: a second user gets none");
    first.release();
    first.release(); // twice is harmless
    const again = set.lease();
    assert.ok(again !== null);
    assert.equal(again.workers[0], first.workers[0], "the same thread, not a new one");
    assert.equal(set.started, 1);
    again.retire(again.workers[0]);
    again.release();
    const fresh = set.lease();
    assert.ok(fresh !== null);
    assert.notEqual(fresh.workers[0], first.workers[0]);
    assert.equal(set.started, 2);
    fresh.release();
  } finally {
    set.close();
  }
  assert.equal(set.lease(), null, "closed");
});

Deno.test("the unpacking and then the block pool run on the same threads; an abandoned member disturbs nothing", async () => {
  const data = csv(40_000);
  const zip = zipSync({ "m.csv": [data, { level: 6 }] });
  const reader = bytesReader(zip);
  const [entry] = await readZipEntries(reader);
  const set = new WorkerSet(1);
  try {
    const threads = new ContainerThreads(2, set);
    const inflate = await threads.pool();
    assert.ok(inflate.threaded, "inflates on the shared thread");
    assert.equal(set.lease(), null, "the inflate pass holds the threads");
    // Two sessions: the calling thread takes the first, the shared worker the second. The worker's is
    // abandoned after its first piece, leaving its later answers in flight.
    const local = inflate.session({ ...entry });
    const remote = inflate.session({ ...entry });
    for await (const _piece of memberChunks(reader, entry, remote, 4096)) break;
    for await (const _piece of memberChunks(reader, entry, local)) {
      // drained: ends the calling thread's session
    }
    await threads.close();

    const context = blockContext();
    const pool = new BlockPool(2, set);
    try {
      assert.equal(set.lease(), null, "the block pool holds the threads");
      pool.setFile(context);
      const expected = new BlockSession(context).run({
        kind: "main",
        bytes: data.slice(data.indexOf(10) + 1),
        baseOffset: 0,
        baseRecord: 0,
        last: true,
      });
      // Enough blocks that the worker (not only the calling thread) evaluates several of them.
      const body = data.slice(data.indexOf(10) + 1);
      const results = await Promise.all(
        [0, 1, 2, 3].map(() =>
          pool.submit({ kind: "main", bytes: body.slice(), baseOffset: 0, baseRecord: 0, last: true })
        ),
      );
      for (const r of results) {
        assert.equal(r.records, expected.records);
        assert.deepEqual(r.out, expected.out);
      }
    } finally {
      pool.close();
    }
    assert.equal(set.started, 1, "one thread served both passes");
    const back = set.lease();
    assert.ok(back !== null, "the block pool gave the threads back");
    back.release();
  } finally {
    set.close();
  }
});

import assert from "node:assert/strict";
import { BxtbWriter, readBxtb } from "../../src/trace/bxtb.ts";
import { concatBytes } from "../../src/util/bytes.ts";

function frames(count: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  const w = new BxtbWriter((c) => chunks.push(c.slice()), { writeMagic: false, reuseBuffer: true });
  for (let i = 0; i < count; i++) w.outputRow(i * 10, i, 0, "emit");
  w.flush();
  return concatBytes(chunks);
}

Deno.test("appended frames keep their place, large pieces handed over without a copy", () => {
  const small = frames(3);
  const large = frames(2000); // well over the direct-append size
  const got: Uint8Array[] = [];
  const w = new BxtbWriter((c) => got.push(c), { chunkSize: 64 * 1024 });
  w.fileStart(1, "t", "in.csv", ["a"]);
  w.appendRaw(small);
  w.appendRaw(large);
  w.filteredRow(5, "rule_skip");
  w.appendRaw(large);
  w.done(0);
  w.flush();
  assert.ok(got.includes(large), "the large piece is the sink's, not a copy");

  const expected: Uint8Array[] = [];
  const ref = new BxtbWriter((c) => expected.push(c.slice()), { chunkSize: 64 * 1024, reuseBuffer: true });
  ref.fileStart(1, "t", "in.csv", ["a"]);
  ref.appendRaw(small);
  ref.appendRaw(large);
  ref.filteredRow(5, "rule_skip");
  ref.appendRaw(large);
  ref.done(0);
  ref.flush();
  assert.deepEqual(concatBytes(got), concatBytes(expected));
  assert.equal(readBxtb(concatBytes(got)).length, 1 + 3 + 2000 + 1 + 2000 + 1);
});

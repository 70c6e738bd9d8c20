import assert from "node:assert/strict";
import { SeededRandom } from "../../tools/bench/random.ts";
import {
  FIXED_COLUMNS,
  workloadChunks,
  workloadColumns,
  type WorkloadSpec,
} from "../../tools/bench/workload.ts";

/** The whole workload as text (copying each chunk: the generator reuses its buffer). */
function generate(spec: WorkloadSpec, chunkBytes?: number): string {
  const decoder = new TextDecoder();
  let text = "";
  for (const chunk of workloadChunks(spec, chunkBytes)) text += decoder.decode(chunk);
  return text;
}

Deno.test("workloadColumns: the fixed four, then col4 … col{C-1}", () => {
  assert.deepEqual(workloadColumns(4), ["id", "name", "date", "amount"]);
  assert.deepEqual(workloadColumns(7), ["id", "name", "date", "amount", "col4", "col5", "col6"]);
  assert.equal(workloadColumns(1024).length, 1024);
  assert.equal(workloadColumns(1024)[1023], "col1023");
  assert.throws(() => workloadColumns(3), RangeError);
  assert.throws(() => workloadColumns(4.5), RangeError);
});

Deno.test("workload rows: id, name{id}, cycling DD.MM.2024 date, two-decimal amount, filler cells", () => {
  const rows = 300;
  const cols = 9;
  const lines = generate({ rows, cols }).split("\n");
  assert.equal(lines.length, rows + 2, "header + rows + the empty string after the final LF");
  assert.equal(lines.at(-1), "");
  assert.equal(lines[0], workloadColumns(cols).join(","));
  for (let i = 0; i < rows; i++) {
    const fields = lines[i + 1].split(",");
    assert.equal(fields.length, cols, `row ${i}`);
    assert.equal(fields[0], String(i));
    assert.equal(fields[1], `name${i}`);
    const day = String((i % 28) + 1).padStart(2, "0");
    const month = String((i % 12) + 1).padStart(2, "0");
    assert.equal(fields[2], `${day}.${month}.2024`);
    assert.match(fields[3], /^\d{2,4}\.\d\d$/);
    const amount = Number(fields[3]);
    assert.ok(amount >= 10 && amount <= 1000, `amount ${fields[3]} in 10.00–1000.00`);
    for (const cell of fields.slice(FIXED_COLUMNS.length)) assert.match(cell, /^[A-Za-z0-9]{20}$/);
  }
});

Deno.test("workload: amounts and filler vary (not one repeated value)", () => {
  const lines = generate({ rows: 200, cols: 6 }).trim().split("\n").slice(1).map((l) => l.split(","));
  assert.ok(new Set(lines.map((f) => f[3])).size > 150, "amounts are spread");
  assert.ok(new Set(lines.map((f) => f[4])).size === 200, "filler cells differ");
  assert.ok(
    lines.some((f) => Number(f[3]) > 100) && lines.some((f) => Number(f[3]) <= 100),
    "both IF branches",
  );
  assert.ok(lines.some((f) => f[3].endsWith("0")), "some amounts end in 0 (bxp trims those on output)");
});

Deno.test("workload: deterministic for a seed, different for another, independent of chunk size", () => {
  const spec = { rows: 500, cols: 12 };
  const a = generate(spec);
  assert.equal(generate(spec), a);
  assert.equal(generate(spec, 64), a, "tiny chunks split rows across yields without changing bytes");
  assert.notEqual(generate({ ...spec, seed: 7 }), a);
  assert.equal(
    generate({ ...spec, seed: 7 }).split("\n")[1].split(",")[0],
    "0",
    "the seed only moves random parts",
  );
});

Deno.test("workload: cell width, zero rows, and bad specs", () => {
  const row = generate({ rows: 1, cols: 5, cellWidth: 7 }).split("\n")[1].split(",");
  assert.match(row[4], /^[A-Za-z0-9]{7}$/);
  assert.equal(generate({ rows: 0, cols: 5 }), "id,name,date,amount,col4\n");
  assert.throws(() => generate({ rows: -1, cols: 5 }), RangeError);
  assert.throws(() => generate({ rows: 1, cols: 5, cellWidth: 0 }), RangeError);
});

Deno.test("workload: streams in chunks of about the requested size", () => {
  const sizes: number[] = [];
  let total = 0;
  for (const chunk of workloadChunks({ rows: 20_000, cols: 16 }, 64 * 1024)) {
    sizes.push(chunk.length);
    total += chunk.length;
  }
  assert.ok(sizes.length > 50, `many chunks (${sizes.length})`);
  assert.ok(Math.max(...sizes) <= 64 * 1024 + 1024, "no chunk grows far past the requested size");
  assert.ok(total > 20_000 * 12 * 21, "twelve 20-character filler cells per row, with commas");
});

Deno.test("SeededRandom: reproducible 32-bit values and inclusive integer ranges", () => {
  const a = new SeededRandom(42);
  const b = new SeededRandom(42);
  const seq = Array.from({ length: 50 }, () => a.nextUint32());
  assert.deepEqual(Array.from({ length: 50 }, () => b.nextUint32()), seq);
  assert.ok(seq.every((v) => Number.isInteger(v) && v >= 0 && v < 2 ** 32));
  assert.ok(new Set(seq).size === 50);
  const r = new SeededRandom(1);
  const seen = new Set<number>();
  for (let i = 0; i < 2000; i++) {
    const v = r.intBetween(3, 6);
    assert.ok(v >= 3 && v <= 6);
    seen.add(v);
  }
  assert.deepEqual([...seen].sort(), [3, 4, 5, 6]);
});

Deno.test("workload: quoted writes every field (header included) between quotes, values unchanged", () => {
  const spec = { rows: 250, cols: 7, seed: 7 };
  const plain = generate(spec).split("\n");
  const quoted = generate({ ...spec, quoted: true }, 512).split("\n");
  assert.equal(quoted.length, plain.length);
  for (let i = 0; i < plain.length - 1; i++) {
    const fields = plain[i].split(",");
    assert.equal(quoted[i], fields.map((f) => `"${f}"`).join(","), `line ${i}`);
  }
  assert.equal(quoted.at(-1), "");
});

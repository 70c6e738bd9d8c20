/**
 * A parallel run never detaches a buffer that had a second view: that makes V8 drop its ArrayBufferDetaching
 * protector for the thread, and blocks then took 6-9% longer (see src/engine/parallel/recycler.ts). V8
 * reports the drop under `--trace-protector-invalidation`. Block buffers are shared instead of transferred;
 * an archive's compressed chunks and a trace's block frames are detached with no other view made of them.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { zipSync } from "fflate";
import { entryArgs } from "../_support/processes.ts";

const PARALLEL = {
  BXP_WORKERS: "2",
  BXP_PARALLEL_MIN_BYTES: "1",
  BXP_WORKERS_JOIN_MS: "0",
  BXP_BLOCK_BYTES: "4096",
};

/** bxp-cli with its task's flags plus V8's protector trace; stdout and stderr as one text. */
async function runTraced(args: string[], env: Record<string, string>): Promise<string> {
  const argv = entryArgs("bxp-cli", args).map((a) =>
    a.startsWith("--v8-flags=") ? `${a},--trace-protector-invalidation` : a
  );
  assert.ok(argv.some((a) => a.includes("--trace-protector-invalidation")), "the task passes V8 flags");
  const out = await new Deno.Command(Deno.execPath(), { args: argv, env, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, text);
  return text;
}

/** `rows` lines of a three-column CSV body with a header. */
function csvText(rows: number): string {
  let csv = "id,name,amount\n";
  for (let i = 0; i < rows; i++) csv += `${i},name${i},${(i * 37) % 1000}.${i % 10}0\n`;
  return csv;
}

const CONFIG = (extra: string) =>
  `{ conversion_templates: { t: {
    data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out.csv", ${extra}
    input_schema: { $label: "[id] & '-' & [name]", $id: "[id]", $name: "[name]" },
    row_rules: [{ when: "1 = 1", rows: [{}] }],
    output_schema: { label: "$label", id: "$id", name: "$name" },
  } } }`;

/**
 * Converts `csvText(4000)` under `config` (with `args(dir)` added) in parallel and then serially, in a
 * fresh folder; asserts the parallel run kept the protector and answers what `read` gives after each run.
 */
async function parallelThenSerial<T>(
  config: string,
  args: (dir: string) => string[],
  read: (dir: string) => Promise<T>,
): Promise<{ parallel: T; serial: T }> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-parallel-buffers-" });
  try {
    await Deno.writeTextFile(join(dir, "in.csv"), csvText(4000));
    await Deno.writeTextFile(join(dir, "c.json"), config);
    const argv = ["--config", join(dir, "c.json"), ...args(dir)];
    const log = await runTraced(argv, PARALLEL);
    assert.doesNotMatch(log, /ArrayBufferDetaching/);
    const parallel = await read(dir);
    await runTraced(argv, { BXP_WORKERS: "0" });
    return { parallel, serial: await read(dir) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const readOutput = (dir: string) => Deno.readTextFile(join(dir, "in.out.csv"));

Deno.test("a parallel run converts with its block buffers shared, never detached", async () => {
  const { parallel, serial } = await parallelThenSerial(CONFIG(""), () => [], readOutput);
  assert.equal(parallel, serial);
  assert.equal(parallel.split("\n").length, 4002); // header, 4000 rows, final newline
});

Deno.test("a parallel run with a trace file keeps the protector, and its trace equals the serial run's", async () => {
  const { parallel, serial } = await parallelThenSerial(
    CONFIG(""),
    (dir) => ["--trace-file", join(dir, "t.bxtb")],
    (dir) => Deno.readFile(join(dir, "t.bxtb")),
  );
  assert.ok(parallel.length > 0);
  assert.deepEqual(parallel, serial);
});

Deno.test("rows past a block's output buffer come back without dropping the protector", async () => {
  // Three rows per record: a block's rows outgrow its output buffer (twice the block's size).
  const config = CONFIG("").replace(
    "rows: [{}]",
    "rows: [{}, { label: \"'again'\" }, { name: \"'third'\" }]",
  );
  const { parallel, serial } = await parallelThenSerial(config, () => [], readOutput);
  assert.equal(parallel.split("\n").length, 12_002); // header, three rows per record, final newline
  assert.equal(parallel, serial);
});

/** A CSV of `rows` records whose names are 40 pseudo-random characters: deflates to about 75% of its size. */
function randomCsv(rows: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  let s = 2463534242;
  let csv = "id,name,amount\n";
  for (let i = 0; i < rows; i++) {
    let name = "";
    for (let k = 0; k < 40; k++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      name += alphabet[s & 63];
    }
    csv += `${i},${name},${i % 1000}\n`;
  }
  return csv;
}

Deno.test("an archive inflated on the shared threads keeps the protector", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-parallel-buffers-" });
  try {
    // Two deflated members, over 4 MiB compressed together: enough for the inflate threads, whose
    // compressed chunks are transferred to them.
    const member = new TextEncoder().encode(randomCsv(60_000));
    const zip = zipSync({ "a.csv": [member, { level: 1 }], "b.csv": [member, { level: 1 }] });
    assert.ok(zip.length >= 4 * 1024 * 1024);
    await Deno.writeFile(join(dir, "x.zip"), zip);
    await Deno.writeTextFile(join(dir, "c.json"), CONFIG("zip_input: {},"));
    const log = await runTraced(["--config", join(dir, "c.json")], { ...PARALLEL, BXP_BLOCK_BYTES: "65536" });
    assert.doesNotMatch(log, /ArrayBufferDetaching/);
    assert.match(log, /unpacked 'x\.zip' \(2 members\)/);
    assert.equal((await Deno.readTextFile(join(dir, "b.out.csv"))).split("\n").length, 60_002);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * A parallel run never detaches a block buffer: a detach (a transfer to or from a worker) makes V8 drop its
 * ArrayBufferDetaching protector for the thread, and blocks then took 6-9% longer (see
 * src/engine/parallel/recycler.ts). V8 reports the drop under `--trace-protector-invalidation`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
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

Deno.test("a parallel run converts with its block buffers shared, never detached", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-parallel-buffers-" });
  try {
    let csv = "id,name,amount\n";
    for (let i = 0; i < 4000; i++) csv += `${i},name${i},${(i * 37) % 1000}.${i % 10}0\n`;
    await Deno.writeTextFile(join(dir, "in.csv"), csv);
    await Deno.writeTextFile(
      join(dir, "c.json"),
      `{ conversion_templates: { t: {
        data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out.csv",
        input_schema: { $label: "[id] & '-' & [name]", $id: "[id]", $name: "[name]", $amount: "[amount]" },
        row_rules: [{ when: "1 = 1", rows: [{}] }],
        output_schema: { label: "$label", id: "$id", name: "$name", amount: "$amount" },
      } } }`,
    );
    const log = await runTraced(["--config", join(dir, "c.json")], PARALLEL);
    assert.doesNotMatch(log, /ArrayBufferDetaching/);
    const parallel = await Deno.readTextFile(join(dir, "in.out.csv"));
    await runTraced(["--config", join(dir, "c.json")], { BXP_WORKERS: "0" });
    assert.equal(parallel, await Deno.readTextFile(join(dir, "in.out.csv")));
    assert.equal(parallel.split("\n").length, 4002); // header, 4000 rows, final newline
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

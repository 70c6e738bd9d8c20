/**
 * A run collects garbage on the main thread once between two inputs it converts in blocks, so a run of
 * many large inputs does not carry every earlier file's dead buffers, and not after the last, when nothing
 * would reuse the memory (see src/engine/gc_hint.ts). V8 reports a collection asked for by `gc()` as
 * "testing" under `--trace-gc`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { entryArgs } from "../../_support/processes.ts";

Deno.test("a run collects garbage between the inputs it converts in blocks, not after the last", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-file-gc-" });
  try {
    let csv = "id,name\n";
    for (let i = 0; i < 2000; i++) csv += `${i},name${i}\n`;
    for (const name of ["a", "b", "c"]) await Deno.writeTextFile(join(dir, `${name}.in.csv`), csv);
    // "d" (52 KB) alone is over a threshold of 40 000 bytes; "a", "b" and "c" are 26 KB each.
    await Deno.writeTextFile(join(dir, "d.in.csv"), csv + csv.slice("id,name\n".length));
    await Deno.writeTextFile(join(dir, "small.in.csv"), "id,name\n1,x\n");
    await Deno.writeTextFile(
      join(dir, "c.json"),
      `{ conversion_templates: { t: {
        data_dir: ".", file_pattern_in: ".in.csv", file_pattern_out: ".out.csv",
        input_schema: { $id: "[id]", $name: "[name]" }, row_rules: [{ when: "1 = 1", rows: [{}] }],
        output_schema: { id: "$id", name: "$name" },
      } } }`,
    );
    const args = entryArgs("bxp-cli", ["--config", join(dir, "c.json"), "--quiet"]).map((a) =>
      a.startsWith("--v8-flags=") ? `${a},--trace-gc` : a
    );
    assert.ok(args.some((a) => a.includes("--trace-gc")), "the task passes V8 flags");
    const collections = async (minBytes: string) => {
      const env = { BXP_WORKERS: "2", BXP_PARALLEL_MIN_BYTES: minBytes, BXP_WORKERS_JOIN_MS: "0" };
      const out = await new Deno.Command(Deno.execPath(), { args, env, stdout: "piped", stderr: "piped" })
        .output();
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, text);
      return text.split("\n").filter((line) => line.includes(" testing;")).length;
    };
    // Four inputs go through blocks, the one-row input does not: a collection before each block pass but
    // the first.
    assert.equal(await collections("1024"), 3);
    // One input in blocks: nothing before it to collect, and nothing after it needs the memory.
    assert.equal(await collections("40000"), 0);
    // Nothing converted in blocks: none.
    assert.equal(await collections(String(1 << 30)), 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

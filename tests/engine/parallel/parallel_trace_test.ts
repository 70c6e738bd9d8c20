import assert from "node:assert/strict";
import { runBxpCli } from "../../_support/processes.ts";

// A parallel run's trace must be byte-identical to the serial one, source locators included: block offsets
// read after a block's bytes went to a worker (and were detached) used to stop advancing.
Deno.test("parallel --trace equals the serial trace byte for byte (blocks on worker threads)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const rows = Array.from({ length: 400 }, (_, i) => `${i},name${i},${i % 7 === 0 ? "" : i * 3}`);
    await Deno.writeTextFile(`${dir}/a.in.csv`, ["id,name,amount", ...rows, ""].join("\n"));
    const config = {
      conversion_templates: {
        t: {
          data_dir: ".",
          file_pattern_in: ".in.csv",
          file_pattern_out: ".out.csv",
          input_schema: { $id: "[id]", $label: "[name] & '-' & [amount]" },
          row_rules: [{ when: "[amount] != ''", rows: [{}] }],
          output_schema: { id: "$id", label: "$label" },
        },
      },
    };
    await Deno.writeTextFile(`${dir}/c.json`, JSON.stringify(config));
    const run = async (workers: string) => {
      const env = {
        BXP_WORKERS: workers,
        BXP_PARALLEL_MIN_BYTES: "0",
        BXP_WORKERS_JOIN_MS: "0",
        BXP_BLOCK_BYTES: "512",
      };
      const res = await runBxpCli(["--config", `${dir}/c.json`, "--trace", "--quiet"], { cwd: dir, env });
      assert.equal(res.code, 0, res.stderr);
      return res.stdout;
    };
    const serial = await run("0");
    assert.deepEqual(await run("3"), serial);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

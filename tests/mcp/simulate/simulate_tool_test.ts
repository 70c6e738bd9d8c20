import assert from "node:assert/strict";
import { join } from "node:path";
import { toolFailure } from "../../../src/mcp/protocol/mod.ts";
import { ProjectRoot } from "../../../src/mcp/security/paths.ts";
import { Gate, Simulator } from "../../../src/mcp/simulate/mod.ts";
import { intArg, SIMULATE_TOOL } from "../../../src/mcp/tools/simulate_tool.ts";
import { type BxpCall, DEFAULT_MAX_BYTES, type ToolContext } from "../../../src/mcp/tools/tool_kit.ts";

const CONFIG = '{conversion_templates:{t:{data_dir:".",file_pattern_in:".csv"}}}';

function call(): BxpCall {
  return {
    name: "bxp_simulate",
    budget: DEFAULT_MAX_BYTES,
    allowStructured: SIMULATE_TOOL.allowStructured,
    requestId: 1,
    signal: new AbortController().signal,
    progress: () => {},
    fail: toolFailure,
  };
}

async function withContext(fn: (context: ToolContext, spawned: string[]) => Promise<void>): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix: "bxp-sim-tool-" });
  const spawned: string[] = [];
  try {
    await Deno.writeTextFile(join(tmp, "in.csv"), "v\n1\n");
    const root = await ProjectRoot.open(tmp);
    const simulator = new Simulator({
      tempBase: () => tmp,
      locateCli: () => {
        spawned.push("cli");
        return Promise.reject(new Error("no bxp-cli in this test"));
      },
      childEnv: () => ({}),
      timeoutMs: 1000,
      log: () => {},
      processGate: new Gate(1),
    });
    await fn({ simulator, root: () => Promise.resolve(root), allowWrite: false }, spawned);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

Deno.test("intArg: absent is null; anything but an integer in range is refused with the range", () => {
  assert.deepEqual(intArg({}, "n", 0, 10), { value: null });
  assert.deepEqual(intArg({ n: null }, "n", 0, 10), { value: null });
  assert.deepEqual(intArg({ n: 10 }, "n", 0, 10), { value: 10 });
  for (const bad of [-1, 11, 1.5, "5", true, [1], Number.NaN, Infinity]) {
    assert.deepEqual(
      intArg({ n: bad }, "n", 0, 10),
      { error: "'n' must be an integer from 0 to 10" },
      String(bad),
    );
  }
});

Deno.test("bxp_simulate refuses malformed arguments before anything runs", async () => {
  await withContext(async (context, spawned) => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { config: CONFIG, template: "t", csv: "v\n", sample_rows: 1001 },
        /'sample_rows' must be an integer from 0 to 1000/,
      ],
      [{ config: CONFIG, template: "t", csv: "v\n", sample_rows: "5" }, /'sample_rows' must be an integer/],
      [
        { config: CONFIG, template: "t", csv: "v\n", max_bytes: 100 },
        /'max_bytes' must be an integer from 8192 to 4194304/,
      ],
      [{ config: CONFIG, template: "t", csv: "v\n", csv_path: "in.csv" }, /either 'csv' or 'csv_path'/],
      [
        { config: CONFIG, template: "t", csv_path: "in.csv", file_name: "x.csv" },
        /'file_name' goes with 'csv'/,
      ],
      [{ config: CONFIG, template: "t" }, /missing 'csv' .*'csv_path'/],
      [{ config: CONFIG, template: "t", csv_path: "../in.csv" }, /\.\./],
    ];
    for (const [args, why] of cases) {
      const result = await SIMULATE_TOOL.run(args, call(), context);
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match(result.text, why, JSON.stringify(args));
    }
    assert.deepEqual(spawned, [], "no bxp-cli was looked for");
  });
});

Deno.test("bxp_simulate names the csv_path input by its own file name, checked against file_pattern_in", async () => {
  await withContext(async (context) => {
    const config = '{conversion_templates:{t:{data_dir:".",file_pattern_in:"_cash.csv"}}}';
    const result = await SIMULATE_TOOL.run({ config, template: "t", csv_path: "in.csv" }, call(), context);
    assert.deepEqual(result.structured, {
      ok: false,
      error: `the input file name must end with the template's file_pattern_in "_cash.csv"`,
      detail: "in.csv",
    });
  });
});

/**
 * `FIELDS(n)` reads a field by position, so a config that calls it must see every field decoded: with no
 * header line (no column is named at all) and with fields past the header's width. The regression this
 * pins: the lazy CSV parser decoded only named columns, and every `FIELDS` value came out "" with exit 0.
 * Through the real bxp-cli on every path: serial, block-parallel on small blocks, and the reference mode.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runBxpCli } from "../_support/processes.ts";

const PATHS: Record<string, Record<string, string>> = {
  serial: { BXP_WORKERS: "0" },
  blocks: { BXP_WORKERS: "2", BXP_PARALLEL_MIN_BYTES: "1", BXP_WORKERS_JOIN_MS: "0", BXP_BLOCK_BYTES: "8" },
  reference: { BXP_REFERENCE: "1" },
};

function config(headerLine: number, schema: string, output: string): string {
  return `{ conversion_templates: { t: {
    data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out.csv",
    csv_header_line: ${headerLine}, csv_delimiter_in: "|",
    input_schema: { ${schema} }, row_rules: [{ when: "TRUE", rows: [{}] }], output_schema: { ${output} },
  } } }`;
}

const CASES = [
  {
    name: "headerless FIELDS(1), FIELDS(2)",
    input: "PID|a|b\nMSH|c|d\n",
    config: config(0, '$a: "FIELDS(1)", $b: "FIELDS(2)"', 'A: "$a", B: "$b"'),
    expected: "A,B\nPID,a\nMSH,c\n",
  },
  {
    name: "a named column beside FIELDS past the header's width",
    input: "k|v\n1|x|extra\n2|y\n",
    config: config(1, '$k: "[k]", $third: "FIELDS(3)"', 'k: "$k", third: "$third"'),
    expected: "k,third\n1,extra\n2,\n",
  },
];

for (const c of CASES) {
  for (const [path, env] of Object.entries(PATHS)) {
    Deno.test(`positional reads: ${c.name} (${path})`, async () => {
      const dir = await Deno.makeTempDir({ prefix: "bxp-positional-" });
      try {
        await Deno.writeTextFile(join(dir, "in.csv"), c.input);
        await Deno.writeTextFile(join(dir, "bxp-cli.json"), c.config);
        const r = await runBxpCli(["--config", join(dir, "bxp-cli.json")], { env });
        assert.equal(r.code, 0, r.stderr);
        assert.equal(await Deno.readTextFile(join(dir, "in.out.csv")), c.expected);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
}

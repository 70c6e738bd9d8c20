/**
 * A target that needs fixed decimals is reachable: `FORMAT_NUMBER` writes `185.50`, `185,50` or `1 234,50`
 * exactly, and `AS_TEXT` keeps an input's text (`1111.0`), where every other value is written in bxp's
 * shortest form (`185.5`, `1111`: pinned by bxp's goldens, unchanged). Through the real bxp-cli on the
 * default, serial, block and reference paths, so the folding and copying fast paths cannot drop the form.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runBxpCli } from "../_support/processes.ts";

const PATHS: Record<string, Record<string, string>> = {
  default: {},
  serial: { BXP_WORKERS: "0" },
  blocks: { BXP_WORKERS: "2", BXP_PARALLEL_MIN_BYTES: "1", BXP_WORKERS_JOIN_MS: "0", BXP_BLOCK_BYTES: "16" },
  reference: { BXP_REFERENCE: "1" },
};

const INPUT = "Id;Amount;Note\n1111.0;185,5;a\n0042;-1234,567;b\n7;0,004;c\n";

function config(decimalOut: string): string {
  return `{ conversion_templates: { t: {
    data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out.csv",
    csv_delimiter_in: ";", csv_decimal_separator_in: ",", csv_decimal_separator_out: "${decimalOut}",
    csv_delimiter_out: ";",
    input_schema: {
      $id: "AS_TEXT([Id])", $plain: "[Amount]", $fixed: "FORMAT_NUMBER([Amount], 2)",
      $grouped: "FORMAT_NUMBER([Amount], 2, ',', ' ')", $picked: "IF([Note] = 'b', FORMAT_NUMBER(1200, 2), '1200.00')",
      $literal: "'1200.00'",
    },
    row_rules: [{ when: "TRUE", rows: [{}] }],
    output_schema: { id: "$id", plain: "$plain", fixed: "$fixed", grouped: "$grouped", picked: "$picked", literal: "$literal" },
  } } }`;
}

const EXPECTED: Record<string, string> = {
  ".": "id;plain;fixed;grouped;picked;literal\n" +
    "1111.0;185.5;185.50;185,50;1200;1200\n" +
    "0042;-1234.567;-1234.57;-1 234,57;1200.00;1200\n" +
    "7;0.004;0.00;0,00;1200;1200\n",
  // A plain decimal's "." is rewritten by csv_decimal_separator_out, FORMAT_NUMBER's included.
  ",": "id;plain;fixed;grouped;picked;literal\n" +
    "1111,0;185,5;185,50;185,50;1200;1200\n" +
    "0042;-1234,567;-1234,57;-1 234,57;1200,00;1200\n" +
    "7;0,004;0,00;0,00;1200;1200\n",
};

for (const [path, env] of Object.entries(PATHS)) {
  Deno.test(`FORMAT_NUMBER and AS_TEXT are written as they are (${path})`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "bxp-written-" });
    try {
      await Deno.writeTextFile(join(dir, "in.csv"), INPUT);
      for (const [decimalOut, expected] of Object.entries(EXPECTED)) {
        await Deno.writeTextFile(join(dir, "bxp-cli.json"), config(decimalOut));
        const r = await runBxpCli(["--config", join(dir, "bxp-cli.json")], { env });
        assert.equal(r.code, 0, r.stderr);
        assert.equal(
          await Deno.readTextFile(join(dir, "in.out.csv")),
          expected,
          `decimal out '${decimalOut}'`,
        );
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

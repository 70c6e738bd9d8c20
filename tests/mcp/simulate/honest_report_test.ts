/**
 * bxp_simulate's report never reads "ok" for a run whose output breaks its own format, and its counts agree
 * with each other (or say why not), through the real bxp-mcp process running the real bxp-cli.
 */

import assert from "node:assert/strict";
import { ServerProcess, type Wire } from "../_support/server_process.ts";

/** The structured report of a `tools/call` response. */
function reportOf(message: Wire): Wire {
  const result = message.result;
  assert.ok(result !== undefined, JSON.stringify(message).slice(0, 400));
  return result.structuredContent ?? JSON.parse(result.content[0].text);
}

function config(extra: Record<string, unknown>): string {
  return JSON.stringify({
    conversion_templates: {
      t: {
        data_dir: ".",
        file_pattern_in: ".csv",
        file_pattern_out: ".out",
        input_schema: { $name: "[name]", $amount: "[amount]" },
        row_rules: [{ when: "[name] != 'Total'", rows: [{}] }],
        output_schema: { name: "$name", amount: "$amount" },
        ...extra,
      },
    },
  });
}

/** Two preamble lines, the header on line 3, three records, a blank line and a footer record. */
const STATEMENT = "Statement of account\nGenerated 2024-05-01\nname,amount\nann,1\nbob,2\ncy,3\n\nTotal,6\n";

Deno.test({
  name:
    "bxp_simulate: an unquoted delimiter is status warnings; preamble lines are not records, and it says so",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await ServerProcess.start();
    try {
      await server.call(1, "bxp_simulate", {
        config: config({ csv_header_line: 3 }),
        template: "t",
        csv: STATEMENT,
      });
      const counted = reportOf(await server.response(1, 120_000));
      assert.equal(counted.status, "ok", counted.diagnostics);
      // bxp-cli read 4 records (3 + the footer, which no rule matched); the 6 non-empty lines after the first
      // also hold the second preamble line and the header.
      assert.equal(counted.trace.source_rows, 4);
      assert.match(counted.summary, /read 1 file, 4 records in, 3 rows written/);
      assert.equal(counted.input.records, 4);
      assert.equal(counted.input.records_from, "trace");
      assert.equal(counted.input.data_lines, 6);
      assert.match(
        counted.input.not_records,
        /^2 of the 6 non-empty lines after the first are not records: the header line and the preamble/,
      );
      assert.equal(counted.trace.filtered.count, 1, "the footer is a record no rule matched");
      assert.equal(counted.output_records, counted.trace.written_rows);
      assert.match(
        (await server.response(1)).result.content[0].text,
        /; 4 input records in input\.csv \(of 6 non-empty lines after the first\) -> 3 output records/,
      );

      await server.call(2, "bxp_simulate", {
        config: config({ csv_text_quote_out: "none" }),
        template: "t",
        csv: 'name,amount\nann,1\n"bob, jr",2\n',
      });
      const broken = reportOf(await server.response(2, 120_000));
      assert.equal(broken.exit_code, 2, broken.diagnostics);
      assert.equal(broken.status, "warnings");
      assert.match(
        broken.diagnostics,
        /^warning: '[^']*input\.csv' record 2: output column 'name' holds the output delimiter ',' .*csv_text_quote_out: "double"/m,
      );
      assert.ok(broken.findings.some((f: Wire) => f.code === "unquoted_delimiter" && f.record === 2));
      // Nothing differs between the counts here: no note.
      assert.equal(broken.input.records, 2);
      assert.equal(broken.input.not_records, undefined);
      const textOf = (await server.response(2)).result.content[0].text as string;
      assert.match(textOf, /^bxp_simulate t: warnings \(exit 2\); 2 input records in input\.csv -> 2 output/);
    } finally {
      await server.dispose();
    }
  },
});

/**
 * Over MCP there is no `--debug`: bxp_simulate's diagnostics point an agent at the report's
 * `trace.row_errors` instead of bxp-cli's terminal advice, and that list does name the failing rows. Through
 * the real bxp-mcp process running the real bxp-cli.
 */

import assert from "node:assert/strict";
import { ServerProcess, type Wire } from "../_support/server_process.ts";
import { hintsForMcp } from "../../../src/mcp/simulate/report.ts";

const CONFIG = JSON.stringify({
  conversion_templates: {
    t: {
      data_dir: ".",
      file_pattern_in: ".csv",
      file_pattern_out: ".out",
      input_schema: { $n: "[amount] * 2" },
      row_rules: [{ when: "TRUE", rows: [{}] }],
      output_schema: { n: "$n" },
    },
  },
});

Deno.test({
  name: "bxp_simulate: expression errors point to trace.row_errors, not to --debug",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await ServerProcess.start();
    try {
      await server.call(1, "bxp_simulate", { config: CONFIG, template: "t", csv: "amount\n1\nabc\n3\n" });
      const message: Wire = await server.response(1, 120_000);
      const report = message.result.structuredContent;
      assert.equal(report.status, "warnings", report.diagnostics);
      assert.match(report.diagnostics, /1 input_schema expression error\(s\)/);
      assert.match(report.diagnostics, /trace\.row_errors/);
      assert.doesNotMatch(report.diagnostics, /--debug/);
      assert.equal(report.trace.row_errors.count, 1);
    } finally {
      await server.dispose();
    }
  },
});

Deno.test("hintsForMcp leaves every other line as bxp-cli wrote it", () => {
  const text =
    "warning: 2 input_schema expression error(s) in 'a.csv' (run with --debug to see details)\nnote: x\n";
  assert.equal(
    hintsForMcp(text),
    "warning: 2 input_schema expression error(s) in 'a.csv' (the report's trace.row_errors lists the rows, " +
      "expressions and errors)\nnote: x\n",
  );
});

/**
 * The text content carries the whole answer (a client such as Gemini CLI shows its model only `content`):
 * through a real bxp-mcp, bxp_validate's first block is still bxp's annotated config and its verdict
 * follows in a second block; bxp_simulate's summary is followed by its report as JSON, or, when that would
 * break the call's max_bytes, by a note saying so. Structured content is unchanged.
 */
import assert from "node:assert/strict";
import { ServerProcess, type Wire } from "../_support/server_process.ts";
import { VERDICT_LABEL } from "../../../src/mcp/tools/eval_answer.ts";
import { STRUCTURED_COPY_LABEL } from "../../../src/mcp/tools/text_copy.ts";

const CONFIG =
  `{ conversion_templates: { t: { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: "_out.csv",
  input_schema: { $v: "[v]" }, row_rules: [{ when: "1 = 1", rows: [{}] }], output_schema: { v: "$v" } } } }`;

/** The JSON after a block's label line. */
function afterLabel(text: string, label: string): unknown {
  assert.ok(text.startsWith(`${label}\n`), text.slice(0, 120));
  return JSON.parse(text.slice(label.length + 1));
}

Deno.test("bxp_validate and bxp_simulate repeat their structured answer as text", async () => {
  const server = await ServerProcess.start();
  let id = 0;
  const call = async (name: string, args: Wire) => {
    id++;
    await server.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    return (await server.response(id)).result as Wire;
  };
  try {
    await server.send({ jsonrpc: "2.0", id: "i", method: "initialize", params: { capabilities: {} } });
    await server.response("i");

    const broken = CONFIG.replace('"[v]"', '"NOPE([v])"');
    const validated = await call("bxp_validate", { config: broken });
    assert.equal(validated.isError, false);
    assert.equal(validated.content.length, 2);
    assert.deepEqual(JSON.parse(validated.content[0].text), validated.structuredContent.annotated);
    const { annotated: _annotated, ...verdict } = validated.structuredContent;
    assert.deepEqual(afterLabel(validated.content[1].text, VERDICT_LABEL), verdict);
    assert.ok(
      verdict.findings.some((f: Wire) => f.code === "expr.UnknownFunction"),
      "the findings are in the text",
    );

    const simulated = await call("bxp_simulate", { config: CONFIG, template: "t", csv: "v\n1\n2\n" });
    assert.equal(simulated.isError, false, simulated.content[0].text);
    assert.match(simulated.content[0].text, /^bxp_simulate t: ok/, "the summary stays first");
    assert.equal(simulated.content[1].type, "text");
    assert.deepEqual(
      afterLabel(simulated.content[1].text, STRUCTURED_COPY_LABEL),
      simulated.structuredContent,
    );
    assert.match(
      simulated.content[1].text,
      /"csv":"v\\n1\\n2\\n"/,
      "the output rows reach a text-only client",
    );
    assert.ok(simulated.content.slice(2).every((c: Wire) => c.type === "resource_link"), "links follow");

    // A report that fills its budget: the copy would break max_bytes, so a note says what would carry it.
    const csv = "v\n" + Array.from({ length: 400 }, (_, i) => `row-${i}-${"x".repeat(20)}`).join("\n") + "\n";
    const tight = await call("bxp_simulate", {
      config: CONFIG,
      template: "t",
      csv,
      sample_rows: 400,
      max_bytes: 16384,
    });
    assert.equal(tight.isError, false, tight.content[0].text);
    const wire = new TextEncoder().encode(JSON.stringify(tight)).length;
    assert.ok(wire <= 16384 + 2048, `about within its budget: ${wire}`);
    assert.match(
      tight.content[1].text,
      /not repeated as text: the answer would be \d+ bytes, over this call's/,
    );
    assert.ok(tight.structuredContent.outputs.length === 1, "the structured content is whole");
    assert.equal(await server.close(), 0);
  } finally {
    await server.dispose();
  }
});

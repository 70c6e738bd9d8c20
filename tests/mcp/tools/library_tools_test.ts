/**
 * `bxp_list_templates` and `bxp_fetch_template` with neither `config` nor `path` answer from the built-in
 * template library (a fetched library template is its whole config, which validates clean), through the
 * real bxp-mcp process; a config given inline still wins.
 */
import assert from "node:assert/strict";
import { resultText, ServerProcess, type Wire } from "../_support/server_process.ts";

async function call(server: ServerProcess, id: string, name: string, args: unknown): Promise<Wire> {
  await server.call(id, name, args);
  return (await server.response(id)).result;
}

Deno.test("the library tools answer from the built-in library without a config", async () => {
  const server = await ServerProcess.start([]);
  try {
    const listed = await call(server, "l", "bxp_list_templates", {});
    assert.equal(listed.isError, false, JSON.stringify(listed).slice(0, 300));
    const ids = JSON.parse(resultText({ result: listed })).templates.map((t: Wire) => t.id);
    assert.equal(ids.length, 12, ids.join(","));
    assert.ok(
      ids.includes("revolutx_to_wealthfolio") && ids.includes("xtb2_cash_to_brychtapp"),
      ids.join(","),
    );

    const fetched = await call(server, "f", "bxp_fetch_template", { template: "revolutx_to_wealthfolio" });
    assert.equal(fetched.isError, false);
    const config = resultText({ result: fetched });
    assert.match(config, /revolutx_to_wealthfolio/);
    const validated = await call(server, "v", "bxp_validate", { config });
    assert.equal(validated.structuredContent.ok, true, JSON.stringify(validated.structuredContent.findings));

    const missing = await call(server, "m", "bxp_fetch_template", { template: "revolut_to_wealthfolio" });
    const answer = JSON.parse(resultText({ result: missing }));
    assert.match(answer.$err_1, /not found/);
    assert.ok(answer.available.includes("revolutx_to_wealthfolio"));

    // An inline config is still what the tools read when given.
    const inline = '{conversion_templates: {mine: {data_dir: ".", file_pattern_in: ".csv", ' +
      'file_pattern_out: ".out.csv", input_schema: {}, output_schema: {}}}}';
    const own = await call(server, "o", "bxp_list_templates", { config: inline });
    assert.deepEqual(JSON.parse(resultText({ result: own })).templates.map((t: Wire) => t.id), ["mine"]);
  } finally {
    await server.close();
  }
});

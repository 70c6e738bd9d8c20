/**
 * The official MCP SDK client validates every structured answer against the tool's outputSchema (and
 * compiles every schema when listing): the catalog's new shapes (bxp_validate's verdict, bxp_list_templates'
 * two shapes, bxp_fetch_template's not-found answer) pass it, and refusals by the argument checker arrive
 * as tool failures.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { entryArgs } from "../../_support/processes.ts";

interface TextResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const CONFIG =
  `{ conversion_templates: { a: { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: "_o.csv",
  input_schema: { $x: "[A]" }, output_schema: { x: "$x" } } } }`;

Deno.test({
  name: "the SDK client accepts every structured answer of the tool layer against its outputSchema",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmpDir = await Deno.makeTempDir({ prefix: "bxp-mcp-sdk-schemas-" });
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: entryArgs("bxp-mcp"),
      env: { TMPDIR: tmpDir, PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
      stderr: "pipe",
    });
    const errors: unknown[] = [];
    const client = new Client({ name: "bxp-mcp-schemas-test", version: "1.0.0" });
    client.onerror = (error: unknown) => errors.push(error);
    await client.connect(transport);
    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<TextResult>;
    try {
      const { tools } = await client.listTools() as { tools: { name: string; inputSchema: unknown }[] };
      for (const tool of tools) {
        const schema = tool.inputSchema as { additionalProperties?: unknown; properties: object };
        assert.equal(schema.additionalProperties, false, tool.name);
        assert.ok("max_bytes" in schema.properties, tool.name);
      }
      const clean = await call("bxp_validate", { config: CONFIG });
      assert.deepEqual(
        [clean.structuredContent?.ok, clean.structuredContent?.errors, clean.structuredContent?.findings],
        [true, 0, []],
      );
      const broken = await call("bxp_validate", { config: "{ a: 1,, }" });
      assert.equal(broken.structuredContent?.ok, false);
      assert.equal(
        (await call("bxp_list_templates", { config: CONFIG })).structuredContent?.templates !== undefined,
        true,
      );
      const unparsable = await call("bxp_list_templates", { config: "{" });
      assert.equal(typeof unparsable.structuredContent?.$err_1, "string");
      const absent = await call("bxp_fetch_template", { config: CONFIG, template: "zz" });
      assert.deepEqual(absent.structuredContent?.available, ["a"]);
      const viaAlias = await call("bxp_fetch_template", { config: CONFIG, id: "a" });
      assert.equal(viaAlias.structuredContent?.file_pattern_in, ".csv");
      const docs = await call("bxp_docs", { name: "UPPER" });
      assert.equal(docs.structuredContent, undefined, "bxp_docs answers text only");
      assert.equal(JSON.parse(docs.content[0].text).functions[0].name, "UPPER");
      const mapped = await call("bxp_eval", { expr: "REMAP('a', 'm')", maps: { m: { a: "b" } } });
      assert.deepEqual(mapped.structuredContent, { ok: true, value: "b" });
      const unknown = await call("bxp_eval", { expression: "1" });
      assert.equal(unknown.isError, true);
      assert.match(unknown.content[0].text, /^error: unknown argument 'expression'/);
      assert.deepEqual(errors, [], "the client saw no protocol errors");
    } finally {
      await client.close();
      await Deno.remove(tmpDir, { recursive: true }).catch(() => {});
    }
  },
});

/**
 * The official MCP TypeScript SDK drives the real bxp-mcp process: it lists the tools (which makes the
 * client compile every output schema) and calls each one, validating structured content as it goes.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CONFORMANCE_DIR, entryArgs } from "../_support/processes.ts";
import { BXP_TOOLS } from "../../src/mcp/tools/catalog.ts";

/** The tools a server without --allow-write lists, in catalog order. */
const TOOL_ORDER = BXP_TOOLS.filter((t) => !t.requiresWrite).map((t) => t.name);

interface TextResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

async function connect(tmpDir: string) {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: entryArgs("bxp-mcp"),
    env: { TMPDIR: tmpDir, PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
    stderr: "pipe",
  });
  const errors: unknown[] = [];
  const client = new Client({ name: "bxp-mcp-test", version: "1.0.0" });
  client.onerror = (error: unknown) => errors.push(error);
  await client.connect(transport);
  return { client, errors };
}

Deno.test({
  name:
    "the SDK client lists the catalog tools and calls the nine core ones with schema-valid structured content",
  ignore: CONFORMANCE_DIR === null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmpDir = await Deno.makeTempDir({ prefix: "bxp-mcp-sdk-" });
    const { client, errors } = await connect(tmpDir);
    try {
      const info = client.getServerVersion();
      assert.equal(info?.name, "bxp-mcp");
      assert.match(client.getInstructions() ?? "", /bxp_docs.*bxp_eval_trace.*bxp_simulate/s);

      const { tools } = await client.listTools() as { tools: { name: string; outputSchema?: unknown }[] };
      assert.deepEqual(tools.map((t) => t.name), TOOL_ORDER);
      const byName = new Map(tools.map((t) => [t.name, t]));
      // The protocol layer passes each catalog schema through untouched (required lists included).
      for (const tool of BXP_TOOLS.filter((t) => !t.requiresWrite)) {
        assert.deepEqual(byName.get(tool.name)?.outputSchema, tool.outputSchema, `${tool.name} outputSchema`);
      }
      assert.ok(byName.get("bxp_simulate")!.outputSchema, "bxp_simulate declares an output schema");
      assert.equal(byName.get("bxp_eval_trace")!.outputSchema, undefined);

      const dataset = new URL("datasets/trading212_to_wealthfolio/", CONFORMANCE_DIR!);
      const config = await Deno.readTextFile(new URL("sample.json", dataset));
      const csv = await Deno.readTextFile(new URL("sample.csv", dataset));
      const expected = await Deno.readTextFile(new URL("sample.expected", dataset));
      const template = "trading212_to_wealthfolio";

      const call = async (name: string, args: Record<string, unknown>) =>
        await client.callTool({ name, arguments: args }) as TextResult;

      const calls: [string, Record<string, unknown>][] = [
        ["bxp_validate", { config }],
        ["bxp_validate_expr", { expr: "SPLIT_PART('a/b', '/', 0)" }],
        ["bxp_eval", { expr: "[Price] * [Qty]", headers: ["Price", "Qty"], fields: ["2.5", "4"] }],
        ["bxp_eval_batch", { headers: ["P"], fields: ["7"], exprs: ["[P] + 1", "NOPE()"] }],
        ["bxp_eval_trace", { expr: "UPPER(LEFT('abc', 2))" }],
        ["bxp_docs", {}],
        ["bxp_list_templates", { config }],
        ["bxp_fetch_template", { config, id: template }],
        ["bxp_simulate", { config, template, csv, workspace: "sdk run" }],
      ];
      const results = new Map<string, TextResult>();
      for (const [name, args] of calls) {
        const result = await call(name, args);
        assert.equal(result.isError, false, `${name}: ${result.content[0].text.slice(0, 300)}`);
        results.set(name, result);
        // The SDK has checked structuredContent against the tool's outputSchema; here: it is there.
        const structured = BXP_TOOLS.find((t) => t.name === name)!.allowStructured;
        assert.equal(result.structuredContent !== undefined, structured, `${name} structured content`);
      }

      assert.equal(results.get("bxp_validate_expr")!.structuredContent!.error, "SplitPartBadIndex");
      assert.deepEqual(results.get("bxp_eval")!.structuredContent, { ok: true, value: "10" });
      const batch = results.get("bxp_eval_batch")!.structuredContent!.results as Record<string, unknown>[];
      assert.deepEqual(batch[0], { ok: true, value: "8" });
      assert.equal(batch[1].ok, false);
      const traceLines = results.get("bxp_eval_trace")!.content[0].text.trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      assert.deepEqual(traceLines.map((l) => l.fn ?? l.t), ["LEFT", "UPPER", "final"]);
      assert.deepEqual(traceLines.at(-1), { t: "final", value: "AB" });
      const docs = results.get("bxp_docs")!;
      assert.ok(Array.isArray((docs.structuredContent ?? JSON.parse(docs.content[0].text)).functions));
      assert.equal(results.get("bxp_fetch_template")!.structuredContent!.file_pattern_in, ".csv");

      const sim = results.get("bxp_simulate")!.structuredContent!;
      assert.equal(sim.status, "ok");
      // The answer shows the first rows; the whole output is a resource the answer links to, read here
      // page by page through resources/read, and listed by resources/list.
      assert.ok(client.getServerCapabilities()?.resources, "the resources capability is advertised");
      const links = results.get("bxp_simulate")!.content.filter((c) =>
        c.type === "resource_link"
      ) as unknown as {
        uri: string;
        name: string;
        mimeType?: string;
      }[];
      const outputLink = links.find((l) => l.mimeType === "text/csv");
      assert.ok(outputLink, JSON.stringify(links));
      let full = "";
      for (let uri: string | null = outputLink.uri; uri !== null;) {
        const page = await client.readResource({ uri }) as { contents: { text: string; mimeType: string }[] };
        full += page.contents[0].text;
        const info = page.contents.find((c) => c.mimeType === "application/json");
        uri = info === undefined ? null : JSON.parse(info.text).next;
      }
      assert.equal(full, expected, "the full output read through resources is bxp's golden output");
      const listed = await client.listResources() as { resources: { uri: string }[] };
      assert.ok(listed.resources.some((r) => r.uri === outputLink.uri), "the output is listed");
      await assert.rejects(
        () => client.readResource({ uri: "bxp-sim://no-such-run/output/x.csv" }),
        /-32002|not found/i,
      );

      // A refusal answered by the tool itself is schema-valid too, and not a tool failure.
      const refused = await call("bxp_simulate", { config, template: "no_such_template", csv });
      assert.equal(refused.isError, false);
      const { ok, error, detail } = refused.structuredContent!;
      assert.deepEqual({ ok, error, detail }, {
        ok: false,
        error: "template not found in config",
        detail: "no_such_template",
      });

      // Tool failures: isError with bxp's text, no structured content.
      const missing = await call("bxp_eval", {});
      assert.equal(missing.isError, true);
      assert.equal(missing.content[0].text, "error: missing 'expr'");
      const badRow = await call("bxp_eval", { expr: "[A]", headers: [1, 2] });
      assert.equal(badRow.isError, true);
      // The wording is the tool layer's; the protocol's part is a failure naming the argument.
      assert.match(badRow.content[0].text, /^error: .*'headers/);

      assert.deepEqual(errors, [], "the client saw no protocol errors (stdout held only JSON-RPC)");
    } finally {
      await client.close();
      await Deno.remove(tmpDir, { recursive: true }).catch(() => {});
    }
  },
});

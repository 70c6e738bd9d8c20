/**
 * A port of bxp's MCP smoke contract (`scripts/test-02-mcp.sh`): the real bxp-mcp process, one request
 * per line written at once, stdin closed right after, and every answer checked, including a simulate whose
 * output must equal the conformance dataset's golden byte for byte.
 */
import assert from "node:assert/strict";
import { CONFORMANCE_DIR } from "../_support/processes.ts";
import { ServerProcess, type Wire } from "./_support/server_process.ts";

const DATASET = "datasets/trading212_to_wealthfolio/";
const TEMPLATE = "trading212_to_wealthfolio";

Deno.test({
  name: "bxp's MCP smoke contract passes against the real server over raw stdio",
  ignore: CONFORMANCE_DIR === null,
  async fn() {
    const dir = new URL(DATASET, CONFORMANCE_DIR!);
    const config = await Deno.readTextFile(new URL("sample.json", dir));
    const csv = await Deno.readTextFile(new URL("sample.csv", dir));
    const expected = await Deno.readTextFile(new URL("sample.expected", dir));

    const call = (id: number, name: string, args: unknown) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    const line = (message: unknown) => JSON.stringify(message);
    const lines = [
      line({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } }),
      line({ jsonrpc: "2.0", method: "notifications/initialized" }),
      line({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      call(3, "bxp_eval", { expr: "1 + 2" }),
      call(13, "bxp_validate_expr", { expr: "SPLIT_PART('a/b', '/', 0)" }),
      call(14, "bxp_validate_expr", { expr: "UPPER('hi')" }),
      call(4, "bxp_eval_batch", { headers: ["P"], fields: ["7"], exprs: ["[P]", "BADFN()"] }),
      call(5, "bxp_validate", { config }),
      call(6, "bxp_list_templates", { config }),
      call(7, "bxp_simulate", { config, template: TEMPLATE, csv }),
      call(8, "bxp_eval_trace", { expr: "ABS(-2)" }),
      line({
        jsonrpc: "2.0",
        id: 9,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {} },
      }),
      line({
        jsonrpc: "2.0",
        id: 10,
        method: "tools/call",
        params: {
          name: "bxp_simulate",
          _meta: { progressToken: "p10" },
          arguments: { config, template: TEMPLATE, csv, sample_rows: 1000 },
        },
      }),
      call(11, "bxp_eval", {}),
      call(12, "bxp_eval_trace", { expr: "1 + 2" }),
      line({ jsonrpc: "2.0", method: "tools/list" }),
      "{ this is not json",
      "[]",
      "",
      line({ jsonrpc: "2.0", id: 100 }),
      line({ jsonrpc: "2.0", id: 101, method: "no/such" }),
      line({ jsonrpc: "2.0", method: "no/such" }),
      line({ jsonrpc: "2.0", id: 102, method: "tools/call" }),
      line({ jsonrpc: "2.0", id: 103, method: "tools/call", params: [] }),
      line({ jsonrpc: "2.0", id: 104, method: "tools/call", params: {} }),
      call(105, "bxp_not_a_tool", {}),
      line({ jsonrpc: "2.0", id: 106, method: "tools/call", params: { name: "bxp_eval" } }),
      call(107, "bxp_eval", { expr: 5 }),
      line({ jsonrpc: "2.0", id: 108, method: "resources/list" }),
      line({ jsonrpc: "2.0", id: 109, method: "prompts/list" }),
      line({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }),
      line({ jsonrpc: "2.0", id: 111, result: {} }),
      call(110, "bxp_eval", { expr: "UPPER('ok')" }),
    ];

    const server = await ServerProcess.start();
    try {
      // Everything at once, then EOF: the contract's client never waits for an answer.
      await server.send(lines.join("\n"));
      assert.equal(await server.close(), 0, "the server exits cleanly at end of input");

      const byId = new Map<unknown, Wire>();
      const progress: Wire[] = [];
      const nullIds: Wire[] = [];
      for (const m of server.messages) {
        if (m.method === "notifications/progress") progress.push(m.params);
        else if (m.id === null) nullIds.push(m);
        else {
          assert.ok(!byId.has(m.id), `one answer per id (${m.id})`);
          byId.set(m.id, m);
        }
      }
      const toolJson = (id: number) => JSON.parse(byId.get(id)!.result.content[0].text);

      assert.equal(nullIds.length, 3, JSON.stringify(nullIds));
      assert.equal(nullIds[0].error.code, -32700);
      assert.equal(nullIds[1].error.code, -32600);
      assert.equal(nullIds[2].error.code, -32600);

      assert.equal(byId.get(1)!.result.protocolVersion, "2025-11-25");
      assert.equal(byId.get(1)!.result.serverInfo.name, "bxp-mcp");
      assert.equal(byId.get(9)!.result.protocolVersion, "2025-06-18");
      // bxp's contract lists exactly its nine; ours lists them first, in bxp's order, then its own tools.
      assert.deepEqual(byId.get(2)!.result.tools.slice(0, 9).map((t: Wire) => t.name), [
        "bxp_validate",
        "bxp_validate_expr",
        "bxp_eval",
        "bxp_eval_batch",
        "bxp_eval_trace",
        "bxp_docs",
        "bxp_list_templates",
        "bxp_fetch_template",
        "bxp_simulate",
      ]);

      assert.deepEqual(toolJson(3), { ok: true, value: "3" });
      const verdict = toolJson(13);
      assert.equal(verdict.ok, false);
      assert.equal(verdict.error, "SplitPartBadIndex");
      assert.equal(byId.get(13)!.result.isError, false);
      assert.equal(byId.get(13)!.result.structuredContent.ok, false);
      assert.deepEqual(toolJson(14), { ok: true });

      const results = toolJson(4).results;
      assert.deepEqual(results[0], { ok: true, value: "7" });
      assert.equal(results[1].ok, false);

      const annotated = toolJson(5);
      assert.ok(typeof annotated === "object" && annotated !== null && !Array.isArray(annotated));
      assert.ok(toolJson(6).templates.some((t: Wire) => t.id === TEMPLATE));

      // bxp answered the whole report as the text; ours is bounded (a summary text, the report as
      // structuredContent with the first rows and each output's size and SHA-256, full outputs as
      // resources), so the golden is compared by digest and, with sample_rows covering it, verbatim.
      const golden = new TextEncoder().encode(expected);
      const goldenSha = Array.from(
        new Uint8Array(await crypto.subtle.digest("SHA-256", golden)),
        (b) => b.toString(16).padStart(2, "0"),
      ).join("");
      for (const id of [7, 10]) {
        const sim = byId.get(id)!.result.structuredContent;
        assert.equal(sim.ok, true, JSON.stringify(sim).slice(0, 500));
        assert.equal(sim.status, "ok", sim.diagnostics);
        assert.equal(sim.outputs[0].sha256, goldenSha, "bxp_simulate output equals the dataset's golden");
        assert.equal(sim.outputs[0].bytes, golden.length);
        if (id === 10) {
          assert.equal(sim.outputs[0].csv, expected, "all rows shown when sample_rows covers them");
        }
        const trace = sim.trace;
        assert.equal(trace.available, true);
        assert.ok(trace.source_rows > 0 && trace.written_rows > 0);
        assert.equal(trace.output_rows.count, trace.written_rows);
        assert.equal(sim.input.records, trace.source_rows);
        assert.equal(sim.output_records, trace.written_rows);
        for (const key of ["filtered", "row_errors", "output_rows"]) {
          assert.ok(Number.isInteger(trace[key].count) && Array.isArray(trace[key].sample), key);
        }
        assert.equal(byId.get(id)!.result.structuredContent.status, "ok");
      }
      assert.ok(!("structuredContent" in byId.get(8)!.result), "NDJSON stays text-only");

      const p10 = progress.filter((p) => p.progressToken === "p10");
      assert.ok(p10.length >= 1);
      assert.equal(p10.at(-1)!.progress, p10.at(-1)!.total);
      assert.ok(progress.every((p) => p.progressToken === "p10"), "only the p10 call reports progress");
      const resultAt = server.messages.findIndex((m) => m.id === 10);
      assert.ok(
        server.messages.every((m, i) => m.params?.progressToken !== "p10" || i < resultAt),
        "progress comes before the result",
      );

      const events = byId.get(8)!.result.content[0].text.trim().split("\n").map((l: string) => JSON.parse(l));
      assert.ok(events.some((e: Wire) => e.fn === "ABS"));
      assert.deepEqual(events.at(-1), { t: "final", value: "2" });

      assert.equal(byId.get(11)!.result.isError, true);
      assert.ok(!("structuredContent" in byId.get(11)!.result));
      assert.equal(byId.get(12)!.result.isError, false);
      assert.ok(!("structuredContent" in byId.get(12)!.result));

      const code = (id: number) => byId.get(id)!.error?.code;
      assert.equal(code(100), -32600);
      assert.equal(code(101), -32601);
      assert.equal(code(102), -32602);
      assert.equal(code(103), -32602);
      assert.equal(code(104), -32602);
      assert.equal(code(105), -32602);
      const failure = (id: number) => {
        const result = byId.get(id)!.result;
        assert.equal(result.isError, true);
        return result.content[0].text;
      };
      assert.equal(failure(106), "error: missing 'expr'");
      assert.equal(failure(107), "error: expected a string for 'expr', got number", "a wrong type says so");
      assert.deepEqual(byId.get(108)!.result.resources, []);
      assert.deepEqual(byId.get(109)!.result.prompts, []);
      assert.ok(!byId.has(111), "a response-shaped line draws no answer");
      assert.deepEqual(toolJson(110), { ok: true, value: "OK" });
    } finally {
      await server.dispose();
    }
  },
});

/**
 * Long simulations and client time limits, through the real bxp-mcp and bxp-cli: a 2026-07-28 request that
 * declares the tasks extension (`io.modelcontextprotocol/tasks`) gets a task at once and polls `tasks/get`
 * in later requests (over stdio, and over HTTP where the POST that created it has ended); `tasks/cancel`
 * stops the run and its bxp-cli; without the extension the call answers directly under the 50 s default
 * limit, and `timeout_seconds` sets the limit a run is killed at.
 */
import assert from "node:assert/strict";
import { processGone, ServerProcess, SLOW_CONFIG, SLOW_CSV, type Wire } from "../_support/server_process.ts";
import { cliPids, HttpServerProcess } from "../http/_support.ts";

const MODERN = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";

/** A few thousand slow rows: a run of seconds (each row costs about a millisecond). */
const MEDIUM_CSV = SLOW_CSV.split("\n").slice(0, 2001).join("\n") + "\n";

function meta(tasks: boolean): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { [TASKS]: {} } } : {},
  };
}

function simulateParams(csv: string, tasks: boolean, extra: Record<string, unknown> = {}) {
  return {
    name: "bxp_simulate",
    arguments: { config: SLOW_CONFIG, template: "slow", csv, ...extra },
    _meta: meta(tasks),
  };
}

/** Poll `get` (a tasks/get round trip) until the task is terminal; returns the last answer. */
async function pollUntilDone(get: () => Promise<Wire>, timeoutMs = 120_000): Promise<Wire> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await get();
    assert.equal(answer.result?.resultType, "complete", JSON.stringify(answer).slice(0, 300));
    if (answer.result.status !== "working") return answer;
    if (Date.now() > deadline) throw new Error("the task did not end");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

Deno.test({
  name: "over stdio, a tasks-declaring 2026-07-28 call becomes a task polled with tasks/get; cancel stops it",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await ServerProcess.start();
    let id = 1;
    const request = async (method: string, params: Record<string, unknown>) => {
      const n = id++;
      await server.send({ jsonrpc: "2.0", id: n, method, params });
      return await server.response(n, 120_000);
    };
    try {
      const discover = await request("server/discover", { _meta: meta(false) });
      assert.deepEqual(discover.result.capabilities.extensions, { [TASKS]: {} });

      const created = await request("tools/call", simulateParams(MEDIUM_CSV, true));
      const task = created.result;
      assert.equal(task.resultType, "task", JSON.stringify(created).slice(0, 400));
      assert.equal(task.status, "working");
      assert.match(task.taskId, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(task.ttlMs, 1_800_000);
      assert.ok(task.pollIntervalMs > 0);
      assert.ok(!Number.isNaN(Date.parse(task.createdAt)));

      const done = await pollUntilDone(() =>
        request("tasks/get", { taskId: task.taskId, _meta: meta(true) })
      );
      assert.equal(done.result.status, "completed", JSON.stringify(done.result).slice(0, 400));
      const report = done.result.result.structuredContent;
      assert.equal(done.result.result.isError, false);
      assert.equal(report.input.records, 2000);
      assert.equal(report.limits.time_limit_s, 120, "a task gets the whole limit");
      assert.match(report.run, /^bxr_/);

      // Unknown task ids are refused; tasks/result and tasks/list are not part of the extension.
      const unknown = await request("tasks/get", { taskId: "AAAAAAAAAAAAAAAAAAAAAA", _meta: meta(true) });
      assert.equal(unknown.error.code, -32602);
      assert.match(unknown.error.message, /Unknown task/);
      assert.equal(
        (await request("tasks/result", { taskId: task.taskId, _meta: meta(true) })).error.code,
        -32601,
      );

      // Without the extension the same call answers directly, under the 50 s default.
      const direct = await request("tools/call", simulateParams(MEDIUM_CSV, false));
      assert.equal(direct.result.resultType, "complete");
      assert.equal(direct.result.structuredContent.limits.time_limit_s, 50);

      // tasks/cancel stops the run (100 000 slow rows would take minutes) and kills its bxp-cli.
      const slow = (await request("tools/call", simulateParams(SLOW_CSV, true))).result;
      assert.equal(slow.resultType, "task");
      await server.waitUntil(() => cliPids(server.stderr).length === 3, "the third bxp-cli to start");
      const pid = cliPids(server.stderr)[2];
      const ack = await request("tasks/cancel", { taskId: slow.taskId, _meta: meta(true) });
      assert.deepEqual(Object.keys(ack.result).sort(), ["_meta", "resultType"]);
      const cancelled = await request("tasks/get", { taskId: slow.taskId, _meta: meta(true) });
      assert.equal(cancelled.result.status, "cancelled");
      assert.ok(await processGone(pid), "the cancelled task's bxp-cli is gone");
      assert.equal(await server.close(), 0);
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "timeout_seconds is the limit a run is killed at, and the failure says how to get a longer one",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await ServerProcess.start();
    try {
      await server.call(1, "bxp_simulate", {
        config: SLOW_CONFIG,
        template: "slow",
        csv: SLOW_CSV,
        timeout_seconds: 2,
      });
      const answer = await server.response(1, 120_000);
      assert.equal(answer.result.isError, true);
      assert.match(
        answer.result.content[0].text,
        /did not finish within 2 s and was killed; a longer run needs timeout_seconds \(at most 120\)/,
      );
      await server.call(2, "bxp_simulate", {
        config: SLOW_CONFIG,
        template: "slow",
        csv: "v\n1\n",
        timeout_seconds: 121,
      });
      assert.match((await server.response(2)).result.content[0].text, /timeout_seconds/);
      assert.equal(await server.close(), 0);
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "over HTTP, a task outlives the POST that created it and is polled in later POSTs",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await HttpServerProcess.start();
    let id = 1;
    const post = async (method: string, params: Record<string, unknown>, name?: string): Promise<Wire> => {
      const response = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": MODERN,
          "mcp-method": method,
          ...(name === undefined ? {} : { "mcp-name": name }),
          ...server.auth,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params }),
      });
      const text = await response.text();
      const json = (response.headers.get("content-type") ?? "").includes("text/event-stream")
        ? text.split("\n").filter((l) => l.startsWith("data: ")).at(-1)!.slice(6)
        : text;
      return JSON.parse(json);
    };
    try {
      const created = await post("tools/call", simulateParams(MEDIUM_CSV, true), "bxp_simulate");
      assert.equal(created.result.resultType, "task", JSON.stringify(created).slice(0, 400));
      const taskId = created.result.taskId;
      const done = await pollUntilDone(() => post("tasks/get", { taskId, _meta: meta(true) }, taskId));
      assert.equal(done.result.status, "completed", JSON.stringify(done.result).slice(0, 400));
      assert.equal(done.result.result.structuredContent.input.records, 2000);
    } finally {
      await server.dispose();
    }
  },
});

/**
 * Direct answers from evaluation workers: the claim a worker takes before writing an answer itself and
 * the one a cancellation or the time limit takes before terminating it. Whoever is first wins: a claimed
 * answer is never cut off by terminating its worker, and a revoked one is never written. The end-to-end
 * half runs the real server: answers written by workers are whole lines, and an id may be reused as soon
 * as its answer is read.
 */
import assert from "node:assert/strict";
import { CLAIM_REVOKED, EvalPool, type EvalStop } from "../../../src/mcp/tools/eval_pool.ts";
import type { EvalJob } from "../../../src/mcp/tools/eval_jobs.ts";
import { directAnswerLine, outcomeResult } from "../../../src/mcp/tools/eval_answer.ts";
import { toCallToolResult } from "../../../src/mcp/protocol/tool_result.ts";
import { resultResponse, toWireId } from "../../../src/mcp/protocol/jsonrpc.ts";
import { ServerProcess } from "../_support/server_process.ts";

const CLAIM_WORKER = new URL("./_claim_worker.ts", import.meta.url);
const job = (expr: string): EvalJob => ({ kind: "eval", expr, headers: null, fields: null });
const spec = { idJson: "1", maxLineBytes: 4096, budget: 262_144, allowStructured: true };
const never = () => new AbortController().signal;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("a cancellation after the worker claimed the answer leaves the worker to finish writing", async () => {
  const pool = new EvalPool({ size: 1, timeLimitMs: 600_000, workerUrl: CLAIM_WORKER });
  try {
    assert.deepEqual(await pool.run(job("x"), never()), { text: "served 1" });
    let probe = () => false;
    const cancel = new AbortController();
    const running = pool.run(job("CLAIM_SLOW"), cancel.signal, { spec, watch: (p) => probe = p });
    await sleep(150);
    assert.equal(probe(), true, "the claim is visible to the session at once");
    cancel.abort();
    assert.equal((await running as EvalStop).stopped, "aborted");
    assert.deepEqual(
      await pool.run(job("x"), never()),
      { text: "served 3" },
      "the same worker, not a fresh one",
    );
  } finally {
    pool.dispose();
  }
});

Deno.test("the time limit does not cut off a claimed answer: the job counts as answered", async () => {
  const pool = new EvalPool({ size: 1, timeLimitMs: 100, workerUrl: CLAIM_WORKER });
  try {
    assert.deepEqual(await pool.run(job("x"), never()), { text: "served 1" });
    assert.deepEqual(await pool.run(job("CLAIM_SLOW"), never(), { spec, watch: () => {} }), {
      answered: true,
    });
    assert.deepEqual(await pool.run(job("x"), never()), { text: "served 3" });
  } finally {
    pool.dispose();
  }
});

Deno.test("a cancellation before the claim revokes it and terminates the worker, which then cannot write", async () => {
  const pool = new EvalPool({ size: 1, timeLimitMs: 600_000, workerUrl: CLAIM_WORKER });
  try {
    assert.deepEqual(await pool.run(job("x"), never()), { text: "served 1" });
    let probe = () => true;
    const cancel = new AbortController();
    const running = pool.run(job("SLOW_CLAIM"), cancel.signal, { spec, watch: (p) => probe = p });
    await sleep(100);
    cancel.abort();
    assert.equal((await running as EvalStop).stopped, "aborted");
    assert.equal(probe(), false);
    assert.deepEqual(await pool.run(job("x"), never()), { text: "served 1" }, "a fresh worker");
  } finally {
    pool.dispose();
  }
  assert.equal(CLAIM_REVOKED, 3);
});

Deno.test("a direct answer line is the session's line, and is refused over the budget or the line size", () => {
  const outcome = { text: '{"ok":true,"value":"é\\u0001"}' };
  const id = toWireId(42)!;
  const expected = resultResponse(id, toCallToolResult(outcomeResult(outcome), true)) + "\n";
  assert.equal(directAnswerLine(outcome, { ...spec, idJson: "42" }), expected);
  assert.equal(directAnswerLine(outcome, { ...spec, idJson: "42", budget: 20 }), null);
  assert.equal(directAnswerLine(outcome, { ...spec, idJson: "42", maxLineBytes: expected.length - 1 }), null);
});

Deno.test({
  name: "the real server: worker-written answers are whole lines and an id is reusable once answered",
  ignore: Deno.build.os === "windows",
  async fn() {
    const server = await ServerProcess.start();
    try {
      await server.send({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      await server.response(0);
      for (let i = 0; i < 40; i++) {
        const before = server.messages.length;
        await server.call("same", "bxp_eval", { expr: `${i} + 1` });
        await server.waitUntil(() => server.messages.length > before, `answer ${i}`);
        const answer = server.messages[before];
        assert.equal(answer.id, "same");
        assert.equal(answer.error, undefined, JSON.stringify(answer));
        assert.deepEqual(answer.result.structuredContent, { ok: true, value: String(i + 1) });
      }
      assert.equal(await server.close(), 0);
    } finally {
      await server.dispose();
    }
  },
});

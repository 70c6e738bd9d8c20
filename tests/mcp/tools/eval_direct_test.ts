/**
 * Direct answers from evaluation workers: the claim a worker takes before writing an answer itself and
 * the one a cancellation or the time limit takes before terminating it. Whoever is first wins: a claimed
 * answer is never cut off by terminating its worker, and a revoked one is never written. The end-to-end
 * half runs the real server: answers written by workers are whole lines, and an id may be reused as soon
 * as its answer is read.
 */
import assert from "node:assert/strict";
import { CLAIM_REVOKED, EvalPool, type EvalStop } from "../../../src/mcp/tools/eval_pool.ts";
import { directAnswerLine, resultJson, VERDICT_LABEL } from "../../../src/mcp/tools/eval_answer.ts";
import { type EvalJob, type EvalOutcome, runEvalJob } from "../../../src/inspect/mod.ts";
import {
  singleJsonObject,
  toCallToolResult,
  type ToolResult,
} from "../../../src/mcp/protocol/tool_result.ts";
import { resultResponse, toWireId } from "../../../src/mcp/protocol/jsonrpc.ts";
import { ServerProcess } from "../_support/server_process.ts";
import {
  createOutputLock,
  OUTPUT_FREE,
  OUTPUT_SESSION,
  tryLockOutput,
  unlockOutput,
} from "../../../src/util/output_lock.ts";

const CLAIM_WORKER = new URL("./_claim_worker.ts", import.meta.url);

/**
 * The reference form the spliced answers must serialise as: the outcome as a tool result object, with
 * bxp_validate's verdict beside the annotated config as structured content.
 */
function outcomeResult(outcome: EvalOutcome): ToolResult {
  const result: ToolResult = { text: outcome.text };
  if (outcome.isError) result.isError = true;
  if (outcome.verdict !== undefined) {
    const annotated = singleJsonObject(outcome.text) ?? JSON.parse(outcome.text);
    result.structured = { ...outcome.verdict, annotated };
  }
  return result;
}
/**
 * What the session serialises for `outcome`, built from the protocol's own result shaping: bxp_validate's
 * answer gets its verdict as a second text block (the text content carries the whole answer).
 */
function sessionJson(outcome: EvalOutcome, allowStructured: boolean): string {
  const result = toCallToolResult(outcomeResult(outcome), allowStructured);
  if (outcome.verdict !== undefined && allowStructured && !outcome.isError) {
    result.content.splice(1, 0, {
      type: "text",
      text: `${VERDICT_LABEL}\n${JSON.stringify(outcome.verdict)}`,
    });
  }
  return JSON.stringify(result);
}
const job = (expr: string): EvalJob => ({ kind: "eval", expr, headers: null, fields: null });
const spec = {
  idJson: "1",
  maxLineBytes: 4096,
  budget: 262_144,
  allowStructured: true,
  outputLock: createOutputLock(),
};
const never = () => new AbortController().signal;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("a cancellation after the worker claimed the answer leaves the worker to finish writing", async () => {
  const pool = new EvalPool({ inline: false, size: 1, timeLimitMs: 600_000, workerUrl: CLAIM_WORKER });
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
  const pool = new EvalPool({ inline: false, size: 1, timeLimitMs: 100, workerUrl: CLAIM_WORKER });
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
  const pool = new EvalPool({ inline: false, size: 1, timeLimitMs: 600_000, workerUrl: CLAIM_WORKER });
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

Deno.test("a worker that finds the session writing does not wait: the answer comes back through the session", async () => {
  const pool = new EvalPool({ inline: false, size: 1, timeLimitMs: 600_000 });
  const outputLock = createOutputLock();
  try {
    // The real evaluation worker; the session holds the output lock (a long line to a slow client).
    assert.equal(tryLockOutput(outputLock, OUTPUT_SESSION), true);
    let probe = () => true;
    const result = await pool.run(job("1 + 2"), never(), {
      spec: { ...spec, outputLock },
      watch: (p) => probe = p,
    });
    assert.deepEqual(result, { text: '{"ok":true,"value":"3"}' }, "the outcome, for the session to write");
    assert.equal(probe(), false, "the answer was not claimed by the worker");
    assert.equal(outputLock[0], OUTPUT_SESSION, "the session's lock is untouched");
    assert.equal(unlockOutput(outputLock, OUTPUT_SESSION), true);
  } finally {
    pool.dispose();
  }
});

Deno.test("a worker that dies or is stopped holding the output lock has it released by the pool", async () => {
  const outputLock = createOutputLock();
  const direct = () => ({ spec: { ...spec, outputLock }, watch: () => {} });
  const crashing = new EvalPool({
    inline: false,
    size: 1,
    timeLimitMs: 600_000,
    workerUrl: CLAIM_WORKER,
    log: () => {},
  });
  try {
    assert.equal(
      (await crashing.run(job("LOCK_AND_CRASH"), never(), direct()) as EvalStop).stopped,
      "crashed",
    );
    assert.equal(outputLock[0], OUTPUT_FREE, "a crashed owner's lock is freed");
  } finally {
    crashing.dispose();
  }
  const spinning = new EvalPool({ inline: false, size: 1, timeLimitMs: 200, workerUrl: CLAIM_WORKER });
  try {
    assert.equal(
      (await spinning.run(job("LOCK_AND_SPIN"), never(), direct()) as EvalStop).stopped,
      "timeout",
    );
    assert.equal(outputLock[0], OUTPUT_FREE, "a terminated owner's lock is freed");
  } finally {
    spinning.dispose();
  }
});

Deno.test("a direct answer line is the session's line, and is refused over the budget or the line size", () => {
  const outcome = { text: '{"ok":true,"value":"é\\u0001"}' };
  const expected = resultResponse(toWireId("ü")!, toCallToolResult(outcomeResult(outcome), true)) + "\n";
  const bytes = new TextEncoder().encode(expected).length;
  const resultBytes =
    new TextEncoder().encode(JSON.stringify(toCallToolResult(outcomeResult(outcome), true))).length;
  const line = (over: Partial<typeof spec>) => {
    const got = directAnswerLine(outcome, { ...spec, idJson: '"ü"', ...over });
    return got === null ? null : new TextDecoder().decode(got);
  };
  assert.equal(line({}), expected);
  assert.equal(line({ budget: resultBytes }), expected, "exactly at the budget");
  assert.equal(line({ budget: resultBytes - 1 }), null);
  assert.equal(line({ maxLineBytes: bytes }), expected, "exactly at the line size");
  assert.equal(line({ maxLineBytes: bytes - 1 }), null);
});

Deno.test("the spliced result JSON is byte for byte what the session serialises", () => {
  const demo = Deno.readTextFileSync(new URL("../../../samples/demo/bxp-cli.json", import.meta.url));
  const outcomes: EvalOutcome[] = [
    runEvalJob({ kind: "validate", text: demo, label: "<config>" }),
    runEvalJob({ kind: "validate", text: "{ bad", label: "<config>" }),
    runEvalJob({
      kind: "validate",
      text: '{a: 1.50, b: "\\u00e9\\/", c: [1e3, -0], a: 2}',
      label: "<config>",
    }),
    runEvalJob({
      kind: "eval",
      expr: "DATE_CONVERT('18.06.2024', 'DD.MM.YYYY', 'YYYY-MM-DD')",
      headers: null,
      fields: null,
    }),
    runEvalJob({ kind: "eval", expr: "1/0", headers: null, fields: null }),
    runEvalJob({ kind: "eval_trace", expr: "UPPER('é') & 'x'", headers: null, fields: null }),
    runEvalJob({ kind: "validate_expr", expr: "SPLIT_PART([a], '/', 0)" }),
    { text: '{"v":1.50,"w":"\\u00e9"}' },
    { text: ' {"ok":true}\n' },
    { text: "error: nope", isError: true },
    { text: '{"ok":true}', isError: true },
    { text: '{"deep":' + "[".repeat(300) + "]".repeat(300) + "}" },
    { text: '{"a":1.0}', verdict: { ok: true, errors: 0, warnings: 0, infos: 0, findings: [] } },
  ];
  for (const outcome of outcomes) {
    for (const allowStructured of [true, false]) {
      assert.equal(
        resultJson(outcome, allowStructured),
        sessionJson(outcome, allowStructured),
        `${outcome.text.slice(0, 80)} (structured: ${allowStructured})`,
      );
    }
  }
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

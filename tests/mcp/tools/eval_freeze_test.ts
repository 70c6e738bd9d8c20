/**
 * One costly request must not freeze bxp-mcp (issue 11 §6), through the real server: a batch of
 * expressions each within the language's work budget but together far beyond the evaluation time limit
 * answers a time-limit failure, `ping` is answered while it runs, a cancelled one is never answered and
 * does not hold up later calls, and a normal call afterwards works.
 */
import assert from "node:assert/strict";
import { ServerProcess, type Wire } from "../_support/server_process.ts";
import { INLINE_MAX_CHARS } from "../../../src/inspect/mod.ts";

/** 100 REPLACEs of a 6000-character text over a 20000-entry map: seconds each, minutes together. */
function costlyBatch(): Record<string, unknown> {
  const map: Record<string, string> = {};
  for (let i = 0; i < 20_000; i++) map[`k${i}`] = "v";
  return {
    headers: ["t"],
    fields: ["a".repeat(6_000)],
    exprs: Array(100).fill("REPLACE([t], 'm')"),
    maps: { m: map },
  };
}

const indexOf = (server: ServerProcess, id: number) => server.messages.findIndex((m: Wire) => m.id === id);

/** Initialize, then one cheap evaluation (answered inline: the pool's workers start only when needed). */
async function initializeAndEval(server: ServerProcess): Promise<void> {
  await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
  await server.response(1);
  await server.call(2, "bxp_eval", { expr: "1 + 2" });
  assert.equal(JSON.parse((await server.response(2)).result.content[0].text).value, "3");
}

/** Send `batch` as call 10 and a ping as 11: the ping is answered first, the batch by the time limit. */
async function stoppedWhilePinging(server: ServerProcess, batch: Record<string, unknown>): Promise<void> {
  await server.call(10, "bxp_eval_batch", batch);
  await server.send({ jsonrpc: "2.0", id: 11, method: "ping" });
  assert.deepEqual((await server.response(11)).result, {});
  const stopped = (await server.response(10, 120_000)).result;
  assert.ok(indexOf(server, 11) < indexOf(server, 10), "ping was answered while the batch ran");
  assert.equal(stopped.isError, true);
  assert.match(
    stopped.content[0].text,
    /^error: bxp_eval_batch stopped: the evaluation ran past its 5 s time limit/,
  );
}

Deno.test("a runaway evaluation answers a time-limit failure while ping, cancellation and later calls still work", async () => {
  const server = await ServerProcess.start();
  try {
    await initializeAndEval(server);
    await stoppedWhilePinging(server, costlyBatch());

    // Two cancelled runaway calls would hold both workers for minutes if cancelling did not stop them.
    await server.call(20, "bxp_eval_batch", costlyBatch());
    await server.call(21, "bxp_eval_batch", costlyBatch());
    for (const requestId of [20, 21]) {
      await server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
    }
    await server.call(22, "bxp_eval", { expr: "UPPER('still here')" });
    assert.deepEqual(JSON.parse((await server.response(22)).result.content[0].text), {
      ok: true,
      value: "STILL HERE",
    });
    await server.call(23, "bxp_validate_expr", { expr: "UPPER('x')" });
    assert.deepEqual(JSON.parse((await server.response(23)).result.content[0].text), { ok: true });
    assert.equal(await server.close(), 0);
    assert.equal(indexOf(server, 20), -1, "a cancelled call is not answered");
    assert.equal(indexOf(server, 21), -1, "a cancelled call is not answered");
  } finally {
    await server.dispose();
  }
});

/**
 * Small on the wire (within the inline size bound) but costly to evaluate: 60 REPLACEs of a 64 Ki text
 * built by LPAD over a 1000-entry map.
 */
function smallCostlyBatch(): Record<string, unknown> {
  const map: Record<string, string> = {};
  for (let i = 0; i < 1_000; i++) map[`k${i}`] = "v";
  const batch = {
    headers: ["t"],
    fields: ["x"],
    exprs: Array(60).fill("REPLACE(LPAD('', 65535, 'a'), 'm')"),
    maps: { m: map },
  };
  assert.ok(JSON.stringify(batch).length < INLINE_MAX_CHARS, "the batch is small enough to be tried inline");
  return batch;
}

Deno.test("a small request that turns out costly leaves the session thread and meets the time limit", async () => {
  const server = await ServerProcess.start();
  try {
    await initializeAndEval(server);
    await stoppedWhilePinging(server, smallCostlyBatch());
    assert.equal(await server.close(), 0);
  } finally {
    await server.dispose();
  }
});

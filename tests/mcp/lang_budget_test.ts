/**
 * The expression budgets through the real bxp-mcp process (issue 11 §6): small requests that would build
 * gigabytes answer a clean expression error, and the server still answers `ping` and later calls.
 */
import assert from "node:assert/strict";
import { resultText, ServerProcess } from "./_support/server_process.ts";

const R = (x: string) => `REPLACE(${x}, 'a', 'aaaaaaaaaa')`;
const X = R(R(R("LPAD('', 65535, 'a')")));

Deno.test("bxp-mcp: runaway expressions answer clean budget errors, then ping and a normal call still work", async () => {
  const server = await ServerProcess.start();
  try {
    await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
    await server.response(1);

    // ~400 bytes that would build X four times over (256 MB of text).
    await server.call(2, "bxp_eval", { expr: `${X} & ${X} & ${X} & ${X}` });
    const single = JSON.parse(resultText(await server.response(2, 120_000)));
    assert.equal(single.ok, false);
    assert.equal(single.error, "ResultTooLarge");
    assert.match(single.detail, /one value may hold at most 33554432/);

    // A 40 KB request of 2,000 64 KiB paddings: the language stops at the request's 16 Mi of values
    // (131 MB otherwise), and the tool layer's answer-size cap refuses what is left, cleanly.
    await server.call(3, "bxp_eval_batch", {
      headers: [],
      fields: [],
      exprs: Array(2000).fill("LPAD('',65535,'x')"),
    });
    const padded = await server.response(3, 120_000);
    assert.ok(padded.result, JSON.stringify(padded).slice(0, 300));

    // Work: 40 reads of a 3 MB column per expression; the request's budget stops the batch after 18.
    const each = Array(40).fill("[A] = ''").join(" OR ");
    await server.call(6, "bxp_eval_batch", {
      headers: ["A"],
      fields: ["a".repeat(3_000_000)],
      exprs: Array(200).fill(each),
    });
    const worked: { ok: boolean; value?: string; error?: string; detail?: string }[] =
      JSON.parse(resultText(await server.response(6, 120_000))).results;
    assert.equal(worked.length, 200);
    assert.deepEqual(worked.slice(0, 18).map((r) => r.value), Array(18).fill("false"));
    assert.ok(worked.slice(18).every((r) => r.error === "WorkLimitExceeded"));
    assert.match(worked[199].detail ?? "", /^not evaluated: earlier expressions of this eval_batch request/);

    await server.send({ jsonrpc: "2.0", id: 4, method: "ping" });
    assert.deepEqual((await server.response(4)).result, {});
    await server.call(5, "bxp_eval", { expr: "[A] + 1", headers: ["A"], fields: ["  7  "] });
    assert.deepEqual(JSON.parse(resultText(await server.response(5))), { ok: true, value: "8" });
    assert.equal(await server.close(), 0);
  } finally {
    await server.dispose();
  }
});

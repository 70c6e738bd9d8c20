/**
 * Cancellation and end of input against the real bxp-mcp process: `notifications/cancelled` during a
 * simulation kills the bxp-cli child and suppresses the answer; closing stdin ends the server, also while
 * a simulation is running.
 */
import assert from "node:assert/strict";
import {
  processAlive,
  processGone,
  ServerProcess,
  SLOW_CONFIG,
  SLOW_CSV,
} from "./_support/server_process.ts";

const PID_LINE = /bxp-cli pid (\d+) running/;

async function startSlowSimulation(server: ServerProcess, id: number): Promise<number> {
  await server.call(id, "bxp_simulate", { config: SLOW_CONFIG, template: "slow", csv: SLOW_CSV }, {
    progressToken: `t${id}`,
  });
  await server.waitUntil(() => PID_LINE.test(server.stderr), "bxp-cli to start");
  const pid = Number(PID_LINE.exec(server.stderr)![1]);
  assert.ok(await processAlive(pid), "bxp-cli is running");
  return pid;
}

Deno.test({
  name: "cancelling a running simulate kills bxp-cli, sends no answer, and the session goes on",
  ignore: Deno.build.os === "windows",
  async fn() {
    const server = await ServerProcess.start();
    try {
      const pid = await startSlowSimulation(server, 1);
      await server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
      assert.ok(await processGone(pid, 10_000), `bxp-cli (pid ${pid}) is gone after the cancel`);

      await server.send({ jsonrpc: "2.0", id: 2, method: "ping" });
      assert.deepEqual((await server.response(2)).result, {});
      // Output is one ordered stream: anything the call sent before it died is in by now.
      const progressOf1 = () => server.messages.filter((m) => m.params?.progressToken === "t1").length;
      const progressBefore = progressOf1();
      // Give a stray answer or progress of the cancelled call time to show up before checking its absence.
      await server.call(3, "bxp_eval", { expr: "1 + 1" });
      await server.response(3);
      assert.equal(await server.close(), 0);
      assert.ok(!server.messages.some((m) => m.id === 1), "a cancelled call is not answered");
      assert.equal(progressOf1(), progressBefore, "no progress after the cancel");
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "closing stdin with nothing running ends the server at once",
  async fn() {
    const server = await ServerProcess.start();
    try {
      await server.send({ jsonrpc: "2.0", id: 1, method: "ping" });
      await server.response(1);
      const started = Date.now();
      assert.equal(await server.close(), 0);
      assert.ok(Date.now() - started < 5_000, "prompt exit");
      assert.equal(server.messages.length, 1);
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "closing stdin during a long simulate ends the server within the grace period and kills bxp-cli",
  ignore: Deno.build.os === "windows",
  async fn() {
    const server = await ServerProcess.start();
    try {
      const pid = await startSlowSimulation(server, 7);
      const started = Date.now();
      assert.equal(await server.close(), 0);
      assert.ok(Date.now() - started < 30_000, "the server does not wait for the whole conversion");
      assert.ok(await processGone(pid, 5_000), "bxp-cli does not outlive the server");
      assert.ok(!server.messages.some((m) => m.id === 7), "an aborted call is not answered");
    } finally {
      await server.dispose();
    }
  },
});

/**
 * No bxp-cli outlives bxp-mcp: a long simulation is running when the server gets SIGTERM, SIGINT or
 * SIGHUP (directly, or through `deno task`), or when the official SDK client closes (stdin closed, then
 * SIGTERM two seconds later). Each time the server cancels the call, kills the child and exits 0.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { entryArgs, REPO_ROOT } from "../_support/processes.ts";
import {
  processAlive,
  processGone,
  ServerProcess,
  SLOW_CONFIG,
  SLOW_CSV,
} from "./_support/server_process.ts";

const PID_LINE = /bxp-cli pid (\d+) running/;

/** Wait until `stderr()` names a running bxp-cli; return its pid. */
async function childPid(stderr: () => string): Promise<number> {
  const deadline = Date.now() + 60_000;
  while (!PID_LINE.test(stderr())) {
    if (Date.now() > deadline) throw new Error(`bxp-cli did not start; stderr:\n${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pid = Number(PID_LINE.exec(stderr())![1]);
  assert.ok(await processAlive(pid), "bxp-cli is running");
  return pid;
}

for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  Deno.test({
    name: `${signal} during a long simulate kills bxp-cli and the server exits 0`,
    ignore: Deno.build.os === "windows",
    async fn() {
      const server = await ServerProcess.start();
      try {
        await server.call(1, "bxp_simulate", { config: SLOW_CONFIG, template: "slow", csv: SLOW_CSV });
        const pid = await childPid(() => server.stderr);
        Deno.kill(server.pid, signal);
        // stdin is still open, so only the signal can end the server.
        assert.ok(
          await processGone(server.pid, 20_000),
          `the server exits on ${signal}; stderr:\n${server.stderr}`,
        );
        assert.equal(await server.close(), 0, server.stderr);
        assert.ok(await processGone(pid, 5_000), `bxp-cli (pid ${pid}) does not outlive the server`);
        assert.match(server.stderr, new RegExp(`${signal}: ending the session`));
        assert.ok(!server.messages.some((m) => m.id === 1), "the cancelled call is not answered");
      } finally {
        await server.dispose();
      }
    },
  });
}

Deno.test({
  name: "SIGTERM to `deno task bxp-mcp` reaches the server: bxp-cli is killed",
  ignore: Deno.build.os === "windows",
  async fn() {
    const tmpDir = await Deno.makeTempDir({ prefix: "bxp-mcp-task-" });
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "bxp-mcp"],
      cwd: fileURLToPath(REPO_ROOT),
      env: { TMPDIR: tmpDir },
      stdin: "piped",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let stderr = "";
    const reading = (async () => {
      for await (const chunk of child.stderr) stderr += new TextDecoder().decode(chunk);
    })();
    const writer = child.stdin.getWriter();
    try {
      const call = {
        name: "bxp_simulate",
        arguments: { config: SLOW_CONFIG, template: "slow", csv: SLOW_CSV },
      };
      await writer.write(
        new TextEncoder().encode(
          JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: call }) + "\n",
        ),
      );
      const pid = await childPid(() => stderr);
      child.kill("SIGTERM");
      await child.status;
      assert.ok(await processGone(pid, 10_000), `bxp-cli (pid ${pid}) does not outlive deno task`);
    } finally {
      await writer.close().catch(() => {});
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await child.status;
      await reading;
      await Deno.remove(tmpDir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "the SDK client closing during a long simulate leaves no bxp-cli behind",
  ignore: Deno.build.os === "windows",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmpDir = await Deno.makeTempDir({ prefix: "bxp-mcp-sdk-close-" });
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: entryArgs("bxp-mcp"),
      env: { TMPDIR: tmpDir, PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
    const client = new Client({ name: "bxp-mcp-close-test", version: "1.0.0" });
    await client.connect(transport);
    const serverPid = transport.pid!;
    try {
      const pending = client.callTool({
        name: "bxp_simulate",
        arguments: { config: SLOW_CONFIG, template: "slow", csv: SLOW_CSV },
      }).catch((error: unknown) => error);
      const pid = await childPid(() => stderr);
      await client.close();
      assert.ok(await pending instanceof Error, "the call ends with the connection");
      assert.ok(await processGone(serverPid, 15_000), "the server exits");
      assert.ok(await processGone(pid, 5_000), `bxp-cli (pid ${pid}) does not outlive the server`);
    } finally {
      await Deno.remove(tmpDir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "SIGTERM to an idle server ends it with exit 0 after the answers already given",
  ignore: Deno.build.os === "windows",
  async fn() {
    const server = await ServerProcess.start();
    try {
      await server.send({ jsonrpc: "2.0", id: 1, method: "ping" });
      await server.response(1);
      Deno.kill(server.pid, "SIGTERM");
      assert.ok(await processGone(server.pid, 20_000), `the server exits; stderr:\n${server.stderr}`);
      assert.equal(await server.close(), 0, server.stderr);
      assert.equal(server.messages.length, 1);
    } finally {
      await server.dispose();
    }
  },
});

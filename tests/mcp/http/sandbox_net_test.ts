/**
 * The session worker's network permission: exactly the `--http` address, nothing on stdio, and the main
 * thread keeps none once the worker runs. Checked with a real process that starts a probe worker the
 * way bxp-mcp starts its session worker.
 */
import assert from "node:assert/strict";
import { workerPermissions } from "../../../src/mcp/security/sandbox.ts";

const plan = { scratchRoot: "/tmp/bxp-mcp-sim", root: "/p", allowWrite: false, cliProgram: "/opt/bxp-cli" };

Deno.test("workerPermissions: net is the one listen address with --http, none without", () => {
  assert.equal(workerPermissions(plan).net, false);
  assert.deepEqual(workerPermissions({ ...plan, listen: "127.0.0.1:8931" }).net, ["127.0.0.1:8931"]);
  assert.deepEqual(workerPermissions({ ...plan, listen: "[::1]:8931" }).net, ["[::1]:8931"]);
});

/** Two free loopback ports (found, then released). */
function freePorts(): [number, number] {
  const a = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const b = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const ports: [number, number] = [(a.addr as Deno.NetAddr).port, (b.addr as Deno.NetAddr).port];
  a.close();
  b.close();
  return ports;
}

async function probe(listen: string, ports: number[], connectTo: number) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-net",
      "--allow-env",
      new URL("./fixtures/net_probe_main.ts", import.meta.url).pathname,
      listen,
      ports.join(","),
      String(connectTo),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return JSON.parse(new TextDecoder().decode(stdout));
}

Deno.test({
  name:
    "the sandboxed worker may listen on the --http address only, connect nowhere, and the main thread drops net",
  sanitizeResources: false,
  async fn() {
    const [allowed, other] = freePorts();
    const target = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const targetPort = (target.addr as Deno.NetAddr).port;
      const http = await probe(`127.0.0.1:${allowed}`, [allowed, other], targetPort);
      assert.deepEqual(http.worker, {
        [`listen ${allowed}`]: "ok",
        [`listen ${other}`]: "NotCapable",
        connect: "NotCapable",
      });
      assert.equal(http.main, "NotCapable", "the main thread keeps no network");
      const stdio = await probe("", [allowed], targetPort);
      assert.deepEqual(stdio.worker, { [`listen ${allowed}`]: "NotCapable", connect: "NotCapable" });
    } finally {
      target.close();
    }
  },
});

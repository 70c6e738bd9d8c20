/**
 * bxp-mcp's main thread and a session that cannot answer (a handler that never yields): a signal still
 * ends the process, by stopping the session worker after a second signal or after the wait runs out.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("./fixtures/stubborn_session_main.ts", import.meta.url));

function startStubborn() {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      MAIN,
    ],
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const reading = (async () => {
    for await (const chunk of child.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  const waitFor = async (pattern: RegExp) => {
    while (!pattern.test(stderr)) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  return { child, reading, waitFor, stderr: () => stderr };
}

Deno.test({
  name: "a second signal stops a session that does not answer the first: exit 1",
  ignore: Deno.build.os === "windows",
  async fn() {
    const { child, reading, waitFor, stderr } = startStubborn();
    try {
      await waitFor(/spinning/);
      child.kill("SIGTERM");
      await waitFor(/SIGTERM: ending the session/);
      child.kill("SIGINT");
      assert.equal((await child.status).code, 1);
      await reading;
      assert.match(stderr(), /SIGINT while ending the session after SIGTERM; stopping the session worker/);
    } finally {
      await child.stdin.close().catch(() => {});
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await child.status;
    }
  },
});

Deno.test({
  name: "a session that never confirms a signal is stopped when the wait runs out: exit 1",
  ignore: Deno.build.os === "windows",
  async fn() {
    const { child, reading, waitFor, stderr } = startStubborn();
    try {
      await waitFor(/spinning/);
      child.kill("SIGHUP");
      assert.equal((await child.status).code, 1);
      await reading;
      assert.match(stderr(), /the session did not end within \d+ ms of SIGHUP; stopping the session worker/);
    } finally {
      await child.stdin.close().catch(() => {});
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await child.status;
    }
  },
});

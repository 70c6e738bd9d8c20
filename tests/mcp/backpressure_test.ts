/**
 * A client that writes many requests and reads nothing: bxp-mcp stops taking requests while its answers
 * wait, so its memory stays bounded; once the client reads again, every answer arrives.
 */
import assert from "node:assert/strict";
import { entryArgs } from "../_support/processes.ts";

/**
 * Enough requests that their answers, all queued, would take this many bytes (the count follows the size
 * of one answer, measured first, so the test does not depend on the tool's current output).
 */
const UNBOUNDED_ANSWER_BYTES = 240 * 1024 * 1024;
const MAX_REQUESTS = 20_000;
/** Generous: with backpressure the server stays near 110 MiB here; queuing every answer takes it near 300 MiB. */
const RSS_BOUND_KIB = 200 * 1024;

async function rssKiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  assert.ok(match, "VmRSS in /proc status");
  return Number(match[1]);
}

Deno.test({
  name:
    "a client that stops reading makes the server pause reading; memory stays bounded; all answers arrive",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const tmpDir = await Deno.makeTempDir({ prefix: "bxp-mcp-backpressure-" });
    const child = new Deno.Command(Deno.execPath(), {
      args: entryArgs("bxp-mcp"),
      env: { TMPDIR: tmpDir },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let stderr = "";
    const stderrDone = (async () => {
      for await (const chunk of child.stderr) stderr += new TextDecoder().decode(chunk);
    })();
    const stdout = child.stdout.getReader();
    try {
      const request = (id: number) =>
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "bxp_docs", arguments: {} },
        }) +
        "\n";
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(request(0)));
      let pending = "";
      const decoder = new TextDecoder();
      while (!pending.includes("\n")) {
        const { value, done } = await stdout.read();
        assert.ok(!done, "the first answer arrives");
        pending += decoder.decode(value, { stream: true });
      }
      const answerBytes = pending.indexOf("\n") + 1;
      pending = pending.slice(answerBytes);
      const requests = Math.min(MAX_REQUESTS, Math.ceil(UNBOUNDED_ANSWER_BYTES / answerBytes));
      assert.ok(requests < MAX_REQUESTS, `bxp_docs answers ${answerBytes} bytes: too small to test with`);

      const lines = Array.from({ length: requests }, (_, i) => request(i + 1)).join("");
      // Written in the background: once the server stops reading, this write blocks on the full pipe.
      const writing = writer.write(new TextEncoder().encode(lines)).then(() => writer.close());

      // Wait (bounded by the test runner, not asserted) until the server says it paused reading.
      while (!/reading paused/.test(stderr)) await new Promise((resolve) => setTimeout(resolve, 100));
      const samples = [await rssKiB(child.pid)];
      for (let i = 0; i < 10; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        samples.push(await rssKiB(child.pid));
      }
      const peak = Math.max(...samples);
      assert.ok(
        peak < RSS_BOUND_KIB,
        `server RSS ${peak} KiB while the client does not read (samples ${samples})`,
      );

      // Now read: every request is answered, in full.
      const ids = new Set<number>();
      while (true) {
        const { value, done } = await stdout.read();
        if (done) break;
        pending += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = pending.indexOf("\n")) !== -1) {
          const message = JSON.parse(pending.slice(0, nl));
          pending = pending.slice(nl + 1);
          assert.equal(message.result?.isError, false, JSON.stringify(message).slice(0, 300));
          ids.add(message.id);
        }
      }
      await writing;
      assert.equal(ids.size, requests);
      assert.equal((await child.status).code, 0);
    } finally {
      stdout.releaseLock();
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await child.status;
      await stderrDone;
      await Deno.remove(tmpDir, { recursive: true }).catch(() => {});
    }
  },
});

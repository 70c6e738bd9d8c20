/**
 * Inside bxp-mcp's session worker (recognised by its name; it only exists with --unstable-worker-options)
 * the evaluation pool starts its workers with no Deno permissions: a worker that tries to read a file the
 * session itself can read is refused.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

Deno.test("evaluation workers in the session worker get no permissions, not even read", async () => {
  const script = fileURLToPath(new URL("./fixtures/pool_permissions.ts", import.meta.url));
  const file = fileURLToPath(import.meta.url);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--unstable-worker-options", "--allow-read", script, file],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const report = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(report.here, "read", "the process itself may read the file");
  assert.deepEqual(report.evaluation, { text: "refused" }, "the evaluation worker may not");
});

/** The README's first command: the bundled demo converts to the reviewed expected output. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, runBxpCli } from "../_support/processes.ts";

Deno.test("the demo sample converts to samples/demo/expected/", async () => {
  const work = await Deno.makeTempDir({ prefix: "bxp-demo-" });
  try {
    const demo = new URL("samples/demo/", REPO_ROOT);
    await Deno.mkdir(join(work, "data"));
    await Deno.copyFile(new URL("bxp-cli.json", demo), join(work, "bxp-cli.json"));
    const input = "statement_2024-01-01_2024-12-31.csv";
    await Deno.copyFile(new URL(`data/${input}`, demo), join(work, "data", input));
    const res = await runBxpCli([], { cwd: work });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.text, /with date range from 2024-01-01 to 2024-12-31/);
    const name = "statement_2024-01-01_2024-12-31.tracker.csv";
    assert.equal(
      await Deno.readTextFile(join(work, "data", name)),
      await Deno.readTextFile(new URL(`expected/${name}`, demo)),
    );
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

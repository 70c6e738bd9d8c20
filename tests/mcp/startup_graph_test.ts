/**
 * bxp-mcp's main thread only parses arguments, opens the root and starts the session worker, so its
 * static import graph must stay small: every module it loads is loaded a second time by the worker, and
 * loading the tools and the core on the main thread too cost about 90 ms of each cold start. Read from
 * `deno info --json` (the real module graph); dynamic imports (`--help` loading the catalog) are not
 * followed.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface GraphModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

async function staticGraph(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const modules = new Map<string, GraphModule>();
  for (const m of JSON.parse(new TextDecoder().decode(out.stdout)).modules as GraphModule[]) {
    modules.set(m.specifier, m);
  }
  const start = new URL(entry, `file://${ROOT}`).href;
  const seen = new Set<string>([start]);
  const todo = [start];
  while (todo.length > 0) {
    for (const dep of modules.get(todo.pop()!)?.dependencies ?? []) {
      const target = dep.code?.specifier;
      if (target === undefined || dep.isDynamic || seen.has(target)) continue;
      seen.add(target);
      todo.push(target);
    }
  }
  return [...seen].filter((s) => s.startsWith("file://")).map((s) => s.slice(`file://${ROOT}`.length));
}

Deno.test("bxp-mcp's main thread loads neither the tools nor the core (the session worker does)", async () => {
  const mainGraph = await staticGraph("main.ts");
  const heavy = mainGraph.filter((m) =>
    /^src\/(lang|config|engine|inspect|formats|templates|draft|trace)\//.test(m) ||
    /^src\/mcp\/(tools|protocol)\//.test(m) || m === "src/mcp/help.ts" || m === "src/mcp/session.ts"
  );
  assert.deepEqual(heavy, [], `main.ts statically imports ${heavy.join(", ")}`);
  assert.ok(
    mainGraph.length <= 20,
    `main.ts statically loads ${mainGraph.length} modules: ${mainGraph.join(", ")}`,
  );
  // The worker's graph is the whole server: the split moved code, it did not drop it.
  const workerGraph = await staticGraph("src/mcp/server_worker.ts");
  for (
    const needed of ["src/mcp/session.ts", "src/mcp/help.ts", "src/mcp/tools/catalog.ts", "src/lang/mod.ts"]
  ) {
    assert.ok(workerGraph.includes(needed), `the session worker no longer loads ${needed}`);
  }
});

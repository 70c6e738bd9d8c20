/**
 * bxp-mcp's main thread only parses arguments, opens the root and starts the session worker, so its
 * static import graph must stay small: every module it loads is loaded a second time by the worker, and
 * loading the tools and the core on the main thread too cost about 90 ms of each cold start. Read from
 * `deno info --json` (the real module graph); dynamic imports (`--help` loading the catalog) are not
 * followed.
 */

import assert from "node:assert/strict";
import { staticGraph } from "../_support/module_graph.ts";

Deno.test("bxp-mcp's main thread loads neither the tools nor the core (the session worker does)", async () => {
  const mainGraph = (await staticGraph("main.ts")).filter((m) => m.startsWith("src/") || m === "main.ts");
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
  // Hashing read-back outputs loads node:crypto on first use: at startup it cost about 20 ms.
  assert.ok(!workerGraph.includes("node:crypto"), "the session worker loads node:crypto at startup");
  // Guarded reads and writes load node:fs on first use: at startup it cost each thread 60-90 ms.
  assert.ok(!workerGraph.includes("node:fs"), "the session worker loads node:fs at startup");
  assert.ok(!(await staticGraph("main.ts")).includes("node:fs"), "the main thread loads node:fs at startup");
  // No `node:` module at all: the first one starts Deno's Node layer, 10-30 ms of a thread's start (paths
  // come from src/util/posix_path.ts; node:path only on Windows).
  const nodeModules = [...workerGraph, ...await staticGraph("main.ts")].filter((m) => m.startsWith("node:"));
  assert.deepEqual(nodeModules, [], "a bxp-mcp thread loads Node's layer at startup");
  assert.ok(
    !mainGraph.some((m) => m.startsWith("src/mcp/simulate/bxp_cli")),
    "main.ts loads the bxp-cli runner",
  );
  for (const needed of ["src/mcp/session.ts", "src/mcp/help.ts", "src/mcp/tools/catalog.ts"]) {
    assert.ok(workerGraph.includes(needed), `the session worker no longer loads ${needed}`);
  }
});

Deno.test("the session worker answers its handshake without the language: the tools load it on first need", async () => {
  const workerGraph = await staticGraph("src/mcp/server_worker.ts");
  // The language and what is built on it were about half of a cold start's modules (144 of them).
  const core = workerGraph.filter((m) =>
    /^src\/(lang|engine|draft|templates)\//.test(m) || m === "src/inspect/mod.ts" ||
    m === "src/inspect/eval.ts" || m === "src/inspect/annotate.ts" || m === "src/config/validate.ts" ||
    m === "src/mcp/tools/tool_core.ts" || m === "src/inspect/jobs.ts" || m.startsWith("npm:")
  );
  assert.deepEqual(core, [], `the session worker loads at startup: ${core.join(", ")}`);
  // 77: a face (`trace/mod.ts`) is a module of its own; the language alone would add about 60.
  assert.ok(workerGraph.length <= 77, `the session worker loads ${workerGraph.length} modules at startup`);
  // The HTTP transport (its handler, sessions, listener, bodies, streams) loads only with --http.
  const http = workerGraph.filter((m) => /^src\/mcp\/protocol\/http/.test(m));
  assert.deepEqual(http, [], `a stdio session loads the HTTP transport: ${http.join(", ")}`);
  // Moved, not dropped: the module the tools load on first need reaches the language and the library.
  const toolCore = await staticGraph("src/mcp/tools/tool_core.ts");
  for (
    const needed of [
      "src/lang/mod.ts",
      "src/inspect/annotate.ts",
      "src/templates/mod.ts",
      "src/draft/draft.ts",
    ]
  ) {
    assert.ok(toolCore.includes(needed), `the tool core no longer loads ${needed}`);
  }
  const loader = await Deno.readTextFile(new URL("../../src/mcp/tools/core_loader.ts", import.meta.url));
  assert.match(loader, /import\("\.\/tool_core\.ts"\)/, "the loader no longer imports the tool core");
});

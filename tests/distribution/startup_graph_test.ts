/**
 * What bxp-cli and its worker threads load at startup stays free of fflate: Deno inflates zip members
 * natively, and fflate's Node build cost each process and each worker thread about 15 MB and 40 ms. It
 * is loaded on demand (a deflated member read whole, a runtime without native raw inflate).
 */

import assert from "node:assert/strict";
import { staticGraph } from "../_support/module_graph.ts";

Deno.test("bxp-cli and its engine worker load fflate only on demand", async () => {
  for (const entry of ["src/cli/main.ts", "src/engine/worker.ts"]) {
    const graph = await staticGraph(entry);
    assert.ok(graph.includes("src/formats/zip/member_inflater.ts"), `${entry} still reads zip members`);
    const fflate = graph.filter((m) => m.includes("fflate"));
    assert.deepEqual(fflate, [], `${entry} statically loads ${fflate.join(", ")}`);
  }
});

Deno.test("a bxp-cli conversion run loads the other modes' code only when one is chosen", async () => {
  const graph = await staticGraph("src/cli/main.ts");
  assert.ok(graph.includes("src/cli/commands/mod.ts"), "the command table is part of every start");
  assert.ok(graph.includes("src/engine/run.ts"), "the conversion is part of every start");
  // The drafter, explain, the template library and the partition steps serve --init, --explain,
  // --list-templates / --template and the --partition-* modes alone.
  const modes = graph.filter((m) =>
    /^src\/(draft|explain|templates)\//.test(m) || m.startsWith("src/cli/partition/") ||
    (m.startsWith("src/cli/commands/") && !["mod.ts", "argv.ts"].some((f) => m.endsWith(`/${f}`)))
  );
  assert.deepEqual(modes, [], `statically loaded at every start: ${modes.join(", ")}`);
});

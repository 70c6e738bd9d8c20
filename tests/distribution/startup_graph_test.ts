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

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { evaluatorCount } from "../../../src/engine/parallel/worker_count.ts";

Deno.test("one evaluator per core, with no cap, so a bigger machine uses every core", () => {
  assertEquals(evaluatorCount(null, 2), 2);
  assertEquals(evaluatorCount(null, 64), 64);
  assertEquals(evaluatorCount(null, undefined), 1);
});

Deno.test("BXP_WORKERS overrides the core count; 0 keeps the run serial; junk is ignored", () => {
  assertEquals(evaluatorCount("0", 16), 0);
  assertEquals(evaluatorCount("3", 16), 3);
  assertEquals(evaluatorCount("many", 4), 4);
  assertEquals(evaluatorCount("-1", 4), 4);
});

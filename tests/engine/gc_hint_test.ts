import assert from "node:assert/strict";
import { collectGarbageHint } from "../../src/engine/gc_hint.ts";
import { entryPointFlags } from "../../src/distribution/mod.ts";

Deno.test("collectGarbageHint collects when the runtime exposes gc, and does nothing otherwise", () => {
  const scope = globalThis as { gc?: unknown };
  const own = scope.gc;
  try {
    delete scope.gc;
    assert.equal(collectGarbageHint(), false);
    let calls = 0;
    scope.gc = () => void calls++;
    assert.equal(collectGarbageHint(), true);
    assert.equal(calls, 1);
  } finally {
    if (own === undefined) delete scope.gc;
    else scope.gc = own;
  }
});

Deno.test("bxp-cli runs with V8's gc exposed, so the hint works in the shipped program", () => {
  const flags = entryPointFlags(
    Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)),
    "bxp-cli",
  );
  const v8 = flags.filter((f) => f.startsWith("--v8-flags=")).flatMap((f) => f.slice(11).split(","));
  assert.ok(v8.includes("--expose-gc"), v8.join(" "));
});

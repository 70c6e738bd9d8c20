import assert from "node:assert/strict";
import { type CallTrace, compileExpression, emptyContext, type EvalContext } from "../../src/lang/mod.ts";

function traced(src: string, record: Record<string, string>): { calls: CallTrace[]; value: string } {
  const calls: CallTrace[] = [];
  const names = Object.keys(record);
  const ctx: EvalContext = {
    ...emptyContext(),
    columns: new Map(names.map((n, i) => [n, i])),
    fields: names.map((n) => record[n]),
    trace: (rec) => calls.push(rec),
  };
  return { calls, value: compileExpression(src).evaluate(ctx) };
}

Deno.test("trace: one record per call, inside-out, spans from name to past ')'", () => {
  const { calls, value } = traced("ABS([Price])", { Date: "2026-04-01", Price: "150.00" });
  assert.equal(value, "150");
  assert.deepEqual(calls, [{ fn: "ABS", src_start: 0, src_end: 12, value: "150" }]);

  const nested = traced("ROUND(ABS([A]) / 3, 2) & TRIM(' x ')", { A: "-10" });
  assert.deepEqual(nested.calls, [
    { fn: "ABS", src_start: 6, src_end: 14, value: "10" },
    { fn: "ROUND", src_start: 0, src_end: 22, value: "3.33" },
    { fn: "TRIM", src_start: 25, src_end: 36, value: "x" },
  ]);
});

Deno.test("trace: byte offsets count UTF-8 (non-ASCII column names)", () => {
  const src = "UPPER([Název účtu]) & LEN([Název účtu])";
  const { calls } = traced(src, { "Název účtu": "žlutý" });
  const bytes = new TextEncoder().encode(src);
  assert.equal(calls.length, 2);
  assert.deepEqual(calls[0], { fn: "UPPER", src_start: 0, src_end: 22, value: "ŽLUTÝ" });
  assert.equal(calls[1].fn, "LEN");
  assert.equal(calls[1].value, "7");
  assert.equal(
    new TextDecoder().decode(bytes.subarray(calls[1].src_start, calls[1].src_end)),
    "LEN([Název účtu])",
  );
  assert.equal(calls[1].src_end, bytes.length);
});

Deno.test("trace: lazy branches not taken are not traced; partial trace survives an error", () => {
  const { calls } = traced("IF(1 = 1, LOWER('A'), UPPER('b'))", {});
  assert.deepEqual(calls.map((c) => c.fn), ["LOWER", "IF"]);
  const seen: CallTrace[] = [];
  const ctx: EvalContext = { ...emptyContext(), trace: (r) => seen.push(r) };
  assert.throws(() => compileExpression("TRIM('a') & YEAR('bad')").evaluate(ctx));
  assert.deepEqual(seen.map((c) => c.fn), ["TRIM"]);
  // The function name is reported as written.
  assert.equal(traced("abs(-1)", {}).calls[0].fn, "abs");
});

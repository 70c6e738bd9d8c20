import assert from "node:assert/strict";
import { evalBatch, evalExpr, evalTrace, rowArgument, validateExprJson } from "../../src/inspect/eval.ts";

Deno.test("evalExpr: ok shape, row context, error shape", () => {
  assert.equal(evalExpr("1 + 2"), '{"ok":true,"value":"3"}');
  assert.equal(evalExpr("UPPER('ok')"), '{"ok":true,"value":"OK"}');
  assert.equal(
    evalExpr("ABS([Price])", ["Date", "Price"], ["2026-04-01", "150.00"]),
    '{"ok":true,"value":"150"}',
  );
  assert.equal(evalExpr("[Missing]"), '{"ok":true,"value":""}');
  const bad = JSON.parse(evalExpr("BADFN()"));
  assert.equal(bad.ok, false);
  assert.equal(bad.error, "UnknownFunction");
  assert.equal(typeof bad.detail, "string");
  assert.deepEqual(Object.keys(bad).slice(0, 3), ["ok", "error", "detail"]);
  const nan = JSON.parse(evalExpr("ABS('foo')"));
  assert.equal(nan.error, "NotANumber");
});

Deno.test("validateExprJson: authoring verdict (MCP smoke cases)", () => {
  assert.equal(validateExprJson("UPPER('hi')"), '{"ok":true}');
  assert.equal(validateExprJson("ABS(-1)"), '{"ok":true}');
  const sp = JSON.parse(validateExprJson("SPLIT_PART('a/b', '/', 0)"));
  assert.equal(sp.ok, false);
  assert.equal(sp.error, "SplitPartBadIndex");
  assert.match(sp.detail, /index argument is 1-based/);
  const df = JSON.parse(validateExprJson("DATE_CONVERT('x', 'YYYY-Q-DD', 'YYYY-MM-DD')"));
  assert.equal(df.error, "DateFormatBadToken");
  if ("off" in sp) assert.ok(sp.len > 0);
});

Deno.test("evalBatch: results aligned with exprs; ragged rows tolerated", () => {
  const r = evalBatch({ headers: ["P"], fields: ["7"], exprs: ["[P]", "BADFN()"] });
  assert.equal(r.exitCode, 0);
  const results = JSON.parse(r.json).results;
  assert.deepEqual(results[0], { ok: true, value: "7" });
  assert.equal(results[1].ok, false);
  const ragged = JSON.parse(
    evalBatch({ headers: ["A", "B", "C"], fields: ["1"], exprs: ["[A]", "[B]", 5] }).json,
  );
  assert.deepEqual(ragged.results, [
    { ok: true, value: "1" },
    { ok: true, value: "" },
    { ok: false, error: "BadInput", detail: "exprs entries must be strings" },
  ]);
  const extra = JSON.parse(evalBatch({ headers: ["A", "B"], fields: ["1", "2", "x"], exprs: ["[B]"] }).json);
  assert.deepEqual(extra.results, [{ ok: true, value: "2" }]);
});

Deno.test("evalBatch: maps and lookups feed REMAP and LOOKUP", () => {
  const r = evalBatch({
    headers: ["S", "K"],
    fields: ["BTC", "k1"],
    exprs: ["REMAP([S], 'm')", "LOOKUP('blk', [K], 'f')", "LOOKUP([K], 'f')"],
    maps: { m: { BTC: "BTC-EUR" } },
    lookups: { "blk\u0000k1\u0000f": "found" },
    single_prepass_name: "blk",
  });
  assert.deepEqual(JSON.parse(r.json).results.map((x: { value?: string }) => x.value), [
    "BTC-EUR",
    "found",
    "found",
  ]);
});

Deno.test("evalBatch: bxp's messages for malformed requests", () => {
  const cases: [unknown, string][] = [
    [[], "eval_batch request must be a JSON object"],
    [{ fields: [], exprs: [] }, "missing 'headers' in eval_batch request"],
    [{ headers: [], exprs: [] }, "missing 'fields' in eval_batch request"],
    [{ headers: [], fields: [] }, "missing 'exprs' in eval_batch request"],
    [{ headers: "x", fields: [], exprs: [] }, "headers/fields/exprs must be JSON arrays"],
    [{ headers: [1], fields: [], exprs: [] }, "headers entries must be strings"],
    [{ headers: [], fields: [null], exprs: [] }, "fields entries must be strings"],
    [{ headers: [], fields: [], exprs: [], maps: [] }, "maps must be a JSON object"],
    [{ headers: [], fields: [], exprs: [], maps: { a: 1 } }, "maps entries must be JSON objects"],
    [{ headers: [], fields: [], exprs: [], maps: { a: { k: 1 } } }, "map values must be strings"],
    [{ headers: [], fields: [], exprs: [], lookups: 3 }, "lookups must be a JSON object"],
    [{ headers: [], fields: [], exprs: [], lookups: { a: 1 } }, "lookups values must be strings"],
    [{ headers: [], fields: [], exprs: [], single_prepass_name: 4 }, "single_prepass_name must be a string"],
  ];
  for (const [req, message] of cases) {
    assert.deepEqual(evalBatch(req), { json: "", errorMessage: message, exitCode: 1 });
  }
  assert.equal(evalBatch({ headers: [], fields: [], exprs: [], single_prepass_name: null }).exitCode, 0);
});

Deno.test("evalTrace: one line per call, then the final sentinel; error sentinel separate", () => {
  const r = evalTrace("ABS(-2)");
  assert.equal(r.exitCode, 0);
  const lines = r.lines.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.at(-1), { t: "final", value: "2" });
  assert.equal(lines[0].fn, "ABS");
  assert.deepEqual(Object.keys(lines[0]), ["fn", "src_start", "src_end", "value"]);
  assert.ok(r.lines.endsWith("\n"));
  const row = evalTrace("ABS([Price])", ["Date", "Price"], ["2026-04-01", "150.00"]);
  const first = JSON.parse(row.lines.split("\n")[0]);
  assert.deepEqual(first, { fn: "ABS", src_start: 0, src_end: 12, value: "150" });
  const plain = evalTrace("1 + 2");
  assert.equal(plain.lines, '{"t":"final","value":"3"}\n');
  const failed = evalTrace("UPPER('x') & ABS('foo')");
  assert.equal(failed.exitCode, 1);
  assert.ok(failed.lines.includes('"fn":"UPPER"'));
  const sentinel = JSON.parse(failed.errorJson ?? "");
  assert.equal(sentinel.t, "error");
  assert.equal(sentinel.error, "NotANumber");
  assert.ok(!failed.lines.includes('"t":"final"'));
});

Deno.test("rowArgument: arrays, legacy JSON strings, bxp-mcp's messages", () => {
  assert.deepEqual(rowArgument(["a"], "headers"), ["a"]);
  assert.deepEqual(rowArgument('["a","b"]', "fields"), ["a", "b"]);
  assert.equal(rowArgument(undefined, "headers"), null);
  assert.throws(() => rowArgument(5, "headers"), /'headers' must be an array of strings/);
  assert.throws(() => rowArgument("nope", "fields"), /'headers' and 'fields' must be arrays of strings/);
});

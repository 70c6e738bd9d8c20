import assert from "node:assert/strict";
import {
  evalBatch,
  evalExpr,
  evalTables,
  evalTrace,
  MAX_BATCH_RESULT_CHARS,
  MAX_BATCH_WORK,
  MAX_TRACE_CHARS,
  validateExprJson,
} from "../../src/inspect/eval.ts";
import { rowArgument } from "../../src/inspect/row_argument.ts";
import { zigJsonString } from "../../src/config/emit.ts";
import { annotateConfig } from "../../src/inspect/mod.ts";

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

Deno.test("eval: field values lose surrounding ASCII spaces as bxp reads them; header names do not", () => {
  assert.equal(evalExpr("[A]", ["A"], ["  x  "]), '{"ok":true,"value":"x"}');
  assert.equal(evalExpr("[A] + 1", ["A"], ["  7  "]), '{"ok":true,"value":"8"}');
  assert.equal(evalExpr("FIELDS(1) & '|'", ["A"], [" y "]), '{"ok":true,"value":"y|"}');
  // Only spaces: a tab is part of the value.
  assert.equal(evalExpr("LEN([A])", ["A"], ["\tx "]), '{"ok":true,"value":"2"}');
  // A padded header is a different column name.
  assert.equal(evalExpr("[A]", [" A "], ["v"]), '{"ok":true,"value":""}');
  assert.equal(evalExpr("[ A ]", [" A "], ["v"]), '{"ok":true,"value":"v"}');
  const batch = JSON.parse(evalBatch({ headers: ["A"], fields: ["  7  "], exprs: ["[A] + 1", "[A]"] }).json);
  assert.deepEqual(batch.results, [{ ok: true, value: "8" }, { ok: true, value: "7" }]);
  const traced = evalTrace("TRIM([A]) & '|'", ["A"], [" z "]);
  assert.ok(traced.lines.endsWith('{"t":"final","value":"z|"}\n'));
});

Deno.test("eval and eval_trace: maps and lookups as eval_batch reads them", () => {
  const options = {
    maps: { m: { BTC: "BTC-EUR" } },
    lookups: { "blk\u0000k1\u0000f": "found" },
    single_prepass_name: "blk",
  };
  assert.equal(evalExpr("REMAP([S], 'm')", ["S"], ["BTC"], options), '{"ok":true,"value":"BTC-EUR"}');
  assert.equal(evalExpr("REPLACE([S], 'm')", ["S"], ["xBTCx"], options), '{"ok":true,"value":"xBTC-EURx"}');
  assert.equal(evalExpr("LOOKUP('blk', 'k1', 'f')", null, null, options), '{"ok":true,"value":"found"}');
  assert.equal(evalExpr("LOOKUP('k1', 'f')", null, null, options), '{"ok":true,"value":"found"}');
  // Without the options REMAP passes the value through, as before.
  assert.equal(evalExpr("REMAP([S], 'm')", ["S"], ["BTC"]), '{"ok":true,"value":"BTC"}');
  const traced = evalTrace("REMAP([S], 'm')", ["S"], ["BTC"], options);
  assert.equal(
    traced.lines,
    '{"fn":"REMAP","src_start":0,"src_end":15,"value":"BTC-EUR"}\n{"t":"final","value":"BTC-EUR"}\n',
  );
  assert.equal(evalTrace("LOOKUP('k1', 'f')", null, null, options).exitCode, 0);
  // Malformed options: bxp's batch messages, as a TypeError for the tool layer.
  assert.throws(() => evalExpr("1", null, null, { maps: [] }), new TypeError("maps must be a JSON object"));
  assert.throws(() => evalExpr("1", null, null, { maps: { a: { k: 1 } } }), /map values must be strings/);
  assert.throws(() => evalTrace("1", null, null, { lookups: 3 }), /lookups must be a JSON object/);
  assert.throws(
    () => evalTrace("1", null, null, { single_prepass_name: 4 }),
    /single_prepass_name must be a string/,
  );
  assert.deepEqual(evalTables({ lookups: { "a\u0000b\u0000c": "v" } }), {
    maps: new Map(),
    lookups: new Map([["a", new Map([["b", new Map([["c", "v"]])]])]]),
  });
  assert.equal(evalTables({ maps: "x" }), "maps must be a JSON object");
});

Deno.test("eval: a $variable is UnexpectedChar with the hint, everywhere an expression is checked", () => {
  const e = JSON.parse(evalExpr("ISEMPTY($date)"));
  assert.deepEqual([e.error, e.off, e.len], ["UnexpectedChar", 8, 1]);
  assert.match(e.detail, /expressions see columns, not variables/);
  assert.equal(JSON.parse(validateExprJson("[Qty] * $rate")).error, "UnexpectedChar");
  assert.equal(
    JSON.parse(evalBatch({ headers: [], fields: [], exprs: ["$x"] }).json).results[0].error,
    "UnexpectedChar",
  );
  assert.equal(JSON.parse(evalTrace("UPPER($x)").errorJson ?? "").error, "UnexpectedChar");
  // [$x] is a column named "$x".
  assert.equal(evalExpr("[$x]", ["$x"], ["v"]), '{"ok":true,"value":"v"}');
  // Truncations are refused too.
  assert.equal(JSON.parse(validateExprJson("UPPER([P]) & 'x")).error, "UnterminatedString");
  assert.equal(JSON.parse(validateExprJson("UPPER([P]")).error, "ExpectedRParen");
});

Deno.test("eval: values with quotes, backslashes and control characters are escaped as std.json does", () => {
  const odd = 'a"b\\c\nd\re\tf\bg\fh\u0001i\u001fj\u007fk€';
  const direct = evalExpr("[A]", ["A"], [odd]);
  assert.equal(direct, `{"ok":true,"value":${zigJsonString(odd)}}`);
  assert.deepEqual(JSON.parse(direct), { ok: true, value: odd });
  const e = evalExpr("ABS([A])", ["A"], ['x"y']);
  assert.match(e, /"detail":"ABS: x is not a number: \\"x\\"y\\""/);
});

const R = (x: string) => `REPLACE(${x}, 'a', 'aaaaaaaaaa')`;
const X = R(R(R("LPAD('', 65535, 'a')")));

Deno.test("budget: a 400-byte expression that would build 256 MB answers ResultTooLarge", () => {
  const src = `${X} & ${X} & ${X} & ${X}`;
  assert.ok(new TextEncoder().encode(src).length < 450);
  const r = JSON.parse(evalExpr(src));
  assert.equal(r.ok, false);
  assert.equal(r.error, "ResultTooLarge");
  assert.match(r.detail, /at most 33554432 \(32 Mi\)/);
  assert.deepEqual([r.off, r.len], [0, X.length]); // the outermost REPLACE of the first X
  // One step less is a fine 6.5 MB value.
  const ok = JSON.parse(evalExpr(`LEN(${R(R("LPAD('', 65535, 'a')"))})`));
  assert.deepEqual(ok, { ok: true, value: "6553500" });
  // The guard also stops the trace and validation paths.
  assert.equal(JSON.parse(evalTrace(src).errorJson ?? "").error, "ResultTooLarge");
  assert.equal(JSON.parse(validateExprJson(src)).error, "ResultTooLarge");
});

Deno.test("budget: 2,000 x LPAD('',65535,'x') in one eval_batch stays within the request's 16 Mi", () => {
  const r = evalBatch({ headers: [], fields: [], exprs: Array(2000).fill("LPAD('',65535,'x')") });
  assert.equal(r.exitCode, 0);
  assert.ok(r.json.length < MAX_BATCH_RESULT_CHARS + 600_000, `answer of ${r.json.length} characters`);
  const results: { ok: boolean; error?: string; detail?: string }[] = JSON.parse(r.json).results;
  assert.equal(results.length, 2000);
  const fitted = Math.floor(MAX_BATCH_RESULT_CHARS / 65535);
  assert.ok(results.slice(0, fitted).every((x) => x.ok));
  assert.ok(results.slice(fitted).every((x) => !x.ok && x.error === "ResultTooLarge"));
  assert.match(results[fitted].detail ?? "", /does not fit: the values of one eval_batch request/);
  assert.match(results.at(-1)?.detail ?? "", /^not evaluated: /);
});

Deno.test("budget: work per evaluation and per request is bounded", () => {
  // A long REPLACE map over a long value: keys x length is charged before scanning.
  const map: Record<string, string> = {};
  for (let i = 0; i < 20_000; i++) map[`k${i}`] = "v";
  const scan = JSON.parse(
    evalBatch({
      headers: ["A"],
      fields: ["x".repeat(100_000)],
      exprs: ["REPLACE([A], 'm')"],
      maps: { m: map },
    })
      .json,
  ).results[0];
  assert.equal(scan.error, "WorkLimitExceeded");
  assert.match(scan.detail, /over its budget of 134217728/);
  // Reading one long column many times.
  const many = Array(60).fill("LEN([A])").join(" + ");
  const reads = JSON.parse(evalExpr(many, ["A"], ["a".repeat(3_000_000)]));
  assert.equal(reads.error, "WorkLimitExceeded");
  assert.equal(reads.len, 3); // pinned to the [A] that crossed the line
  // Cheap reads of the same long column, spread over one request, exhaust its work budget instead.
  const each = Array(40).fill("[A] = ''").join(" OR ");
  const batch = JSON.parse(
    evalBatch({ headers: ["A"], fields: ["a".repeat(3_000_000)], exprs: Array(25).fill(each) }).json,
  ).results;
  // 120 M units each: the 18th starts below 2 Gi and is evaluated, the rest are not.
  assert.deepEqual(batch.slice(0, 18).map((x: { value?: string }) => x.value), Array(18).fill("false"));
  assert.ok(batch.slice(18).every((x: { error?: string }) => x.error === "WorkLimitExceeded"));
  assert.match(batch[24].detail, /^not evaluated: earlier expressions of this eval_batch request/);
  assert.equal(MAX_BATCH_WORK, 16 * 128 * 1024 * 1024);
});

Deno.test("budget: the trace is capped", () => {
  const big = "LPAD('', 60000, 'x')";
  const src = Array(300).fill(`LEN(${big})`).join(" + ");
  const r = evalTrace(src);
  assert.equal(r.exitCode, 1);
  assert.equal(JSON.parse(r.errorJson ?? "").error, "ResultTooLarge");
  assert.ok(r.lines.length <= MAX_TRACE_CHARS);
  assert.ok(r.lines.length > MAX_TRACE_CHARS - 100_000);
});

Deno.test("bxp_validate: a $variable in an expression gets a $err_ marker at that key", () => {
  const config = JSON.stringify({
    conversion_templates: {
      t: {
        data_dir: ".",
        file_pattern_in: ".csv",
        input_schema: { $date: "[Date]", $keep: "IF(ISEMPTY($date), 'no', 'yes')" },
        output_schema: { date: "$date", keep: "$keep" },
      },
    },
  });
  const r = annotateConfig(config, "<config>");
  assert.equal(r.exitCode, 1);
  const schema = JSON.parse(r.json).conversion_templates.t.input_schema;
  const keys = Object.keys(schema);
  const marker = keys.find((k) => k.startsWith("$err_"));
  assert.ok(marker, r.json);
  assert.equal(keys[keys.indexOf(marker) + 1], "$keep", "the marker sits just before the key");
  assert.match(schema[marker].message, /expression in \$keep: unexpected character '\$' at pos 12/);
  assert.deepEqual([schema[marker].off, schema[marker].len], [11, 1]);
});

Deno.test("evalExpr: an expression tried on row after row answers each row (a compiled one is reused)", () => {
  const src = "IF([Qty] > 10, 'bulk', 'single') & ':' & DATE_CONVERT([Date], 'DD.MM.YYYY', 'YYYY-MM-DD')";
  const headers = ["Qty", "Date"];
  for (let i = 0; i < 40; i++) {
    // Past the date converter's own memo threshold, so its per-value memo is exercised across calls too.
    const day = String((i % 28) + 1).padStart(2, "0");
    const qty = String(i);
    const want = `${i > 10 ? "bulk" : "single"}:2024-03-${day}`;
    assert.equal(evalExpr(src, headers, [qty, `${day}.03.2024`]), `{"ok":true,"value":"${want}"}`);
  }
  // A failing row does not poison the next call, nor a failing expression the next evaluation of it.
  assert.match(evalExpr("[Qty] * 2", ["Qty"], ["x"]), /"ok":false/);
  assert.equal(evalExpr("[Qty] * 2", ["Qty"], ["4"]), '{"ok":true,"value":"8"}');
  for (let i = 0; i < 2; i++) assert.match(evalExpr("UPPER("), /"ok":false/);
});

Deno.test("evalExpr: NOW() is read at each evaluation of a reused expression", async () => {
  const before = evalExpr("NOW()");
  await new Promise((resolve) => setTimeout(resolve, 1100)); // NOW() has a resolution of one second
  const after = evalExpr("NOW()");
  assert.match(before, /"ok":true/);
  assert.notEqual(after, before);
});

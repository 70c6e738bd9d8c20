import assert from "node:assert/strict";
import { checkExpressions, checkUnused, type ExprTools, fieldOutlier } from "../../src/config/check_exprs.ts";
import type { TemplateConfig } from "../../src/config/types.ts";
import { langExprTools } from "../../src/config/lang_tools.ts";

/** A tiny stand-in for the language: recognises [Field] and NAME('lit', ...) calls, flags BLAH. */
const fakeTools: ExprTools = {
  validate(src) {
    const m = /\bBLAH\(/.exec(src);
    return m ? { error: "UnknownFunction", detail: "unknown function 'BLAH'", off: m.index, len: 4 } : null;
  },
  facts(src) {
    const fields = [...src.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]);
    const calls = [...src.matchAll(/([A-Z_]+)\(([^()]*)\)/g)].map((m) => ({
      name: m[1],
      literals: m[2].split(",").map((a) => a.trim()).map((a) => (/^'.*'$/.test(a) ? a.slice(1, -1) : null)),
      off: m.index ?? 0,
      len: m[0].length,
    }));
    return { fields, calls };
  },
  suggestFunction: (name) => (name === "LOOKUPP" ? "LOOKUP" : null),
};

function template(over: Partial<TemplateConfig>): TemplateConfig {
  return {
    id: "t",
    description: null,
    dataDir: ".",
    dataDirs: ["."],
    fileTypeIn: "csv",
    fileTypeOut: "csv",
    filePatternIn: ".csv",
    filePatternOut: ".csvx",
    csvHeaderLine: 1,
    csvDelimiterIn: ",",
    csvDelimiterOut: ",",
    csvDecimalSeparatorIn: ".",
    csvDecimalSeparatorOut: ".",
    csvTextQuoteIn: "double",
    csvTextQuoteOut: "none",
    csvInputEncoding: "utf-8",
    csvOutputEncoding: "utf-8",
    maps: new Map(),
    dateFilterFromFilename: false,
    combinedOutput: false,
    rowRulesDebugMissing: false,
    xlsxSheet: null,
    zipInput: null,
    prePass: [],
    inputSchema: [],
    rowRules: null,
    outputSchema: [],
    fillDown: [],
    ...over,
  };
}

Deno.test("check_exprs: failures are placed at the expression's path with span and code", () => {
  const t = template({
    inputSchema: [["$a", "BLAH([X])"]],
    rowRules: [{ when: "1", rows: [[["$b", "x BLAH(1)"]]] }],
    prePass: [{ name: "fees", when: "1", key: "[ID]", values: [["fee", "BLAH([F])"]] }],
  });
  const d = checkExpressions(t, new Map(), fakeTools);
  assert.deepEqual(d.map((x) => x.path), [
    "conversion_templates.t.input_schema.$a",
    "conversion_templates.t.row_rules.0.rows.0.$b",
    "conversion_templates.t.pre_pass.fees.values.fee",
  ]);
  assert.equal(d[0].code, "expr.UnknownFunction");
  assert.equal(d[0].message, "expression in $a: unknown function 'BLAH'");
  assert.equal(d[1].off, 2);
  assert.equal(d[1].len, 4);
});

Deno.test("check_exprs: LOOKUP block names, named maps and did-you-mean", () => {
  const t = template({
    prePass: [{ name: "real_name", when: "1", key: "[ID]", values: [["x", "[X]"]] }],
    maps: new Map([["local", new Map()]]),
    inputSchema: [
      ["$bad", "LOOKUP('typo_name', [ID], 'x')"],
      ["$ok", "LOOKUP('real_name', [ID], 'x')"],
      ["$m1", "REMAP([S], 'missing_map')"],
      ["$m2", "REMAP([S], 'local')"],
      ["$m3", "REPLACE([S], 'global')"],
    ],
  });
  const d = checkExpressions(t, new Map([["global", new Map()]]), fakeTools).filter((x) =>
    x.severity === "error"
  );
  assert.deepEqual(d.map((x) => [x.path.split(".").pop(), x.code]), [
    ["$bad", "expr.LookupUnknownPrePass"],
    ["$m1", "expr.UnknownNamedMap"],
  ]);
  assert.match(d[0].message, /unknown pre_pass 'typo_name'/);
  assert.match(d[1].message, /unknown named map 'missing_map'/);
  const typo = checkExpressions(template({ inputSchema: [["$k", "BLAH(1)"]] }), new Map(), {
    ...fakeTools,
    suggestFunction: () => "ABS",
  });
  assert.equal(typo[0].suggest, "did you mean 'ABS'?");
});

Deno.test("check_exprs: field clustering flags a once-used near-duplicate, not a distant one", () => {
  assert.deepEqual(fieldOutlier([["Symbol"], ["Symbol"], ["Symbol"], ["Symbo"]]), {
    bad: "Symbo",
    good: "Symbol",
  });
  assert.equal(fieldOutlier([["Symbol"], ["Symbol"], ["Symbol"], ["Stamp duty reserve tax"]]), null);
  // repeats inside one expression count once
  assert.equal(fieldOutlier([["Symbol", "Symbol", "Symbol"], ["Symbo"]]), null);
  const t = template({
    inputSchema: [["$a", "[Symbol]"], ["$b", "[Symbol]"], ["$c", "[Symbol]"], ["$d", "[Symbo]"]],
  });
  const w = checkExpressions(t, new Map(), fakeTools).find((x) => x.code === "expr.UnknownField");
  assert.equal(w?.severity, "warning");
  assert.equal(w?.path, "conversion_templates.t.input_schema");
  assert.match(w?.message ?? "", /field 'Symbo' is referenced once/);
});

Deno.test("check_exprs: unused pre_pass blocks and variables", () => {
  const named = template({
    prePass: [
      { name: "used", when: "1", key: "[ID]", values: [["x", "[X]"]] },
      { name: "unused_block", when: "1", key: "[Y]", values: [["y", "[Y]"]] },
    ],
    inputSchema: [["$a", "LOOKUP('used', [ID], 'x')"], ["$unused_var", "[Y]"]],
    outputSchema: [["a", "$a"]],
  });
  const d = checkUnused(named, fakeTools);
  assert.deepEqual(d.map((x) => [x.path, x.code]), [
    ["conversion_templates.t.pre_pass.unused_block", "config.unused_pre_pass"],
    ["conversion_templates.t.input_schema.$unused_var", "config.unused_input_var"],
  ]);
  assert.match(d[0].message, /'unused_block'.*never referenced/);
  assert.match(d[1].message, /'\$unused_var'/);
  const legacy = template({
    prePass: [{ name: "_default", when: "1", key: "[ID]", values: [["x", "[X]"]] }],
    inputSchema: [["$a", "LOOKUP([ID], 'x')"]],
    outputSchema: [["a", "$a"]],
  });
  assert.deepEqual(checkUnused(legacy, fakeTools), []);
  const computed = template({ ...named, inputSchema: [["$a", "LOOKUP([Name], [ID], 'x')"]] });
  assert.ok(!checkUnused(computed, fakeTools).some((x) => x.code === "config.unused_pre_pass"));
});

Deno.test("check_exprs: a [$x] column reference is not a use of the variable $x (real language)", () => {
  const t = template({
    inputSchema: [["$x", "[A]"], ["$y", "[$x] & 'z'"]],
    outputSchema: [["y", "$y"]],
  });
  const d = checkUnused(t, langExprTools);
  assert.deepEqual(d.map((x) => [x.path, x.code]), [
    ["conversion_templates.t.input_schema.$x", "config.unused_input_var"],
  ]);
  // [$x] itself is a valid expression: a column named "$x".
  assert.deepEqual(checkExpressions(t, new Map(), langExprTools), []);
});

Deno.test("check_exprs: a $variable inside an expression is UnexpectedChar at its key, with the hint", () => {
  const t = template({
    inputSchema: [["$date", "[Date]"], ["$keep", "ISEMPTY($date)"]],
    rowRules: [{ when: "$date = ''", rows: [[["$keep", "'x'"]]] }],
    outputSchema: [["date", "$date"], ["keep", "$keep"]],
  });
  const d = checkExpressions(t, new Map(), langExprTools);
  assert.deepEqual(d.map((x) => [x.path, x.code, x.off, x.len]), [
    ["conversion_templates.t.input_schema.$keep", "expr.UnexpectedChar", 8, 1],
    ["conversion_templates.t.row_rules.0.when", "expr.UnexpectedChar", 0, 1],
  ]);
  assert.match(d[0].message, /unexpected character '\$' at pos 9/);
  assert.match(d[0].message, /expressions see columns, not variables/);
});

import assert from "node:assert/strict";
import { compileExpression, emptyContext, FUNCTIONS, languageDocs } from "../../src/lang/mod.ts";
import { VARIADIC } from "../../src/lang/spec.ts";

Deno.test("every registry example evaluates to its documented result", async (t) => {
  for (const f of FUNCTIONS) {
    await t.step(`${f.name}: ${f.example}`, () => {
      const got = compileExpression(f.example).evaluate(emptyContext());
      if (f.exampleResult instanceof RegExp) assert.match(got, f.exampleResult);
      else assert.equal(got, f.exampleResult, `${f.example} -> ${got}`);
    });
  }
});

Deno.test("registry entries are complete and consistent", () => {
  const names = new Set<string>();
  for (const f of FUNCTIONS) {
    assert.ok(!names.has(f.name), `duplicate ${f.name}`);
    names.add(f.name);
    assert.equal(f.name, f.name.toUpperCase());
    assert.ok(f.signature.startsWith(f.name + "("), f.name);
    assert.ok(f.description.length > 10, f.name);
    assert.ok(f.example.toUpperCase().includes(f.name + "("), `${f.name} example calls it`);
    assert.ok(f.minArgs <= f.maxArgs, f.name);
    assert.ok(f.maxArgs === VARIADIC || f.args.length <= f.maxArgs, f.name);
    assert.ok((f.eager === undefined) !== (f.lazy === undefined), `${f.name}: exactly one implementation`);
    for (const a of f.args) {
      if (a.kind === "integer_in_range") assert.ok(a.min !== undefined && a.max !== undefined, f.name);
    }
  }
  assert.ok(FUNCTIONS.length >= 67);
  for (const lazy of ["IF", "CASE", "IFERROR"]) assert.ok(FUNCTIONS.find((f) => f.name === lazy)?.lazy);
});

Deno.test("docs catalog is built from the registry in bxp's shape", () => {
  const docs = languageDocs();
  assert.deepEqual(Object.keys(docs), [
    "functions",
    "keywords",
    "operators",
    "tokens",
    "date_tokens",
    "precedence",
  ]);
  assert.equal(docs.functions.length, FUNCTIONS.length);
  const round = docs.functions.find((f) => f.name === "ROUND")!;
  assert.deepEqual(round.args, [{ name: "x", kind: "number" }, {
    name: "n",
    kind: "integer_in_range",
    min: -30,
    max: 30,
  }]);
  assert.equal(round.min_args, 2);
  assert.equal(docs.functions.find((f) => f.name === "COALESCE")!.max_args, 255);
  assert.deepEqual(docs.precedence.map((p) => p.level), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(docs.precedence[0].operators, "unary -");
  assert.equal(docs.precedence[7].operators, "OR");
  assert.ok(docs.date_tokens.some((t) => t.token === "YYYY"));
  assert.ok(docs.keywords.some((k) => k.name === "NOT"));
  assert.ok(docs.operators.some((o) => o.token === "&"));
});

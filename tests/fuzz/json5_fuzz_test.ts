/**
 * Fuzzing the JSON5 config reader and everything that reads config text for the MCP tools: parseJson5
 * never throws (a syntax problem, the size cap and the depth cap all come back as `error`), agrees with
 * JSON.parse on plain JSON, and the validate / list / fetch / template-shape paths never throw on damaged
 * configs.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { CONFIG_MAX_BYTES, MAX_NESTING_DEPTH, parseJson5, toPlain } from "../../src/config/json5.ts";
import { annotateConfig, fetchTemplate, listTemplates } from "../../src/inspect/mod.ts";
import { templateIo } from "../../src/inspect/templates.ts";
import { CONFORMANCE_DIR } from "../_support/processes.ts";
import { fuzzParams, mutated, nastyText, withinTime } from "./_fuzz.ts";

const datasets = CONFORMANCE_DIR === null ? null : new URL("datasets/", CONFORMANCE_DIR);
const seeds: string[] = [];
for (const entry of datasets === null ? [] : Deno.readDirSync(datasets)) {
  try {
    seeds.push(Deno.readTextFileSync(new URL(`${entry.name}/sample.json`, datasets!)));
  } catch {
    // a dataset without a config
  }
}
seeds.push(
  "{ a: 1, // note\n b: 'x', c: [1, 2,], d: +Infinity, e: 0x1F, f: .5, 'g': \"\\u00e9\" }",
  '{"conversion_templates":{"t":{"data_dir":".","file_pattern_in":".csv","input_schema":{"$a":"[x]"}}}}',
);

function readAll(text: string): void {
  withinTime(3000, `config ${JSON.stringify(text.slice(0, 60))}`, () => {
    const parsed = parseJson5(text);
    assert.equal(parsed.value === null, parsed.error !== null, "value xor error");
    if (parsed.error) assert.equal(typeof parsed.error.message, "string");
    const annotated = annotateConfig(text, "<config>");
    assert.equal(typeof annotated.json, "string");
    JSON.parse(annotated.json);
    JSON.parse(listTemplates(text));
    JSON.parse(fetchTemplate(text, "t").json);
    templateIo(text, "t");
  });
}

Deno.test("fuzz json5: mutated real configs never make a reader or validator throw", () => {
  if (datasets !== null) assert.ok(seeds.length >= 5, "conformance configs were read");
  fc.assert(fc.property(mutated(seeds), (text) => readAll(text)), fuzzParams(1500, 6));
});

Deno.test("fuzz json5: random text never makes a reader or validator throw", () => {
  fc.assert(fc.property(nastyText, (text) => readAll(text)), fuzzParams(3000));
});

Deno.test("fuzz json5: plain JSON reads as JSON.parse reads it", () => {
  fc.assert(
    fc.property(fc.json({ maxDepth: 6 }), (text) => {
      const parsed = parseJson5(text);
      assert.equal(parsed.error, null, text);
      assert.deepEqual(toPlain(parsed.value!), JSON.parse(text));
    }),
    fuzzParams(3000),
  );
});

Deno.test("json5 caps: nesting and size turn into errors, not stack overflows or huge allocations", () => {
  for (const depth of [MAX_NESTING_DEPTH + 1, 10_000, 200_000]) {
    for (const [open, close] of [["[", "]"], ["{a:", "}"]]) {
      const text = open.repeat(depth) + "1" + close.repeat(depth);
      const parsed = parseJson5(text);
      if (text.length > CONFIG_MAX_BYTES) {
        assert.equal(parsed.error?.code, "json5.too_large");
      } else {
        assert.equal(parsed.error?.code, "json5.too_deep", `depth ${depth}`);
      }
      readAll(text);
    }
  }
  assert.equal(parseJson5("[".repeat(MAX_NESTING_DEPTH) + "]".repeat(MAX_NESTING_DEPTH)).error, null);
  const big = `{ a: "${"x".repeat(CONFIG_MAX_BYTES)}" }`;
  assert.equal(parseJson5(big).error?.code, "json5.too_large");
  assert.match(parseJson5(big).error!.message, /over the 1048576-byte limit/);
  readAll(big);
});

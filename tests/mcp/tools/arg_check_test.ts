import assert from "node:assert/strict";
import { checkArguments } from "../../../src/mcp/tools/arg_check.ts";
import { objectSchema } from "../../../src/mcp/tools/schemas.ts";

const schema = objectSchema({
  expr: { type: "string" },
  rows: { type: "array", items: { type: "string" } },
  mode: { type: "string", enum: ["fast", "slow"] },
  n: { type: "integer", minimum: 1, maximum: 10 },
  maps: {
    type: "object",
    additionalProperties: { type: "object", additionalProperties: { type: "string" } },
  },
  template: { type: "string" },
  id: { type: "string" },
}, ["expr"]);

const message = (args: Record<string, unknown> | null, aliases?: Record<string, string>) => {
  const checked = checkArguments(schema, args, aliases);
  return checked.ok ? null : checked.message;
};

Deno.test("a sound call passes, nulls count as absent, aliases fold into their target", () => {
  assert.deepEqual(checkArguments(schema, { expr: "1", n: null }), { ok: true, args: { expr: "1" } });
  assert.deepEqual(checkArguments(schema, { expr: "1", id: "t" }, { id: "template" }), {
    ok: true,
    args: { expr: "1", template: "t" },
  });
  assert.equal(
    message({ expr: "1", id: "t", template: "t" }, { id: "template" }),
    null,
    "the same value twice is fine",
  );
});

Deno.test("each problem is named with the argument and what was expected", () => {
  assert.equal(message(null), "missing 'expr'");
  assert.equal(message({ expr: 5 }), "expected a string for 'expr', got number");
  assert.equal(message({ expr: "1", rows: "x" }), "expected an array of strings for 'rows', got string");
  assert.equal(message({ expr: "1", rows: ["a", true] }), "expected a string for 'rows[1]', got boolean");
  assert.equal(message({ expr: "1", n: 2.5 }), "expected an integer for 'n', got number");
  assert.equal(message({ expr: "1", n: 11 }), "'n' must be at most 10, got 11");
  assert.equal(message({ expr: "1", n: 0 }), "'n' must be at least 1, got 0");
  assert.equal(
    message({ expr: "1", mode: "fst" }),
    `'mode' must be one of "fast", "slow", got "fst" (did you mean "fast"?)`,
  );
  assert.equal(message({ expr: "1", maps: { m: { a: [] } } }), "expected a string for 'maps.m.a', got array");
  assert.equal(message({ expr: "1", maps: { m: "x" } }), "expected an object for 'maps.m', got string");
  assert.equal(
    message({ expr: "1", id: "a", template: "b" }, { id: "template" }),
    "give 'template' or its older name 'id', not both",
  );
});

Deno.test("unknown names are refused with a did-you-mean and the valid names, clipped and counted", () => {
  assert.equal(
    message({ expre: "1" }),
    "unknown argument 'expre' (did you mean 'expr'?); this tool takes: expr, rows, mode, n, maps, template, id",
  );
  const many = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`zz${i}`, 1]));
  assert.match(
    message({ expr: "1", ...many }) ?? "",
    /^unknown arguments 'zz0', 'zz1', 'zz2', 'zz3', 'zz4' and 3 more;/,
  );
  const long = "q".repeat(10_000);
  const text = message({ expr: "1", [long]: 1 }) ?? "";
  assert.ok(text.length < 200 && text.includes("q".repeat(64) + "..."), text);
});

Deno.test("an argument named __proto__ is an unknown argument, never a prototype", () => {
  const args = JSON.parse('{"expr":"1","__proto__":{"n":"x"}}');
  assert.match(message(args) ?? "", /^unknown argument '__proto__'/);
  const loose = checkArguments({ type: "object", properties: { expr: { type: "string" } } }, args);
  assert.ok(loose.ok);
  assert.equal(Object.getPrototypeOf(loose.args), Object.prototype);
  assert.equal((loose.args as Record<string, unknown>).n, undefined);
});

Deno.test("deep places are spelled out in full: indexes, member names (clipped), unknown members", () => {
  const schema = {
    type: "object",
    properties: {
      grid: { type: "array", items: { type: "array", items: { type: "string" } } },
      spec: {
        type: "object",
        properties: { mode: { enum: ["a", "b"] } },
        additionalProperties: { type: "object", additionalProperties: { type: "integer", minimum: 0 } },
      },
      strict: { type: "object", properties: { x: { type: "string" } }, additionalProperties: false },
    },
  };
  const problem = (args: Record<string, unknown>) => {
    const checked = checkArguments(schema, args);
    return checked.ok ? null : checked.message;
  };
  assert.equal(problem({ grid: [["a"], ["b", "c", 3]] }), "expected a string for 'grid[1][2]', got number");
  const long = "k".repeat(80);
  assert.equal(
    problem({ spec: { [long]: { n: -1 } } }),
    `'spec.${"k".repeat(64)}....n' must be at least 0, got -1`,
  );
  assert.equal(
    problem({ spec: { mode: "c" } }),
    `'spec.mode' must be one of "a", "b", got "c" (did you mean "a"?)`,
  );
  assert.equal(problem({ strict: { y: "1" } }), "unknown member 'strict.y'; 'strict' takes: x");
  assert.equal(problem({ grid: [["a"]], spec: { mode: "a", w: { n: 2 } }, strict: { x: "1" } }), null);
});

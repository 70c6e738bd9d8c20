import assert from "node:assert/strict";
import fc from "fast-check";
import { annotateOutcome, Annotator } from "../../src/config/annotate.ts";
import type { OutValue } from "../../src/config/emit.ts";
import { langExprTools } from "../../src/config/lang_tools.ts";
import type { DirProbe } from "../../src/config/check_cross.ts";
import { validateConfig, validateConfigAsync } from "../../src/config/validate.ts";

type Json = Record<string, unknown>;

function annotate(text: string): { doc: Json; exitCode: number; json: string } {
  const r = annotateOutcome(validateConfig(text));
  return { doc: JSON.parse(r.json), exitCode: r.exitCode, json: r.json };
}

/** Keys of an object, to check marker placement. */
function keys(v: unknown): string[] {
  return Object.keys(v as Json);
}

function markers(v: unknown, prefix: string): { key: string; message: string }[] {
  return Object.entries(v as Json)
    .filter(([k]) => k.startsWith(prefix))
    .map(([key, val]) => ({ key, message: (val as { message: string }).message }));
}

const template = (body: string) =>
  `{\n  conversion_templates: {\n    sample: {\n      data_dir: ".",\n      file_pattern_in: ".csv",\n      file_pattern_out: ".csvx",\n${body}\n    }\n  }\n}`;

const sample = (doc: Json) => (doc.conversion_templates as Json).sample as Json;

Deno.test("annotate A: a clean config comes back as minified JSON without markers, exit 0", () => {
  const r = annotate(
    template('      input_schema: { $date: "[Date]" }, // c\n      output_schema: { date: "$date" },'),
  );
  assert.equal(r.exitCode, 0);
  assert.equal(
    r.json,
    '{"conversion_templates":{"sample":{"data_dir":".","file_pattern_in":".csv","file_pattern_out":".csvx","input_schema":{"$date":"[Date]"},"output_schema":{"date":"$date"}}}}',
  );
});

Deno.test("annotate A: no conversion_templates -> root $err_1 appended, tree kept", () => {
  const r = annotate('// top\n{ xtb: { file_pattern_in: ".csv", /* b */ items: [ // first\n "a", "b" ] } }');
  assert.equal(r.exitCode, 1);
  assert.deepEqual(keys(r.doc), ["$err_2", "xtb", "$err_1"]);
  assert.equal((r.doc.$err_1 as Json).message, "no conversion_templates defined");
  // the unknown root key is reported too, at its own place in the numbering
  assert.match((r.doc.$err_2 as Json).message as string, /unknown config key 'xtb'/);
});

Deno.test("annotate A: a JSON5 syntax error yields a positioned root marker", () => {
  const r = annotate(template("      data_dir2: [1,,],"));
  assert.equal(r.exitCode, 1);
  assert.deepEqual(r.doc, {
    $err_1: {
      message: "unexpected character — check for missing quotes, commas, or brackets",
      line: 7,
      col: 21,
      code: "json5.parse_error",
    },
  });
});

Deno.test("annotate B: xlsx_sheet without name -> $err before xlsx_sheet inside the template", () => {
  const r = annotate(template(
    '      xlsx_sheet: { header_row: 1, output_suffix: ".csv" },\n      input_schema: { $date: "[Date]" },\n      output_schema: { date: "$date" },',
  ));
  assert.equal(r.exitCode, 1);
  const s = sample(r.doc);
  const k = keys(s);
  const at = k.indexOf("xlsx_sheet");
  assert.match(k[at - 1], /^\$err_\d+$/);
  assert.match((s[k[at - 1]] as Json).message as string, /missing required key 'name'/);
  assert.equal((r.doc.$err_1 as Json).message, "InvalidConfig"); // root marker names the abort
});

Deno.test("annotate B: missing output_schema -> appended in the template; root marker MissingOutputSchema", () => {
  const r = annotate(template('      input_schema: { $date: "[Date]" },'));
  assert.equal(r.exitCode, 1);
  const s = sample(r.doc);
  assert.deepEqual(markers(s, "$err_").map((m) => m.message), ["output_schema is required"]);
  assert.equal(keys(s).at(-1), "$err_2");
  assert.equal((r.doc.$err_1 as Json).message, "MissingOutputSchema");
});

Deno.test("annotate B: structural errors read `field: 'value' --> message` before their key", () => {
  const r = annotate(template(
    '      csv_delimiter_in: ";", csv_decimal_separator_in: ";",\n      input_schema: { $a: "[A]" },\n      output_schema: { a: "a", b: "$b" },',
  ));
  assert.equal(r.exitCode, 1);
  const s = sample(r.doc);
  const msgs = markers(s, "$err_").map((m) => m.message);
  assert.ok(
    msgs.includes(
      "csv_delimiter_in: ';' --> csv_delimiter_in and csv_decimal_separator_in must be different characters",
    ),
  );
  const out = s.output_schema as Json;
  assert.deepEqual(markers(out, "$err_").map((m) => m.message), [
    "a: 'a' --> output_schema variable 'a' must start with '$'",
  ]);
  assert.equal(keys(out)[0].startsWith("$err_"), true);
});

Deno.test("annotate B: undefined REMAP map is not a load error without the language (covered in model tests)", () => {
  const r = annotate(
    template('      maps: 3,\n      input_schema: { $a: "[A]" },\n      output_schema: { a: "$a" },'),
  );
  assert.equal(r.exitCode, 1);
  assert.match(JSON.stringify(r.doc), /maps must be an object, got integer/);
});

Deno.test("annotate C: duplicate key -> error with the key name, line and col", () => {
  const r = annotate(template(
    '      data_dir: "second",\n      input_schema: { $date: "[Date]" },\n      output_schema: { date: "$date" },',
  ));
  assert.equal(r.exitCode, 1);
  const dup = Object.entries(r.doc).find(([k, v]) =>
    k.startsWith("$err_") && /duplicate key/.test((v as Json).message as string)
  );
  assert.ok(dup);
  const v = dup[1] as Json;
  assert.match(v.message as string, /'data_dir'/);
  assert.equal(v.line, 7);
  assert.equal(v.col, 7);
  assert.equal((sample(r.doc) as Json).data_dir, "second"); // last value wins, first position kept
  assert.equal(keys(sample(r.doc))[0], "data_dir");
});

Deno.test("annotate D: wrong types warn in the template and keep exit 0", () => {
  const r = annotate(template(
    '      date_filter_from_filename: 1,\n      csv_text_quote_in: "singlle",\n      file_type_out: "jsno",\n      input_schema: { $date: "[Date]" },\n      output_schema: { date: "$date" },',
  ));
  assert.equal(r.exitCode, 0);
  const s = sample(r.doc);
  const warns = markers(s, "$warn_");
  assert.equal(warns.length, 3);
  assert.ok(warns.some((w) => /date_filter_from_filename/.test(w.message) && /boolean/.test(w.message)));
  assert.ok(warns.some((w) => /csv_text_quote_in/.test(w.message) && /singlle/.test(w.message)));
  assert.ok(warns.some((w) => /file_type_out/.test(w.message) && /jsno/.test(w.message)));
  // each warning sits right before its key
  const k = keys(s);
  assert.match(k[k.indexOf("csv_text_quote_in") - 1], /^\$warn_/);
});

const twoTemplates = (a: string, b: string) =>
  `{ conversion_templates: {
    alpha: { data_dir: ".", file_pattern_in: "${a}", file_pattern_out: "_a.csvx", input_schema: { $d: "[D]" }, output_schema: { d: "$d" } },
    beta: { data_dir: ".", file_pattern_in: "${b}", file_pattern_out: "_b.csvx", input_schema: { $d: "[D]" }, output_schema: { d: "$d" } },
  } }`;

Deno.test("annotate E: overlapping file_pattern_in warns at the first template", () => {
  const r = annotate(twoTemplates(".csv", "_x.csv"));
  assert.equal(r.exitCode, 0);
  const alpha = (r.doc.conversion_templates as Json).alpha as Json;
  const k = keys(alpha);
  const warn = alpha[k[k.indexOf("file_pattern_in") - 1]] as Json;
  assert.match(warn.message as string, /matches the same files as template 'beta'/);
  const clean = annotate(twoTemplates("_closed.csv", "_cash.csv"));
  assert.ok(!clean.json.includes("$warn_"));
});

Deno.test("annotate F: filesystem check only when asked; missing data_dir is an error", async () => {
  const text = template('      input_schema: { $date: "[Date]" },\n      output_schema: { date: "$date" },')
    .replace('data_dir: "."', 'data_dir: "/__missing__"');
  const probe = {
    inspectDir: (d: string): DirProbe => (d === "." ? { kind: "ok", files: ["a.csv"] } : { kind: "missing" }),
  };
  const skipped = annotateOutcome(await validateConfigAsync(text, { fs: probe, checkFsMs: 0 }));
  assert.equal(skipped.exitCode, 0);
  const checked = annotateOutcome(await validateConfigAsync(text, { fs: probe, checkFsMs: 5000 }));
  assert.equal(checked.exitCode, 1);
  assert.match(checked.json, /data_dir does not exist/);
  const slow = {
    inspectDir: () => new Promise<DirProbe>((r) => setTimeout(() => r({ kind: "missing" }), 200)),
  };
  const timedOut = annotateOutcome(await validateConfigAsync(text, { fs: slow, checkFsMs: 20 }));
  assert.equal(timedOut.exitCode, 0);
  assert.match(timedOut.json, /fs\.timeout/);
});

Deno.test("annotate G7: unknown keys with did-you-mean, nested paths and array indexes", () => {
  const r = annotate(template(
    '      file_patter_in: "typo",\n      input_schema: { $weird_user_name: "[X]" },\n      row_rules: [ { when: "1", rows: [ {} ], whem: "x" } ],\n      output_schema: { x: "$weird_user_name" },',
  ));
  assert.equal(r.exitCode, 1);
  const s = sample(r.doc);
  const k = keys(s);
  const typo = s[k[k.indexOf("file_patter_in") - 1]] as Json;
  assert.match(typo.message as string, /unknown config key 'file_patter_in'/);
  assert.match(typo.message as string, /did you mean 'file_pattern_in'\?/);
  assert.equal(typo.suggest, "did you mean 'file_pattern_in'?");
  assert.equal(typo.code, "config.unknown_key");
  const rule = (s.row_rules as Json[])[0];
  const rk = keys(rule);
  assert.match(rk[rk.indexOf("whem") - 1], /^\$err_/);
  assert.ok(!JSON.stringify(s.input_schema).includes("$err_"));
});

Deno.test("annotate: one counter across severities, numbered in injection order", () => {
  const r = annotate(template(
    '      combined_output: "yes",\n      file_patter_in: "x",\n      input_schema: { $a: "[A]" },\n      output_schema: { a: "$a" },',
  ));
  const found = JSON.stringify(r.doc).match(/\$(err|warn|info)_\d+/g) ?? [];
  assert.deepEqual([...found].sort(), ["$err_2", "$warn_1"]);
});

Deno.test("annotate: hostile input (oversize, deep nesting) becomes a root diagnostic", () => {
  const big = annotate(`{ a: "${"x".repeat(1024 * 1024)}" }`);
  assert.equal(big.exitCode, 1);
  assert.equal((big.doc.$err_1 as Json).code, "json5.too_large");
  const deep = annotate("[".repeat(50_000) + "]".repeat(50_000));
  assert.equal(deep.exitCode, 1);
  assert.equal((deep.doc.$err_1 as Json).code, "json5.too_deep");
});

/** The placement rule as it was first written (each marker spliced in as it came): the oracle. */
function insertSequentially(parent: OutValue, key: string, field: string, value: OutValue): void {
  if (parent.t !== "object") return;
  const existing = parent.entries.findIndex(([k]) => k === key);
  if (existing >= 0) {
    parent.entries[existing] = [key, value];
    return;
  }
  const at = field === "" ? -1 : parent.entries.findIndex(([k]) => k === field);
  if (at < 0) parent.entries.push([key, value]);
  else parent.entries.splice(at, 0, [key, value]);
}

Deno.test("annotate: markers placed at the end land where inserting each as it came puts them", () => {
  // Keys of the objects and of the fields markers aim at overlap with marker names on purpose.
  const names = ["a", "b", "c", "$err_2", "$warn_3", "$info_5", ""];
  const prefixes = ["$err_", "$warn_", "$info_"];
  const object = fc.uniqueArray(fc.constantFrom(...names.slice(0, 6)), { maxLength: 6 });
  const inserts = fc.array(
    fc.record({ target: fc.nat(2), prefix: fc.constantFrom(...prefixes), field: fc.constantFrom(...names) }),
    { maxLength: 12 },
  );
  fc.assert(
    fc.property(fc.array(object, { minLength: 3, maxLength: 3 }), inserts, (objects, steps) => {
      const build = (): OutValue[] =>
        objects.map((ks) => ({
          t: "object",
          entries: ks.map((k): [string, OutValue] => [k, { t: "null" }]),
        }));
      const expected = build();
      const actual = build();
      const annotator = new Annotator(actual[0]);
      steps.forEach((step, i) => {
        const value: OutValue = { t: "number", text: String(i) };
        insertSequentially(expected[step.target], `${step.prefix}${i + 1}`, step.field, value);
        annotator.insertBefore(actual[step.target], step.prefix, step.field, value);
      });
      annotator.finish();
      assert.deepEqual(actual, expected);
    }),
    { seed: 0x616e6e, numRuns: 3000 },
  );
});

Deno.test("annotate: a thousand findings in one wide object are placed in one pass", () => {
  const vars = Array.from({ length: 1500 }, (_, i) => `$v${i}: "[c${i % 500}]"`).join(",\n");
  const text = template(`input_schema: {\n${vars}\n},\noutput_schema: { a: "$v0" }`);
  const doc = JSON.parse(annotateOutcome(validateConfig(text, { exprTools: langExprTools })).json);
  const schema = sample(doc).input_schema as Json;
  const unused = markers(schema, "$warn_");
  assert.equal(unused.length, 1499);
  // Each warning sits right before the variable it names.
  const order = keys(schema);
  for (const { key, message } of unused) {
    const named = /variable '(\$v\d+)'/.exec(message)![1];
    assert.equal(order[order.indexOf(key) + 1], named, message);
  }
});

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/model.ts";
import { createRowWriter } from "../../src/engine/row_writers.ts";

function template(fileTypeOut: string) {
  return loadConfig(
    `{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o",
      file_type_out: "${fileTypeOut}", input_schema: {$a: "[a]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
      output_schema: {a: "$a", b: "$a"}}}}`,
    "c.json",
  ).config!.templates[0];
}

const text = (b: Uint8Array | null) => new TextDecoder().decode(b ?? new Uint8Array());

Deno.test("CSV rows and pre-formatted fragments interleave in order", () => {
  const w = createRowWriter(template("csv"), ["a", "b"]);
  w.writeHeader(["a", "b"]);
  w.writeRow(["1", "x,y"]);
  w.writeFragment(new TextEncoder().encode("2,2\n3,3\n"), 2);
  w.writeRow(["4", "4"]);
  w.finish();
  assert.equal(text(w.drain()), "a,b\n1,x,y\n2,2\n3,3\n4,4\n");
});

Deno.test("JSON fragments get their separators; an empty array is bxp's", () => {
  const w = createRowWriter(template("json"), ["a", "b"]);
  w.writeHeader(["a", "b"]);
  w.writeFragment(new Uint8Array(), 0);
  w.writeRow(["1", "1"]);
  w.writeFragment(new TextEncoder().encode('{"a":"2","b":"2"},\n{"a":"3","b":"3"}'), 2);
  w.writeRow(["4", "4"]);
  w.finish();
  assert.equal(
    text(w.drain()),
    '[\n{"a":"1","b":"1"},\n{"a":"2","b":"2"},\n{"a":"3","b":"3"},\n{"a":"4","b":"4"}\n]\n',
  );
  const empty = createRowWriter(template("json"), ["a"]);
  empty.writeHeader(["a"]);
  empty.finish();
  assert.equal(text(empty.drain()), "[\n\n]\n");
});

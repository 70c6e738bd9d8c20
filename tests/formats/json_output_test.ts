import { NEEDS_CONFORMANCE } from "../_support/conformance.ts";
import assert from "node:assert/strict";
import {
  escapeJsonString,
  formatJsonArray,
  JsonArrayWriter,
  jsonObjectText,
} from "../../src/formats/json_output.ts";
import { readJsonArray } from "../../src/formats/json_input.ts";

const CONFORMANCE = new URL("../../../shared/conformance/", import.meta.url);

function collect(headers: string[], rows: string[][], batchChars?: number): string {
  const chunks: Uint8Array[] = [];
  const w = new JsonArrayWriter(headers, (c) => chunks.push(c), { batchChars });
  for (const r of rows) w.writeRow(r);
  w.finish();
  return chunks.map((c) => new TextDecoder().decode(c)).join("");
}

Deno.test("JSON-output goldens are reproduced byte for byte from their rows", NEEDS_CONFORMANCE, async () => {
  for (const name of ["1-enriched.in.expected", "1-final.expected"]) {
    const golden = await Deno.readFile(
      new URL(`docs/examples/advanced/multi-stage-etl/${name}`, CONFORMANCE),
    );
    const { columns, records } = readJsonArray(golden);
    const rows = records.map((r) => r.fields);
    assert.equal(collect(columns, rows, 16), new TextDecoder().decode(golden), name);
    assert.equal(formatJsonArray(columns, rows), new TextDecoder().decode(golden), name);
  }
});

Deno.test("layout: opening line, comma-newline separators, closing line", () => {
  assert.equal(collect(["a"], []), "[\n\n]\n");
  assert.equal(collect(["a", "b"], [["1", "x"]]), '[\n{"a":"1","b":"x"}\n]\n');
  assert.equal(collect(["a"], [["1"], ["2"]]), '[\n{"a":"1"},\n{"a":"2"}\n]\n');
  assert.equal(jsonObjectText(["a", "b"], ["1"]), '{"a":"1","b":""}', "missing value is empty");
});

Deno.test("escaping: quotes, backslashes, control characters; UTF-8 kept", () => {
  assert.equal(escapeJsonString('a"b\\c'), 'a\\"b\\\\c');
  assert.equal(escapeJsonString("l1\nl2\r\t"), "l1\\nl2\\r\\t");
  assert.equal(escapeJsonString("\u0001\u001f\b\f"), "\\u0001\\u001f\\u0008\\u000c");
  assert.equal(escapeJsonString("Žluť € 😀 / \u007f"), "Žluť € 😀 / \u007f");
  assert.equal(jsonObjectText(['k"1'], ["v"]), '{"k\\"1":"v"}', "keys are escaped too");
});

import { NEEDS_CONFORMANCE } from "../_support/conformance.ts";
import assert from "node:assert/strict";
import {
  escapeJsonString,
  formatJsonArray,
  JsonArrayWriter,
  jsonObjectText,
  JsonRowEncoder,
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

Deno.test("rows encoded as bytes equal the text layout encoded, for any buffer size and value", () => {
  // formatJsonArray builds the text with escapeJsonString: the reference the byte encoder must match.
  const escaped = ['"', "\\", "\n", "\r", "\t", "\u0001", "\u001f"];
  const pieces = ["a", "/", "\u007f", "é", "€", "😀", "\ud800", ...escaped];
  let seed = 7;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (const batchChars of [16, 64, 1024, 65536]) {
    for (let trial = 0; trial < 20; trial++) {
      const headers = Array.from({ length: rnd(4) }, (_, i) => `h${i}${pieces[rnd(pieces.length)]}`);
      const rows: string[][] = [];
      for (let r = rnd(6); r > 0; r--) {
        const row: string[] = [];
        for (let c = rnd(headers.length + 1); c > 0; c--) {
          let v = rnd(10) === 0 ? "x".repeat(300) : "";
          for (let k = rnd(8); k > 0; k--) v += pieces[rnd(pieces.length)];
          row.push(v);
        }
        rows.push(row);
      }
      const expected = new TextDecoder().decode(new TextEncoder().encode(formatJsonArray(headers, rows)));
      assert.equal(collect(headers, rows, batchChars), expected, `batch ${batchChars} trial ${trial}`);
    }
  }
});

Deno.test("JsonRowEncoder: rows after the first get ',\\n'; restart and reuse keep the bytes apart", () => {
  const chunks: Uint8Array[] = [];
  const rows = new JsonRowEncoder(["k"], (c) => chunks.push(c), { bufferSize: 1024 });
  rows.writeRow(["1"]);
  rows.writeRow(["2"]);
  rows.flush();
  assert.equal(new TextDecoder().decode(chunks[0]), '{"k":"1"},\n{"k":"2"}');
  rows.reuse(chunks[0]);
  rows.restart(null);
  rows.writeRow(["3"]);
  rows.flush();
  assert.equal(new TextDecoder().decode(chunks[1]), '{"k":"3"}', "restart: the first row has no separator");
  rows.reuse(chunks[1]);
  rows.writeRow(["4"]);
  rows.flush();
  assert.equal(chunks[2].buffer, chunks[1].buffer, "a chunk given back holds the next rows");
  assert.equal(new TextDecoder().decode(chunks[2]), ',\n{"k":"4"}');
  const empty: Uint8Array[] = [];
  const none = new JsonRowEncoder([], (c) => empty.push(c));
  none.writeRow([]);
  none.flush();
  assert.equal(new TextDecoder().decode(empty[0]), "{}");
});

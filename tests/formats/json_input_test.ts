import { NEEDS_CONFORMANCE } from "../_support/conformance.ts";
import assert from "node:assert/strict";
import {
  JsonArrayParser,
  JsonColumns,
  JsonInputError,
  type JsonObjectRecord,
  jsonRecordFields,
  readJsonArray,
  readJsonRecords,
} from "../../src/formats/json_input.ts";

const CONFORMANCE = new URL("../../../shared/conformance/", import.meta.url);
const enc = new TextEncoder();

function parseChunks(chunks: Uint8Array[]): JsonObjectRecord[] {
  const out: JsonObjectRecord[] = [];
  const parser = new JsonArrayParser((r) => out.push(r));
  for (const c of chunks) parser.push(c);
  parser.finish();
  return out;
}

Deno.test(
  "synthetic_json_demo: union of keys in first-seen order, values as bxp prints them",
  NEEDS_CONFORMANCE,
  async () => {
    const bytes = await Deno.readFile(new URL("datasets/synthetic_json_demo/sample.in.json", CONFORMANCE));
    const { columns, records } = readJsonArray(bytes);
    assert.deepEqual(columns, ["date", "ticker", "qty", "price", "currency", "fee", "note", "flag"]);
    assert.deepEqual(records.map((r) => r.fields), [
      ["2025-01-15 10:00:00", "AAPL", "10", "195.5", "", "", "", ""],
      ["2025-01-16 11:30:00", "MSFT", "5", "415.2", "USD", "", "", ""],
      ["2025-01-17 09:15:00", "GOOG", "2", "", "USD", "", "", ""],
      ["2025-01-18 14:45:00", "AMZN", "7", "178", "", "0.5", "", ""],
      ["2025-01-19 16:00:00", "TSLA", "3", "245", "USD", "1.25", "limit order", "true"],
    ]);
    for (const r of records) assert.equal(bytes[r.offset], 0x7b, `offset ${r.offset} points at '{'`);
  },
);

Deno.test("every split point of a JSON input gives the same records", NEEDS_CONFORMANCE, async () => {
  const bytes = enc.encode(
    '\uFEFF [ {"a":"x\\"}\\u00e9]","b":[1,{"c":"}"}],"é":1.50e1} , 7, "s", {"a":null,"a":"last"},\n{}]\n',
  );
  const whole = parseChunks([bytes]);
  assert.equal(whole.length, 3);
  assert.deepEqual(whole[0], { keys: ["a", "b", "é"], values: ['x"}é]', "", "15"], offset: 6 });
  assert.deepEqual(whole[1].values, ["", "last"]);
  for (let i = 0; i <= bytes.length; i++) {
    assert.deepEqual(parseChunks([bytes.subarray(0, i), bytes.subarray(i)]), whole, `split at ${i}`);
  }
  const j = await Deno.readFile(
    new URL("docs/examples/intermediate/json-union/crm_beta.in.json", CONFORMANCE),
  );
  const wholeBeta = parseChunks([j]);
  for (let i = 0; i <= j.length; i += 7) {
    assert.deepEqual(parseChunks([j.subarray(0, i), j.subarray(i)]), wholeBeta, `crm_beta split at ${i}`);
  }
});

Deno.test("repeated keys: one column, last value wins; unknown keys ignored; values trimmed", () => {
  const cols = new JsonColumns();
  const rec: JsonObjectRecord = { keys: ["k", "k", "z"], values: [" 1", " two ", "3"], offset: 0 };
  cols.add(rec);
  assert.deepEqual(cols.names, ["k", "z"]);
  assert.deepEqual(jsonRecordFields(rec, cols.index), ["two", "3"]);
  assert.deepEqual(jsonRecordFields(rec, new Map([["z", 0]]), false), ["3"]);
  assert.deepEqual(jsonRecordFields(rec, cols.index, false), [" two ", "3"]);
});

Deno.test("bxp's refusals: not an array, first element not an object, broken syntax", () => {
  const kindOf = (text: string) => {
    try {
      readJsonArray(enc.encode(text), { sourceName: "in.json" });
      return "ok";
    } catch (err) {
      assert.ok(err instanceof JsonInputError, String(err));
      assert.match(err.message, /'in\.json' at byte \d+/);
      return err.kind;
    }
  };
  assert.equal(kindOf("{}"), "JsonNotArray");
  assert.equal(kindOf(""), "JsonNotArray");
  assert.equal(kindOf("[1, {}]"), "JsonNotObjectArray");
  assert.equal(kindOf('["a"]'), "JsonNotObjectArray");
  assert.equal(kindOf('[{"a":1}'), "JsonSyntax");
  assert.equal(kindOf('[{"a" 1}]'), "JsonSyntax");
  assert.equal(kindOf('[{"a":1}] x'), "JsonSyntax");
  assert.equal(kindOf("[]"), "ok");
  assert.equal(kindOf('[{"a":1}, 2, [3]]'), "ok", "later non-objects are skipped");
});

Deno.test("empty array gives no columns and no records", () => {
  assert.deepEqual(readJsonArray(enc.encode(" [ ] ")), { columns: [], records: [] });
});

Deno.test("readJsonRecords streams object records from async chunks", async () => {
  async function* chunks() {
    yield enc.encode('[{"a":1},');
    yield enc.encode('{"b":true}]');
  }
  const got: JsonObjectRecord[] = [];
  for await (const r of readJsonRecords(chunks())) got.push(r);
  assert.deepEqual(got, [{ keys: ["a"], values: ["1"], offset: 1 }, {
    keys: ["b"],
    values: ["true"],
    offset: 9,
  }]);
});

import assert from "node:assert/strict";
import { draftConfig, identifier } from "../../src/draft/draft.ts";
import { annotateConfig } from "../../src/inspect/annotate.ts";

const enc = (s: string) => new TextEncoder().encode(s);

const ODD_SAMPLES: Record<string, string> = {
  headerOnly: "a,b,c\n",
  oneColumn: "name\nx\ny\n",
  brackets: 'a[1],b]x,"q""uote",2024\n1,2,3,4\n',
  repeated: "a,a,A,\n1,2,3,4\n",
  accents: "Číslo účtu,Částka\n1,2\n",
  quotesInNames: "$x,y'z,a*/b,c\\d\n1,2,3,4\n",
  crlf: "a;b\r\n1,5;2\r\n",
  wide: Array.from({ length: 300 }, (_, i) => `c${i}`).join(",") + "\n" +
    Array.from({ length: 300 }, (_, i) => `${i}`).join(",") + "\n",
};

Deno.test("draft: odd headers and shapes still give a config that validates with no finding", () => {
  for (const [name, text] of Object.entries(ODD_SAMPLES)) {
    const d = draftConfig(enc(text), { sampleName: `${name}.csv` });
    const r = annotateConfig(d.text, name);
    assert.equal(r.exitCode, 0, `${name}: ${r.json}`);
    assert.ok(!/"\$(err|warn)_/.test(r.json), `${name}: ${r.json}`);
  }
});

Deno.test("draft: columns that [Name] cannot reach are read with FIELDS(n)", () => {
  const d = draftConfig(enc(ODD_SAMPLES.repeated), { sampleName: "r.csv" });
  assert.deepEqual(d.columns.map((c) => c.expression), ["FIELDS(1)", "FIELDS(2)", "[A]", "FIELDS(4)"]);
  assert.deepEqual(d.columns.map((c) => c.output), ["a", "a_2", "a_3", "column_4"]);
  const b = draftConfig(enc(ODD_SAMPLES.brackets), { sampleName: "b.csv" });
  assert.deepEqual(b.columns.map((c) => c.expression.replace(/^.*?(FIELDS\(\d\)|\[[^\]]*\]).*$/, "$1")), [
    "FIELDS(1)",
    "FIELDS(2)",
    '[q"uote]',
    "FIELDS(4)",
  ]);
});

Deno.test("draft: what the sample cannot settle becomes a CHECK comment", () => {
  const d = draftConfig(enc("when,qty\n01/02/2024,1\n03/04/2024,2\n"), { sampleName: "x.csv" });
  assert.match(d.text, /^\/\/ CHECK: column 'when': no day above 12 in the sample: read as month-first/m);
  assert.match(d.text, /\$when: "DATE_CONVERT\(\[when\], 'MM\/DD\/YYYY', 'YYYY-MM-DD'\)"/);
});

Deno.test("draft: an empty sample drafts no columns", () => {
  const d = draftConfig(new Uint8Array(), { sampleName: "e.csv" });
  assert.equal(d.sniff.columns.length, 0);
});

Deno.test("draft: identifiers from any header text", () => {
  assert.equal(identifier("Číslo účtu", "x"), "cislo_uctu");
  assert.equal(identifier("2024 total", "col_3"), "col_3_2024_total");
  assert.equal(identifier("***", "col_1"), "col_1");
});

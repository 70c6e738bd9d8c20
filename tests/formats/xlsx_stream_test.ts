/**
 * The streamed sheet reader against the whole-text reader it replaced (xlsx_oracle.ts): the same bytes fed
 * in pieces of every size, split at every offset, and random documents full of awkward XML, must give the
 * same CSV byte for byte.
 */

import assert from "node:assert/strict";
import { SheetCsv } from "../../src/formats/xlsx/sheet.ts";
import { SharedStrings } from "../../src/formats/xlsx/parts.ts";
import { attr, attrBounds, oneCharAttrBounds, XmlScanner } from "../../src/formats/xlsx/xml.ts";
import { xlsxRowsToCsv } from "../../src/formats/xlsx.ts";
import { parseSharedStrings, readSheet } from "./xlsx_oracle.ts";

const SHARED = ["zero", "one, with comma", 'quote "q"', "multi\nline", "čeština ✓"];
const DATE_STYLES = new Set([1, 3]);

const SHEET = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<!-- a comment with <row> inside -->
<!DOCTYPE nothing>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>
<row r="1"><c r="A1" t="inlineStr"><is><t>title &amp; more</t></is></c></row>
<row r="3" spans="1:6"><c r="B3" t="s"><v>0</v></c><c r="C3" t="inlineStr"><is><t>Amount</t></is></c>
<c r="D3" t='inlineStr'><is><t xml:space="preserve"> When </t></is></c><c r="E3" t="s"><v>4</v></c></row>
<row r="4"><c r="B4" t="s"><v>1</v></c><c r="C4"><v>1.2500</v></c><c r="D4" s="1"><v>45992.5</v></c>
<c r="E4" t="b"><v>1</v></c><c r="F4"><v>beyond</v></c></row>
<x:row r="5"><x:c r="B5" t="s"><x:v>2</x:v></x:c><x:c r="C5"><x:v>2.087960758E9</x:v></x:c></x:row>
<row r="6"><c r="B6" t="inlineStr"><is><t>&#x41;&#66;&lt;&gt;&quot;&apos;&nbsp;&#xD800;é😀</t></is></c>
<c r="C6" s="3"><v>not-a-number</v></c><c r="D6"/><c r="E6" t="e"><v>#DIV/0!</v></c></row>
<row r="7"></row>
<row r="8"><c r="B8" t="s"><v>3</v></c><c r="C8" t="str"><f>A1&gt;0</f><v>f "x" / y</v></c></row>
<row r="9"><c r="B9" attr="a>b/c" t="inlineStr"><is><t>quoted &gt; attr</t></is></c></row>
</sheetData></worksheet>`;

function oracleCsv(xml: string, headerRow: number): string {
  return xlsxRowsToCsv(readSheet(xml, headerRow, SHARED, DATE_STYLES));
}

function streamedCsv(bytes: Uint8Array, pieces: number[], headerRow: number): string {
  const sheet = new SheetCsv({ headerRow, shared: SHARED, dateStyles: DATE_STYLES, part: "sheet.xml" });
  let csv = "";
  let at = 0;
  for (const len of pieces) {
    csv += sheet.push(bytes.subarray(at, at + len));
    at += len;
  }
  csv += sheet.push(bytes.subarray(at));
  return csv + sheet.finish();
}

function fixedPieces(total: number, size: number): number[] {
  const out: number[] = [];
  for (let at = 0; at < total; at += size) out.push(Math.min(size, total - at));
  return out;
}

Deno.test("a sheet fed in pieces of every size from 1 byte up reads as the whole-text reader did", () => {
  const bytes = new TextEncoder().encode(SHEET);
  for (const headerRow of [3, 1]) {
    const expected = oracleCsv(SHEET, headerRow);
    assert.ok(expected.split("\n").length > 3, "the sample has rows");
    for (let size = 1; size <= bytes.length; size++) {
      const got = streamedCsv(bytes, fixedPieces(bytes.length, size), headerRow);
      if (got !== expected) assert.equal(got, expected, `pieces of ${size} bytes, header row ${headerRow}`);
    }
  }
});

Deno.test("a sheet split in two at every offset reads as whole (tags, entities, UTF-8 sequences)", () => {
  const bytes = new TextEncoder().encode(SHEET);
  const expected = oracleCsv(SHEET, 3);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const got = streamedCsv(bytes, [cut], 3);
    if (got !== expected) assert.equal(got, expected, `split at byte ${cut}`);
  }
});

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FRAGMENTS = [
  '<row r="2">',
  '<row r="3">',
  "<row>",
  "</row>",
  '<c r="A2">',
  '<c r="B2" t="s">',
  '<c r="C3" t="inlineStr">',
  '<c r="D3" s="1">',
  "<c/>",
  "</c>",
  "<v>",
  "</v>",
  "<is><t>",
  "</t></is>",
  "1",
  "0.50",
  "45000.25",
  "text",
  "a,b",
  '"q"',
  "&amp;",
  "&#65;",
  "&bogus;",
  "&",
  "<!-- c -->",
  "<?pi x?>",
  "<!X>",
  " ",
  "\n",
  "é",
  "😀",
  "<",
  ">",
  "/>",
  "</ c >",
  "<x:c r='E3'>",
  "</x:c>",
  // Cell attributes in every spelling the reader must take as the whole-text reader did.
  '<c r="B2" x:t="s">',
  '<c t = "s" r="C2">',
  '<c r="AA2" s="3">',
  '<c s="01" r="B2">',
  '<c r="c2" s="1" t="n">',
  "<c r=B2 t='str'>",
  '<c r="B2" t="s" t="str">',
  '<c rr="Z2" r="C2" ss="1">',
  '<c r="" t="" s="">',
  '<c r="D2" s="99999999999999999999" t="b">',
  '<c r="A1B2" t="e">',
  '<c t="inlineStr" r="E2">',
  '<row r="02">',
  '<row r="x2">',
  '<x:row x:r="2">',
];

Deno.test("random documents of awkward XML read as whole, in random pieces (seeded)", () => {
  const encoder = new TextEncoder();
  let withRows = 0;
  for (let seed = 1; seed <= 1000; seed++) {
    const next = rng(seed);
    let xml = "";
    const parts = 5 + Math.floor(next() * 60);
    for (let i = 0; i < parts; i++) xml += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)];
    const bytes = encoder.encode(xml);
    const expected = oracleCsv(xml, 2);
    if (expected.length > 0) withRows++;
    const pieces: number[] = [];
    for (let left = bytes.length; left > 0;) {
      const n = Math.min(left, 1 + Math.floor(next() * 9));
      pieces.push(n);
      left -= n;
    }
    const got = streamedCsv(bytes, pieces, 2);
    if (got !== expected) assert.equal(got, expected, `seed ${seed}: ${JSON.stringify(xml)}`);
  }
  assert.ok(withRows >= 40, `documents that produced rows: ${withRows}`);
});

Deno.test("shared strings scanned in pieces match the whole-text reader", () => {
  const xml = `<?xml version="1.0"?><sst count="4"><si><t>plain</t></si><si><r><t>rich </t></r><r><rPr/>` +
    `<t xml:space="preserve">runs &amp; more</t></r></si><si><t/></si><si><t>č😀&#x42;</t></si>` +
    `<si><rPh><t>phonetic</t></rPh></si></sst>`;
  const expected = parseSharedStrings(xml);
  for (let size = 1; size <= xml.length; size++) {
    const table = new SharedStrings();
    const scanner = new XmlScanner(table);
    for (let at = 0; at < xml.length; at += size) scanner.push(xml.substring(at, at + size));
    scanner.finish();
    assert.deepEqual(table.strings, expected, `pieces of ${size}`);
  }
});

Deno.test("a UTF-16 sheet is refused even when its mark arrives one byte at a time", () => {
  const sheet = new SheetCsv({
    headerRow: 1,
    shared: [],
    dateStyles: new Set(),
    part: "xl/worksheets/s.xml",
  });
  assert.equal(sheet.push(new Uint8Array([0xff])), "");
  assert.throws(() => sheet.push(new Uint8Array([0xfe, 0x3c, 0])), /UTF-16 encoded XML/);
});

Deno.test("attr and attrBounds read an attribute the same way: prefixes, quotes, first match", () => {
  const text =
    `r:id="rId1" id='two' Type=bare x:Target="t.xml" name="a" name="b" empty="" q:x:y="z" open="rest`;
  const cases: [string, string | null][] = [
    ["id", "rId1"], // an unprefixed name matches a prefixed attribute; the first match wins
    ["r:id", "rId1"],
    ["x:id", null], // a prefixed name matches only as written
    ["x:y", null], // ... not after another prefix
    ["Type", null], // an unquoted value is skipped
    ["Target", "t.xml"],
    ["name", "a"],
    ["empty", ""],
    ["open", "rest"], // an unterminated quote runs to the end
    ["missing", null],
  ];
  const names = cases.map(([n]) => n);
  const out = new Int32Array(2 * names.length);
  attrBounds(text, 0, text.length, names, out);
  for (const [i, [name, expected]] of cases.entries()) {
    assert.equal(attr(text, name), expected, name);
    assert.equal(
      out[2 * i] < 0 ? null : text.slice(out[2 * i], out[2 * i + 1]),
      expected,
      `${name} (bounds)`,
    );
  }
});

Deno.test("oneCharAttrBounds finds one-character names exactly where attrBounds does (seeded)", () => {
  // Attribute spellings around the sheet's names: prefixes, longer names ending in them, spaces, quotes.
  const pieces = [
    't="s"',
    "t='str'",
    'x:t="n"',
    'a:b:t="b"',
    ':t="e"',
    'tt="x"',
    'rt="y"',
    'r="B2"',
    "r=B2",
    ' s = "1" ',
    's=""',
    'x="t"',
    '="v"',
    't="open',
    " ",
    "\t",
    "=",
    'é:t="u"',
  ];
  const names = ["t", "s", "r"];
  for (let seed = 1; seed <= 2000; seed++) {
    const next = rng(seed);
    let text = "";
    const count = 1 + Math.floor(next() * 6);
    for (let i = 0; i < count; i++) text += (i > 0 ? " " : "") + pieces[Math.floor(next() * pieces.length)];
    const start = Math.floor(next() * 2);
    const expected = new Int32Array(2 * names.length);
    const got = new Int32Array(2 * names.length).fill(7); // stale values must be cleared
    attrBounds(text, start, text.length, names, expected);
    oneCharAttrBounds(text, start, text.length, names, got);
    assert.deepEqual([...got], [...expected], `seed ${seed}: ${JSON.stringify(text.slice(start))}`);
  }
});

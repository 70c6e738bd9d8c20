import { NEEDS_CONFORMANCE } from "../_support/conformance.ts";
import assert from "node:assert/strict";
import {
  type CsvOutputDialect,
  CsvWriter,
  formatCsvHeader,
  formatCsvRow,
  formatCsvValue,
  isPlainDecimal,
  looksLikeFormula,
} from "../../src/formats/csv_writer.ts";
import { parseCsvBytes } from "../../src/formats/csv_reader.ts";
import { encodeString } from "../../src/formats/encoding.ts";

const CONFORMANCE = new URL("../../../shared/conformance/", import.meta.url);
const DOUBLE: CsvOutputDialect = {
  delimiter: ",",
  quote: "double",
  encoding: "utf-8",
  decimalSeparator: ".",
};
const NONE: CsvOutputDialect = { ...DOUBLE, quote: "none" };

function writeAll(
  dialect: CsvOutputDialect,
  headers: string[],
  rows: string[][],
  bufferSize?: number,
): Uint8Array {
  const chunks: Uint8Array[] = [];
  const w = new CsvWriter(dialect, (c) => chunks.push(c), { bufferSize });
  w.writeHeader(headers);
  for (const r of rows) w.writeRow(r);
  w.flush();
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  assert.equal(w.bytesWritten, out.length);
  return out;
}

Deno.test("double quoting is applied only when a value needs it", () => {
  assert.equal(formatCsvValue("plain", DOUBLE), "plain");
  assert.equal(formatCsvValue("a,b", DOUBLE), '"a,b"');
  assert.equal(formatCsvValue('say "hi"', DOUBLE), '"say ""hi"""');
  assert.equal(formatCsvValue("two\nlines", DOUBLE), '"two\nlines"');
  assert.equal(formatCsvValue("cr\rhere", DOUBLE), '"cr\rhere"');
  assert.equal(formatCsvValue("", DOUBLE), "");
  assert.equal(formatCsvValue("it's", { ...DOUBLE, quote: "single" }), "'it''s'");
  assert.equal(formatCsvValue("a;b", { ...DOUBLE, delimiter: ";" }), '"a;b"');
  assert.equal(formatCsvValue("a,b", { ...DOUBLE, delimiter: ";" }), "a,b");
});

Deno.test("quotes at both ends of a value are data: doubled and wrapped like any other quote", () => {
  // An unquoted TSV title such as "Nosferatu" (quotes included) must survive a round trip.
  assert.equal(formatCsvValue('"Nosferatu"', DOUBLE), '"""Nosferatu"""');
  assert.equal(formatCsvValue('"a"b"', DOUBLE), '"""a""b"""');
  assert.equal(formatCsvValue('""', DOUBLE), '""""""', "two quote characters alone");
  assert.equal(formatCsvValue("'tag'", { ...DOUBLE, quote: "single" }), "'''tag'''");
  assert.equal(formatCsvValue("'tag'", DOUBLE), "'tag'", "the other quote character is plain data");
  assert.equal(formatCsvValue('"x"', NONE), '"x"', "no quote mode: written as is");
  const line = "h\n" + formatCsvValue('"Nosferatu"', DOUBLE) + "\n";
  const back = parseCsvBytes(new TextEncoder().encode(line), {
    delimiter: ",",
    quote: "double",
    encoding: "utf-8",
  });
  assert.deepEqual(back.records[1].fields, ['"Nosferatu"'], "the reader gets the original value back");
});

Deno.test("without quoting, LF becomes a literal \\n and CR is dropped", () => {
  assert.equal(formatCsvValue("a\r\nb", NONE), "a\\nb");
  assert.equal(formatCsvValue("a,b", NONE), "a,b", "no quoting even with the delimiter inside");
});

Deno.test("formula guard: leading =, TAB, CR always; +, -, @ only with a call or DDE link", () => {
  assert.equal(formatCsvValue("=1+2", NONE), "'=1+2");
  assert.equal(formatCsvValue("@SUM(A1:A9)", NONE), "'@SUM(A1:A9)");
  assert.equal(formatCsvValue("+cmd|'/c calc'!A1", NONE), "'+cmd|'/c calc'!A1");
  assert.equal(formatCsvValue("-1+cmd|'/c calc'!A1", NONE), "'-1+cmd|'/c calc'!A1");
  assert.equal(formatCsvValue("\t=1", NONE), "'\t=1");
  assert.equal(formatCsvValue("\r", NONE), "'", "guard then CR dropped");
  for (
    const data of ["-12.34", "+5", "-.5", "+420 555 0101", "@midnight show", "-- note", "+", "-", "-(x)"]
  ) {
    assert.equal(formatCsvValue(data, NONE), data, data);
  }
  assert.equal(formatCsvValue("@SUM(1,1)", DOUBLE), '"\'@SUM(1,1)"', "guard goes inside the quotes");
  assert.equal(
    formatCsvValue('"=1+2"', DOUBLE),
    '"""=1+2"""',
    "a leading quote is data, not a formula start",
  );
  assert.equal(formatCsvValue("-ISM FURNITURE, LLC", DOUBLE), '"-ISM FURNITURE, LLC"');
  assert.equal(looksLikeFormula("Foo (Ltd)"), false);
  assert.equal(looksLikeFormula("-Foo (Ltd)"), false, "a space before ( is not a call");
  assert.equal(looksLikeFormula("-foo.bar(1)"), true);
});

Deno.test("decimal separator out rewrites plain decimals only", () => {
  const semi: CsvOutputDialect = { delimiter: ";", quote: "none", encoding: "utf-8", decimalSeparator: "," };
  assert.equal(formatCsvValue("1234.5", semi), "1234,5");
  assert.equal(formatCsvValue("-0.25", semi), "-0,25");
  assert.equal(formatCsvValue("7.", semi), "7,");
  assert.equal(formatCsvValue("42", semi), "42");
  for (const keep of ["+1.5", ".5", "1.2.3", "1e5", "12.5 EUR", "2024-01-15", ""]) {
    assert.equal(formatCsvValue(keep, semi), keep, keep);
  }
  const long = "1".repeat(63) + ".5";
  assert.equal(formatCsvValue(long, semi), long, "over 64 characters: untouched");
  assert.equal(formatCsvValue("1".repeat(62) + ".5", semi), "1".repeat(62) + ",5");
  assert.equal(
    formatCsvValue("12.5", { ...DOUBLE, decimalSeparator: "," }),
    '"12,5"',
    "quoted when it hits the delimiter",
  );
  assert.equal(isPlainDecimal("-"), false);
  assert.equal(isPlainDecimal("-3.14"), true);
});

Deno.test("header line is verbatim; rows end with LF", () => {
  assert.equal(formatCsvHeader(["a,b", '"q"', "=x"], DOUBLE), 'a,b,"q",=x\n');
  assert.equal(formatCsvRow(["1", "a,b", ""], DOUBLE), '1,"a,b",\n');
  const bytes = writeAll(DOUBLE, ["h1", "h2"], [["1", "x"], ["", ""]]);
  assert.equal(new TextDecoder().decode(bytes), "h1,h2\n1,x\n,\n");
});

Deno.test(
  "goldens round-trip byte for byte through the reader and the writer",
  NEEDS_CONFORMANCE,
  async () => {
    const cases = [
      {
        dir: "datasets/xtb1_cash_to_wealthfolio",
        file: "sample_2025-12-01_2025-12-31_cash.expected",
        quote: "double" as const,
      },
      {
        dir: "datasets/xtb2_closed_to_wealthfolio",
        file: "sample_2025-12-01_2025-12-31_closed.expected",
        quote: "double" as const,
      },
      {
        dir: "docs/examples/advanced/messy-financial-export",
        file: "sample.expected",
        quote: "double" as const,
      },
      {
        dir: "docs/examples/intermediate/hubspot-to-salesforce",
        file: "sample.expected",
        quote: "double" as const,
      },
      { dir: "datasets/ruian_zip_demo", file: "1-ruian_zip_demo-combined.expected", quote: "none" as const },
      { dir: "datasets/trading212_to_wealthfolio", file: "sample.expected", quote: "none" as const },
    ];
    for (const c of cases) {
      const golden = await Deno.readFile(new URL(`${c.dir}/${c.file}`, CONFORMANCE));
      const dialect: CsvOutputDialect = {
        delimiter: ",",
        quote: c.quote,
        encoding: "utf-8",
        decimalSeparator: ".",
      };
      const { records } = parseCsvBytes(golden, { delimiter: ",", quote: c.quote, encoding: "utf-8" }, {
        trim: false,
      });
      const [header, ...rows] = records.map((r) => r.fields);
      const written = writeAll(dialect, header, rows, 1024);
      assert.deepEqual(written, golden, c.file);
    }
  },
);

Deno.test("single-byte output: round trip and ? for what the page lacks", () => {
  const dialect: CsvOutputDialect = {
    delimiter: ";",
    quote: "double",
    encoding: "windows-1250",
    decimalSeparator: ",",
  };
  const rows = [["Příliš žluťoučký kůň", "12.5"], ["€ 5", "x;y"]];
  const bytes = writeAll(dialect, ["Název", "Cena"], rows);
  const back = parseCsvBytes(bytes, { delimiter: ";", quote: "double", encoding: "windows-1250" });
  assert.deepEqual(back.records.map((r) => r.fields), [["Název", "Cena"], ["Příliš žluťoučký kůň", "12,5"], [
    "€ 5",
    "x;y",
  ]]);
  const latin2 = writeAll({ ...dialect, encoding: "iso-8859-2" }, ["h"], [["€😀ž"]]);
  assert.deepEqual([...latin2.subarray(2)], [0x3f, 0x3f, 0xbe, 0x0a], "€ and the emoji become one ? each");
});

Deno.test("small buffers: chunks are handed over in order and not reused", () => {
  const rows = Array.from({ length: 500 }, (_, i) => [`row ${i}`, "Žluť", "x,y"]);
  const expected = new TextEncoder().encode(
    formatCsvHeader(["a", "b", "c"], DOUBLE) + rows.map((r) => formatCsvRow(r, DOUBLE)).join(""),
  );
  assert.deepEqual(writeAll(DOUBLE, ["a", "b", "c"], rows, 1024), expected);
  const single = { ...DOUBLE, encoding: "windows-1252" };
  const w = new CsvWriter(single, () => {}, { bufferSize: 1024 });
  w.writeRow(["x".repeat(5000)]);
  w.flush();
  assert.equal(w.bytesWritten, 5001, "a row larger than the buffer is still written whole");
});

Deno.test("reuse: a chunk given back after its write holds the next rows; other arrays are ignored", () => {
  const chunks: Uint8Array[] = [];
  const w = new CsvWriter(NONE, (c) => chunks.push(c), { bufferSize: 1024 });
  w.writeRow(["first"]);
  w.flush();
  const first = chunks[0];
  assert.equal(new TextDecoder().decode(first), "first\n");
  w.reuse(new Uint8Array(1024)); // not this writer's: ignored
  w.reuse(first);
  w.writeRow(["second"]);
  w.flush();
  assert.equal(chunks[1].buffer, first.buffer, "the second chunk is written into the first one's memory");
  assert.equal(new TextDecoder().decode(chunks[1]), "second\n");
  // Given back once rows were written into a fresh buffer: ignored, nothing written is overwritten.
  w.writeRow(["third"]);
  w.reuse(chunks[1]);
  w.writeRow(["fourth"]);
  w.flush();
  assert.notEqual(chunks[2].buffer, chunks[1].buffer);
  assert.equal(new TextDecoder().decode(chunks[2]), "third\nfourth\n");
  assert.equal(w.bytesWritten, "first\nsecond\nthird\nfourth\n".length);
});

Deno.test("rows written byte by byte equal formatCsvRow encoded, for any buffer size and value length", () => {
  const pieces = [
    "a",
    "é",
    "€",
    "😀",
    ",",
    ";",
    "\t",
    "|",
    '"',
    "'",
    "\n",
    "\r",
    "=",
    "-",
    "1.50",
    " ",
    "x".repeat(700),
  ];
  let seed = 11;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const delimiters = [",", ";", "\t", "|"];
  for (const encoding of ["utf-8", "windows-1252"]) {
    for (const bufferSize of [1024, 4096, 65536, 1024, 4096, 65536]) {
      const d: CsvOutputDialect = {
        ...DOUBLE,
        encoding,
        delimiter: delimiters[rnd(delimiters.length)],
        quote: (["double", "single", "none"] as const)[rnd(3)],
        decimalSeparator: rnd(3) === 0 ? "," : ".",
      };
      const rows: string[][] = [];
      for (let r = 0; r < 60; r++) {
        const row: string[] = [];
        for (let c = rnd(6); c >= 0; c--) {
          let v = "";
          for (let k = rnd(8); k > 0; k--) v += pieces[rnd(pieces.length)];
          row.push(v);
        }
        rows.push(row);
      }
      const expected = encodeString(
        "h\n" + rows.map((r) => formatCsvRow(r, d)).join(""),
        encoding as "utf-8" | "windows-1252",
      );
      assert.deepEqual(writeAll(d, ["h"], rows, bufferSize), expected, `${encoding} ${bufferSize}`);
    }
  }
});

Deno.test("writeRowRaw copies ranges (neighbours through one delimiter) and formats the other values", () => {
  const text = "id7,abc,x;y,  pad  ,tail";
  const chunks: Uint8Array[] = [];
  const w = new CsvWriter({ ...NONE, delimiter: ";" }, (c) => chunks.push(c.slice()), { bufferSize: 1024 });
  // Columns 0 and 1 copy "id7" and "abc" (a comma between them in the text, so not one range for ';').
  const source = { text, bytes: null, byteBase: 0 };
  w.writeRowRaw(["", "", "1.5", "=1"], Int32Array.of(0, 4, -1, -1), Int32Array.of(3, 7, -1, -1), source);
  const w2 = new CsvWriter(NONE, (c) => chunks.push(c.slice()), { bufferSize: 1024 });
  w2.writeRowRaw(["", "", "v"], Int32Array.of(0, 4, -1), Int32Array.of(3, 7, -1), source);
  w.flush();
  w2.flush();
  assert.equal(new TextDecoder().decode(concat(chunks)), "id7;abc;1.5;'=1\nid7,abc,v\n");
});

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

Deno.test("writeRowRaw takes copied ranges from the source bytes exactly as from the text, in any buffer size", () => {
  // Short ranges (the character loop), long ones (from the bytes), one longer than the buffer.
  const fields = ["a", "b".repeat(30), "c".repeat(2000), "d".repeat(25), "e"];
  const line = fields.join(",");
  const bytes = new TextEncoder().encode(`xx${line}`); // the text starts at byte 2 of the buffer
  const starts: number[] = [];
  const ends: number[] = [];
  for (let i = 0, at = 0; i < fields.length; at += fields[i].length + 1, i++) {
    starts.push(at);
    ends.push(at + fields[i].length);
  }
  const cases: [number[], number[]][] = [
    [[-1, ...starts], [-1, ...ends]], // every field copied: one range after a computed value
    [[starts[0], -1, starts[2], starts[3], -1], [ends[0], -1, ends[2], ends[3], -1]],
    [[-1, starts[1], -1, starts[3], starts[4]], [-1, ends[1], -1, ends[3], ends[4]]],
  ];
  for (const size of [1024, 4096, 64 * 1024]) {
    for (const [s, e] of cases) {
      const values = s.map((a) => (a < 0 ? "v,1" : ""));
      const run = (withBytes: boolean) => {
        const chunks: Uint8Array[] = [];
        const w = new CsvWriter({ ...NONE, quote: "double" }, (c) => chunks.push(c.slice()), {
          bufferSize: size,
        });
        for (let r = 0; r < 3; r++) {
          const source = withBytes
            ? { text: line, bytes, byteBase: 2 }
            : { text: line, bytes: null, byteBase: 0 };
          w.writeRowRaw(values, Int32Array.from(s), Int32Array.from(e), source);
        }
        w.flush();
        return { out: concat(chunks), written: w.bytesWritten };
      };
      const expected = run(false);
      const got = run(true);
      assert.deepEqual(got.out, expected.out, `buffer ${size}`);
      assert.equal(got.written, expected.written);
      assert.equal(got.written, got.out.length);
    }
  }
});

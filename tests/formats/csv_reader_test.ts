import { NEEDS_CONFORMANCE } from "../_support/conformance.ts";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type CsvDialect,
  CsvParser,
  type CsvRecord,
  CsvRecordTooLongError,
  hasUnbalancedQuote,
  parseCsvBytes,
  readCsvRecords,
  splitCsvLine,
} from "../../src/formats/csv_reader.ts";

const CONFORMANCE = new URL("../../../shared/conformance/", import.meta.url);
const utf8 = new TextEncoder();
const DOUBLE: CsvDialect = { delimiter: ",", quote: "double", encoding: "utf-8" };

function parseText(text: string, dialect: CsvDialect = DOUBLE) {
  return parseCsvBytes(utf8.encode(text), dialect);
}

function fieldsOf(text: string, dialect: CsvDialect = DOUBLE): string[][] {
  return parseText(text, dialect).records.map((r) => r.fields);
}

function parseChunks(
  chunks: Uint8Array[],
  dialect: CsvDialect,
): { records: CsvRecord[]; unbalanced: number } {
  const records: CsvRecord[] = [];
  const parser = new CsvParser(dialect, (fields, offset, line) => records.push({ fields, offset, line }));
  for (const c of chunks) parser.push(c);
  parser.finish();
  return { records, unbalanced: parser.unbalancedQuotes };
}

const SPLIT_INPUTS: { name: string; bytes: Uint8Array; dialect: CsvDialect }[] = [
  {
    name: "utf-8 with BOM, CRLF, quotes, multi-byte characters",
    bytes: utf8.encode(
      '\uFEFFNázev, Cena ,"Pozn"\r\n"Žluťoučký, kůň",12.50,"řekl ""ahoj"""\r\n\r\n€uro,😀,x\r\n',
    ),
    dialect: DOUBLE,
  },
  {
    name: "lazy and unbalanced quotes, ragged rows, no final newline",
    bytes: utf8.encode('a,"b\nc",d\n5" floppy,x\n"open,y\n\n\nlast,,'),
    dialect: DOUBLE,
  },
  {
    name: "single quotes, semicolon delimiter, bare CR inside a line",
    bytes: utf8.encode("'x;y';z\r\r\n'it''s';b\n"),
    dialect: { delimiter: ";", quote: "single", encoding: "utf-8" },
  },
  {
    name: "tab delimiter without quoting",
    bytes: utf8.encode('"a\tb"\t c \n\t\n'),
    dialect: { delimiter: "\t", quote: "none", encoding: "utf-8" },
  },
];

Deno.test("every split point gives the same records as one push", NEEDS_CONFORMANCE, async () => {
  const ruian = await Deno.readFile(new URL("datasets/ruian_zip_demo/obec_A.csv", CONFORMANCE));
  const inputs = [
    ...SPLIT_INPUTS,
    {
      name: "windows-1250 obec_A",
      bytes: ruian,
      dialect: { delimiter: ";", quote: "double" as const, encoding: "windows-1250" },
    },
  ];
  for (const input of inputs) {
    const whole = parseChunks([input.bytes], input.dialect);
    assert.ok(whole.records.length > 0, input.name);
    for (let i = 0; i <= input.bytes.length; i++) {
      const split = parseChunks([input.bytes.subarray(0, i), input.bytes.subarray(i)], input.dialect);
      assert.deepEqual(split, whole, `${input.name}: split at ${i}`);
    }
    const bytewise = parseChunks([...input.bytes].map((b) => new Uint8Array([b])), input.dialect);
    assert.deepEqual(bytewise, whole, `${input.name}: byte by byte`);
  }
});

Deno.test("three-way splits of a multi-byte input", () => {
  const { bytes, dialect } = SPLIT_INPUTS[0];
  const whole = parseChunks([bytes], dialect);
  for (let i = 0; i <= bytes.length; i += 3) {
    for (let j = i; j <= bytes.length; j += 5) {
      const got = parseChunks([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)], dialect);
      assert.deepEqual(got, whole, `splits at ${i}, ${j}`);
    }
  }
});

Deno.test("expected records of the mixed UTF-8 input", () => {
  const { records } = parseChunks([SPLIT_INPUTS[0].bytes], DOUBLE);
  assert.deepEqual(records.map((r) => r.fields), [
    ["Název", "Cena", "Pozn"],
    ["Žluťoučký, kůň", "12.50", 'řekl "ahoj"'],
    ["€uro", "😀", "x"],
  ]);
  assert.deepEqual(records.map((r) => r.line), [1, 2, 4]);
});

Deno.test("offsets point at each record's first byte in the original file", () => {
  const bytes = SPLIT_INPUTS[0].bytes;
  const { records } = parseChunks([bytes], DOUBLE);
  assert.equal(records[0].offset, 3, "the BOM's three bytes are counted");
  const decoder = new TextDecoder();
  for (const r of records) {
    const end = bytes.indexOf(10, r.offset);
    const line = decoder.decode(bytes.subarray(r.offset, end)).replace(/\r$/, "");
    const again = parseText(line).records[0].fields;
    assert.deepEqual(again, r.fields, `re-read at offset ${r.offset}`);
  }
  // "Žluťoučký..." line starts after the 3-byte BOM and the 26-byte header line (Á is 2 bytes).
  const headerBytes = utf8.encode('Název, Cena ,"Pozn"\r\n').length;
  assert.equal(records[1].offset, 3 + headerBytes);
});

Deno.test("a newline always ends a record, even inside an open quote", () => {
  const got = parseText('a,"b\nc",d\n');
  assert.deepEqual(got.records.map((r) => r.fields), [["a", "b"], ['c"', "d"]]);
  assert.equal(got.unbalancedQuotes, 2, "both halves carry one stray quote");
  assert.deepEqual(got.records.map((r) => r.line), [1, 2]);
});

Deno.test("quote rules: field-start quotes, doubled quotes, lazy quotes", () => {
  assert.deepEqual(fieldsOf('"a,b",c\n'), [["a,b", "c"]]);
  assert.deepEqual(fieldsOf('"a""b",c\n'), [['a"b', "c"]]);
  assert.deepEqual(fieldsOf('"",x\n'), [["", "x"]]);
  assert.deepEqual(fieldsOf('5" floppy,x\n'), [['5" floppy', "x"]], "mid-field quote is literal");
  assert.deepEqual(fieldsOf('"a"b,c\n'), [['a"b,c']], "a quote not before a delimiter is literal");
  assert.deepEqual(fieldsOf('"abc\n'), [["abc"]], "unclosed quote runs to the end of the line");
  assert.deepEqual(fieldsOf('x,"a,b"\n'), [["x", "a,b"]]);
});

Deno.test("quote modes: single and none", () => {
  const single: CsvDialect = { delimiter: ",", quote: "single", encoding: "utf-8" };
  assert.deepEqual(fieldsOf("'a,b','it''s',\"c\"\n", single), [["a,b", "it's", '"c"']]);
  const none: CsvDialect = { delimiter: ",", quote: "none", encoding: "utf-8" };
  const got = parseText('"a,b",c\n', none);
  assert.deepEqual(got.records[0].fields, ['"a', 'b"', "c"]);
  assert.equal(got.unbalancedQuotes, 0, "no quote character, nothing to count");
});

Deno.test("CRLF and LF read the same; only one CR is dropped", () => {
  assert.deepEqual(fieldsOf("a,b\r\nc,d\r\n"), fieldsOf("a,b\nc,d\n"));
  assert.deepEqual(fieldsOf("a\r\r\n"), [["a\r"]]);
  assert.deepEqual(fieldsOf("a,b"), [["a", "b"]], "last line without newline");
});

Deno.test("ragged rows and trailing delimiters are kept as read", () => {
  assert.deepEqual(fieldsOf("a,b,c\n1\n1,2,3,4\n1,2,\n,\n"), [
    ["a", "b", "c"],
    ["1"],
    ["1", "2", "3", "4"],
    ["1", "2", ""],
    ["", ""],
  ]);
});

Deno.test("spaces are trimmed from fields and headers, tabs are not", () => {
  assert.deepEqual(fieldsOf("  Name , Value\n  x  ,\t y \t\n"), [["Name", "Value"], ["x", "\t y \t"]]);
  assert.deepEqual(fieldsOf('" padded ",x\n'), [["padded", "x"]], "trimmed after unquoting");
  const raw = parseCsvBytes(utf8.encode(" a , b\n"), DOUBLE, { trim: false });
  assert.deepEqual(raw.records[0].fields, [" a ", " b"]);
});

Deno.test("blank lines are skipped but still counted as lines; whitespace-only lines are records", () => {
  const got = parseText("h\n\n\r\n  \nv\n");
  assert.deepEqual(got.records.map((r) => [r.fields, r.line]), [[["h"], 1], [[""], 4], [["v"], 5]]);
});

Deno.test("unbalanced quotes are counted per record and never drop the record", () => {
  const got = parseText('a,"b\nok,1\n"x""y\n5" disk,1\n');
  assert.equal(got.records.length, 4);
  assert.equal(got.unbalancedQuotes, 3);
  assert.equal(hasUnbalancedQuote('"a""b"', '"'), false);
  assert.equal(hasUnbalancedQuote('"a""b', '"'), true);
});

Deno.test("a UTF-8 BOM is skipped once, whatever the encoding", () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x41, 0x0a]);
  const w1250 = parseCsvBytes(bom, { delimiter: ",", quote: "double", encoding: "windows-1250" });
  assert.deepEqual(w1250.records, [{ fields: ["A"], offset: 3, line: 1 }]);
  const twice = parseText("\uFEFF\uFEFFA\n");
  assert.deepEqual(twice.records[0].fields, ["\uFEFFA"], "only the first BOM is a BOM");
  const short = parseChunks(
    [new Uint8Array([0xef]), new Uint8Array([0xbb]), new Uint8Array([0xbf, 0x42])],
    DOUBLE,
  );
  assert.deepEqual(short.records, [{ fields: ["B"], offset: 3, line: 1 }]);
});

Deno.test("Windows-1250 obec_A.csv decodes to the expected Czech text", NEEDS_CONFORMANCE, async () => {
  const bytes = await Deno.readFile(new URL("datasets/ruian_zip_demo/obec_A.csv", CONFORMANCE));
  const { records, unbalancedQuotes } = parseCsvBytes(bytes, {
    delimiter: ";",
    quote: "double",
    encoding: "windows-1250",
  });
  assert.equal(unbalancedQuotes, 0);
  assert.deepEqual(records[0].fields, [
    "Kód ADM",
    "Kód obce",
    "Název obce",
    "Název části obce",
    "Název ulice",
    "Číslo domovní",
    "Číslo orientační",
    "PSČ",
    "Souřadnice Y",
    "Souřadnice X",
    "Platí Od",
  ]);
  assert.deepEqual(records.map((r) => r.line), [1, 2, 3]);
  assert.equal(records[1].fields[3], "Dolní Lhota");
  assert.equal(records[2].fields[4], "", "empty street");
  // Single-byte encoding: offsets are line starts in the raw file.
  assert.equal(records[1].offset, bytes.indexOf(10) + 1);
  assert.equal(records[2].offset, bytes.indexOf(10, records[1].offset) + 1);
});

Deno.test("a record with no line break past the memory guard is refused with a clear message", () => {
  const parser = new CsvParser(DOUBLE, () => {}, { sourceName: "big.csv", maxRecordBytes: 1024 });
  parser.push(utf8.encode("ok\n"));
  assert.throws(() => parser.push(new Uint8Array(2048).fill(0x41)), (err: unknown) => {
    assert.ok(err instanceof CsvRecordTooLongError);
    assert.match(err.message, /'big\.csv': no line break found in 0 MB of buffered input/);
    return true;
  });
  const message = new CsvRecordTooLongError("x.csv", 10 * 1024 * 1024).message;
  assert.match(message, /^'x\.csv': no line break found in 10 MB of buffered input/);
  assert.match(message, /bare CR \(classic Mac\)/);
});

Deno.test("lines shorter than the guard pass, whatever the chunking", () => {
  const parser = new CsvParser(DOUBLE, () => {}, { maxRecordBytes: 1024 });
  for (let i = 0; i < 50; i++) parser.push(utf8.encode("x".repeat(100) + "\n"));
  parser.finish();
  assert.equal(parser.records, 50);
});

Deno.test("splitCsvLine works on a single line", () => {
  assert.deepEqual(splitCsvLine('a,"b,c",', ",", '"'), ["a", "b,c", ""]);
  assert.deepEqual(splitCsvLine("a;b", ";", ""), ["a", "b"]);
  // Doubled quotes, a lazy quote inside a quoted field, an unterminated one, and a sub-range of the text.
  assert.deepEqual(splitCsvLine('"a""b","c"d",e', ",", '"'), ['a"b', 'c"d', "e"]);
  assert.deepEqual(splitCsvLine('x,"open,end', ",", '"'), ["x", "open,end"]);
  assert.deepEqual(splitCsvLine('##"q",r##', ",", '"', 2, 7), ["q", "r"]);
});

/** bxp's quote rules one character at a time: the reference splitCsvLine's native search must agree with. */
function referenceSplit(text: string, delimiter: string, quote: string): string[] {
  const fields: string[] = [];
  let pos = 0;
  let endedOnDelimiter = false;
  while (pos < text.length) {
    if (quote !== "" && text[pos] === quote) {
      let value = "";
      pos++;
      while (pos < text.length) {
        if (text[pos] === quote && text[pos + 1] === quote) {
          value += quote;
          pos += 2;
        } else if (text[pos] === quote && (pos + 1 === text.length || text[pos + 1] === delimiter)) {
          break;
        } else {
          value += text[pos++];
        }
      }
      if (pos < text.length) pos++;
      if (pos < text.length && text[pos] === delimiter) {
        pos++;
        endedOnDelimiter = pos === text.length;
      }
      fields.push(value);
    } else {
      let value = "";
      while (pos < text.length && text[pos] !== delimiter) value += text[pos++];
      fields.push(value);
      if (pos < text.length) {
        pos++;
        endedOnDelimiter = pos === text.length;
      }
    }
  }
  if (endedOnDelimiter) fields.push("");
  return fields;
}

Deno.test("splitCsvLine agrees with a character-by-character reference on any line", () => {
  for (const [delimiter, quote] of [[",", '"'], [";", "'"], ["\t", '"'], [",", ""]]) {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", " ", ",", ";", "\t", '"', "'", "é"), { maxLength: 40 }),
        (chars) => {
          const line = chars.join("");
          assert.deepEqual(
            splitCsvLine(line, delimiter, quote),
            referenceSplit(line, delimiter, quote),
            line,
          );
        },
      ),
      { numRuns: 2000 },
    );
  }
});

Deno.test("readCsvRecords pulls records from async chunks and returns the counts", async () => {
  async function* chunks() {
    yield utf8.encode('h1,h2\n1,"x');
    yield utf8.encode('"\n2,"open\n');
  }
  const it = readCsvRecords(chunks(), DOUBLE);
  const got: CsvRecord[] = [];
  let step = await it.next();
  while (!step.done) {
    got.push(step.value);
    step = await it.next();
  }
  assert.deepEqual(got.map((r) => r.fields), [["h1", "h2"], ["1", "x"], ["2", "open"]]);
  assert.deepEqual(step.value, { records: 3, unbalancedQuotes: 1 });
});

Deno.test("bad dialects are refused with readable errors", () => {
  assert.throws(
    () => new CsvParser({ delimiter: ";;", quote: "double", encoding: "utf-8" }, () => {}),
    /exactly one/,
  );
  assert.throws(
    () => new CsvParser({ delimiter: ",", quote: "double", encoding: "shift-jis" }, () => {}),
    /shift-jis/,
  );
});

Deno.test("lastRecordUnbalanced tells which record carried the stray quote", () => {
  const flags: boolean[] = [];
  const parser = new CsvParser(DOUBLE, () => flags.push(parser.lastRecordUnbalanced));
  parser.push(utf8.encode('"h,x\nok,1\n"a""b",2\n5" disk'));
  parser.finish();
  assert.deepEqual(flags, [true, false, false, true]);
  assert.equal(parser.unbalancedQuotes, 2);
});

Deno.test("input shorter than a BOM ends its line at the newline (no newline left in the field)", () => {
  assert.deepEqual(parseChunks([utf8.encode("v\n")], DOUBLE).records.map((r) => r.fields), [["v"]]);
  assert.deepEqual(parseChunks([utf8.encode("v\r\n")], DOUBLE).records.map((r) => r.fields), [["v"]]);
  assert.deepEqual(parseChunks([utf8.encode("a\nb")], DOUBLE).records.map((r) => r.fields), [["a"], ["b"]]);
  assert.deepEqual(parseChunks([utf8.encode("x")], DOUBLE).records.map((r) => r.fields), [["x"]]);
});

Deno.test("lazy fields: wanted fields decoded, the rest found at their bounds, doubled quotes split whole", () => {
  // Quote-heavy pieces too: exports that quote every field, with lazy and doubled quotes among them.
  const pieces = ["a", " ", ",", ";", '"', "é", "\r", "1.5", "x", "\uFFFD", '"ab"', '","', '""', '"q,'];
  let seed = 5;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (let round = 0; round < 600; round++) {
    let text = "";
    for (let line = rnd(6); line >= 0; line--) {
      for (let k = rnd(12); k > 0; k--) text += pieces[rnd(pieces.length)];
      text += rnd(3) === 0 ? "\r\n" : "\n";
    }
    if (rnd(2) === 0) text += "tail,x";
    const bytes = new TextEncoder().encode(text);
    if (rnd(4) === 0 && bytes.length > 0) bytes[rnd(bytes.length)] = 0xff; // invalid UTF-8 somewhere
    const dialect = { delimiter: ",", quote: "double" as const, encoding: "utf-8" };
    const expected: string[][] = [];
    const expectedUnbalanced: boolean[] = [];
    const general: CsvParser = new CsvParser(dialect, (f) => {
      expected.push(f);
      expectedUnbalanced.push(general.lastRecordUnbalanced);
    });
    const wanted = Uint8Array.of(1, 0, 1);
    const seen: string[][] = [];
    const seenUnbalanced: boolean[] = [];
    const lazy: CsvParser = new CsvParser(dialect, (fields) => {
      const raw = lazy.raw!;
      seenUnbalanced.push(lazy.lastRecordUnbalanced);
      if (raw.count < 0) {
        seen.push([...fields]); // split the general way: every field decoded
        return;
      }
      assert.equal(raw.count, fields.length);
      const full = fields.map((_f, i) => raw.text.substring(raw.bounds[2 * i], raw.bounds[2 * i + 1]));
      fields.forEach((f, i) => assert.equal(f, i < 3 && wanted[i] === 1 ? full[i] : "", `field ${i}`));
      if (raw.ascii) assert.ok(full.every((f) => [...f].every((c) => c.charCodeAt(0) < 0x80)), "ascii");
      seen.push(full);
    }, { lazyFields: wanted });
    for (let at = 0; at < bytes.length; at += 7) {
      general.push(bytes.subarray(at, at + 7));
      lazy.push(bytes.subarray(at, at + 7));
    }
    general.finish();
    lazy.finish();
    assert.deepEqual(seen, expected, JSON.stringify(text));
    assert.deepEqual(seenUnbalanced, expectedUnbalanced, `unbalanced records of ${JSON.stringify(text)}`);
    assert.equal(lazy.unbalancedQuotes, general.unbalancedQuotes);
  }
});

Deno.test("lazy fields: a quoted field's bounds are its value; only a doubled quote splits the line whole", () => {
  const dialect = { delimiter: ",", quote: "double" as const, encoding: "utf-8" };
  const lines = [
    '"a","b c"," d ",e',
    '"x,y",z,',
    '"lazy"quote",2',
    '"open,end',
    '"dou""ble",1',
    ' "not quoted" ,q',
  ];
  const got: Array<[number, string[]]> = [];
  const parser: CsvParser = new CsvParser(dialect, (fields) => {
    const raw = parser.raw!;
    const values = raw.count < 0
      ? [...fields]
      : fields.map((_f, i) => raw.text.substring(raw.bounds[2 * i], raw.bounds[2 * i + 1]));
    got.push([raw.count, values]);
  }, { lazyFields: new Uint8Array(4) });
  parser.push(new TextEncoder().encode(lines.join("\n") + "\n"));
  parser.finish();
  assert.deepEqual(got, [
    [4, ["a", "b c", "d", "e"]],
    [3, ["x,y", "z", ""]],
    [2, ['lazy"quote', "2"]],
    [1, ["open,end"]],
    [-1, ['dou"ble', "1"]],
    [2, ['"not quoted"', "q"]],
  ]);
  assert.equal(parser.unbalancedQuotes, 2); // the lazy quote and the unterminated field, as bxp counts them
});

Deno.test("lazy records on ASCII lines carry the bytes their text came from, in any chunking", () => {
  const lines = ["a,bb,ccc", "1,22,333", 'x,"q",z', "é,2,3", "", "long," + "y".repeat(300) + ",end"];
  const mixed = new TextEncoder().encode("\uFEFF" + lines.join("\r\n") + "\n" + lines.join("\n"));
  const ascii = new TextEncoder().encode(lines.filter((l) => !l.startsWith("é")).join("\n") + "\n");
  const decoder = new TextDecoder();
  const inputs = [1, 2, 3, 7, 64, mixed.length].map((chunk) => [mixed, chunk] as const);
  for (const [bytes, chunk] of [...inputs, [ascii, ascii.length] as const]) {
    let checked = 0;
    let withoutBytes = 0;
    const parser: CsvParser = new CsvParser({ delimiter: ",", quote: "double", encoding: "utf-8" }, () => {
      const raw = parser.raw!;
      if (raw.count < 0 || raw.bytes === null) {
        withoutBytes++;
        return;
      }
      for (let i = 0; i < raw.count; i++) {
        const a = raw.bounds[2 * i];
        const b = raw.bounds[2 * i + 1];
        const fromBytes: string = decoder.decode(raw.bytes.subarray(raw.byteBase + a, raw.byteBase + b));
        assert.equal(fromBytes, raw.text.substring(a, b), `chunk ${chunk}, field ${i}`);
        checked++;
      }
    }, { lazyFields: new Uint8Array(3) });
    for (let at = 0; at < bytes.length; at += chunk) parser.push(bytes.subarray(at, at + chunk));
    parser.finish();
    // A run of lines holding a non-ASCII one is decoded as a whole and carries no bytes; short chunks
    // give every ASCII line a run of its own.
    if (chunk <= 7) assert.ok(checked >= 15, `chunk ${chunk}: ${checked} fields checked`);
    // A quoted field's bounds are the text between its quotes: quoted lines carry their bytes too.
    if (bytes === ascii) assert.equal(checked, 12, "every field of an ASCII input, quoted ones included");
    else assert.ok(withoutBytes >= 1, `chunk ${chunk}: the run holding the non-ASCII line has no bytes`);
  }
});

Deno.test("trimming: fields lose their outer spaces on lines with spaces, whatever lines without come between", () => {
  // The splitter looks for each line's spaces once and trims only a line holding one: the result must be
  // a plain split-and-trim of every line, in both modes and any chunking.
  let seed = 11;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const pieces = ["a", "b", " ", "  ", ",", "7", "x y"];
  for (let round = 0; round < 300; round++) {
    const lines: string[] = [];
    for (let line = 1 + rnd(6); line > 0; line--) {
      let text = "k";
      for (let k = rnd(10); k > 0; k--) text += pieces[rnd(pieces.length)];
      lines.push(text);
    }
    const expected = lines.map((l) => l.split(",").map((f) => f.replace(/^ +| +$/g, "")));
    const bytes = new TextEncoder().encode(lines.join("\n") + "\n");
    const chunk = 1 + rnd(bytes.length);
    for (const lazy of [false, true]) {
      const seen: string[][] = [];
      const parser: CsvParser = new CsvParser(DOUBLE, (fields) => {
        const raw = parser.raw;
        seen.push(
          raw === null
            ? [...fields]
            : fields.map((_f, i) => raw.text.substring(raw.bounds[2 * i], raw.bounds[2 * i + 1])),
        );
      }, lazy ? { lazyFields: new Uint8Array(2) } : {});
      for (let at = 0; at < bytes.length; at += chunk) parser.push(bytes.subarray(at, at + chunk));
      parser.finish();
      assert.deepEqual(
        seen,
        expected,
        `${lazy ? "lazy" : "general"}, chunk ${chunk}: ${JSON.stringify(lines)}`,
      );
    }
  }
});

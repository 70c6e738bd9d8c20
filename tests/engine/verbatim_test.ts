/**
 * The copy path (bare `[Column]` values written straight from the input text, fields decoded lazily) must
 * give exactly what the general path gives: the same output bytes, trace frames, counters and findings
 * observations, for any input and any dialect. Each property here can fail: the general path is the
 * reference, evaluated record by record with every field decoded.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { loadConfig } from "../../src/config/model.ts";
import { CsvParser } from "../../src/formats/csv_reader.ts";
import { type CsvOutputDialect, formatCsvValue } from "../../src/formats/csv_writer.ts";
import { encodeString, type EncodingName } from "../../src/formats/encoding.ts";
import { canonicalNumericString, normalizeDecimalSeparator } from "../../src/lang/mod.ts";
import { BxtbWriter } from "../../src/trace/bxtb.ts";
import { newEvalContext } from "../../src/engine/context.ts";
import { checkHeader } from "../../src/engine/header_checks.ts";
import { planTemplate } from "../../src/engine/plan.ts";
import { RowEvaluator } from "../../src/engine/row_eval.ts";
import { createRowWriter } from "../../src/engine/row_writers.ts";
import type { RowWriter, TraceSink } from "../../src/engine/sinks.ts";
import {
  jsonVerbatimRules,
  verbatimRules,
  verbatimSafe,
  verbatimSafeInCleanLine,
} from "../../src/engine/verbatim.ts";
import { escapeJsonString } from "../../src/formats/json_output.ts";

/** Characters that exercise every rule: separators, quotes, signs, formula starters, non-ASCII, CR. */
const ALPHABET = [
  "a",
  "Z",
  "0",
  "1",
  "5",
  "9",
  "0",
  ".",
  ".",
  ",",
  ";",
  "|",
  "\t",
  " ",
  '"',
  "'",
  "-",
  "+",
  "=",
  "@",
  "e",
  "E",
  "(",
  "!",
  "\r",
  "é",
  "€",
  "\uFFFD",
  "x",
  "\\",
  "\u0001",
]; // deno-fmt-ignore

const field = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 9 }).map((cs) => cs.join(""));
/** Numeric-looking fields, the ones canonical printing may touch. */
const numeric = fc.tuple(
  fc.constantFrom("", "-", "+", "0", "00"),
  fc.array(fc.constantFrom("0", "1", "7", "9"), { maxLength: 5 }),
  fc.constantFrom("", ".", ",", "e", "E5", ".e1"),
  fc.array(fc.constantFrom("0", "3", "0"), { maxLength: 4 }),
  fc.constantFrom("", "0", "00", "x", " "),
).map(([a, b, c, d, e]) => a + b.join("") + c + d.join("") + e);
const anyField = fc.oneof(field, numeric, fc.constantFrom("", "884.10", "1e5", "-0", "00.10", "=1+2"));

interface Dialect {
  delimiterIn: string;
  delimiterOut: string;
  quoteIn: "none" | "double" | "single";
  quoteOut: "none" | "double" | "single";
  decimalIn: string;
  decimalOut: string;
  encodingIn: EncodingName;
  encodingOut: EncodingName;
  /** `file_type_out`: JSON escapes `"`, `\\` and control characters and rewrites nothing else. */
  typeOut: "csv" | "json";
}

const dialect: fc.Arbitrary<Dialect> = fc.record({
  delimiterIn: fc.constantFrom(",", ";", "\t", "|"),
  delimiterOut: fc.constantFrom(",", ";", "|"),
  quoteIn: fc.constantFrom("none", "double", "single"),
  quoteOut: fc.constantFrom("none", "double", "single"),
  decimalIn: fc.constantFrom(".", ","),
  decimalOut: fc.constantFrom(".", ","),
  encodingIn: fc.constantFrom("utf-8", "windows-1252"),
  encodingOut: fc.constantFrom("utf-8", "windows-1252", "iso-8859-2"),
  typeOut: fc.constantFrom("csv", "csv", "json"),
});

Deno.test("verbatimSafe says yes only for values the general path prints as their own ASCII characters", () => {
  fc.assert(
    fc.property(anyField, dialect, (value, d) => {
      const out: CsvOutputDialect = {
        delimiter: d.delimiterOut,
        quote: d.quoteOut,
        encoding: "utf-8",
        decimalSeparator: d.decimalOut,
      };
      const rules = d.typeOut === "json" ? jsonVerbatimRules(d.decimalIn) : verbatimRules({
        delimiterOut: d.delimiterOut,
        quoteOut: d.quoteOut === "double" ? '"' : d.quoteOut === "single" ? "'" : "",
        decimalIn: d.decimalIn,
        decimalOut: d.decimalOut,
      });
      const text = `<${value}>`; // the field sits inside a longer text
      const safe = verbatimSafe(text, 1, 1 + value.length, rules);
      if (!safe) return;
      const canonical = canonicalNumericString(normalizeDecimalSeparator(value, d.decimalIn));
      const printed = d.typeOut === "json" ? escapeJsonString(canonical) : formatCsvValue(canonical, out);
      assert.equal(printed, value);
      assert.ok([...value].every((c) => c.charCodeAt(0) < 0x80), "ASCII only");
      // In a clean line the short check agrees with the full one.
      assert.equal(verbatimSafeInCleanLine(text, 1, 1 + value.length, rules), true);
    }),
    { numRuns: 5000 },
  );
});

Deno.test("verbatimSafe copies the usual values (the fast path is taken, not just allowed)", () => {
  const rules = verbatimRules({ delimiterOut: ",", quoteOut: "", decimalIn: ".", decimalOut: "." });
  const safe = (v: string) => verbatimSafe(v, 0, v.length, rules);
  for (const v of ["", "name0", "226.65", "01.02.2024", "10.01.2024", "123", "5kDeU", "0.5", "a-b"]) {
    assert.ok(safe(v), v);
  }
  for (const v of ["884.10", "1e5", "-0", "=1", "+1", "@x", ".5", "1.", "a,b", "é", "1.0", "00.10x"]) {
    assert.ok(!safe(v) || v === "00.10x", v);
  }
});

class CollectTrace implements TraceSink {
  readonly enabled = true;
  chunks: Uint8Array[] = [];
  writer = new BxtbWriter((c) => this.chunks.push(c.slice()), { writeMagic: false });
  fileStart() {}
  fileEnd() {}
  done() {}
  appendFrames(b: Uint8Array) {
    this.writer.appendRaw(b);
  }
  outputRow(l: number, i: number, r: number, a: string) {
    this.writer.outputRow(l, i, r, a);
  }
  filteredRow(l: number, r: string) {
    this.writer.filteredRow(l, r);
  }
  errorRow(l: number, v: string, k: string, d: string, o: string) {
    this.writer.errorRow(l, v, k, d, o);
  }
  prepassEntry(n: string, k: string, f: string, v: string) {
    this.writer.prepassEntry(n, k, f, v);
  }
  flush() {
    return Promise.resolve();
  }
  bytes(): number[] {
    this.writer.flush();
    return this.chunks.flatMap((c) => [...c]);
  }
}

const HEADER = ["A", "B", "C", "D", "B"]; // a repeated name resolves to its rightmost column

/** A config over HEADER: pass-through copies, computed values, and rules that override or skip them. */
function configText(d: Dialect, variant: number): string {
  const computed = [
    `$sum: "IFERROR([C] + 1, 'bad')"`,
    `$label: "[A] & '|' & [D]"`,
    variant % 3 === 0 ? `$pos: "FIELDS(2)"` : `$pos: "LEN([A])"`,
    variant % 4 === 0 ? `$n: "RECORD_NUM()"` : `$n: "'k'"`,
  ];
  return `{conversion_templates: {t: {
    data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out",
    csv_delimiter_in: ${JSON.stringify(d.delimiterIn)}, csv_delimiter_out: ${JSON.stringify(d.delimiterOut)},
    csv_text_quote_in: "${d.quoteIn}", csv_text_quote_out: "${d.quoteOut}",
    csv_decimal_separator_in: "${d.decimalIn}", csv_decimal_separator_out: "${d.decimalOut}",
    csv_input_encoding: "${d.encodingIn}", csv_output_encoding: "${d.encodingOut}",
    file_type_out: "${d.typeOut}",
    input_schema: {
      $a: "[A]", $b: "[B]", $c: "[C]", $d: "[D]", $missing: "[Nope]", $action: "[A]",
      ${computed.join(", ")}
    },
    row_rules: [
      { when: "[A] = 'skip'", rows: [] },
      { when: "[A] = 'two'", rows: [{ $b: "'over'" }, { $c: "[D] & '!'" }] },
      { when: "[A] = 'over'", rows: [{ $a: "'x'", $b: "'y'" }] },
      { when: "[A] != 'none'", rows: [{}] },
    ],
    output_schema: {
      a: "$a", b: "$b", c: "$c", d: "$d", m: "$missing", act: "$action", sum: "$sum", label: "$label",
      pos: "$pos", n: "$n", a2: "$a",
    },
  }}}`;
}

function csvText(d: Dialect, rows: string[][]): string {
  const lines = [HEADER.join(d.delimiterIn)];
  for (const r of rows) lines.push(r.join(d.delimiterIn));
  return lines.join("\n") + "\n";
}

interface Outcome {
  out: number[];
  trace: number[];
  rowsWritten: number;
  exprErrors: number;
  tally: unknown;
  unbalanced: number;
}

/** True when the dialect makes a valid config (a delimiter may not be its decimal separator). */
function validDialect(d: Dialect): boolean {
  return loadConfig(configText(d, 1), "t.json").config !== null;
}

/** One pass over `bytes` (header included); `lazy` takes the copy path. */
function convert(cfgText: string, bytes: Uint8Array, lazy: boolean): Outcome {
  const loaded = loadConfig(cfgText, "t.json");
  assert.ok(loaded.config, JSON.stringify(loaded));
  const t = loaded.config!.templates[0];
  const plan = planTemplate(t, loaded.config!.maps);
  const dialect = { delimiter: t.csvDelimiterIn, quote: t.csvTextQuoteIn, encoding: t.csvInputEncoding };
  let names: string[] = [];
  new CsvParser(dialect, (f) => names.length === 0 && (names = f)).push(
    bytes.subarray(0, bytes.indexOf(10) + 1),
  );
  const { columns } = checkHeader(names, plan, "s.csv");
  const trace = new CollectTrace();
  const writer = createRowWriter(t, plan.outputHeaders);
  writer.writeHeader(plan.outputHeaders);
  // The reference writer offers neither copies nor its special-character report: the evaluator then takes
  // the general path everywhere and checks for bare delimiters itself.
  const plain: RowWriter = {
    writeHeader: (c) => writer.writeHeader(c),
    writeRow: (v) => writer.writeRow(v),
    writeFragment: (b, n) => writer.writeFragment(b, n),
    finish: () => writer.finish(),
    drain: () => writer.drain(),
  };
  const rows = new RowEvaluator(plan, newEvalContext(plan, columns, "s"), {
    out: lazy ? writer : plain,
    combined: null,
    trace,
    debug: null,
  }, { dateMin: "", dateMax: "", columnNames: names });
  // A positional read (FIELDS) may read any field, so such a plan decodes every field and copies nothing.
  const positional = plan.readColumns === null;
  if (lazy) assert.equal(rows.lazyFields !== null, !positional, "the copy path is on unless FIELDS reads");
  lazy &&= !positional;
  let n = 0;
  let seen = 0;
  const parser: CsvParser = new CsvParser(dialect, (f, off) => {
    if (seen++ === 0) return; // the header line
    rows.evalRecord(f, off, ++n, lazy ? parser.raw : null);
  }, lazy ? { lazyFields: rows.lazyFields! } : {});
  // Odd slices: records and characters are cut anywhere.
  for (let at = 0; at < bytes.length; at += 37) {
    parser.push(bytes.subarray(at, Math.min(bytes.length, at + 37)));
  }
  parser.finish();
  writer.finish();
  return {
    out: [...(writer.drain() ?? [])],
    trace: trace.bytes(),
    rowsWritten: rows.rowsWritten,
    exprErrors: rows.exprErrors,
    tally: structuredClone(rows.tally),
    unbalanced: parser.unbalancedQuotes,
  };
}

const record = fc.array(anyField, { minLength: 0, maxLength: 7 }).chain((fs) =>
  fc.constantFrom("", "skip", "two", "over", "none").map((
    a,
  ) => (fs.length > 0 && a !== "" ? [a, ...fs.slice(1)] : fs))
);

Deno.test("the copy path gives the general path's bytes, trace and counts on adversarial records", () => {
  fc.assert(
    fc.property(
      dialect,
      fc.array(record, { maxLength: 25 }),
      fc.nat(11),
      fc.constantFrom("\n", "\r\n"),
      (d, rows, variant, eol) => {
        if (!validDialect(d)) return;
        const cfg = configText(d, variant);
        let text = csvText(d, rows);
        if (eol !== "\n") text = text.replaceAll("\n", eol);
        if (variant % 5 === 0) text += "last" + d.delimiterIn + "884.10"; // a final line without LF
        const bytes = encodeString(text, d.encodingIn);
        if (d.encodingIn === "utf-8" && variant % 2 === 1) {
          // Invalid UTF-8 (a lone continuation byte) somewhere in a field.
          const at = bytes.indexOf(10) + 2;
          if (at > 1 && at < bytes.length && bytes[at] !== 10) bytes[at] = 0x80;
        }
        const general = convert(cfg, bytes, false);
        const fast = convert(cfg, bytes, true);
        assert.deepEqual(fast, general);
      },
    ),
    { numRuns: 400 },
  );
});

/** The dialect of everyday exports: commas, double quotes in, UTF-8, CSV out. */
const PLAIN: Dialect = {
  delimiterIn: ",",
  delimiterOut: ",",
  quoteIn: "double",
  quoteOut: "none",
  decimalIn: ".",
  decimalOut: ".",
  encodingIn: "utf-8",
  encodingOut: "utf-8",
  typeOut: "csv",
};

/** The copy path's outcome over `bytes`, asserted equal to the general path's. */
function copyMatchesGeneral(d: Dialect, variant: number, bytes: Uint8Array): Outcome {
  const fast = convert(configText(d, variant), bytes, true);
  assert.deepEqual(fast, convert(configText(d, variant), bytes, false));
  return fast;
}

Deno.test("the copy path takes the copies on plain data and still matches", () => {
  const d = PLAIN;
  const rows: string[][] = [];
  for (let i = 0; i < 200; i++) rows.push([`n${i}`, `${i}.5${i % 3}`, ` ${i}0 `, `w${i}`, "x"]);
  rows.push(["two", '"q,1"', "1,5", "=A1", "-"]);
  const bytes = new TextEncoder().encode(csvText(d, rows));
  copyMatchesGeneral(d, 1, bytes);
  copyMatchesGeneral(d, 0, bytes);
  copyMatchesGeneral({ ...d, typeOut: "json" }, 1, bytes);
});

Deno.test("JSON output: ASCII lines holding what JSON escapes take the clean-line check and still match", () => {
  // Lines of plain ASCII (so the whole-line check decides) with a backslash, a quote, a tab or a control
  // character in some fields, unquoted and quoted: each must be escaped, never copied as it is.
  const d: Dialect = { ...PLAIN, typeOut: "json" };
  const odd = ["a\\b", "t\tab", "c\u0001d", "e\u001fz", 'say ""hi""', "plain"];
  const rows: string[][] = [];
  for (let i = 0; i < 120; i++) {
    const v = odd[i % odd.length];
    rows.push([
      `n${i}`,
      i % 2 === 0 ? v : `"${v}"`,
      `${i}`,
      i % 3 === 0 ? `"${v}"` : `w${i}`,
      v.replaceAll('""', ""),
    ]);
  }
  const bytes = new TextEncoder().encode(csvText(d, rows));
  for (const variant of [0, 1]) {
    const fast = copyMatchesGeneral(d, variant, bytes);
    assert.match(new TextDecoder().decode(new Uint8Array(fast.out)), /a\\\\b.*t\\tab/s);
  }
});

/**
 * The differential fuzzer's case generator: from one seed, a bxp config (one or two templates over the keys of
 * the config-schema table) and input files shaped to it. Expressions are built from the function registry by
 * each argument's kind (mostly well typed; sometimes not, so expression errors happen); inputs carry what
 * breaks readers: quoted delimiters, quotes and newlines, decimal commas, empty fields, ragged rows, unicode,
 * CRLF, BOMs, preambles, and files big enough to cross many small blocks.
 * @module
 */

import { zipSync } from "fflate";
import { FUNCTIONS } from "../../../src/lang/registry.ts";
import type { ArgSpec, FunctionSpec } from "../../../src/lang/spec.ts";
import { CONFIG_SCHEMA } from "../../../src/config/schema.ts";
import { encodeString, type EncodingName } from "../../../src/formats/encoding.ts";
import { Rng } from "../../_support/rng.ts";

/** One input file of a case (in the data folder). */
export interface CaseFile {
  name: string;
  bytes: Uint8Array;
}

/** What the generator made for one template (for the costlier paths, which run one template at a time). */
export interface TemplateFacts {
  id: string;
  /** CSV input, no zip: the partition modes and bxp_simulate can take it. */
  partitionable: boolean;
  headerLine: number;
  /** Input files this template reads directly (not zips). */
  inputs: string[];
  combined: boolean;
}

/** A generated case: a config text and the files of its data folder. */
export interface FuzzCase {
  seed: number;
  config: string;
  files: CaseFile[];
  templates: TemplateFacts[];
  /** BXP_BLOCK_BYTES for the forced block path. */
  blockBytes: number;
  /** Short tags of what the case exercises (printed on failure). */
  features: string[];
}

const encoder = new TextEncoder();

/** Functions whose value changes between runs by design: no two runs could agree on them. */
const NONDETERMINISTIC = new Set(["NOW", "RAND"]);
const CALLABLE = FUNCTIONS.filter((f) => !NONDETERMINISTIC.has(f.name));

const enumOf = (key: string): readonly string[] => {
  const e = CONFIG_SCHEMA.find((f) => f.key === `conversion_templates.*.${key}`)?.enum_values;
  if (!e) throw new Error(`schema has no enum for ${key}`);
  return e;
};
const DELIMITERS = enumOf("csv_delimiter_in");
const DECIMALS = enumOf("csv_decimal_separator_in");
const QUOTES = enumOf("csv_text_quote_in");
const DIR_MODES = enumOf("zip_input.dir_mode");
const ENCODINGS: EncodingName[] = ["utf-8", "windows-1250", "windows-1252", "iso-8859-1", "iso-8859-2"];

type ColumnKind = "int" | "amount" | "date" | "text" | "kind" | "sym" | "time";

interface Column {
  name: string;
  kind: ColumnKind;
}

const NAMES = [
  "Id",
  "Name",
  "Amount",
  "Date",
  "Kind",
  "Sym",
  "Note",
  "Qty",
  "Název",
  "Prix €",
  "At",
  "Price",
];
const KIND_FOR: Record<string, ColumnKind> = {
  Id: "int",
  Qty: "int",
  Amount: "amount",
  Price: "amount",
  "Prix €": "amount",
  Date: "date",
  At: "time",
  Kind: "kind",
  Sym: "sym",
};

const TEXTS = [
  "alpha",
  "Beta gamma",
  "  padded  ",
  "",
  "Žluťoučký kůň",
  "naïve café",
  "😀 smile",
  "x",
  "semi;colon",
  "comma, inside",
  "pipe|bar",
  "tab\there",
  'say "hi"',
  "it's",
  "line\nbreak",
  "crlf\r\nbreak",
  "N/A",
  "-9999",
  "007",
  "1e3",
  "ÄÖÜ ß",
  "Ω≈ç√",
];
const KINDS = ["buy", "sell", "deposit", "fee", "BUY", ""];
const SYMS = ["A", "B", "C", "AAPL", "MSFT", ""];
const DATE_FORMATS = ["YYYY-MM-DD", "DD.MM.YYYY", "MM/DD/YYYY", "YYYYMMDD", "D.M.YYYY", "DD MMM YYYY"];
const ZONES = ["Europe/Prague", "UTC", "America/New_York", "Asia/Tokyo", "Nowhere/Bad"];

/** Column values as the data would hold them (before quoting). */
function cellValue(rng: Rng, kind: ColumnKind, decimal: string, dateFmt: string): string {
  if (rng.chance(0.06)) return "";
  switch (kind) {
    case "int":
      return rng.chance(0.05) ? "abc" : String(rng.int(-50, 5000));
    case "amount": {
      if (rng.chance(0.04)) return rng.pick(["n/a", "1.234,5", "12.3.4", " 7 "]);
      const v = (rng.int(-99999, 999999) / 100).toFixed(rng.pick([0, 1, 2, 2, 3]));
      return decimal === "," ? v.replace(".", ",") : v;
    }
    case "date": {
      if (rng.chance(0.05)) return rng.pick(["31/02/2024", "yesterday", "2024-13-01", "2024-1-5"]);
      const y = rng.int(2022, 2025), m = rng.int(1, 12), d = rng.int(1, 28);
      return formatDate(dateFmt, y, m, d);
    }
    case "time": {
      const y = rng.int(2023, 2025), m = rng.int(1, 12), d = rng.int(1, 28);
      const p = (n: number) => String(n).padStart(2, "0");
      return `${y}-${p(m)}-${p(d)} ${p(rng.int(0, 23))}:${p(rng.int(0, 59))}:${p(rng.int(0, 59))}`;
    }
    case "kind":
      return rng.pick(KINDS);
    case "sym":
      return rng.pick(SYMS);
    case "text":
      return rng.pick(TEXTS);
  }
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function formatDate(fmt: string, y: number, m: number, d: number): string {
  const p = (n: number) => String(n).padStart(2, "0");
  switch (fmt) {
    case "DD.MM.YYYY":
      return `${p(d)}.${p(m)}.${y}`;
    case "MM/DD/YYYY":
      return `${p(m)}/${p(d)}/${y}`;
    case "YYYYMMDD":
      return `${y}${p(m)}${p(d)}`;
    case "D.M.YYYY":
      return `${d}.${m}.${y}`;
    case "DD MMM YYYY":
      return `${p(d)} ${MONTHS[m - 1]} ${y}`;
    default:
      return `${y}-${p(m)}-${p(d)}`;
  }
}

/** A bxp string literal (single quotes, '' for a quote). */
function lit(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** What an expression may refer to in one template. */
interface Scope {
  columns: Column[];
  headerless: boolean;
  width: number;
  /** The input_schema variables (expressions cannot read them: a read is a config error). */
  vars: string[];
  maps: string[];
  blocks: { name: string; fields: string[] }[];
  legacyBlock: boolean;
  dateFmt: string;
}

/** Builds expressions from the registry. */
class ExprGen {
  constructor(readonly rng: Rng, readonly scope: Scope, readonly illTyped: number) {}

  column(kinds?: ColumnKind[]): string {
    const s = this.scope;
    if (s.headerless || (s.columns.length > 0 && this.rng.chance(0.08))) {
      // A positional read, also past the header's width now and then.
      return `FIELDS(${this.rng.int(1, s.width + (this.rng.chance(0.2) ? 2 : 0))})`;
    }
    const pool = kinds ? s.columns.filter((c) => kinds.includes(c.kind)) : s.columns;
    if (this.rng.chance(0.03)) return "[Missing Column]";
    return `[${this.rng.pick(pool.length > 0 ? pool : s.columns).name}]`;
  }

  numberLeaf(): string {
    const r = this.rng.next();
    if (r < 0.45) return this.column(["int", "amount"]);
    if (r < 0.8) return this.rng.pick(["0", "1", "2", "-3", "12.5", "0.125", "1000000", "3"]);
    return "RECORD_NUM()";
  }

  stringLeaf(): string {
    const r = this.rng.next();
    if (r < 0.55) return this.column();
    if (r < 0.85) return lit(this.rng.pick(TEXTS.filter((t) => !t.includes("\n") && !t.includes("\r"))));
    return this.rng.pick(["FILENAME()", "RECORD_NUM()", "SHEET_NAME()"]);
  }

  arg(spec: ArgSpec, depth: number): string {
    if (this.rng.chance(this.illTyped)) {
      // Mostly a wrong kind only the data shows (a text column where a number goes: an expression error on
      // some rows); now and then a literal the static checks refuse (a config error every path must share).
      if (this.rng.chance(0.8)) return this.column(["text", "kind", "sym", "date"]);
      return this.rng.pick(["'not a number'", "12", "TRUE", "''", "$v0"]);
    }
    switch (spec.kind) {
      case "number":
        return depth > 0 && this.rng.chance(0.35) ? this.numeric(depth - 1) : this.numberLeaf();
      case "positive_integer":
        return this.rng.chance(0.8) ? String(this.rng.int(1, 5)) : this.numberLeaf();
      case "integer_in_range":
        return String(this.rng.int(Math.max(spec.min ?? 0, -4), Math.min(spec.max ?? 4, 6)));
      case "date_format":
        return lit(this.rng.chance(0.6) ? this.scope.dateFmt : this.rng.pick(DATE_FORMATS));
      case "map_name":
        return lit(this.scope.maps.length > 0 ? this.rng.pick(this.scope.maps) : "no_such_map");
      case "pre_pass_name":
        return lit(this.scope.blocks.length > 0 ? this.rng.pick(this.scope.blocks).name : "nope");
      case "literal_string":
        return lit("value");
      case "string":
        if (/zone/.test(spec.name)) return lit(this.rng.pick(ZONES));
        if (/delim|sep/.test(spec.name)) return lit(this.rng.pick([",", ".", " ", "/", ";", ""]));
        if (spec.name === "pattern") return lit(this.rng.pick(["^[A-Z]", "\\d+", "(a|b)", "[", ".*"]));
        if (spec.name === "pad") return lit(this.rng.pick(["0", " ", "*"]));
        if (/^(d|d1|d2|ts|datetime|t)$/.test(spec.name) && this.rng.chance(0.7)) {
          return this.column(["date", "time"]);
        }
        return depth > 0 && this.rng.chance(0.4) ? this.expr(depth - 1) : this.stringLeaf();
      case "expr":
        return depth > 0 ? this.expr(depth - 1) : this.stringLeaf();
    }
  }

  call(f: FunctionSpec, depth: number): string {
    if (f.name === "LOOKUP") return this.lookup(depth);
    if (f.name === "FIELDS") return `FIELDS(${this.rng.int(1, this.scope.width + 1)})`;
    let n = f.minArgs;
    if (f.maxArgs > f.minArgs) n = Math.min(f.maxArgs, f.minArgs + this.rng.int(0, 3));
    if (f.parity === "odd-or-two") {
      n = this.rng.chance(0.7) ? 2 : 3 + 2 * this.rng.int(0, 1);
      if (f.name === "REPLACE" && n === 2) n = 3; // REPLACE(s, map, to) takes its named map with a third arg
    }
    if (this.rng.chance(this.illTyped / 2)) n += this.rng.pick([-1, 1]); // an arity mistake: a config error
    const args: string[] = [];
    for (let i = 0; i < Math.max(0, n); i++) {
      let spec = f.args[Math.min(i, f.args.length - 1)] ?? { name: "x", kind: "expr" };
      // Inline pairs of REMAP/REPLACE are plain strings, not map names.
      if (spec.kind === "map_name" && n !== 2 && !(f.name === "REPLACE" && n === 3)) {
        spec = { name: "pair", kind: "string" };
      }
      args.push(this.arg(spec, depth));
    }
    return `${f.name}(${args.join(", ")})`;
  }

  lookup(depth: number): string {
    const s = this.scope;
    if (s.blocks.length === 0) return `LOOKUP('nope', ${this.stringLeaf()}, 'value')`;
    const b = this.rng.pick(s.blocks);
    const key = depth > 0 && this.rng.chance(0.3)
      ? this.expr(depth - 1)
      : this.column(["sym", "kind", "int"]);
    const field = lit(this.rng.chance(0.9) ? this.rng.pick(b.fields) : "absent");
    return s.legacyBlock ? `LOOKUP(${key}, ${field})` : `LOOKUP(${lit(b.name)}, ${key}, ${field})`;
  }

  numeric(depth: number): string {
    if (depth <= 0 || this.rng.chance(0.4)) return this.numberLeaf();
    const op = this.rng.pick(["+", "-", "*", "/"]);
    return `(${this.numeric(depth - 1)} ${op} ${this.numeric(depth - 1)})`;
  }

  condition(depth: number): string {
    const r = this.rng.next();
    if (r < 0.3) return `${this.column(["kind", "sym"])} = ${lit(this.rng.pick(KINDS.concat(SYMS)))}`;
    if (r < 0.5) {
      return `${this.numeric(depth)} ${
        this.rng.pick(["<", ">", "<=", ">=", "=", "!="])
      } ${this.numberLeaf()}`;
    }
    if (r < 0.6 && depth > 0) {
      return `${this.condition(depth - 1)} ${this.rng.pick(["AND", "OR"])} ${this.condition(depth - 1)}`;
    }
    if (r < 0.65) return `NOT ${this.condition(Math.max(0, depth - 1))}`;
    if (r < 0.75) return this.rng.pick(["TRUE", "FALSE", "1 = 1", "RECORD_NUM() > 3"]);
    return this.expr(depth);
  }

  expr(depth: number): string {
    const r = this.rng.next();
    if (depth <= 0 || r < 0.15) return this.rng.chance(0.5) ? this.stringLeaf() : this.numberLeaf();
    if (r < 0.22) return `${this.expr(depth - 1)} & ${this.expr(depth - 1)}`;
    if (r < 0.3) return this.numeric(depth);
    if (r < 0.34) return this.condition(depth - 1);
    return this.call(this.rng.pick(CALLABLE), depth);
  }
}

/** Quotes a field for the input dialect when it must be (or now and then when it need not). */
function quoteField(rng: Rng, v: string, delim: string, quote: string | null): string {
  if (quote === null) return v.replace(/[\r\n]/g, " ");
  const needs = v.includes(delim) || v.includes(quote) || v.includes("\n") || v.includes("\r");
  if (needs || rng.chance(0.1)) return quote + v.replaceAll(quote, quote + quote) + quote;
  return v;
}

const QUOTE_CHAR: Record<string, string | null> = { none: null, single: "'", double: '"' };

interface Dialect {
  headerLine: number;
  delim: string;
  decimal: string;
  quote: string;
  encoding: EncodingName;
  dateFmt: string;
}

function csvText(rng: Rng, d: Dialect, columns: Column[], rows: number): string {
  const q = QUOTE_CHAR[d.quote];
  const eol = rng.pick(["\n", "\n", "\r\n", "mixed"]);
  const nl = () => (eol === "mixed" ? rng.pick(["\n", "\r\n"]) : eol);
  let text = "";
  for (let i = 1; i < d.headerLine; i++) {
    text += rng.pick(["Account statement", `Generated${d.delim}today`, "", "# preamble line"]) + nl();
  }
  if (d.headerLine > 0) text += columns.map((c) => quoteField(rng, c.name, d.delim, q)).join(d.delim) + nl();
  const unicode = d.encoding === "utf-8";
  for (let r = 0; r < rows; r++) {
    if (rng.chance(0.03)) text += nl(); // a blank line: not a record
    let cells = columns.map((c) => cellValue(rng, c.kind, d.decimal, d.dateFmt));
    // A single-byte code page: keep to Latin-1 so every path reads the same characters back.
    if (!unicode) cells = cells.map((v) => v.replace(/[^\t\n\r -\u00ff]/gu, "?"));
    if (rng.chance(0.05)) cells = cells.slice(0, rng.int(1, cells.length)); // ragged: short
    else if (rng.chance(0.04)) cells.push("extra", rng.pick(TEXTS)); // ragged: long
    text += cells.map((v) => quoteField(rng, v, d.delim, q)).join(d.delim);
    if (r < rows - 1 || rng.chance(0.8)) text += nl();
  }
  return text;
}

function jsonText(rng: Rng, columns: Column[], rows: number, dateFmt: string): string {
  const items: Record<string, unknown>[] = [];
  for (let r = 0; r < rows; r++) {
    const o: Record<string, unknown> = {};
    for (const c of columns) {
      if (rng.chance(0.05)) continue; // a missing key
      const v = cellValue(rng, c.kind, ".", dateFmt);
      o[c.name] = c.kind === "int" && /^-?\d+$/.test(v) && rng.chance(0.5)
        ? Number(v)
        : rng.chance(0.03)
        ? rng.pick([null, true, 1.5])
        : v;
    }
    items.push(o);
  }
  return JSON.stringify(items, null, rng.chance(0.5) ? 1 : undefined);
}

function encodeInput(text: string, enc: EncodingName, bom: boolean): Uint8Array {
  if (enc !== "utf-8") return encodeString(text, enc);
  const body = encoder.encode(text);
  if (!bom) return body;
  const out = new Uint8Array(body.length + 3);
  out.set([0xef, 0xbb, 0xbf]);
  out.set(body, 3);
  return out;
}

/** One template of a case, with its files. */
function template(rng: Rng, k: number, single: boolean, globalMaps: string[]) {
  const features: string[] = [];
  const id = `t${k}`;
  const json = rng.chance(0.15);
  const jsonOut = rng.chance(0.2);
  const headerLine = json ? 1 : rng.pick([0, 0, 1, 1, 1, 2, 3]);
  const delim = rng.pick(DELIMITERS);
  let decimal = rng.pick(DECIMALS);
  if (decimal === delim) decimal = ".";
  const d: Dialect = {
    headerLine,
    delim,
    decimal,
    quote: rng.pick([...QUOTES, "double", "double"]),
    encoding: json || rng.chance(0.8) ? "utf-8" : rng.pick(ENCODINGS),
    dateFmt: rng.pick(DATE_FORMATS),
  };
  const ncols = rng.int(2, 6);
  const columns: Column[] = rng.some(NAMES, ncols).map((name) => ({ name, kind: KIND_FOR[name] ?? "text" }));
  const headerless = headerLine === 0;
  if (headerless) features.push("headerless");
  if (json) features.push("json-in");
  if (jsonOut) features.push("json-out");
  const zip = !json && single && rng.chance(0.12);
  const dateFilter = rng.chance(0.12);
  const combined = rng.chance(0.2);
  const suffixIn = json ? `.k${k}.json` : `.k${k}.csv`;
  const t: Record<string, unknown> = {
    data_dir: ".",
    file_pattern_in: suffixIn,
    file_pattern_out: jsonOut ? `.k${k}.out.json` : `.k${k}.out`,
  };
  if (json) t.file_type_in = "json";
  if (jsonOut) t.file_type_out = "json";
  if (!json) {
    if (headerLine !== 1 || rng.chance(0.3)) t.csv_header_line = headerLine;
    if (delim !== "," || rng.chance(0.2)) t.csv_delimiter_in = delim;
    if (decimal !== "." || rng.chance(0.1)) t.csv_decimal_separator_in = decimal;
    if (d.quote !== "double" || rng.chance(0.1)) t.csv_text_quote_in = d.quote;
    if (d.encoding !== "utf-8") {
      t.csv_input_encoding = d.encoding;
      features.push(`enc:${d.encoding}`);
    }
  }
  if (!jsonOut) {
    if (rng.chance(0.5)) t.csv_delimiter_out = rng.pick(DELIMITERS);
    if (rng.chance(0.3)) t.csv_text_quote_out = rng.pick(QUOTES);
    if (rng.chance(0.2)) t.csv_output_encoding = rng.pick(ENCODINGS);
  }
  if (rng.chance(0.3)) t.csv_decimal_separator_out = rng.pick(DECIMALS);
  if (combined) {
    t.combined_output = true;
    features.push("combined");
  }

  // Maps: template maps laid over the top-level ones.
  const maps = [...globalMaps];
  if (rng.chance(0.25)) {
    t.maps = { kinds: { buy: "B", sell: "S", fee: "F" }, local: { A: "Alpha", x: "" } };
    maps.push("kinds", "local");
    features.push("template-maps");
  }

  // pre_pass: one legacy block or named blocks.
  const scope: Scope = {
    columns,
    headerless,
    width: columns.length,
    vars: [],
    maps,
    blocks: [],
    legacyBlock: false,
    dateFmt: d.dateFmt,
  };
  const gen = new ExprGen(rng, scope, rng.chance(0.3) ? 0.08 : 0.01);
  if (rng.chance(0.3)) {
    const legacy = rng.chance(0.4);
    const nb = legacy ? 1 : rng.int(1, 2);
    const blocks: Record<string, unknown> = {};
    for (let b = 0; b < nb; b++) {
      const fields = ["value", "at", "extra"].slice(0, rng.int(1, 3));
      const values: Record<string, string> = {};
      // aggregate (not bxp's): how records writing one key combine; the blocks path merges partial
      // results and the partition modes add up pieces' lists, so each is held to the serial pass.
      const aggregate: Record<string, string> = {};
      const aggregating = rng.chance(0.4);
      for (const f of fields) {
        const how = aggregating && rng.chance(0.7) ? rng.pick(["last", "first", "sum", "count"]) : null;
        if (how !== null) aggregate[f] = how;
        // A sum mostly over arithmetic (an error skips the record's value); a bare text now and then stops
        // the file loudly, which every path must do alike.
        values[f] = f === "at"
          ? "RECORD_NUM()"
          : how === "sum" && rng.chance(0.85)
          ? `(${gen.numeric(1)}) + 0`
          : gen.expr(1);
      }
      if (aggregating && rng.chance(0.05)) aggregate.absent = "sum"; // a config error on every path
      const block: Record<string, unknown> = {
        when: gen.condition(1),
        key: gen.column(["sym", "kind", "int"]),
        values,
      };
      if (aggregating) {
        block.aggregate = aggregate;
        features.push("pre_pass-aggregate");
      }
      scope.blocks.push({ name: `b${b}`, fields });
      blocks[`b${b}`] = block;
    }
    scope.legacyBlock = legacy;
    t.pre_pass = legacy ? blocks.b0 : blocks;
    features.push(legacy ? "pre_pass-legacy" : "pre_pass-named");
  }

  // input_schema: bare columns (the verbatim-copy path), positional reads, source functions, random calls.
  const input: Record<string, string> = {};
  const nvars = rng.int(2, 7);
  for (let i = 0; i < nvars; i++) {
    const r = rng.next();
    let e: string;
    if (r < 0.35) e = gen.column();
    else if (r < 0.42) e = rng.pick(["RECORD_NUM()", "FILENAME()"]);
    else if (r < 0.5 && scope.blocks.length > 0) e = gen.lookup(1);
    else if (r < 0.55 && maps.length > 0) e = `REMAP(${gen.column()}, ${lit(rng.pick(maps))})`;
    else e = gen.expr(rng.int(1, 3));
    input[`$v${i}`] = e;
  }
  if (dateFilter) {
    const dateCol = columns.find((c) => c.kind === "date");
    input.$date = dateCol && !headerless
      ? rng.pick([`[${dateCol.name}]`, `DATE_CONVERT([${dateCol.name}], ${lit(d.dateFmt)}, 'YYYY-MM-DD')`])
      : rng.pick(["'2024-03-01'", gen.column()]);
    t.date_filter_from_filename = true;
    features.push("date-filter");
  }
  t.input_schema = input;
  scope.vars = Object.keys(input);

  // row_rules: several rules, several rows, overrides of the input_schema variables.
  const rules: unknown[] = [];
  const nrules = rng.int(1, 3);
  for (let i = 0; i < nrules; i++) {
    const last = i === nrules - 1;
    const when = last && rng.chance(0.7) ? "TRUE" : gen.condition(2);
    const rows: Record<string, string>[] = [];
    const nrows = rng.chance(0.1) ? 0 : rng.int(1, 3);
    for (let r = 0; r < nrows; r++) {
      const row: Record<string, string> = {};
      if (rng.chance(0.5)) {
        for (const v of rng.some(scope.vars, rng.int(1, 2))) row[v] = gen.expr(rng.int(0, 2));
      }
      rows.push(row);
    }
    rules.push({ when, rows });
  }
  if (rules.length > 1) features.push("rules");
  t.row_rules = rules;
  if (rng.chance(0.15)) t.row_rules_debug_missing = true;

  const out: Record<string, string> = {};
  const cols = rng.some(scope.vars, rng.int(1, scope.vars.length));
  for (const [i, v] of cols.entries()) out[rng.chance(0.2) ? `col ${i} ü` : `c${i}_${v.slice(1)}`] = v;
  if (rng.chance(0.1)) out.again = cols[0];
  t.output_schema = out;

  // Files: one to three, one sometimes big enough to cross many blocks.
  const files: CaseFile[] = [];
  const inputs: string[] = [];
  const nfiles = rng.int(1, 3);
  const members: Record<string, Uint8Array> = {};
  for (let f = 0; f < nfiles; f++) {
    const big = rng.chance(0.15);
    const rows = big ? rng.int(300, 1200) : rng.int(0, 25);
    if (big) features.push("big");
    const range = dateFilter && rng.chance(0.8) ? `_2024-01-01_2024-06-30` : "";
    const stem = `${rng.pick(["in", "data", "stmt", "Výpis"])}${f}${range}`;
    const name = stem + suffixIn;
    const bytes = json
      ? encoder.encode(jsonText(rng, columns, rows, d.dateFmt))
      : encodeInput(csvText(rng, d, columns, rows), d.encoding, rng.chance(0.15));
    if (zip && f > 0) members[rng.chance(0.5) ? `sub/${name}` : name] = bytes;
    else {
      files.push({ name, bytes });
      inputs.push(name);
    }
  }
  // data_dir as a list (not bxp's): inputs of a second folder, folders in list order, outputs beside their
  // inputs, the combined output in the first folder; one name in both folders now and then (refused alike).
  // Every input is named with its folder (`main/x.csv`), as the playground stages such names.
  const listed = !zip && single && files.length > 0 && rng.chance(0.15);
  if (listed) {
    files.forEach((f, i) => {
      const folder = i === files.length - 1 || rng.chance(0.4) ? "more" : "main";
      inputs[inputs.indexOf(f.name)] = f.name = `${folder}/${f.name}`;
    });
    if (rng.chance(0.1)) {
      const [folder, base] = files[0].name.split("/");
      files.push({ name: `${folder === "more" ? "main" : "more"}/${base}`, bytes: files[0].bytes });
    }
    t.data_dir = rng.chance(0.5) ? ["main", "more"] : ["more", "main"];
    features.push("data_dir-list");
  }
  if (zip && Object.keys(members).length > 0) {
    const dirMode = rng.pick(DIR_MODES);
    t.zip_input = { entry_pattern: suffixIn, dir_mode: dirMode };
    files.push({ name: `pack${k}.zip`, bytes: zipSync(members, { level: rng.pick([0, 6]) as 0 | 6 }) });
    features.push(`zip:${dirMode}`);
  }
  if (rng.chance(0.1)) t.description = "generated";
  // fill_down (not bxp's): blank cells (6% of cells) take the previous record's; serial by design, refused by
  // the partition modes. Headerless now and then: a config error on every path.
  const fillDown = rng.chance(headerless ? 0.02 : 0.2);
  if (fillDown) {
    const names = columns.length > 0 ? rng.some(columns.map((c) => c.name), rng.int(1, 2)) : [];
    if (names.length === 0 || rng.chance(0.1)) names.push("Missing Column");
    t.fill_down = names;
    features.push("fill_down");
  }
  const facts: TemplateFacts = {
    id,
    // The partition modes and bxp_simulate take one folder's files: a data_dir list is held to the
    // reference by the other paths.
    partitionable: !json && !zip && !fillDown && !listed,
    headerLine,
    inputs,
    combined,
  };
  return { config: t, files, facts, features };
}

/** The case of `seed`. */
export function generateCase(seed: number): FuzzCase {
  const rng = new Rng(seed);
  const config: Record<string, unknown> = {};
  const globalMaps: string[] = [];
  if (rng.chance(0.35)) {
    config.maps = {
      kinds: { buy: "BUY", sell: "SELL", deposit: "DEP" },
      syms: { A: "Apple", B: "", AAPL: "Apple Inc." },
    };
    globalMaps.push("kinds", "syms");
  }
  const single = rng.chance(0.7);
  const n = single ? 1 : 2;
  const templates: Record<string, unknown> = {};
  const files: CaseFile[] = [];
  const facts: TemplateFacts[] = [];
  const features: string[] = [];
  for (let k = 0; k < n; k++) {
    const t = template(rng, k, single, globalMaps);
    templates[t.facts.id] = t.config;
    files.push(...t.files);
    facts.push(t.facts);
    features.push(...t.features.map((f) => `${t.facts.id}:${f}`));
  }
  config.conversion_templates = templates;
  const blockBytes = rng.pick([16, 64, 256, 1024, 4096]);
  return { seed, config: JSON.stringify(config, null, 1), files, templates: facts, blockBytes, features };
}

/**
 * The config drafter: from a sample export, a commented JSON5 bxp config that reads it as detected
 * (encoding, delimiter, quote, decimal separator, header line) and writes every data row back out
 * normalised — ISO dates through `DATE_CONVERT`, plain decimals, `true`/`false` booleans — one `$var`
 * per column, a pass-through rule, footer lines dropped. What the sniffer could not settle is written as
 * a `CHECK:` comment beside the setting, never silently guessed away.
 *
 * @example
 * ```ts
 * import { draftConfig } from "./draft.ts";
 * import assert from "node:assert/strict";
 * const d = draftConfig(new TextEncoder().encode("Date;Amount\n31.12.2024;1,5\n"), { sampleName: "bank.csv" });
 * assert.equal(d.templateId, "bank");
 * assert.match(d.text, /^\/\/ Drafted by bxp-cli --init from bank\.csv\./);
 * assert.match(d.text, /\$date: "DATE_CONVERT\(\[Date\], 'DD\.MM\.YYYY', 'YYYY-MM-DD'\)"/);
 * ```
 * @module
 */

import {
  type SkipPredicate,
  sniffCsv,
  type SniffedColumn,
  type SniffOptions,
  type SniffResult,
} from "./sniff.ts";

/** Options for {@link draftConfig}. */
export interface DraftOptions extends SniffOptions {
  /** The sample's file name (for the template id, `file_pattern_in` and comments). */
  sampleName: string;
  /** Template id; default: derived from the sample's name. */
  templateId?: string;
  /** `data_dir` to write; default ".". */
  dataDir?: string;
}

/** A drafted config. */
export interface Draft {
  templateId: string;
  /** The JSON5 config text. */
  text: string;
  sniff: SniffResult;
  /** Column name → the `$variable` and output column it became. */
  columns: { name: string; variable: string; output: string; expression: string }[];
}

const ISO_DATE = "YYYY-MM-DD";
const ISO_DATETIME = "YYYY-MM-DD hh:mm:ss";

/** A lower-case ASCII identifier from any text ("Číslo účtu" → "cislo_uctu"). */
export function identifier(text: string, fallback: string): string {
  const ascii = text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  const id = ascii.replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  if (id === "") return fallback;
  return /^[0-9]/.test(id) ? `${fallback}_${id}` : id;
}

/** A JSON5 string literal (double-quoted, JSON escapes). */
function str(s: string): string {
  return JSON.stringify(s);
}

/** A single-quoted expression literal ('' doubles a quote). */
function lit(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/**
 * How an expression reaches the column: `[Name]`, or `FIELDS(n)` when the name cannot be bracketed, is
 * all digits, was empty in the header, or is shared by several columns (`[Name]` reaches only one).
 */
function fieldRef(c: SniffedColumn, repeated: ReadonlySet<string>): string {
  if (
    /[[\]]/.test(c.name) || /^\d+$/.test(c.name) || c.name === `column_${c.index + 1}` || repeated.has(c.name)
  ) {
    return `FIELDS(${c.index + 1})`;
  }
  return `[${c.name}]`;
}

function numberExpression(ref: string, c: SniffedColumn, decimalIn: "." | ",", nativeComma: boolean): string {
  const group = c.thousands ?? "";
  if (c.trailingMinus) {
    // "12,50-": the sign moves to the front by hand; the rest is tidied like any grouped value (a
    // REPLACE result is text, never read natively).
    const bare = `REPLACE(${ref}, '-', '')`;
    let body = group === "" ? bare : `REPLACE(${bare}, ${lit(group)}, '')`;
    if (decimalIn === ",") body = `REPLACE(${body}, ',', '.')`;
    return `IF(ISEMPTY(${ref}), '', IF(ENDS_WITH(${ref}, '-'), 0 - ${body} * 1, ${body} * 1))`;
  }
  if (group === "" && (c.kind === "integer" || decimalIn === "." || nativeComma)) {
    // Plain numbers (and, with csv_decimal_separator_in ",", plain decimal commas) read as they are;
    // integers stay byte for byte.
    return c.kind === "integer" ? ref : `IF(ISEMPTY(${ref}), '', ${ref} * 1)`;
  }
  let body: string;
  if (decimalIn === ".") body = `REPLACE(${ref}, ${lit(group)}, '')`;
  else if (nativeComma && group === ".") body = ref; // "1.234,56" is read natively
  else {
    // bxp converts a field's decimal comma only when the whole field is a number; a grouped value is
    // not, so it is tidied by hand: grouping out, comma to dot.
    const ungrouped = group === "" ? ref : `REPLACE(${ref}, ${lit(group)}, '')`;
    body = `REPLACE(${ungrouped}, ',', '.')`;
  }
  return `IF(ISEMPTY(${ref}), '', ${body} * 1)`;
}

/**
 * A date column: each format in turn (a column may mix shapes), values no format reads written as they
 * are (never silently emptied), a UTC offset applied with TO_UTC.
 */
function dateExpression(ref: string, c: SniffedColumn): string {
  const to = c.kind === "date" ? ISO_DATE : ISO_DATETIME;
  const formats = c.formats ?? [c.format!];
  const read = (f: string) =>
    /ZZ/.test(f) ? `TO_UTC(${ref}, ${lit(f)})` : `DATE_CONVERT(${ref}, ${lit(f)}, ${lit(to)})`;
  if (formats.length === 1 && (c.strays?.length ?? 0) === 0) return read(formats[0]);
  let expr = (c.strays?.length ?? 0) > 0 ? `AS_TEXT(${ref})` : read(formats[formats.length - 1]);
  const tested = (c.strays?.length ?? 0) > 0 ? formats : formats.slice(0, -1);
  for (let i = tested.length - 1; i >= 0; i--) {
    expr = `IF(IS_DATE(${ref}, ${lit(tested[i])}), ${read(tested[i])}, ${expr})`;
  }
  return `IF(ISEMPTY(${ref}), '', ${expr})`;
}

function columnExpression(
  c: SniffedColumn,
  s: SniffResult,
  nativeComma: boolean,
  repeated: ReadonlySet<string>,
): string {
  const ref = fieldRef(c, repeated);
  switch (c.kind) {
    case "date":
    case "datetime":
      return dateExpression(ref, c);
    case "integer":
    case "decimal":
      return numberExpression(ref, c, s.decimalSeparator, nativeComma);
    case "boolean": {
      const [yes] = c.booleans!;
      return `IF(ISEMPTY(${ref}), '', IF(LOWER(${ref}) = ${lit(yes.toLowerCase())}, 'true', 'false'))`;
    }
    default:
      // Text bxp would rewrite (ids like 1111.0, codes like 185.50) is written as it is.
      return c.asText ? `AS_TEXT(${ref})` : ref;
  }
}

function columnComment(c: SniffedColumn, s: SniffResult): string {
  switch (c.kind) {
    case "date":
    case "datetime": {
      const formats = (c.formats ?? [c.format!]).map((f) => `'${f}'`).join(" or ");
      const strays = c.strays?.length ? `; ${c.strays.length} non-date value(s) kept as written` : "";
      const offset = c.offset ? "; the UTC offset is applied (UTC times)" : "";
      return `${c.kind} read as ${formats}${strays}${offset}`;
    }
    case "decimal":
    case "integer": {
      const group = c.thousands ? `, thousands '${c.thousands}'` : "";
      const minus = c.trailingMinus ? ", minus sign at the end" : "";
      return c.kind === "decimal"
        ? `decimal, separator '${s.decimalSeparator}'${group}${minus}`
        : `integer${group}${minus}`;
    }
    case "boolean":
      return `boolean: '${c.booleans![0]}' is true, '${c.booleans![1]}' false`;
    default:
      if (c.identifier) return "identifier: numbers kept exactly as written, not as quantities";
      if (c.empty > 0 && c.empty === s.dataRecords) return "text (empty in the sample)";
      return c.asText ? "text, kept as written (some values look like numbers)" : "text";
  }
}

const QUOTE_NAMES: Record<string, string> = { double: "double", single: "single", none: "none" };

/** Drafts a config for `bytes` (a sample of the export). Never throws on content. */
export function draftConfig(bytes: Uint8Array, options: DraftOptions): Draft {
  const s = sniffCsv(bytes, options);
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const c of s.columns) (seen.has(c.name) ? repeated : seen).add(c.name);
  const stem = options.sampleName.replace(/^.*[\\/]/, "");
  const ext = /\.[A-Za-z0-9]+$/.exec(stem)?.[0] ?? ".csv";
  const templateId = options.templateId ?? identifier(stem.slice(0, stem.length - ext.length), "t");
  // A decimal comma can only be declared when it is not also the delimiter.
  const nativeComma = s.decimalSeparator === "," && s.delimiter !== ",";

  // input_schema is evaluated on every record, skipped ones too: a repeated header's "Amount" * 1 would
  // be an expression error, so the records the rules skip are kept out of the arithmetic.
  const skipGuard = s.skips.map((r) => predicateExpression(r.predicate, s.columns, repeated))
    .map((e) => (s.skips.length > 1 ? `(${e})` : e)).join(" OR ");
  const used = new Set<string>();
  const columns = s.columns.map((c) => {
    let base = identifier(c.name, `col_${c.index + 1}`);
    if (used.has(base)) base = `${base}_${c.index + 1}`;
    used.add(base);
    return {
      name: c.name,
      variable: `$${base}`,
      output: base,
      expression: guarded(columnExpression(c, s, nativeComma, repeated), c, s, skipGuard),
    };
  });

  const L: string[] = [];
  L.push(`// Drafted by bxp-cli --init from ${stem}. Check every CHECK: line, then run bxp-cli.`);
  L.push("//");
  L.push(
    `// Detected: ${s.encoding}${s.bom ? " with a byte-order mark" : ""}, delimiter ${str(s.delimiter)}, ` +
      `quote ${QUOTE_NAMES[s.quote]}, decimal separator ${str(s.decimalSeparator)}` +
      `${
        s.thousands ? `, thousands ${str(s.thousands)}` : ""
      }, header on non-empty line ${s.headerLine} (line ${s.headerPhysicalLine} of the file), ` +
      `${s.dataRecords} data record(s)${s.footerLines ? `, ${s.footerLines} footer line(s)` : ""}.`,
  );
  for (const n of s.notes) L.push(`// CHECK: ${n}`);
  L.push("{");
  L.push("  conversion_templates: {");
  L.push(`    ${templateId}: {`);
  L.push(`      description: ${str(`Drafted from ${stem}`)},`);
  L.push(`      data_dir: ${str(options.dataDir ?? ".")},`);
  L.push(`      file_pattern_in: ${str(ext)},`);
  L.push(`      file_pattern_out: ${str(".clean" + ext)},`);
  if (s.encoding !== "utf-8") L.push(`      csv_input_encoding: ${str(s.encoding)},`);
  L.push(`      csv_delimiter_in: ${str(s.delimiter)},`);
  if (nativeComma) L.push(`      csv_decimal_separator_in: ",",`);
  else if (s.decimalSeparator === ",") {
    L.push("      // Decimal commas in a comma-delimited file: the expressions below turn them into dots.");
  }
  L.push(`      csv_text_quote_in: ${str(s.quote)},`);
  if (s.needsQuoting) {
    L.push(
      "      // Some values hold a comma, a quote or a line break: quoted on output, so no row gains columns.",
    );
    L.push(`      csv_text_quote_out: "double",`);
  }
  if (s.headerLine !== 1) {
    L.push(
      `      // The ${s.preambleLines} non-empty line(s) before the header are skipped (empty lines do not count).`,
    );
    L.push(`      csv_header_line: ${s.headerLine},`);
  }
  L.push("");
  L.push("      // One variable per column, normalised: ISO dates, plain decimals, true/false.");
  L.push("      input_schema: {");
  s.columns.forEach((c, i) => {
    const col = columns[i];
    L.push(`        // ${str(c.name)}: ${columnComment(c, s)}`);
    L.push(`        ${col.variable}: ${str(col.expression)},`);
  });
  L.push("      },");
  L.push("");
  L.push("      row_rules: [");
  for (const rule of s.skips) {
    L.push(
      `        // Line(s) ${
        rule.lines.join(", ")
      }: ${rule.reason}, not data. Recognised by shape: ${rule.how}.`,
    );
    L.push(`        { when: ${str(predicateExpression(rule.predicate, s.columns, repeated))}, rows: [] },`);
  }
  L.push("        // Every other record: one output row with the variables above.");
  L.push(`        { when: "1 = 1", rows: [{}] },`);
  L.push("      ],");
  L.push("");
  L.push("      output_schema: {");
  for (const col of columns) L.push(`        ${identKey(col.output)}: ${str(col.variable)},`);
  L.push("      },");
  L.push("    },");
  L.push("  },");
  L.push("}");
  return { templateId, text: L.join("\n") + "\n", sniff: s, columns };
}

/** `expr`, or '' on the records the skip rules drop, for expressions that can fail on them. */
function guarded(expr: string, c: SniffedColumn, s: SniffResult, guard: string): string {
  const risky = c.kind === "integer" ? /\* 1/.test(expr) : c.kind === "decimal" || c.offset === true;
  // Only where a skipped record holds something the arithmetic cannot read (a header's "Amount").
  const fails = s.skips.some((r) =>
    r.records.some((f) => !/^\s*([+-]?\d+([.,' ]\d+)*-?)?\s*$/.test(f[c.index] ?? ""))
  );
  return guard !== "" && risky && fails ? `IF(${guard}, '', ${expr})` : expr;
}

/** The `when` of a skip rule. */
function predicateExpression(
  p: SkipPredicate,
  columns: readonly SniffedColumn[],
  repeated: ReadonlySet<string>,
): string {
  const ref = (i: number) => fieldRef(columns[i], repeated);
  switch (p.kind) {
    case "not_date":
      return `NOT IS_DATE(${ref(p.column)}, ${lit(p.format)})`;
    case "empty":
      return p.columns.map((i) => `ISEMPTY(${ref(i)})`).join(" AND ");
    case "equals":
      return p.values.length === 1
        ? `${ref(p.column)} = ${lit(p.values[0])}`
        : `IN(${ref(p.column)}, ${p.values.map(lit).join(", ")})`;
    case "starts_with":
      return p.texts.map((t) => `STARTS_WITH(${ref(p.column)}, ${lit(t)})`).join(" OR ");
  }
}

/** Output keys are identifiers already; quote the odd one that is not a JSON5 identifier. */
function identKey(k: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : str(k);
}

/**
 * Loading phase: turns the parsed JSON5 tree into typed templates, applying defaults and reporting what
 * bxp's loader reports while it reads (phases A, B and D):
 *
 * - hard errors that stop loading (`xlsx_sheet` malformed, missing `output_schema`, bad `csv_header_line`,
 *   bad pre_pass block names, malformed `maps`): loading aborts at the first one, like bxp, and the abort
 *   reason (`InvalidConfig` / `MissingOutputSchema`) is returned for the root marker;
 * - wrong-type and invalid-enum warnings for values that silently fall back to their default.
 *
 * The loader reads the schema table (`schema.ts`) for defaults and enum words.
 * @module
 */

import { type Diagnostic, joinPath, templatePath } from "./diagnostic.ts";
import { getMember, type JsonNode, valueTagName } from "./json5.ts";
import { utf8Length } from "../util/utf8.ts";
import { schemaEntry } from "./schema.ts";
import {
  type NamedMaps,
  PRE_PASS_AGGREGATES,
  type PrePassAggregate,
  type PrePassBlock,
  type QuoteStyle,
  type RowRule,
  type TemplateConfig,
} from "./types.ts";

/** Name of the synthetic block the legacy single-block pre_pass is stored under. */
export const LEGACY_PRE_PASS = "_default";

/** Why loading stopped (bxp's error names, used for the root marker). */
export type LoadAbort = "InvalidConfig" | "MissingOutputSchema";

/** A loaded template together with the JSON node it came from. */
export interface LoadedTemplate {
  config: TemplateConfig;
  node: JsonNode;
}

/** Outcome of {@link loadTemplates}. */
export interface LoadOutcome {
  maps: NamedMaps;
  templates: LoadedTemplate[];
  abort: LoadAbort | null;
}

class Abort extends Error {
  constructor(readonly reason: LoadAbort) {
    super(reason);
  }
}

const TEMPLATE_SCHEMA = "conversion_templates.*";

/** Template field defaults by key, read from the schema table once per key (every load asks for them). */
const DEFAULTS = new Map<string, string>();

function defaultOf(key: string): string {
  let value = DEFAULTS.get(key);
  if (value === undefined) {
    value = schemaEntry(`${TEMPLATE_SCHEMA}.${key}`)?.default ?? "";
    DEFAULTS.set(key, value);
  }
  return value;
}

/** Reads one template object, pushing findings into `diags`. */
class TemplateReader {
  constructor(
    readonly id: string,
    readonly node: JsonNode,
    readonly diags: Diagnostic[],
  ) {}

  get base(): string {
    return templatePath(this.id);
  }

  emit(severity: Diagnostic["severity"], code: string, suffix: string, message: string): void {
    this.diags.push({ severity, code, message, path: joinPath(this.base, suffix) });
  }

  hard(code: string, suffix: string, message: string, reason: LoadAbort = "InvalidConfig"): never {
    this.emit("error", code, suffix, message);
    throw new Abort(reason);
  }

  get(key: string): JsonNode | undefined {
    return getMember(this.node, key);
  }

  optString(key: string): string | undefined {
    const v = this.get(key);
    return v?.kind === "string" ? v.value : undefined;
  }

  bool(key: string): boolean {
    const v = this.get(key);
    const fallback = defaultOf(key) === "true";
    if (v === undefined) return fallback;
    if (v.kind === "bool") return v.value;
    this.emit(
      "warning",
      "config.wrong_type_silent",
      key,
      `${key} must be a boolean, got ${valueTagName(v)} — value ignored`,
    );
    return fallback;
  }

  singleChar(key: string): string {
    const v = this.get(key);
    const fallback = defaultOf(key);
    if (v === undefined) return fallback;
    if (v.kind === "string" && v.value.length === 1 && utf8Bytes(v.value) === 1) return v.value;
    if (v.kind === "string") {
      this.emit(
        "warning",
        "config.wrong_type_silent",
        key,
        `${key} must be a single character, got string of length ${utf8Bytes(v.value)} — value ignored`,
      );
    } else {
      this.emit(
        "warning",
        "config.wrong_type_silent",
        key,
        `${key} must be a single-character string, got ${valueTagName(v)} — value ignored`,
      );
    }
    return fallback;
  }

  quote(key: string): QuoteStyle {
    const v = this.get(key);
    const fallback = defaultOf(key) as QuoteStyle;
    if (v === undefined) return fallback;
    if (v.kind !== "string") {
      this.emit(
        "warning",
        "config.wrong_type_silent",
        key,
        `${key} must be a string ('none' | 'single' | 'double'), got ${valueTagName(v)} — value ignored`,
      );
      return fallback;
    }
    if (v.value === "none" || v.value === "single" || v.value === "double") return v.value;
    this.emit(
      "warning",
      "config.invalid_enum",
      key,
      `${key} must be 'none' | 'single' | 'double', got '${v.value}' — defaulting to none`,
    );
    return "none";
  }

  fileType(key: string): "csv" | "json" {
    const v = this.get(key);
    if (v === undefined) return "csv";
    if (v.kind !== "string") {
      this.emit(
        "warning",
        "config.wrong_type_silent",
        key,
        `${key} must be a string ('json' or 'csv'), got ${valueTagName(v)} — value ignored`,
      );
      return "csv";
    }
    if (v.value === "json" || v.value === "csv") return v.value;
    this.emit(
      "warning",
      "config.invalid_enum",
      key,
      `${key} must be 'json' or 'csv', got '${v.value}' — defaulting to 'csv'`,
    );
    return "csv";
  }

  plainString(key: string): string {
    const v = this.get(key);
    const fallback = defaultOf(key);
    if (v === undefined) return fallback;
    if (v.kind === "string") return v.value;
    this.emit(
      "warning",
      "config.wrong_type_silent",
      key,
      `${key} must be a string, got ${valueTagName(v)} — value ignored`,
    );
    return fallback;
  }

  headerLine(): number {
    const v = this.get("csv_header_line");
    if (v === undefined) return Number(defaultOf("csv_header_line"));
    if (v.kind === "number" && valueTagName(v) === "integer") {
      if (v.value < 0 || v.value > 0xffffffff) {
        this.hard(
          "config.invalid_value",
          "csv_header_line",
          `csv_header_line must be between 0 and ${0xffffffff}, got ${v.raw}`,
        );
      }
      return v.value;
    }
    this.hard(
      "config.wrong_type",
      "csv_header_line",
      `csv_header_line must be a number, got ${valueTagName(v)}`,
    );
  }

  xlsxSheet(): TemplateConfig["xlsxSheet"] {
    const v = this.get("xlsx_sheet");
    if (v === undefined) return null;
    if (v.kind !== "object") {
      this.hard("config.wrong_type", "xlsx_sheet", `xlsx_sheet must be an object, got ${valueTagName(v)}`);
    }
    const name = getMember(v, "name");
    if (name === undefined) {
      this.hard("config.missing_field", "xlsx_sheet", "xlsx_sheet missing required key 'name'");
    }
    if (name.kind !== "string") {
      this.hard(
        "config.wrong_type",
        "xlsx_sheet.name",
        `xlsx_sheet.name must be a string, got ${valueTagName(name)}`,
      );
    }
    const row = getMember(v, "header_row");
    if (row === undefined) {
      this.hard("config.missing_field", "xlsx_sheet", "xlsx_sheet missing required key 'header_row'");
    }
    if (row.kind !== "number" || valueTagName(row) !== "integer" || row.value < 0 || row.value > 0xffffffff) {
      this.hard(
        "config.wrong_type",
        "xlsx_sheet.header_row",
        `xlsx_sheet.header_row must be a number, got ${valueTagName(row)}`,
      );
    }
    const suffix = getMember(v, "output_suffix");
    if (suffix === undefined) {
      this.hard("config.missing_field", "xlsx_sheet", "xlsx_sheet missing required key 'output_suffix'");
    }
    if (suffix.kind !== "string") {
      this.hard(
        "config.wrong_type",
        "xlsx_sheet.output_suffix",
        `xlsx_sheet.output_suffix must be a string, got ${valueTagName(suffix)}`,
      );
    }
    return { name: name.value, headerRow: row.value, outputSuffix: suffix.value };
  }

  zipInput(): TemplateConfig["zipInput"] {
    const v = this.get("zip_input");
    if (v === undefined) return null;
    if (v.kind !== "object") {
      this.hard("config.wrong_type", "zip_input", `zip_input must be an object, got ${valueTagName(v)}`);
    }
    const sub = new TemplateReader(this.id, v, this.diags);
    const prefix = (k: string) => `zip_input.${k}`;
    const str = (k: string): string => {
      const node = getMember(v, k);
      const fallback = schemaEntry(`${TEMPLATE_SCHEMA}.zip_input.${k}`)?.default ?? "";
      if (node === undefined) return fallback;
      if (node.kind === "string") return node.value;
      sub.emit(
        "warning",
        "config.wrong_type_silent",
        prefix(k),
        `zip_input.${k} must be a string, got ${valueTagName(node)} — value ignored`,
      );
      return fallback;
    };
    let dirMode = str("dir_mode");
    if (dirMode !== "basename" && dirMode !== "keep_path") {
      sub.emit(
        "warning",
        "config.invalid_enum",
        prefix("dir_mode"),
        `zip_input.dir_mode must be 'basename' | 'keep_path', got '${dirMode}' — defaulting to 'basename'`,
      );
      dirMode = "basename";
    }
    return {
      entryPattern: str("entry_pattern"),
      dirMode: dirMode as "basename" | "keep_path",
      pathSeparator: str("path_separator"),
    };
  }

  /** `$var -> expression` style object: string values kept in order, others reported and skipped. */
  stringPairs(key: string, node: JsonNode | undefined, suffix: string): [string, string][] {
    const out: [string, string][] = [];
    if (node === undefined) return out;
    if (node.kind !== "object") {
      this.emit(
        "warning",
        "config.wrong_type_silent",
        suffix,
        `${key} must be an object, got ${valueTagName(node)} — value ignored`,
      );
      return out;
    }
    for (const e of node.entries) {
      if (e.value.kind === "string") {
        out.push([e.key, e.value.value]);
      } else {
        this.emit(
          "warning",
          "config.wrong_type_silent",
          joinPath(suffix, e.key),
          `${key}.${e.key} must be a string, got ${valueTagName(e.value)} — entry ignored`,
        );
      }
    }
    return out;
  }

  rowRules(): RowRule[] | null {
    const v = this.get("row_rules");
    if (v === undefined) return null;
    if (v.kind !== "array") {
      this.emit(
        "warning",
        "config.wrong_type_silent",
        "row_rules",
        `row_rules must be an array, got ${valueTagName(v)} — value ignored`,
      );
      return null;
    }
    const rules: RowRule[] = [];
    v.items.forEach((rule, i) => {
      if (rule.kind !== "object") {
        this.emit(
          "warning",
          "config.wrong_type_silent",
          `row_rules.${i}`,
          `row_rules.${i} must be an object, got ${valueTagName(rule)} — entry ignored`,
        );
        return;
      }
      const when = getMember(rule, "when");
      const rows = getMember(rule, "rows");
      const outRows: [string, string][][] = [];
      if (rows?.kind === "array") {
        rows.items.forEach((row, j) => {
          if (row.kind !== "object") {
            this.emit(
              "warning",
              "config.wrong_type_silent",
              `row_rules.${i}.rows.${j}`,
              `row_rules.${i}.rows.${j} must be an object, got ${valueTagName(row)} — entry ignored`,
            );
            return;
          }
          outRows.push(this.stringPairs(`row_rules.${i}.rows.${j}`, row, `row_rules.${i}.rows.${j}`));
        });
      }
      rules.push({ when: when?.kind === "string" ? when.value : "", rows: outRows });
    });
    return rules;
  }

  prePass(): PrePassBlock[] {
    const v = this.get("pre_pass");
    if (v === undefined || v.kind !== "object") return [];
    const block = (name: string, node: JsonNode): PrePassBlock => {
      const when = getMember(node, "when");
      const key = getMember(node, "key");
      const values = getMember(node, "values");
      const pairs: [string, string][] = [];
      if (values?.kind === "object") {
        for (const e of values.entries) if (e.value.kind === "string") pairs.push([e.key, e.value.value]);
      }
      const where = name === LEGACY_PRE_PASS ? "pre_pass.aggregate" : `pre_pass.${name}.aggregate`;
      const aggregate = getMember(node, "aggregate");
      return {
        name,
        when: when?.kind === "string" ? when.value : "",
        key: key?.kind === "string" ? key.value : "",
        values: pairs,
        // Only when written: a bxp config's model stays bxp's shape.
        ...(aggregate === undefined ? {} : { aggregate: this.aggregate(aggregate, where) }),
      };
    };
    if (getMember(v, "when") !== undefined) return [block(LEGACY_PRE_PASS, v)];
    const blocks: PrePassBlock[] = [];
    for (const e of v.entries) {
      if (e.key === "" || e.key.includes("\0")) {
        this.hard(
          "config.invalid_pre_pass_name",
          "pre_pass",
          "pre_pass name must be non-empty and free of NUL bytes",
        );
      }
      if (e.value.kind !== "object") continue;
      blocks.push(block(e.key, e.value));
    }
    return blocks;
  }

  /**
   * A block's `aggregate` (field -> how). Not bxp's: a value it cannot use is an error, not a silent
   * fallback, since a misspelt `sum` would quietly keep the last record's value.
   */
  aggregate(node: JsonNode, where: string): [string, PrePassAggregate][] {
    const out: [string, PrePassAggregate][] = [];
    if (node.kind !== "object") {
      this.emit("error", "config.wrong_type", where, `${where} must be an object, got ${valueTagName(node)}`);
      return out;
    }
    const words = PRE_PASS_AGGREGATES.join(" | ");
    for (const e of node.entries) {
      const v = e.value;
      if (v.kind === "string" && (PRE_PASS_AGGREGATES as readonly string[]).includes(v.value)) {
        out.push([e.key, v.value as PrePassAggregate]);
      } else {
        this.emit(
          "error",
          "config.invalid_aggregate",
          joinPath(where, e.key),
          `${where}.${e.key} must be ${words}, got ${v.kind === "string" ? `'${v.value}'` : valueTagName(v)}`,
        );
      }
    }
    return out;
  }

  /**
   * `data_dir`: one folder (bxp), or a list of folders (ours). A value of another type reads as "." as in
   * bxp; a list item that is not a string is an error (bxp has no lists to be lenient about).
   */
  dataDirs(): string[] {
    const v = this.get("data_dir");
    if (v?.kind === "string") return [v.value];
    if (v?.kind !== "array") return ["."];
    if (v.items.length === 0) {
      this.emit("error", "config.empty_value", "data_dir", "data_dir must not be an empty list");
      return [];
    }
    return this.stringItems(v, "data_dir", "a folder");
  }

  /** The string items of the list at `key`; any other item is a `config.wrong_type` error naming it. */
  private stringItems(v: Extract<JsonNode, { kind: "array" }>, key: string, what: string): string[] {
    const out: string[] = [];
    v.items.forEach((item, i) => {
      if (item.kind === "string") out.push(item.value);
      else {
        this.emit(
          "error",
          "config.wrong_type",
          `${key}.${i}`,
          `${key}.${i} must be ${what} (a string), got ${valueTagName(item)}`,
        );
      }
    });
    return out;
  }

  /** `fill_down`: column names. Not bxp's, so a value it cannot use is an error, never silently ignored. */
  fillDown(): string[] {
    const v = this.get("fill_down");
    if (v === undefined) return [];
    if (v.kind !== "array") {
      this.emit(
        "error",
        "config.wrong_type",
        "fill_down",
        `fill_down must be an array of column names, got ${valueTagName(v)}`,
      );
      return [];
    }
    return this.stringItems(v, "fill_down", "a column name");
  }

  read(): TemplateConfig {
    const isObject = this.node.kind === "object";
    const dataDirs = isObject ? this.dataDirs() : ["."];
    const dataDir = dataDirs[0] ?? ".";
    const filePatternIn = isObject ? this.optString("file_pattern_in") ?? "" : "";
    const filePatternOut = isObject ? this.optString("file_pattern_out") ?? "" : "";
    const base: TemplateConfig = {
      id: this.id,
      description: null,
      dataDir,
      dataDirs,
      fileTypeIn: "csv",
      fileTypeOut: "csv",
      filePatternIn,
      filePatternOut,
      csvHeaderLine: 1,
      csvDelimiterIn: ",",
      csvDelimiterOut: ",",
      csvDecimalSeparatorIn: ".",
      csvDecimalSeparatorOut: ".",
      csvTextQuoteIn: "double",
      csvTextQuoteOut: "none",
      csvInputEncoding: "utf-8",
      csvOutputEncoding: "utf-8",
      maps: new Map(),
      dateFilterFromFilename: false,
      combinedOutput: false,
      rowRulesDebugMissing: false,
      xlsxSheet: null,
      zipInput: null,
      prePass: [],
      inputSchema: [],
      rowRules: null,
      outputSchema: [],
      fillDown: [],
    };
    if (!isObject) {
      this.hard("config.missing_field", "output_schema", "output_schema is required", "MissingOutputSchema");
    }
    // Same reading order as bxp's loader, so findings come out in the same sequence.
    base.xlsxSheet = this.xlsxSheet();
    base.dateFilterFromFilename = this.bool("date_filter_from_filename");
    base.combinedOutput = this.bool("combined_output");
    base.maps = readMaps(this.get("maps"), joinPath(this.base, "maps"), this.diags);
    base.inputSchema = this.stringPairs("input_schema", this.get("input_schema"), "input_schema");
    base.rowRulesDebugMissing = this.bool("row_rules_debug_missing");
    base.rowRules = this.rowRules();
    const output = this.get("output_schema");
    const hasOutput = output?.kind === "object";
    if (hasOutput) base.outputSchema = this.stringPairs("output_schema", output, "output_schema");
    base.prePass = this.prePass();
    base.csvHeaderLine = this.headerLine();
    base.csvDelimiterIn = this.singleChar("csv_delimiter_in");
    base.csvDelimiterOut = this.singleChar("csv_delimiter_out");
    base.csvDecimalSeparatorIn = this.singleChar("csv_decimal_separator_in");
    base.csvDecimalSeparatorOut = this.singleChar("csv_decimal_separator_out");
    base.csvTextQuoteIn = this.quote("csv_text_quote_in");
    base.csvTextQuoteOut = this.quote("csv_text_quote_out");
    base.fileTypeIn = this.fileType("file_type_in");
    base.fileTypeOut = this.fileType("file_type_out");
    base.csvInputEncoding = this.plainString("csv_input_encoding");
    base.csvOutputEncoding = this.plainString("csv_output_encoding");
    base.zipInput = this.zipInput();
    const description = this.get("description");
    base.description = description?.kind === "string" ? description.value : null;
    base.fillDown = this.fillDown();
    if (!hasOutput) {
      this.hard("config.missing_field", "output_schema", "output_schema is required", "MissingOutputSchema");
    }
    return base;
  }
}

function utf8Bytes(s: string): number {
  return utf8Length(s);
}

/**
 * Read a `maps` block (`{ name: { key: value } }`). A malformed block is a hard error: REMAP/REPLACE would
 * otherwise silently miss every key.
 */
function readMaps(node: JsonNode | undefined, path: string, diags: Diagnostic[]): NamedMaps {
  const maps: NamedMaps = new Map();
  if (node === undefined) return maps;
  const fail = (where: string, message: string): never => {
    diags.push({ severity: "error", code: "config.wrong_type", message, path: where });
    throw new Abort("InvalidConfig");
  };
  if (node.kind !== "object") fail(path, `maps must be an object, got ${valueTagName(node)}`);
  if (node.kind !== "object") return maps;
  for (const entry of node.entries) {
    const where = joinPath(path, entry.key);
    if (entry.value.kind !== "object") {
      fail(where, `maps entry '${entry.key}' must be an object, got ${valueTagName(entry.value)}`);
    }
    const map = new Map<string, string>();
    if (entry.value.kind === "object") {
      for (const kv of entry.value.entries) {
        if (kv.value.kind !== "string") {
          fail(
            joinPath(where, kv.key),
            `map '${entry.key}' value for '${kv.key}' must be a string, got ${valueTagName(kv.value)}`,
          );
        }
        if (kv.value.kind === "string") map.set(kv.key, kv.value.value);
      }
    }
    maps.set(entry.key, map);
  }
  return maps;
}

/**
 * Load the global maps and every template of a parsed config root. Stops at the first hard error, like
 * bxp's loader; templates read before it are kept in the outcome (their warnings are already reported).
 */
export function loadTemplates(root: JsonNode, diags: Diagnostic[]): LoadOutcome {
  const outcome: LoadOutcome = { maps: new Map(), templates: [], abort: null };
  if (root.kind !== "object") return outcome;
  try {
    outcome.maps = readMaps(getMember(root, "maps"), "maps", diags);
    const templates = getMember(root, "conversion_templates");
    if (templates?.kind !== "object") return outcome;
    for (const entry of templates.entries) {
      const reader = new TemplateReader(entry.key, entry.value, diags);
      outcome.templates.push({ config: reader.read(), node: entry.value });
    }
  } catch (err) {
    if (!(err instanceof Abort)) throw err;
    outcome.abort = err.reason;
  }
  return outcome;
}

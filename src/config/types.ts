/**
 * The typed config model the conversion engine runs on (defaults applied, declaration order kept).
 * `model.ts` re-exports these; they live here so the loader phases can share them without import cycles.
 * @module
 */

import type { Diagnostic } from "./diagnostic.ts";

/** Named maps: map name -> (key -> value), insertion order kept. */
export type NamedMaps = Map<string, Map<string, string>>;

/** A whole config: global maps and the templates in declaration order. */
export interface BxpConfig {
  maps: NamedMaps;
  templates: TemplateConfig[];
}

/** CSV quoting styles. */
export type QuoteStyle = "none" | "single" | "double";

/**
 * How a pre_pass value field combines the records that write one key: bxp's `last` (the later record wins),
 * `first` (the earliest one wins), `sum` (exact decimal sum; a non-number stops the file), `count` (records).
 */
export type PrePassAggregate = "last" | "first" | "sum" | "count";

/** The `aggregate` words, in the order the docs list them. */
export const PRE_PASS_AGGREGATES: readonly PrePassAggregate[] = ["last", "first", "sum", "count"];

/** One pre_pass block. The legacy single-block form is named `_default`. */
export interface PrePassBlock {
  name: string;
  when: string;
  key: string;
  values: [field: string, expr: string][];
  /** The block's `aggregate` entries as written (a field absent here, or no list, is combined by `last`). */
  aggregate?: [field: string, how: PrePassAggregate][];
}

/** One row rule: its condition and the override maps of the rows it emits. */
export interface RowRule {
  when: string;
  rows: [varName: string, expr: string][][];
}

/** One conversion template with every default applied. */
export interface TemplateConfig {
  id: string;
  description: string | null;
  /** `data_dir`, or the first folder of a `data_dir` list (where the combined output goes). */
  dataDir: string;
  /**
   * Every folder of `data_dir` in list order (not bxp's: bxp takes one string); `[dataDir]` for a string.
   * Inputs are taken folder by folder, each folder's in bxp's name order, and written beside their inputs.
   */
  dataDirs: string[];
  fileTypeIn: "csv" | "json";
  fileTypeOut: "csv" | "json";
  filePatternIn: string;
  filePatternOut: string;
  csvHeaderLine: number;
  csvDelimiterIn: string;
  csvDelimiterOut: string;
  csvDecimalSeparatorIn: string;
  csvDecimalSeparatorOut: string;
  csvTextQuoteIn: QuoteStyle;
  csvTextQuoteOut: QuoteStyle;
  csvInputEncoding: string;
  csvOutputEncoding: string;
  /** Template-local maps only; the engine lays them over the global maps. */
  maps: NamedMaps;
  dateFilterFromFilename: boolean;
  combinedOutput: boolean;
  rowRulesDebugMissing: boolean;
  xlsxSheet: { name: string; headerRow: number; outputSuffix: string } | null;
  zipInput: { entryPattern: string; dirMode: "basename" | "keep_path"; pathSeparator: string } | null;
  prePass: PrePassBlock[];
  inputSchema: [varName: string, expr: string][];
  /** null when the `row_rules` key is absent. */
  rowRules: RowRule[] | null;
  outputSchema: [header: string, varName: string][];
  /**
   * `fill_down` (not bxp's): input columns whose blank cells take the same column's value in the previous
   * record of the file, before any expression reads the record. Empty: none.
   */
  fillDown: string[];
}

/** Result of `loadConfig`: `config` is null when any diagnostic is an error. */
export interface LoadResult {
  config: BxpConfig | null;
  diagnostics: Diagnostic[];
}

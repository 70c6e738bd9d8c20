/**
 * The evaluation context: everything an expression can read besides its own text.
 *
 * @example
 * ```ts
 * import { emptyContext } from "./context.ts";
 * import { compileExpression } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const ctx = { ...emptyContext(), columns: new Map([["Price", 0]]), fields: ["12.50"] };
 * assert.equal(compileExpression("[Price] * 2").evaluate(ctx), "25");
 * ```
 * @module
 */

/** pre_pass tables: block name -> key -> field -> value. */
export type LookupTables = Map<string, Map<string, Map<string, string>>>;

/** One traced function call (the `bxp_eval_trace` line shape). */
export interface CallTrace {
  /** Function name as written in the source. */
  fn: string;
  /** UTF-8 byte offset of the function name. */
  src_start: number;
  /** UTF-8 byte offset just past the closing `)`. */
  src_end: number;
  /** The call's result as text (numbers formatted, booleans `true`/`false`). */
  value: string;
}

/** What an expression can read while it is evaluated for one record. */
export interface EvalContext {
  /** Trimmed header name -> 0-based field index. */
  columns: ReadonlyMap<string, number>;
  /** Trimmed field values of the current record. */
  fields: readonly string[];
  /** `$name` -> current value (the key includes the `$`). */
  vars: ReadonlyMap<string, string>;
  /** Named maps for REMAP/REPLACE, insertion order kept. */
  maps: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** pre_pass tables; `null` -> LOOKUP returns "". */
  lookups: LookupTables | null;
  /** FILENAME(): input stem, "" when stateless. */
  filename: string;
  /** RECORD_NUM(): 1-based, 0 when stateless / pre_pass. */
  recordNum: number;
  /** SHEET_NAME(). */
  sheetName: string;
  /** csv_decimal_separator_in: `[Column]` values using it as decimal point are rewritten to `.`. */
  decimalSeparator: string;
  /** Receives one record per function call, inside-out; `null` disables tracing. */
  trace: ((rec: CallTrace) => void) | null;
  /** What `'''` evaluates to: the csv_text_quote_out character (`'`, `"`), "" for none (default). */
  quoteOut?: string;
}

/** A context with no row, no tables and default settings (stateless evaluation). */
export function emptyContext(): EvalContext {
  return {
    columns: new Map(),
    fields: [],
    vars: new Map(),
    maps: new Map(),
    lookups: null,
    filename: "",
    recordNum: 0,
    sheetName: "",
    decimalSeparator: ".",
    trace: null,
    quoteOut: "",
  };
}

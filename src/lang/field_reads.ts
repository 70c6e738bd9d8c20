/**
 * Which input fields an expression can read: the columns it names, whether it reads fields by position
 * (`FIELDS(n)`), and whether the whole expression is one column reference. The engine uses this to decode
 * only the fields some expression looks at, and to copy the bytes of a bare `[Column]` pass-through.
 *
 * @example
 * ```ts
 * import { fieldReads } from "./field_reads.ts";
 * import assert from "node:assert/strict";
 * assert.equal(fieldReads("[A] & FIELDS(2)").positional, true);
 * assert.equal(fieldReads("[Amount]").column, "Amount");
 * ```
 * @module
 */

import { type Node, walk } from "./ast.ts";
import { parseExpression } from "./parser.ts";
import { findFunction } from "./registry.ts";

/** What an expression reads from the record. */
export interface FieldReads {
  /** Column names of its `[Column]` references, in source order (repeats kept). */
  columns: string[];
  /**
   * True when it calls a function that reads the record by position rather than by name (the registry's
   * `needs: "fields"`, e.g. `FIELDS(n)`): then any field may be read, and every field must be decoded.
   */
  positional: boolean;
  /** The column name when the whole expression is one `[Column]`, else null. */
  column: string | null;
  /** True when it calls `RECORD_NUM()`, whose value depends on the record's position in the file. */
  recordNumber: boolean;
}

/** The fields `src` reads; throws `ExprError` when it does not parse. */
export function fieldReads(src: string): FieldReads {
  return readsOfTree(parseExpression(src));
}

/**
 * {@link fieldReads} of an expression already parsed (null: the empty expression), so a caller that
 * compiles it too parses it once.
 */
export function readsOfTree(ast: Node | null): FieldReads {
  const reads: FieldReads = { columns: [], positional: false, column: null, recordNumber: false };
  if (ast === null) return reads;
  if (ast.kind === "field") reads.column = ast.name;
  walk(ast, (n) => {
    if (n.kind === "field") reads.columns.push(n.name);
    else if (n.kind === "call") {
      // Unknown names never reach here (they do not compile), but reading them as positional keeps an
      // unlisted reader on the slow, every-field path rather than on one that hands it "".
      const spec = findFunction(n.upper);
      if (spec === undefined || spec.needs === "fields") reads.positional = true;
      if (n.upper === "RECORD_NUM") reads.recordNumber = true;
    }
  });
  return reads;
}

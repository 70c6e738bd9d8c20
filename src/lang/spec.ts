/**
 * Shapes of the function registry (see `registry.ts`).
 *
 * @module
 */

import type { EvalContext } from "./context.ts";
import type { Value } from "./value.ts";

/** `max_args` of a variadic function (bxp's docs convention). */
export const VARIADIC = 255;

/**
 * What an argument must be. Runtime effect: `number` -> `NotANumber` unless numeric;
 * `positive_integer` -> `NotANumber` unless numeric, and the whole call is "" when below 1;
 * `integer_in_range` -> clamped when numeric; `string` / `date_format` / `map_name` ->
 * `StringExpected` for a number or boolean (unless the arg is `lenient`).
 */
export type ArgKind =
  | "expr"
  | "string"
  | "literal_string"
  | "number"
  | "positive_integer"
  | "integer_in_range"
  | "date_format"
  | "pre_pass_name"
  | "map_name";

/** One declared argument. */
export interface ArgSpec {
  readonly name: string;
  readonly kind: ArgKind;
  /** Bounds of an `integer_in_range` argument. */
  readonly min?: number;
  readonly max?: number;
  /** A string-kind argument that accepts any value (the function answers instead of failing). */
  readonly lenient?: boolean;
}

/** A compiled argument, evaluated on demand by lazy functions. */
export type Evaluator = (ctx: EvalContext) => Value;

/** Implementation receiving evaluated arguments (already domain-checked). */
export type EagerImpl = (args: Value[], ctx: EvalContext) => Value;

/** Implementation that evaluates its own arguments (short-circuit). */
export type LazyImpl = (args: readonly Evaluator[], ctx: EvalContext) => Value;

/** Reference-page grouping. */
export type Category = "logic" | "text" | "pattern" | "lookup" | "numbers" | "dates" | "row";

/** One built-in function: documentation, arity, argument domains and implementation. */
export interface FunctionSpec {
  readonly name: string;
  readonly category: Category;
  readonly signature: string;
  readonly description: string;
  /** A runnable example... */
  readonly example: string;
  /** ...and what it evaluates to statelessly (a pattern for NOW/RAND). */
  readonly exampleResult: string | RegExp;
  readonly args: readonly ArgSpec[];
  readonly minArgs: number;
  /** `VARIADIC` (255) for no upper bound. */
  readonly maxArgs: number;
  /** `odd-or-two`: 2 arguments (named map) or an odd count (value + pairs). */
  readonly parity?: "odd-or-two";
  /** Value changes between rows without any column reference (NOW, RAND, FIELDS, ...). */
  readonly rowVarying: boolean;
  /**
   * Its text result is written exactly as it is, not in the shortest numeric form (`FORMAT_NUMBER`): the
   * implementation marks it with `asWritten` (see `as_written.ts`), and calls to it are never folded.
   */
  readonly writtenAsIs?: boolean;
  /** Context the function needs beyond its arguments. */
  readonly needs: "none" | "fields" | "source" | "prepass";
  readonly eager?: EagerImpl;
  readonly lazy?: LazyImpl;
  /**
   * Optional per-call-site specialisation of `eager`: given the arguments known when the expression is
   * compiled (`undefined` for those that depend on the record), an implementation to use at that site
   * instead, or `undefined` for none. It must answer exactly as `eager` does for the same arguments
   * (argument checks still run before it).
   */
  readonly specialize?: (constants: readonly (Value | undefined)[]) => EagerImpl | undefined;
}

/**
 * Static checks (no row needed) and structural facts about an expression, for config validation.
 *
 * @example
 * ```ts
 * import { expressionFacts, staticProblems } from "./check.ts";
 * import assert from "node:assert/strict";
 * assert.equal(staticProblems("SPLIT_PART([A], '/', 0)")[0].error, "SplitPartBadIndex");
 * assert.equal(expressionFacts("LOOKUP('fx', [Ccy], 'rate')").calls[0].args[0].literal, "fx");
 * ```
 * @module
 */

import { type CallNode, type Node, walk } from "./ast.ts";
import { resolveCall } from "./compile.ts";
import { checkDateFormat } from "./datetime/mod.ts";
import { OVERFLOW, parseDecimal, SCALE } from "./decimal.ts";
import { ExprError } from "./errors.ts";
import { regexProblem } from "./functions/pattern.ts";
import { parseExpression } from "./parser.ts";
import { findFunction } from "./registry.ts";

/** One argument of a call, as written. */
export interface ArgFact {
  /** UTF-8 byte span of the argument expression. */
  off: number;
  len: number;
  /** Unquoted text when the argument is a single string literal. */
  literal?: string;
  /** Text when the argument is a single number literal (e.g. "-1"). */
  number?: string;
}

/** One function call. `name` is as written (compare case-insensitively). */
export interface CallFact {
  name: string;
  off: number;
  len: number;
  args: ArgFact[];
}

/** A `[Column]` reference. */
export interface RefFact {
  name: string;
  off: number;
  len: number;
}

/** Everything the config validator needs to know about an expression's references. */
export interface ExpressionFacts {
  calls: CallFact[];
  fieldRefs: RefFact[];
  /** The syntax error, when the expression does not parse (the lists are then empty). */
  error: ExprError | null;
}

/** Calls and column references of `src`, in source order (expressions have no variable references). */
export function expressionFacts(src: string): ExpressionFacts {
  const facts: ExpressionFacts = { calls: [], fieldRefs: [], error: null };
  let ast: Node | null;
  try {
    ast = parseExpression(src);
  } catch (e) {
    if (e instanceof ExprError) {
      facts.error = e;
      return facts;
    }
    throw e;
  }
  if (ast === null) return facts;
  walk(ast, (n) => {
    if (n.kind === "field") facts.fieldRefs.push({ name: n.name, off: n.off, len: n.len });
    else if (n.kind === "call") {
      facts.calls.push({
        name: n.name,
        off: n.off,
        len: n.len,
        args: n.args.map((a) => {
          const arg: ArgFact = { off: a.off, len: a.len };
          if (a.kind === "string") arg.literal = a.value;
          if (a.kind === "number") arg.number = a.text;
          return arg;
        }),
      });
    }
  });
  const bySpan = (a: { off: number }, b: { off: number }) => a.off - b.off;
  facts.calls.sort(bySpan);
  facts.fieldRefs.sort(bySpan);
  return facts;
}

/**
 * Every problem found without evaluating: syntax, unknown functions (with `suggest`), argument
 * counts, literal indexes below 1 or past a 64-bit integer (`SplitPartBadIndex`), date formats with unknown letters
 * (`DateFormatBadToken`), invalid regex literals (`BadRegexPattern`), number or boolean literals
 * where text is required (`StringExpected`), and out-of-range / malformed number literals.
 * Sorted by position; a syntax error is reported alone.
 */
export function staticProblems(src: string): ExprError[] {
  let ast: Node | null;
  try {
    ast = parseExpression(src);
  } catch (e) {
    if (e instanceof ExprError) return [e];
    throw e;
  }
  if (ast === null) return [];
  const problems: ExprError[] = [];
  walk(ast, (n) => {
    if (n.kind === "number") checkNumberLiteral(n.text, n.off, n.len, problems);
    if (n.kind === "call") checkCall(n, problems);
  });
  problems.sort((a, b) => a.off - b.off);
  return problems;
}

/** The first static problem of `src`, or `null`. */
export function staticCheck(src: string): ExprError | null {
  return staticProblems(src)[0] ?? null;
}

/** Largest index bxp accepts (a 64-bit `usize`), and the signed 64-bit range it prints literals in. */
const MAX_INDEX = 2n ** 64n - 1n;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

function checkNumberLiteral(text: string, off: number, len: number, out: ExprError[]): void {
  const parsed = parseDecimal(text);
  if (parsed === OVERFLOW) {
    out.push(new ExprError("NumberOutOfRange", `number literal out of range: ${text}`, off, len));
  } else if (typeof parsed !== "bigint") {
    out.push(new ExprError("MalformedNumber", `malformed number literal: "${text}"`, off, len));
  }
}

function checkCall(call: CallNode, out: ExprError[]): void {
  try {
    resolveCall(call);
  } catch (e) {
    if (e instanceof ExprError) {
      out.push(e);
      return;
    }
    throw e;
  }
  const spec = findFunction(call.upper)!;
  spec.args.forEach((a, i) => {
    const arg = call.args[i];
    if (arg === undefined) return;
    if (a.kind === "positive_integer" && arg.kind === "number") {
      const parsed = parseDecimal(arg.text);
      const whole = typeof parsed === "bigint" ? parsed / SCALE : null;
      // As bxp's runtime index guard: below 1, or past a 64-bit index, the call is always "".
      if (whole === null || whole < 1n || whole > MAX_INDEX) {
        // bxp prints the literal when it fits a 64-bit signed integer, else 0.
        const shown = whole !== null && whole >= I64_MIN && whole <= I64_MAX ? whole.toString() : "0";
        out.push(
          new ExprError(
            "SplitPartBadIndex",
            `index argument is 1-based; literal ${shown} always returns ""`,
            arg.off,
            arg.len,
          ),
        );
      }
    }
    if (a.kind === "date_format" && arg.kind === "string") {
      const bad = checkDateFormat(arg.value);
      if (bad !== null) {
        out.push(
          new ExprError(
            "DateFormatBadToken",
            `${spec.name} format '${arg.value}' has unrecognized letter '${bad.letter}' at offset ${bad.offset}` +
              ` — wrap any literal letters in brackets, e.g. '[T]'`,
            arg.off,
            arg.len,
          ),
        );
      }
    }
    const needsText = a.kind === "string" || a.kind === "date_format" || a.kind === "map_name";
    if (needsText && a.lenient !== true && (arg.kind === "number" || arg.kind === "boolean")) {
      out.push(new ExprError("StringExpected", `${spec.name}: ${a.name} must be text`, arg.off, arg.len));
    }
  });
  if (spec.name === "REGEX_MATCH" || spec.name === "REGEX_EXTRACT") {
    const pattern = call.args[1];
    if (pattern?.kind === "string") {
      const why = regexProblem(pattern.value);
      if (why !== null) out.push(new ExprError("BadRegexPattern", why, pattern.off, pattern.len));
    }
  }
}

/**
 * Compile an expression once into closures, then evaluate it for many records.
 *
 * @example
 * ```ts
 * import { compileExpression } from "./compile.ts";
 * import { emptyContext } from "./context.ts";
 * const total = compileExpression("[Qty] * [Price]");
 * const ctx = { ...emptyContext(), columns: new Map([["Qty", 0], ["Price", 1]]), fields: ["3", "1.10"] };
 * total.evaluate(ctx); // "3.3"
 * ```
 * @module
 */

import type { CallNode, ChainNode, Node } from "./ast.ts";
import type { EvalContext } from "./context.ts";
import {
  addDecimal,
  divDecimal,
  fromInt,
  mulDecimal,
  negDecimal,
  OVERFLOW,
  parseDecimal,
  subDecimal,
  truncToInt,
} from "./decimal.ts";
import { ExprError } from "./errors.ts";
import { parseExpression } from "./parser.ts";
import { arityText, findFunction, FUNCTION_NAMES } from "./registry.ts";
import type { Evaluator, FunctionSpec } from "./spec.ts";
import { VARIADIC } from "./spec.ts";
import { suggestName } from "./suggest.ts";
import {
  canonicalNumericString,
  normalizeDecimalSeparator,
  toBool,
  toNumber,
  tryToNumber,
  type Value,
  valuesEqual,
  valueToString,
} from "./value.ts";

/** A compiled expression: parse once, evaluate per record. */
export interface CompiledExpr {
  /** The expression text it was compiled from. */
  readonly source: string;
  /**
   * The result as output text. Text results that look numeric are tidied without rounding
   * (`1000.00` -> `1000`, `1.5E3` -> `1500`, `007` kept).
   * @throws ExprError for data errors (`NotANumber`, `InvalidDate`, ...), pinned to a byte span.
   */
  evaluate(ctx: EvalContext): string;
  /** The raw typed result (text, decimal or boolean). */
  evaluateValue(ctx: EvalContext): Value;
  /** Truthiness of the typed result, as row_rules `when` uses it: "" / 0 / false are false; "0" text is true. */
  evaluateBool(ctx: EvalContext): boolean;
}

/**
 * Compile `src`.
 *
 * @throws ExprError for syntax errors, unknown functions (with a `suggest`ion) and wrong argument counts.
 */
export function compileExpression(src: string): CompiledExpr {
  const ast = parseExpression(src);
  const root: Evaluator = ast === null ? () => "" : build(ast);
  return {
    source: src,
    evaluate(ctx: EvalContext): string {
      const v = root(ctx);
      return typeof v === "string" ? canonicalNumericString(v) : valueToString(v);
    },
    evaluateValue: root,
    evaluateBool(ctx: EvalContext): boolean {
      return toBool(root(ctx));
    },
  };
}

/** Give an unpinned error the span of `node`, adding the column name when known. */
function pin(e: unknown, off: number, len: number, field?: string): unknown {
  if (e instanceof ExprError && e.len === 0) {
    e.off = off;
    e.len = len;
    if (field !== undefined && !e.detail.includes("(in [")) {
      e.detail = `${e.detail} (in [${field}])`;
      e.message = `${e.error}: ${e.detail}`;
    }
  }
  return e;
}

function numberOf(v: Value, node: Node): bigint {
  if (typeof v === "bigint") return v;
  try {
    return toNumber(v);
  } catch (e) {
    throw pin(e, node.off, node.len, node.kind === "field" ? node.name : undefined);
  }
}

function overflow(node: Node): ExprError {
  return new ExprError(
    "NumberOverflow",
    "result is outside the numeric range (about ±1.7e26)",
    node.off,
    node.len,
  );
}

/** Checks that hold for a call regardless of the row: known function, argument count, pairing. */
export function resolveCall(node: CallNode): FunctionSpec {
  const spec = findFunction(node.upper);
  if (spec === undefined) {
    const hint = suggestName(node.name, FUNCTION_NAMES);
    const err = new ExprError(
      "UnknownFunction",
      `unknown function '${node.name}'${hint ? ` — did you mean '${hint}'?` : ""}`,
      node.nameOff,
      node.nameLen,
    );
    if (hint) err.suggest = hint;
    throw err;
  }
  const n = node.args.length;
  if (n < spec.minArgs || (spec.maxArgs !== VARIADIC && n > spec.maxArgs)) {
    throw new ExprError(
      "WrongArgCount",
      `${spec.name} takes ${arityText(spec)} argument${spec.maxArgs === 1 ? "" : "s"}, got ${n}`,
      node.off,
      node.len,
    );
  }
  if (spec.parity === "odd-or-two" && n !== 2 && n % 2 === 0) {
    throw new ExprError(
      "WrongArgCount",
      `${spec.name} takes a map name or complete pairs after the value, got ${n} arguments`,
      node.off,
      node.len,
    );
  }
  return spec;
}

function build(node: Node): Evaluator {
  switch (node.kind) {
    case "string": {
      const v = node.value;
      return () => v;
    }
    case "quote":
      return (ctx) => ctx.quoteOut ?? "";
    case "boolean": {
      const v = node.value;
      return () => v;
    }
    case "number":
      return buildNumber(node.text, node);
    case "field":
      return buildField(node.name);
    case "var": {
      const name = node.name;
      return (ctx) => ctx.vars.get(name) ?? "";
    }
    case "negate": {
      const operand = build(node.operand);
      const count = node.count;
      const inner = node.operand;
      return (ctx) => {
        let v: Value = operand(ctx);
        for (let i = 0; i < count; i++) {
          const r = negDecimal(numberOf(v, inner));
          if (r === OVERFLOW) throw overflow(node);
          v = r;
        }
        return v;
      };
    }
    case "not": {
      const operand = build(node.operand);
      const flip = node.count % 2 === 1;
      return (ctx) => flip ? !toBool(operand(ctx)) : toBool(operand(ctx));
    }
    case "chain":
      return buildChain(node);
    case "call":
      return buildCall(node);
  }
}

function buildNumber(text: string, node: Node): Evaluator {
  const parsed = parseDecimal(text);
  if (typeof parsed === "bigint") return () => parsed;
  if (parsed === OVERFLOW) {
    // Raised when evaluated (a data error IFERROR can catch), as bxp does.
    return () => {
      throw new ExprError("NumberOutOfRange", `number literal out of range: ${text}`, node.off, node.len);
    };
  }
  throw new ExprError("MalformedNumber", `malformed number literal: "${text}"`, node.off, node.len);
}

function buildField(name: string): Evaluator {
  // One compiled expression serves many files; re-resolve the index only when the header map changes.
  let columns: ReadonlyMap<string, number> | null = null;
  let index = -1;
  return (ctx) => {
    if (ctx.columns !== columns) {
      columns = ctx.columns;
      index = columns.get(name) ?? -1;
    }
    if (index < 0) return "";
    const raw = ctx.fields[index] ?? "";
    return ctx.decimalSeparator === "." ? raw : normalizeDecimalSeparator(raw, ctx.decimalSeparator);
  };
}

function buildChain(node: ChainNode): Evaluator {
  const evals = node.operands.map(build);
  const operands = node.operands;
  const ops = node.ops;
  const count = ops.length;
  switch (node.level) {
    case "or":
      return (ctx) => {
        let acc = toBool(evals[0](ctx));
        for (let i = 1; i <= count; i++) acc = toBool(evals[i](ctx)) || acc; // both sides always evaluated
        return acc;
      };
    case "and":
      return (ctx) => {
        let acc = toBool(evals[0](ctx));
        for (let i = 1; i <= count; i++) acc = toBool(evals[i](ctx)) && acc;
        return acc;
      };
    case "cat":
      return (ctx) => {
        let out = valueToString(evals[0](ctx));
        for (let i = 1; i <= count; i++) out += valueToString(evals[i](ctx));
        return out;
      };
    case "cmp":
      return (ctx) => {
        let left = evals[0](ctx);
        for (let i = 0; i < count; i++) {
          const right = evals[i + 1](ctx);
          left = compare(ops[i], left, right, node, i);
        }
        return left;
      };
    case "add":
    case "mul":
      return (ctx) => {
        let left = evals[0](ctx);
        for (let i = 0; i < count; i++) {
          const right = evals[i + 1](ctx);
          const leftNode = i === 0 ? operands[0] : node;
          const l = numberOf(left, leftNode);
          const r = numberOf(right, operands[i + 1]);
          let result: bigint | null | typeof OVERFLOW;
          switch (ops[i]) {
            case "+":
              result = addDecimal(l, r);
              break;
            case "-":
              result = subDecimal(l, r);
              break;
            case "*":
              result = mulDecimal(l, r);
              break;
            default:
              result = divDecimal(l, r);
          }
          if (result === OVERFLOW) throw overflow(node);
          // Division by zero yields "" rather than an error (blank divisor fields are common).
          left = result === null ? "" : result;
        }
        return left;
      };
  }
}

function compare(op: string, left: Value, right: Value, node: ChainNode, i: number): boolean {
  const l = tryToNumber(left);
  const r = l === null ? null : tryToNumber(right);
  if (l !== null && r !== null) {
    switch (op) {
      case "=":
        return l === r;
      case "!=":
        return l !== r;
      case "<":
        return l < r;
      case ">":
        return l > r;
      case "<=":
        return l <= r;
      default:
        return l >= r;
    }
  }
  if (op === "=") return valuesEqual(left, right);
  if (op === "!=") return !valuesEqual(left, right);
  const operand = node.operands[i + 1];
  throw new ExprError(
    "StringComparisonUnsupported",
    `'${op}' needs numbers on both sides, got "${valueToString(left)}" and "${valueToString(right)}"`,
    node.off,
    operand.off + operand.len - node.off,
  );
}

const ONE = fromInt(1);

function buildCall(node: CallNode): Evaluator {
  const spec = resolveCall(node);
  const argEvals = node.args.map(build);
  const name = node.name;
  const srcStart = node.off;
  const srcEnd = node.off + node.len;
  const trace = (ctx: EvalContext, result: Value) => {
    ctx.trace!({ fn: name, src_start: srcStart, src_end: srcEnd, value: valueToString(result) });
  };
  if (spec.lazy !== undefined) {
    const lazy = spec.lazy;
    return (ctx) => {
      const result = lazy(argEvals, ctx);
      if (ctx.trace !== null) trace(ctx, result);
      return result;
    };
  }
  const impl = spec.eager!;
  const n = argEvals.length;
  const declared = spec.args;
  const checked = Math.min(n, declared.length);
  return (ctx) => {
    // A fresh array per call keeps re-entrant evaluation (e.g. from a trace callback) safe.
    const args: Value[] = new Array(n);
    for (let i = 0; i < n; i++) args[i] = argEvals[i](ctx);
    let result: Value;
    try {
      result = invoke(spec, impl, args, ctx, checked, declared);
    } catch (e) {
      throw pin(e, srcStart, node.len);
    }
    if (ctx.trace !== null) trace(ctx, result);
    return result;
  };
}

function notANumber(spec: FunctionSpec, argName: string, v: Value): ExprError {
  return new ExprError("NotANumber", `${spec.name}: ${argName} is not a number: "${valueToString(v)}"`);
}

/** Enforce argument domains (numbers first, then text), then run the implementation. */
function invoke(
  spec: FunctionSpec,
  impl: NonNullable<FunctionSpec["eager"]>,
  args: Value[],
  ctx: EvalContext,
  checked: number,
  declared: FunctionSpec["args"],
): Value {
  for (let i = 0; i < checked; i++) {
    const a = declared[i];
    switch (a.kind) {
      case "number":
        if (tryToNumber(args[i]) === null) throw notANumber(spec, a.name, args[i]);
        break;
      case "positive_integer": {
        const v = tryToNumber(args[i]);
        if (v === null) throw notANumber(spec, a.name, args[i]);
        if (v < ONE) return ""; // below 1 is never a valid position: the call is ""
        break;
      }
      case "integer_in_range": {
        const v = tryToNumber(args[i]);
        if (v !== null) {
          let t = truncToInt(v);
          if (t < BigInt(a.min!)) t = BigInt(a.min!);
          if (t > BigInt(a.max!)) t = BigInt(a.max!);
          args[i] = fromInt(t);
        }
        break;
      }
    }
  }
  for (let i = 0; i < checked; i++) {
    const a = declared[i];
    if (
      (a.kind === "string" || a.kind === "date_format" || a.kind === "map_name") && a.lenient !== true &&
      typeof args[i] !== "string"
    ) {
      const got = typeof args[i] === "bigint" ? "a number" : "a boolean";
      throw new ExprError("StringExpected", `${spec.name}: ${a.name} must be text, got ${got}`);
    }
  }
  return impl(args, ctx);
}

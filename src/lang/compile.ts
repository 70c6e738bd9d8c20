/**
 * Compile an expression once into closures, then evaluate it for many records.
 *
 * @example
 * ```ts
 * import { compileExpression } from "./compile.ts";
 * import { emptyContext } from "./context.ts";
 * import assert from "node:assert/strict";
 * const total = compileExpression("[Qty] * [Price]");
 * const ctx = { ...emptyContext(), columns: new Map([["Qty", 0], ["Price", 1]]), fields: ["3", "1.10"] };
 * assert.equal(total.evaluate(ctx), "3.3");
 * ```
 * @module
 */

import { type CallNode, type ChainNode, type Node, walk } from "./ast.ts";
import { emptyContext, type EvalContext } from "./context.ts";
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
import { charge, MAX_EVAL_WORK, MAX_VALUE_CHARS, meter, metered, resultTooLarge } from "./budget.ts";
import { ExprError } from "./errors.ts";
import { type FieldReads, readsOfTree } from "./field_reads.ts";
import { startEvaluation, writtenAsIs } from "./as_written.ts";
import { parseExpression } from "./parser.ts";
import { arityText, findFunction, FUNCTION_NAMES } from "./registry.ts";
import type { ArgSpec, EagerImpl, Evaluator, FunctionSpec } from "./spec.ts";
import { comparePlain, PlainDecimalReader } from "./plain_decimal.ts";
import { VARIADIC } from "./spec.ts";
import { suggestName } from "./suggest.ts";
import {
  canonicalNumericString,
  normalizeDecimalSeparator,
  numberFailure,
  toBool,
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
 * Compile `src`, with the fast paths: constant folding, allocation-free numeric comparisons, cheaper
 * call dispatch and per-call-site specialisations (e.g. DATE_CONVERT with literal formats).
 *
 * @throws ExprError for syntax errors, unknown functions (with a `suggest`ion) and wrong argument counts.
 */
export function compileExpression(src: string): CompiledExpr {
  return compileWith(src, true);
}

/**
 * Compile `src` without any fast path: the reference every fast path is tested against (same results,
 * same errors, same trace records). Not part of the public API.
 */
export function compileExpressionGeneral(src: string): CompiledExpr {
  return compileWith(src, false);
}

/**
 * {@link compileExpression} and the fields `src` reads ({@link fieldReads}), from one parse: the engine's
 * planner needs both of every expression, and a second parse was most of the garbage of planning a wide
 * template. `fast: false` compiles it as {@link compileExpressionGeneral} does (the engine's reference mode).
 *
 * @example
 * ```ts
 * import { compileWithReads } from "./compile.ts";
 * import assert from "node:assert/strict";
 * const { expr, reads } = compileWithReads("[Amount] * 2");
 * assert.deepEqual(reads.columns, ["Amount"]);
 * ```
 */
export function compileWithReads(src: string, fast = true): { expr: CompiledExpr; reads: FieldReads } {
  const ast = parseExpression(src);
  const reads = readsOfTree(ast); // taken before building: the builder may fold parts of the tree
  return { expr: compileTree(src, ast, fast), reads };
}

function compileWith(src: string, fast: boolean): CompiledExpr {
  return compileTree(src, parseExpression(src), fast);
}

function compileTree(src: string, ast: Node | null, fast: boolean): CompiledExpr {
  const tree: Evaluator = ast === null ? () => "" : new Builder(fast, ast).build(ast);
  // Each evaluation starts a fresh work account (see budget.ts). Evaluations do not nest, so a reset is
  // all it takes; `meter.used` then tells what the evaluation spent.
  return {
    source: src,
    evaluate(ctx: EvalContext): string {
      meter.used = 0;
      startEvaluation();
      const v = tree(ctx);
      if (typeof v !== "string") return valueToString(v);
      return writtenAsIs(v) ? v : canonicalNumericString(v);
    },
    evaluateValue(ctx: EvalContext): Value {
      meter.used = 0;
      startEvaluation();
      return tree(ctx);
    },
    evaluateBool(ctx: EvalContext): boolean {
      meter.used = 0;
      startEvaluation();
      return toBool(tree(ctx));
    },
  };
}

/**
 * Texts shorter than this are not charged: an evaluation has no loops, so the uncharged remainder is at
 * most this much per node of the expression (a few tens of millions of units for the longest source),
 * and the common short value costs one comparison.
 */
const CHARGE_FROM = 1024;

/** Account a call's text result: it must fit one value, and a long one is charged its length. */
function account(result: Value, off: number, len: number, name: string): void {
  if (typeof result === "string" && result.length >= CHARGE_FROM) {
    if (result.length > MAX_VALUE_CHARS) throw resultTooLarge(name, result.length, off, len);
    charge(result.length, off, len);
  }
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
  const n = tryToNumber(v);
  if (n !== null) return n;
  // One throw, already pinned: catching toNumber's error to pin and rethrow it threw twice per bad value.
  throw pin(numberFailure(v as string), node.off, node.len, node.kind === "field" ? node.name : undefined);
}

function overflow(node: Node): ExprError {
  return new ExprError(
    "NumberOverflow",
    "result is outside the numeric range (about ±1.7e26)",
    node.off,
    node.len,
  );
}

/** Infix keywords an author may call like functions (`AND(a, b)`; `NOT(x)` is the prefix operator). */
const INFIX_KEYWORDS = new Set(["AND", "OR"]);

/** Checks that hold for a call regardless of the row: known function, argument count, pairing. */
export function resolveCall(node: CallNode): FunctionSpec {
  const spec = findFunction(node.upper);
  if (spec === undefined && INFIX_KEYWORDS.has(node.upper)) {
    // The nearest function name (RAND for AND) would send the author the wrong way.
    throw new ExprError(
      "UnknownFunction",
      `'${node.name}' is an infix operator, not a function: write a ${node.upper} b (e.g. [A] = 1 ${node.upper} [B] = 2)`,
      node.nameOff,
      node.nameLen,
    );
  }
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

// Calls that read the context beyond their arguments (named maps, pre_pass tables): never folded.
const READS_CONTEXT = new Set(["REMAP", "REPLACE", "LOOKUP"]);
/** What folding evaluates constant sub-expressions against: they read nothing from it. */
const FOLD_CONTEXT = emptyContext();

/** AST -> closures. `fast` enables the fast paths; without it every node takes the general path. */
class Builder {
  /** Nodes whose value cannot depend on the record, the context or chance (fast builds only). */
  readonly #pure = new Set<Node>();
  /** Work spent evaluating constant sub-expressions while compiling (capped at one evaluation's). */
  #foldWork = 0;

  constructor(readonly fast: boolean, root: Node) {
    if (fast) this.#markPure(root);
  }

  build(node: Node): Evaluator {
    if (this.fast && this.#pure.has(node) && !isLiteral(node)) {
      const folded = this.#fold(node);
      if (folded !== null) return folded;
    }
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
        return buildField(node.name, node);
      case "negate": {
        const operand = this.build(node.operand);
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
        const operand = this.build(node.operand);
        const flip = node.count % 2 === 1;
        return (ctx) => flip ? !toBool(operand(ctx)) : toBool(operand(ctx));
      }
      case "chain":
        return this.#buildChain(node);
      case "call":
        return this.#buildCall(node);
    }
  }

  /** Post-order marking of pure nodes; a call that fails to resolve is left impure (build reports it). */
  #markPure(node: Node): boolean {
    let pure: boolean;
    switch (node.kind) {
      case "string":
      case "number":
      case "boolean":
        pure = true;
        break;
      case "quote":
      case "field":
        pure = false;
        break;
      case "negate":
      case "not":
        pure = this.#markPure(node.operand);
        break;
      case "chain":
        pure = this.#markAll(node.operands);
        break;
      case "call": {
        const argsPure = this.#markAll(node.args);
        let spec: FunctionSpec | undefined;
        try {
          spec = resolveCall(node);
        } catch {
          spec = undefined;
        }
        // A result written as it is (see as_written.ts) is marked when it is computed: never folded, so
        // neither is anything around it.
        pure = argsPure && spec !== undefined && spec.needs === "none" && !spec.rowVarying &&
          !READS_CONTEXT.has(spec.name) && spec.writtenAsIs !== true;
        break;
      }
    }
    if (pure) this.#pure.add(node);
    return pure;
  }

  #markAll(nodes: readonly Node[]): boolean {
    let all = true;
    for (const n of nodes) all = this.#markPure(n) && all; // every child is visited
    return all;
  }

  /**
   * The value of a pure sub-expression, computed once by the general path. Not folded when that
   * evaluation fails: the error must surface when (and only if) the expression is evaluated.
   * Folded calls still trace: with a trace sink the general evaluator runs as before.
   */
  #fold(node: Node): Evaluator | null {
    // Folding shares one work account per compilation, so nested folds that keep failing (each
    // retrying its subtree) cannot multiply the work: once it is spent, nothing more is folded.
    if (this.#foldWork >= MAX_EVAL_WORK) return null;
    const general = new Builder(false, node).build(node);
    let value: Value;
    try {
      value = this.#foldEval(general);
    } catch {
      return null;
    }
    if (!containsCall(node)) return () => value;
    return (ctx) => ctx.trace === null ? value : general(ctx);
  }

  /** Evaluate a constant sub-expression at compile time, on the compilation's fold account. */
  #foldEval(general: Evaluator): Value {
    const limit = MAX_EVAL_WORK - this.#foldWork;
    let spent = limit;
    try {
      const { value, work } = metered(limit, () => general(FOLD_CONTEXT));
      spent = work;
      return value;
    } finally {
      this.#foldWork += spent; // a failed fold counts as having spent what was left
    }
  }

  /** The value of `node` when it is known at compile time and evaluating it has no visible effect. */
  constantOf(node: Node): Value | undefined {
    if (!this.fast || !this.#pure.has(node) || containsCall(node)) return undefined;
    if (this.#foldWork >= MAX_EVAL_WORK) return undefined;
    try {
      return this.#foldEval(new Builder(false, node).build(node));
    } catch {
      return undefined;
    }
  }

  #buildChain(node: ChainNode): Evaluator {
    const evals = node.operands.map((n) => this.build(n));
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
          for (let i = 1; i <= count; i++) {
            const part = valueToString(evals[i](ctx));
            // Checked before joining: V8 joins lazily, but a joined text is later flattened whole.
            if (out.length + part.length > MAX_VALUE_CHARS) {
              throw resultTooLarge("'&'", out.length + part.length, node.off, node.len);
            }
            out += part;
          }
          if (out.length >= CHARGE_FROM) charge(out.length, node.off, node.len);
          return out;
        };
      case "cmp":
        if (this.fast && count === 1) return this.#buildComparison(node, evals[0], evals[1]);
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

  /**
   * `a op b`: when both sides are plain decimal text (the usual numeric field) or a constant number,
   * order them as exact doubles without building bigints; anything else takes `compare`.
   */
  #buildComparison(node: ChainNode, left: Evaluator, right: Evaluator): Evaluator {
    const op = node.ops[0];
    const outcome = OUTCOMES[op];
    const l = new PlainDecimalReader();
    const r = new PlainDecimalReader();
    if (this.#loadConstant(node.operands[1], r)) {
      const rInt = r.int;
      const rFrac = r.frac;
      return (ctx) => {
        const a = left(ctx);
        if (typeof a === "string" && l.read(a)) return outcome[comparePlain(l.int, l.frac, rInt, rFrac) + 1];
        return compare(op, a, right(ctx), node, 0);
      };
    }
    if (this.#loadConstant(node.operands[0], l)) {
      const lInt = l.int;
      const lFrac = l.frac;
      return (ctx) => {
        const a = left(ctx);
        const b = right(ctx);
        if (typeof b === "string" && r.read(b)) return outcome[comparePlain(lInt, lFrac, r.int, r.frac) + 1];
        return compare(op, a, b, node, 0);
      };
    }
    return (ctx) => {
      const a = left(ctx);
      const b = right(ctx);
      if (typeof a === "string" && typeof b === "string" && l.read(a) && r.read(b)) {
        return outcome[comparePlain(l.int, l.frac, r.int, r.frac) + 1];
      }
      return compare(op, a, b, node, 0);
    };
  }

  /** Load a constant numeric operand into `reader`; false when `node` is not one. */
  #loadConstant(node: Node, reader: PlainDecimalReader): boolean {
    const v = this.constantOf(node);
    if (typeof v === "bigint") return reader.load(v);
    if (typeof v === "string") return reader.read(v);
    return false;
  }

  #buildCall(node: CallNode): Evaluator {
    const spec = resolveCall(node);
    const argEvals = node.args.map((n) => this.build(n));
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
        account(result, srcStart, node.len, name);
        if (ctx.trace !== null) trace(ctx, result);
        return result;
      };
    }
    let impl = spec.eager!;
    const n = argEvals.length;
    const declared = spec.args;
    const checked = Math.min(n, declared.length);
    if (!this.fast) {
      return (ctx) => {
        // A fresh array per call keeps re-entrant evaluation (e.g. from a trace callback) safe.
        const args: Value[] = new Array(n);
        for (let i = 0; i < n; i++) args[i] = argEvals[i](ctx);
        const result = invoke(spec, impl, args, ctx, checked, declared, srcStart, node.len);
        account(result, srcStart, node.len, name);
        if (ctx.trace !== null) trace(ctx, result);
        return result;
      };
    }
    if (spec.specialize !== undefined) {
      impl = spec.specialize(node.args.map((a) => this.constantOf(a))) ?? impl;
    }
    const plan = checkPlan(spec, node.args, checked);
    return (ctx) => {
      const args: Value[] = new Array(n);
      for (let i = 0; i < n; i++) args[i] = argEvals[i](ctx);
      const result = plan === null
        ? callPinned(impl, args, ctx, srcStart, node.len)
        : invokePlanned(spec, impl, args, ctx, plan, srcStart, node.len);
      account(result, srcStart, node.len, name);
      if (ctx.trace !== null) trace(ctx, result);
      return result;
    };
  }
}

/** `[lt, eq, gt]` outcome of each comparison operator. */
const OUTCOMES: Readonly<Record<string, readonly boolean[]>> = {
  "=": [false, true, false],
  "!=": [true, false, true],
  "<": [true, false, false],
  ">": [false, false, true],
  "<=": [true, true, false],
  ">=": [false, true, true],
};

function isLiteral(node: Node): boolean {
  return node.kind === "string" || node.kind === "number" || node.kind === "boolean";
}

function containsCall(node: Node): boolean {
  let found = false;
  walk(node, (n) => {
    if (n.kind === "call") found = true;
  });
  return found;
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

function buildField(name: string, node: Node): Evaluator {
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
    // A long read costs its length: functions scan what they are given, so this bounds scanning work.
    if (raw.length >= CHARGE_FROM) charge(raw.length, node.off, node.len);
    return ctx.decimalSeparator === "." ? raw : normalizeDecimalSeparator(raw, ctx.decimalSeparator);
  };
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

function notANumber(spec: FunctionSpec, argName: string, v: Value, off: number, len: number): ExprError {
  return new ExprError(
    "NotANumber",
    `${spec.name}: ${argName} is not a number: "${valueToString(v)}"`,
    off,
    len,
  );
}

function textExpected(spec: FunctionSpec, argName: string, v: Value, off: number, len: number): ExprError {
  const got = typeof v === "bigint" ? "a number" : "a boolean";
  return new ExprError("StringExpected", `${spec.name}: ${argName} must be text, got ${got}`, off, len);
}

/**
 * Runs a call's implementation; an error it raises without a place gets the call's span (`off`, `len`).
 * Argument checks throw their errors already placed, outside this catch: a data error costs one throw, not
 * a throw, a catch and a rethrow.
 */
function callPinned(impl: EagerImpl, args: Value[], ctx: EvalContext, off: number, len: number): Value {
  try {
    return impl(args, ctx);
  } catch (e) {
    throw pin(e, off, len);
  }
}

/** Enforce argument domains (numbers first, then text), then run the implementation (at `off`, `len`). */
function invoke(
  spec: FunctionSpec,
  impl: NonNullable<FunctionSpec["eager"]>,
  args: Value[],
  ctx: EvalContext,
  checked: number,
  declared: FunctionSpec["args"],
  off: number,
  len: number,
): Value {
  for (let i = 0; i < checked; i++) {
    const a = declared[i];
    switch (a.kind) {
      case "number":
        if (tryToNumber(args[i]) === null) throw notANumber(spec, a.name, args[i], off, len);
        break;
      case "positive_integer": {
        const v = tryToNumber(args[i]);
        if (v === null) throw notANumber(spec, a.name, args[i], off, len);
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
      throw textExpected(spec, a.name, args[i], off, len);
    }
  }
  return callPinned(impl, args, ctx, off, len);
}

/** One argument-domain check of a call site, decided at compile time. */
interface ArgCheck {
  readonly index: number;
  readonly arg: ArgSpec;
  /** `integer_in_range` bounds as bigints, built once instead of per row. */
  readonly min: bigint;
  readonly max: bigint;
}

/** The checks `invoke` would run, in its order (numbers, then text); null when none can fail. */
interface CheckPlan {
  readonly numeric: readonly ArgCheck[];
  readonly text: readonly ArgCheck[];
}

/** Node kinds that always evaluate to text, so a text check on them cannot fail. */
function alwaysText(node: Node): boolean {
  return node.kind === "string" || node.kind === "field" || node.kind === "quote" ||
    (node.kind === "chain" && node.level === "cat");
}

function checkPlan(spec: FunctionSpec, args: readonly Node[], checked: number): CheckPlan | null {
  const numeric: ArgCheck[] = [];
  const text: ArgCheck[] = [];
  for (let i = 0; i < checked; i++) {
    const arg = spec.args[i];
    const check = { index: i, arg, min: BigInt(arg.min ?? 0), max: BigInt(arg.max ?? 0) };
    if (arg.kind === "number" || arg.kind === "positive_integer" || arg.kind === "integer_in_range") {
      numeric.push(check);
    } else if (
      (arg.kind === "string" || arg.kind === "date_format" || arg.kind === "map_name") &&
      arg.lenient !== true &&
      !alwaysText(args[i])
    ) {
      text.push(check);
    }
  }
  return numeric.length === 0 && text.length === 0 ? null : { numeric, text };
}

/** `invoke` with the checks decided at compile time (same checks, same order, same errors). */
function invokePlanned(
  spec: FunctionSpec,
  impl: EagerImpl,
  args: Value[],
  ctx: EvalContext,
  plan: CheckPlan,
  off: number,
  len: number,
): Value {
  for (const { index: i, arg: a, min, max } of plan.numeric) {
    const v = tryToNumber(args[i]);
    if (a.kind === "integer_in_range") {
      if (v !== null) {
        let t = truncToInt(v);
        if (t < min) t = min;
        if (t > max) t = max;
        args[i] = fromInt(t);
      }
    } else {
      if (v === null) throw notANumber(spec, a.name, args[i], off, len);
      if (a.kind === "positive_integer" && v < ONE) return ""; // never a valid position: the call is ""
    }
  }
  for (const { index: i, arg: a } of plan.text) {
    if (typeof args[i] !== "string") throw textExpected(spec, a.name, args[i], off, len);
  }
  return callPinned(impl, args, ctx, off, len);
}

/**
 * Recursive-descent parser for bxp expressions.
 *
 * Precedence, tightest first: unary `-`, `* /`, `&`, `+ -`, comparisons, `NOT`, `AND`, `OR`.
 * Like bxp, a function's argument list is read leniently (commas between arguments are optional),
 * and `IF` / `IFERROR` / `CASE` insist on their commas (`IF([A])` is `ExpectedComma`). Nesting
 * deeper than 256 levels is `ExpressionTooDeep`.
 *
 * Safer than bxp where bxp is silent (bxp evaluates what it has read and ignores the rest): a call
 * or group the source ends inside (`UPPER([P]`) is `ExpectedRParen`, and tokens left over after a
 * complete expression (`[A] [B]`, `ABS(1))`) are `UnexpectedToken`. Both refuse an expression that
 * a typo or a truncation has cut short instead of quietly evaluating a part of it.
 *
 * @example
 * ```ts
 * import { parseExpression } from "./parser.ts";
 * import assert from "node:assert/strict";
 * const ast = parseExpression("ABS(-1) + 2");
 * assert.equal(ast?.kind, "chain");
 * ```
 * @module
 */

import type { BinaryOp, CallNode, ChainLevel, Node } from "./ast.ts";
import { ExprError } from "./errors.ts";
import { type Token, tokenize } from "./lexer.ts";

/** Maximum nesting of sub-expressions (parentheses, arguments, branches). */
export const MAX_DEPTH = 256;

const CMP_OPS = new Set(["=", "!=", "<", ">", "<=", ">="]);

/**
 * Parse `src` into a syntax tree; `null` for an empty source (which evaluates to "").
 *
 * @throws ExprError with bxp's error names (`UnexpectedToken`, `ExpectedComma`, ...).
 */
export function parseExpression(src: string): Node | null {
  const tokens = tokenize(src);
  if (tokens.length === 1) return null;
  return new Parser(tokens).parseTop();
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parseTop(): Node {
    const node = this.parseExpr();
    const rest = this.peek();
    // bxp reads `''''` as the output quote: the lone quote after `'''` is an empty string it ignores.
    const loneQuote = rest.kind === "str" && rest.len === 1 && this.tokens[this.pos + 1].kind === "eof";
    if (rest.kind !== "eof" && !loneQuote) {
      throw new ExprError(
        "UnexpectedToken",
        `unexpected token '${
          rest.kind === "str" ? `'${rest.text}'` : rest.kind === "field" ? `[${rest.text}]` : rest.text
        }'` +
          ` after the end of the expression — a missing operator or an extra ')'?`,
        rest.off,
        rest.len,
      );
    }
    return node;
  }

  private peek(): Token {
    return this.tokens[this.pos];
  }

  private next(): Token {
    const t = this.tokens[this.pos];
    if (t.kind !== "eof") this.pos++;
    return t;
  }

  private isKeyword(t: Token, word: string): boolean {
    return t.kind === "ident" && t.text.length === word.length && t.text.toUpperCase() === word;
  }

  private parseExpr(): Node {
    if (this.depth >= MAX_DEPTH) {
      const t = this.peek();
      throw new ExprError(
        "ExpressionTooDeep",
        `expression nested too deeply (more than ${MAX_DEPTH} levels)`,
        t.off,
        t.len,
      );
    }
    this.depth++;
    try {
      return this.parseOr();
    } finally {
      this.depth--;
    }
  }

  private chain(level: ChainLevel, operands: Node[], ops: BinaryOp[]): Node {
    if (operands.length === 1) return operands[0];
    const first = operands[0];
    const last = operands[operands.length - 1];
    return { kind: "chain", level, operands, ops, off: first.off, len: last.off + last.len - first.off };
  }

  private parseOr(): Node {
    const operands = [this.parseAnd()];
    const ops: BinaryOp[] = [];
    while (this.isKeyword(this.peek(), "OR")) {
      this.next();
      ops.push("OR");
      operands.push(this.parseAnd());
    }
    return this.chain("or", operands, ops);
  }

  private parseAnd(): Node {
    const operands = [this.parseNot()];
    const ops: BinaryOp[] = [];
    while (this.isKeyword(this.peek(), "AND")) {
      this.next();
      ops.push("AND");
      operands.push(this.parseNot());
    }
    return this.chain("and", operands, ops);
  }

  private parseNot(): Node {
    let count = 0;
    let off = -1;
    while (this.isKeyword(this.peek(), "NOT")) {
      const t = this.next();
      if (off < 0) off = t.off;
      count++;
    }
    const operand = this.parseCmp();
    if (count === 0) return operand;
    return { kind: "not", count, operand, off, len: operand.off + operand.len - off };
  }

  private parseCmp(): Node {
    const operands = [this.parseAdd()];
    const ops: BinaryOp[] = [];
    while (CMP_OPS.has(this.peek().kind)) {
      ops.push(this.next().kind as BinaryOp);
      operands.push(this.parseAdd());
    }
    return this.chain("cmp", operands, ops);
  }

  private parseAdd(): Node {
    const operands = [this.parseCat()];
    const ops: BinaryOp[] = [];
    for (let k = this.peek().kind; k === "+" || k === "-"; k = this.peek().kind) {
      this.next();
      ops.push(k);
      operands.push(this.parseCat());
    }
    return this.chain("add", operands, ops);
  }

  private parseCat(): Node {
    const operands = [this.parseMul()];
    const ops: BinaryOp[] = [];
    while (this.peek().kind === "&") {
      this.next();
      ops.push("&");
      operands.push(this.parseMul());
    }
    return this.chain("cat", operands, ops);
  }

  private parseMul(): Node {
    const operands = [this.parseUnary()];
    const ops: BinaryOp[] = [];
    for (let k = this.peek().kind; k === "*" || k === "/"; k = this.peek().kind) {
      this.next();
      ops.push(k);
      operands.push(this.parseUnary());
    }
    return this.chain("mul", operands, ops);
  }

  private parseUnary(): Node {
    let count = 0;
    let off = -1;
    let lastMinus: Token | null = null;
    while (this.peek().kind === "-") {
      lastMinus = this.next();
      if (off < 0) off = lastMinus.off;
      count++;
    }
    // `-1` written without a space is a negative literal (what static checks see), as in bxp.
    const t = this.peek();
    if (lastMinus !== null && t.kind === "num" && lastMinus.off + 1 === t.off) {
      this.next();
      const literal: Node = { kind: "number", text: "-" + t.text, off: lastMinus.off, len: t.len + 1 };
      count--;
      if (count === 0) return literal;
      return { kind: "negate", count, operand: literal, off, len: literal.off + literal.len - off };
    }
    const operand = this.parsePrimary();
    if (count === 0) return operand;
    return { kind: "negate", count, operand, off, len: operand.off + operand.len - off };
  }

  private parsePrimary(): Node {
    const t = this.next();
    switch (t.kind) {
      case "str":
        return { kind: "string", value: t.text, off: t.off, len: t.len };
      case "quote":
        return { kind: "quote", off: t.off, len: t.len };
      case "num":
        return { kind: "number", text: t.text, off: t.off, len: t.len };
      case "field":
        return { kind: "field", name: t.text, off: t.off, len: t.len };
      case "(": {
        const inner = this.parseExpr();
        const close = this.next();
        if (close.kind !== ")") {
          // At the end of the source, point at the '(' left open (an end token has no width).
          const at = close.kind === "eof" ? t : close;
          throw new ExprError(
            "ExpectedRParen",
            `expected ')' to close '(' opened at pos ${t.off + 1}`,
            at.off,
            at.len,
          );
        }
        return inner;
      }
      case "ident":
        return this.parseIdent(t);
      case "eof":
        throw new ExprError(
          "UnexpectedToken",
          "unexpected end of expression — expression may be incomplete",
          t.off,
          0,
        );
      default:
        throw new ExprError("UnexpectedToken", `unexpected token '${t.text}'`, t.off, t.len);
    }
  }

  private parseIdent(t: Token): Node {
    const upper = t.text.toUpperCase();
    if (this.peek().kind !== "(") {
      if (upper === "TRUE" || upper === "FALSE") {
        return { kind: "boolean", value: upper === "TRUE", off: t.off, len: t.len };
      }
      if (upper === "AND" || upper === "OR") {
        throw new ExprError("UnexpectedKeyword", `'${t.text}' needs an operand on each side`, t.off, t.len);
      }
      throw new ExprError("ExpectedLParen", `expected '(' after '${t.text}'`, t.off, t.len);
    }
    this.next(); // (
    let args: Node[];
    if (upper === "IF") args = this.parseFixedArgs(3);
    else if (upper === "IFERROR") args = this.parseFixedArgs(2);
    else if (upper === "CASE") args = this.parseCaseArgs(t);
    else args = this.parseLooseArgs(t);
    const prev = this.tokens[this.pos - 1];
    const endByte = prev.kind === ")" ? prev.off + prev.len : this.peek().off;
    const call: CallNode = {
      kind: "call",
      name: t.text,
      upper,
      nameOff: t.off,
      nameLen: t.len,
      args,
      off: t.off,
      len: endByte - t.off,
    };
    return call;
  }

  /** Exactly `count` comma-separated arguments and a closing `)`. */
  private parseFixedArgs(count: number): Node[] {
    const args: Node[] = [];
    for (let k = 0; k < count; k++) {
      args.push(this.parseExpr());
      const sep = this.next();
      const wanted = k === count - 1 ? ")" : ",";
      if (sep.kind !== wanted) {
        if (wanted === ",") {
          throw new ExprError("ExpectedComma", "expected ',' between arguments", sep.off, sep.len);
        }
        throw new ExprError("ExpectedRParen", "expected ')' after the last argument", sep.off, sep.len);
      }
    }
    return args;
  }

  /** `CASE(subject, m1, r1, ..., default?)`: at least one match/result pair. */
  private parseCaseArgs(name: Token): Node[] {
    const args: Node[] = [this.parseExpr()];
    let sep = this.next();
    if (sep.kind !== ",") {
      throw new ExprError("ExpectedComma", "expected ',' after the CASE subject", sep.off, sep.len);
    }
    for (;;) {
      args.push(this.parseExpr());
      sep = this.next();
      if (sep.kind === ")") {
        if (args.length === 2) {
          throw new ExprError(
            "WrongArgCount",
            "CASE needs a subject and at least one match/result pair",
            name.off,
            sep.off + sep.len - name.off,
          );
        }
        return args;
      }
      if (sep.kind !== ",") {
        throw new ExprError("ExpectedComma", "expected ',' between arguments", sep.off, sep.len);
      }
      args.push(this.parseExpr());
      sep = this.next();
      if (sep.kind === ")") return args;
      if (sep.kind !== ",") {
        throw new ExprError("ExpectedComma", "expected ',' between arguments", sep.off, sep.len);
      }
    }
  }

  /** bxp's lenient list: expressions until `)`, commas optional; the end of the source is `ExpectedRParen`. */
  private parseLooseArgs(name: Token): Node[] {
    const open = this.tokens[this.pos - 1];
    const args: Node[] = [];
    for (let k = this.peek().kind; k !== ")" && k !== "eof"; k = this.peek().kind) {
      args.push(this.parseExpr());
      if (this.peek().kind === ",") this.next();
    }
    if (this.next().kind !== ")") {
      throw new ExprError(
        "ExpectedRParen",
        `expected ')' to close '${name.text}(' opened at pos ${
          open.off + 1
        } — the expression ends inside the call`,
        name.off,
        open.off + open.len - name.off,
      );
    }
    return args;
  }
}

/**
 * Syntax tree of a bxp expression. Every node carries the UTF-8 byte span (`off`, `len`) of the
 * source text it came from. Binary operators of one precedence level form one n-ary `chain`
 * node, so a long `a + b + c + ...` stays flat (no deep recursion when compiling or evaluating).
 *
 * @module
 */

/** Operator levels that form chains, loosest first. */
export type ChainLevel = "or" | "and" | "cmp" | "add" | "cat" | "mul";

/** Binary operator text inside a chain. */
export type BinaryOp = "OR" | "AND" | "=" | "!=" | "<" | ">" | "<=" | ">=" | "+" | "-" | "&" | "*" | "/";

interface Span {
  /** UTF-8 byte offset of the first byte. */
  readonly off: number;
  /** UTF-8 byte length. */
  readonly len: number;
}

/** `'text'` */
export interface StringNode extends Span {
  readonly kind: "string";
  readonly value: string;
}

/** `'''`: the output quote character (csv_text_quote_out). */
export interface QuoteNode extends Span {
  readonly kind: "quote";
}

/** Numeric literal, text as written (a folded leading `-` included). */
export interface NumberNode extends Span {
  readonly kind: "number";
  readonly text: string;
}

/** `true` / `false` */
export interface BooleanNode extends Span {
  readonly kind: "boolean";
  readonly value: boolean;
}

/** `[Column Name]` */
export interface FieldNode extends Span {
  readonly kind: "field";
  readonly name: string;
}

/** `-x` applied `count` times. */
export interface NegateNode extends Span {
  readonly kind: "negate";
  readonly count: number;
  readonly operand: Node;
}

/** `NOT x` applied `count` times. */
export interface NotNode extends Span {
  readonly kind: "not";
  readonly count: number;
  readonly operand: Node;
}

/** `a op b op c ...` of one precedence level, left-associative. */
export interface ChainNode extends Span {
  readonly kind: "chain";
  readonly level: ChainLevel;
  readonly operands: readonly Node[];
  /** `ops[i]` sits between `operands[i]` and `operands[i + 1]`. */
  readonly ops: readonly BinaryOp[];
}

/** `NAME(args)`; the span runs from the name to just past `)`. */
export interface CallNode extends Span {
  readonly kind: "call";
  /** Name as written. */
  readonly name: string;
  /** Upper-cased name, the registry key. */
  readonly upper: string;
  readonly nameOff: number;
  readonly nameLen: number;
  readonly args: readonly Node[];
}

/** Any expression node. */
export type Node =
  | StringNode
  | QuoteNode
  | NumberNode
  | BooleanNode
  | FieldNode
  | NegateNode
  | NotNode
  | ChainNode
  | CallNode;

/** Visit `node` and all its descendants, parents before children. */
export function walk(node: Node, visit: (n: Node) => void): void {
  const stack: Node[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    visit(n);
    switch (n.kind) {
      case "negate":
      case "not":
        stack.push(n.operand);
        break;
      case "chain":
        for (let i = n.operands.length - 1; i >= 0; i--) stack.push(n.operands[i]);
        break;
      case "call":
        for (let i = n.args.length - 1; i >= 0; i--) stack.push(n.args[i]);
        break;
    }
  }
}

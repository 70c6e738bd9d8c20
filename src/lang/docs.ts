/**
 * The language catalog in bxp's docs JSON shape, built from the registry (never a second list).
 *
 * @example
 * ```ts
 * import { languageDocs } from "./docs.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   languageDocs().functions.find((f) => f.name === "ROUND")?.args[1],
 *   { name: "n", kind: "integer_in_range", min: -30, max: 30 },
 * );
 * ```
 * @module
 */

import { DATE_TOKENS } from "./datetime/mod.ts";
import { FUNCTIONS } from "./registry.ts";

/** One function entry of the docs JSON. */
export interface FunctionDoc {
  name: string;
  signature: string;
  description: string;
  example: string;
  args: { name: string; kind: string; min?: number; max?: number }[];
  min_args: number;
  max_args: number;
}

/** The whole language catalog. */
export interface LanguageDocs {
  functions: FunctionDoc[];
  keywords: { name: string; description: string }[];
  operators: { token: string; description: string }[];
  tokens: { kind: string; syntax: string; description: string }[];
  date_tokens: { token: string; meaning: string; example: string }[];
  precedence: { level: number; operators: string; description: string }[];
}

const KEYWORDS = [
  {
    name: "AND",
    description: 'True when both sides are truthy; both sides are always evaluated. Gives "true"/"false".',
  },
  {
    name: "OR",
    description: 'True when either side is truthy; both sides are always evaluated. Gives "true"/"false".',
  },
  {
    name: "NOT",
    description:
      "Negates what follows. Looser than comparisons and tighter than AND, so `NOT [A] = 1` means `NOT ([A] = 1)`; repeated NOTs cancel out.",
  },
  { name: "true", description: 'The boolean true (prints as "true").' },
  { name: "false", description: 'The boolean false (prints as "false").' },
];

const OPERATORS = [
  {
    token: "&",
    description:
      "Joins the text of both sides: 'a' & 1 gives \"a1\". A result that looks like a number is written in its shortest form ('1200' & '.00' and a pass-through 185.50 are written 1200 and 185.5); FORMAT_NUMBER and AS_TEXT write their text as it is.",
  },
  { token: "=", description: "Equal: compared as numbers when both sides are numbers, else as exact text." },
  { token: "!=", description: "Not equal; same comparison rules as `=`." },
  { token: "<", description: "Less than; both sides must be numbers (an empty value counts as 0)." },
  { token: ">", description: "Greater than; both sides must be numbers." },
  { token: "<=", description: "Less than or equal; both sides must be numbers." },
  { token: ">=", description: "Greater than or equal; both sides must be numbers." },
  { token: "+", description: "Exact decimal addition." },
  { token: "-", description: "Exact decimal subtraction, or negation in front of a value." },
  { token: "*", description: "Multiplication, rounded half away from zero at 12 decimals." },
  {
    token: "/",
    description: 'Division, rounded half away from zero at 12 decimals; dividing by zero gives "".',
  },
];

const TOKENS = [
  {
    kind: "columnRef",
    syntax: "[ColumnName]",
    description: 'Value of the column with this header (trimmed, case-sensitive); "" when absent.',
  },
  {
    kind: "inputVar",
    syntax: "$variable",
    description:
      "A config variable: an input_schema key, an output_schema value, a row_rules override key. Not an expression token: `$name` inside an expression is UnexpectedChar (expressions see columns; repeat the expression, or use the column).",
  },
  {
    kind: "string",
    syntax: "'single quoted'",
    description: "Text literal; it ends at the next single quote (there is no escape).",
  },
  {
    kind: "outputQuote",
    syntax: "'''",
    description: 'The output quote character set by csv_text_quote_out ("" when none).',
  },
  {
    kind: "number",
    syntax: "123 / 3.14",
    description: "Decimal number literal, up to about ±1.7e26 with 12 decimals.",
  },
  {
    kind: "function",
    syntax: "FUNCNAME(...)",
    description: "Call of a built-in function; names are case-insensitive.",
  },
  { kind: "keyword", syntax: "AND / OR / NOT", description: "Boolean keywords, case-insensitive." },
];

const PRECEDENCE = [
  { level: 1, operators: "unary -", description: "Negation (binds tightest)." },
  { level: 2, operators: "* /", description: "Multiplication and division." },
  { level: 3, operators: "&", description: "Text concatenation." },
  { level: 4, operators: "+ -", description: "Addition and subtraction." },
  { level: 5, operators: "= != < > <= >=", description: "Comparisons, left to right." },
  { level: 6, operators: "NOT", description: "Negation of a comparison." },
  { level: 7, operators: "AND", description: "Conjunction." },
  { level: 8, operators: "OR", description: "Disjunction (binds loosest)." },
];

/** The catalog: functions, keywords, operators, tokens, date tokens and precedence levels. */
export function languageDocs(): LanguageDocs {
  return {
    functions: FUNCTIONS.map((f) => ({
      name: f.name,
      signature: f.signature,
      description: f.description,
      example: f.example,
      args: f.args.map((a) =>
        a.kind === "integer_in_range"
          ? { name: a.name, kind: a.kind, min: a.min, max: a.max }
          : { name: a.name, kind: a.kind }
      ),
      min_args: f.minArgs,
      max_args: f.maxArgs,
    })),
    keywords: KEYWORDS.map((k) => ({ ...k })),
    operators: OPERATORS.map((o) => ({ ...o })),
    tokens: TOKENS.map((t) => ({ ...t })),
    date_tokens: DATE_TOKENS.map((t) => ({ token: t.token, meaning: t.meaning, example: t.example })),
    precedence: PRECEDENCE.map((p) => ({ ...p })),
  };
}

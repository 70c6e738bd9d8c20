/**
 * Tokenizer for bxp expressions. Every token carries its UTF-8 byte span in the source.
 *
 * Lexical rules (bxp's): only spaces separate tokens; `'text'` has no escapes (an unclosed one: below);
 * `'''` is its own token (the output quote character); `[Name]` runs to the
 * next `]`; numbers are runs of digits and dots; identifiers are `[A-Za-z_][A-Za-z0-9_]*`.
 * `-` is always an operator token (the parser folds `-1`). There is no variable token: `$name` is
 * bxp's `UnexpectedChar` at the `$` (expressions see columns, never `$variables`); `[$name]` is a
 * column named `$name`.
 *
 * Safer than bxp where bxp is silent: a string literal or a `[column]` reference that never closes
 * is `UnterminatedString` / `UnterminatedFieldRef` (bxp quietly runs it to the end of the source).
 * The one exception is a lone ' ending the source: an empty string, as in bxp (`''''`, the output quote
 * followed by it, is a spelling real configs use).
 *
 * @example
 * ```ts
 * import { tokenize } from "./lexer.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(tokenize("[Prix €] * 2").map((t) => [t.kind, t.off, t.len]), [
 *   ["field", 0, 10],
 *   ["*", 11, 1],
 *   ["num", 13, 1],
 *   ["eof", 14, 0],
 * ]); // byte spans: "€" is three bytes
 * ```
 * @module
 */

import { ExprError } from "./errors.ts";
import { utf8Length, utf8UnitBytes } from "../util/utf8.ts";

/** Token kinds; operators are their own text. */
export type TokenKind =
  | "str"
  | "quote"
  | "num"
  | "field"
  | "ident"
  | "("
  | ")"
  | ","
  | "+"
  | "-"
  | "*"
  | "/"
  | "&"
  | "="
  | "!="
  | "<"
  | ">"
  | "<="
  | ">="
  | "eof";

/** One token. `text` is the inner text for strings / field refs. */
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** UTF-8 byte offset of the token's first byte (including quotes / brackets). */
  readonly off: number;
  /** UTF-8 byte length of the whole token. */
  readonly len: number;
}

/** Longest accepted expression source, in bytes; longer input is refused as `ExpressionTooLong`. */
export const MAX_SOURCE_BYTES = 100_000;

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

/**
 * Split `src` into tokens, ending with an `eof` token.
 *
 * @throws ExprError `UnexpectedChar` for a character that starts no token, `ExpressionTooLong`.
 */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  const n = src.length;
  if (n > MAX_SOURCE_BYTES || utf8Length(src) > MAX_SOURCE_BYTES) {
    throw new ExprError(
      "ExpressionTooLong",
      `expression is longer than ${MAX_SOURCE_BYTES} bytes`,
      0,
      0,
    );
  }
  let i = 0;
  let b = 0; // byte offset of src[i]
  const push = (kind: TokenKind, text: string, off: number, len: number) => {
    tokens.push({ kind, text, off, len });
  };
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 32) {
      i++;
      b++;
      continue;
    }
    const start = b;
    if (c === 39) { // '
      if (i + 2 < n && src.charCodeAt(i + 1) === 39 && src.charCodeAt(i + 2) === 39) {
        push("quote", "'''", start, 3);
        i += 3;
        b += 3;
        continue;
      }
      let j = i + 1;
      let bytes = 1;
      while (j < n && src.charCodeAt(j) !== 39) bytes += utf8UnitBytes(src, j++);
      const text = src.slice(i + 1, j);
      // A lone ' ending the source reads as an empty string, as in bxp: `''''` is the output quote
      // followed by one, a real-world spelling bxp's corpus accepts. Text swallowed to the end is refused.
      if (j >= n && j > i + 1) {
        throw new ExprError(
          "UnterminatedString",
          `string literal starting at pos ${start + 1} has no closing quote (')`,
          start,
          bytes,
        );
      }
      if (j < n) {
        j++;
        bytes++;
      }
      push("str", text, start, bytes);
      i = j;
      b += bytes;
      continue;
    }
    if (c === 91) { // [
      let j = i + 1;
      let bytes = 1;
      while (j < n && src.charCodeAt(j) !== 93) bytes += utf8UnitBytes(src, j++);
      const text = src.slice(i + 1, j);
      if (j >= n) {
        throw new ExprError(
          "UnterminatedFieldRef",
          `column reference starting at pos ${start + 1} has no closing ']'`,
          start,
          bytes,
        );
      }
      j++;
      bytes++;
      push("field", text, start, bytes);
      i = j;
      b += bytes;
      continue;
    }
    if (c >= 48 && c <= 57) {
      let j = i;
      while (j < n) {
        const d = src.charCodeAt(j);
        if ((d >= 48 && d <= 57) || d === 46) j++;
        else break;
      }
      push("num", src.slice(i, j), start, j - i);
      b += j - i;
      i = j;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < n && isIdentPart(src.charCodeAt(j))) j++;
      push("ident", src.slice(i, j), start, j - i);
      b += j - i;
      i = j;
      continue;
    }
    const next = i + 1 < n ? src.charCodeAt(i + 1) : 0;
    let kind: TokenKind | null = null;
    let width = 1;
    switch (c) {
      case 40:
        kind = "(";
        break;
      case 41:
        kind = ")";
        break;
      case 44:
        kind = ",";
        break;
      case 43:
        kind = "+";
        break;
      case 45:
        kind = "-";
        break;
      case 42:
        kind = "*";
        break;
      case 47:
        kind = "/";
        break;
      case 38:
        kind = "&";
        break;
      case 61:
        kind = "=";
        break;
      case 33:
        if (next === 61) {
          kind = "!=";
          width = 2;
        }
        break;
      case 60:
        kind = next === 61 ? "<=" : "<";
        width = next === 61 ? 2 : 1;
        break;
      case 62:
        kind = next === 61 ? ">=" : ">";
        width = next === 61 ? 2 : 1;
        break;
    }
    if (kind === null) throw unexpectedChar(src, i, start);
    push(kind, kind, start, width);
    i += width;
    b += width;
  }
  push("eof", "", b, 0);
  return tokens;
}

/**
 * bxp's `UnexpectedChar` for the character at UTF-16 index `i` (byte offset `byte`): bxp's detail
 * wording ("at pos" is 1-based), plus a hint for `$`, which people write expecting a variable.
 */
function unexpectedChar(src: string, i: number, byte: number): ExprError {
  const ch = String.fromCodePoint(src.codePointAt(i) ?? src.charCodeAt(i));
  let detail = `unexpected character '${ch}' at pos ${byte + 1}`;
  if (ch === "$") {
    let j = i + 1;
    while (j < src.length && isIdentPart(src.charCodeAt(j))) j++;
    const name = src.slice(i, j);
    detail += name.length > 1
      ? ` — expressions see columns, not variables: '${name}' cannot be read here; ` +
        `repeat the expression that computes ${name}, or use the column it comes from (e.g. [Column])`
      : " — expressions see columns, not variables; write a column as [Column]";
  }
  return new ExprError("UnexpectedChar", detail, byte, Math.max(1, utf8UnitBytes(src, i)));
}

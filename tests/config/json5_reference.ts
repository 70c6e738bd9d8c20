/**
 * The JSON5 reader as it was before the char-code rewrite (commit 70f95d3), kept verbatim as the oracle
 * for `json5_scanner_test.ts`: the fast reader must return exactly what this one returns (values, raw
 * number text, every position, duplicates, error codes, messages and places) on any text.
 * Test support only; not part of the product.
 * @module
 */
// deno-lint-ignore-file

import {
  CONFIG_MAX_BYTES,
  type DuplicateKey,
  type Json5Error,
  type Json5Result,
  type JsonEntry,
  type JsonNode,
  MAX_NESTING_DEPTH,
  type SourcePos,
  UNEXPECTED_CHARACTER,
} from "../../src/config/json5.ts";

class Json5SyntaxError extends Error {
  constructor(readonly detail: Json5Error) {
    super(detail.message);
  }
}

/** Number of UTF-8 bytes needed for the UTF-16 code unit(s) starting at `text[i]`. */
function utf8Width(text: string, i: number): { bytes: number; units: number } {
  const c = text.charCodeAt(i);
  if (c < 0x80) return { bytes: 1, units: 1 };
  if (c < 0x800) return { bytes: 2, units: 1 };
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return { bytes: 4, units: 2 };
  }
  return { bytes: 3, units: 1 };
}

/** UTF-8 byte length of a JS string. */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length;) {
    const w = utf8Width(text, i);
    n += w.bytes;
    i += w.units;
  }
  return n;
}

const ID_START = /^[\p{L}\p{Nl}$_]$/u;
const ID_PART = /^[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$_\u200c\u200d]$/u;

/** `[A-Za-z$_]`, plus digits after the first character: the identifiers configs are made of. */
function isAsciiIdentifierChar(c: number, first: boolean): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 36 || c === 95 ||
    (!first && c >= 48 && c <= 57);
}

function isJson5Space(c: string): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\v" || c === "\f" ||
    c === "\u00a0" || c === "\u2028" || c === "\u2029" || c === "\ufeff" || /\p{Zs}/u.test(c);
}

/** Cursor over the source that advances line, column and byte offset together. */
class Cursor {
  i = 0;
  byte = 0;
  line = 1;
  col = 1;
  constructor(readonly text: string) {}

  get done(): boolean {
    return this.i >= this.text.length;
  }
  peek(ahead = 0): string {
    return this.text[this.i + ahead] ?? "";
  }
  /** The whole character at the cursor (both halves of a surrogate pair). */
  codePoint(): string {
    const cp = this.text.codePointAt(this.i);
    return cp === undefined ? "" : String.fromCodePoint(cp);
  }
  /** Consume one character (a whole surrogate pair when present) and return it. */
  next(): string {
    const code = this.text.charCodeAt(this.i);
    if (code < 0x80 && code !== 10 && code !== 13) {
      // ASCII other than line breaks: the common case, without building a width record.
      this.i++;
      this.byte++;
      this.col++;
      return this.text[this.i - 1];
    }
    const w = utf8Width(this.text, this.i);
    const ch = this.text.slice(this.i, this.i + w.units);
    this.i += w.units;
    this.byte += w.bytes;
    if (ch === "\n" || ch === "\u2028" || ch === "\u2029" || (ch === "\r" && this.peek() !== "\n")) {
      this.line++;
      this.col = 1;
    } else {
      this.col++;
    }
    return ch;
  }
  mark(): SourcePos {
    return { off: this.byte, len: 0, line: this.line, col: this.col };
  }
  close(start: SourcePos): SourcePos {
    return { ...start, len: this.byte - start.off };
  }
}

class Parser {
  readonly cur: Cursor;
  readonly duplicates: DuplicateKey[] = [];
  depth = 0;

  constructor(text: string) {
    this.cur = new Cursor(text);
  }

  fail(message: string, at: SourcePos = this.cur.mark()): never {
    throw new Json5SyntaxError({
      code: "json5.parse_error",
      message,
      off: at.off,
      line: at.line,
      col: at.col,
    });
  }

  unexpected(): never {
    if (this.cur.done) this.fail("unexpected end of input — check for an unclosed '{', '[' or string");
    this.fail(UNEXPECTED_CHARACTER);
  }

  skipTrivia(): void {
    const c = this.cur;
    while (!c.done) {
      const ch = c.peek();
      if (isJson5Space(ch)) {
        c.next();
      } else if (ch === "/" && c.peek(1) === "/") {
        while (!c.done && c.peek() !== "\n" && c.peek() !== "\r") c.next();
      } else if (ch === "/" && c.peek(1) === "*") {
        const start = c.mark();
        c.next();
        c.next();
        while (!(c.peek() === "*" && c.peek(1) === "/")) {
          if (c.done) this.fail("unterminated /* comment", start);
          c.next();
        }
        c.next();
        c.next();
      } else {
        return;
      }
    }
  }

  parseDocument(): JsonNode {
    this.skipTrivia();
    const value = this.parseValue("");
    this.skipTrivia();
    if (!this.cur.done) this.unexpected();
    return value;
  }

  parseValue(path: string): JsonNode {
    const c = this.cur;
    const ch = c.peek();
    if (ch === "{") return this.nested(() => this.parseObject(path));
    if (ch === "[") return this.nested(() => this.parseArray(path));
    if (ch === '"' || ch === "'") {
      const start = c.mark();
      const value = this.parseString();
      return { kind: "string", value, pos: c.close(start) };
    }
    if (ch === "-" || ch === "+" || ch === "." || (ch >= "0" && ch <= "9")) return this.parseNumber();
    if (ID_START.test(c.codePoint()) || ch === "\\") {
      const start = c.mark();
      const word = this.readIdentifier();
      const pos = c.close(start);
      if (word === "true" || word === "false") return { kind: "bool", value: word === "true", pos };
      if (word === "null") return { kind: "null", pos };
      if (word === "Infinity") return { kind: "number", value: Infinity, raw: word, pos };
      if (word === "NaN") return { kind: "number", value: NaN, raw: word, pos };
      this.fail(UNEXPECTED_CHARACTER, start);
    }
    this.unexpected();
  }

  nested(parse: () => JsonNode): JsonNode {
    if (this.depth >= MAX_NESTING_DEPTH) {
      const at = this.cur.mark();
      throw new Json5SyntaxError({
        code: "json5.too_deep",
        message: `nesting deeper than ${MAX_NESTING_DEPTH} levels — flatten the config`,
        off: at.off,
        line: at.line,
        col: at.col,
      });
    }
    this.depth++;
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  parseObject(path: string): JsonNode {
    const c = this.cur;
    const start = c.mark();
    c.next(); // {
    const entries: JsonEntry[] = [];
    const index = new Map<string, number>();
    this.skipTrivia();
    while (c.peek() !== "}") {
      if (c.done) this.unexpected();
      const keyStart = c.mark();
      let key: string;
      const ch = c.peek();
      if (ch === '"' || ch === "'") key = this.parseString();
      else if (ID_START.test(c.codePoint()) || ch === "\\") key = this.readIdentifier();
      else this.unexpected();
      const keyPos = c.close(keyStart);
      this.skipTrivia();
      if (c.peek() !== ":") this.unexpected();
      c.next();
      this.skipTrivia();
      const value = this.parseValue(path === "" ? key : `${path}.${key}`);
      const seen = index.get(key);
      if (seen === undefined) {
        index.set(key, entries.length);
        entries.push({ key, keyPos, value });
      } else {
        this.duplicates.push({ key, path, pos: keyPos });
        entries[seen] = { key, keyPos: entries[seen].keyPos, value };
      }
      this.skipTrivia();
      if (c.peek() === ",") {
        c.next();
        this.skipTrivia();
      } else if (c.peek() !== "}") {
        this.unexpected();
      }
    }
    c.next(); // }
    return { kind: "object", entries, pos: c.close(start) };
  }

  parseArray(path: string): JsonNode {
    const c = this.cur;
    const start = c.mark();
    c.next(); // [
    const items: JsonNode[] = [];
    this.skipTrivia();
    while (c.peek() !== "]") {
      if (c.done) this.unexpected();
      items.push(this.parseValue(path === "" ? String(items.length) : `${path}.${items.length}`));
      this.skipTrivia();
      if (c.peek() === ",") {
        c.next();
        this.skipTrivia();
      } else if (c.peek() !== "]") {
        this.unexpected();
      }
    }
    c.next(); // ]
    return { kind: "array", items, pos: c.close(start) };
  }

  readIdentifier(): string {
    const c = this.cur;
    let out = "";
    let first = true;
    while (!c.done) {
      let ch = c.peek();
      if (ch === "\\") {
        const at = c.mark();
        c.next();
        if (c.peek() !== "u") this.fail("invalid escape in identifier", at);
        c.next();
        ch = String.fromCharCode(this.readHex(4));
        if (!(first ? ID_START : ID_PART).test(ch)) this.fail("invalid escape in identifier", at);
        out += ch;
      } else if (isAsciiIdentifierChar(ch.charCodeAt(0), first)) {
        out += c.next();
      } else if (ch.charCodeAt(0) >= 0x80 && (first ? ID_START : ID_PART).test(c.codePoint())) {
        out += c.next();
      } else {
        break;
      }
      first = false;
    }
    return out;
  }

  readHex(count: number): number {
    const c = this.cur;
    let n = 0;
    for (let k = 0; k < count; k++) {
      const d = c.peek();
      if (!/[0-9a-fA-F]/.test(d)) this.fail("invalid \\u escape — expected 4 hex digits");
      n = n * 16 + parseInt(c.next(), 16);
    }
    return n;
  }

  parseString(): string {
    const c = this.cur;
    const start = c.mark();
    const quote = c.next();
    let out = "";
    for (;;) {
      if (c.done) this.fail("unterminated string — add the closing quote", start);
      const ch = c.peek();
      if (ch === quote) {
        c.next();
        return out;
      }
      if (ch === "\n" || ch === "\r") this.fail("unterminated string — add the closing quote", start);
      if (ch !== "\\") {
        out += c.next();
        continue;
      }
      const escAt = c.mark();
      c.next();
      const e = c.next();
      switch (e) {
        case "b":
          out += "\b";
          break;
        case "f":
          out += "\f";
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "v":
          out += "\v";
          break;
        case "0":
          if (/[0-9]/.test(c.peek())) this.fail("octal escapes are not allowed in strings", escAt);
          out += "\0";
          break;
        case "x":
          out += String.fromCharCode(this.readHex(2));
          break;
        case "u":
          out += String.fromCharCode(this.readHex(4));
          break;
        case "\r":
          if (c.peek() === "\n") c.next(); // line continuation
          break;
        case "\n":
        case "\u2028":
        case "\u2029":
          break; // line continuation
        case "":
          this.fail("unterminated string — add the closing quote", start);
          break;
        default:
          if (/[1-9]/.test(e)) this.fail("invalid escape in string", escAt);
          out += e;
      }
    }
  }

  parseNumber(): JsonNode {
    const c = this.cur;
    const start = c.mark();
    const from = c.i;
    let sign = 1;
    if (c.peek() === "+" || c.peek() === "-") {
      if (c.next() === "-") sign = -1;
    }
    if (ID_START.test(c.codePoint())) {
      const word = this.readIdentifier();
      if (word !== "Infinity" && word !== "NaN") this.fail(UNEXPECTED_CHARACTER, start);
      const raw = c.text.slice(from, c.i);
      return { kind: "number", value: word === "NaN" ? NaN : sign * Infinity, raw, pos: c.close(start) };
    }
    if (c.peek() === "0" && (c.peek(1) === "x" || c.peek(1) === "X")) {
      c.next();
      c.next();
      let digits = "";
      while (/[0-9a-fA-F]/.test(c.peek())) digits += c.next();
      if (digits === "") this.fail("invalid hexadecimal number", start);
      this.refuseGlued(start);
      const raw = c.text.slice(from, c.i);
      return { kind: "number", value: sign * parseInt(digits, 16), raw, pos: c.close(start) };
    }
    let intDigits = "";
    while (/[0-9]/.test(c.peek())) intDigits += c.next();
    if (intDigits.length > 1 && intDigits[0] === "0") this.fail("numbers may not have leading zeros", start);
    let fracDigits = "";
    if (c.peek() === ".") {
      c.next();
      while (/[0-9]/.test(c.peek())) fracDigits += c.next();
    }
    if (intDigits === "" && fracDigits === "") this.fail(UNEXPECTED_CHARACTER, start);
    if (c.peek() === "e" || c.peek() === "E") {
      c.next();
      if (c.peek() === "+" || c.peek() === "-") c.next();
      if (!/[0-9]/.test(c.peek())) this.fail("invalid number exponent", start);
      while (/[0-9]/.test(c.peek())) c.next();
    }
    this.refuseGlued(start);
    const raw = c.text.slice(from, c.i);
    return { kind: "number", value: Number(raw.replace(/^\+/, "")), raw, pos: c.close(start) };
  }

  /** A number immediately followed by a letter or digit (`12abc`) is one bad token, not two. */
  refuseGlued(start: SourcePos): void {
    const ch = this.cur.codePoint();
    if (ch !== "" && (ID_PART.test(ch) || ch === ".")) this.fail(UNEXPECTED_CHARACTER, start);
  }
}

/**
 * Parse JSON5 text. Never throws: syntax problems, the size cap and the depth cap come back as `error`.
 *
 * @example
 * ```ts
 * import { parseJson5Reference } from "./json5_reference.ts";
 * import assert from "node:assert/strict";
 * assert.match(parseJson5Reference("{ data_dir: [1,,] }").error!.message, /^unexpected character — check for /);
 * ```
 */
export function parseJson5Reference(text: string, maxBytes = CONFIG_MAX_BYTES): Json5Result {
  const size = utf8Length(text);
  if (size > maxBytes) {
    return {
      value: null,
      duplicates: [],
      error: {
        code: "json5.too_large",
        message: `config is ${size} bytes, over the ${maxBytes}-byte limit`,
        off: maxBytes,
        line: 1,
        col: 1,
      },
    };
  }
  const parser = new Parser(text);
  try {
    const value = parser.parseDocument();
    return { value, error: null, duplicates: parser.duplicates };
  } catch (err) {
    if (err instanceof Json5SyntaxError) {
      return { value: null, error: err.detail, duplicates: parser.duplicates };
    }
    throw err;
  }
}

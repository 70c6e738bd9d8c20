/**
 * A JSON5 reader that keeps source positions.
 *
 * Every value and every object key carries its UTF-8 byte offset, byte length and 1-based line/column, so
 * diagnostics can point back into the file. Objects keep insertion order; a repeated key keeps the position
 * of its first occurrence but takes the last value (the behaviour of bxp's `std.json` parse with
 * `use_last`), and every repeat is recorded so validation can report it.
 *
 * Hostile input never crashes the reader: a size cap and a nesting cap turn into a {@link Json5Error}.
 *
 * @example
 * ```ts
 * import { parseJson5 } from "./json5.ts";
 * import assert from "node:assert/strict";
 * const r = parseJson5("{ a: 1, // note\n b: 'x', }");
 * assert.equal(r.value?.kind, "object");
 * ```
 * @module
 */

import { utf8Length } from "../util/utf8.ts";

/** bxp's config read cap (`CONFIG_MAX_FILE_SIZE` = 1024 * 1024 bytes). */
export const CONFIG_MAX_BYTES = 1024 * 1024;

/** Deepest container nesting accepted; deeper input is refused rather than recursed into. */
export const MAX_NESTING_DEPTH = 256;

/** Where a token sits in the source. `off`/`len` count UTF-8 bytes; `line`/`col` are 1-based (col in characters). */
export interface SourcePos {
  off: number;
  len: number;
  line: number;
  col: number;
}

/** One `key: value` member of an object. */
export interface JsonEntry {
  key: string;
  keyPos: SourcePos;
  value: JsonNode;
}

/** A parsed JSON5 value with its position. */
export type JsonNode =
  | { kind: "object"; entries: JsonEntry[]; pos: SourcePos }
  | { kind: "array"; items: JsonNode[]; pos: SourcePos }
  /**
   * `plain`: the value holds no character JSON escapes (`"`, `\\`, U+0000-U+001F), so its JSON text is the
   * value between double quotes. Set by the parser, which sees every character anyway; false when unsure.
   */
  | { kind: "string"; value: string; pos: SourcePos; plain?: boolean }
  | { kind: "number"; value: number; raw: string; pos: SourcePos }
  | { kind: "bool"; value: boolean; pos: SourcePos }
  | { kind: "null"; pos: SourcePos };

/** A key that appeared twice in the same object. `path` is the dotted path of the object holding it. */
export interface DuplicateKey {
  key: string;
  path: string;
  pos: SourcePos;
}

/** Why the text could not be read. `code` is a stable machine code (`json5.*`). */
export interface Json5Error {
  code: "json5.parse_error" | "json5.too_large" | "json5.too_deep";
  message: string;
  off: number;
  line: number;
  col: number;
}

/** Outcome of {@link parseJson5}: `value` is null exactly when `error` is set. */
export interface Json5Result {
  value: JsonNode | null;
  error: Json5Error | null;
  duplicates: DuplicateKey[];
}

/** The message bxp gives for a stray token (we keep its wording: clients match on it). */
export const UNEXPECTED_CHARACTER = "unexpected character — check for missing quotes, commas, or brackets";

class Json5SyntaxError extends Error {
  constructor(readonly detail: Json5Error) {
    super(detail.message);
  }
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

const ID_START = /^[\p{L}\p{Nl}$_]$/u;
const ID_PART = /^[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$_\u200c\u200d]$/u;

/** `[A-Za-z$_]`, plus digits after the first character: the identifiers configs are made of. */
function isAsciiIdentifierChar(c: number, first: boolean): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 36 || c === 95 ||
    (!first && c >= 48 && c <= 57);
}

/** JSON5 white space: the ASCII blanks, the line and paragraph separators, the BOM and every `\p{Zs}`. */
export function isJson5SpaceCode(c: number): boolean {
  if (c < 0x80) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

const UNTERMINATED_STRING = "unterminated string — add the closing quote";

/**
 * The reader: one index into the text (UTF-16 units) with the byte offset, line and column kept in step.
 * It works on char codes only (no one-character strings) because configs are read on every `bxp_validate`
 * call and the per-character cost dominates. A column counts characters (a surrogate pair is one); a line
 * ends at `\n`, a `\r` not followed by `\n`, U+2028 or U+2029.
 */
class Parser {
  i = 0;
  byte = 0;
  line = 1;
  col = 1;
  depth = 0;
  readonly end: number;
  readonly duplicates: DuplicateKey[] = [];
  /** Keys and indexes leading to the value being read; only turned into a path when a duplicate needs it. */
  readonly segments: (string | number)[] = [];

  constructor(readonly text: string) {
    this.end = text.length;
  }

  fail(message: string, off = this.byte, line = this.line, col = this.col): never {
    throw new Json5SyntaxError({ code: "json5.parse_error", message, off, line, col });
  }

  unexpected(): never {
    if (this.i >= this.end) this.fail("unexpected end of input — check for an unclosed '{', '[' or string");
    this.fail(UNEXPECTED_CHARACTER);
  }

  /** A position from a start (`off`, `line`, `col`) to the current byte. */
  pos(off: number, line: number, col: number): SourcePos {
    return { off, len: this.byte - off, line, col };
  }

  /** Consume one ASCII character that is not a line break. */
  skipAscii(): void {
    this.i++;
    this.byte++;
    this.col++;
  }

  /** Consume one character of any kind (a whole surrogate pair when present). Not called at the end. */
  step(): void {
    const t = this.text;
    const i = this.i;
    const c = t.charCodeAt(i);
    if (c < 0x80) {
      this.i = i + 1;
      this.byte++;
      if (c === 10 || (c === 13 && t.charCodeAt(i + 1) !== 10)) {
        this.line++;
        this.col = 1;
      } else {
        this.col++;
      }
    } else if (c < 0x800) {
      this.i = i + 1;
      this.byte += 2;
      this.col++;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < this.end && isLowSurrogate(t.charCodeAt(i + 1))) {
      this.i = i + 2;
      this.byte += 4;
      this.col++;
    } else {
      this.i = i + 1;
      this.byte += 3;
      if (c === 0x2028 || c === 0x2029) {
        this.line++;
        this.col = 1;
      } else {
        this.col++;
      }
    }
  }

  /** The whole character at `i` as a string (both halves of a surrogate pair), "" at the end. */
  charAt(i: number): string {
    const cp = this.text.codePointAt(i);
    return cp === undefined ? "" : String.fromCodePoint(cp);
  }

  startsIdentifier(c: number): boolean {
    if (c < 0x80) return isAsciiIdentifierChar(c, true);
    return this.i < this.end && ID_START.test(this.charAt(this.i));
  }

  skipTrivia(): void {
    const t = this.text;
    const end = this.end;
    while (this.i < end) {
      const c = t.charCodeAt(this.i);
      if (c === 32 || c === 10 || c === 9) {
        // A run of ASCII blanks (the bulk of a config's layout), counted in locals.
        let i = this.i, line = this.line, col = this.col;
        const from = i;
        for (; i < end; i++) {
          const d = t.charCodeAt(i);
          if (d === 32 || d === 9) {
            col++;
          } else if (d === 10) {
            line++;
            col = 1;
          } else {
            break;
          }
        }
        this.byte += i - from;
        this.i = i;
        this.line = line;
        this.col = col;
      } else if (isJson5SpaceCode(c)) {
        this.step();
      } else if (c === 47 && t.charCodeAt(this.i + 1) === 47) {
        // A line comment runs up to (not over) the next \n or \r.
        for (;;) {
          this.skipPlainAscii();
          const d = t.charCodeAt(this.i);
          if (this.i >= end || d === 10 || d === 13) break;
          this.step();
        }
      } else if (c === 47 && t.charCodeAt(this.i + 1) === 42) {
        const off = this.byte, line = this.line, col = this.col;
        this.skipAscii();
        this.skipAscii();
        while (!(t.charCodeAt(this.i) === 42 && t.charCodeAt(this.i + 1) === 47)) {
          if (this.i >= end) this.fail("unterminated /* comment", off, line, col);
          const d = t.charCodeAt(this.i);
          if (d < 0x80 && d !== 10 && d !== 13) this.skipAscii();
          else this.step();
        }
        this.skipAscii();
        this.skipAscii();
      } else {
        return;
      }
    }
  }

  /** Skip a run of ASCII characters other than line breaks (comment text). */
  skipPlainAscii(): void {
    const t = this.text;
    const end = this.end;
    const from = this.i;
    let i = from;
    for (; i < end; i++) {
      const d = t.charCodeAt(i);
      if (d >= 0x80 || d === 10 || d === 13) break;
    }
    this.i = i;
    this.byte += i - from;
    this.col += i - from;
  }

  parseDocument(): JsonNode {
    this.skipTrivia();
    const value = this.parseValue();
    this.skipTrivia();
    if (this.i < this.end) this.unexpected();
    return value;
  }

  parseValue(): JsonNode {
    const c = this.text.charCodeAt(this.i);
    if (c === 123) return this.parseObject();
    if (c === 91) return this.parseArray();
    const off = this.byte, line = this.line, col = this.col;
    if (c === 34 || c === 39) {
      const value = this.parseString();
      return { kind: "string", value, pos: this.pos(off, line, col), plain: this.stringPlain };
    }
    if (c === 45 || c === 43 || c === 46 || (c >= 48 && c <= 57)) return this.parseNumber();
    if (this.startsIdentifier(c) || c === 92) {
      const word = this.readIdentifier();
      const pos = this.pos(off, line, col);
      if (word === "true" || word === "false") return { kind: "bool", value: word === "true", pos };
      if (word === "null") return { kind: "null", pos };
      if (word === "Infinity") return { kind: "number", value: Infinity, raw: word, pos };
      if (word === "NaN") return { kind: "number", value: NaN, raw: word, pos };
      this.fail(UNEXPECTED_CHARACTER, off, line, col);
    }
    this.unexpected();
  }

  /** Count one more level of nesting, refusing to go past the cap (checked at the opening bracket). */
  enter(): void {
    if (this.depth >= MAX_NESTING_DEPTH) {
      throw new Json5SyntaxError({
        code: "json5.too_deep",
        message: `nesting deeper than ${MAX_NESTING_DEPTH} levels — flatten the config`,
        off: this.byte,
        line: this.line,
        col: this.col,
      });
    }
    this.depth++;
  }

  /** The dotted path of the value being read (`a.0.b`), built the way keys were once joined one by one. */
  currentPath(): string {
    let path = "";
    for (const segment of this.segments) {
      const s = String(segment);
      path = path === "" ? s : `${path}.${s}`;
    }
    return path;
  }

  parseObject(): JsonNode {
    this.enter();
    const t = this.text;
    const off = this.byte, line = this.line, col = this.col;
    this.skipAscii(); // {
    const entries: JsonEntry[] = [];
    // Small objects find a repeated key by scanning; a Map takes over once an object grows.
    let index: Map<string, number> | null = null;
    this.skipTrivia();
    while (t.charCodeAt(this.i) !== 125) {
      if (this.i >= this.end) this.unexpected();
      const keyOff = this.byte, keyLine = this.line, keyCol = this.col;
      const c = t.charCodeAt(this.i);
      let key: string;
      if (c === 34 || c === 39) key = this.parseString();
      else if (this.startsIdentifier(c) || c === 92) key = this.readIdentifier();
      else this.unexpected();
      const keyPos = this.pos(keyOff, keyLine, keyCol);
      this.skipTrivia();
      if (t.charCodeAt(this.i) !== 58) this.unexpected();
      this.skipAscii(); // :
      this.skipTrivia();
      this.segments.push(key);
      const value = this.parseValue();
      this.segments.pop();
      let seen = -1;
      if (index !== null) {
        seen = index.get(key) ?? -1;
      } else {
        for (let k = 0; k < entries.length; k++) {
          if (entries[k].key === key) {
            seen = k;
            break;
          }
        }
      }
      if (seen < 0) {
        if (index !== null) index.set(key, entries.length);
        entries.push({ key, keyPos, value });
        if (index === null && entries.length >= 16) {
          index = new Map();
          for (let k = 0; k < entries.length; k++) index.set(entries[k].key, k);
        }
      } else {
        this.duplicates.push({ key, path: this.currentPath(), pos: keyPos });
        entries[seen] = { key, keyPos: entries[seen].keyPos, value };
      }
      this.skipTrivia();
      const next = t.charCodeAt(this.i);
      if (next === 44) {
        this.skipAscii();
        this.skipTrivia();
      } else if (next !== 125) {
        this.unexpected();
      }
    }
    this.skipAscii(); // }
    this.depth--;
    return { kind: "object", entries, pos: this.pos(off, line, col) };
  }

  parseArray(): JsonNode {
    this.enter();
    const t = this.text;
    const off = this.byte, line = this.line, col = this.col;
    this.skipAscii(); // [
    const items: JsonNode[] = [];
    this.skipTrivia();
    while (t.charCodeAt(this.i) !== 93) {
      if (this.i >= this.end) this.unexpected();
      this.segments.push(items.length);
      items.push(this.parseValue());
      this.segments.pop();
      this.skipTrivia();
      const next = t.charCodeAt(this.i);
      if (next === 44) {
        this.skipAscii();
        this.skipTrivia();
      } else if (next !== 93) {
        this.unexpected();
      }
    }
    this.skipAscii(); // ]
    this.depth--;
    return { kind: "array", items, pos: this.pos(off, line, col) };
  }

  readIdentifier(): string {
    const t = this.text;
    const end = this.end;
    let out = "";
    let first = true;
    let run = this.i; // start of the characters not yet copied into `out`
    while (this.i < end) {
      const c = t.charCodeAt(this.i);
      if (c < 0x80) {
        if (isAsciiIdentifierChar(c, first)) {
          this.skipAscii();
        } else if (c === 92) {
          out += t.slice(run, this.i);
          const off = this.byte, line = this.line, col = this.col;
          this.skipAscii(); // backslash
          if (t.charCodeAt(this.i) !== 117) this.fail("invalid escape in identifier", off, line, col);
          this.skipAscii(); // u
          const ch = String.fromCharCode(this.readHex(4));
          if (!(first ? ID_START : ID_PART).test(ch)) {
            this.fail("invalid escape in identifier", off, line, col);
          }
          out += ch;
          run = this.i;
        } else {
          break;
        }
      } else if ((first ? ID_START : ID_PART).test(this.charAt(this.i))) {
        this.step();
      } else {
        break;
      }
      first = false;
    }
    return out + t.slice(run, this.i);
  }

  readHex(count: number): number {
    let n = 0;
    for (let k = 0; k < count; k++) {
      const d = hexValue(this.text.charCodeAt(this.i));
      if (d < 0) this.fail("invalid \\u escape — expected 4 hex digits");
      this.skipAscii();
      n = n * 16 + d;
    }
    return n;
  }

  /** Whether the last string {@link parseString} read holds no character JSON escapes (see `JsonNode`). */
  stringPlain = false;

  parseString(): string {
    const t = this.text;
    const end = this.end;
    const off = this.byte, line = this.line, col = this.col;
    const quote = t.charCodeAt(this.i);
    this.skipAscii();
    let out = "";
    // The hot loop keeps index, byte and column in locals and copies runs of plain characters in one slice.
    let i = this.i, byte = this.byte, column = this.col;
    let run = i;
    // No escape and no character JSON escapes seen so far (an escape may decode to anything: not plain).
    let plain = true;
    for (;;) {
      if (i >= end) this.fail(UNTERMINATED_STRING, off, line, col);
      const c = t.charCodeAt(i);
      if (c === quote) {
        this.i = i + 1;
        this.byte = byte + 1;
        this.col = column + 1;
        this.stringPlain = plain;
        return out + t.slice(run, i);
      }
      if (c < 0x80) {
        // A control character, or a `"` inside a single-quoted string.
        if (c < 0x20 || c === 34) {
          if (c === 10 || c === 13) this.fail(UNTERMINATED_STRING, off, line, col);
          plain = false;
        }
        if (c !== 92) {
          i++;
          byte++;
          column++;
          continue;
        }
        plain = false;
        out += t.slice(run, i);
        this.i = i;
        this.byte = byte;
        this.col = column;
        out += this.readEscape(off, line, col);
        i = this.i;
        byte = this.byte;
        column = this.col;
        run = i;
      } else if (c < 0x800) {
        i++;
        byte += 2;
        column++;
      } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end && isLowSurrogate(t.charCodeAt(i + 1))) {
        i += 2;
        byte += 4;
        column++;
      } else {
        i++;
        byte += 3;
        if (c === 0x2028 || c === 0x2029) {
          this.line++;
          column = 1;
        } else {
          column++;
        }
      }
    }
  }

  /** One escape at the backslash under the cursor; the string started at `off`/`line`/`col`. */
  readEscape(off: number, line: number, col: number): string {
    const t = this.text;
    const escOff = this.byte, escLine = this.line, escCol = this.col;
    this.skipAscii(); // backslash
    if (this.i >= this.end) this.fail(UNTERMINATED_STRING, off, line, col);
    const e = t.charCodeAt(this.i);
    switch (e) {
      case 98: // b
        this.skipAscii();
        return "\b";
      case 102: // f
        this.skipAscii();
        return "\f";
      case 110: // n
        this.skipAscii();
        return "\n";
      case 114: // r
        this.skipAscii();
        return "\r";
      case 116: // t
        this.skipAscii();
        return "\t";
      case 118: // v
        this.skipAscii();
        return "\v";
      case 48: {
        this.skipAscii();
        const d = t.charCodeAt(this.i);
        if (d >= 48 && d <= 57) {
          this.fail("octal escapes are not allowed in strings", escOff, escLine, escCol);
        }
        return "\0";
      }
      case 120: // x
        this.skipAscii();
        return String.fromCharCode(this.readHex(2));
      case 117: // u
        this.skipAscii();
        return String.fromCharCode(this.readHex(4));
      case 13: // line continuation, \r or \r\n
        this.step();
        if (t.charCodeAt(this.i) === 10) this.step();
        return "";
      case 10:
      case 0x2028:
      case 0x2029:
        this.step(); // line continuation
        return "";
      default: {
        if (e >= 49 && e <= 57) this.fail("invalid escape in string", escOff, escLine, escCol);
        const from = this.i;
        this.step();
        return t.slice(from, this.i);
      }
    }
  }

  parseNumber(): JsonNode {
    const t = this.text;
    const off = this.byte, line = this.line, col = this.col;
    const from = this.i;
    let sign = 1;
    let c = t.charCodeAt(this.i);
    if (c === 43 || c === 45) {
      if (c === 45) sign = -1;
      this.skipAscii();
      c = t.charCodeAt(this.i);
    }
    if (this.startsIdentifier(c)) {
      const word = this.readIdentifier();
      if (word !== "Infinity" && word !== "NaN") this.fail(UNEXPECTED_CHARACTER, off, line, col);
      const raw = t.slice(from, this.i);
      const value = word === "NaN" ? NaN : sign * Infinity;
      return { kind: "number", value, raw, pos: this.pos(off, line, col) };
    }
    if (c === 48 && (t.charCodeAt(this.i + 1) === 120 || t.charCodeAt(this.i + 1) === 88)) {
      this.skipAscii();
      this.skipAscii();
      const digitsFrom = this.i;
      while (hexValue(t.charCodeAt(this.i)) >= 0) this.skipAscii();
      const digits = t.slice(digitsFrom, this.i);
      if (digits === "") this.fail("invalid hexadecimal number", off, line, col);
      this.refuseGlued(off, line, col);
      const raw = t.slice(from, this.i);
      return { kind: "number", value: sign * parseInt(digits, 16), raw, pos: this.pos(off, line, col) };
    }
    const intFrom = this.i;
    this.skipDigits();
    const intLength = this.i - intFrom;
    if (intLength > 1 && t.charCodeAt(intFrom) === 48) {
      this.fail("numbers may not have leading zeros", off, line, col);
    }
    let fracLength = 0;
    if (t.charCodeAt(this.i) === 46) {
      this.skipAscii();
      const fracFrom = this.i;
      this.skipDigits();
      fracLength = this.i - fracFrom;
    }
    if (intLength === 0 && fracLength === 0) this.fail(UNEXPECTED_CHARACTER, off, line, col);
    c = t.charCodeAt(this.i);
    if (c === 101 || c === 69) {
      this.skipAscii();
      c = t.charCodeAt(this.i);
      if (c === 43 || c === 45) this.skipAscii();
      c = t.charCodeAt(this.i);
      if (!(c >= 48 && c <= 57)) this.fail("invalid number exponent", off, line, col);
      this.skipDigits();
    }
    this.refuseGlued(off, line, col);
    const raw = t.slice(from, this.i);
    const value = Number(t.charCodeAt(from) === 43 ? raw.slice(1) : raw);
    return { kind: "number", value, raw, pos: this.pos(off, line, col) };
  }

  skipDigits(): void {
    const t = this.text;
    for (let c = t.charCodeAt(this.i); c >= 48 && c <= 57; c = t.charCodeAt(this.i)) this.skipAscii();
  }

  /** A number immediately followed by a letter or digit (`12abc`) is one bad token, not two. */
  refuseGlued(off: number, line: number, col: number): void {
    if (this.i >= this.end) return;
    const c = this.text.charCodeAt(this.i);
    const glued = c < 0x80 ? isAsciiIdentifierChar(c, false) || c === 46 : ID_PART.test(this.charAt(this.i));
    if (glued) this.fail(UNEXPECTED_CHARACTER, off, line, col);
  }
}

/**
 * Parse JSON5 text. Never throws: syntax problems, the size cap and the depth cap come back as `error`.
 *
 * @example
 * ```ts
 * import { parseJson5 } from "./json5.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   parseJson5("{ data_dir: [1,,] }").error?.message,
 *   "unexpected character — check for missing quotes, commas, or brackets",
 * );
 * ```
 */
export function parseJson5(text: string, maxBytes = CONFIG_MAX_BYTES): Json5Result {
  // A UTF-16 unit is at most 3 UTF-8 bytes, so short texts need no byte count.
  const size = text.length * 3 <= maxBytes ? 0 : utf8Length(text);
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

/** Find an object member by key. */
export function getEntry(node: JsonNode | undefined, key: string): JsonEntry | undefined {
  if (!node || node.kind !== "object") return undefined;
  return node.entries.find((e) => e.key === key);
}

/** Find an object member's value by key. */
export function getMember(node: JsonNode | undefined, key: string): JsonNode | undefined {
  return getEntry(node, key)?.value;
}

/** Convert a node to a plain JS value (objects keep key order; numbers become JS numbers). */
export function toPlain(node: JsonNode): unknown {
  switch (node.kind) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const e of node.entries) out[e.key] = toPlain(e.value);
      return out;
    }
    case "array":
      return node.items.map(toPlain);
    case "null":
      return null;
    default:
      return node.value;
  }
}

/** The JSON type name bxp uses in "got X" messages (`std.json.Value` tag names). */
export function valueTagName(node: JsonNode): string {
  switch (node.kind) {
    case "object":
      return "object";
    case "array":
      return "array";
    case "string":
      return "string";
    case "bool":
      return "bool";
    case "null":
      return "null";
    case "number":
      return isIntegerLiteral(node.raw) && Number.isSafeInteger(node.value) ? "integer" : "float";
  }
}

/** True when the literal is written like an integer (no fraction or exponent, decimal or hex). */
export function isIntegerLiteral(raw: string): boolean {
  if (/^[+-]?0[xX]/.test(raw)) return true;
  return /^[+-]?[0-9]+$/.test(raw) && raw.replace(/^[+-]/, "") !== "" && raw !== "-0";
}

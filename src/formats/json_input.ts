/**
 * JSON input (`file_type_in: "json"`): a top-level array of objects, one object per record, read as a stream.
 *
 * bxp's rules:
 * - Columns are the UNION of the objects' keys across the whole file, in first-seen order (a first pass,
 *   {@link JsonColumns}); a key a record lacks reads as "". Key names are not trimmed.
 * - Values become text: strings as decoded; `true`/`false` as `true`/`false`; `null` as ""; nested objects
 *   and arrays as ""; numbers per {@link jsonNumberText} (`10` -> `10`, `415.20` -> `415.2`, `1e3` -> `1000`).
 * - A repeated key inside one object: the last value wins.
 * - Top level not an array -> `JsonNotArray`; first element not an object -> `JsonNotObjectArray`; later
 *   non-object elements are skipped.
 * - Each record's offset is the byte offset of its opening `{` in the source (BXTB `source_locator`).
 *
 * @example
 * ```ts
 * import { readJsonArray } from "./json_input.ts";
 * import assert from "node:assert/strict";
 * const { columns, records } = readJsonArray(new TextEncoder().encode('[{"a":1},{"b":2.50,"a":null}]'));
 * assert.deepEqual(columns, ["a", "b"]);
 * assert.deepEqual(records[1].fields, ["", "2.5"]);
 * assert.equal(records[1].offset, 9); // where its "{" is
 * ```
 * @module
 */

import { GrowableBytes } from "../util/bytes.ts";
import { jsonNumberText } from "./number_text.ts";

/** Why a JSON input was refused; `kind` uses bxp's error names. */
export type JsonInputErrorKind = "JsonNotArray" | "JsonNotObjectArray" | "JsonSyntax";

/** A refused JSON input; the message names the problem and the byte offset. */
export class JsonInputError extends Error {
  readonly kind: JsonInputErrorKind;
  readonly offset: number;
  constructor(kind: JsonInputErrorKind, detail: string, offset: number, sourceName = "") {
    const where = sourceName === "" ? `at byte ${offset}` : `'${sourceName}' at byte ${offset}`;
    super(`${kind}: ${detail} (${where})`);
    this.name = "JsonInputError";
    this.kind = kind;
    this.offset = offset;
  }
}

/** One object of the array: its keys and value texts in source order, and the offset of its `{`. */
export interface JsonObjectRecord {
  keys: string[];
  values: string[];
  offset: number;
}

/** Options for {@link JsonArrayParser}. */
export interface JsonParserOptions {
  /** Name used in error messages. */
  sourceName?: string;
}

const enum Phase {
  Start,
  BeforeElement,
  InElement,
  AfterElement,
  Done,
}

const enum ElementKind {
  Object,
  Array,
  String,
  Scalar,
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Push parser for a JSON array of objects: feed chunks split anywhere, then {@link JsonArrayParser.finish}.
 * Each complete object is parsed and delivered; memory holds at most one element plus a chunk.
 */
export class JsonArrayParser {
  /** Object records delivered so far. */
  records = 0;

  readonly #onRecord: (record: JsonObjectRecord) => void;
  readonly #sourceName: string;
  #buf = new GrowableBytes();
  /** Absolute offset of #buf[0]. */
  #base = 0;
  #pos = 0;
  #phase = Phase.Start;
  #firstElement = true;
  #sawObject = false;
  #bomChecked = false;
  // Element scan state.
  #elemStart = 0;
  #kind = ElementKind.Scalar;
  #depth = 0;
  #inString = false;
  #escape = false;

  constructor(onRecord: (record: JsonObjectRecord) => void, options: JsonParserOptions = {}) {
    this.#onRecord = onRecord;
    this.#sourceName = options.sourceName ?? "";
  }

  /** Feed the next chunk. */
  push(chunk: Uint8Array): void {
    this.#append(chunk);
    this.#scan(false);
    this.#compact();
  }

  /** End of input: throws when the array is incomplete. */
  finish(): void {
    this.#scan(true);
    if (this.#phase !== Phase.Done) {
      if (this.#phase === Phase.Start) {
        throw this.#error("JsonNotArray", "expected a JSON array of objects, found no array");
      }
      throw this.#error("JsonSyntax", "unexpected end of input inside the array");
    }
  }

  #error(kind: JsonInputErrorKind, detail: string, at = this.#base + this.#pos): JsonInputError {
    return new JsonInputError(kind, detail, at, this.#sourceName);
  }

  #append(chunk: Uint8Array): void {
    this.#buf.append(chunk);
  }

  #compact(): void {
    const keepFrom = this.#phase === Phase.InElement ? this.#elemStart : this.#pos;
    if (keepFrom === 0) return;
    this.#buf.dropFront(keepFrom);
    this.#pos -= keepFrom;
    this.#elemStart -= keepFrom;
    this.#base += keepFrom;
  }

  #scan(atEnd: boolean): void {
    const buf = this.#buf.data;
    while (this.#pos < this.#buf.length) {
      const c = buf[this.#pos];
      switch (this.#phase) {
        case Phase.Start: {
          if (!this.#bomChecked && this.#base + this.#pos === 0 && c === 0xef) {
            if (this.#buf.length < 3 && !atEnd) return;
            if (buf[1] === 0xbb && buf[2] === 0xbf) {
              this.#pos = 3;
              this.#bomChecked = true;
              continue;
            }
          }
          this.#bomChecked = true;
          if (isWhitespace(c)) {
            this.#pos++;
          } else if (c === 0x5b /* [ */) {
            this.#pos++;
            this.#phase = Phase.BeforeElement;
          } else {
            throw this.#error("JsonNotArray", "the top-level value is not an array");
          }
          break;
        }
        case Phase.BeforeElement: {
          if (isWhitespace(c)) {
            this.#pos++;
          } else if (c === 0x5d /* ] */ && this.#firstElement) {
            this.#pos++;
            this.#phase = Phase.Done;
          } else {
            this.#startElement(c);
          }
          break;
        }
        case Phase.InElement: {
          if (!this.#scanElement(atEnd)) return;
          break;
        }
        case Phase.AfterElement: {
          if (isWhitespace(c)) {
            this.#pos++;
          } else if (c === 0x2c /* , */) {
            this.#pos++;
            this.#phase = Phase.BeforeElement;
          } else if (c === 0x5d /* ] */) {
            this.#pos++;
            this.#phase = Phase.Done;
          } else {
            throw this.#error("JsonSyntax", "expected ',' or ']' after an array element");
          }
          break;
        }
        case Phase.Done: {
          if (!isWhitespace(c)) throw this.#error("JsonSyntax", "unexpected data after the array");
          this.#pos++;
          break;
        }
      }
    }
    if (atEnd && this.#phase === Phase.InElement && this.#kind === ElementKind.Scalar) {
      this.#endElement(this.#pos);
    }
  }

  #startElement(c: number): void {
    this.#elemStart = this.#pos;
    this.#depth = 0;
    this.#inString = false;
    this.#escape = false;
    if (c === 0x7b /* { */) this.#kind = ElementKind.Object;
    else if (c === 0x5b /* [ */) this.#kind = ElementKind.Array;
    else if (c === 0x22 /* " */) this.#kind = ElementKind.String;
    else this.#kind = ElementKind.Scalar;
    if (this.#kind !== ElementKind.Object && !this.#sawObject) {
      throw this.#error("JsonNotObjectArray", "the first array element is not an object");
    }
    this.#phase = Phase.InElement;
  }

  /** Advance through the current element; false when more input is needed. */
  #scanElement(atEnd: boolean): boolean {
    const buf = this.#buf.data;
    const len = this.#buf.length;
    let i = this.#pos;
    if (this.#kind === ElementKind.Scalar) {
      while (i < len) {
        const c = buf[i];
        if (isWhitespace(c) || c === 0x2c || c === 0x5d) {
          this.#endElement(i);
          return true;
        }
        i++;
      }
      this.#pos = i;
      return atEnd;
    }
    if (this.#kind === ElementKind.String && i === this.#elemStart) {
      this.#inString = true;
      i++;
    }
    while (i < len) {
      const c = buf[i];
      if (this.#inString) {
        if (this.#escape) this.#escape = false;
        else if (c === 0x5c /* \ */) this.#escape = true;
        else if (c === 0x22) {
          this.#inString = false;
          if (this.#kind === ElementKind.String) {
            this.#endElement(i + 1);
            return true;
          }
        }
      } else if (c === 0x22) {
        this.#inString = true;
      } else if (c === 0x7b || c === 0x5b) {
        this.#depth++;
      } else if (c === 0x7d || c === 0x5d) {
        this.#depth--;
        if (this.#depth === 0) {
          this.#endElement(i + 1);
          return true;
        }
      }
      i++;
    }
    this.#pos = i;
    return false;
  }

  #endElement(end: number): void {
    const start = this.#elemStart;
    this.#pos = end;
    this.#phase = Phase.AfterElement;
    this.#firstElement = false;
    if (this.#kind !== ElementKind.Object) return; // non-object elements after the first are skipped
    this.#sawObject = true;
    const offset = this.#base + start;
    const text = utf8.decode(this.#buf.data.subarray(start, end));
    const record = parseObjectText(text, offset, this.#sourceName);
    this.records++;
    this.#onRecord(record);
  }
}

/** Parse the text of one JSON object into ordered keys and value texts. */
function parseObjectText(text: string, offset: number, sourceName: string): JsonObjectRecord {
  const keys: string[] = [];
  const values: string[] = [];
  let pos = 0;
  const fail = (detail: string): never => {
    throw new JsonInputError("JsonSyntax", detail, offset, sourceName);
  };
  const skipWs = () => {
    while (pos < text.length && isWhitespace(text.charCodeAt(pos))) pos++;
  };
  const readString = (): string => {
    const start = pos;
    pos++;
    let simple = true;
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x5c) {
        simple = false;
        pos += 2;
      } else if (c === 0x22) {
        pos++;
        if (simple) return text.substring(start + 1, pos - 1);
        try {
          return JSON.parse(text.substring(start, pos)) as string;
        } catch {
          return fail("invalid string escape in an object");
        }
      } else {
        if (c < 0x20) fail("control character inside a string");
        pos++;
      }
    }
    return fail("unterminated string in an object");
  };
  const skipNested = () => {
    let depth = 0;
    let inString = false;
    while (pos < text.length) {
      const c = text.charCodeAt(pos++);
      if (inString) {
        if (c === 0x5c) pos++;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--depth === 0) return;
      }
    }
    fail("unterminated nested value in an object");
  };
  const literal = (word: string) => {
    if (!text.startsWith(word, pos)) fail("invalid literal in an object");
    pos += word.length;
  };
  const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

  skipWs();
  if (text.charCodeAt(pos) !== 0x7b) fail("expected '{'");
  pos++;
  skipWs();
  if (text.charCodeAt(pos) === 0x7d) return { keys, values, offset };
  for (;;) {
    skipWs();
    if (text.charCodeAt(pos) !== 0x22) fail("expected a string key in an object");
    const key = readString();
    skipWs();
    if (text.charCodeAt(pos) !== 0x3a) fail("expected ':' after an object key");
    pos++;
    skipWs();
    const c = text.charCodeAt(pos);
    let value: string;
    if (c === 0x22) value = readString();
    else if (c === 0x7b || c === 0x5b) {
      skipNested();
      value = "";
    } else if (c === 0x74) {
      literal("true");
      value = "true";
    } else if (c === 0x66) {
      literal("false");
      value = "false";
    } else if (c === 0x6e) {
      literal("null");
      value = "";
    } else {
      numberPattern.lastIndex = pos;
      const m = numberPattern.exec(text);
      if (!m) return fail("invalid value in an object");
      pos += m[0].length;
      value = jsonNumberText(m[0]);
    }
    keys.push(key);
    values.push(value);
    skipWs();
    const sep = text.charCodeAt(pos);
    if (sep === 0x2c) {
      pos++;
      continue;
    }
    if (sep === 0x7d) return { keys, values, offset };
    return fail("expected ',' or '}' in an object");
  }
}

/** Collects the union of keys in first-seen order (bxp's first pass over a JSON input). */
export class JsonColumns {
  /** Column names in first-seen order. */
  readonly names: string[] = [];
  /** Column name -> 0-based index. */
  readonly index: Map<string, number> = new Map();

  /** Add the keys of one record. */
  add(record: JsonObjectRecord): void {
    for (const key of record.keys) {
      if (!this.index.has(key)) {
        this.index.set(key, this.names.length);
        this.names.push(key);
      }
    }
  }
}

function trimSpaces(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) === 0x20) start++;
  while (end > start && value.charCodeAt(end - 1) === 0x20) end--;
  return start === 0 && end === value.length ? value : value.substring(start, end);
}

/**
 * A record's values laid out by column index; keys not in the index are ignored, missing ones are "".
 * `trim` (default true) trims U+0020 as bxp does whenever an expression reads a field.
 */
export function jsonRecordFields(
  record: JsonObjectRecord,
  columns: ReadonlyMap<string, number>,
  trim = true,
): string[] {
  const fields = new Array<string>(columns.size).fill("");
  for (let i = 0; i < record.keys.length; i++) {
    const col = columns.get(record.keys[i]);
    if (col !== undefined) fields[col] = trim ? trimSpaces(record.values[i]) : record.values[i];
  }
  return fields;
}

/** Parse a whole in-memory JSON input: its column union and every record's fields and offset. */
export function readJsonArray(
  bytes: Uint8Array,
  options: JsonParserOptions & { trim?: boolean } = {},
): { columns: string[]; records: { fields: string[]; offset: number }[] } {
  const raw: JsonObjectRecord[] = [];
  const columns = new JsonColumns();
  const parser = new JsonArrayParser((record) => {
    columns.add(record);
    raw.push(record);
  }, options);
  parser.push(bytes);
  parser.finish();
  return {
    columns: columns.names,
    records: raw.map((r) => ({
      fields: jsonRecordFields(r, columns.index, options.trim ?? true),
      offset: r.offset,
    })),
  };
}

/** Pull-style reader over byte chunks yielding each object record in order. */
export async function* readJsonRecords(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: JsonParserOptions = {},
): AsyncGenerator<JsonObjectRecord, void, undefined> {
  let queue: JsonObjectRecord[] = [];
  const parser = new JsonArrayParser((record) => queue.push(record), options);
  for await (const chunk of chunks) {
    parser.push(chunk);
    if (queue.length > 0) {
      const ready = queue;
      queue = [];
      yield* ready;
    }
  }
  parser.finish();
  yield* queue;
}

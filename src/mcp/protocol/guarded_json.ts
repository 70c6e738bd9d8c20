/**
 * Guarded JSON parsing for untrusted protocol input.
 *
 * Three hazards are handled here so the router never sees them: nesting deep enough to exhaust the stack,
 * `__proto__` keys (dropped so no consumer can be tricked into prototype games), and integer ids or
 * progress tokens too large for a double (their source text is kept so they can be echoed byte for byte).
 *
 * @module
 */

/** Deepest array/object nesting accepted in one incoming message (the root object counts as level 1). */
export const MAX_JSON_DEPTH = 64;

/** Keys whose numeric values must round-trip exactly because the peer matches on them. */
const VERBATIM_NUMBER_KEYS: ReadonlySet<string> = new Set(["id", "requestId", "progressToken"]);

/** Outcome of {@link parseJsonMessage}. */
export type ParsedJson =
  | {
    readonly ok: true;
    readonly value: unknown;
    /**
     * Source text of a number stored under `key` in `holder` when it would not survive a trip through a
     * double (e.g. `12345678901234567890`), else `undefined`. Only `id`, `requestId` and `progressToken`
     * are tracked.
     */
    rawNumber(holder: object, key: string): string | undefined;
  }
  | { readonly ok: false; readonly reason: "syntax" | "too_deep"; readonly detail: string };

type SourceReviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;

/** The runtime has JSON.parse source access and JSON.rawJSON; TypeScript's lib does not declare them yet. */
const jsonWithSource = JSON as unknown as {
  parse(text: string, reviver: SourceReviver): unknown;
  rawJSON?: (text: string) => unknown;
};

/**
 * Whether `text` nests arrays/objects deeper than `maxDepth`, found by a cheap scan that skips string
 * contents. Malformed text is not judged here (JSON.parse reports it).
 *
 * @example
 * ```ts
 * import { exceedsJsonDepth } from "./guarded_json.ts";
 * import assert from "node:assert/strict";
 * assert.equal(exceedsJsonDepth("[[[]]]", 2), true);
 * assert.equal(exceedsJsonDepth('{"a":"[[[["}', 1), false); // brackets inside strings do not count
 * ```
 */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  // No more opening brackets in the whole text (strings included) than the limit: it cannot nest deeper.
  // Two native searches settle a typical request without walking its strings' escapes one by one.
  if (openingBrackets(text, maxDepth + 1) <= maxDepth) return false;
  let depth = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) { // '"': jump to the closing quote with indexOf so long strings cost little
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return false;
      i = end + 1;
      continue;
    }
    if (c === 0x5b || c === 0x7b) { // '[' '{'
      depth++;
      if (depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) { // ']' '}'
      depth--;
    }
    i++;
  }
  return false;
}

/** How many `[` and `{` `text` holds, counted up to `cap`. */
function openingBrackets(text: string, cap: number): number {
  let count = 0;
  for (const bracket of ["[", "{"]) {
    for (let at = text.indexOf(bracket); at !== -1 && count < cap; at = text.indexOf(bracket, at + 1)) {
      count++;
    }
  }
  return count;
}

/** An odd run of backslashes before `quoteAt` means the quote is escaped. */
function isEscaped(text: string, quoteAt: number): boolean {
  let backslashes = 0;
  for (let k = quoteAt - 1; k >= 0 && text.charCodeAt(k) === 0x5c; k--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * The top-level `"id"` of a message that could not be parsed (too deep), read by a scan that never
 * builds the message: the last `"id"` key of the root object whose value is a string or a number, with
 * its source text, or null when there is none. Lets a refusal still be answered to the right request.
 *
 * @example
 * ```ts
 * import { readTopLevelId } from "./guarded_json.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(readTopLevelId('{"jsonrpc":"2.0","id":7,"params":[[[[]]]]}'), { value: 7, source: "7" });
 * assert.equal(readTopLevelId('{"params":{"id":7}}'), null); // not at the top level
 * ```
 */
export function readTopLevelId(text: string): { value: string | number; source: string } | null {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return null; // the root must be an object
  let depth = 0;
  let found: { value: string | number; source: string } | null = null;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = closingQuote(text, i);
      if (end === -1) return found;
      if (depth === 1 && end === i + 3 && text.startsWith('"id"', i)) {
        const colon = skipSpace(text, end + 1);
        if (text.charCodeAt(colon) === 0x3a) {
          const at = skipSpace(text, colon + 1);
          const value = readScalar(text, at);
          if (value !== null) found = value;
        }
      }
      i = end + 1;
      continue;
    }
    if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) depth--;
    i++;
  }
  return found;
}

const NUMBER_AT = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const MAX_SCANNED_ID_CHARS = 4096;

/** A JSON string or number starting at `at`, with its source text. */
function readScalar(text: string, at: number): { value: string | number; source: string } | null {
  if (text.charCodeAt(at) === 0x22) {
    const end = closingQuote(text, at);
    if (end === -1 || end - at > MAX_SCANNED_ID_CHARS) return null;
    const source = text.slice(at, end + 1);
    try {
      return { value: JSON.parse(source) as string, source };
    } catch {
      return null;
    }
  }
  NUMBER_AT.lastIndex = at;
  const match = NUMBER_AT.exec(text);
  if (match === null || match[0].length > MAX_SCANNED_ID_CHARS) return null;
  return { value: Number(match[0]), source: match[0] };
}

/** Index of the quote closing the string that opens at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
  return end;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length) {
    const c = text.charCodeAt(at);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    at++;
  }
  return at;
}

/**
 * Parse one incoming JSON message: refuses nesting deeper than `maxDepth` before parsing, drops every
 * `__proto__` key, and remembers the source text of oversized numeric ids/tokens.
 *
 * @example
 * ```ts
 * import { parseJsonMessage } from "./guarded_json.ts";
 * import assert from "node:assert/strict";
 * const parsed = parseJsonMessage('{"id":1,"__proto__":{"x":1}}');
 * assert.ok(parsed.ok);
 * assert.deepEqual(Object.keys(parsed.value as object), ["id"]);
 * ```
 */
export function parseJsonMessage(text: string, maxDepth: number = MAX_JSON_DEPTH): ParsedJson {
  if (exceedsJsonDepth(text, maxDepth)) {
    return { ok: false, reason: "too_deep", detail: `message nests deeper than ${maxDepth} levels` };
  }
  // A plain parse first: when nothing needs the reviver (no `__proto__`, every tracked number already
  // canonical) it is the answer, several times faster than one calling a reviver per value.
  let plain: unknown;
  try {
    plain = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: "syntax", detail: error instanceof Error ? error.message : String(error) };
  }
  if (plainParseIsFaithful(plain, text)) return { ok: true, value: plain, rawNumber: noRawNumber };
  const raw = new Map<object, Map<string, string>>();
  const reviver: SourceReviver = function (this: unknown, key, value, context) {
    if (key === "__proto__") return undefined;
    if (
      typeof value === "number" && VERBATIM_NUMBER_KEYS.has(key) && context?.source !== undefined &&
      context.source !== String(value) && typeof this === "object" && this !== null
    ) {
      let byKey = raw.get(this);
      if (!byKey) raw.set(this, byKey = new Map());
      byKey.set(key, context.source);
    }
    return value;
  };
  let value: unknown;
  try {
    value = jsonWithSource.parse(text, reviver);
  } catch (error) {
    return { ok: false, reason: "syntax", detail: error instanceof Error ? error.message : String(error) };
  }
  return { ok: true, value, rawNumber: (holder, key) => raw.get(holder)?.get(key) };
}

const noRawNumber = (): undefined => undefined;

/**
 * Whether `value`, the plain `JSON.parse` of `text`, is exactly what the reviver of
 * {@link parseJsonMessage} would build: no `__proto__` key anywhere (a plain parse keeps it as an own key,
 * so the walk sees it), and every number under a tracked key written as a double prints it (so no source
 * text needs keeping). A tracked number is looked up in the text by its key, which an escape could hide
 * (a key spelt `"\u0069d"` is still `id`): then any `\u` in the text sends the message to the reviver.
 * Conservative: any doubt sends the message down the reviver path.
 */
function plainParseIsFaithful(value: unknown, text: string): boolean {
  const tracked = new Set<string>();
  if (!plainValueIsSafe(value, tracked)) return false;
  if (tracked.size === 0) return true;
  if (text.includes("\\u")) return false;
  for (const key of tracked) {
    if (!trackedNumbersPrint(text, `"${key}"`)) return false;
  }
  return true;
}

/**
 * No `__proto__` key in `value` at any depth; the tracked keys holding a number are added to `tracked`.
 * Recursive: the text was refused beforehand when it nests deeper than the limit.
 */
function plainValueIsSafe(value: unknown, tracked: Set<string>): boolean {
  if (typeof value !== "object" || value === null) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!plainValueIsSafe(item, tracked)) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (key === "__proto__") return false;
    const member = record[key];
    if (typeof member === "number") {
      if (VERBATIM_NUMBER_KEYS.has(key)) tracked.add(key);
    } else if (!plainValueIsSafe(member, tracked)) {
      return false;
    }
  }
  return true;
}

/**
 * Whether every number written after `key` and a colon, anywhere in the text (inside strings too: a false
 * hit only costs speed), prints as written. Found with `indexOf`: on a 2.7 KB request a few microseconds
 * less than one regular expression over the whole message.
 */
function trackedNumbersPrint(text: string, key: string): boolean {
  for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + key.length)) {
    const colon = skipSpace(text, at + key.length);
    if (text.charCodeAt(colon) !== 0x3a) continue;
    NUMBER_AT.lastIndex = skipSpace(text, colon + 1);
    const match = NUMBER_AT.exec(text);
    if (match !== null && String(Number(match[0])) !== match[0]) return false;
  }
  return true;
}

/**
 * Parse text a tool produced, keeping every number's exact source text (via `JSON.rawJSON`) when a double
 * would change it, so re-serialising the result reproduces the tool's digits. Returns `undefined` when
 * the text is not valid JSON or nests deeper than `maxDepth`.
 *
 * @example
 * ```ts
 * import { parseJsonFaithfully } from "./guarded_json.ts";
 * import assert from "node:assert/strict";
 * assert.equal(JSON.stringify(parseJsonFaithfully('{"v":1.50}')), '{"v":1.50}');
 * ```
 */
export function parseJsonFaithfully(text: string, maxDepth: number = MAX_JSON_DEPTH * 4): unknown {
  if (exceedsJsonDepth(text, maxDepth)) return undefined;
  const rawJSON = jsonWithSource.rawJSON;
  const reviver: SourceReviver = (_key, value, context) => {
    if (
      typeof value === "number" && rawJSON && context?.source !== undefined &&
      context.source !== String(value)
    ) {
      return rawJSON(context.source);
    }
    return value;
  };
  try {
    return jsonWithSource.parse(text, reviver);
  } catch {
    return undefined;
  }
}

/**
 * A value that `JSON.stringify` writes as exactly `source` (a JSON number's text), falling back to
 * `fallback` on runtimes without `JSON.rawJSON`.
 */
export function rawJsonNumber(source: string, fallback: number): unknown {
  return jsonWithSource.rawJSON ? jsonWithSource.rawJSON(source) : fallback;
}

/**
 * JSON output that matches the bytes bxp's `std.json` stringify produces.
 *
 * bxp re-emits configs through `std.json.Value`: integer literals stay integers, every other number becomes
 * an `f64` printed in Zig's shortest scientific form (`1.50` -> `1.5e0`, `2.0` -> `2e0`, `0.001` -> `1e-3`),
 * and integers too large for `i64` are kept verbatim. Strings escape only `"`, `\` and control characters.
 * Output is either minified or indented by two spaces, like `std.json`'s `.indent_2`.
 *
 * @example
 * ```ts
 * import { emitJson, fromPlain } from "./emit.ts";
 * import assert from "node:assert/strict";
 * assert.equal(emitJson(fromPlain({ a: [1, "x"] }), 0), '{"a":[1,"x"]}');
 * ```
 * @module
 */

import { type JsonNode } from "./json5.ts";

/** A JSON value ready to be written. Numbers carry their final text. */
export type OutValue =
  | { t: "object"; entries: [string, OutValue][] }
  | { t: "array"; items: OutValue[] }
  | { t: "string"; v: string }
  | { t: "number"; text: string }
  | { t: "bool"; v: boolean }
  | { t: "null" };

/** Zig's `{}` formatting of an f64: shortest round-trip digits in scientific form without a `+`. */
export function zigFloatText(value: number): string {
  if (Number.isNaN(value)) return '"nan"';
  if (value === Infinity) return "inf";
  if (value === -Infinity) return "-inf";
  if (value === 0) return Object.is(value, -0) ? "-0e0" : "0e0";
  return value.toExponential().replace("e+", "e");
}

/** The text bxp's re-emit gives a number literal from the source. */
export function numberText(raw: string, value: number): string {
  const body = raw.replace(/^\+/, "");
  // Integers print as integers at any size: within i64 std.json holds an integer, beyond it the literal digits.
  const hex = /^(-?)0[xX]([0-9a-fA-F]+)$/.exec(body);
  if (hex) return (hex[1] === "-" ? -1n : 1n) * BigInt("0x" + hex[2]) + "";
  if (/^-?[0-9]+$/.test(body) && body !== "-0") return BigInt(body).toString();
  if (!Number.isFinite(value)) return "null"; // JSON5 Infinity/NaN have no JSON form; null keeps the output valid
  return zigFloatText(value);
}

/** Convert a parsed JSON5 node into an output value (positions dropped, numbers formatted bxp's way). */
export function fromNode(node: JsonNode): OutValue {
  switch (node.kind) {
    case "object":
      return { t: "object", entries: node.entries.map((e) => [e.key, fromNode(e.value)]) };
    case "array":
      return { t: "array", items: node.items.map(fromNode) };
    case "string":
      return { t: "string", v: node.value };
    case "number":
      return { t: "number", text: numberText(node.raw, node.value) };
    case "bool":
      return { t: "bool", v: node.value };
    case "null":
      return { t: "null" };
  }
}

/**
 * Minified JSON straight from a parsed node: exactly `emitJson(fromNode(node), 0)`, without building the
 * output tree first (a config with nothing to annotate is re-emitted this way on every validation).
 *
 * @example
 * ```ts
 * import { emitNodeJson } from "./emit.ts";
 * import { parseJson5 } from "./json5.ts";
 * import assert from "node:assert/strict";
 * assert.equal(emitNodeJson(parseJson5("{ a: [1.50, 'x'] }").value!), '{"a":[1.5e0,"x"]}');
 * ```
 */
export function emitNodeJson(node: JsonNode): string {
  switch (node.kind) {
    case "object": {
      const entries = node.entries;
      if (entries.length === 0) return "{}";
      let out = "{";
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i];
        if (i > 0) out += ",";
        out += zigJsonString(entry.key) + ":" + emitNodeJson(entry.value);
      }
      return out + "}";
    }
    case "array": {
      const items = node.items;
      if (items.length === 0) return "[]";
      let out = "[";
      for (let i = 0; i < items.length; i++) {
        if (i > 0) out += ",";
        out += emitNodeJson(items[i]);
      }
      return out + "]";
    }
    case "string":
      // The parser saw every character already: a plain value needs no scan.
      return node.plain === true ? '"' + node.value + '"' : zigJsonString(node.value);
    case "number":
      return numberText(node.raw, node.value);
    case "bool":
      return node.value ? "true" : "false";
    case "null":
      return "null";
  }
}

/**
 * Whether `json`, {@link emitNodeJson}'s text for `node`, is also exactly what `JSON.stringify` prints for
 * it parsed: every number already in JavaScript's shortest form (not Zig's `1.5e0`, not an integer past
 * 2^53) and no lone surrogate (which `JSON.stringify` escapes and bxp does not). Keys need no check: a
 * parsed node holds each key of an object once (the parser keeps the last of a repeated key). A consumer
 * that needs canonical JSON can then take the text as it is.
 *
 * @example
 * ```ts
 * import { emitNodeJson, emittedCanonically } from "./emit.ts";
 * import { parseJson5 } from "./json5.ts";
 * import assert from "node:assert/strict";
 * const node = parseJson5("{ a: [1, 'x'] }").value!;
 * assert.equal(emittedCanonically(node, emitNodeJson(node)), true);
 * const float = parseJson5("{ a: 1.50 }").value!;
 * assert.equal(emittedCanonically(float, emitNodeJson(float)), false); // emitted as 1.5e0
 * ```
 */
export function emittedCanonically(node: JsonNode, json: string): boolean {
  // One scan of the text finds any surrogate (none at all in the usual one-byte text); a pair is fine, but
  // telling pairs from lone halves is not worth it here.
  return !SURROGATE.test(json) && numbersCanonical(node);
}

const SURROGATE = /[\ud800-\udfff]/;

function numbersCanonical(node: JsonNode): boolean {
  switch (node.kind) {
    case "object": {
      for (const entry of node.entries) if (!numbersCanonical(entry.value)) return false;
      return true;
    }
    case "array": {
      for (const item of node.items) if (!numbersCanonical(item)) return false;
      return true;
    }
    case "number": {
      const text = numberText(node.raw, node.value);
      return String(Number(text)) === text;
    }
    default:
      return true;
  }
}

/** Convert a plain JS value (from `JSON.parse` or literals) into an output value. Integers print as integers. */
export function fromPlain(value: unknown): OutValue {
  if (value === null || value === undefined) return { t: "null" };
  if (typeof value === "string") return { t: "string", v: value };
  if (typeof value === "boolean") return { t: "bool", v: value };
  if (typeof value === "number") {
    return { t: "number", text: Number.isInteger(value) ? String(value) : zigFloatText(value) };
  }
  if (Array.isArray(value)) return { t: "array", items: value.map(fromPlain) };
  if (typeof value === "object") {
    return {
      t: "object",
      entries: Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fromPlain(v)]),
    };
  }
  return { t: "string", v: String(value) };
}

/**
 * Escape a string the way `std.json` does: only `"`, `\`, and U+0000..U+001F (`\n`, `\r`, `\t`, `\b`,
 * `\f`, else `\u00xx`).
 *
 * @example
 * ```ts
 * import { zigJsonString } from "./emit.ts";
 * import assert from "node:assert/strict";
 * assert.equal(zigJsonString('say "hi"\n'), '"say \\"hi\\"\\n"');
 * ```
 */
export function zigJsonString(s: string): string {
  // A config's keys and most of its values are short and need no escape: one char-code scan tells, for
  // less than a regular expression test and a native call cost on such a string.
  if (s.length <= SHORT_STRING) {
    let plain = true;
    for (let i = 0; i < s.length && plain; i++) {
      const c = s.charCodeAt(i);
      plain = !escapedByStdJson(c) && (c < 0xd800 || c > 0xdfff);
    }
    if (plain) return '"' + s + '"';
  }
  // `JSON.stringify` escapes exactly these characters the same way, and writes every other one as it is,
  // except a lone surrogate (which it escapes and std.json does not). Without any surrogate the native
  // call gives the same text, much faster for text with many characters to escape (a JSON-like value in
  // a bxp_eval answer: a regular expression calling back per character).
  return SURROGATE.test(s) ? escapedLikeZig(s) : JSON.stringify(s);
}

/** Strings up to this long are checked character by character first (see {@link zigJsonString}). */
const SHORT_STRING = 64;

/** Whether `std.json` escapes the UTF-16 unit `c`: a quote, a backslash or a control character. */
function escapedByStdJson(c: number): boolean {
  return c < 0x20 || c === 34 || c === 92;
}

/** {@link zigJsonString} spelt out: the reference, and the path for text holding surrogates. */
function escapedLikeZig(s: string): string {
  // Most strings need no escape: one char-code scan finds that without a regex call. When one does, a single
  // regex pass escapes it (a long value, such as a large eval answer, would otherwise be built from millions
  // of one-character pieces).
  for (let i = 0; i < s.length; i++) {
    if (escapedByStdJson(s.charCodeAt(i))) return '"' + s.replace(ESCAPED, escapeChar) + '"';
  }
  return '"' + s + '"';
}

// deno-lint-ignore no-control-regex -- the control characters are exactly what must be escaped
const ESCAPED = /["\\\u0000-\u001f]/g;

function escapeChar(ch: string): string {
  switch (ch) {
    case '"':
      return '\\"';
    case "\\":
      return "\\\\";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
    case "\b":
      return "\\b";
    case "\f":
      return "\\f";
    default:
      return "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0");
  }
}

/**
 * Serialize an output value. `indent` 0 gives minified JSON (bxp's annotated config), 2 gives the
 * two-space layout bxp uses for docs and templates.
 */
export function emitJson(value: OutValue, indent: 0 | 2): string {
  return indent === 0 ? minified(value) : indented(value, "\n");
}

/** Minified JSON, built by plain concatenation (configs are re-emitted on every validation). */
function minified(v: OutValue): string {
  switch (v.t) {
    case "object": {
      const entries = v.entries;
      if (entries.length === 0) return "{}";
      let out = "{";
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i];
        if (i > 0) out += ",";
        out += zigJsonString(entry[0]) + ":" + minified(entry[1]);
      }
      return out + "}";
    }
    case "array": {
      const items = v.items;
      if (items.length === 0) return "[]";
      let out = "[";
      for (let i = 0; i < items.length; i++) {
        if (i > 0) out += ",";
        out += minified(items[i]);
      }
      return out + "]";
    }
    default:
      return scalarText(v);
  }
}

/** Two-space layout; `newline` is the line break plus the indentation of `v`'s own level. */
function indented(v: OutValue, newline: string): string {
  switch (v.t) {
    case "object": {
      const entries = v.entries;
      if (entries.length === 0) return "{}";
      const inner = newline + "  ";
      let out = "{";
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i];
        if (i > 0) out += ",";
        out += inner + zigJsonString(entry[0]) + ": " + indented(entry[1], inner);
      }
      return out + newline + "}";
    }
    case "array": {
      const items = v.items;
      if (items.length === 0) return "[]";
      const inner = newline + "  ";
      let out = "[";
      for (let i = 0; i < items.length; i++) {
        if (i > 0) out += ",";
        out += inner + indented(items[i], inner);
      }
      return out + newline + "]";
    }
    default:
      return scalarText(v);
  }
}

function scalarText(v: Exclude<OutValue, { t: "object" } | { t: "array" }>): string {
  switch (v.t) {
    case "string":
      return zigJsonString(v.v);
    case "number":
      return v.text;
    case "bool":
      return v.v ? "true" : "false";
    case "null":
      return "null";
  }
}

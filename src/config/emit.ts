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
 * emitJson(fromPlain({ a: [1, "x"] }), 0); // '{"a":[1,"x"]}'
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

/** Escape a string the way `std.json` does: only `"`, `\` and U+0000..U+001F. */
export function zigJsonString(s: string): string {
  // One regex pass instead of a per-character concatenation: a long value (a large eval answer) would
  // otherwise build a rope of millions of one-character pieces.
  return NEEDS_ESCAPE.test(s) ? '"' + s.replace(ESCAPED, escapeChar) + '"' : '"' + s + '"';
}

// deno-lint-ignore no-control-regex -- the control characters are exactly what must be escaped
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
// deno-lint-ignore no-control-regex -- as above
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
  const parts: string[] = [];
  write(value, 0);
  return parts.join("");

  function newline(level: number): void {
    if (indent) parts.push("\n" + " ".repeat(indent * level));
  }
  function write(v: OutValue, level: number): void {
    switch (v.t) {
      case "object": {
        if (v.entries.length === 0) {
          parts.push("{}");
          return;
        }
        parts.push("{");
        v.entries.forEach(([k, child], i) => {
          if (i > 0) parts.push(",");
          newline(level + 1);
          parts.push(zigJsonString(k), indent ? ": " : ":");
          write(child, level + 1);
        });
        newline(level);
        parts.push("}");
        return;
      }
      case "array": {
        if (v.items.length === 0) {
          parts.push("[]");
          return;
        }
        parts.push("[");
        v.items.forEach((child, i) => {
          if (i > 0) parts.push(",");
          newline(level + 1);
          write(child, level + 1);
        });
        newline(level);
        parts.push("]");
        return;
      }
      case "string":
        parts.push(zigJsonString(v.v));
        return;
      case "number":
        parts.push(v.text);
        return;
      case "bool":
        parts.push(v.v ? "true" : "false");
        return;
      case "null":
        parts.push("null");
        return;
    }
  }
}

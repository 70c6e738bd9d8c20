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
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const code = s.charCodeAt(i);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (code < 0x20) {
      if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else if (code === 0x08) out += "\\b";
      else if (code === 0x0c) out += "\\f";
      else out += "\\u" + code.toString(16).padStart(4, "0");
    } else out += ch;
  }
  return out + '"';
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

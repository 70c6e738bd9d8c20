/**
 * Where a config finding sits in the file: its line and column (1-based, column in characters), found
 * from the diagnostic's own position, else by walking its dotted path through the positioned JSON5 tree
 * (a key's value, the key itself, or the nearest object that exists), with an expression's byte offset
 * moved inside the string. Pure.
 *
 * @example
 * ```ts
 * import { locate } from "./locate.ts";
 * import assert from "node:assert/strict";
 * const text = '{\n  a: { b: "[X] +" }\n}';
 * const diagnostic = { severity: "error", code: "expr.SyntaxError", message: "", path: "a.b", off: 4, len: 1 } as const;
 * assert.deepEqual(locate(text, diagnostic), { line: 2, col: 16, width: 1 }); // the "+" on line 2
 * ```
 * @module
 */

import type { Diagnostic } from "../../config/mod.ts";
import { type JsonNode, parseJson5 } from "../../config/mod.ts";

/** A place in the text; `width` is how many characters the caret line marks (at least 1). */
export interface Place {
  line: number;
  col: number;
  width: number;
}

function child(node: JsonNode, segment: string): { node: JsonNode; keyCol: number; keyLine: number } | null {
  if (node.kind === "object") {
    // The last of duplicates is the one bxp keeps.
    for (let i = node.entries.length - 1; i >= 0; i--) {
      const e = node.entries[i];
      if (e.key === segment) return { node: e.value, keyCol: e.keyPos.col, keyLine: e.keyPos.line };
    }
    return null;
  }
  if (node.kind === "array" && /^\d+$/.test(segment)) {
    const item = node.items[Number(segment)];
    return item === undefined ? null : { node: item, keyCol: item.pos.col, keyLine: item.pos.line };
  }
  return null;
}

/** The character column of UTF-8 byte `off` inside a plain (escape-free) string starting at `col`. */
function columnInString(text: string, node: JsonNode, off: number): number | null {
  if (node.kind !== "string") return null;
  const lineText = text.split("\n")[node.pos.line - 1] ?? "";
  const raw = [...lineText].slice(node.pos.col - 1 + 1).join(""); // after the opening quote
  const bytes = new TextEncoder();
  let used = 0;
  let chars = 0;
  for (const ch of raw) {
    if (used >= off) break;
    if (ch === "\\") return null; // escapes shift offsets: fall back to the string's start
    used += bytes.encode(ch).length;
    chars++;
  }
  return node.pos.col + 1 + chars;
}

/** The place of `d` in `text`, or null when the text does not parse and `d` carries no position. */
export function locate(text: string, d: Diagnostic): Place | null {
  if (d.line !== undefined) return { line: d.line, col: d.col ?? 1, width: 1 };
  const parsed = parseJson5(text);
  if (!parsed.value) return null;
  let node: JsonNode = parsed.value;
  let place: Place = { line: node.pos.line, col: node.pos.col, width: 1 };
  const segments = d.path === "" ? [] : d.path.split(".");
  // Template ids and variable names may hold dots: try the longest joined segment first.
  for (let i = 0; i < segments.length;) {
    let found = null;
    let used = 0;
    for (let j = segments.length; j > i; j--) {
      const c = child(node, segments.slice(i, j).join("."));
      if (c !== null) {
        found = c;
        used = j - i;
        break;
      }
    }
    if (found === null) return place; // a missing key: point at the object that should hold it
    node = found.node;
    place = { line: found.keyLine, col: found.keyCol, width: 1 };
    i += used;
  }
  if (d.code === "config.unknown_key" && segments.length > 0) {
    // The key itself is the mistake, not its value.
    const name = segments[segments.length - 1];
    return { ...place, width: Math.max(1, [...name].length) };
  }
  if (d.off !== undefined && node.kind === "string") {
    const col = columnInString(text, node, d.off);
    return {
      line: node.pos.line,
      col: col ?? node.pos.col,
      width: Math.max(1, col === null ? 1 : d.len ?? 1),
    };
  }
  if (segments.length > 0 && node.kind !== "object" && node.kind !== "array") {
    return {
      line: node.pos.line,
      col: node.pos.col,
      width: Math.max(1, [...(node.kind === "string" ? JSON.stringify(node.value) : "")].length),
    };
  }
  return place;
}

/** The source line of `place` and a caret line under it. */
export function caretLines(text: string, place: Place): string {
  const source = (text.split("\n")[place.line - 1] ?? "").replace(/\r$/, "");
  const pad = [...source].slice(0, place.col - 1).map((ch) => (ch === "\t" ? "\t" : " ")).join("");
  return `${source}\n${pad}${"^".repeat(place.width)}`;
}

/**
 * Places config diagnostics in the editor's text: syntax errors carry a line and column; the others a
 * dotted key path (and, inside an expression, a UTF-8 byte span) that is resolved here against the parsed
 * JSON5 tree.
 *
 * @example
 * ```ts
 * import { placeDiagnostics } from "./diagnostics_map.ts";
 * import assert from "node:assert/strict";
 * const placed = placeDiagnostics("{", [{ severity: "error", code: "json5.parse_error", message: "x", path: "", line: 1, col: 2 }]);
 * assert.equal(placed.length, 1);
 * ```
 * @module
 */

import type { Diagnostic } from "../src/config/mod.ts";
import { type JsonNode, parseJson5, type SourcePos } from "../src/config/mod.ts";
import type { PlacedDiagnostic } from "./protocol.ts";

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/** Character offset of a 1-based line and column (column counted in characters). */
function offsetOf(starts: number[], text: string, line: number, col: number): number {
  const l = Math.min(Math.max(line, 1), starts.length);
  return Math.min(starts[l - 1] + Math.max(col, 1) - 1, text.length);
}

/** Character index in `s` of UTF-8 byte offset `byte` (clamped to the string). */
export function charIndexOfByte(s: string, byte: number): number {
  let bytes = 0;
  let i = 0;
  while (i < s.length && bytes < byte) {
    const c = s.codePointAt(i)!;
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    i += c >= 0x10000 ? 2 : 1;
  }
  return i;
}

interface Found {
  node: JsonNode;
  keyPos: SourcePos | null;
  complete: boolean;
}

function findPath(root: JsonNode, path: string): Found {
  let found: Found = { node: root, keyPos: null, complete: true };
  if (path === "") return found;
  const segs = path.split(".");
  let node = root;
  for (let i = 0; i < segs.length; i++) {
    let seg = segs[i];
    if (node.kind === "object") {
      // Template ids and keys may hold dots: take the longest key that matches.
      let entry = undefined;
      for (let j = segs.length; j > i && entry === undefined; j--) {
        const key = segs.slice(i, j).join(".");
        entry = node.entries.findLast((e) => e.key === key);
        if (entry !== undefined) {
          seg = key;
          i = j - 1;
        }
      }
      if (entry === undefined) return { ...found, complete: false };
      node = entry.value;
      found = { node, keyPos: entry.keyPos, complete: true };
    } else if (node.kind === "array" && /^[0-9]+$/.test(seg) && Number(seg) < node.items.length) {
      node = node.items[Number(seg)];
      found = { node, keyPos: null, complete: true };
    } else {
      return { ...found, complete: false };
    }
  }
  return found;
}

/** Places each diagnostic: `from`/`to` as character offsets into `text`. */
export function placeDiagnostics(text: string, diagnostics: readonly Diagnostic[]): PlacedDiagnostic[] {
  const starts = lineStarts(text);
  const parsed = parseJson5(text);
  const at = (pos: SourcePos) => offsetOf(starts, text, pos.line, pos.col);
  return diagnostics.map((d) => {
    let from = 0;
    let to = 0;
    if (d.line !== undefined) {
      from = offsetOf(starts, text, d.line, d.col ?? 1);
      to = Math.min(text.length, from + 1);
    } else if (parsed.value !== null) {
      const f = findPath(parsed.value, d.path);
      if (f.node.kind === "string" && f.complete && d.off !== undefined) {
        // Inside an expression: skip the opening quote, then count the expression's bytes.
        const start = at(f.node.pos) + 1;
        from = start + charIndexOfByte(f.node.value, d.off);
        to = Math.max(from + 1, start + charIndexOfByte(f.node.value, d.off + (d.len ?? 1)));
      } else if (f.keyPos !== null) {
        from = at(f.keyPos);
        to = from +
          Math.max(1, [...text.slice(from).match(/^("[^"]*"|'[^']*'|[$\w.-]+)/)?.[0] ?? " "].length);
      } else {
        from = at(f.node.pos);
        to = from + 1;
      }
    }
    const line = starts.findLastIndex((s) => s <= from) + 1;
    return {
      severity: d.severity,
      code: d.code,
      message: d.message,
      path: d.path,
      line,
      col: from - starts[line - 1] + 1,
      from,
      to: Math.min(to, text.length),
      ...(d.suggest !== undefined ? { suggest: d.suggest } : {}),
    };
  });
}

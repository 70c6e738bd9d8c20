/**
 * A small CSV reader for showing output files as tables in the page (display only: the downloaded bytes
 * are the engine's own). The delimiter is guessed from the header line.
 *
 * @example
 * ```ts
 * import { previewRows } from "./csv_preview.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(previewRows('a,b\n1,"x,y"\n', 10), [["a","b"],["1","x,y"]]);
 * ```
 * @module
 */

/** The delimiter among `,` `;` tab `|` that occurs most often outside quotes in the first line. */
export function guessDelimiter(text: string): string {
  const line = text.slice(0, Math.max(0, text.indexOf("\n")) || text.length);
  let best = ",";
  let bestCount = 0;
  for (const d of [",", ";", "\t", "|"]) {
    let n = 0;
    let quoted = false;
    for (const c of line) {
      if (c === '"') quoted = !quoted;
      else if (c === d && !quoted) n++;
    }
    if (n > bestCount) {
      best = d;
      bestCount = n;
    }
  }
  return best;
}

/** Up to `limit` records of `text` (quoted fields, doubled quotes, CRLF or LF line ends). */
export function previewRows(text: string, limit: number, delimiter = guessDelimiter(text)): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  while (i < text.length && rows.length < limit) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i++;
      continue;
    }
    if (c === '"' && field === "") quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = "";
    } else if (c === "\n" || (c === "\r" && text[i + 1] === "\n")) {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      if (c === "\r") i++;
    } else field += c;
    i++;
  }
  if ((field !== "" || row.length > 0) && rows.length < limit) rows.push([...row, field]);
  return rows;
}

/**
 * `bxp-cli --eval EXPR [--row 'Header=value,...']`: evaluates one expression against an optional row and
 * prints its value; on an error, the expression with a caret under the failing span and the error's name.
 * In `--row`, `\,` and `\=` stand for a literal comma and equals sign. Exit 0 for a value, 1 for an error.
 * @module
 */

import { evalExpr } from "../../inspect/mod.ts";
import { flagValue } from "../argv.ts";
import { writeStdout } from "./out.ts";

/** Splits `--row` text into header names and values; an entry without `=` is an error. */
export function parseRow(text: string): { headers: string[]; fields: string[] } | { error: string } {
  const headers: string[] = [];
  const fields: string[] = [];
  if (text.trim() === "") return { headers, fields };
  const parts: string[] = [];
  let cur = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\" && (text[i + 1] === "," || text[i + 1] === "=" || text[i + 1] === "\\")) {
      cur += "\u0000" + text[++i]; // keep escaped characters out of the split below
    } else if (ch === ",") {
      parts.push(cur);
      cur = "";
    } else cur += ch;
  }
  parts.push(cur);
  for (const part of parts) {
    const eq = part.indexOf("=");
    if (eq === -1) {
      return { error: `--row entry '${part.replaceAll("\u0000", "")}' has no '=' (write Header=value)` };
    }
    headers.push(part.slice(0, eq).replaceAll("\u0000", "").trim());
    fields.push(part.slice(eq + 1).replaceAll("\u0000", ""));
  }
  return { headers, fields };
}

/** The character column of UTF-8 byte `off` in `src`. */
function charColumn(src: string, off: number): number {
  const enc = new TextEncoder();
  let used = 0;
  let chars = 0;
  for (const ch of src) {
    if (used >= off) break;
    used += enc.encode(ch).length;
    chars++;
  }
  return chars;
}

/** The `--eval` mode (see `mod.ts`): runs with the whole argument vector, resolves with the exit code. */
export function run(args: readonly string[]): Promise<number> {
  const src = flagValue(args, "--eval");
  if (src === null || src === "") {
    console.error("error: --eval needs an expression, e.g. --eval \"UPPER('x')\"");
    return Promise.resolve(1);
  }
  const row = parseRow(flagValue(args, "--row") ?? "");
  if ("error" in row) {
    console.error(`error: ${row.error}`);
    return Promise.resolve(1);
  }
  const r = JSON.parse(evalExpr(src, row.headers, row.fields)) as {
    ok: boolean;
    value?: string;
    error?: string;
    detail?: string;
    off?: number;
    len?: number;
  };
  if (r.ok) {
    writeStdout(`${r.value}\n`);
    return Promise.resolve(0);
  }
  const lines = [`error: ${r.error}: ${r.detail ?? ""}`];
  if (r.off !== undefined) {
    const start = charColumn(src, r.off);
    const end = charColumn(src, r.off + (r.len ?? 1));
    lines.push(`  ${src}`, `  ${" ".repeat(start)}${"^".repeat(Math.max(1, end - start))}`);
    lines.push(`  (at byte ${r.off}, length ${r.len ?? 0})`);
  }
  console.error(lines.join("\n"));
  return Promise.resolve(1);
}

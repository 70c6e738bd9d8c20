/**
 * `PARSE_AMOUNT`: the number in a money text as real exports write it — a currency symbol or ISO code before or
 * after it, group separators, the sign in front, behind (`1.250,65-`) or as parentheses (`(1,250.65)`), a
 * minus before the symbol (`-$1250.65`). Anything else is `NotANumber`, never a silent guess: a text like
 * `12.50 fee` is refused, not read as 12.5.
 *
 * @example
 * ```ts
 * import { parseAmountText } from "./amount.ts";
 * import assert from "node:assert/strict";
 * assert.equal(parseAmountText("(1,250.65)", "."), "-1250.65");
 * assert.equal(parseAmountText("1.250,65-", ","), "-1250.65");
 * assert.equal(parseAmountText("-$1 250.65", "."), "-1250.65");
 * assert.equal(parseAmountText("12.50 fee", "."), null);
 * ```
 * @module
 */

import { ExprError } from "../errors.ts";
import type { EagerImpl } from "../spec.ts";
import { numberFailure, toNumber } from "../value.ts";

const CURRENCY_SYMBOLS = ["$", "€", "£", "¥", "₽", "₹", "₩", "₺", "zł", "Kč", "kr", "CHF", "Fr."];
/** Spaces exports put between digit groups or around the amount: space, no-break space, narrow no-break space. */
const SPACES = /[ \u00a0\u202f\t]/g;

function stripAffix(s: string): string {
  let t = s.trim();
  for (let changed = true; changed;) {
    changed = false;
    const code = /^[A-Z]{3}(?=[\s\d(+\-])|(?<=[\s\d)+\-])[A-Z]{3}$/.exec(t);
    if (code !== null) {
      t = (t.slice(0, code.index) + t.slice(code.index + 3)).trim();
      changed = true;
    }
    for (const sym of CURRENCY_SYMBOLS) {
      if (t.startsWith(sym)) {
        t = t.slice(sym.length).trim();
        changed = true;
      } else if (t.endsWith(sym)) {
        t = t.slice(0, t.length - sym.length).trim();
        changed = true;
      } else if ((t.startsWith("-") || t.startsWith("+")) && t.startsWith(sym, 1)) {
        t = t[0] + t.slice(1 + sym.length).trim();
        changed = true;
      }
    }
  }
  return t;
}

/**
 * The plain decimal text (`-1250.65`) of a money text, or null when it is not one. `decimal` is the decimal
 * separator (`.` or `,`); the other one, spaces and `'` are group separators, accepted only between groups of
 * three digits.
 */
export function parseAmountText(text: string, decimal: string): string | null {
  let t = stripAffix(text);
  if (t === "") return null;
  let negative = false;
  if (t.startsWith("(") && t.endsWith(")")) {
    negative = true;
    t = stripAffix(t.slice(1, -1));
  }
  const lead = /^[+-]/.exec(t);
  const trail = /[+-]$/.exec(t);
  if (lead !== null && trail !== null) return null;
  if (lead !== null || trail !== null) {
    if (negative) return null; // "(-12)": two signs
    negative = (lead ?? trail)![0] === "-";
    t = lead !== null ? t.slice(1) : t.slice(0, -1);
    t = stripAffix(t);
  }
  const group = decimal === "," ? "[.' \u00a0\u202f]" : "[,' \u00a0\u202f]";
  const shape = new RegExp(`^(\\d{1,3}(?:${group}\\d{3})+|\\d+)(?:\\${decimal}(\\d+))?$`);
  const m = shape.exec(t) ?? shape.exec(t.replace(SPACES, ""));
  if (m === null) return null;
  const int = m[1].replace(/[^\d]/g, "");
  const digits = m[2] === undefined ? int : `${int}.${m[2]}`;
  return negative && /[1-9]/.test(digits) ? `-${digits}` : digits;
}

/** PARSE_AMOUNT(text [, decimal_separator]): the amount as a number; "" for empty text. */
export const parseAmountImpl: EagerImpl = (args) => {
  const text = args[0] as string;
  if (text.trim() === "") return "";
  const decimal = args.length > 1 ? args[1] as string : ".";
  if (decimal !== "." && decimal !== ",") {
    throw new ExprError("BadInput", `PARSE_AMOUNT: decimal_separator must be '.' or ',', got '${decimal}'`);
  }
  const plain = parseAmountText(text, decimal);
  if (plain === null) {
    throw new ExprError(
      "NotANumber",
      `PARSE_AMOUNT: '${text}' is not an amount (decimal separator '${decimal}')`,
    );
  }
  try {
    return toNumber(plain);
  } catch {
    throw numberFailure(plain);
  }
};

/**
 * Number-shape reading for the sniffer: which decimal separator and thousands style a value shows.
 *
 * @example
 * ```ts
 * import { numberShape } from "./numbers.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(numberShape("1 234,56"), { integer: false, decimal: ",", thousands: " " });
 * // ambiguous: 1234 or 1.234
 * assert.deepEqual(numberShape("1,234"), { integer: false, decimal: null, thousands: null });
 * ```
 * @module
 */

/** What one value says about number formatting; null for a value that is not a plain number. */
export interface NumberShape {
  /** True for digits only (with an optional sign). */
  integer: boolean;
  /** The decimal separator the value proves, or null when it shows none or is ambiguous. */
  decimal: "." | "," | null;
  /** The thousands grouping the value proves ("" = none seen), or null when ambiguous. */
  thousands: "" | "," | "." | " " | "'" | null;
}

const INTEGER = /^[+-]?\d+$/;
const PLAIN_DOT = /^[+-]?\d*\.\d+$/;
const PLAIN_COMMA = /^[+-]?\d*,\d+$/;
// No leading "+": "+420 776 123 456" is a phone number, not a grouped integer.
const GROUPED = /^-?\d{1,3}([,. '])\d{3}(?:\1\d{3})*(?:([.,])\d+)?$/;

/** The number shape of one trimmed value, or null when it is not a plain number. */
export function numberShape(v: string): NumberShape | null {
  if (INTEGER.test(v)) return { integer: true, decimal: null, thousands: "" };
  const grouped = GROUPED.exec(v);
  if (grouped) {
    const group = grouped[1] as "," | "." | " " | "'";
    const dec = grouped[2] as "." | "," | undefined;
    if (dec !== undefined) {
      if (dec === group) return null;
      return { integer: false, decimal: dec, thousands: group };
    }
    // "1,234" / "1.234": one group of three is a thousands mark or a decimal with three places.
    if ((group === "," || group === ".") && v.split(group).length === 2) {
      return { integer: false, decimal: null, thousands: null };
    }
    return { integer: true, decimal: null, thousands: group };
  }
  if (PLAIN_DOT.test(v)) return { integer: false, decimal: ".", thousands: "" };
  if (PLAIN_COMMA.test(v)) return { integer: false, decimal: ",", thousands: "" };
  return null;
}

/**
 * Seeded generators for the fast-path property tests: numeric-looking text in every shape the
 * number readers meet (plain, signed, leading/trailing zeros, exponents, grouping, whitespace, range
 * limits, nan/inf, junk), so each fast path can be checked against the general path on many inputs.
 * @module
 */

import { Rng } from "../_support/rng.ts";

/** The shared seeded PRNG (mulberry32): failures reproduce from the seed. */
export { Rng };

/** Hand-picked edge cases: range limits, zeros, signs, odd shapes. */
export const EDGE_NUMBERS: readonly string[] = [
  "",
  "0",
  "-0",
  "+0",
  "-0.0",
  "0.000000000000",
  "-0.000000000000",
  "00",
  "007",
  "0.5",
  ".5",
  "-.5",
  "+.5",
  "5.",
  "-5.",
  ".",
  "-",
  "+",
  "+-1",
  "--1",
  "1.2.3",
  "100",
  "100.00",
  "99.999999999999",
  "100.000000000001",
  "999999999999999",
  "-999999999999999",
  "999999999999999.999999999999",
  "-999999999999999.999999999999",
  "1000000000000000",
  "9999999999999999.5",
  "0.0000000000005",
  "-0.0000000000005",
  "0.1234567890125",
  "170141183460469231731687303.715884105727",
  "-170141183460469231731687303.715884105728",
  "170141183460469231731687303.715884105728",
  "1e3",
  "1E3",
  "1.5e-3",
  "-2.5E+2",
  "1e",
  "1e12345",
  "1e-9999",
  "1,234.56",
  "-1,234",
  "1,23",
  "12,345,678.9",
  " 1",
  "1 ",
  " ",
  "\t7",
  "nan",
  "NaN",
  "-inf",
  "+Infinity",
  " inf ",
  "abc",
  "12abc",
  "true",
  "false",
  "١٢٣",
];

/** Numeric-looking text: plain decimals of every size most of the time, other shapes otherwise. */
export function numericText(rng: Rng): string {
  const r = rng.next();
  if (r < 0.15) return rng.pick(EDGE_NUMBERS);
  if (r < 0.85) {
    const sign = rng.pick(["", "", "", "-", "+"]);
    const intDigits = rng.pick([0, 1, 1, 2, 3, 3, 4, 6, 9, 12, 14, 15, 15, 16, 18, 27]);
    const fracDigits = rng.pick([-1, -1, 0, 1, 2, 2, 2, 3, 6, 11, 12, 12, 13, 15]);
    let s = sign + (rng.next() < 0.1 ? "0" : "") + rng.digits(intDigits);
    if (fracDigits >= 0) s += "." + rng.digits(fracDigits) + (rng.next() < 0.2 ? "000" : "");
    return s;
  }
  if (r < 0.92) {
    const mant = rng.digits(1 + rng.below(5)) + (rng.next() < 0.5 ? "." + rng.digits(rng.below(4)) : "");
    return rng.pick(["", "-"]) + mant + rng.pick(["e", "E"]) + rng.pick(["", "+", "-"]) +
      rng.digits(rng.below(5));
  }
  const base = rng.digits(1 + rng.below(3)) + "," + rng.digits(3) +
    (rng.next() < 0.5 ? "." + rng.digits(2) : "");
  return rng.pick([base, " " + base, base + "x", "-" + base]);
}

import assert from "node:assert/strict";
import { formatDecimal, parseDecimal } from "../../src/lang/decimal.ts";
import { canonicalNumericString, numberFailure, toNumber, tryToNumber } from "../../src/lang/value.ts";
import { ExprError } from "../../src/lang/errors.ts";
import { EDGE_NUMBERS, numericText, Rng } from "./_generators.ts";

/** The general algorithm: decide everything through the full decimal parse (no shape shortcuts). */
function canonicalReference(s: string): string {
  const n = s.length;
  if (n === 0) return s;
  const c0 = s.charCodeAt(0);
  const isDigit = (c: number) => c >= 48 && c <= 57;
  if (!(isDigit(c0) || c0 === 45 || c0 === 43 || c0 === 46)) return s;
  if (n >= 2 && c0 === 48 && isDigit(s.charCodeAt(1))) return s;
  if (n > 15 && /^[0-9]+$/.test(s)) return s;
  const parsed = parseDecimal(s);
  if (typeof parsed !== "bigint") return s;
  if (s.indexOf("e") >= 0 || s.indexOf("E") >= 0) return formatDecimal(parsed);
  if (s.indexOf(".") < 0) return s;
  let end = n;
  while (end > 1 && s.charCodeAt(end - 1) === 48) end--;
  if (end > 0 && s.charCodeAt(end - 1) === 46) end--;
  return s.slice(0, end);
}

Deno.test("canonicalNumericString's shape shortcuts agree with the full-parse algorithm", () => {
  const rng = new Rng(31);
  const inputs = [...EDGE_NUMBERS, "1.50", "-0.0", "+1.000", "1.", "-.50", "1.2e3", "1.5.0", "0.10x", "12-3"];
  for (let i = 0; i < 300_000; i++) {
    const t = numericText(rng);
    inputs.push(rng.next() < 0.2 ? t + rng.pick(["0", "00", ".0", "x", "-", "e1"]) : t);
  }
  for (const s of inputs) assert.equal(canonicalNumericString(s), canonicalReference(s), JSON.stringify(s));
});

Deno.test("parseDecimal's unchecked-range fast path agrees with exact bigint arithmetic", () => {
  const rng = new Rng(37);
  for (let i = 0; i < 100_000; i++) {
    const s = rng.pick(["", "-"]) + rng.digits(1 + rng.below(15)) + "e" + String(rng.below(40) - 12);
    const [mant, exp] = s.split("e");
    const shift = Number(exp) + 12;
    const exact = shift >= 0 ? BigInt(mant) * 10n ** BigInt(shift) : null;
    if (exact === null) continue;
    const inRange = exact <= (1n << 127n) - 1n && exact >= -(1n << 127n);
    assert.equal(parseDecimal(s), inRange ? exact : "overflow", s);
  }
});

Deno.test("numberFailure is the error toNumber throws wherever tryToNumber gives null", () => {
  const rng = new Rng(7);
  const texts = ["abc", "1e300", "-1e27", "12,34,5", "1.2.3", "--1", "nan", "1 000", "0x10", ...EDGE_NUMBERS];
  for (let i = 0; i < 2000; i++) texts.push(numericText(rng), numericText(rng) + "x");
  for (const text of texts) {
    if (tryToNumber(text) !== null) {
      assert.equal(toNumber(text), tryToNumber(text), text);
      continue;
    }
    const expected = numberFailure(text);
    assert.throws(() => toNumber(text), (e: unknown) => {
      assert.ok(e instanceof ExprError);
      assert.deepEqual([e.error, e.detail], [expected.error, expected.detail], text);
      return true;
    });
  }
  assert.equal(numberFailure("abc").error, "NotANumber");
  assert.equal(numberFailure("1e300").error, "NumberOutOfRange");
});

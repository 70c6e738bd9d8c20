import assert from "node:assert/strict";
import { comparePlain, PlainDecimalReader } from "../../src/lang/plain_decimal.ts";
import { MAX_RAW, MIN_RAW, SCALE } from "../../src/lang/decimal.ts";
import { tryToNumber } from "../../src/lang/value.ts";
import { EDGE_NUMBERS, numericText, Rng } from "./_generators.ts";

const PLAIN_SHAPE = /^[+-]?(?=\.?\d)\d{0,15}(\.\d{0,12})?$/;
const rawOf = (r: PlainDecimalReader): bigint => BigInt(r.int) * SCALE + BigInt(r.frac);
const sign = (x: bigint): number => x < 0n ? -1 : x > 0n ? 1 : 0;

Deno.test("read accepts exactly the plain shape and gives the value tryToNumber gives", () => {
  const rng = new Rng(7);
  const reader = new PlainDecimalReader();
  const inputs = [...EDGE_NUMBERS];
  for (let i = 0; i < 200_000; i++) inputs.push(numericText(rng));
  let accepted = 0;
  for (const s of inputs) {
    const ok = reader.read(s);
    assert.equal(ok, PLAIN_SHAPE.test(s), `shape of ${JSON.stringify(s)}`);
    if (!ok) continue;
    accepted++;
    assert.equal(rawOf(reader), tryToNumber(s), `value of ${JSON.stringify(s)}`);
    assert.ok(Number.isSafeInteger(reader.int) && Math.abs(reader.frac) < 1e12, s);
  }
  assert.ok(accepted > 100_000, `too few plain inputs generated: ${accepted}`);
});

Deno.test("comparePlain orders like the bigint values, signs and -0 included", () => {
  const rng = new Rng(11);
  const a = new PlainDecimalReader();
  const b = new PlainDecimalReader();
  const plain: string[] = [];
  while (plain.length < 3000) {
    const s = numericText(rng);
    if (a.read(s)) plain.push(s);
  }
  plain.push("-0", "0", "+0", "-0.000", ".0", "-.000000000001", "0.000000000001");
  for (let i = 0; i < 100_000; i++) {
    const x = rng.pick(plain);
    const y = rng.next() < 0.1 ? x : rng.pick(plain);
    a.read(x);
    b.read(y);
    const expected = sign((tryToNumber(x) as bigint) - (tryToNumber(y) as bigint));
    assert.equal(comparePlain(a.int, a.frac, b.int, b.frac), expected, `${x} vs ${y}`);
  }
});

Deno.test("load takes raw constants with a safe integer part and refuses the rest", () => {
  const r = new PlainDecimalReader();
  const safe = BigInt(Number.MAX_SAFE_INTEGER) * SCALE;
  for (
    const raw of [0n, 1n, -1n, SCALE, -SCALE, 123_456_789n, -999_999_999_999n, safe, -safe, safe + SCALE - 1n]
  ) {
    assert.ok(r.load(raw), String(raw));
    assert.equal(rawOf(r), raw);
  }
  for (const raw of [safe + SCALE, -safe - SCALE, MAX_RAW, MIN_RAW]) {
    assert.equal(r.load(raw), false, String(raw));
  }
  const rng = new Rng(3);
  const other = new PlainDecimalReader();
  for (let i = 0; i < 50_000; i++) {
    const raw = BigInt(rng.digits(1 + rng.below(20))) * (rng.next() < 0.5 ? -1n : 1n);
    const s = numericText(rng);
    if (!r.load(raw) || !other.read(s)) continue;
    const expected = sign(raw - (tryToNumber(s) as bigint));
    assert.equal(comparePlain(r.int, r.frac, other.int, other.frac), expected, `${raw} vs ${s}`);
  }
});

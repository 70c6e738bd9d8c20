/**
 * Shared fuzzing setup: fixed seeds (a failure prints its seed and path, and re-running reproduces it),
 * a time bound per suite, and a mutator that damages known-good inputs the way hostile or sloppy
 * writers do (cut, duplicated, spliced, with stray delimiters, quotes, control bytes and odd Unicode).
 *
 * @module
 */

import fc from "fast-check";

/** Seed of every suite; set BXP_FUZZ_SEED to explore others (the failure message names the seed). */
export const FUZZ_SEED: number = (() => {
  const given = Number(Deno.env.get("BXP_FUZZ_SEED"));
  return Number.isInteger(given) && given !== 0 ? given : 0x6b7870;
})();

/** fast-check parameters: `numRuns` cases, stopping early (not failing) after `seconds`. */
export function fuzzParams(numRuns: number, seconds = 3): fc.Parameters<unknown> {
  return {
    seed: FUZZ_SEED,
    numRuns,
    interruptAfterTimeLimit: seconds * 1000,
    markInterruptAsFailure: false,
    endOnFailure: true,
  };
}

/** Characters that matter to one of the parsers under test. */
const NASTY = [
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ";",
  ":",
  "'",
  '"',
  "`",
  "\\",
  "/",
  "*",
  "$",
  "#",
  "-",
  "+",
  ".",
  "\n",
  "\r",
  "\t",
  "\0",
  " ",
  "\u00a0",
  "\u2028",
  "\ufeff",
  "\ud800",
  "é",
  "😀",
  "0",
  "9",
  "e",
  "E",
  "Infinity",
  "NaN",
  "null",
  "true",
  "//",
  "/*",
  "*/",
  "''",
  '""',
  "\\u",
  "\\x",
  "0x",
];

/** A mutation applied to a string. */
type Mutation = (text: string) => string;

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.nat(), fc.constantFrom(...NASTY)).map(([at, s]): Mutation => (t) => {
    const i = t.length === 0 ? 0 : at % (t.length + 1);
    return t.slice(0, i) + s + t.slice(i);
  }),
  fc.tuple(fc.nat(), fc.nat(8)).map(([at, n]): Mutation => (t) => {
    const i = t.length === 0 ? 0 : at % t.length;
    return t.slice(0, i) + t.slice(i + n + 1);
  }),
  fc.tuple(fc.nat(), fc.nat(), fc.nat(3)).map(([a, b, times]): Mutation => (t) => {
    if (t.length === 0) return t;
    const i = a % t.length;
    const j = i + (b % (t.length - i));
    return t.slice(0, j) + t.slice(i, j).repeat(times + 1) + t.slice(j);
  }),
  fc.nat().map((at): Mutation => (t) => t.slice(0, t.length === 0 ? 0 : at % (t.length + 1))),
  fc.tuple(fc.nat(), fc.string({ unit: "binary", maxLength: 4 })).map(([at, s]): Mutation => (t) => {
    const i = t.length === 0 ? 0 : at % t.length;
    return t.slice(0, i) + s + t.slice(i + s.length);
  }),
);

/** A seed text from `seeds` damaged by one to six mutations. */
export function mutated(seeds: readonly string[]): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...seeds), fc.array(mutation, { minLength: 1, maxLength: 6 }))
    .map(([seed, ops]) => ops.reduce((text, op) => op(text), seed));
}

/** Strings built from the nasty pieces and random text. */
export const nastyText: fc.Arbitrary<string> = fc.array(
  fc.oneof(
    fc.constantFrom(...NASTY),
    fc.string({ maxLength: 6 }),
    fc.string({ unit: "binary", maxLength: 3 }),
  ),
  { maxLength: 40 },
).map((parts) => parts.join(""));

/** Fails when `work` takes longer than `ms` (a pathological but finite slowdown is a bug too). */
export function withinTime<T>(ms: number, what: string, work: () => T): T {
  const started = performance.now();
  const result = work();
  const took = performance.now() - started;
  if (took > ms) throw new Error(`${what} took ${Math.round(took)} ms (limit ${ms} ms)`);
  return result;
}

/**
 * A small seeded pseudo-random generator for the benchmark workload: the same seed always yields the same
 * input file, so every run (and every peer in a run) measures identical bytes.
 *
 * @example
 * ```ts
 * import { SeededRandom } from "./random.ts";
 * const rng = new SeededRandom(42);
 * import assert from "node:assert/strict";
 * // the same number for seed 42, every time
 * assert.equal(rng.nextUint32(), new SeededRandom(42).nextUint32());
 * ```
 * @module
 */

/**
 * A 32-bit SplitMix-style generator. Statistical quality is modest but ample for filler text; what matters
 * here is speed (it runs billions of times for the widest points) and determinism across machines.
 */
export class SeededRandom {
  #state: number;

  /** Starts the sequence from `seed` (any integer; only its low 32 bits are used). */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** The next unsigned 32-bit value. */
  nextUint32(): number {
    this.#state = (this.#state + 0x9e3779b9) | 0;
    let z = this.#state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  }

  /** A uniform integer in `[min, max]` (both inclusive). */
  intBetween(min: number, max: number): number {
    return min + Math.floor((this.nextUint32() / 0x1_0000_0000) * (max - min + 1));
  }
}

/**
 * A small seeded pseudo-random generator (mulberry32), shared by the differential fuzzer and the
 * fast-path property tests: the same seed gives the same values on every machine, so a failure's seed
 * replays it exactly. Changing `next` changes every generated case of every seed.
 * @module
 */

/** Seeded random choices. */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi] (both ends included). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** An integer in [0, n) (`n` excluded). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }

  /** `n` distinct elements of `items` (in random order). */
  some<T>(items: readonly T[], n: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < n && pool.length > 0) {
      out.push(pool.splice(this.below(pool.length), 1)[0]);
    }
    return out;
  }

  /** `n` random decimal digits. */
  digits(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += String(this.below(10));
    return s;
  }

  /** A seed for a sub-generator (one case), so cases do not shift when one changes. */
  fork(): number {
    return Math.floor(this.next() * 0x7fffffff) + 1;
  }
}

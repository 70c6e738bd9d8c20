/**
 * Whether a range of a text holds any of a few characters, answered from the next position of each: found
 * with the native search and kept with where that search started, so ranges visited left to right (the
 * lines of a block, the fields of a line) cost one search per occurrence rather than a look at every
 * character. A range before an earlier search's start searches again, so any order is answered right.
 *
 * @example
 * ```ts
 * import { CharFinder } from "./char_finder.ts";
 * import assert from "node:assert/strict";
 * const finder = new CharFinder(["\r", '"']);
 * const text = 'ab,cd,"e"';
 * assert.equal(finder.noneIn(text, 0, 5), true);
 * assert.equal(finder.noneIn(text, 6, 9), false); // a quote
 * ```
 * @module
 */

/** Past any string position (V8 caps string length below 2^29), and a small integer: see csv_reader.ts. */
const NONE = 0x3fffffff;

/** Answers {@link CharFinder.noneIn} for a fixed set of characters over one text at a time. */
export class CharFinder {
  readonly #chars: readonly string[];
  /** The next position of each character at or after `#from`'s (NONE: none). */
  readonly #next: number[];
  /** Where each character's last search started (NONE: not searched in `#text`). */
  readonly #from: number[];
  #text = "";

  /** `chars`: single characters (UTF-16 code units) to look for. */
  constructor(chars: readonly string[]) {
    this.#chars = [...chars];
    this.#next = this.#chars.map(() => NONE);
    this.#from = this.#chars.map(() => NONE);
  }

  /** True when `text[a, b)` holds none of the characters. */
  noneIn(text: string, a: number, b: number): boolean {
    const chars = this.#chars;
    const next = this.#next;
    const from = this.#from;
    if (text !== this.#text) {
      this.#text = text;
      from.fill(NONE);
    }
    for (let i = 0; i < chars.length; i++) {
      let at = next[i];
      // Valid when the search started at or before `a` and found nothing before `at`.
      if (from[i] > a || at < a) {
        at = text.indexOf(chars[i], a);
        next[i] = at = at === -1 ? NONE : at;
        from[i] = a;
      }
      if (at < b) return false;
    }
    return true;
  }
}

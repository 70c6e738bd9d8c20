/**
 * When worker threads join a pass. A worker is not free on this runtime: its isolate loads the engine, then
 * compiles and tiers up the hot code on its own while the compiler threads compete with the evaluators for
 * cores, and the calling thread, which applies results in file order, waits on the worker's first (cold)
 * blocks. On two cores a 14 MB input converted about 0.2 s slower in parallel than serially, and the two
 * modes broke even only near 57 MB (bxp's bench config). So by default the calling thread starts each pass
 * alone, times its own blocks, and brings the workers in once the rest of the input would keep it busy for
 * at least a threshold: a cheap config needs a larger input to be worth it than an expensive one.
 *
 * @example
 * ```ts
 * import { WorkerRamp } from "./worker_ramp.ts";
 * import assert from "node:assert/strict";
 * const ramp = new WorkerRamp(500);
 * for (let i = 0; i < 3; i++) ramp.observe(512 * 1024, 8); // the calling thread's own blocks
 * assert.equal(ramp.shouldJoin(10 * 1024 * 1024), false); // about 160 ms of work left
 * assert.equal(ramp.shouldJoin(500 * 1024 * 1024), true);
 * ```
 * @module
 */

/** A forecast from blocks shorter than this is noise (timer resolution, a scheduling hiccup). */
const MIN_SPAN_MS = 2;

/** Forecasts the calling thread's remaining work from its own block timings. */
export class WorkerRamp {
  readonly #thresholdMs: number;
  readonly #minSamples: number;
  /** The fastest span seen, in ms per byte: the code warms up as it runs, so the best span is the forecast. */
  #bestRate = Infinity;
  #samples = 0;
  /** Blocks too short to time on their own are summed until the span is long enough. */
  #spanBytes = 0;
  #spanMs = 0;

  /**
   * `thresholdMs`: the least forecast remaining work that brings the workers in; `minSamples`: timed spans
   * before any forecast (the first blocks run cold and say little).
   */
  constructor(thresholdMs: number, minSamples = 3) {
    this.#thresholdMs = thresholdMs;
    this.#minSamples = minSamples;
  }

  /** Records one block the calling thread evaluated: its size and how long it took. */
  observe(bytes: number, ms: number): void {
    this.#spanBytes += bytes;
    this.#spanMs += ms;
    if (this.#spanMs < MIN_SPAN_MS || this.#spanBytes === 0) return;
    this.#bestRate = Math.min(this.#bestRate, this.#spanMs / this.#spanBytes);
    this.#samples++;
    this.#spanBytes = 0;
    this.#spanMs = 0;
  }

  /** True when `remainingBytes` of input would keep the calling thread busy for at least the threshold. */
  shouldJoin(remainingBytes: number): boolean {
    return this.#samples >= this.#minSamples && remainingBytes * this.#bestRate >= this.#thresholdMs;
  }
}

/**
 * Turns one member's compressed bytes, pushed in chunks, into its uncompressed bytes, checking what the
 * central directory promised: the size (never exceeded, so a lying archive cannot fill memory) and the
 * CRC-32. Synchronous and free of I/O, so it runs the same on the calling thread and on a worker.
 *
 * @example
 * ```ts
 * import { deflateSync } from "fflate";
 * import { crc32 } from "./crc32.ts";
 * import { MemberInflater } from "./member_inflater.ts";
 * const data = new TextEncoder().encode("a,b\n1,2\n");
 * const inflater = await MemberInflater.open({ method: 8, size: data.length, crc32: crc32(data), name: "x.csv" });
 * import assert from "node:assert/strict";
 * const pieces = inflater.push(deflateSync(data), true);
 * assert.deepEqual(pieces, [data]);
 * ```
 * @module
 */

import type { Inflate } from "fflate";
import { crc32 } from "./crc32.ts";

let fflateModule: Promise<typeof import("fflate")> | null = null;

/**
 * fflate, loaded on first need: a deflated member read whole or in parts, or a runtime without native raw
 * inflate. Loading it at startup cost every bxp-cli process and each of its worker threads about 15 MB of
 * memory and 40 ms, though Deno inflates streamed members natively.
 */
function loadFflate(): Promise<typeof import("fflate")> {
  return fflateModule ??= import("fflate");
}

/** What the central directory says about a member. */
export interface MemberFacts {
  /** 0 store, 8 deflate. */
  method: number;
  /** Uncompressed size. */
  size: number;
  crc32: number;
  /** For messages. */
  name: string;
}

/** A member's bytes do not match what the archive promised, or cannot be inflated. */
export class MemberDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MemberDataError";
  }
}

/**
 * A deflate input slice is inflated at most this many bytes at a time: fflate hands back everything one push
 * produced, so small slices keep a highly compressed member's output per call small.
 */
const SLICE = 32 * 1024;

/** Throws {@link MemberDataError} for a compression method other than 0 (stored) or 8 (deflate). */
function checkMethod(facts: MemberFacts): void {
  if (facts.method !== 0 && facts.method !== 8) {
    throw new MemberDataError(`member '${facts.name}' uses compression method ${facts.method}`);
  }
}

/** One member being inflated. */
export class MemberInflater {
  readonly #facts: MemberFacts;
  readonly #inflate: Inflate | null;
  #pieces: Uint8Array[] = [];
  #produced = 0;
  #crc = 0;
  #done = false;

  /** The inflater of one member. Throws {@link MemberDataError} for a compression method other than 0 or 8. */
  static async open(facts: MemberFacts): Promise<MemberInflater> {
    checkMethod(facts);
    return new MemberInflater(facts, facts.method === 8 ? (await loadFflate()).Inflate : null);
  }

  private constructor(facts: MemberFacts, inflate: typeof Inflate | null) {
    this.#facts = facts;
    this.#inflate = inflate === null ? null : new inflate((data) => this.#take(data));
  }

  /** Uncompressed bytes so far. */
  get produced(): number {
    return this.#produced;
  }

  /**
   * Inflates the next compressed chunk; `final` marks the member's last one (then size and CRC are checked).
   * Returns the uncompressed pieces (arrays the caller owns). Throws {@link MemberDataError}.
   */
  push(chunk: Uint8Array, final: boolean): Uint8Array[] {
    if (this.#done) throw new MemberDataError(`member '${this.#facts.name}': data after its end`);
    this.#pieces = [];
    if (this.#inflate === null) {
      this.#take(chunk);
    } else {
      try {
        if (chunk.length === 0) this.#inflate.push(chunk, final);
        for (let at = 0; at < chunk.length; at += SLICE) {
          const end = Math.min(chunk.length, at + SLICE);
          this.#inflate.push(chunk.subarray(at, end), final && end === chunk.length);
        }
      } catch (err) {
        if (err instanceof MemberDataError) throw err;
        throw new MemberDataError(`member '${this.#facts.name}': ${(err as Error).message}`);
      }
    }
    if (final) {
      this.#done = true;
      if (this.#produced !== this.#facts.size) {
        throw new MemberDataError(
          `member '${this.#facts.name}' holds ${this.#produced} bytes, the archive says ${this.#facts.size}`,
        );
      }
      if (this.#crc !== this.#facts.crc32) {
        throw new MemberDataError(`member '${this.#facts.name}' fails its CRC-32 check (damaged archive)`);
      }
    }
    return this.#pieces;
  }

  #take(data: Uint8Array): void {
    if (data.length === 0) return;
    this.#produced += data.length;
    if (this.#produced > this.#facts.size) {
      throw new MemberDataError(
        `member '${this.#facts.name}' holds more than the ${this.#facts.size} bytes the archive says`,
      );
    }
    this.#crc = crc32(data, this.#crc);
    this.#pieces.push(data);
  }
}

/** Compressed bytes handed to the inflater at a time (bounds one step's output for a highly compressed member). */
const STREAM_SLICE = 16 * 1024;

/** True where the runtime inflates natively (`DecompressionStream("deflate-raw")`: Deno, current browsers). */
function nativeRawInflate(): boolean {
  if (typeof DecompressionStream === "undefined") return false;
  try {
    new DecompressionStream("deflate-raw");
    return true;
  } catch {
    return false;
  }
}

let nativeAnswer: boolean | null = null;

/**
 * {@link nativeRawInflate}, asked once on first need: the first `DecompressionStream` loads the runtime's
 * compression module, 7-15 ms of every thread's start when it was asked at import.
 */
function hasNativeRawInflate(): boolean {
  return nativeAnswer ??= nativeRawInflate();
}

/** fflate's streaming inflate as a transform (where the runtime has no native raw inflate). */
function fflateInflate(): TransformStream<Uint8Array, Uint8Array> {
  let inflate: Inflate;
  return new TransformStream({
    async start(controller) {
      const { Inflate } = await loadFflate();
      inflate = new Inflate((data) => {
        if (data.length > 0) controller.enqueue(data);
      });
    },
    transform(chunk) {
      inflate.push(chunk, false);
    },
    flush() {
      inflate.push(new Uint8Array(0), true);
    },
  });
}

/** Splits written chunks into slices of at most `size` bytes. */
function slicer(size: number): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream({
    transform(chunk, controller) {
      if (chunk.length <= size) controller.enqueue(chunk);
      else for (let at = 0; at < chunk.length; at += size) controller.enqueue(chunk.subarray(at, at + size));
    },
  });
}

/**
 * One member's inflation as a stream pair: write its compressed chunks to `writable` (then close it), read
 * its uncompressed pieces from `readable`, which errors with a {@link MemberDataError} when the bytes are
 * not what the archive promised (size exceeded or short, CRC-32 wrong, deflate data broken). Inflates
 * natively where the runtime can (several times faster than fflate), else (or with `native` false) with
 * fflate.
 *
 * A deflated member (here raw-deflated with fflate, its CRC-32 from the sibling crc32.ts) comes back whole:
 *
 * @example
 * ```ts
 * import { deflateSync } from "fflate";
 * import { crc32 } from "./crc32.ts";
 * import { memberInflateStream } from "./member_inflater.ts";
 * import assert from "node:assert/strict";
 * const text = new TextEncoder().encode("a,b\n".repeat(100));
 * const facts = { method: 8, size: text.length, crc32: crc32(text), name: "a.csv" };
 * const { writable, readable } = memberInflateStream(facts);
 * const [, out] = await Promise.all([
 *   ReadableStream.from([deflateSync(text)]).pipeTo(writable),
 *   new Response(readable).bytes(),
 * ]);
 * assert.deepEqual(out, text);
 * ```
 */
export function memberInflateStream(
  facts: MemberFacts,
  native: boolean = hasNativeRawInflate(),
): { writable: WritableStream<Uint8Array>; readable: ReadableStream<Uint8Array> } {
  checkMethod(facts);
  let produced = 0;
  let crc = 0;
  const check = new TransformStream<Uint8Array, Uint8Array>({
    transform(piece, controller) {
      produced += piece.length;
      if (produced > facts.size) {
        throw new MemberDataError(
          `member '${facts.name}' holds more than the ${facts.size} bytes the archive says`,
        );
      }
      crc = crc32(piece, crc);
      controller.enqueue(piece);
    },
    flush() {
      if (produced !== facts.size) {
        throw new MemberDataError(
          `member '${facts.name}' holds ${produced} bytes, the archive says ${facts.size}`,
        );
      }
      if (crc !== facts.crc32) {
        throw new MemberDataError(`member '${facts.name}' fails its CRC-32 check (damaged archive)`);
      }
    },
  });
  if (facts.method === 0) return { writable: check.writable, readable: check.readable };
  const input = slicer(STREAM_SLICE);
  const inflate: TransformStream<Uint8Array, Uint8Array> = native
    ? new DecompressionStream("deflate-raw") as unknown as TransformStream<Uint8Array, Uint8Array>
    : fflateInflate();
  input.readable.pipeTo(inflate.writable).catch(() => {});
  inflate.readable.pipeTo(check.writable).catch(() => {});
  // Inflate errors (broken deflate data) come out named after the member, as the size and CRC checks do.
  return { writable: input.writable, readable: wrapErrors(check.readable, facts.name) };
}

/** The same stream, its errors turned into {@link MemberDataError}s naming the member. */
function wrapErrors(source: ReadableStream<Uint8Array>, name: string): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        controller.error(
          err instanceof MemberDataError
            ? err
            : new MemberDataError(`member '${name}': ${err instanceof Error ? err.message : String(err)}`),
        );
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

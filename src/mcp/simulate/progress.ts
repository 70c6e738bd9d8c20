/**
 * Progress of a simulation: bxp-cli's `bxp-progress {...}` stderr lines parsed and stripped from the
 * diagnostics, and a monotonic reporter so the MCP progress value only ever grows (the spec requires it)
 * while still moving at every heartbeat, which lets a client reset its request timeout on progress.
 *
 * @module
 */

/** The prefix of bxp-cli's `--progress=json` stderr lines. */
export const PROGRESS_PREFIX = "bxp-progress ";

/** One progress report of bxp-cli. */
export interface CliProgress {
  records: number;
  bytes: number;
  /** Total input bytes, 0 when unknown. */
  total_bytes: number;
}

/**
 * The progress carried by one stderr line (without its newline), or null when the line is not a
 * well-formed `bxp-progress` line.
 *
 * @example
 * ```ts
 * import { parseProgressLine } from "./progress.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   parseProgressLine('bxp-progress {"records":10,"bytes":200,"total_bytes":1000}'),
 *   { records: 10, bytes: 200, total_bytes: 1000 },
 * );
 * assert.equal(parseProgressLine("warning: x"), null);
 * ```
 */
export function parseProgressLine(line: string): CliProgress | null {
  if (!line.startsWith(PROGRESS_PREFIX)) return null;
  let value: unknown;
  try {
    value = JSON.parse(line.slice(PROGRESS_PREFIX.length));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const num = (x: unknown) => typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : null;
  const records = num(v.records);
  const bytes = num(v.bytes);
  const total = num(v.total_bytes) ?? 0;
  if (records === null || bytes === null) return null;
  return { records, bytes, total_bytes: total };
}

/**
 * Splits a byte stream into lines, hands `bxp-progress` lines to `onProgress` and keeps every other byte
 * (up to `cap`, the rest counted as dropped). A line longer than 64 KiB is never a progress line; it is
 * passed through as ordinary output.
 */
export class StderrFilter {
  readonly #cap: number;
  readonly #onProgress: (progress: CliProgress) => void;
  readonly #kept: Uint8Array[] = [];
  #keptBytes = 0;
  #dropped = 0;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  readonly #decoder = new TextDecoder();

  /** A filter keeping at most `cap` bytes of non-progress output. */
  constructor(cap: number, onProgress: (progress: CliProgress) => void) {
    this.#cap = cap;
    this.#onProgress = onProgress;
  }

  /** Feed the next chunk. */
  push(chunk: Uint8Array): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.#pending.push(chunk.subarray(start, nl + 1));
      this.#pendingBytes += nl + 1 - start;
      this.#endLine();
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.#pendingBytes + rest.length > 64 * 1024) {
        // Too long for a progress line: flush what is pending as plain output.
        this.#flushPending();
        this.#keep(rest);
      } else {
        this.#pending.push(rest.slice());
        this.#pendingBytes += rest.length;
      }
    }
  }

  /** The kept output after the stream ended. */
  finish(): { bytes: Uint8Array; dropped: number } {
    this.#flushPending();
    const bytes = new Uint8Array(this.#keptBytes);
    let at = 0;
    for (const part of this.#kept) {
      bytes.set(part, at);
      at += part.length;
    }
    return { bytes, dropped: this.#dropped };
  }

  #endLine(): void {
    const line = joinParts(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    const text = this.#decoder.decode(line).replace(/\r?\n$/, "");
    const progress = parseProgressLine(text);
    if (progress !== null) this.#onProgress(progress);
    else this.#keep(line);
  }

  #flushPending(): void {
    if (this.#pendingBytes === 0) return;
    const line = joinParts(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#keep(line);
  }

  #keep(bytes: Uint8Array): void {
    const room = this.#cap - this.#keptBytes;
    if (room >= bytes.length) {
      this.#kept.push(bytes.slice());
      this.#keptBytes += bytes.length;
    } else {
      if (room > 0) this.#kept.push(bytes.slice(0, room));
      this.#keptBytes += Math.max(room, 0);
      this.#dropped += bytes.length - Math.max(room, 0);
    }
  }
}

function joinParts(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0].slice();
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Sends MCP progress that strictly grows: each report is at least a hair above the previous one, so a
 * heartbeat that carries no new count still counts as progress for a client resetting its timeout.
 */
export class MonotonicProgress {
  readonly #send: (progress: number, total: number, message: string) => void;
  readonly #total: number;
  #last = 0;

  /** Report on `send`, out of `total`. */
  constructor(send: (progress: number, total: number, message: string) => void, total: number) {
    this.#send = send;
    this.#total = total;
  }

  /** Report `value` (raised just above the last value when it would not grow), capped below `ceiling`. */
  report(value: number, message: string, ceiling = this.#total): void {
    let next = Math.max(value, this.#last + 1e-6);
    // Near the ceiling, halve the remaining gap: still growing, never reaching the next step's value.
    if (next >= ceiling) next = this.#last + (ceiling - this.#last) / 2;
    if (!(next > this.#last)) return;
    this.#last = next;
    this.#send(next, this.#total, message);
  }
}

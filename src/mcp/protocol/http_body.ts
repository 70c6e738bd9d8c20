/**
 * Request bodies of the Streamable HTTP transport, read under three bounds: one body's size (413), the
 * bytes all bodies being read may hold at once in this process (503: without it, 48 clients each sending
 * most of a 16 MiB body and then stalling pinned over 700 MiB), and the time a body may take to arrive
 * (408: a stalled sender releases what it holds).
 *
 * @module
 */

/** Default bytes of request bodies held at once, all requests together. */
export const DEFAULT_BODY_BYTES_IN_FLIGHT = 64 * 1024 * 1024;

/** Default time a request's body may take to arrive, counted from its headers. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Bytes of request bodies being read, process-wide; a body that would pass the cap is refused. */
export class BodyBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Bytes held now. */
  get used(): number {
    return this.#used;
  }

  /** Take `bytes`; false (nothing taken) when they do not fit. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  /** Give back `bytes` taken before. */
  give(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}

/** A body read, or why not. */
export type Body =
  | { kind: "ok"; text: string }
  | { kind: "too_large" }
  | { kind: "busy" }
  | { kind: "timeout" }
  | { kind: "error"; message: string };

/**
 * Read a request body as strict UTF-8: at most `limit` bytes, holding its bytes against `budget` while
 * reading (the declared length up front, else chunk by chunk), and giving up after `timeoutMs`.
 */
export async function readBody(
  request: Request,
  limit: number,
  budget: BodyBudget,
  timeoutMs: number,
): Promise<Body> {
  const declaredText = request.headers.get("content-length");
  const declared = declaredText === null ? null : Number(declaredText);
  if (declared !== null && !(declared >= 0)) return { kind: "error", message: "bad Content-Length" };
  if (declared !== null && declared > limit) return { kind: "too_large" };
  if (request.body === null) return { kind: "error", message: "empty body" };
  let held = 0;
  if (declared !== null) {
    if (!budget.take(declared)) return { kind: "busy" };
    held = declared;
  }
  const reader = request.body.getReader();
  // The clock cancels the reader (its pending read then ends) rather than racing each read against one
  // promise: a race per read left a reaction on that promise per read, and a body of a million 1-byte
  // chunks held them all until the clock ran out.
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, timeoutMs);
  // One growing buffer, not a list of the pieces as they came: tiny pieces cost far more than their bytes.
  let bytes = new Uint8Array(Math.min(declared ?? 16 * 1024, limit, 1024 * 1024));
  let size = 0;
  try {
    for (;;) {
      const next = await reader.read();
      if (timedOut) return { kind: "timeout" };
      if (next.done) break;
      const piece = next.value;
      if (size + piece.length > limit) {
        await reader.cancel().catch(() => {});
        return { kind: "too_large" };
      }
      if (size + piece.length > held) {
        if (!budget.take(size + piece.length - held)) {
          await reader.cancel().catch(() => {});
          return { kind: "busy" };
        }
        held = size + piece.length;
      }
      if (size + piece.length > bytes.length) {
        const grown = new Uint8Array(Math.min(limit, Math.max(bytes.length * 2, size + piece.length)));
        grown.set(bytes.subarray(0, size));
        bytes = grown;
      }
      bytes.set(piece, size);
      size += piece.length;
    }
    try {
      return { kind: "ok", text: new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, size)) };
    } catch {
      return { kind: "error", message: "the body is not valid UTF-8" };
    }
  } catch (error) {
    if (timedOut) return { kind: "timeout" };
    return {
      kind: "error",
      message: `reading the body failed: ${error instanceof Error ? error.message : error}`,
    };
  } finally {
    clearTimeout(timer);
    budget.give(held);
  }
}

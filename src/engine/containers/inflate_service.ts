/**
 * The inflate side of the engine worker (`../worker.ts`): one inflate stream per open session
 * (`memberInflateStream`: native raw inflate, size and CRC-32 checked); chunks are acknowledged once taken,
 * pieces posted (transferred) as they come out.
 *
 * @example
 * ```ts
 * import { inflateService, isInflateRequest } from "./inflate_service.ts";
 * import type { InflateRequest, InflateResponse } from "./protocol.ts";
 * import { deflateSync } from "fflate";
 * import { crc32 } from "../../formats/zip/crc32.ts";
 * import assert from "node:assert/strict";
 * // In the engine worker: `inflate` posts with self.postMessage, and self.onmessage hands it each request.
 * const got: InflateResponse[] = [];
 * const ended = Promise.withResolvers<void>();
 * const inflate = inflateService((msg) => void (got.push(msg), msg.type === "end" && ended.resolve()));
 * const data = new TextEncoder().encode("h\nx\n");
 * const facts = { method: 8, size: data.length, crc32: crc32(data), name: "a.csv" };
 * const requests: InflateRequest[] = [{ type: "open", id: 1, facts }, { type: "chunk", id: 1, chunk: deflateSync(data), final: true }];
 * for (const msg of requests) if (isInflateRequest(msg)) inflate(msg);
 * await ended.promise;
 * const pieces = got.flatMap((m) => m.type === "piece" ? [...m.bytes] : []);
 * assert.deepEqual(new Uint8Array(pieces), data);
 * ```
 * @module
 */

import { memberInflateStream } from "../../formats/zip/member_inflater.ts";
import type { InflateRequest, InflateResponse } from "./protocol.ts";
import { collectGarbageHint } from "../gc_hint.ts";

const REQUEST_TYPES = new Set<string>(["ping", "open", "chunk", "close"]);

/** True for the messages {@link inflateService} handles (the engine worker also evaluates blocks). */
export function isInflateRequest(msg: { type: string }): msg is InflateRequest {
  return REQUEST_TYPES.has(msg.type);
}

/** The handler of inflate requests, answering through `post`. */
export function inflateService(
  post: (msg: InflateResponse, transfer?: ArrayBuffer[]) => void,
): (msg: InflateRequest) => void {
  const writers = new Map<number, WritableStreamDefaultWriter<Uint8Array> | null>();
  const readers = new Map<number, ReadableStreamDefaultReader<Uint8Array>>();

  const fail = (id: number, err: unknown) => {
    if (!writers.has(id)) return;
    writers.delete(id);
    readers.delete(id);
    post({ type: "failed", id, message: err instanceof Error ? err.message : String(err) });
  };

  const pump = async (id: number, reader: ReadableStreamDefaultReader<Uint8Array>) => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (!writers.has(id)) return; // closed meanwhile
        if (done) break;
        // Transfer a piece only when it owns its whole buffer; a view into a larger one is copied first.
        const own = value.byteOffset === 0 && value.byteLength === value.buffer.byteLength
          ? value
          : value.slice();
        post({ type: "piece", id, bytes: own }, [own.buffer as ArrayBuffer]);
      }
      writers.delete(id);
      readers.delete(id);
      post({ type: "end", id });
      collectGarbageHint(); // this member's dead pieces go before the thread's next work
    } catch (err) {
      fail(id, err);
    }
  };

  return (msg) => {
    switch (msg.type) {
      case "ping":
        post({ type: "ready" });
        return;
      case "open": {
        try {
          const { writable, readable } = memberInflateStream(msg.facts);
          const reader = readable.getReader();
          writers.set(msg.id, writable.getWriter());
          readers.set(msg.id, reader);
          void pump(msg.id, reader);
        } catch (err) {
          writers.set(msg.id, null);
          fail(msg.id, err);
        }
        return;
      }
      case "chunk": {
        const writer = writers.get(msg.id);
        if (writer == null) return; // failed or closed: the main thread knows
        const id = msg.id;
        writer.write(msg.chunk).then(() => {
          if (writers.has(id)) post({ type: "ack", id });
        }, () => {});
        if (msg.final) writer.close().catch(() => {});
        return;
      }
      case "close": {
        const writer = writers.get(msg.id);
        const reader = readers.get(msg.id);
        writers.delete(msg.id);
        readers.delete(msg.id);
        writer?.abort().catch(() => {});
        reader?.cancel().catch(() => {});
        return;
      }
    }
  };
}

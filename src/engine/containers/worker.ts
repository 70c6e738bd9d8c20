/**
 * The inflate worker: holds one {@link MemberInflater} per open session and answers each pushed chunk of
 * compressed bytes with the uncompressed pieces (transferred, not copied).
 * @module
 */

/// <reference lib="deno.worker" />

import { MemberInflater } from "../../formats/zip/member_inflater.ts";
import type { InflateRequest, InflateResponse } from "./protocol.ts";

const sessions = new Map<number, MemberInflater>();

self.onmessage = (event: MessageEvent<InflateRequest>) => {
  const msg = event.data;
  switch (msg.type) {
    case "ping":
      self.postMessage({ type: "ready" } satisfies InflateResponse);
      return;
    case "open":
      try {
        sessions.set(msg.id, new MemberInflater(msg.facts));
      } catch (err) {
        self.postMessage(
          { type: "error", id: msg.id, message: (err as Error).message } satisfies InflateResponse,
        );
      }
      return;
    case "close":
      sessions.delete(msg.id);
      return;
    case "push": {
      const inflater = sessions.get(msg.id);
      if (inflater === undefined) {
        self.postMessage(
          { type: "error", id: msg.id, message: "inflate session is closed" } satisfies InflateResponse,
        );
        return;
      }
      try {
        const pieces = inflater.push(msg.chunk, msg.final);
        if (msg.final) sessions.delete(msg.id);
        // A stored member hands its chunk back: every piece is a whole buffer of its own, so all transfer.
        const buffers = [...new Set(pieces.map((p) => p.buffer as ArrayBuffer))];
        self.postMessage({ type: "pieces", id: msg.id, pieces } satisfies InflateResponse, buffers);
      } catch (err) {
        sessions.delete(msg.id);
        self.postMessage(
          { type: "error", id: msg.id, message: (err as Error).message } satisfies InflateResponse,
        );
      }
      return;
    }
  }
};

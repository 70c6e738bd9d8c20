/**
 * Messages between the container pool and its inflate workers. A worker inflates several members at once,
 * each a session named by `id`: compressed chunks go in (each acknowledged once the inflater took it, which
 * is the main thread's credit to send more), uncompressed pieces come out as they are produced, then `end`
 * (or `failed`; not `error`, which is a block answer: both run on one engine worker).
 * @module
 */

import type { MemberFacts } from "../../formats/zip/member_inflater.ts";

/** Main thread -> worker. */
export type InflateRequest =
  | { type: "ping" }
  | { type: "open"; id: number; facts: MemberFacts }
  | { type: "chunk"; id: number; chunk: Uint8Array; final: boolean }
  | { type: "close"; id: number };

/** Worker -> main thread. */
export type InflateResponse =
  | { type: "ready" }
  | { type: "ack"; id: number }
  | { type: "piece"; id: number; bytes: Uint8Array }
  | { type: "end"; id: number }
  | { type: "failed"; id: number; message: string };

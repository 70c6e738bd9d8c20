/**
 * Messages between the container pool and its inflate workers. A worker inflates several members at once,
 * each a session named by `id`; it answers every `push` in the order received.
 * @module
 */

import type { MemberFacts } from "../../formats/zip/member_inflater.ts";

/** Main thread -> worker. */
export type InflateRequest =
  | { type: "ping" }
  | { type: "open"; id: number; facts: MemberFacts }
  | { type: "push"; id: number; chunk: Uint8Array; final: boolean }
  | { type: "close"; id: number };

/** Worker -> main thread. */
export type InflateResponse =
  | { type: "ready" }
  | { type: "pieces"; id: number; pieces: Uint8Array[] }
  | { type: "error"; id: number; message: string };

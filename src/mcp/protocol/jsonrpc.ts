/**
 * JSON-RPC 2.0 vocabulary: error codes, request ids and the one-line encoders every outgoing message
 * goes through.
 *
 * @module
 */

import { rawJsonNumber } from "./guarded_json.ts";

/** Standard JSON-RPC error codes plus the MCP resource-not-found code. */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  resourceNotFound: -32002,
} as const;

/** A request id as MCP allows it: a string or a number (never null). */
export type RequestId = string | number;

/** Longest string id (in UTF-16 units) accepted; ids are echoed on every reply, so they stay small. */
export const MAX_ID_LENGTH = 1024;

/**
 * A validated id ready to be echoed: `value` is what handlers see, `wire` is what gets serialised (the
 * exact source digits for numbers a double cannot hold), `key` identifies the request for cancellation.
 */
export interface WireId {
  readonly value: RequestId;
  readonly wire: unknown;
  readonly key: string;
}

/**
 * Validate a request id (string up to {@link MAX_ID_LENGTH}, or a finite number) and prepare it for
 * echoing; `null` when the id is unusable.
 *
 * @example
 * ```ts
 * import { toWireId } from "./jsonrpc.ts";
 * import assert from "node:assert/strict";
 * assert.equal(toWireId(7)?.key, "n:7");
 * assert.equal(toWireId({ a: 1 }), null);
 * ```
 */
export function toWireId(value: unknown, rawSource?: string): WireId | null {
  if (typeof value === "string") {
    return value.length <= MAX_ID_LENGTH ? { value, wire: value, key: `s:${value}` } : null;
  }
  if (typeof value === "number" && Number.isFinite(value)) {
    if (rawSource !== undefined && rawSource.length <= MAX_ID_LENGTH) {
      return { value, wire: rawJsonNumber(rawSource, value), key: `n:${rawSource}` };
    }
    return { value, wire: value, key: `n:${String(value)}` };
  }
  return null;
}

/** The optional `error.data` member: extra machine-readable context (names, limits). */
export type ErrorData = Record<string, unknown>;

/**
 * Encode an error response as one JSON line (without the trailing newline); `id` null when the request's
 * id could not be determined.
 *
 * @example
 * ```ts
 * import { ErrorCode, errorResponse } from "./jsonrpc.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   errorResponse(null, ErrorCode.parseError, "Parse error"),
 *   '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
 * );
 * ```
 */
export function errorResponse(id: WireId | null, code: number, message: string, data?: ErrorData): string {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  return JSON.stringify({ jsonrpc: "2.0", id: id === null ? null : id.wire, error });
}

/** Encode a successful response as one JSON line (without the trailing newline). */
export function resultResponse(id: WireId, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id: id.wire, result });
}

/**
 * The same line as {@link resultResponse} from an id and a result already serialised (`idJson` is
 * `JSON.stringify(id.wire)`): lets another thread, which cannot receive a `WireId`, build the answer.
 *
 * @example
 * ```ts
 * import { resultLine } from "./jsonrpc.ts";
 * import assert from "node:assert/strict";
 * assert.equal(resultLine("7", '{"ok":true}'), '{"jsonrpc":"2.0","id":7,"result":{"ok":true}}');
 * ```
 */
export function resultLine(idJson: string, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${idJson},"result":${resultJson}}`;
}

/** Encode a notification (a message without id, never answered) as one JSON line. */
export function notificationMessage(method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}

/**
 * The Streamable HTTP transport's own answers: the CORS headers every response carries for the allowed
 * origin, a transport refusal (a JSON-RPC error without id, as the spec allows), a JSON-RPC error
 * answering a message, and the refusal of a body that could not be read.
 *
 * @module
 */

import { ErrorCode, errorResponse, toWireId } from "./jsonrpc.ts";
import type { Body } from "./http_body.ts";

/** What the replies say: the one foreign origin answered with CORS, and the body limits they name. */
export interface HttpRepliesInit {
  corsOrigin: string | null;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
}

/** Builds every response the transport words itself (the servers word the rest). */
export class HttpReplies {
  readonly #init: HttpRepliesInit;

  constructor(init: HttpRepliesInit) {
    this.#init = init;
  }

  /** The headers every response to `request` starts from: CORS, when it comes from the allowed origin. */
  headers(request: Request): Headers {
    const headers = new Headers();
    const { corsOrigin } = this.#init;
    const origin = request.headers.get("origin");
    if (corsOrigin !== null && origin === corsOrigin) {
      headers.set("access-control-allow-origin", corsOrigin);
      headers.set("access-control-expose-headers", "Mcp-Session-Id, WWW-Authenticate");
      headers.set("vary", "Origin");
    }
    return headers;
  }

  /** A transport refusal with `status`: a JSON-RPC error without id (-32001 for 404), and `extra` headers. */
  plain(request: Request, status: number, message: string, extra?: Record<string, string>): Response {
    const headers = this.headers(request);
    headers.set("content-type", "application/json");
    for (const [name, value] of Object.entries(extra ?? {})) headers.set(name, value);
    // A JSON-RPC error without id, as the spec allows for transport refusals.
    const code = status === 404 ? -32001 : ErrorCode.invalidRequest;
    return new Response(errorResponse(null, code, message), { status, headers });
  }

  /** 429 at a session (or client) cap, retried after 30 s. */
  tooManySessions(request: Request, message: string): Response {
    return this.plain(request, 429, `Too Many Requests: ${message}`, { "retry-after": "30" });
  }

  /** A JSON-RPC error answering `message` (its id when it has a usable one) with `status`. */
  jsonError(
    request: Request,
    status: number,
    message: Record<string, unknown> | null,
    code: number,
    text: string,
    data?: Record<string, unknown>,
  ): Response {
    const headers = this.headers(request);
    headers.set("content-type", "application/json");
    const id = message === null ? null : toWireId(message.id);
    return new Response(errorResponse(id, code, text, data), { status, headers });
  }

  /** The refusal of a body that could not be read: too large (413), no budget (503), late (408), broken (400). */
  bodyRefusal(request: Request, body: Exclude<Body, { kind: "ok" }>): Response {
    switch (body.kind) {
      case "too_large":
        return this.plain(
          request,
          413,
          `Payload Too Large: the body exceeds ${this.#init.maxBodyBytes} bytes`,
        );
      case "busy":
        return this.plain(request, 503, "Service Unavailable: too many request bodies are being received", {
          "retry-after": "1",
        });
      case "timeout":
        return this.plain(
          request,
          408,
          `Request Timeout: the body did not arrive within ${this.#init.bodyTimeoutMs} ms`,
        );
      case "error":
        return this.plain(request, 400, `Bad Request: ${body.message}`);
    }
  }
}

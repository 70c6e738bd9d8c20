/**
 * The client's MCP roots (the `roots` client capability): asked with `roots/list` once the client has
 * sent `notifications/initialized`, asked again on `notifications/roots/list_changed`, and handed to the
 * application as a plain list. What a root means (e.g. a project folder) is the application's business.
 *
 * @module
 */

import type { McpServer, ToolCall } from "./server.ts";
import { PeerRequestError } from "./peer_requests.ts";
import { InputRequired } from "./modern.ts";

/** One root as the client declared it. */
export interface Root {
  /** The root's URI (the spec allows only `file://` URIs today). */
  uri: string;
  /** Optional display name. */
  name?: string;
}

/** What is known about the client's roots. */
export type RootsState =
  | { readonly kind: "roots"; readonly roots: readonly Root[] }
  /** The client did not declare the `roots` capability (or has not initialized in time). */
  | { readonly kind: "unsupported" }
  /** The client declared roots but the question failed (error answer, timeout, malformed answer). */
  | { readonly kind: "unavailable"; readonly reason: string };

/** Default wait for the client's `roots/list` answer, and for `notifications/initialized`. */
export const DEFAULT_ROOTS_TIMEOUT_MS = 5_000;

/** At most this many roots are taken from an answer; URIs longer than this many characters are dropped. */
const MAX_ROOTS = 256;
const MAX_ROOT_URI_CHARS = 4096;

/**
 * Follows the client's roots for one server. {@link ClientRoots.current} waits (bounded) for the answer
 * that is on its way, so a tool call that arrives right after the handshake sees the roots.
 *
 * Here the client's lines (handshake, then the answer to `roots/list`) are handed to the server by hand:
 *
 * @example
 * ```ts
 * import { McpServer } from "./server.ts";
 * import { ClientRoots } from "./roots.ts";
 * import assert from "node:assert/strict";
 * const sent: string[] = [];
 * const server = new McpServer({ name: "demo", version: "1.0.0", send: (json) => void sent.push(json) });
 * const roots = new ClientRoots(server);
 * const line = (message: object) => server.handleLine(JSON.stringify({ jsonrpc: "2.0", ...message }));
 * const clientInfo = { name: "client", version: "1" };
 * const params = { protocolVersion: "2025-06-18", capabilities: { roots: {} }, clientInfo };
 * await line({ id: 1, method: "initialize", params });
 * await line({ method: "notifications/initialized" });
 * const question = JSON.parse(sent.at(-1)!);
 * assert.equal(question.method, "roots/list");
 * await line({ id: question.id, result: { roots: [{ uri: "file:///home/me/p" }] } });
 * assert.deepEqual(await roots.current(), { kind: "roots", roots: [{ uri: "file:///home/me/p" }] });
 * await server.close("example done");
 * ```
 */
export class ClientRoots {
  readonly #server: McpServer;
  readonly #timeoutMs: number;
  readonly #log: (message: string) => void;
  /** The latest question's answer; null until the client has initialized. */
  #state: Promise<RootsState> | null = null;
  #generation = 0;
  /** The question whose answer was a failure, if the latest one was. */
  #failed: Promise<RootsState> | null = null;
  #initialized: () => void = () => {};
  #initializedOnce: Promise<void>;

  /** Start following the roots of `server`'s client. */
  constructor(
    server: McpServer,
    options: { timeoutMs?: number; log?: (message: string) => void } = {},
  ) {
    this.#server = server;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_ROOTS_TIMEOUT_MS;
    this.#log = options.log ?? (() => {});
    this.#initializedOnce = new Promise((resolve) => this.#initialized = resolve);
    server.onNotification("notifications/initialized", () => {
      this.#ask();
      this.#initialized();
    });
    server.onNotification("notifications/roots/list_changed", () => {
      if (this.#state !== null) this.#ask();
    });
  }

  /**
   * The client's roots as last answered. Before `notifications/initialized` it waits for it (at most the
   * timeout), and while a `roots/list` question is out it waits for the answer (also bounded).
   */
  async current(): Promise<RootsState> {
    if (this.#state === null) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => timer = setTimeout(resolve, this.#timeoutMs));
      await Promise.race([this.#initializedOnce, late]);
      clearTimeout(timer);
    }
    if (this.#state === null) {
      return this.#supported()
        ? { kind: "unavailable", reason: "the client has not sent notifications/initialized" }
        : { kind: "unsupported" };
    }
    // A failed question (timeout, error answer) is asked again by the next caller, not kept forever.
    if (this.#failed !== null && this.#failed === this.#state) this.#ask();
    return await this.#state!;
  }

  #supported(): boolean {
    const roots = this.#server.clientCapabilities?.roots;
    return typeof roots === "object" && roots !== null && !Array.isArray(roots);
  }

  #ask(): void {
    const generation = ++this.#generation;
    if (!this.#supported()) {
      this.#state = Promise.resolve({ kind: "unsupported" });
      return;
    }
    const question: Promise<RootsState> = this.#server.request("roots/list", undefined, this.#timeoutMs).then(
      (result) => {
        const state = readRoots(result);
        if (generation === this.#generation) this.#describe(state);
        return state;
      },
      (error): RootsState => {
        const reason = error instanceof PeerRequestError ? error.message : String(error);
        if (generation === this.#generation) {
          this.#log(`roots/list failed: ${reason}`);
          this.#failed = question;
        }
        return { kind: "unavailable", reason };
      },
    );
    this.#state = question;
  }

  #describe(state: RootsState): void {
    if (state.kind === "roots") {
      const listed = state.roots.map((root) => root.uri).join(", ");
      this.#log(`the client offers ${state.roots.length} root(s)${listed === "" ? "" : `: ${listed}`}`);
    } else if (state.kind === "unavailable") {
      this.#log(`roots/list: ${state.reason}`);
    }
  }
}

/** The `inputRequests` key under which {@link requestRoots} asks a modern client for its roots. */
export const ROOTS_INPUT_KEY = "roots";

/**
 * The roots of a modern-era call, from that request alone (the server may not send requests of its own
 * in that era, and must not infer them from other requests): the `roots/list` answer the client gave in
 * `inputResponses` on a retry; else, when the request declares the `roots` capability, throws
 * {@link InputRequired} so the server asks for them with an `InputRequiredResult`; else `unsupported`.
 */
export function requestRoots(call: ToolCall): RootsState {
  const answer = call.inputResponses?.[ROOTS_INPUT_KEY];
  if (answer !== undefined) return readRoots(answer);
  if (!isRecord(call.modern?.clientCapabilities.roots)) return { kind: "unsupported" };
  throw new InputRequired({ [ROOTS_INPUT_KEY]: { method: "roots/list" } });
}

/** Validate a `roots/list` result: `{ roots: [{ uri, name? }] }`, ignoring extra members. */
export function readRoots(result: unknown): RootsState {
  const roots = isRecord(result) ? result.roots : undefined;
  if (!Array.isArray(roots)) return { kind: "unavailable", reason: "malformed roots/list answer" };
  const list: Root[] = [];
  for (const entry of roots.slice(0, MAX_ROOTS)) {
    if (!isRecord(entry) || typeof entry.uri !== "string" || entry.uri.length > MAX_ROOT_URI_CHARS) {
      return { kind: "unavailable", reason: "malformed root in the roots/list answer" };
    }
    const root: Root = { uri: entry.uri };
    if (typeof entry.name === "string") root.name = entry.name.slice(0, 256);
    list.push(root);
  }
  if (roots.length > MAX_ROOTS) return { kind: "unavailable", reason: `more than ${MAX_ROOTS} roots` };
  return { kind: "roots", roots: list };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A transport-independent MCP server core: one JSON-RPC message in, zero or more JSON lines out through
 * an injected `send`. It knows the MCP handshake, the tool catalog, progress and cancellation; it knows
 * nothing of what the tools do.
 *
 * It is dual-era (see the 2026-07-28 page "Versioning and Compatibility"): an `initialize` selects the
 * legacy semantics of the revision it negotiates, for the connection; a request whose `params._meta`
 * names a modern protocol version is served statelessly by 2026-07-28 rules (`modern.ts`), from what that
 * request alone says, whether or not the connection also has a legacy session.
 *
 * @module
 */

import { parseJsonMessage, readTopLevelId } from "./guarded_json.ts";
import type { DirectAnswers, Send, Transport, TransportServer } from "./transport.ts";
import {
  ErrorCode,
  type ErrorData,
  errorResponse,
  notificationMessage,
  type RequestId,
  resultLine,
  resultResponse,
  toWireId,
  type WireId,
} from "./jsonrpc.ts";
import { DEFAULT_PEER_REQUEST_TIMEOUT_MS, PeerRequests } from "./peer_requests.ts";
import { listResources, readResource, type ResourceProvider } from "./resources.ts";
import { DEFAULT_MAX_ANSWER_BYTES, overBudget } from "./answer_budget.ts";
import { settleWithin } from "./settle.ts";
import { toCallToolResult, toolFailure, type ToolResult } from "./tool_result.ts";
import { negotiateProtocolVersion } from "./versions.ts";
import {
  ALL_SUPPORTED_VERSIONS,
  type CacheHint,
  CATALOG_CACHE,
  InputRequired,
  MetaKey,
  missingInputCapabilities,
  ModernErrorCode,
  type ModernRequest,
  modernResult,
  modernResultJson,
  readEra,
  RESOURCE_CACHE,
} from "./modern.ts";
import { declaresTasks, type TaskRecord, TASKS_EXTENSION, TaskStore } from "./tasks.ts";

export type { ToolResult } from "./tool_result.ts";
export type { RequestId } from "./jsonrpc.ts";
export type { DirectAnswers, Send } from "./transport.ts";

/** Identity and guidance the server announces in its `initialize` result. */
export interface ServerOptions {
  /** Machine name, e.g. `"bxp-mcp"`. */
  name: string;
  /** Human-facing display name (MCP 2025-06-18+). */
  title?: string;
  /** Server version string. */
  version: string;
  /** Usage hints for the model, sent as `instructions`. */
  instructions?: string;
  /** Diagnostics sink (stderr in the stdio adapter); never used for protocol output. */
  log?: (message: string) => void;
  /** Default output for {@link McpServer.handleLine} calls that pass no `send` of their own. */
  send?: Send;
  /**
   * Tools that exist but are switched off in this session: name -> the message a call gets instead of
   * "Unknown tool" (say how to switch it on). They are not listed.
   */
  unavailableTools?: ReadonlyMap<string, string>;
  /**
   * Largest answer, in bytes of its JSON line, the server sends (default {@link DEFAULT_MAX_ANSWER_BYTES}).
   * A larger tool result is replaced by a tool failure saying how large it was; any other larger answer
   * by a `-32603` error. Keeps every message under the read buffers of common clients.
   */
  maxAnswerBytes?: number;
  /** How a tool failure for an oversized answer tells the model to narrow its request. */
  answerTooLargeHint?: string;
}

/**
 * Lets another thread write a tool call's answer straight to the transport's output (stdio, when the
 * adapter says that output is the process's stdout; never HTTP). The writer must produce the very line
 * the server would send, `resultLine(idJson, <CallToolResult JSON>)` plus a newline, within the call's
 * answer budget and at most `maxLineBytes` bytes, and write it whole (every short write retried) while
 * holding `outputLock`, which it must take without waiting (`tryLockOutput` in `output_lock.ts`, with a
 * positive token of its own): the transport's writer holds that lock for each of its own lines, of any
 * size, so the two can never interleave; a writer that finds it taken hands its answer back instead.
 * Having the lock, it must also win a claim that a cancellation can take first. The handler then returns
 * `{ text: "", answered: true }` and the server sends nothing.
 */
export interface DirectAnswer {
  /** The request id as the answer echoes it (JSON text). */
  readonly idJson: string;
  /** Longest line, newline included, that may be written directly (also within the server's answer cap). */
  readonly maxLineBytes: number;
  /** The output lock (an `Int32Array` on a SharedArrayBuffer, see `output_lock.ts`). */
  readonly outputLock: Int32Array;
  /**
   * Tell the server how to learn, synchronously, that the answer has been claimed for writing: the client
   * may reuse the id as soon as it reads the answer, possibly before the handler has returned.
   */
  watch(answered: () => boolean): void;
}

/** What a tool handler can do besides computing its result. */
export interface ToolCall {
  /** The tool's registered name. */
  readonly name: string;
  /** The JSON-RPC id of the `tools/call` request. */
  readonly requestId: RequestId;
  /** Aborted when the client cancels the request or the transport closes; stop work when it fires. */
  readonly signal: AbortSignal;
  /**
   * Report progress. Sends `notifications/progress` only when the request carried
   * `params._meta.progressToken`, only while the call is running, and only when `progress` grows (the
   * spec requires strictly increasing values); otherwise a silent no-op.
   */
  progress(progress: number, total?: number, message?: string): void;
  /** The standard failure result: `isError: true` with text `error: <message>`. */
  fail(message: string): ToolResult;
  /** How the answer may be written by another thread; absent or null when it must come back through the server. */
  readonly direct?: DirectAnswer | null;
  /**
   * For a modern-era request, what it declared (version, its own client capabilities, log level); null
   * for a legacy one, whose client capabilities are {@link McpServer.clientCapabilities}.
   */
  readonly modern?: ModernRequest | null;
  /**
   * A modern retry's `params.inputResponses` (the client's answers, by key, to an {@link InputRequired}
   * this server raised on an earlier attempt), or null. Client-controlled: validate before use.
   */
  readonly inputResponses?: Record<string, unknown> | null;
  /**
   * Whether this call may become a task (the tool allows it and the modern request declared the tasks
   * extension): a call still running after its first progress report, or after
   * {@link TASK_COMMIT_MS}, is answered with a task the client polls, so no per-request client time limit
   * applies to it. False or absent otherwise.
   */
  readonly task?: boolean;
}

/**
 * A tool implementation. `args` is the request's `arguments` object, or `null` when it was absent; a
 * thrown error becomes a failure result (`error: <message>`).
 */
export type ToolHandler = (
  args: Record<string, unknown> | null,
  call: ToolCall,
) => Promise<ToolResult> | ToolResult;

/** A tool as registered with {@link McpServer.addTool}. */
export interface ToolDefinition {
  /** Unique name, 1-128 characters of `[A-Za-z0-9_.-]`. */
  name: string;
  /** Optional display name listed next to the tool (MCP 2025-06-18+). */
  title?: string;
  /** What the tool does, for the model. */
  description: string;
  /** JSON Schema of `arguments`; its root must be `type: "object"`. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of `structuredContent`; root `type: "object"`; requires `allowStructured`. */
  outputSchema?: Record<string, unknown>;
  /** Optional MCP tool annotations (`readOnlyHint`, `destructiveHint`, ...), listed verbatim. */
  annotations?: Record<string, unknown>;
  /** Whether a single-JSON-object text result is also exposed as `structuredContent`. */
  allowStructured: boolean;
  /**
   * Whether a modern call that declares the tasks extension may run as a task (`tasks.ts`): for tools
   * whose calls can outlast a client's time limit for one request.
   */
  taskSupport?: boolean;
  /** The implementation. */
  handler: ToolHandler;
}

/** What the client said about itself in `initialize` (kept leniently: never a reason to refuse). */
export interface ClientInfo {
  name: string;
  version?: string;
  title?: string;
}

/** Tool names as the 2025-11-25 revision recommends them. */
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** Longest client-supplied string echoed back inside `error.data` or kept from `clientInfo`. */
const MAX_ECHOED_CHARS = 256;

interface InFlightCall {
  readonly controller: AbortController;
  state: "running" | "cancelled" | "done";
  /** Whether the answer was claimed by a direct writer (see {@link DirectAnswer.watch}). */
  answered: (() => boolean) | null;
}

/** Called with the `params` of a client notification (`undefined` when absent). */
export type NotificationListener = (params: unknown) => void;

/** Work run when the session ends (e.g. stop child processes); bounded by {@link McpServer.close}. */
export type CloseHook = () => Promise<void> | void;

/** A `subscriptions/listen` stream that is open: ended by the client's cancel or the session's end. */
interface Subscription {
  readonly id: WireId;
  readonly emit: Send;
}

/** Settled value of a call whose signal fired before its handler finished. */
const ABORTED: unique symbol = Symbol("aborted");

/** Settled value of a call that became a task. */
const COMMITTED: unique symbol = Symbol("committed");

/** How long a call that may become a task runs before it does (at its first progress report, if sooner). */
export const TASK_COMMIT_MS = 1000;

/** Room kept for the `tasks/get` envelope around a task's result within the answer cap. */
const TASK_ENVELOPE_BYTES = 1024;

/**
 * The MCP server core. Feed it one message per {@link McpServer.handleLine} call; it answers through the
 * `send` given with that line. Calls run concurrently: the caller decides whether to await each line.
 * One instance serves one client connection (request ids are only unique per connection).
 *
 * @example
 * ```ts
 * import { McpServer } from "./server.ts";
 * import assert from "node:assert/strict";
 * const server = new McpServer({ name: "demo", version: "1.0.0" });
 * server.addTool({
 *   name: "echo",
 *   description: "Echo the text argument.",
 *   inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 *   allowStructured: false,
 *   handler: (args, call) => typeof args?.text === "string" ? { text: args.text } : call.fail("missing 'text'"),
 * });
 * const answers: string[] = [];
 * await server.handleLine('{"jsonrpc":"2.0","id":1,"method":"ping"}', (json) => answers.push(json));
 * assert.deepEqual(answers.map((json) => JSON.parse(json)), [{ jsonrpc: "2.0", id: 1, result: {} }]);
 * ```
 */
export class McpServer implements TransportServer {
  readonly #options: ServerOptions;
  readonly #tools = new Map<string, ToolDefinition>();
  readonly #unavailable: ReadonlyMap<string, string>;
  readonly #inFlight = new Map<string, InFlightCall>();
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #providers: ResourceProvider[] = [];
  readonly #listeners = new Map<string, Set<NotificationListener>>();
  readonly #closeHooks: CloseHook[] = [];
  readonly #initializeHooks: (() => void)[] = [];
  /** Handler work still running, including calls whose answer was given up (cancelled). */
  readonly #handlerWork = new Set<Promise<unknown>>();
  readonly #peer = new PeerRequests();
  readonly #tasks = new TaskStore();
  readonly #maxAnswerBytes: number;
  #output: Send | null = null;
  /** How direct answers may be written, or null while answers must come back through the server. */
  #direct: DirectAnswers | null = null;
  #protocolVersion: string | null = null;
  #clientInfo: ClientInfo | null = null;
  #clientCapabilities: Record<string, unknown> | null = null;
  #clientInitialized = false;
  /** Whether a modern request has been answered (the first one runs the after-initialize hooks). */
  #modernSeen = false;
  #closed: Promise<void> | null = null;
  /** When an ignored notification was last logged, and how many went unlogged since (a flood guard). */
  #ignoredLoggedAt = -Infinity;
  #ignoredUnlogged = 0;

  /** Create a server announcing `options` in its `initialize` result. */
  constructor(options: ServerOptions) {
    this.#options = { ...options };
    this.#unavailable = options.unavailableTools ?? new Map();
    this.#maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    this.#output = options.send ?? null;
  }

  /**
   * Serve `resources/list` and `resources/read` from `provider` too, and advertise the `resources`
   * capability from the next `initialize` on. Providers are asked in the order they were added.
   */
  addResourceProvider(provider: ResourceProvider): void {
    this.#providers.push(provider);
  }

  /**
   * Call `listener` for each client notification named `method` (after the server's own handling, e.g.
   * of `notifications/initialized`). Returns a function that removes the listener. A throwing listener
   * is logged, never fatal.
   */
  onNotification(method: string, listener: NotificationListener): () => void {
    let set = this.#listeners.get(method);
    if (set === undefined) this.#listeners.set(method, set = new Set());
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Run `hook` after each `initialize` answer has been emitted, and after the answer to the first modern
   * request (which has no handshake): the place to start preparing what the first calls will need without
   * delaying the handshake (a client may send its first call before, or without,
   * `notifications/initialized`). A throwing hook is logged, never fatal.
   */
  afterInitialize(hook: () => void): void {
    this.#initializeHooks.push(hook);
  }

  /** Run `hook` when the session ends ({@link McpServer.close}), after running calls were cancelled. */
  onClose(hook: CloseHook): void {
    this.#closeHooks.push(hook);
  }

  /**
   * Serve through `transport` (see `transport.ts`): its `send` carries server-initiated messages and its
   * `directAnswers` terms are taken; null disconnects (no output, no direct answers). The transport
   * connects while it serves and disconnects when it stops.
   */
  connect(transport: Transport | null): void {
    this.setOutput(transport === null ? null : (json) => transport.send(json));
    this.setDirectAnswers(transport?.directAnswers ?? null);
  }

  /**
   * Where server-initiated messages (requests to the client) go, or nowhere (null): the output half of
   * {@link McpServer.connect}.
   */
  setOutput(send: Send | null): void {
    this.#output = send;
  }

  /**
   * Let tool calls started from now on answer through a {@link DirectAnswer} (lines of at most
   * `maxLineBytes` bytes, written holding `outputLock`), or stop that (null). The stdio transport turns
   * this on when its adapter says the output is the process's stdout.
   */
  setDirectAnswers(direct: DirectAnswers | null): void {
    // The line must also stay within this server's own answer cap (which counts it without newline).
    this.#direct = direct === null
      ? null
      : { ...direct, maxLineBytes: Math.min(direct.maxLineBytes, this.#maxAnswerBytes + 1) };
  }

  /**
   * Send a request to the client and resolve with its `result`. Rejects with a `PeerRequestError` on an
   * error response, when the client does not answer within `timeoutMs`, without an output, or once the
   * session is closed. Only ask for what the client advertised in its capabilities.
   *
   * Here the client's response line is handed back by hand, as a transport would pass it on:
   *
   * @example
   * ```ts
   * import { McpServer } from "./server.ts";
   * import assert from "node:assert/strict";
   * const sent: string[] = [];
   * const server = new McpServer({ name: "demo", version: "1.0.0", send: (json) => void sent.push(json) });
   * const answer = server.request("roots/list", undefined, 5_000);
   * const { id, method } = JSON.parse(sent[0]);
   * assert.equal(method, "roots/list");
   * await server.handleLine(JSON.stringify({ jsonrpc: "2.0", id, result: { roots: [] } }));
   * assert.deepEqual(await answer, { roots: [] });
   * await server.close("example done");
   * ```
   */
  request(
    method: string,
    params?: Record<string, unknown>,
    timeoutMs: number = DEFAULT_PEER_REQUEST_TIMEOUT_MS,
  ): Promise<unknown> {
    const output = this.#output;
    const send = output === null ? null : (json: string) => this.#emit(output, json);
    return this.#peer.start(method, params, timeoutMs, send);
  }

  /** The `capabilities` the client declared in the latest `initialize`, or null before any. */
  get clientCapabilities(): Record<string, unknown> | null {
    return this.#clientCapabilities;
  }

  /**
   * End the session: abort every running call (suppressing its answer), fail pending requests to the
   * client, wait up to `handlerGraceMs` for the aborted handlers to wind down (a handler that honours its
   * signal stops its child process within that), then run the close hooks, each bounded by
   * `hookGraceMs`. Idempotent: later calls return the first call's promise.
   */
  close(reason: string, handlerGraceMs = 500, hookGraceMs = 5_000): Promise<void> {
    this.#closed ??= this.#shutDown(reason, handlerGraceMs, hookGraceMs);
    return this.#closed;
  }

  async #shutDown(reason: string, handlerGraceMs: number, hookGraceMs: number): Promise<void> {
    // A subscription the server ends gets its completion result: the client learns it closed cleanly.
    for (const subscription of this.#subscriptions.values()) {
      const { id } = subscription;
      subscription.emit(
        resultResponse(
          id,
          modernResult({ _meta: { [MetaKey.subscriptionId]: id.wire } }, this.#serverInfo()),
        ),
      );
    }
    this.#subscriptions.clear();
    this.cancelAll(reason);
    this.#tasks.close(reason);
    this.#peer.close();
    if (!await settleWithin([...this.#handlerWork], handlerGraceMs)) {
      this.#log(
        `${this.#handlerWork.size} tool handler(s) still running ${handlerGraceMs} ms after ${reason}`,
      );
    }
    for (const hook of this.#closeHooks) {
      const run = Promise.resolve().then(hook).catch((error) =>
        this.#log(`close hook failed: ${describeError(error)}`)
      );
      if (!await settleWithin([run], hookGraceMs)) {
        this.#log(`a close hook did not finish within ${hookGraceMs} ms`);
      }
    }
  }

  /**
   * Register a tool; `tools/list` reports tools in registration order. Throws on a duplicate or malformed
   * name, a non-object schema root, or an `outputSchema` on a tool that may not return structured
   * content (clients reject such a tool's every plain-text answer).
   */
  addTool(tool: ToolDefinition): void {
    if (!TOOL_NAME_PATTERN.test(tool.name)) {
      throw new Error(`tool name ${JSON.stringify(tool.name)} must be 1-128 characters of [A-Za-z0-9_.-]`);
    }
    if (this.#tools.has(tool.name)) throw new Error(`tool '${tool.name}' is already registered`);
    if (!isObjectSchema(tool.inputSchema)) {
      throw new Error(`tool '${tool.name}': inputSchema must be a JSON Schema object with type "object"`);
    }
    if (tool.outputSchema !== undefined) {
      if (!isObjectSchema(tool.outputSchema)) {
        throw new Error(`tool '${tool.name}': outputSchema must be a JSON Schema object with type "object"`);
      }
      if (!tool.allowStructured) {
        throw new Error(`tool '${tool.name}': an outputSchema requires allowStructured: true`);
      }
    }
    this.#tools.set(tool.name, { ...tool });
  }

  /** Names of the registered tools, in catalog order. */
  get toolNames(): readonly string[] {
    return [...this.#tools.keys()];
  }

  /** The revision agreed in the latest `initialize`, or `null` before any. */
  get protocolVersion(): string | null {
    return this.#protocolVersion;
  }

  /** The `clientInfo` of the latest `initialize`, or `null` when absent or malformed. */
  get clientInfo(): ClientInfo | null {
    return this.#clientInfo;
  }

  /** Whether `notifications/initialized` has arrived. Requests are served either way. */
  get clientInitialized(): boolean {
    return this.#clientInitialized;
  }

  /** Number of `tools/call` requests still running. */
  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  /**
   * Abort every running tool call and suppress its response (e.g. the transport closed). The server stays
   * usable for new messages.
   */
  cancelAll(reason: string): void {
    for (const call of this.#inFlight.values()) this.#cancel(call, reason);
  }

  /**
   * Handle one incoming message line. Blank lines are ignored and a trailing CR is tolerated. Answers go
   * to `send` (default: the `send` given at construction); the promise settles once the message is fully
   * handled (for a tool call: its result was sent, or it was cancelled). Never rejects.
   *
   * `scope` names where the line's request ids are unique (one HTTP POST, when one server serves many
   * clients): ids, cancellations and subscriptions then only meet others of the same scope, and
   * {@link McpServer.cancelScope} ends them all. Without it, ids are the connection's.
   */
  async handleLine(line: string, send?: Send, scope?: string): Promise<void> {
    if (line.trim() === "") return;
    const target = send ?? this.#options.send;
    if (target === undefined) {
      this.#log("no send function: handleLine needs one, or the server a default `send` option");
      return;
    }
    const emit = (json: string) => this.#emit(target, json);
    try {
      await this.#route(line, emit, scope);
    } catch (error) {
      // Only a bug in this layer lands here; the message's id is unknown at this point.
      this.#log(`internal error while handling a message: ${describeError(error)}`);
      emit(errorResponse(null, ErrorCode.internalError, "Internal error"));
    }
  }

  async #route(line: string, emit: Send, scope: string | undefined): Promise<void> {
    const parsed = parseJsonMessage(line);
    if (!parsed.ok) {
      if (parsed.reason === "too_deep") {
        // The message is refused unparsed, but its id can still be read so the client can match the answer.
        const found = readTopLevelId(line);
        const id = found === null ? null : requestId(found.value, found.source);
        emit(errorResponse(id, ErrorCode.invalidRequest, `Invalid request: ${parsed.detail}`));
      } else {
        emit(errorResponse(null, ErrorCode.parseError, "Parse error", { detail: clip(parsed.detail) }));
      }
      return;
    }
    const message = parsed.value;
    if (Array.isArray(message)) {
      emit(errorResponse(null, ErrorCode.invalidRequest, "Invalid request: batch arrays are not supported"));
      return;
    }
    if (!isRecord(message)) {
      emit(errorResponse(null, ErrorCode.invalidRequest, "Invalid request: a message must be a JSON object"));
      return;
    }
    const hasMethod = Object.hasOwn(message, "method");
    if (!hasMethod && (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))) {
      // A client's answer to one of our requests; anything else response-shaped is dropped, since
      // answering a response would be a protocol violation of our own.
      const id = toWireId(message.id, parsed.rawNumber(message, "id"));
      if (message.jsonrpc !== "2.0" || !this.#peer.settle(id, message)) {
        this.#log("ignored a response-shaped message that answers no request of ours");
      }
      return;
    }
    let id: WireId | null = null;
    if (Object.hasOwn(message, "id")) {
      id = requestId(message.id, parsed.rawNumber(message, "id"));
      if (id === null) {
        emit(errorResponse(null, ErrorCode.invalidRequest, "Invalid request id"));
        return;
      }
      id = scoped(id, scope);
    }
    const method = message.method;
    const versionOk = message.jsonrpc === "2.0";
    if (id === null) {
      // Notifications are never answered, not even when malformed.
      if (versionOk && typeof method === "string") {
        this.#handleNotification(method, message.params, parsed.rawNumber, scope);
      } else {
        this.#log("dropped a malformed notification");
      }
      return;
    }
    if (!versionOk) {
      emit(errorResponse(id, ErrorCode.invalidRequest, 'Invalid request: "jsonrpc" must be "2.0"'));
      return;
    }
    if (!hasMethod) {
      emit(errorResponse(id, ErrorCode.invalidRequest, "Missing method"));
      return;
    }
    if (typeof method !== "string") {
      emit(errorResponse(id, ErrorCode.invalidRequest, "Invalid method"));
      return;
    }
    if (method.startsWith("notifications/")) {
      emit(
        errorResponse(id, ErrorCode.invalidRequest, "Invalid request: a notification must not carry an id", {
          method: clip(method),
        }),
      );
      return;
    }
    await this.#handleRequest(id, method, message, parsed.rawNumber, emit);
  }

  #handleNotification(
    method: string,
    params: unknown,
    rawNumber: RawNumberLookup,
    scope: string | undefined,
  ): void {
    this.#handleBuiltInNotification(method, params, rawNumber, scope);
    for (const listener of this.#listeners.get(method) ?? []) {
      try {
        listener(params);
      } catch (error) {
        this.#log(`listener for '${clip(method)}' failed: ${describeError(error)}`);
      }
    }
  }

  #handleBuiltInNotification(
    method: string,
    params: unknown,
    rawNumber: RawNumberLookup,
    scope: string | undefined,
  ): void {
    if (method === "notifications/initialized") {
      this.#clientInitialized = true;
    } else if (method === "notifications/cancelled") {
      if (!isRecord(params)) return;
      const found = toWireId(params.requestId, rawNumber(params, "requestId"));
      const target = found === null ? null : scoped(found, scope);
      const call = target === null ? undefined : this.#inFlight.get(target.key);
      // A cancelled subscription just ends: the spec asks for no response to a cancelled request.
      if (target !== null) this.#subscriptions.delete(target.key);
      // Unknown or finished ids are normal (the call may have just completed) and are ignored.
      if (call !== undefined) {
        const reason = typeof params.reason === "string" ? clip(params.reason) : "cancelled by the client";
        this.#cancel(call, reason);
      }
    } else if (!method.startsWith("notifications/")) {
      this.#logIgnored(`dropped '${clip(method)}' sent without an id`);
    } else if (!this.#listeners.has(method)) {
      this.#logIgnored(`ignored the notification '${clip(method)}'`);
    }
  }

  /**
   * Log an ignored notification at most once a minute, saying how many went unlogged: a client may send
   * them as fast as it likes (`notifications/roots/list_changed` in a loop) and must not fill the log.
   */
  #logIgnored(message: string): void {
    const now = Date.now();
    if (now - this.#ignoredLoggedAt < IGNORED_LOG_INTERVAL_MS) {
      this.#ignoredUnlogged++;
      return;
    }
    const more = this.#ignoredUnlogged === 0 ? "" : ` (and ${this.#ignoredUnlogged} more unlogged before it)`;
    this.#ignoredLoggedAt = now;
    this.#ignoredUnlogged = 0;
    this.#log(message + more);
  }

  /**
   * End everything of `scope` (see {@link McpServer.handleLine}): its running calls are cancelled
   * (never answered) and its subscriptions dropped. For a transport whose client went away, e.g. an HTTP
   * POST whose response stream closed, which 2026-07-28 makes the cancellation of that request.
   */
  cancelScope(scope: string, reason: string): void {
    const prefix = scopePrefix(scope);
    for (const [key, call] of this.#inFlight) if (key.startsWith(prefix)) this.#cancel(call, reason);
    for (const key of [...this.#subscriptions.keys()]) {
      if (key.startsWith(prefix)) this.#subscriptions.delete(key);
    }
  }

  /** Whether a `subscriptions/listen` of `scope` is open (its stream must stay open too). */
  hasSubscription(scope: string): boolean {
    const prefix = scopePrefix(scope);
    for (const key of this.#subscriptions.keys()) if (key.startsWith(prefix)) return true;
    return false;
  }

  async #handleRequest(
    id: WireId,
    method: string,
    message: Record<string, unknown>,
    rawNumber: RawNumberLookup,
    emit: Send,
  ): Promise<void> {
    const params = message.params;
    // `initialize` is the legacy handshake whatever its `_meta` says; anything else is modern when its
    // `_meta` names a modern version (refused when it names an unknown one).
    if (method !== "initialize") {
      const verdict = readEra(params);
      if (verdict.era === "refused") {
        emit(errorResponse(id, verdict.code, verdict.message, verdict.data));
        return;
      }
      if (verdict.era === "modern") {
        await this.#handleModern(id, method, message, rawNumber, emit, verdict.request);
        if (!this.#modernSeen) {
          this.#modernSeen = true;
          this.#runInitializeHooks();
        }
        return;
      }
    }
    switch (method) {
      case "initialize":
        emit(resultResponse(id, this.#initialize(params)));
        this.#runInitializeHooks();
        return;
      case "ping":
        emit(resultResponse(id, {}));
        return;
      case "tools/list":
        emit(resultResponse(id, { tools: [...this.#tools.values()].map(listedTool) }));
        return;
      case "tools/call":
        await this.#callTool(id, message, rawNumber, emit, null);
        return;
      case "resources/list":
        this.#listResources(id, params, emit);
        return;
      case "resources/templates/list":
        emit(resultResponse(id, { resourceTemplates: [] }));
        return;
      case "resources/read":
        await this.#readResource(id, params, emit);
        return;
      case "prompts/list":
        emit(resultResponse(id, { prompts: [] }));
        return;
      case "prompts/get": {
        const data = isRecord(params) && typeof params.name === "string"
          ? { name: clip(params.name) }
          : undefined;
        emit(errorResponse(id, ErrorCode.invalidParams, "Unknown prompt", data));
        return;
      }
      default:
        emit(errorResponse(id, ErrorCode.methodNotFound, "Method not found", { method: clip(method) }));
    }
  }

  #runInitializeHooks(): void {
    for (const hook of this.#initializeHooks) {
      try {
        hook();
      } catch (error) {
        this.#log(`an after-initialize hook failed: ${describeError(error)}`);
      }
    }
  }

  /**
   * Serve one modern (2026-07-28) request from what it carries alone. Removed or unadvertised methods
   * (`ping`, `logging/setLevel`, `prompts/*`, `completion/complete`) are -32601, as the schema prescribes
   * for a method gated behind a capability the server did not advertise.
   */
  async #handleModern(
    id: WireId,
    method: string,
    message: Record<string, unknown>,
    rawNumber: RawNumberLookup,
    emit: Send,
    modern: ModernRequest,
  ): Promise<void> {
    const params = message.params;
    const resources = this.#providers.length > 0;
    switch (method) {
      case "server/discover":
        this.#emitModern(id, this.#discover(), emit, CATALOG_CACHE);
        return;
      case "tools/list":
        // No cursor is ever handed out (one page), so any cursor is not one of ours.
        if (isRecord(params) && params.cursor !== undefined) {
          emit(errorResponse(id, ErrorCode.invalidParams, "Invalid params: unknown cursor"));
          return;
        }
        // Registration order: the same on every request of the process, as the spec asks for caching.
        this.#emitModern(id, { tools: [...this.#tools.values()].map(listedTool) }, emit, CATALOG_CACHE);
        return;
      case "tools/call":
        await this.#callTool(id, message, rawNumber, emit, modern);
        return;
      case "subscriptions/listen":
        this.#listen(id, params, emit);
        return;
      case "resources/list":
        if (!resources) break;
        this.#listResources(id, params, emit, RESOURCE_CACHE);
        return;
      case "resources/templates/list":
        if (!resources) break;
        if (isRecord(params) && params.cursor !== undefined) {
          emit(errorResponse(id, ErrorCode.invalidParams, "Invalid params: unknown cursor"));
          return;
        }
        this.#emitModern(id, { resourceTemplates: [] }, emit, CATALOG_CACHE);
        return;
      case "resources/read":
        if (!resources) break;
        await this.#readResource(id, params, emit, RESOURCE_CACHE);
        return;
      case "tasks/get":
      case "tasks/update":
      case "tasks/cancel":
        if (!this.#offersTasks()) break;
        this.#taskRequest(id, method, params, emit);
        return;
    }
    emit(errorResponse(id, ErrorCode.methodNotFound, "Method not found", { method: clip(method) }));
  }

  /** The `server/discover` result (without the modern members {@link #emitModern} adds). */
  #discover(): Record<string, unknown> {
    const capabilities = this.#capabilities();
    // An extension of the modern era only (2025-11-25 has no `extensions` capability, and its own tasks).
    if (this.#offersTasks()) capabilities.extensions = { [TASKS_EXTENSION]: {} };
    const result: Record<string, unknown> = {
      supportedVersions: [...ALL_SUPPORTED_VERSIONS],
      capabilities,
    };
    if (this.#options.instructions !== undefined) result.instructions = this.#options.instructions;
    return result;
  }

  /**
   * Open a `subscriptions/listen` stream. This server sends no change notifications (its tools never
   * change, and resource changes are not announced), so it acknowledges an empty filter, the subset it
   * honours, and holds the stream until the client cancels it or the session ends.
   */
  #listen(id: WireId, params: unknown, emit: Send): void {
    if (!isRecord(params) || !isRecord(params.notifications)) {
      emit(errorResponse(id, ErrorCode.invalidParams, "Invalid params: 'notifications' must be an object"));
      return;
    }
    if (this.#subscriptions.has(id.key) || this.#inFlight.has(id.key)) {
      emit(errorResponse(id, ErrorCode.invalidRequest, "Invalid request: id is already in use"));
      return;
    }
    this.#subscriptions.set(id.key, { id, emit });
    emit(notificationMessage("notifications/subscriptions/acknowledged", {
      _meta: { [MetaKey.subscriptionId]: id.wire },
      notifications: {},
    }));
  }

  /** Send a modern result (`resultType`, caching hints, serverInfo), or -32603 when over the budget. */
  #emitModern(id: WireId, result: Record<string, unknown>, emit: Send, cache?: CacheHint): void {
    this.#emitBounded(id, modernResult(result, this.#serverInfo(), cache), emit);
  }

  /** The server's `Implementation`: in the `initialize` result, and in every modern result's `_meta`. */
  #serverInfo(): Record<string, unknown> {
    const { name, title, version } = this.#options;
    const serverInfo: Record<string, unknown> = { name };
    if (title !== undefined) serverInfo.title = title;
    serverInfo.version = version;
    return serverInfo;
  }

  /** Whether a registered tool may run as a task (then the tasks extension is served). */
  #offersTasks(): boolean {
    for (const tool of this.#tools.values()) if (tool.taskSupport === true) return true;
    return false;
  }

  /**
   * `tasks/get`, `tasks/update` and `tasks/cancel` of the tasks extension. A task id this server did not
   * mint for this client (or one expired) is -32602; `tasks/update` is acknowledged without effect, since
   * no task here ever asks for input.
   */
  #taskRequest(id: WireId, method: string, params: unknown, emit: Send): void {
    const taskId = isRecord(params) ? params.taskId : undefined;
    if (typeof taskId !== "string") {
      emit(errorResponse(id, ErrorCode.invalidParams, "Invalid params: 'taskId' must be a string"));
      return;
    }
    const task = this.#tasks.get(taskId);
    if (task === null) {
      emit(
        errorResponse(
          id,
          ErrorCode.invalidParams,
          "Unknown task: this server holds no such task for this " +
            "client (never created here, or expired)",
          { taskId: clip(taskId) },
        ),
      );
      return;
    }
    if (method === "tasks/get") {
      this.#emitModern(id, this.#tasks.wire(task, true), emit);
      return;
    }
    if (method === "tasks/cancel" && task.status === "working") {
      task.controller.abort(new DOMException("cancelled by the client (tasks/cancel)", "AbortError"));
      this.#tasks.finish(task, { status: "cancelled", message: "cancelled by the client" });
    }
    this.#emitModern(id, {}, emit);
  }

  /** What the server offers: the same for both eras. */
  #capabilities(): Record<string, unknown> {
    const capabilities: Record<string, unknown> = { tools: { listChanged: false } };
    if (this.#providers.length > 0) capabilities.resources = {};
    return capabilities;
  }

  #initialize(params: unknown): Record<string, unknown> {
    const request = isRecord(params) ? params : {};
    const protocolVersion = negotiateProtocolVersion(request.protocolVersion);
    this.#protocolVersion = protocolVersion;
    this.#clientInfo = readClientInfo(request.clientInfo);
    this.#clientCapabilities = isRecord(request.capabilities) ? request.capabilities : {};
    const { instructions } = this.#options;
    const result: Record<string, unknown> = {
      protocolVersion,
      capabilities: this.#capabilities(),
      serverInfo: this.#serverInfo(),
    };
    if (instructions !== undefined) result.instructions = instructions;
    return result;
  }

  async #callTool(
    id: WireId,
    message: Record<string, unknown>,
    rawNumber: RawNumberLookup,
    emit: Send,
    modern: ModernRequest | null,
  ): Promise<void> {
    const invalid = (text: string, data?: ErrorData) =>
      emit(errorResponse(id, ErrorCode.invalidParams, text, data));
    if (!Object.hasOwn(message, "params")) return invalid("Missing params");
    const params = message.params;
    if (!isRecord(params)) return invalid("Invalid params");
    if (!Object.hasOwn(params, "name")) return invalid("Missing tool name");
    if (typeof params.name !== "string") return invalid("Invalid tool name");
    const tool = this.#tools.get(params.name);
    if (tool === undefined) {
      const why = this.#unavailable.get(params.name);
      if (why !== undefined) return invalid(why, { name: params.name, available: false });
      return invalid("Unknown tool", { name: clip(params.name) });
    }
    const rawArgs = Object.hasOwn(params, "arguments") ? params.arguments : null;
    if (rawArgs !== null && !isRecord(rawArgs)) {
      return invalid("Invalid params: 'arguments' must be an object", { name: tool.name });
    }
    const earlier = this.#inFlight.get(id.key);
    // A call whose answer another thread already wrote is over for the client, which may reuse its id.
    if ((earlier !== undefined && !(earlier.answered?.() ?? false)) || this.#subscriptions.has(id.key)) {
      emit(
        errorResponse(
          id,
          ErrorCode.invalidRequest,
          "Invalid request: id is already in use by a running call",
        ),
      );
      return;
    }
    const progressToken = readProgressToken(params, rawNumber);
    const entry: InFlightCall = { controller: new AbortController(), state: "running", answered: null };
    this.#inFlight.set(id.key, entry);
    // A direct writer produces a legacy result line; a modern one needs `resultType` and `_meta` too.
    const offer = modern === null ? this.#direct : null;
    const direct: DirectAnswer | null = offer === null ? null : {
      idJson: JSON.stringify(id.wire),
      maxLineBytes: offer.maxLineBytes,
      outputLock: offer.outputLock,
      watch: (answered) => entry.answered = answered,
    };
    let lastProgress = -Infinity;
    // A call that may become a task does at its first progress report (its work is under way) or after
    // TASK_COMMIT_MS; one that answers sooner (a refusal, an InputRequired) is answered as usual.
    const taskable = modern !== null && tool.taskSupport === true &&
      declaresTasks(modern.clientCapabilities) && this.#tasks.hasRoom();
    let task: TaskRecord | null = null;
    let status: string | undefined;
    let commit = () => {};
    const committed = new Promise<typeof COMMITTED>((resolve) => commit = () => resolve(COMMITTED));
    const call: ToolCall = {
      name: tool.name,
      requestId: id.value,
      signal: entry.controller.signal,
      progress: (progress, total, text) => {
        if (text !== undefined) status = String(text);
        if (task !== null) {
          // A task reports through its status (the extension carries no progress notifications).
          if (status !== undefined) this.#tasks.note(task, status);
          return;
        }
        if (taskable) commit();
        if (progressToken === undefined || entry.state !== "running") return;
        if (!Number.isFinite(progress) || progress <= lastProgress) return;
        lastProgress = progress;
        const note: Record<string, unknown> = { progressToken: progressToken.wire, progress };
        if (typeof total === "number" && Number.isFinite(total)) note.total = total;
        if (text !== undefined) note.message = String(text);
        emit(notificationMessage("notifications/progress", note));
      },
      fail: toolFailure,
      direct,
      modern,
      inputResponses: modern !== null && isRecord(params.inputResponses) ? params.inputResponses : null,
      task: taskable,
    };

    let outcome: ToolResult | typeof ABORTED;
    try {
      // Started at once, not in a later microtask: a tool that hands its work to another thread (the
      // evaluation pool) posts it before the transport re-arms its next stdin read, which on a loaded
      // machine can cost tens of microseconds. A synchronous throw still becomes a rejection.
      let work: Promise<ToolResult>;
      try {
        work = Promise.resolve(tool.handler(rawArgs, call));
      } catch (error) {
        work = Promise.reject(error);
      }
      // Tracked until it settles, even after a cancel: close() waits for it to clean up.
      const tracked = work.then(() => {}, () => {});
      this.#handlerWork.add(tracked);
      tracked.finally(() => this.#handlerWork.delete(tracked));
      if (!taskable) {
        outcome = await settledOrAborted(work, entry.controller.signal);
      } else {
        const timer = setTimeout(commit, TASK_COMMIT_MS);
        let raced: ToolResult | typeof ABORTED | typeof COMMITTED;
        try {
          raced = await Promise.race([settledOrAborted(work, entry.controller.signal), committed]);
        } finally {
          clearTimeout(timer);
        }
        if (raced === COMMITTED) {
          if (entry.state !== "running") return; // cancelled as it became a task
          // From here the task owns the work: the request (and its POST) is over.
          entry.state = "done";
          if (this.#inFlight.get(id.key) === entry) this.#inFlight.delete(id.key);
          task = this.#tasks.create(entry.controller, status);
          this.#runAsTask(task, tool, work);
          this.#emitBounded(
            id,
            modernResult(this.#tasks.wire(task, false), this.#serverInfo(), undefined, "task"),
            emit,
          );
          return;
        }
        outcome = raced;
      }
    } catch (error) {
      if (error instanceof InputRequired && modern !== null && entry.state === "running") {
        if (this.#inFlight.get(id.key) === entry) this.#inFlight.delete(id.key);
        entry.state = "done";
        this.#answerInputRequired(id, error, modern, emit);
        return;
      }
      outcome = toolFailure(describeError(error));
      if (entry.state === "running") this.#log(`tool '${tool.name}' threw: ${describeError(error)}`);
    } finally {
      // A reused id (after a direct answer) may already name a newer call.
      if (this.#inFlight.get(id.key) === entry) this.#inFlight.delete(id.key);
    }
    if (entry.state === "cancelled" || outcome === ABORTED) {
      entry.state = "cancelled";
      return; // the spec asks for no response to a cancelled request
    }
    entry.state = "done";
    if (isRecord(outcome) && outcome.answered === true) {
      if (direct !== null) return; // written by the direct writer
      this.#log(`tool '${tool.name}' claimed a direct answer it was not offered`);
      outcome = toolFailure(`tool '${tool.name}' returned no answer`);
    }
    if (!isRecord(outcome) || typeof outcome.text !== "string") {
      this.#log(`tool '${tool.name}' returned a result without text`);
      outcome = toolFailure(`tool '${tool.name}' returned no text`);
    }
    const shape = (result: ToolResult) =>
      modern === null ? resultResponse(id, toCallToolResult(result, tool.allowStructured)) : resultResponse(
        id,
        modernResult({ ...toCallToolResult(result, tool.allowStructured) }, this.#serverInfo()),
      );
    let json = typeof outcome.json !== "string" ? shape(outcome) : resultLine(
      JSON.stringify(id.wire),
      modern === null ? outcome.json : modernResultJson(outcome.json, JSON.stringify(this.#serverInfo())),
    );
    const bytes = this.#overBudget(json);
    if (bytes !== null) {
      this.#log(`tool '${tool.name}' answered ${bytes} bytes, over the ${this.#maxAnswerBytes}-byte budget`);
      const hint = this.#options.answerTooLargeHint ?? "narrow the request";
      json = shape(
        toolFailure(
          `the answer was ${bytes} bytes, over this server's limit of ${this.#maxAnswerBytes} bytes for ` +
            `one message; ${hint}`,
        ),
      );
    }
    emit(json);
  }

  /**
   * Settle `task` when `work` does: its result as the call would have answered it (within the answer
   * cap), a thrown error as a tool failure, a cancellation as `cancelled`. An `InputRequired` after the
   * task began cannot be asked for any more (SEP-2663 resolves input before a task is created): `failed`.
   */
  #runAsTask(task: TaskRecord, tool: ToolDefinition, work: Promise<ToolResult>): void {
    const settle = (result: ToolResult) => {
      let shaped = this.#taskResult(tool, result);
      const bytes = overBudget(JSON.stringify(shaped), this.#maxAnswerBytes - TASK_ENVELOPE_BYTES);
      if (bytes !== null) {
        const hint = this.#options.answerTooLargeHint ?? "narrow the request";
        shaped = this.#taskResult(
          tool,
          toolFailure(`the answer was ${bytes} bytes, over this server's limit for one message; ${hint}`),
        );
      }
      this.#tasks.finish(task, { status: "completed", result: shaped });
    };
    work.then(
      (result) => {
        if (task.controller.signal.aborted) {
          this.#tasks.finish(task, { status: "cancelled", message: "cancelled" });
        } else if (!isRecord(result) || typeof result.text !== "string" || result.answered === true) {
          settle(toolFailure(`tool '${tool.name}' returned no text`));
        } else settle(result);
      },
      (error) => {
        if (task.controller.signal.aborted) {
          this.#tasks.finish(task, { status: "cancelled", message: "cancelled" });
        } else if (error instanceof InputRequired) {
          this.#tasks.finish(task, {
            status: "failed",
            error: {
              code: ErrorCode.invalidRequest,
              message: "the call asked for client input after it became a task; call it again",
            },
          });
        } else {
          this.#log(`tool '${tool.name}' threw: ${describeError(error)}`);
          settle(toolFailure(describeError(error)));
        }
      },
    );
  }

  /** A tool result as a modern `CallToolResult` object (what `tasks/get` of a completed task carries). */
  #taskResult(tool: ToolDefinition, result: ToolResult): Record<string, unknown> {
    if (typeof result.json === "string") {
      return JSON.parse(modernResultJson(result.json, JSON.stringify(this.#serverInfo())));
    }
    return modernResult({ ...toCallToolResult(result, tool.allowStructured) }, this.#serverInfo());
  }

  /**
   * Answer a modern call with an `InputRequiredResult`, or with -32021 when it asks for input the
   * request's client capabilities do not declare (the spec forbids sending such an input request).
   */
  #answerInputRequired(id: WireId, input: InputRequired, modern: ModernRequest, emit: Send): void {
    const missing = missingInputCapabilities(input.inputRequests, modern.clientCapabilities);
    if (missing !== null) {
      emit(
        errorResponse(
          id,
          ModernErrorCode.missingRequiredClientCapability,
          "Missing required client capability",
          {
            requiredCapabilities: missing,
          },
        ),
      );
      return;
    }
    const result: Record<string, unknown> = { inputRequests: input.inputRequests };
    if (input.requestState !== undefined) result.requestState = input.requestState;
    // Interim results carry no caching hints.
    this.#emitBounded(id, modernResult(result, this.#serverInfo(), undefined, "input_required"), emit);
  }

  /** `resources/list`; `cache` given for a modern request (which also shapes the result). */
  #listResources(id: WireId, params: unknown, emit: Send, cache?: CacheHint): void {
    const answer = listResources(this.#providers, params, (message) => this.#log(message));
    if ("error" in answer) {
      emit(errorResponse(id, answer.error.code, answer.error.message, answer.error.data));
    } else if (cache !== undefined) this.#emitModern(id, answer.result, emit, cache);
    else this.#emitBounded(id, answer.result, emit);
  }

  /** `resources/read`; `cache` given for a modern request, where "not found" is -32602 (2026-07-28). */
  async #readResource(id: WireId, params: unknown, emit: Send, cache?: CacheHint): Promise<void> {
    const answer = await readResource(this.#providers, params, (message) => this.#log(message));
    if ("error" in answer) {
      const code = cache !== undefined && answer.error.code === ErrorCode.resourceNotFound
        ? ErrorCode.invalidParams
        : answer.error.code;
      emit(errorResponse(id, code, answer.error.message, answer.error.data));
    } else if (cache !== undefined) this.#emitModern(id, answer.result, emit, cache);
    else this.#emitBounded(id, answer.result, emit);
  }

  /** The UTF-8 size of `json` when it is over the answer budget, else null. */
  #overBudget(json: string): number | null {
    return overBudget(json, this.#maxAnswerBytes);
  }

  /** Send a result, or a `-32603` naming its size when it is over the answer budget. */
  #emitBounded(id: WireId, result: unknown, emit: Send): void {
    const json = resultResponse(id, result);
    const bytes = this.#overBudget(json);
    if (bytes === null) {
      emit(json);
      return;
    }
    emit(errorResponse(id, ErrorCode.internalError, "Answer too large", {
      bytes,
      limit: this.#maxAnswerBytes,
    }));
  }

  #cancel(call: InFlightCall, reason: string): void {
    if (call.state !== "running") return;
    call.state = "cancelled";
    call.controller.abort(new DOMException(reason, "AbortError"));
  }

  #emit(send: Send, json: string): void {
    try {
      send(json);
    } catch (error) {
      this.#log(`send failed: ${describeError(error)}`);
    }
  }

  #log(message: string): void {
    try {
      this.#options.log?.(message);
    } catch {
      // A failing logger must not take the session down.
    }
  }
}

type RawNumberLookup = (holder: object, key: string) => string | undefined;

/** How often, at most, an ignored notification is logged. */
const IGNORED_LOG_INTERVAL_MS = 60_000;

/** The key prefix of a scope's ids (a NUL cannot occur in a scope name a transport makes). */
function scopePrefix(scope: string): string {
  return `${scope}\u0000`;
}

/** `id` with its key made unique to `scope` (the wire id is unchanged: the answer echoes it). */
function scoped(id: WireId, scope: string | undefined): WireId {
  return scope === undefined ? id : { ...id, key: scopePrefix(scope) + id.key };
}

/** A request id as MCP allows it: a string or an integer (a fractional number is refused). */
function requestId(value: unknown, rawSource: string | undefined): WireId | null {
  if (typeof value === "number" && !Number.isInteger(value)) return null;
  return toWireId(value, rawSource);
}

/** The `tools/list` entry of a registered tool. */
function listedTool(tool: ToolDefinition): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: tool.name };
  if (tool.title !== undefined) entry.title = tool.title;
  entry.description = tool.description;
  entry.inputSchema = tool.inputSchema;
  if (tool.outputSchema !== undefined) entry.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) entry.annotations = tool.annotations;
  return entry;
}

/** `params._meta.progressToken` when it is a usable token (string or number), else undefined. */
function readProgressToken(params: Record<string, unknown>, rawNumber: RawNumberLookup): WireId | undefined {
  const meta = params._meta;
  if (!isRecord(meta) || !Object.hasOwn(meta, "progressToken")) return undefined;
  return toWireId(meta.progressToken, rawNumber(meta, "progressToken")) ?? undefined;
}

function readClientInfo(value: unknown): ClientInfo | null {
  if (!isRecord(value) || typeof value.name !== "string") return null;
  const info: ClientInfo = { name: clip(value.name) };
  if (typeof value.version === "string") info.version = clip(value.version);
  if (typeof value.title === "string") info.title = clip(value.title);
  return info;
}

/** Resolve with the work's value, or with ABORTED as soon as `signal` fires (the work is left behind). */
function settledOrAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isObjectSchema(schema: unknown): boolean {
  return isRecord(schema) && schema.type === "object";
}

function clip(text: string): string {
  return text.length <= MAX_ECHOED_CHARS ? text : `${text.slice(0, MAX_ECHOED_CHARS)}...`;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

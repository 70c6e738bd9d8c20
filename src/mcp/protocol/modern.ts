/**
 * The modern era of MCP (revision 2026-07-28 and later): no handshake, every request names its protocol
 * version and client capabilities in `params._meta`, every result carries `resultType`. This module reads
 * that per-request metadata and shapes modern results; `server.ts` routes by it. Pure: no transport, no I/O.
 *
 * @module
 */

import { ErrorCode } from "./jsonrpc.ts";
import { MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from "./versions.ts";

/** The reserved `_meta` keys of a modern request and result. */
export const MetaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** Error codes 2026-07-28 defines in the range it reserves for the specification (-32020..-32099). */
export const ModernErrorCode = {
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
} as const;

/** The syslog severities a request may ask for in `io.modelcontextprotocol/logLevel`, least severe first. */
export const LOG_LEVELS: readonly string[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/**
 * Every version in `UnsupportedProtocolVersionError.data.supported` and `server/discover`'s
 * `supportedVersions`: the modern ones first, then the legacy ones a client reaches through `initialize`
 * (the spec's own example of the error lists both eras).
 */
export const ALL_SUPPORTED_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];

/** What a modern request said about itself, read from its `params._meta`. */
export interface ModernRequest {
  /** The modern revision the request speaks (one of {@link MODERN_PROTOCOL_VERSIONS}). */
  readonly protocolVersion: string;
  /** The client's capabilities for this request only (never carried over to another request). */
  readonly clientCapabilities: Record<string, unknown>;
  /** The client's self-description, when given (display and logs only). */
  readonly clientInfo: { name: string; version?: string } | null;
  /** The least severe log level the client wants for this request, or null: then no `notifications/message`. */
  readonly logLevel: string | null;
}

/** The era a request is served in, or the error that refuses it before any method is looked at. */
export type EraVerdict =
  | { readonly era: "legacy" }
  | { readonly era: "modern"; readonly request: ModernRequest }
  | {
    readonly era: "refused";
    readonly code: number;
    readonly message: string;
    readonly data?: Record<string, unknown>;
  };

const LEGACY: EraVerdict = { era: "legacy" };

/**
 * Decide a request's era from its `params._meta`. A request naming a modern protocol version is modern;
 * one naming no version, or a legacy one (legacy clients never send the key, and a legacy version is
 * served by the legacy semantics that version has), is legacy. A version this server does not know is
 * refused with `UnsupportedProtocolVersionError` (-32022) listing the supported ones; a modern request
 * without its required `clientCapabilities`, or with a malformed field, with -32602.
 *
 * @example
 * ```ts
 * import { readEra } from "./modern.ts";
 * import assert from "node:assert/strict";
 * const _meta = {
 *   "io.modelcontextprotocol/protocolVersion": "2026-07-28",
 *   "io.modelcontextprotocol/clientCapabilities": {},
 * };
 * assert.equal(readEra({ _meta }).era, "modern");
 * assert.equal(readEra({ name: "x" }).era, "legacy");
 * ```
 */
export function readEra(params: unknown): EraVerdict {
  if (!isRecord(params) || !isRecord(params._meta)) return LEGACY;
  const meta = params._meta;
  if (!Object.hasOwn(meta, MetaKey.protocolVersion)) return LEGACY;
  const version = meta[MetaKey.protocolVersion];
  if (typeof version !== "string") {
    return invalid(`'${MetaKey.protocolVersion}' must be a string`);
  }
  if (SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return LEGACY;
  if (!MODERN_PROTOCOL_VERSIONS.includes(version)) {
    return {
      era: "refused",
      code: ModernErrorCode.unsupportedProtocolVersion,
      message: "Unsupported protocol version",
      data: { supported: [...ALL_SUPPORTED_VERSIONS], requested: clip(version) },
    };
  }
  if (!Object.hasOwn(meta, MetaKey.clientCapabilities)) {
    return invalid(`missing required '${MetaKey.clientCapabilities}'`);
  }
  const capabilities = meta[MetaKey.clientCapabilities];
  if (!isRecord(capabilities)) return invalid(`'${MetaKey.clientCapabilities}' must be an object`);
  let logLevel: string | null = null;
  if (Object.hasOwn(meta, MetaKey.logLevel)) {
    const level = meta[MetaKey.logLevel];
    if (typeof level !== "string" || !LOG_LEVELS.includes(level)) {
      return invalid(`'${MetaKey.logLevel}' must be one of ${LOG_LEVELS.join(", ")}`);
    }
    logLevel = level;
  }
  return {
    era: "modern",
    request: {
      protocolVersion: version,
      clientCapabilities: capabilities,
      clientInfo: readImplementation(meta[MetaKey.clientInfo]),
      logLevel,
    },
  };
}

/**
 * Thrown by a tool handler (or what it calls) on a modern request to answer with an
 * `InputRequiredResult` instead of a result: the client fulfils `inputRequests` (each a `roots/list`,
 * `sampling/createMessage` or `elicitation/create` request) and retries the call with `inputResponses`
 * under the same keys. Only for input the request's client capabilities declare: the server answers an
 * undeclared one with `MissingRequiredClientCapabilityError` (-32021) instead.
 */
export class InputRequired extends Error {
  /** The server's requests, by key (unique within the request). */
  readonly inputRequests: Record<string, { method: string; params?: Record<string, unknown> }>;
  /** Opaque state the client echoes on its retry (attacker-controlled when it comes back). */
  readonly requestState: string | undefined;

  /** Ask the client for `inputRequests` (and optionally hand it `requestState` to echo). */
  constructor(
    inputRequests: Record<string, { method: string; params?: Record<string, unknown> }>,
    requestState?: string,
  ) {
    super("input required");
    this.name = "InputRequired";
    this.inputRequests = inputRequests;
    this.requestState = requestState;
  }
}

/** The client capability each kind of input request needs. */
const INPUT_CAPABILITY: Readonly<Record<string, string>> = {
  "roots/list": "roots",
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
};

/**
 * The client capabilities `inputRequests` need that `declared` lacks (an unknown method needs a
 * capability no client can declare), as a `ClientCapabilities` object; null when nothing is missing.
 */
export function missingInputCapabilities(
  inputRequests: InputRequired["inputRequests"],
  declared: Record<string, unknown>,
): Record<string, unknown> | null {
  const missing: Record<string, unknown> = {};
  for (const request of Object.values(inputRequests)) {
    const capability = INPUT_CAPABILITY[request.method] ?? `unsupported:${clip(request.method)}`;
    if (!isRecord(declared[capability])) missing[capability] = {};
  }
  return Object.keys(missing).length === 0 ? null : missing;
}

/**
 * Caching hints for the results 2026-07-28 makes cacheable (`server/discover`, the lists,
 * `resources/read`): how long the result may be reused, and whether shared intermediaries may.
 */
export interface CacheHint {
  readonly ttlMs: number;
  readonly cacheScope: "public" | "private";
}

/**
 * The catalog (discovery, tools, resource templates) is fixed for a process's life but may change with
 * its flags or an upgrade: five minutes, public (it holds no caller's data).
 */
export const CATALOG_CACHE: CacheHint = { ttlMs: 300_000, cacheScope: "public" };

/**
 * Resources are a session's own outputs (simulation runs), which come and go with every call: stale at
 * once, and private to the caller.
 */
export const RESOURCE_CACHE: CacheHint = { ttlMs: 0, cacheScope: "private" };

/**
 * A modern result: `resultType` first, the result's own members, the caching hints when given, and the
 * server's identity in `_meta` (merged with any `_meta` the result has).
 */
export function modernResult(
  result: Record<string, unknown>,
  serverInfo: Record<string, unknown>,
  cache?: CacheHint,
  resultType = "complete",
): Record<string, unknown> {
  const shaped: Record<string, unknown> = { resultType, ...result };
  if (cache !== undefined) {
    shaped.ttlMs = cache.ttlMs;
    shaped.cacheScope = cache.cacheScope;
  }
  const meta = isRecord(result._meta) ? result._meta : {};
  shaped._meta = { ...meta, [MetaKey.serverInfo]: serverInfo };
  return shaped;
}

/**
 * {@link modernResult} for a result already serialised (a tool's prebuilt answer, possibly megabytes):
 * the modern members are spliced in front instead of parsing it again. `json` must be a JSON object
 * text without `resultType` or `_meta` members of its own (tool results have neither).
 *
 * @example
 * ```ts
 * import { modernResultJson } from "./modern.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   modernResultJson('{"content":[]}', '{"name":"s","version":"1"}'),
 *   '{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"content":[]}',
 * );
 * ```
 */
export function modernResultJson(json: string, serverInfoJson: string): string {
  const head = `{"resultType":"complete","_meta":{"${MetaKey.serverInfo}":${serverInfoJson}}`;
  const rest = json.trimStart().slice(1).trimStart();
  return rest.startsWith("}") ? `${head}}` : `${head},${rest}`;
}

function invalid(detail: string): EraVerdict {
  return { era: "refused", code: ErrorCode.invalidParams, message: `Invalid params: ${detail}` };
}

function readImplementation(value: unknown): { name: string; version?: string } | null {
  if (!isRecord(value) || typeof value.name !== "string") return null;
  const info: { name: string; version?: string } = { name: clip(value.name) };
  if (typeof value.version === "string") info.version = clip(value.version);
  return info;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length <= 256 ? text : `${text.slice(0, 256)}...`;
}

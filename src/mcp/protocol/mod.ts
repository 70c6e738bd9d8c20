/**
 * The MCP protocol layer: a transport-independent server core, the seam it talks to transports through
 * (`transport.ts`), and the stdio and Streamable HTTP transports. It knows nothing of bxp; tools are
 * registered by the application.
 *
 * The Streamable HTTP transport is entered at its own two modules, not re-exported here: importing this
 * face (as the stdio session does) must not load the HTTP code, about a tenth of the session worker's
 * modules at start.
 *
 * @module
 */

// @entry ./http.ts
// @entry ./http_listener.ts

export {
  type ClientInfo,
  type CloseHook,
  type DirectAnswer,
  McpServer,
  type NotificationListener,
  type ServerOptions,
  type ToolCall,
  type ToolDefinition,
  type ToolHandler,
} from "./server.ts";
export { type DirectAnswers, type Send, type Transport, type TransportServer } from "./transport.ts";
export {
  type CallToolResult,
  type ResourceLink,
  toCallToolResult,
  toolFailure,
  type ToolResult,
} from "./tool_result.ts";
export {
  RESOURCE_PAGE_SIZE,
  type ResourceContents,
  type ResourceEntry,
  type ResourceProvider,
} from "./resources.ts";
export {
  type ByteReader,
  DEFAULT_EOF_GRACE_MS,
  DEFAULT_MAX_CONCURRENT,
  DEFAULT_MAX_IN_FLIGHT_BYTES,
  DEFAULT_MAX_QUEUED_BYTES,
  serveStdio,
  type SessionEnd,
  type StdioOptions,
} from "./stdio.ts";
export {
  ClientRoots,
  DEFAULT_ROOTS_TIMEOUT_MS,
  requestRoots,
  type Root,
  ROOTS_INPUT_KEY,
  type RootsState,
} from "./roots.ts";
export {
  ALL_SUPPORTED_VERSIONS,
  type EraVerdict,
  InputRequired,
  LOG_LEVELS,
  MetaKey,
  ModernErrorCode,
  type ModernRequest,
  readEra,
} from "./modern.ts";
export { DEFAULT_PEER_REQUEST_TIMEOUT_MS, type PeerFailure, PeerRequestError } from "./peer_requests.ts";
export {
  LATEST_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSIONS,
  negotiateProtocolVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./versions.ts";
export { ErrorCode, type RequestId } from "./jsonrpc.ts";
export {
  createOutputLock,
  lockOutput,
  OUTPUT_FREE,
  OUTPUT_SESSION,
  tryLockOutput,
  unlockOutput,
} from "../../util/output_lock.ts";
export { MAX_LINE_BYTES } from "./line_splitter.ts";
export { MAX_JSON_DEPTH } from "./guarded_json.ts";
export { DEFAULT_MAX_ANSWER_BYTES } from "./answer_budget.ts";
export { resultLine } from "./jsonrpc.ts";
export { structuredJson } from "./tool_result.ts";

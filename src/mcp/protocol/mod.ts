/**
 * The MCP protocol layer: a transport-independent server core and the stdio transport. It knows nothing
 * of bxp; tools are registered by the application.
 *
 * @module
 */

export {
  type ClientInfo,
  McpServer,
  type Send,
  type ServerOptions,
  type ToolCall,
  type ToolDefinition,
  type ToolHandler,
} from "./server.ts";
export {
  type CallToolResult,
  type ResourceLink,
  toCallToolResult,
  toolFailure,
  type ToolResult,
} from "./tool_result.ts";
export type { ResourceContents, ResourceEntry, ResourceProvider } from "./resources.ts";
export { DEFAULT_EOF_GRACE_MS, serveStdio, type StdioOptions } from "./stdio.ts";
export {
  LATEST_PROTOCOL_VERSION,
  negotiateProtocolVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./versions.ts";
export { ErrorCode, type RequestId } from "./jsonrpc.ts";
export { MAX_LINE_BYTES } from "./line_splitter.ts";
export { MAX_JSON_DEPTH } from "./json_input.ts";

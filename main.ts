/**
 * bxp-mcp: the MCP server (JSON-RPC 2.0 over stdio, or Streamable HTTP with `--http`) exposing bxp's tools
 * to an agent. Run with `deno task bxp-mcp`, or register the compiled binary with an MCP client by absolute
 * path.
 *
 * @module
 */

import { runBxpMcp } from "./src/mcp/server_main.ts";

// Exit explicitly: an idle stdin read can otherwise keep the process alive after serving ends.
Deno.exit(await runBxpMcp(Deno.args));

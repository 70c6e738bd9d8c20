/**
 * The bxp MCP server: the protocol core with bxp's identity, instructions and the nine catalog tools.
 *
 * @module
 */

import { VERSION } from "../version.ts";
import { McpServer } from "./protocol/mod.ts";
import { SERVER_INSTRUCTIONS, SERVER_NAME, SERVER_TITLE } from "./help.ts";
import { type SimulateHost, Simulator } from "./simulate/mod.ts";
import { registerBxpTools } from "./tools/catalog.ts";

/** Inputs of {@link createBxpServer}. */
export interface BxpServerOptions {
  /** Diagnostics sink (stderr). */
  log: (message: string) => void;
  /** Where `bxp_simulate` stages and spawns. */
  simulateHost: SimulateHost;
}

/**
 * A ready server: identity `bxp-mcp` with title, version and instructions, and every catalog tool.
 *
 * @example
 * ```ts
 * const server = createBxpServer({ log: console.error, simulateHost: denoSimulateHost(console.error) });
 * server.toolNames[0]; // "bxp_validate"
 * ```
 */
export function createBxpServer(options: BxpServerOptions): McpServer {
  const server = new McpServer({
    name: SERVER_NAME,
    title: SERVER_TITLE,
    version: VERSION,
    instructions: SERVER_INSTRUCTIONS,
    log: options.log,
  });
  registerBxpTools(server, { simulator: new Simulator(options.simulateHost) });
  return server;
}

/**
 * The bxp MCP server: the protocol core with bxp's identity, instructions and the catalog tools
 * (`bxp_write_config` only with `--allow-write`).
 *
 * @module
 */

import { VERSION } from "../version.ts";
import { McpServer, type Send } from "./protocol/mod.ts";
import { SERVER_INSTRUCTIONS, SERVER_NAME, SERVER_TITLE } from "./help.ts";
import type { ProjectRoot } from "./security/paths.ts";
import { type SimulateHost, Simulator } from "./simulate/mod.ts";
import { registerBxpTools, WRITE_TOOL_NAME, WRITES_DISABLED } from "./tools/catalog.ts";

/** Inputs of {@link createBxpServer}. */
export interface BxpServerOptions {
  /** Diagnostics sink (stderr). */
  log: (message: string) => void;
  /** Where `bxp_simulate` stages and spawns. */
  simulateHost: SimulateHost;
  /** The fixed project root for `path` / `csv_path` arguments; null (default) accepts inline text only. */
  root?: ProjectRoot | null;
  /** Enable `bxp_write_config` (default false). */
  allowWrite?: boolean;
}

/**
 * The answer the protocol layer gives a call to an unregistered tool, for the writing tool: the exact
 * tail of that error line, so it can be given guidance without re-routing the message.
 */
const UNKNOWN_WRITE_TOOL_TAIL =
  `,"error":{"code":-32602,"message":"Unknown tool","data":{"name":"${WRITE_TOOL_NAME}"}}}`;

/**
 * The protocol server, with one addition: while writes are disabled, a call to `bxp_write_config` (not
 * listed, so "Unknown tool" to the protocol layer) is answered with guidance on how to enable it.
 */
class BxpMcpServer extends McpServer {
  readonly #allowWrite: boolean;

  constructor(options: ConstructorParameters<typeof McpServer>[0], allowWrite: boolean) {
    super(options);
    this.#allowWrite = allowWrite;
  }

  override handleLine(line: string, send?: Send): Promise<void> {
    if (this.#allowWrite || send === undefined || !line.includes(WRITE_TOOL_NAME)) {
      return super.handleLine(line, send);
    }
    return super.handleLine(line, (json) => {
      if (!json.endsWith(UNKNOWN_WRITE_TOOL_TAIL)) return send(json);
      const head = json.slice(0, json.length - UNKNOWN_WRITE_TOOL_TAIL.length);
      const error = {
        code: -32602,
        message: WRITES_DISABLED,
        data: { name: WRITE_TOOL_NAME, writes: "disabled" },
      };
      send(`${head},"error":${JSON.stringify(error)}}`);
    });
  }
}

/**
 * A ready server: identity `bxp-mcp` with title, version and instructions, and the catalog tools.
 *
 * @example
 * ```ts
 * const server = createBxpServer({ log: console.error, simulateHost: denoSimulateHost(console.error) });
 * server.toolNames[0]; // "bxp_validate"
 * ```
 */
export function createBxpServer(options: BxpServerOptions): McpServer {
  const allowWrite = options.allowWrite ?? false;
  const server = new BxpMcpServer({
    name: SERVER_NAME,
    title: SERVER_TITLE,
    version: VERSION,
    instructions: SERVER_INSTRUCTIONS,
    log: options.log,
  }, allowWrite);
  registerBxpTools(server, {
    simulator: new Simulator(options.simulateHost),
    root: options.root ?? null,
    allowWrite,
  });
  return server;
}

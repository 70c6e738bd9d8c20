/**
 * The bxp MCP server: the protocol core with bxp's identity, instructions and the catalog tools
 * (`bxp_write_config` only with `--allow-write` and a fixed `--root`), the project root (fixed, or the
 * client's single MCP root), and the session's end (simulations stopped, their children killed).
 *
 * @module
 */

import { fromFileUrl, rootOf } from "../util/host_path.ts";
import { VERSION } from "../version.ts";
import {
  ClientRoots,
  DEFAULT_ROOTS_TIMEOUT_MS,
  McpServer,
  requestRoots,
  type RootsState,
  type ToolCall,
} from "./protocol/mod.ts";
import { SERVER_INSTRUCTIONS } from "./help.ts";
import { SERVER_NAME, SERVER_TITLE } from "./identity.ts";
import { PathGuardError, ProjectRoot } from "./security/paths.ts";
import { type SimulateHost, Simulator } from "./simulate/mod.ts";
import { registerBxpTools, WRITE_TOOL_NAME, WRITES_DISABLED } from "./tools/catalog.ts";

/** Inputs of {@link createBxpServer}. */
export interface BxpServerOptions {
  /** Diagnostics sink (stderr). */
  log: (message: string) => void;
  /** Where `bxp_simulate` stages and spawns. */
  simulateHost: SimulateHost;
  /**
   * The fixed project root (`--root`) for `path` / `csv_path` arguments. When null (default) the root is
   * the client's MCP root if it offers exactly one `file://` root, else there is none and path arguments
   * are refused. The working directory is never a root by default.
   */
  root?: ProjectRoot | null;
  /** Enable `bxp_write_config` (default false). Needs a fixed `root`: see {@link WRITES_NEED_FIXED_ROOT}. */
  allowWrite?: boolean;
  /** How long a call waits for the client's roots (default {@link DEFAULT_ROOTS_TIMEOUT_MS}). */
  rootsTimeoutMs?: number;
}

/**
 * What a client is told when it calls the writing tool on a server started with `--allow-write` but
 * without `--root`: the session's write permission is fixed when it starts, before any client root is
 * known, so a root learnt from the client can never be written to.
 */
export const WRITES_NEED_FIXED_ROOT = "Writes need a fixed project root. Start bxp-mcp with --root DIR " +
  "--allow-write to enable bxp_write_config; a root learnt from the client's MCP roots is read-only.";

/** How a tool failure for an oversized answer tells the model to narrow its request. */
export const NARROW_THE_REQUEST = "narrow the request: a smaller max_bytes where the tool takes one, " +
  "fewer rows or expressions, or a smaller input";

/**
 * A ready server: identity `bxp-mcp` with title, version and instructions, and the catalog tools.
 *
 * @example
 * ```ts
 * import { createBxpServer } from "./bxp_server.ts";
 * import { denoSimulateHost } from "./simulate/simulate.ts";
 * import assert from "node:assert/strict";
 * const server = createBxpServer({ log: console.error, simulateHost: denoSimulateHost(console.error) });
 * assert.equal(server.toolNames[0], "bxp_validate");
 * ```
 */
export function createBxpServer(options: BxpServerOptions): McpServer {
  const fixedRoot = options.root ?? null;
  const writable = (options.allowWrite ?? false) && fixedRoot !== null;
  const writesRefusal = options.allowWrite && fixedRoot === null ? WRITES_NEED_FIXED_ROOT : WRITES_DISABLED;
  const server = new McpServer({
    name: SERVER_NAME,
    title: SERVER_TITLE,
    version: VERSION,
    instructions: SERVER_INSTRUCTIONS,
    log: options.log,
    // Without writes the writing tool is not listed, and a call says how to enable it.
    unavailableTools: writable ? undefined : new Map([[WRITE_TOOL_NAME, writesRefusal]]),
    answerTooLargeHint: NARROW_THE_REQUEST,
  });
  const simulator = new Simulator(options.simulateHost);
  // The kept simulation runs' outputs and traces are readable as `bxp-sim://` resources.
  server.addResourceProvider(simulator.resources);
  // At the session's end (stdin closed, or a signal): cancelled calls have already killed their own
  // bxp-cli; this stops queued runs and removes every workspace.
  server.onClose(() => simulator.close());
  const root = fixedRoot !== null
    ? () => Promise.resolve(fixedRoot)
    : clientRootResolver(server, options.log, options.rootsTimeoutMs ?? DEFAULT_ROOTS_TIMEOUT_MS);
  registerBxpTools(server, { simulator, root, allowWrite: writable });
  return server;
}

/**
 * The root from the client's MCP roots: exactly one `file://` root, opened through {@link ProjectRoot}
 * like `--root` (once per URI); null for zero or several, a client without the capability, a root that
 * cannot be opened, or a file system root (`/`, `C:\`). Each refusal is logged once per distinct answer.
 * A legacy session's roots are asked with `roots/list` after its handshake; a modern call's come with
 * the call itself (asked for with an `InputRequiredResult` when the request declares roots).
 */
function clientRootResolver(
  server: McpServer,
  log: (message: string) => void,
  timeoutMs: number,
): (call?: ToolCall) => Promise<ProjectRoot | null> {
  const roots = new ClientRoots(server, { timeoutMs, log });
  let opened: { uri: string; root: Promise<ProjectRoot | null> } | null = null;
  let lastRefusal = "";
  const refuse = (why: string): null => {
    if (why !== lastRefusal) log(`no project root for path arguments: ${why}; start bxp-mcp with --root DIR`);
    lastRefusal = why;
    return null;
  };
  return async (call) => {
    const state: RootsState = call?.modern ? requestRoots(call) : await roots.current();
    if (state.kind === "unsupported") {
      // 2026-07-28 deprecates roots (SEP-2577): a modern client without them is the expected case.
      return refuse(
        call?.modern
          ? "the 2026-07-28 request offers no MCP roots (deprecated in that revision)"
          : "the client does not offer MCP roots",
      );
    }
    if (state.kind === "unavailable") return refuse(state.reason);
    const files = state.roots.filter((r) => r.uri.toLowerCase().startsWith("file://"));
    if (files.length !== 1) return refuse(`the client offers ${files.length} file:// roots, not exactly one`);
    const uri = files[0].uri;
    if (opened?.uri !== uri) opened = { uri, root: openClientRoot(uri) };
    const root = await opened.root;
    if (root === null) return refuse(`the client's root ${uri} cannot be opened`);
    // A whole file system as the project is never what a client means to share (it may be its own
    // working directory, started in `/`): the same accident --root avoids.
    if (rootOf(root.path) === root.path) return refuse(`the client's root ${uri} is a file system root`);
    return root;
  };
}

async function openClientRoot(uri: string): Promise<ProjectRoot | null> {
  let path: string;
  try {
    path = fromFileUrl(uri);
  } catch {
    return null; // e.g. a host name other than localhost, or a malformed URL
  }
  try {
    return await ProjectRoot.open(path);
  } catch (error) {
    if (error instanceof PathGuardError) return null;
    throw error;
  }
}

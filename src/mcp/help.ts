/**
 * The texts bxp-mcp prints outside the protocol: `--version`, `--help` (with the tool list from the
 * catalog) and the `instructions` announced at `initialize`.
 *
 * @module
 */

import { VERSION } from "../version.ts";
import { SERVER_NAME } from "./identity.ts";
import {
  BXP_TOOLS,
  type BxpTool,
  DEFAULT_MAX_BYTES,
  MAX_BYTES_CAP,
  WRITE_TOOL_NAME,
} from "./tools/catalog.ts";
import { EVAL_TIME_LIMIT_MS } from "./tools/eval_pool.ts";
import { AUTHORING_TOOLS } from "./tools/authoring_tools.ts";

/**
 * What the agent is told at `initialize`: the workflow, the path rules and the budgets. Tools beyond bxp's
 * own (discovery, authoring, writing) are named from the catalog they are registered from.
 *
 * @example
 * ```ts
 * import { serverInstructions } from "./help.ts";
 * import assert from "node:assert/strict";
 * assert.equal(serverInstructions().includes("bxp_docs first"), true);
 * ```
 */
export function serverInstructions(tools: readonly BxpTool[] = BXP_TOOLS): string {
  const named = (names: string[]) => names.filter((n) => tools.some((t) => t.name === n));
  const authoringNames = new Set(AUTHORING_TOOLS.map((t) => t.name));
  const others = tools.map((t) => t.name).filter((n) => !BXP_OWN_TOOLS.has(n) && n !== WRITE_TOOL_NAME);
  const extra = others.filter((n) => !authoringNames.has(n));
  const authoring = others.filter((n) => authoringNames.has(n));
  const write = named([WRITE_TOOL_NAME]);
  return [
    "bxp-mcp authors, checks and runs bxp-cli conversion configs (JSON5): CSV exports in, the exact CSV " +
    "another system imports out.",
    "Workflow: call bxp_docs first to learn the expression and config language (narrow it with section " +
    "or name). " +
    (extra.length > 0 ? `Look at the project and its sample files with ${extra.join(", ")}. ` : "") +
    "Start from an existing config (bxp_list_templates, then bxp_fetch_template) or draft one" +
    (authoring.length > 0 ? ` (${authoring.join(", ")} drafts one from a sample)` : "") + "; check it " +
    "with bxp_validate (read its verdict: ok, counts, findings with paths) and single expressions with " +
    "bxp_validate_expr; compute values with bxp_eval or bxp_eval_batch (both take maps and lookups); use " +
    "bxp_eval_trace to debug an expression call by call; then use bxp_simulate to verify a finished config " +
    "for real on sample CSV before anyone runs it" +
    (write.length > 0 ? `, and ${write[0]} to save it (only when the server runs with --allow-write).` : "."),
    "Paths: 'path' and 'csv_path' arguments are relative to the project root, never absolute and never " +
    "climbing out with '..'. The root is the --root folder, or the client's single MCP root when bxp-mcp " +
    "runs without --root; the server's working directory is never the root. Inline 'config' and 'csv' " +
    "text needs no root.",
    `Budgets: every tool takes max_bytes (default ${DEFAULT_MAX_BYTES} bytes, at most ${MAX_BYTES_CAP}); ` +
    "a larger answer is refused with its size, so narrow the request. The evaluation tools (bxp_validate, " +
    "bxp_validate_expr, bxp_eval, bxp_eval_batch, bxp_eval_trace) stop after " +
    `${EVAL_TIME_LIMIT_MS / 1000} s; cancelling a call stops its work. Unknown argument names are ` +
    "refused with the valid ones.",
  ].join("\n");
}

/** bxp's own nine tools (the workflow text names them itself). */
const BXP_OWN_TOOLS = new Set([
  "bxp_validate",
  "bxp_validate_expr",
  "bxp_eval",
  "bxp_eval_batch",
  "bxp_eval_trace",
  "bxp_docs",
  "bxp_list_templates",
  "bxp_fetch_template",
  "bxp_simulate",
]);

/** What the agent is told at `initialize` (see {@link serverInstructions}). */
export const SERVER_INSTRUCTIONS: string = serverInstructions();

/**
 * `bxp-mcp --help`: usage, then every catalog tool with its title.
 *
 * @example
 * ```ts
 * import { helpText } from "./help.ts";
 * import assert from "node:assert/strict";
 * assert.equal(helpText().includes("bxp_simulate"), true);
 * ```
 */
export function helpText(tools: readonly BxpTool[] = BXP_TOOLS): string {
  const width = Math.max(...tools.map((t) => t.name.length));
  return [
    `${SERVER_NAME} ${VERSION}: MCP server for bxp (JSON-RPC 2.0 over stdio or Streamable HTTP)`,
    "",
    "Usage:",
    `  ${SERVER_NAME} [--root DIR] [--allow-write]`,
    "                      serve MCP on stdin/stdout (logs go to stderr)",
    `  ${SERVER_NAME} --http [HOST:]PORT --root DIR [--token-file FILE | --no-auth-on-loopback]`,
    "          [--cors-origin ORIGIN] [--max-sessions N] [--max-sessions-per-client N]",
    "          [--idle-timeout SECONDS] [--body-timeout SECONDS] [--max-connections N]",
    "          [--header-timeout SECONDS] [--allow-write]",
    "                      serve MCP Streamable HTTP at http://HOST:PORT/mcp (default host",
    "                      127.0.0.1; GET /healthz answers load balancers)",
    `  ${SERVER_NAME} --version    print the version`,
    `  ${SERVER_NAME} --help       print this help`,
    "",
    "Options:",
    "  --root DIR       project folder that 'path' and 'csv_path' arguments are relative to;",
    "                   fixed at startup (without it, on stdio: the client's single MCP root,",
    "                   if any; --http needs it: an HTTP client's roots are never used)",
    "  --allow-write    enable bxp_write_config: validated config writes inside the root",
    "  --http [HOST:]PORT  listen on HOST:PORT (0 picks a free port; the address is logged)",
    "  --token-file FILE   bearer token (16+ visible characters) every request must carry;",
    "                      required on any address but 127.0.0.1, ::1 and localhost; on those,",
    "                      without it a fresh token is written to a 0600 file named on stderr",
    "  --no-auth-on-loopback  serve loopback without a token (any local account may call)",
    "  --cors-origin ORIGIN  the one browser origin allowed to call (CORS); default none",
    "  --max-sessions N    sessions open at once (default 256; then 429, or the session",
    "                      unused longest, for a minute or more, makes room)",
    "  --max-sessions-per-client N  sessions one remote address may hold (default: all)",
    "  --body-timeout SECONDS  time a request body may take to arrive (default 30; then 408)",
    "  --idle-timeout SECONDS  end a session idle this long (default 600)",
    "  --max-connections N  TCP connections open at once (default 512; then the one idle",
    "                      longest makes room, or, when all are busy, 503 and closed)",
    "  --header-timeout SECONDS  time a request's head may take to arrive (default 10; then",
    "                      the connection closes)",
    "",
    "Tools:",
    ...tools.map((t) =>
      `  ${t.name.padEnd(width)}  ${t.title}${t.requiresWrite ? " (with --allow-write)" : ""}`
    ),
    "",
    "Register it with an MCP client by absolute path, e.g.",
    '  {"mcpServers": {"bxp": {"command": "/abs/path/to/bxp-mcp", "args": ["--root", "/abs/project"]}}}',
    "",
  ].join("\n");
}

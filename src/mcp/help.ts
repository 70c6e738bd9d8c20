/**
 * The texts bxp-mcp prints outside the protocol: `--version`, `--help` (with the tool list from the
 * catalog) and the `instructions` announced at `initialize`.
 *
 * @module
 */

import { VERSION } from "../version.ts";
import { BXP_TOOLS, type BxpTool } from "./tools/catalog.ts";

/** The machine name in serverInfo and in `--version`. */
export const SERVER_NAME = "bxp-mcp";

/** The human-facing name in serverInfo. */
export const SERVER_TITLE = "bxp: CSV conversion tools";

/** `bxp-mcp --version`. */
export function versionText(): string {
  return `${SERVER_NAME} ${VERSION}\n`;
}

/** What the agent is told at `initialize`. */
export const SERVER_INSTRUCTIONS = "bxp-mcp checks and runs bxp-cli conversion configs. Call bxp_docs " +
  "first to learn the expression and config language. Check a config with bxp_validate and one " +
  "expression with bxp_validate_expr; compute values with bxp_eval or bxp_eval_batch; use bxp_eval_trace " +
  "to debug an expression call by call; list or fetch templates with bxp_list_templates and " +
  "bxp_fetch_template; and use bxp_simulate to verify a finished config for real on sample CSV.";

/**
 * `bxp-mcp --help`: usage, then every catalog tool with its title.
 *
 * @example
 * ```ts
 * helpText().includes("bxp_simulate"); // true
 * ```
 */
export function helpText(tools: readonly BxpTool[] = BXP_TOOLS): string {
  const width = Math.max(...tools.map((t) => t.name.length));
  return [
    `${SERVER_NAME} ${VERSION}: MCP server for bxp (JSON-RPC 2.0 over stdio)`,
    "",
    "Usage:",
    `  ${SERVER_NAME} [--root DIR] [--allow-write]`,
    "                      serve MCP on stdin/stdout (logs go to stderr)",
    `  ${SERVER_NAME} --version    print the version`,
    `  ${SERVER_NAME} --help       print this help`,
    "",
    "Options:",
    "  --root DIR       project folder that 'path' and 'csv_path' arguments are relative to",
    "                   (default: the working directory); fixed at startup",
    "  --allow-write    enable bxp_write_config: validated config writes inside the root",
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

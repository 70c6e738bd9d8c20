/**
 * bxp-mcp's command line. Today: `--version`, `--help` / `-h`, or nothing (serve MCP on stdio). Kept in
 * its own module so later options (a fixed `--root DIR`, `--allow-write`) have one place to grow.
 *
 * @module
 */

/** What the command line asks for. */
export type McpCommand =
  | { kind: "serve" }
  | { kind: "version" }
  | { kind: "help" }
  | { kind: "usage_error"; message: string };

/**
 * Parse bxp-mcp's arguments (without the program name).
 *
 * @example
 * ```ts
 * parseMcpArgs([]); // { kind: "serve" }
 * parseMcpArgs(["--version"]); // { kind: "version" }
 * parseMcpArgs(["--bogus"]); // { kind: "usage_error", message: "unknown argument '--bogus'" }
 * ```
 */
export function parseMcpArgs(args: readonly string[]): McpCommand {
  if (args.length === 0) return { kind: "serve" };
  const [first, ...rest] = args;
  const single = (command: McpCommand): McpCommand =>
    rest.length === 0
      ? command
      : { kind: "usage_error", message: `unexpected argument '${rest[0]}' after ${first}` };
  if (first === "--version") return single({ kind: "version" });
  if (first === "--help" || first === "-h") return single({ kind: "help" });
  return { kind: "usage_error", message: `unknown argument '${first}'` };
}

/**
 * bxp-mcp's command line: `--version`, `--help` / `-h`, or serve MCP on stdio with an optional fixed
 * project root (`--root DIR`; without it the client's single MCP root is used, never the working
 * directory) and opt-in project writes (`--allow-write`, which needs `--root`). Both are fixed at
 * startup; nothing on the wire can change them.
 *
 * @module
 */

/** What the command line asks for. */
export type McpCommand =
  | { kind: "serve"; root: string | null; allowWrite: boolean }
  | { kind: "version" }
  | { kind: "help" }
  | { kind: "usage_error"; message: string };

/**
 * Parse bxp-mcp's arguments (without the program name). `root` is null when `--root` was not given (the
 * root then comes from the client's MCP roots, if it offers exactly one).
 *
 * @example
 * ```ts
 * parseMcpArgs([]); // { kind: "serve", root: null, allowWrite: false }
 * parseMcpArgs(["--root", "/srv/p", "--allow-write"]); // { kind: "serve", root: "/srv/p", allowWrite: true }
 * parseMcpArgs(["--version"]); // { kind: "version" }
 * parseMcpArgs(["--bogus"]); // { kind: "usage_error", message: "unknown argument '--bogus'" }
 * ```
 */
export function parseMcpArgs(args: readonly string[]): McpCommand {
  const [first, ...rest] = args;
  const single = (command: McpCommand): McpCommand =>
    rest.length === 0
      ? command
      : { kind: "usage_error", message: `unexpected argument '${rest[0]}' after ${first}` };
  if (first === "--version") return single({ kind: "version" });
  if (first === "--help" || first === "-h") return single({ kind: "help" });
  let root: string | null = null;
  let allowWrite = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--allow-write") {
      if (allowWrite) return { kind: "usage_error", message: "--allow-write given twice" };
      allowWrite = true;
    } else if (arg === "--root" || arg.startsWith("--root=")) {
      if (root !== null) return { kind: "usage_error", message: "--root given twice" };
      const value = arg === "--root" ? args[++i] : arg.slice("--root=".length);
      if (value === undefined || value === "") {
        return { kind: "usage_error", message: "--root needs a directory" };
      }
      root = value;
    } else {
      return { kind: "usage_error", message: `unknown argument '${arg}'` };
    }
  }
  return { kind: "serve", root, allowWrite };
}

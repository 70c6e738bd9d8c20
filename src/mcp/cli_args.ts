/**
 * bxp-mcp's command line: `--version`, `--help` / `-h`, or serve MCP (on stdio, or over Streamable HTTP
 * with `--http [HOST:]PORT` and its flags) with an optional fixed
 * project root (`--root DIR`; without it the client's single MCP root is used, never the working
 * directory) and opt-in project writes (`--allow-write`, which needs `--root`). Both are fixed at
 * startup; nothing on the wire can change them. `--http` needs `--root`: an HTTP client is anyone who
 * can reach the port, so its MCP roots must never name folders on this machine.
 *
 * @module
 */

/** `--http [HOST:]PORT` and the flags that only make sense with it. */
export interface HttpFlags {
  /** Address to bind (default `127.0.0.1`; an IPv6 address without brackets). */
  hostname: string;
  /** Port (0 picks a free one; the address is logged). */
  port: number;
  /** `--token-file FILE`: the bearer token's file (required on anything but loopback). */
  tokenFile: string | null;
  /** `--no-auth-on-loopback`: serve loopback without a token (off by default: a token is generated). */
  noAuthOnLoopback: boolean;
  /** `--cors-origin ORIGIN`: the one browser origin answered with CORS headers. */
  corsOrigin: string | null;
  /** `--max-sessions N` (default: the transport's). */
  maxSessions: number | null;
  /** `--idle-timeout SECONDS` (default: the transport's). */
  idleTimeoutSeconds: number | null;
  /** `--max-sessions-per-client N`: sessions one remote address may hold (default: `--max-sessions`). */
  maxSessionsPerClient: number | null;
  /** `--body-timeout SECONDS`: time a request body may take to arrive (default: the transport's). */
  bodyTimeoutSeconds: number | null;
  /** `--max-connections N`: TCP connections open at once (default: the listener's). */
  maxConnections: number | null;
  /** `--header-timeout SECONDS`: time a request's head may take to arrive (default: the listener's). */
  headerTimeoutSeconds: number | null;
}

/** What the command line asks for (`http` present only with `--http`: otherwise stdio). */
export type McpCommand =
  | { kind: "serve"; root: string | null; allowWrite: boolean; http?: HttpFlags }
  | { kind: "version" }
  | { kind: "help" }
  | { kind: "usage_error"; message: string };

/**
 * Parse bxp-mcp's arguments (without the program name). `root` is null when `--root` was not given (the
 * root then comes from the client's MCP roots, if it offers exactly one).
 *
 * @example
 * ```ts
 * import { parseMcpArgs } from "./cli_args.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(parseMcpArgs([]), { kind: "serve", root: null, allowWrite: false });
 * assert.deepEqual(
 *   parseMcpArgs(["--root", "/srv/p", "--allow-write"]),
 *   { kind: "serve", root: "/srv/p", allowWrite: true },
 * );
 * assert.deepEqual(parseMcpArgs(["--version"]), { kind: "version" });
 * assert.deepEqual(
 *   parseMcpArgs(["--bogus"]),
 *   { kind: "usage_error", message: "unknown argument '--bogus'" },
 * );
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
  let listen: { hostname: string; port: number } | null = null;
  let noAuthOnLoopback = false;
  const httpOnly = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const flag = arg.startsWith("--") && arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg;
    if (HTTP_VALUE_FLAGS.has(flag) || flag === "--http") {
      const value = arg === flag ? args[++i] : arg.slice(flag.length + 1);
      if (value === undefined || value === "") {
        return {
          kind: "usage_error",
          message: `${flag} needs ${HTTP_VALUE_FLAGS.get(flag) ?? "[HOST:]PORT"}`,
        };
      }
      if (flag === "--http") {
        if (listen !== null) return { kind: "usage_error", message: "--http given twice" };
        const parsed = parseListen(value);
        if (typeof parsed === "string") return { kind: "usage_error", message: parsed };
        listen = parsed;
      } else {
        if (httpOnly.has(flag)) return { kind: "usage_error", message: `${flag} given twice` };
        httpOnly.set(flag, value);
      }
    } else if (arg === "--no-auth-on-loopback") {
      if (noAuthOnLoopback) return { kind: "usage_error", message: `${arg} given twice` };
      noAuthOnLoopback = true;
    } else if (arg === "--allow-write") {
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
  if (listen === null) {
    const [stray] = noAuthOnLoopback ? ["--no-auth-on-loopback"] : httpOnly.keys();
    if (stray !== undefined) return { kind: "usage_error", message: `${stray} needs --http` };
    return { kind: "serve", root, allowWrite };
  }
  const count = (flag: string, min: number, max: number): number | null | string => {
    const text = httpOnly.get(flag);
    if (text === undefined) return null;
    const n = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
    return n >= min && n <= max ? n : `${flag} needs a whole number from ${min} to ${max}, not '${text}'`;
  };
  const maxSessions = count("--max-sessions", 1, 100_000);
  if (typeof maxSessions === "string") return { kind: "usage_error", message: maxSessions };
  const idle = count("--idle-timeout", 1, 7 * 24 * 3600);
  if (typeof idle === "string") return { kind: "usage_error", message: idle };
  const perClient = count("--max-sessions-per-client", 1, 100_000);
  if (typeof perClient === "string") return { kind: "usage_error", message: perClient };
  const bodyTimeout = count("--body-timeout", 1, 3600);
  if (typeof bodyTimeout === "string") return { kind: "usage_error", message: bodyTimeout };
  const maxConnections = count("--max-connections", 1, 100_000);
  if (typeof maxConnections === "string") return { kind: "usage_error", message: maxConnections };
  const headerTimeout = count("--header-timeout", 1, 3600);
  if (typeof headerTimeout === "string") return { kind: "usage_error", message: headerTimeout };
  if (noAuthOnLoopback && httpOnly.has("--token-file")) {
    return { kind: "usage_error", message: "--no-auth-on-loopback and --token-file contradict each other" };
  }
  const corsOrigin = httpOnly.get("--cors-origin") ?? null;
  if (corsOrigin !== null && !isOrigin(corsOrigin)) {
    return {
      kind: "usage_error",
      message: `--cors-origin needs an origin such as https://app.example.com, not '${corsOrigin}'`,
    };
  }
  if (root === null) {
    return {
      kind: "usage_error",
      message: "--http needs --root DIR: over HTTP the project root is fixed at startup (a client's MCP " +
        "roots are never used as folders on this machine)",
    };
  }
  return {
    kind: "serve",
    root,
    allowWrite,
    http: {
      ...listen,
      tokenFile: httpOnly.get("--token-file") ?? null,
      noAuthOnLoopback,
      corsOrigin,
      maxSessions,
      idleTimeoutSeconds: idle,
      maxSessionsPerClient: perClient,
      bodyTimeoutSeconds: bodyTimeout,
      maxConnections,
      headerTimeoutSeconds: headerTimeout,
    },
  };
}

/** Flags valid only with `--http`, and what their value is. */
const HTTP_VALUE_FLAGS = new Map([
  ["--token-file", "a file"],
  ["--cors-origin", "an origin"],
  ["--max-sessions", "a number"],
  ["--idle-timeout", "seconds"],
  ["--max-sessions-per-client", "a number"],
  ["--body-timeout", "seconds"],
  ["--max-connections", "a number"],
  ["--header-timeout", "seconds"],
]);

/**
 * `[HOST:]PORT` as `--http` takes it: `8080`, `127.0.0.1:8080`, `0.0.0.0:8080`, `[::1]:8080`; the host
 * defaults to `127.0.0.1`. Returns the message of a usage error instead when malformed.
 *
 * @example
 * ```ts
 * import { parseListen } from "./cli_args.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(parseListen("8080"), { hostname: "127.0.0.1", port: 8080 });
 * assert.deepEqual(parseListen("[::1]:9000"), { hostname: "::1", port: 9000 });
 * ```
 */
export function parseListen(value: string): { hostname: string; port: number } | string {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(value);
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || port > 65535) {
    return `--http needs [HOST:]PORT (e.g. 8080 or 127.0.0.1:8080), not '${value}'`;
  }
  const host = match[1] ?? "127.0.0.1";
  return { hostname: host.startsWith("[") ? host.slice(1, -1) : host, port };
}

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value;
  } catch {
    return false;
  }
}

/**
 * bxp-mcp's program logic behind `main.ts`: read the command line, then print the version or the help,
 * or serve MCP on stdio. stdout carries protocol messages only; every log line goes to stderr.
 *
 * @module
 */

import { serveStdio } from "./protocol/mod.ts";
import { createBxpServer } from "./bxp_server.ts";
import { parseMcpArgs } from "./cli_args.ts";
import { helpText, SERVER_NAME, versionText } from "./help.ts";
import { denoSimulateHost } from "./simulate/mod.ts";

/**
 * How long calls still running when stdin closes may take to answer. A client may write all its
 * requests and close stdin at once (bxp's smoke script does), and a simulation must still be answered.
 */
export const EOF_GRACE_MS = 10_000;

const encoder = new TextEncoder();

/** One log line on stderr; a failing stderr must not end the session. */
function logToStderr(message: string): void {
  try {
    Deno.stderr.writeSync(encoder.encode(`${SERVER_NAME}: ${message}\n`));
  } catch {
    // nowhere left to report it
  }
}

async function writeStdout(text: string): Promise<void> {
  const bytes = encoder.encode(text);
  for (let at = 0; at < bytes.length;) at += await Deno.stdout.write(bytes.subarray(at));
}

/**
 * Run bxp-mcp with `args`; resolves with the exit code (0, or 2 for a usage error). Serving returns
 * once stdin has ended and every answer is flushed.
 */
export async function runBxpMcp(args: readonly string[]): Promise<number> {
  const command = parseMcpArgs(args);
  switch (command.kind) {
    case "version":
      await writeStdout(versionText());
      return 0;
    case "help":
      await writeStdout(helpText());
      return 0;
    case "usage_error":
      logToStderr(`${command.message} (see ${SERVER_NAME} --help)`);
      return 2;
    case "serve": {
      const server = createBxpServer({ log: logToStderr, simulateHost: denoSimulateHost(logToStderr) });
      await serveStdio({
        server,
        stdin: Deno.stdin.readable,
        stdout: Deno.stdout.writable,
        log: logToStderr,
        eofGraceMs: EOF_GRACE_MS,
      });
      return 0;
    }
  }
}

/**
 * bxp-mcp's log line: stderr only (stdout carries protocol messages alone), prefixed with the server's
 * name.
 *
 * @module
 */

import { SERVER_NAME } from "./identity.ts";

const encoder = new TextEncoder();

/** One log line on stderr; a failing stderr must not end the session. */
export function logToStderr(message: string): void {
  try {
    Deno.stderr.writeSync(encoder.encode(`${SERVER_NAME}: ${message}\n`));
  } catch {
    // nowhere left to report it
  }
}

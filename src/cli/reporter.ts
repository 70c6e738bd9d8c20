/**
 * bxp-cli's message routing: informational lines to stdout, warnings and fatals to stderr, all silenced by
 * `--quiet`, info silenced by `--trace`, and everything captured for the single `--debug=json` document.
 *
 * The example uses the `--debug=json` mode, which captures messages instead of writing them (the other modes
 * write to the real stdout and stderr).
 *
 * @example
 * ```ts
 * import { CliReporter } from "./reporter.ts";
 * import assert from "node:assert/strict";
 * const out = new CliReporter({ quiet: false, trace: false, debugJson: true, debug: false });
 * out.info("processing 'a.csv'\n"); // silenced: stdout gets the --debug=json document alone
 * out.warning("warning: 'a.csv' has a duplicate column header 'x'\n");
 * assert.deepEqual(out.messages, ["warning: 'a.csv' has a duplicate column header 'x'"]);
 * ```
 * @module
 */

import type { Reporter } from "../engine/mod.ts";

const encoder = new TextEncoder();

function writeSync(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  let at = 0;
  while (at < bytes.length) at += stream.writeSync(bytes.subarray(at));
}

/** Output modes from the command line. */
export interface ReportModes {
  quiet: boolean;
  trace: boolean;
  debug: boolean;
  debugJson: boolean;
}

/** A {@link Reporter} writing to the process's stdout and stderr. */
export class CliReporter implements Reporter {
  /** Warning and fatal lines captured in `--debug=json` mode (without trailing newlines). */
  readonly messages: string[] = [];
  /** Runs before any stderr text (the live progress line clears itself so messages start on a clean line). */
  beforeStderr: (() => void) | null = null;
  readonly #modes: ReportModes;
  #debugBuffer = "";

  constructor(modes: ReportModes) {
    this.#modes = modes;
  }

  info(text: string): void {
    const m = this.#modes;
    if (m.quiet || m.trace || m.debugJson) return;
    this.flushDebug();
    writeSync(Deno.stdout, text);
  }

  warning(text: string): void {
    this.#problem(text);
  }

  fatal(text: string): void {
    this.#problem(text);
  }

  debug(text: string): void {
    // Unmatched-row dumps can be one per row: batch them.
    this.#debugBuffer += text;
    if (this.#debugBuffer.length > 64 * 1024) this.flushDebug();
  }

  /** Writes buffered debug text. */
  flushDebug(): void {
    if (this.#debugBuffer === "") return;
    const text = this.#debugBuffer;
    this.#debugBuffer = "";
    writeSync(Deno.stdout, text);
  }

  /** Writes `text` to stdout regardless of modes (the --debug=json document, help, version). */
  stdout(text: string): void {
    this.flushDebug();
    writeSync(Deno.stdout, text);
  }

  #problem(text: string): void {
    if (this.#modes.quiet) return;
    if (this.#modes.debugJson) {
      this.messages.push(text.replace(/\n+$/, ""));
      return;
    }
    this.flushDebug();
    this.beforeStderr?.();
    writeSync(Deno.stderr, text);
  }
}

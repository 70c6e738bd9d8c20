/**
 * bxp-mcp's program logic behind `main.ts`: read the command line, then print the version or the help,
 * or serve MCP on stdio. Serving opens the fixed project root, then runs the whole session in a
 * permission-narrowed Worker (see `security/sandbox.ts`); this thread drops its own write and run access
 * and only waits. stdout carries protocol messages only; every log line goes to stderr.
 *
 * @module
 */

import { join } from "node:path";
import { serveStdio } from "./protocol/mod.ts";
import { createBxpServer } from "./bxp_server.ts";
import { parseMcpArgs } from "./cli_args.ts";
import { helpText, SERVER_NAME, versionText } from "./help.ts";
import { PathGuardError, ProjectRoot } from "./security/paths.ts";
import { cliProgramFor, type SandboxPlan, startSandboxedWorker } from "./security/sandbox.ts";
import { denoSimulateHost, SIM_ROOT_NAME, type SimulateHost } from "./simulate/mod.ts";
import { readEnvQuietly } from "./simulate/bxp_cli.ts";
import { tempBase } from "./simulate/workspace.ts";

/**
 * How long calls still running when stdin closes may take to answer. A client may write all its
 * requests and close stdin at once (bxp's smoke script does), and a simulation must still be answered.
 */
export const EOF_GRACE_MS = 10_000;

const encoder = new TextEncoder();

/** One log line on stderr; a failing stderr must not end the session. */
export function logToStderr(message: string): void {
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

/** What one MCP session serves with. */
export interface SessionOptions {
  root: ProjectRoot;
  allowWrite: boolean;
  stdin: ReadableStream<Uint8Array>;
  stdout: WritableStream<Uint8Array>;
  log: (message: string) => void;
  simulateHost: SimulateHost;
}

/** Serve one MCP session until stdin ends (what the sandbox worker runs; tests call it in-process). */
export async function serveSession(options: SessionOptions): Promise<void> {
  const server = createBxpServer({
    log: options.log,
    simulateHost: options.simulateHost,
    root: options.root,
    allowWrite: options.allowWrite,
  });
  await serveStdio({
    server,
    stdin: options.stdin,
    stdout: options.stdout,
    log: options.log,
    eofGraceMs: EOF_GRACE_MS,
  });
}

/** The message the main thread sends the session worker. */
export interface SessionStart {
  root: string;
  allowWrite: boolean;
}

/**
 * Run bxp-mcp with `args`; resolves with the exit code (0; 2 for a usage error or an unusable root; 1
 * when the session could not run). Serving returns once stdin has ended and every answer is flushed.
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
      let root: ProjectRoot;
      try {
        root = await ProjectRoot.open(command.root ?? Deno.cwd());
      } catch (error) {
        if (!(error instanceof PathGuardError)) throw error;
        logToStderr(error.message);
        return 2;
      }
      const plan: SandboxPlan = {
        scratchRoot: join(tempBase(readEnvQuietly), SIM_ROOT_NAME),
        root: root.path,
        allowWrite: command.allowWrite,
        cliProgram: cliProgramFor(Deno.execPath(), Deno.build.os),
      };
      logToStderr(
        `serving MCP on stdio (root: ${root.path}, writes: ${command.allowWrite ? "enabled" : "disabled"})`,
      );
      return await runSessionWorker(plan);
    }
  }
}

/** Start the session worker with `plan` and wait for its exit code. */
function runSessionWorker(plan: SandboxPlan): Promise<number> {
  let worker: Worker;
  try {
    worker = startSandboxedWorker(new URL("./server_worker.ts", import.meta.url), plan);
  } catch (error) {
    logToStderr(error instanceof Error ? error.message : String(error));
    return Promise.resolve(1);
  }
  return new Promise((resolve) => {
    worker.onmessage = (event: MessageEvent<{ kind: string; code: number }>) => {
      if (event.data?.kind === "done") resolve(event.data.code);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      logToStderr(`the session failed: ${event.message}`);
      resolve(1);
    };
    const start: SessionStart = { root: plan.root, allowWrite: plan.allowWrite };
    worker.postMessage(start);
  });
}

/** The worker side: serve the session it is told about, then report its exit code. */
export function workerMain(scope: {
  onmessage: ((event: MessageEvent<SessionStart>) => void) | null;
  postMessage(message: unknown): void;
}): void {
  scope.onmessage = async (event) => {
    scope.onmessage = null;
    const root = await ProjectRoot.open(event.data.root);
    await serveSession({
      root,
      allowWrite: event.data.allowWrite,
      stdin: Deno.stdin.readable,
      stdout: Deno.stdout.writable,
      log: logToStderr,
      simulateHost: denoSimulateHost(logToStderr),
    });
    scope.postMessage({ kind: "done", code: 0 });
  };
}

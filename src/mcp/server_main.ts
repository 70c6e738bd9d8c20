/**
 * bxp-mcp's main thread behind `main.ts`: read the command line, then print the version or the help, or
 * serve MCP on stdio (or, with `--http`, over Streamable HTTP, the worker allowed to listen on that one
 * address). Serving opens the fixed project root (`--root`; without it the root comes from the client's
 * MCP roots, never from the working directory), then runs the whole session in a permission-narrowed
 * Worker (see `security/sandbox.ts` and `session.ts`); this thread drops its own write and run access,
 * waits, and turns SIGTERM / SIGINT / SIGHUP into an orderly end of the session (running calls cancelled,
 * bxp-cli children killed) before the process exits. stdout carries protocol messages only; every log
 * line goes to stderr.
 *
 * This module loads only what the main thread runs: the session's server, tools and core load in the
 * worker alone (loading them here too cost about 90 ms of every cold start), and `--help` loads the tool
 * catalog on demand.
 *
 * @module
 */

import { join } from "../util/host_path.ts";
import { type HttpFlags, parseMcpArgs } from "./cli_args.ts";
import { SERVER_NAME, versionText } from "./identity.ts";
import { logToStderr } from "./stderr_log.ts";
import { PathGuardError, ProjectRoot } from "./security/paths.ts";
import { cliProgramFor, netAddress, type SandboxPlan, startSandboxedWorker } from "./security/sandbox.ts";
import { readEnvQuietly } from "./read_env.ts";
import { SIM_ROOT_NAME, tempBase } from "./temp_folders.ts";
import {
  removeTokenFolder,
  sweepStaleTokenFolders,
  TOKEN_FILE_NAME,
  TOKEN_FOLDER_PREFIX,
  TOKEN_PID_FILE_NAME,
} from "./token_folder.ts";

const encoder = new TextEncoder();

async function writeStdout(text: string): Promise<void> {
  const bytes = encoder.encode(text);
  for (let at = 0; at < bytes.length;) at += await Deno.stdout.write(bytes.subarray(at));
}

/**
 * How long the main thread waits for the session to confirm its end after a signal, before it stops the
 * worker and exits anyway (a handler that never yields cannot hold the process).
 */
export const SIGNAL_SHUTDOWN_WAIT_MS = 8_000;

/** The signals that end a session in order; Windows delivers only these two. */
export const SHUTDOWN_SIGNALS: readonly Deno.Signal[] = Deno.build.os === "windows"
  ? ["SIGINT", "SIGBREAK"]
  : ["SIGTERM", "SIGINT", "SIGHUP"];

/** The first message the main thread sends the session worker. */
export interface SessionStart {
  kind: "start";
  /** The fixed root's real path, or null when the root comes from the client. */
  root: string | null;
  allowWrite: boolean;
  /** Serve Streamable HTTP instead of stdio. */
  http?: HttpStart;
}

/** What the worker needs to serve `--http`. */
export interface HttpStart {
  hostname: string;
  port: number;
  /** Whether the address is loopback (127.0.0.1, ::1, localhost): Host headers are then checked. */
  loopback: boolean;
  token: string | null;
  corsOrigin: string | null;
  maxSessions: number | null;
  idleTimeoutMs: number | null;
  maxSessionsPerClient: number | null;
  bodyTimeoutMs: number | null;
  maxConnections: number | null;
  headerTimeoutMs: number | null;
}

/** The addresses served without a token: only these count as local (127.0.0.2 and others do not). */
const LOOPBACK_NAMES = new Set(["127.0.0.1", "::1", "localhost"]);

/** Shortest bearer token accepted from `--token-file`. */
export const MIN_TOKEN_CHARS = 16;

/** Read and check the bearer token of `--token-file`; a message on failure. */
async function readToken(file: string): Promise<string | { error: string }> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    return { error: `cannot read --token-file ${file}: ${error instanceof Error ? error.message : error}` };
  }
  try {
    const mode = (await Deno.stat(file)).mode;
    if (mode !== null && (mode & 0o077) !== 0) {
      logToStderr(
        `warning: --token-file ${file} is readable by other users (mode ${(mode & 0o777).toString(8)})`,
      );
    }
  } catch {
    // read just now; a stat failure changes nothing
  }
  const token = text.trim();
  if (!/^[\x21-\x7e]+$/.test(token)) {
    return { error: `--token-file ${file} must hold one token of visible ASCII characters (no spaces)` };
  }
  if (token.length < MIN_TOKEN_CHARS) {
    return { error: `--token-file ${file}: the token is shorter than ${MIN_TOKEN_CHARS} characters` };
  }
  return token;
}

/** The name of the generated token's file, in its own private folder under the temp folder. */
export const GENERATED_TOKEN_FILE = TOKEN_FILE_NAME;

/**
 * The generated token's folder, owned by this process: made at start, removed when bxp-mcp ends (see
 * {@link TokenFolder.remove}).
 */
class TokenFolder {
  readonly dir: string;
  /** The pid file, open and locked while this process runs (a sweep by another bxp-mcp sees it live). */
  #pidFile: Deno.FsFile | null;
  /** The worker that keeps write access to {@link dir} after this thread dropped its own. */
  #remover: Worker | null = null;
  #removed: Promise<boolean> | null = null;

  constructor(dir: string, pidFile: Deno.FsFile | null) {
    this.dir = dir;
    this.#pidFile = pidFile;
  }

  /**
   * Start the worker that will remove the folder at exit, allowed to write this folder only: this thread
   * drops its write access once the session worker starts. Call before that.
   */
  keepRemover(): void {
    if (this.#remover !== null) return;
    const none = { env: false, net: false, run: false, ffi: false, sys: false, import: false } as const;
    try {
      const url = URL.createObjectURL(new Blob([TOKEN_REMOVER_SOURCE], { type: "text/javascript" }));
      try {
        this.#remover = new Worker(url, {
          type: "module",
          name: "bxp-mcp-token-remover",
          deno: { permissions: { ...none, read: [this.dir], write: [this.dir] } },
        });
      } finally {
        URL.revokeObjectURL(url);
      }
      this.#remover.onerror = (event) => event.preventDefault();
    } catch {
      // without narrowed workers the session cannot start either: this thread keeps its write access
      this.#remover = null;
    }
  }

  /**
   * Remove the folder: exactly its `token` and `pid` files, then the folder (never recursively). Through
   * the remover worker when there is one, else directly. Resolves with whether the folder is gone; logs
   * (never throws) when it is not.
   */
  remove(): Promise<boolean> {
    this.#removed ??= this.#remove();
    return this.#removed;
  }

  async #remove(): Promise<boolean> {
    try {
      this.#pidFile?.close();
    } catch {
      // closed already
    }
    this.#pidFile = null;
    const remover = this.#remover;
    this.#remover = null;
    let gone: boolean;
    if (remover === null) {
      gone = await removeTokenFolder(this.dir);
    } else {
      gone = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), TOKEN_REMOVE_WAIT_MS);
        remover.onmessage = (event: MessageEvent<unknown>) => {
          clearTimeout(timer);
          resolve(event.data === true);
        };
        remover.onerror = (event) => {
          event.preventDefault();
          clearTimeout(timer);
          resolve(false);
        };
        remover.postMessage({ dir: this.dir, files: [TOKEN_FILE_NAME, TOKEN_PID_FILE_NAME] });
      });
      remover.terminate();
    }
    if (!gone) logToStderr(`cannot remove the generated bearer token's folder ${this.dir}`);
    return gone;
  }
}

/** How long the exit waits for the token folder's removal. */
const TOKEN_REMOVE_WAIT_MS = 5_000;

/**
 * The remover worker (see {@link TokenFolder.keepRemover}): on `{dir, files}`, removes each named file of
 * `dir`, then `dir` itself (never recursively), and answers whether `dir` is gone. Mirrors
 * `removeTokenFolder` of `token_folder.ts` (a worker from a blob imports nothing).
 */
const TOKEN_REMOVER_SOURCE = `
self.onmessage = async (event) => {
  const { dir, files } = event.data;
  for (const name of files) {
    try {
      await Deno.remove(dir + "/" + name);
    } catch {
      // missing already
    }
  }
  let gone = false;
  try {
    await Deno.remove(dir);
    gone = true;
  } catch (error) {
    gone = error instanceof Deno.errors.NotFound;
  }
  self.postMessage(gone);
};
`;

/**
 * A fresh bearer token (32 random bytes, hex) written to a new file only this user can read, in a new
 * 0700 folder `bxp-mcp-token-<pid>-<random>` under the temp folder, beside the file `pid` (this process's
 * pid, 0600, locked while it runs); returns the token and the folder. Then sweeps the token folders a
 * killed bxp-mcp left behind ({@link sweepStaleTokenFolders}). The token itself is never logged: a client
 * reads it from the file.
 */
async function generateToken(): Promise<
  { token: string; file: string; folder: TokenFolder } | { error: string }
> {
  const token = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const base = tempBase(readEnvQuietly);
  let folder: TokenFolder | null = null;
  try {
    const dir = await Deno.makeTempDir({ dir: base, prefix: `${TOKEN_FOLDER_PREFIX}${Deno.pid}-` });
    folder = new TokenFolder(dir, null);
    if (Deno.build.os !== "windows") await Deno.chmod(dir, 0o700);
    const pidFile = await Deno.open(join(dir, TOKEN_PID_FILE_NAME), {
      write: true,
      read: true,
      createNew: true,
      mode: 0o600,
    });
    folder = new TokenFolder(dir, pidFile);
    if (Deno.build.os !== "windows") await Deno.chmod(join(dir, TOKEN_PID_FILE_NAME), 0o600);
    const pidBytes = encoder.encode(`${Deno.pid}\n`);
    for (let at = 0; at < pidBytes.length;) at += await pidFile.write(pidBytes.subarray(at));
    try {
      await pidFile.lock(true);
    } catch {
      // a file system without locks: the pid alone then tells a sweep this folder is live
    }
    const file = join(dir, GENERATED_TOKEN_FILE);
    await Deno.writeTextFile(file, `${token}\n`, { createNew: true, mode: 0o600 });
    if (Deno.build.os !== "windows") await Deno.chmod(file, 0o600);
    const uid = (await Deno.lstat(dir)).uid;
    for (const name of await sweepStaleTokenFolders(base, uid, dir)) {
      logToStderr(`removed $TMPDIR/${name}, a bearer token folder left by a bxp-mcp that was killed`);
    }
    return { token, file, folder };
  } catch (error) {
    await folder?.remove();
    return {
      error: `cannot write the generated bearer token: ${error instanceof Error ? error.message : error} ` +
        "(give one with --token-file FILE)",
    };
  }
}

/** The worker's HTTP settings from the flags, or a usage message (exit 2). */
async function httpStart(
  flags: HttpFlags,
): Promise<{ start: HttpStart; folder: TokenFolder | null } | { error: string }> {
  const loopback = LOOPBACK_NAMES.has(flags.hostname.toLowerCase());
  let token: string | null = null;
  let folder: TokenFolder | null = null;
  if (flags.tokenFile !== null) {
    const read = await readToken(flags.tokenFile);
    if (typeof read !== "string") return read;
    token = read;
  } else if (!loopback) {
    return {
      error: `refusing to listen on ${flags.hostname} without a token: anything but 127.0.0.1, ::1 and ` +
        "localhost needs --token-file FILE (a bearer token every request must carry)",
    };
  } else if (flags.noAuthOnLoopback) {
    logToStderr(
      "warning: --no-auth-on-loopback: every local account (and every process of this machine) can call " +
        "this server without a token",
    );
  } else {
    // Loopback is not private: every local account can connect. A token only this user can read keeps
    // them out.
    const made = await generateToken();
    if ("error" in made) return made;
    token = made.token;
    folder = made.folder;
    logToStderr(
      `bearer token written to ${made.file} (mode 0600): clients send it as "Authorization: Bearer <token>"`,
    );
  }
  const start: HttpStart = {
    hostname: flags.hostname,
    port: flags.port,
    loopback,
    token,
    corsOrigin: flags.corsOrigin,
    maxSessions: flags.maxSessions,
    idleTimeoutMs: flags.idleTimeoutSeconds === null ? null : flags.idleTimeoutSeconds * 1000,
    maxSessionsPerClient: flags.maxSessionsPerClient,
    bodyTimeoutMs: flags.bodyTimeoutSeconds === null ? null : flags.bodyTimeoutSeconds * 1000,
    maxConnections: flags.maxConnections,
    headerTimeoutMs: flags.headerTimeoutSeconds === null ? null : flags.headerTimeoutSeconds * 1000,
  };
  return { start, folder };
}

/** Sent to the session worker when the process got a shutdown signal. */
export interface SessionStop {
  kind: "stop";
  signal: string;
}

/** What the session worker reports: it has ended (stdin closed, or stopped) with this exit code. */
export interface SessionDone {
  kind: "done";
  code: number;
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
      await writeStdout((await import("./help.ts")).helpText());
      return 0;
    case "usage_error":
      logToStderr(`${command.message} (see ${SERVER_NAME} --help)`);
      return 2;
    case "serve": {
      // The working directory is never an implicit root: a client may start bxp-mcp in `/`.
      let root: ProjectRoot | null = null;
      if (command.root !== null) {
        try {
          root = await ProjectRoot.open(command.root);
        } catch (error) {
          if (!(error instanceof PathGuardError)) throw error;
          logToStderr(error.message);
          return 2;
        }
      }
      const scratchRoot = join(tempBase(readEnvQuietly), SIM_ROOT_NAME);
      // Worker permissions are fixed at start: a root learnt later from the client can never be
      // granted write access, so without --root the plan grants none (the scratch folder stands in for
      // the unused root path).
      const writable = command.allowWrite && root !== null;
      const plan: SandboxPlan = {
        scratchRoot,
        root: root?.path ?? scratchRoot,
        allowWrite: writable,
        cliProgram: cliProgramFor(Deno.execPath(), Deno.build.os),
      };
      if (command.allowWrite && root === null) {
        logToStderr("--allow-write needs --root DIR: writes stay disabled for a root learnt from the client");
      }
      let http: HttpStart | undefined;
      let tokenFolder: TokenFolder | null = null;
      if (command.http !== undefined) {
        const started = await httpStart(command.http);
        if ("error" in started) {
          logToStderr(started.error);
          return 2;
        }
        http = started.start;
        tokenFolder = started.folder;
        plan.listen = netAddress(http.hostname, http.port);
      }
      try {
        const shownRoot = root?.path ?? "the client's MCP roots (exactly one file:// root), none fixed";
        const transport = http === undefined ? "on stdio" : "over HTTP";
        logToStderr(
          `serving MCP ${transport} (root: ${shownRoot}, writes: ${writable ? "enabled" : "disabled"})`,
        );
        // Before the session worker starts: this thread then drops its write access.
        tokenFolder?.keepRemover();
        return await runSessionWorker(plan, {
          kind: "start",
          root: root?.path ?? null,
          allowWrite: command.allowWrite,
          http,
        });
      } finally {
        // Every end once the token is written (signals, stdin closed, cannot listen, a failed session).
        await tokenFolder?.remove();
      }
    }
  }
}

/**
 * Start the session worker (`module`, default `server_worker.ts`) with `plan`, wait for its exit code,
 * and forward shutdown signals to it: the first signal asks the session to end (it cancels running calls
 * and kills their bxp-cli children, then reports done; exit code 0), a second one or no confirmation
 * within {@link SIGNAL_SHUTDOWN_WAIT_MS} stops the worker outright (exit code 1).
 */
export function runSessionWorker(
  plan: SandboxPlan,
  start: SessionStart,
  module: URL = new URL("./server_worker.ts", import.meta.url),
): Promise<number> {
  let worker: Worker;
  try {
    worker = startSandboxedWorker(module, plan);
  } catch (error) {
    logToStderr(error instanceof Error ? error.message : String(error));
    return Promise.resolve(1);
  }
  return new Promise((resolve) => {
    let stopping: string | null = null;
    let forceTimer: ReturnType<typeof setTimeout> | undefined;
    const listeners: [Deno.Signal, () => void][] = [];
    const finish = (code: number) => {
      clearTimeout(forceTimer);
      for (const [name, listener] of listeners) {
        try {
          Deno.removeSignalListener(name, listener);
        } catch {
          // already gone
        }
      }
      resolve(code);
    };
    const force = (why: string) => {
      logToStderr(`${why}; stopping the session worker`);
      worker.terminate();
      finish(1);
    };
    for (const name of SHUTDOWN_SIGNALS) {
      const listener = () => {
        if (stopping !== null) return force(`${name} while ending the session after ${stopping}`);
        stopping = name;
        logToStderr(`${name}: ending the session (cancelling running calls)`);
        const stop: SessionStop = { kind: "stop", signal: name };
        worker.postMessage(stop);
        forceTimer = setTimeout(
          () => force(`the session did not end within ${SIGNAL_SHUTDOWN_WAIT_MS} ms of ${name}`),
          SIGNAL_SHUTDOWN_WAIT_MS,
        );
      };
      try {
        Deno.addSignalListener(name, listener);
        listeners.push([name, listener]);
      } catch (error) {
        logToStderr(`cannot listen for ${name}: ${error instanceof Error ? error.message : error}`);
      }
    }
    worker.onmessage = (event: MessageEvent<SessionDone>) => {
      if (event.data?.kind === "done") finish(event.data.code);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      logToStderr(`the session failed: ${event.message}`);
      finish(1);
    };
    worker.postMessage(start);
  });
}

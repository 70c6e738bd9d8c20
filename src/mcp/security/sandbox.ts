/**
 * The Deno-enforced half of bxp-mcp's boundary. The server's whole MCP session (protocol, tools,
 * simulate staging) runs in a Worker whose permissions allow writes only under the simulation scratch
 * folder (plus the project root with `--allow-write`) and spawning only bxp-cli; the main thread keeps no
 * write or run access once the worker is started. A compiled binary cannot bake "the runtime --root" or
 * "$TMPDIR/bxp-mcp-sim" into its flags, and `Deno.permissions.revoke` cannot narrow a path grant, so a
 * Worker with `deno.permissions` (needs `--unstable-worker-options`) is the one mechanism that narrows
 * to paths known only at startup.
 *
 * Deno's path checks are lexical and follow existing symlinks, so this backs up (never replaces) the
 * application checks (whose fd-relative opens need FFI for the C library, and only for it) in `paths.ts`, `safe_write.ts` and the scratch-workspace staging. bxp-cli itself runs
 * as a separate process outside Deno's sandbox of this one; it is confined by its argument vector and by
 * the simulate checks on the staged config.
 *
 * @module
 */

import { basename, dirname, join } from "../../util/host_path.ts";
import { libcPath } from "./beneath.ts";

/** What the worker is allowed, computed at startup. */
export interface SandboxPlan {
  /** `<temp>/bxp-mcp-sim`: the only folder written without `--allow-write`. */
  scratchRoot: string;
  /** The project root's real path. */
  root: string;
  /** Whether project writes were enabled with `--allow-write`. */
  allowWrite: boolean;
  /** The one program the worker may spawn (bxp-cli, or `deno` running bxp-cli's entry). */
  cliProgram: string;
  /**
   * `--http`: the one address the worker may listen on, as Deno names it (`127.0.0.1:8080`,
   * `[::1]:8080`); absent for stdio, which gets no network at all.
   */
  listen?: string;
}

/**
 * The worker's permissions for `plan`: read and env as the process has them, write only to the scratch
 * folder (and the root with `--allow-write`), run only bxp-cli, network only to listen on the `--http`
 * address (none on stdio), FFI only for the one C library file `libc` (the path guard's fd-relative
 * opens, `beneath.ts`; none where it is null), and no system info or imports from elsewhere.
 *
 * @example
 * ```ts
 * import { workerPermissions } from "./sandbox.ts";
 * import assert from "node:assert/strict";
 * const permissions = workerPermissions(
 *   { scratchRoot: "/tmp/bxp-mcp-sim", root: "/p", allowWrite: false, cliProgram: "/opt/bxp-cli" },
 *   "/lib/x86_64-linux-gnu/libc.so.6",
 * );
 * assert.equal(permissions.read, "inherit");
 * assert.equal(permissions.env, "inherit");
 * assert.deepEqual(permissions.write, ["/tmp/bxp-mcp-sim"]);
 * assert.deepEqual(permissions.run, ["/opt/bxp-cli"]);
 * assert.equal(permissions.net, false);
 * assert.deepEqual(permissions.ffi, ["/lib/x86_64-linux-gnu/libc.so.6"]);
 * ```
 */
export function workerPermissions(
  plan: SandboxPlan,
  libc: string | null = null,
): Deno.PermissionOptionsObject {
  return {
    read: "inherit",
    env: "inherit",
    write: plan.allowWrite ? [plan.scratchRoot, plan.root] : [plan.scratchRoot],
    run: [plan.cliProgram],
    net: plan.listen === undefined ? false : [plan.listen],
    ffi: libc === null ? false : [libc],
    sys: false,
    import: false,
  };
}

/**
 * The program bxp-mcp will spawn for bxp-cli, known before it exists: `deno` itself under `deno run`,
 * else the `bxp-cli` (`bxp-cli.exe`) beside the running executable.
 *
 * @example
 * ```ts
 * import { cliProgramFor } from "./sandbox.ts";
 * import assert from "node:assert/strict";
 * assert.equal(cliProgramFor("/opt/bxp/bxp-mcp", "linux"), "/opt/bxp/bxp-cli");
 * assert.equal(cliProgramFor("/usr/bin/deno", "linux"), "/usr/bin/deno");
 * ```
 */
export function cliProgramFor(execPath: string, os: string): string {
  const exe = basename(execPath).toLowerCase();
  if (exe === "deno" || exe === "deno.exe") return execPath;
  return join(dirname(execPath), os === "windows" ? "bxp-cli.exe" : "bxp-cli");
}

/** Start the sandbox worker was refused: the message says why (e.g. the missing unstable flag). */
export class SandboxError extends Error {
  /** Create the error. */
  constructor(message: string) {
    super(message);
    this.name = "SandboxError";
  }
}

/**
 * Start `module` as a Worker with {@link workerPermissions} (FFI for the C library the process may open,
 * {@link libcPath}), then drop this thread's own write, run, net and FFI access (it only waits for the
 * worker). Fails closed: when the runtime refuses narrowed worker
 * permissions (no `--unstable-worker-options`), throws {@link SandboxError} instead of running unconfined.
 */
export function startSandboxedWorker(module: URL, plan: SandboxPlan): Worker {
  let worker: Worker;
  try {
    worker = new Worker(module, {
      type: "module",
      name: "bxp-mcp-session",
      deno: { permissions: workerPermissions(plan, libcPath()) },
    });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new SandboxError(`cannot start the permission-narrowed session worker: ${why}`);
  }
  for (const name of ["write", "run", "net", "ffi"] as const) {
    try {
      Deno.permissions.revokeSync({ name });
    } catch {
      // nothing granted to drop
    }
  }
  return worker;
}

/**
 * `hostname:port` as Deno's net permission names it (IPv6 in brackets).
 *
 * @example
 * ```ts
 * import { netAddress } from "./sandbox.ts";
 * import assert from "node:assert/strict";
 * assert.equal(netAddress("::1", 8080), "[::1]:8080");
 * ```
 */
export function netAddress(hostname: string, port: number): string {
  return hostname.includes(":") ? `[${hostname}]:${port}` : `${hostname}:${port}`;
}

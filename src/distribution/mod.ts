/**
 * The two shipped programs and the permission flags each runs with. The flags live in ONE place, the
 * `bxp-cli` / `bxp-mcp` tasks of `deno.json`; this module reads them from there so that `deno task compile`,
 * the tests and bxp-mcp's own spawning of bxp-cli use exactly the list the tasks use.
 *
 * @example
 * ```ts
 * import { entryPointFlags } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const denoJson = '{"tasks":{"bxp-cli":"deno run --no-prompt --allow-read src/cli/main.ts"}}';
 * assert.deepEqual(entryPointFlags(denoJson, "bxp-cli"), ["--no-prompt", "--allow-read"]);
 * ```
 * @module
 */

/** The shipped programs. */
export type EntryPoint = "bxp-cli" | "bxp-mcp";

/** Each program's module, relative to the repository root. */
export const ENTRY_MODULES: Readonly<Record<EntryPoint, string>> = {
  "bxp-cli": "src/cli/main.ts",
  "bxp-mcp": "main.ts",
};

/**
 * Modules an entry point loads at run time that `deno compile` cannot see statically (worker scripts), to be
 * embedded with `--include`.
 */
export const ENTRY_INCLUDES: Readonly<Record<EntryPoint, readonly string[]>> = {
  // The engine's worker (inflating, block evaluation) and the run's watcher thread (signals, progress).
  "bxp-cli": ["src/engine/worker.ts", "src/cli/run_watch_worker.ts"],
  // The session worker, and the evaluation worker it starts for bxp_eval & co. The tool core, which the
  // session imports on first need, is a literal dynamic import that deno compile follows; it is named
  // here as well because every tool depends on it and no compile runs where the tests run.
  "bxp-mcp": ["src/mcp/server_worker.ts", "src/mcp/tools/eval_worker.ts", "src/mcp/tools/tool_core.ts"],
};

/** The six `deno compile` targets, each built into `dist/<target>/`. */
export const COMPILE_TARGETS: readonly string[] = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
  "aarch64-pc-windows-msvc",
];

/**
 * The targets named by `--target` values: each a {@link COMPILE_TARGETS} entry or `host` (the machine's own
 * target, `Deno.build.target` given as `hostTarget`); none given means all six. Duplicates are dropped.
 * Throws naming the unknown value and the known ones.
 *
 * @example
 * ```ts
 * import { resolveTargets } from "./mod.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(resolveTargets(["host"], "x86_64-unknown-linux-gnu"), ["x86_64-unknown-linux-gnu"]);
 * assert.equal(resolveTargets(undefined, "x86_64-unknown-linux-gnu").length, 6);
 * ```
 */
export function resolveTargets(requested: readonly string[] | undefined, hostTarget: string): string[] {
  if (requested === undefined || requested.length === 0) return [...COMPILE_TARGETS];
  const targets: string[] = [];
  for (const value of requested) {
    const target = value === "host" ? hostTarget : value;
    if (!COMPILE_TARGETS.includes(target)) {
      const what = value === "host" ? `this machine's target '${hostTarget}'` : `unknown target '${value}'`;
      throw new Error(`${what} is not one deno compile builds; known: host, ${COMPILE_TARGETS.join(", ")}`);
    }
    if (!targets.includes(target)) targets.push(target);
  }
  return targets;
}

/**
 * The file name of a program's binary on an OS (`Deno.build.os` values): `deno compile` adds `.exe` for
 * Windows.
 *
 * @example
 * ```ts
 * import { binaryName } from "./mod.ts";
 * import assert from "node:assert/strict";
 * assert.equal(binaryName("bxp-cli", "windows"), "bxp-cli.exe");
 * ```
 */
export function binaryName(entry: EntryPoint, os: string): string {
  return os === "windows" ? `${entry}.exe` : entry;
}

/**
 * The `deno run` argument vector (after `deno`) of an entry point started from source: the task's flags and
 * the module, given as a path or URL (`modulePath`, normally the repository's {@link ENTRY_MODULES} entry made
 * absolute). The same flags as the compiled binary, so a smoke test from source exercises the same sandbox.
 *
 * @example
 * ```ts
 * import { runArgs } from "./mod.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   runArgs('{"tasks":{"bxp-cli":"deno run --no-prompt --allow-read src/cli/main.ts"}}', "bxp-cli", "/r/src/cli/main.ts"),
 *   ["run", "--no-prompt", "--allow-read", "/r/src/cli/main.ts"],
 * );
 * ```
 */
export function runArgs(denoJsonText: string, entry: EntryPoint, modulePath: string): string[] {
  return ["run", ...entryPointFlags(denoJsonText, entry), modulePath];
}

/**
 * The Deno flags of `deno run` in the named task of a `deno.json` text: every `--` token between `run` and the
 * entry module. Throws when the task is missing or does not run its entry module.
 */
export function entryPointFlags(denoJsonText: string, entry: EntryPoint): string[] {
  const task = (JSON.parse(denoJsonText) as { tasks?: Record<string, string> }).tasks?.[entry];
  if (typeof task !== "string") throw new Error(`deno.json has no '${entry}' task`);
  const words = task.trim().split(/\s+/);
  const run = words.indexOf("run");
  const module = words.indexOf(ENTRY_MODULES[entry]);
  if (words[0] !== "deno" || run !== 1 || module < 0) {
    throw new Error(`the '${entry}' task must be 'deno run <flags> ${ENTRY_MODULES[entry]}'`);
  }
  const flags = words.slice(run + 1, module);
  const stray = flags.find((f) => !f.startsWith("--"));
  if (stray !== undefined) {
    throw new Error(`the '${entry}' task has a non-flag word before its module: ${stray}`);
  }
  return flags;
}

/**
 * The `deno compile` argument vector (after `deno`) that builds `entry` for `target` into
 * `dist/<target>/<entry>` (`deno compile` adds `.exe` for Windows targets): the task's flags, the worker
 * modules to embed, the target and the output.
 *
 * @example
 * ```ts
 * import { compileArgs } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const denoJson = '{"tasks":{"bxp-cli":"deno run --no-prompt --allow-read src/cli/main.ts"}}';
 * assert.deepEqual(compileArgs(denoJson, "bxp-cli", "x86_64-apple-darwin"), [
 *   "compile", "--no-prompt", "--allow-read", "--include", "src/engine/worker.ts",
 *   "--include", "src/cli/run_watch_worker.ts", "--target",
 *   "x86_64-apple-darwin", "--output", "dist/x86_64-apple-darwin/bxp-cli", "src/cli/main.ts",
 * ]);
 * ```
 */
export function compileArgs(denoJsonText: string, entry: EntryPoint, target: string): string[] {
  return [
    "compile",
    ...entryPointFlags(denoJsonText, entry),
    ...ENTRY_INCLUDES[entry].flatMap((m) => ["--include", m]),
    "--target",
    target,
    "--output",
    `dist/${target}/${entry}`,
    ENTRY_MODULES[entry],
  ];
}

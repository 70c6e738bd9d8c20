/**
 * The two shipped programs and the permission flags each runs with. The flags live in ONE place, the
 * `bxp-cli` / `bxp-mcp` tasks of `deno.json`; this module reads them from there so that `deno task compile`,
 * the tests and bxp-mcp's own spawning of bxp-cli use exactly the list the tasks use.
 *
 * @example
 * ```ts
 * import { entryPointFlags } from "./entry_points.ts";
 * const denoJson = '{"tasks":{"bxp-cli":"deno run --no-prompt --allow-read src/cli/main.ts"}}';
 * entryPointFlags(denoJson, "bxp-cli"); // ["--no-prompt", "--allow-read"]
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
  "bxp-cli": ["src/engine/parallel/worker.ts"],
  "bxp-mcp": ["src/mcp/server_worker.ts"],
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
 * compileArgs('{"tasks":{"bxp-cli":"deno run --no-prompt --allow-read src/cli/main.ts"}}', "bxp-cli", "x86_64-apple-darwin");
 * // ["compile", "--no-prompt", "--allow-read", "--include", "src/engine/parallel/worker.ts", "--target",
 * //  "x86_64-apple-darwin", "--output", "dist/x86_64-apple-darwin/bxp-cli", "src/cli/main.ts"]
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

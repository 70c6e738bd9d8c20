/**
 * Spawning the real programs in tests, with exactly the permission flags of their deno.json tasks (the same
 * list `deno task compile` bakes into the binaries).
 * @module
 */

import { fileURLToPath } from "node:url";
import { ENTRY_MODULES, type EntryPoint, entryPointFlags } from "../../src/distribution/mod.ts";

/** The repository root. */
export const REPO_ROOT = new URL("../../", import.meta.url);

export { CONFORMANCE_DIR } from "./conformance.ts";

const denoJson = Deno.readTextFileSync(new URL("deno.json", REPO_ROOT));

/** The `deno run` argument vector of an entry point. */
export function entryArgs(entry: EntryPoint, args: readonly string[] = []): string[] {
  return [
    "run",
    ...entryPointFlags(denoJson, entry),
    fileURLToPath(new URL(ENTRY_MODULES[entry], REPO_ROOT)),
    ...args,
  ];
}

/** What a finished process left. */
export interface ProcessResult {
  code: number;
  stdout: Uint8Array;
  stderr: string;
  /** stdout decoded as UTF-8. */
  text: string;
}

/** Runs bxp-cli to completion. */
export async function runBxpCli(
  args: readonly string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<ProcessResult> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: entryArgs("bxp-cli", args),
    cwd: opts.cwd,
    env: opts.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: out.stdout,
    stderr: new TextDecoder().decode(out.stderr),
    text: new TextDecoder().decode(out.stdout),
  };
}

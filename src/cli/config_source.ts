/**
 * The config a command works on, as a run would pick it: `--config F`, else `./bxp-cli.json`, else the
 * library template named by `--template` (see `library_run.ts`).
 * @module
 */

import { dirname, resolve } from "../util/host_path.ts";
import { DEFAULT_CONFIG, isSafeCliPath } from "./args.ts";
import { findTemplate } from "../templates/mod.ts";
import { flagValue } from "./argv.ts";
import { loadLibrary } from "../host/mod.ts";

const CONFIG_MAX_BYTES = 1024 * 1024;

/** A config's text, its label in messages and the folder its `data_dir` values are relative to. */
export interface ConfigSource {
  text: string;
  label: string;
  base: string;
}

/**
 * The stderr line that says which config `--template ID` takes its template from when both could serve
 * it: `./bxp-cli.json` is there (and wins) and ID is also a library template, so the user learns that the
 * library's template of that id is not the one running. Null when there is no such ambiguity, or when
 * `--quiet` (or `--trace`, which implies it) or `--debug=json` keep stderr quiet.
 */
export function templateSourceNote(args: readonly string[], configPresent: boolean): string | null {
  if (!configPresent || flagValue(args, "--config") !== null) return null;
  if (args.includes("--quiet") || args.includes("--trace") || args.includes("--debug=json")) return null;
  const id = flagValue(args, "--template");
  if (id === null || id === "") return null;
  const t = findTemplate(loadLibrary(), id);
  if (t === undefined) return null;
  return `--template '${id}' is taken from ./${DEFAULT_CONFIG} (config file), not from the library ` +
    `template of that id (${t.origin}): run in a folder without ./${DEFAULT_CONFIG} to use the library's`;
}

/** Reads the config the command line names; an error is a message for stderr. */
export async function configSource(args: readonly string[]): Promise<ConfigSource | { error: string }> {
  const explicit = flagValue(args, "--config");
  let path = explicit ?? DEFAULT_CONFIG;
  if (explicit === null) {
    let present = true;
    try {
      await Deno.stat(path);
    } catch {
      present = false;
    }
    const id = flagValue(args, "--template");
    if (!present && id !== null) {
      const t = findTemplate(loadLibrary(), id);
      if (t !== undefined) return { text: t.text, label: `library:${id}`, base: Deno.cwd() };
    }
    const note = templateSourceNote(args, present);
    if (note !== null) console.error(note);
    path = DEFAULT_CONFIG;
  }
  if (path === "" || !isSafeCliPath(path)) return { error: `--config path rejected: '${path}'` };
  try {
    const info = await Deno.stat(path);
    if (info.size > CONFIG_MAX_BYTES) return { error: `config '${path}' is over the 1 MiB limit` };
    const text = new TextDecoder("utf-8", { fatal: true }).decode(await Deno.readFile(path));
    return { text, label: path, base: dirname(resolve(path)) };
  } catch (err) {
    const why = err instanceof Deno.errors.NotFound ? "no such file" : (err as Error).message;
    return { error: `cannot read the config ${path}: ${why}` };
  }
}

/**
 * `bxp-cli --template ID` with no config: when `--config` is not given, `./bxp-cli.json` does not exist
 * and ID names a library template, the library's config runs as if it were `./bxp-cli.json`, over
 * `--data` (default: the working directory). With a config present the flag keeps its usual meaning.
 * @module
 */

import { DEFAULT_CONFIG, parseCliArgs } from "../args.ts";
import { findTemplate } from "../../templates/mod.ts";
import { flagValue, hasFlag } from "../argv.ts";
import { loadLibrary } from "../../host/mod.ts";
import { templateSourceNote } from "../config_source.ts";
import { runConversionCommand } from "../conversion_run.ts";

/** Whether `args` ask for a library template run: `--template` alone is not enough (see the module notes). */
export function applies(args: readonly string[]): boolean {
  if (hasFlag(args, "--config") || hasFlag(args, "--help") || hasFlag(args, "--version")) return false;
  const id = flagValue(args, "--template");
  if (id === null || id === "") return false;
  // Deno.statSync, not node:fs's existsSync: loading node:fs cost every bxp-cli start about 8 MB.
  try {
    Deno.statSync(DEFAULT_CONFIG);
    // A config file is there: it wins, and the conversion run takes the template from it. When the
    // library holds the same id, say which one runs (the user may have meant the library's).
    const note = templateSourceNote(args, true);
    if (note !== null) console.error(note);
    return false;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) return false;
  }
  return findTemplate(loadLibrary(), id) !== undefined;
}

/** The `--template` mode (see `mod.ts`): runs with the whole argument vector, resolves with the exit code. */
export async function run(args: readonly string[]): Promise<number> {
  const req = parseCliArgs(args);
  if (req.kind !== "run") {
    if (req.kind === "error") console.error(`error: ${req.message}`);
    return 1;
  }
  const id = req.options.template!;
  const t = findTemplate(loadLibrary(), id)!;
  if (!req.options.quiet && !req.options.debugJson) {
    console.error(`using library template '${id}' (${t.origin}); no ${DEFAULT_CONFIG} here`);
  }
  // The same run as with a config file (workers, progress, signal cleanup, findings), over the library
  // template's text, its data_dir relative to the working directory.
  return await runConversionCommand(req.options, { text: t.text, label: `library:${id}`, dir: Deno.cwd() });
}

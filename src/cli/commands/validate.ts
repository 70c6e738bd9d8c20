/**
 * `bxp-cli --validate [--config F]`: checks a config (or, with no config, the library template named by
 * `--template`) the way a run would (syntax, schema, expressions,
 * cross-template rules, data folders) without converting anything, and prints each finding as
 * `file:line:col: error|warning|note: message [code]` with the offending line and a caret under the spot.
 * Exit 1 when there is an error, 2 for warnings only, 0 when clean.
 * @module
 */

import { loadConfigChecked } from "../../config/mod.ts";
import { configSource } from "../config_source.ts";
import { caretLines, locate } from "./locate.ts";
import { writeStdout } from "./out.ts";
import { probeDir } from "../conversion_run.ts";

/** The `--validate` mode (see `mod.ts`): runs with the whole argument vector, resolves with the exit code. */
export async function run(args: readonly string[]): Promise<number> {
  const source = await configSource(args);
  if ("error" in source) {
    console.error(`error: ${source.error}`);
    return 1;
  }
  const { text, label: path } = source;
  const loaded = await loadConfigChecked(text, path, {
    fs: { inspectDir: probeDir(source.base) },
    checkFsMs: 2000,
  });
  const out: string[] = [];
  let errors = 0;
  let warnings = 0;
  for (const d of loaded.diagnostics) {
    const severity = d.severity === "info" ? "note" : d.severity;
    if (d.severity === "error") errors++;
    if (d.severity === "warning") warnings++;
    const place = locate(text, d);
    const where = place === null ? path : `${path}:${place.line}:${place.col}`;
    const hint = d.suggest && !d.message.includes(d.suggest) ? ` (${d.suggest})` : "";
    out.push(`${where}: ${severity}: ${d.message}${hint} [${d.code}]`);
    if (place !== null) out.push(caretLines(text, place));
  }
  out.push(
    errors + warnings === 0
      ? `${path}: ok, no errors or warnings`
      : `${path}: ${errors} error(s), ${warnings} warning(s)`,
  );
  writeStdout(out.join("\n") + "\n");
  return errors > 0 ? 1 : warnings > 0 ? 2 : 0;
}

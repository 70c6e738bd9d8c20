/**
 * `bxp-cli --explain N [--template ID] [--config F] [--data D]`: record N (1-based, among the data
 * records) of every file a run would read, explained: its fields, every rule's `when` with its value and
 * the winner, each variable's value (or error), and the output rows it became or why it was dropped.
 * The explanation comes from the engine itself (`src/explain/`), so it cannot disagree with a run.
 * CSV and JSON inputs are explained as they are; spreadsheet and zip inputs are not unpacked here.
 * @module
 */

import { join, resolve } from "../../util/host_path.ts";
import { bxpCliLine, loadConfigChecked } from "../../config/mod.ts";
import { planTemplate } from "../../engine/mod.ts";
import { selectInputs } from "../../engine/mod.ts";
import { explainFileRecord, type RecordExplanation } from "../../explain/mod.ts";
import { DenoEngineFs } from "../deno_fs.ts";
import { isSafeCliPath } from "../args.ts";
import { flagValue } from "../argv.ts";
import { configSource } from "../config_source.ts";
import { writeStdout } from "./out.ts";
import { probeDir } from "../conversion_run.ts";

function shown(v: { value: string; error: { name: string; detail: string } | null }): string {
  return v.error === null ? JSON.stringify(v.value) : `error ${v.error.name}: ${v.error.detail}`;
}

/** The explanation as indented text. */
export function explanationText(ex: RecordExplanation): string {
  const L: string[] = [];
  L.push("  fields:");
  for (const [name, value] of ex.fields) L.push(`    [${name}] = ${JSON.stringify(value)}`);
  L.push("  rules:");
  if (ex.rules.length === 0) L.push("    (none)");
  for (const r of ex.rules) {
    const mark = r.index === ex.winner ? "  <- first match, wins" : r.reached ? "" : "  (not reached)";
    L.push(`    #${r.index} when ${r.source}  =>  ${r.error === null ? String(r.matched) : shown(r)}${mark}`);
  }
  L.push("  variables:");
  for (const v of ex.variables) {
    const note = v.skipped ? "  (overridden by every row of the winning rule)" : "";
    L.push(`    ${v.name} = ${shown(v)}    <- ${v.source === "" ? '""' : v.source}${note}`);
  }
  if (ex.rows.length > 0) L.push("  output rows:");
  for (const row of ex.rows) {
    for (const o of row.overrides) L.push(`    row ${row.index}: ${o.name} = ${shown(o)}    <- ${o.source}`);
    const values = row.values.map(([h, v]) => `${h}=${JSON.stringify(v)}`).join(", ");
    L.push(`    row ${row.index} (${row.outcome}): ${values}`);
  }
  L.push(`  outcome: ${ex.outcome} — ${ex.reason}`);
  return L.join("\n");
}

/** The `--explain` mode (see `mod.ts`): runs with the whole argument vector, resolves with the exit code. */
export async function run(args: readonly string[]): Promise<number> {
  const nText = flagValue(args, "--explain") ?? "";
  if (!/^\d{1,9}$/.test(nText) || Number(nText) === 0) {
    console.error("error: --explain needs a record number (1 is the first data record), e.g. --explain 3");
    return 1;
  }
  const recordNum = Number(nText);
  const source = await configSource(args);
  if ("error" in source) {
    console.error(`error: ${source.error}`);
    return 1;
  }
  const loaded = await loadConfigChecked(source.text, source.label, {
    fs: { inspectDir: probeDir(source.base) },
    checkFsMs: 0,
  });
  for (const d of loaded.diagnostics) {
    if (d.severity === "error") console.error(bxpCliLine(source.label, d));
  }
  if (loaded.config === null) return 1;
  const config = loaded.config;
  const id = flagValue(args, "--template");
  const data = flagValue(args, "--data");
  if (data !== null && (data === "" || !isSafeCliPath(data))) {
    console.error(`error: --data path rejected: '${data}'`);
    return 1;
  }
  const templates = id === null ? config.templates : config.templates.filter((t) => t.id === id);
  if (templates.length === 0) {
    console.error(`error: template id '${id}' not found in ${source.label}`);
    return 1;
  }
  const fs = new DenoEngineFs(source.base);
  const out: string[] = [];
  let explained = 0;
  for (const t of templates) {
    const plan = planTemplate(t, config.maps);
    const dir = data !== null ? resolve(data) : resolve(source.base, t.dataDir);
    const listed = await fs.listFiles(dir);
    if (listed === null) {
      out.push(`== template ${t.id}: data folder ${dir} does not exist`);
      continue;
    }
    const { inputs } = selectInputs(plan.template, listed);
    if (inputs.length === 0) {
      out.push(`== template ${t.id}: no file in ${dir} ends with '${t.filePatternIn}'`);
    }
    for (const name of inputs) {
      let ex: RecordExplanation | null;
      try {
        ex = await explainFileRecord(fs, plan, join(dir, name), name, recordNum);
      } catch (err) {
        out.push(`== template ${t.id}, ${name}: cannot be read: ${(err as Error).message}`);
        continue;
      }
      if (ex === null) {
        out.push(`== template ${t.id}, ${name}: has fewer than ${recordNum} data record(s)`);
        continue;
      }
      explained++;
      out.push(`== template ${t.id}, ${name}, record ${recordNum}\n${explanationText(ex)}`);
    }
  }
  writeStdout(out.join("\n\n") + "\n");
  return explained > 0 ? 0 : 1;
}

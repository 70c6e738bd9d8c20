/**
 * The playground's core service: what the worker does for the page, as plain async functions over the pure
 * core (config validation, the engine on an in-memory file system, the explanation, the expression trace).
 * Kept apart from the worker's message loop so it can run anywhere (the bench calls it too).
 *
 * @example
 * ```ts
 * import { PlaygroundCore } from "./core.ts";
 * import assert from "node:assert/strict";
 * const configText = `{ conversion_templates: { t: { data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".out.csv", input_schema: { $x: "[x]" }, row_rules: [{ when: "1 = 1", rows: [{}] }],
 *   output_schema: { x: "$x" } } } }`;
 * const bytes = new TextEncoder().encode("x\n1\n2\n");
 * const core = new PlaygroundCore();
 * const result = await core.run(configText, [{ name: "a.csv", bytes }], 1000);
 * assert.equal(result.exitCode, 0);
 * assert.equal(result.rowsOut, 2);
 * ```
 * @module
 */

import { countsAsRunWarning, loadConfig } from "../src/config/mod.ts";
import { CONFIG_SCHEMA } from "../src/config/mod.ts";
import { explainFileRecord, readFileRecords, type RecordExplanation } from "../src/explain/mod.ts";
import { planTemplate, type TemplatePlan } from "../src/engine/mod.ts";
import { runConversion } from "../src/engine/mod.ts";
import type { TraceSink } from "../src/engine/mod.ts";
import { exitCodeOf } from "../src/engine/mod.ts";
import { evalTrace } from "../src/inspect/mod.ts";
import { FUNCTIONS } from "../src/lang/mod.ts";
import type { BxpConfig } from "../src/config/mod.ts";
import { charIndexOfByte, placeDiagnostics } from "./diagnostics_map.ts";
import { MemoryFs } from "../src/engine/mod.ts";
import type {
  Answers,
  InputFile,
  InputRow,
  InputTable,
  OutputFile,
  PlacedDiagnostic,
  RunResult,
  TraceResult,
} from "./protocol.ts";

/** The virtual folder the config lives in; `data_dir` resolves against it. */
export const BASE = "/project";
const FILTER_DATE = "date_filter_from_filename";

/** What the run's trace said about one record (by its byte offset). */
interface RecordTrace {
  written: number;
  filtered: string | null;
  errors: number;
}

class RecordingTrace implements TraceSink {
  readonly enabled = true;
  /** `template \0 path` -> locator -> what happened. */
  readonly files = new Map<string, Map<number, RecordTrace>>();
  #current: Map<number, RecordTrace> = new Map();

  #at(locator: number): RecordTrace {
    let r = this.#current.get(locator);
    if (r === undefined) {
      r = { written: 0, filtered: null, errors: 0 };
      this.#current.set(locator, r);
    }
    return r;
  }
  fileStart(_format: number, template: string, path: string): void {
    this.#current = new Map();
    this.files.set(`${template}\0${path}`, this.#current);
  }
  fileEnd(): void {}
  outputRow(locator: number): void {
    this.#at(locator).written++;
  }
  filteredRow(locator: number, reason: string): void {
    const r = this.#at(locator);
    // A record with several rows can be date-filtered on one and written on another; keep the strongest.
    if (r.filtered === null || reason === FILTER_DATE) r.filtered = reason;
  }
  errorRow(locator: number): void {
    this.#at(locator).errors++;
  }
  prepassEntry(): void {}
  done(): void {}
  appendFrames(): void {}
  flush(): Promise<void> {
    return Promise.resolve();
  }
}

function outcomeOf(t: RecordTrace | undefined): InputRow["outcome"] {
  // No event at all: the run stopped before it reached the record.
  if (t === undefined) return "fatal";
  if (t.written > 0) return "written";
  if (t.filtered === FILTER_DATE) return "date_filtered";
  if (t.filtered === "rule_skip") return "rule_skip";
  return "no_rule_match";
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** The core behind the playground page. Keeps the last run's files for the visualiser. */
export class PlaygroundCore {
  #last: { fs: MemoryFs; plans: Map<string, TemplatePlan> } | null = null;

  /** Function and config-key docs for completion and hover. */
  catalog(): Answers["catalog"] {
    return {
      functions: FUNCTIONS.map((f) => ({
        name: f.name,
        signature: f.signature,
        description: f.description,
        example: f.example,
      })),
      keys: CONFIG_SCHEMA.map((k) => ({
        key: k.key,
        type_name: k.type_name,
        description: k.description,
        default: k.default,
        enum_values: k.enum_values,
      })),
    };
  }

  /** The config's diagnostics, placed in its text. */
  validate(config: string): PlacedDiagnostic[] {
    return placeDiagnostics(config, loadConfig(config, "config").diagnostics);
  }

  /** Runs every template of `config` over `files` as bxp-cli would, in memory. */
  async run(config: string, files: readonly InputFile[], rowLimit: number): Promise<RunResult> {
    const started = performance.now();
    const loaded = loadConfig(config, "config");
    const diagnostics = placeDiagnostics(config, loaded.diagnostics);
    const log: RunResult["log"] = [];
    const result: RunResult = {
      diagnostics,
      log,
      outputs: [],
      inputs: [],
      exitCode: 1,
      rowsIn: 0,
      rowsOut: 0,
      ms: 0,
    };
    if (loaded.config === null) {
      log.push({ level: "fatal", text: "error: the config has errors; nothing was run\n" });
      this.#last = null;
      return result;
    }
    const fs = this.#stage(loaded.config, files);
    const inputs = new Map(fs.entries());
    const trace = new RecordingTrace();
    const run = await runConversion({
      config: loaded.config,
      templateId: null,
      dataOverride: null,
      configLabel: "config.json",
      // bxp-cli counts expression-check and dead-config findings as one warning (exit status 2), in the summary.
      configWarnings: loaded.diagnostics.some(countsAsRunWarning) ? 1 : 0,
    }, {
      fs,
      reporter: {
        info: (text) => log.push({ level: "info", text }),
        warning: (text) => log.push({ level: "warning", text }),
        fatal: (text) => log.push({ level: "fatal", text }),
        debug: () => {},
      },
      trace,
      fresh: false,
      dryRun: false,
      debug: false,
      now: () => performance.now(),
      parallel: null,
    });
    result.exitCode = exitCodeOf(run.overall);
    result.rowsIn = run.overall.rowsIn;
    result.rowsOut = run.overall.rowsOut;

    const outputs: OutputFile[] = [];
    for (const [path, bytes] of fs.entries()) {
      if (inputs.get(path) === bytes) continue;
      outputs.push({ path: path.slice(BASE.length + 1), name: baseName(path), bytes });
    }
    result.outputs = outputs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

    const plans = new Map<string, TemplatePlan>();
    for (const t of loaded.config.templates) plans.set(t.id, planTemplate(t, loaded.config.maps));
    this.#last = { fs, plans };
    for (const [key, byLocator] of trace.files) {
      const [template, path] = key.split("\0");
      const plan = plans.get(template)!;
      const file = baseName(path);
      try {
        // The run's trace already counted the records: list the first ones without a second full parse.
        const read = await readFileRecords(fs, plan, path, file, { limit: rowLimit, countAll: run.aborted });
        const counts: InputTable["counts"] = {
          written: 0,
          rule_skip: 0,
          no_rule_match: 0,
          date_filtered: 0,
          fatal: 0,
          errors: 0,
        };
        // Counts cover the whole file; only the first rowLimit records are listed.
        for (const [, t] of byLocator) {
          counts[outcomeOf(t)]++;
          if (t.errors > 0) counts.errors++;
        }
        // After a fatal, the records the engine never reached have no trace event.
        if (read.total !== null) counts.fatal += Math.max(0, read.total - byLocator.size);
        const rows: InputRow[] = read.records.map((r) => {
          const t = byLocator.get(r.locator);
          return {
            recordNum: r.recordNum,
            fields: [...r.fields],
            outcome: outcomeOf(t),
            errors: t?.errors ?? 0,
            written: t?.written ?? 0,
          };
        });
        result.inputs.push({
          template,
          path,
          file,
          names: [...read.names],
          rows,
          total: read.total ?? byLocator.size,
          counts,
        });
      } catch (err) {
        log.push({
          level: "warning",
          text: `playground: cannot list '${file}': ${(err as Error).message}\n`,
        });
      }
    }
    result.ms = performance.now() - started;
    return result;
  }

  /** Explains one record of a file of the last run. */
  async explain(template: string, path: string, recordNum: number): Promise<RecordExplanation | null> {
    const last = this.#last;
    const plan = last?.plans.get(template);
    if (last === null || plan === undefined) return null;
    return await explainFileRecord(last.fs, plan, path, baseName(path), recordNum);
  }

  /** Evaluates an expression against one row with the per-call trace. */
  trace(expr: string, headers: readonly string[], fields: readonly string[]): TraceResult {
    const res = evalTrace(expr, headers, fields);
    const calls: TraceResult["calls"] = [];
    let value: string | null = null;
    for (const line of res.lines.split("\n")) {
      if (line === "") continue;
      const rec = JSON.parse(line);
      if (rec.t === "final") value = rec.value;
      else {
        calls.push({
          fn: rec.fn,
          from: charIndexOfByte(expr, rec.src_start),
          to: charIndexOfByte(expr, rec.src_end),
          value: rec.value,
        });
      }
    }
    let error: TraceResult["error"] = null;
    if (res.errorJson !== null) {
      const e = JSON.parse(res.errorJson);
      const off = typeof e.off === "number" ? e.off : 0;
      const len = typeof e.len === "number" ? e.len : 0;
      error = {
        error: e.error,
        detail: e.detail ?? "",
        from: charIndexOfByte(expr, off),
        to: charIndexOfByte(expr, off + len),
      };
    }
    return { calls, value, error };
  }

  /**
   * Puts the inputs into every template's data folder (deduplicated) of a fresh in-memory file system. A name
   * with a folder (`inbox/2025/a.csv`) is a path from the config's folder instead, put there once: how the
   * folders of a `data_dir` list get their own inputs (plain names go into its first folder). A list's
   * folders exist only through inputs, as on disk, where a folder nobody made is "not found".
   */
  #stage(config: BxpConfig, files: readonly InputFile[]): MemoryFs {
    const fs = new MemoryFs(BASE);
    const plain = files.filter((f) => !f.name.includes("/"));
    const listsNeed = plain.length > 0;
    const dirs = new Set(
      config.templates.filter((t) => t.dataDirs.length <= 1 || listsNeed).map((t) => fs.abs(t.dataDir)),
    );
    for (const dir of dirs) {
      fs.mkdir(dir);
      for (const f of plain) fs.put(`${dir}/${f.name}`, f.bytes);
    }
    for (const f of files) if (f.name.includes("/")) fs.put(fs.abs(f.name), f.bytes);
    return fs;
  }
}

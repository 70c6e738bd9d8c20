/**
 * The passes that turn containers into flat CSV files before templates run: `zip_input` unpacks archives,
 * `xlsx_sheet` extracts worksheets. Each data folder is handled once even when several templates share it.
 * Both stream: containers are read by ranges, members and sheets inflated chunk by chunk (see
 * `containers/`), the members of an archive on several threads at once; memory does not grow with them.
 *
 * Members and sheets are left beside their container as bxp leaves them (the templates read them from the
 * data folder, later `--fresh` runs and the partition modes rely on them), but never over a file this run did
 * not write nor under a config's name (`containers/targets.ts`). A dry run gets a file system that keeps
 * every output in a private scratch folder (`DenoEngineFs` `writeAside`), so it writes nothing here either.
 *
 * @example
 * ```ts
 * import { extractSheets, unpackZips } from "./prepare_inputs.ts";
 * import { MemoryFs } from "./memory_fs.ts";
 * import { NULL_TRACE } from "./sinks.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import { zipSync } from "fflate";
 * import assert from "node:assert/strict";
 * const template = loadConfig(`{conversion_templates: {t: {data_dir: "data", zip_input: {}, file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!.templates[0];
 * const fs = new MemoryFs("/p");
 * fs.put("data/a.zip", zipSync({ "a.csv": new TextEncoder().encode("h\nx\n") }));
 * const quiet = { info() {}, warning() {}, fatal() {}, debug() {} };
 * const env = { fs, reporter: quiet, trace: NULL_TRACE, fresh: false, dryRun: false, debug: false,
 *   now: () => performance.now(), containerWorkers: 0 }; // 0: inflate on the calling thread
 * const selected = [{ template, dir: "data", dirs: ["data"] }];
 * const zipStats = await unpackZips(selected, env);
 * const xlsxStats = await extractSheets(selected, env); // no xlsx_sheet: nothing to do
 * assert.equal(zipStats.hasFatal || xlsxStats.hasFatal, false);
 * assert.deepEqual(fs.get("data/a.csv"), new TextEncoder().encode("h\nx\n"));
 * ```
 * @module
 */

import { ZipInputError } from "../formats/zip.ts";
import { XlsxError } from "../formats/xlsx.ts";
import { unpackArchive } from "./containers/unpack_zip.ts";
import { extractWorkbook } from "./containers/extract_sheet.ts";
import { ContainerThreads, containerWorkerCount } from "./containers/threads.ts";
import type { TemplateConfig } from "../config/mod.ts";
import { compareNames, type RunEnv } from "./convert_template.ts";
import { newStats, type SectionStats, summaryLine } from "./stats.ts";
import { writtenPaths } from "./containers/targets.ts";

/** A template selected for this run and the data folders it reads (`dirs[0]` is `dir`). */
export interface SelectedTemplate {
  readonly template: TemplateConfig;
  readonly dir: string;
  /** Every folder, in `data_dir` list order (one for a plain `data_dir` or `--data`). */
  readonly dirs: readonly string[];
}

async function namesWithSuffix(env: RunEnv, dir: string, suffix: string): Promise<string[] | null> {
  const listed = await env.fs.listFiles(dir);
  return listed === null ? null : listed.filter((n) => n.endsWith(suffix)).sort(compareNames);
}

/**
 * The loop both passes share: each data folder once, its `*<suffix>` files in name order, the section's
 * heading and summary line, the inflate threads closed however it ends. `forDir` gives the handler of one
 * folder's containers (a folder may keep state across them); the handler returns false to stop the pass.
 */
async function eachContainer<T>(
  env: RunEnv,
  stats: SectionStats,
  started: number,
  heading: string,
  dirs: ReadonlyMap<string, T>,
  suffix: string,
  forDir: (
    dir: string,
    value: T,
    threads: ContainerThreads,
    written: ReturnType<typeof writtenPaths>,
  ) => (name: string) => Promise<boolean>,
): Promise<SectionStats> {
  if (dirs.size === 0) return stats;
  const { reporter } = env;
  reporter.info(heading);
  const threads = new ContainerThreads(containerWorkerCount(env), env.workers ?? null);
  const end = () => {
    stats.timeMs = env.now() - started;
    reporter.info(summaryLine(stats) + "\n");
    return stats;
  };
  const written = writtenPaths(env);
  try {
    for (const [dir, value] of dirs) {
      const names = await namesWithSuffix(env, dir, suffix);
      if (names === null) {
        reporter.fatal(`error: directory not found: '${dir}'\n`);
        stats.hasFatal = true;
        continue;
      }
      const handle = forDir(dir, value, threads, written);
      for (const name of names) {
        if (!await handle(name)) return end();
      }
    }
    return end();
  } finally {
    // Whatever ended the pass, its inflate threads stop before any template converts.
    await threads.close();
  }
}

/** Unpacks every `*.zip` of the folders of templates with `zip_input` into flat CSV members. */
export async function unpackZips(selected: readonly SelectedTemplate[], env: RunEnv): Promise<SectionStats> {
  const stats = newStats();
  const started = env.now();
  const dirs = new Map<string, NonNullable<TemplateConfig["zipInput"]>>();
  for (const s of selected) {
    for (const dir of s.dirs) {
      if (s.template.zipInput !== null && !dirs.has(dir)) dirs.set(dir, s.template.zipInput);
    }
  }
  const { fs, reporter } = env;
  const heading = "\n=== unpacking zip archives ===\n";
  return await eachContainer(env, stats, started, heading, dirs, ".zip", (dir, zi, threads, written) => {
    // Output names this folder's archives unpack to: two archives never write one file.
    const claimed = new Map<string, string>();
    return async (zipName) => {
      let unpacked: number;
      try {
        unpacked = await unpackArchive({
          fs,
          dir,
          zipName,
          options: zi,
          threads,
          fresh: env.fresh,
          claimed,
          written,
        });
      } catch (err) {
        if (err instanceof ZipInputError && err.kind === "unsupported_compression") {
          reporter.warning(`warning: ${err.message}\n`);
          stats.warnings++;
          return true;
        }
        const detail = err instanceof Error ? err.message : String(err);
        reporter.fatal(
          `fatal error: ${
            err instanceof ZipInputError ? detail : `cannot read zip '${zipName}': ${detail}`
          }\n`,
        );
        stats.hasFatal = true;
        return false;
      }
      reporter.info(`  unpacked '${zipName}' (${unpacked} members)\n`);
      return true;
    };
  });
}

/** Extracts the `xlsx_sheet` of each template from every `*.xlsx` of its folder into an intermediate CSV. */
export async function extractSheets(
  selected: readonly SelectedTemplate[],
  env: RunEnv,
): Promise<SectionStats> {
  const stats = newStats();
  const started = env.now();
  const dirs = new Map<string, NonNullable<TemplateConfig["xlsxSheet"]>[]>();
  for (const s of selected) {
    if (s.template.xlsxSheet === null) continue;
    for (const dir of s.dirs) {
      const specs = dirs.get(dir) ?? [];
      specs.push(s.template.xlsxSheet);
      dirs.set(dir, specs);
    }
  }
  const { fs, reporter } = env;
  const heading = "\n=== preparing work environment ===\n";
  return await eachContainer(
    env,
    stats,
    started,
    heading,
    dirs,
    ".xlsx",
    (dir, specs, threads, written) => async (book) => {
      const stem = book.slice(0, -".xlsx".length);
      if (env.fresh) {
        let all = true;
        for (const spec of specs) all &&= await fs.exists(fs.join(dir, stem + spec.outputSuffix + "x"));
        if (all) {
          reporter.info(`  skipping '${book}' (output exists)\n`);
          return true;
        }
      }
      reporter.info(`converting '${book}'\n`);
      try {
        await extractWorkbook({ fs, dir, book, specs, threads, written });
      } catch (err) {
        if (err instanceof XlsxError && err.kind === "Utf16XmlUnsupported") {
          reporter.warning(
            `warning: skipping '${book}': xlsx contains UTF-16 encoded XML, which is not supported — re-save the workbook from Excel as a normal .xlsx\n`,
          );
          stats.warnings++;
          return true;
        }
        const detail = err instanceof Error ? err.message : String(err);
        reporter.fatal(`fatal error: xlsx conversion failed for '${book}': ${detail}\n`);
        stats.hasFatal = true;
        return false;
      }
      return true;
    },
  );
}

/**
 * What every partition mode shares: the partition flags, the config and the one template they run, and the
 * per-file facts a piece needs (header columns, FILENAME() stem, filename date range) read from the piece's
 * head (the input's first bytes: BOM, preamble lines and the header line, exactly as in the file).
 *
 * @module
 */

import { countsAsRunWarning, loadConfig, type TemplateConfig } from "../../config/mod.ts";
import { configFindingText } from "../config_findings.ts";
import type { BxpConfig } from "../../config/mod.ts";
import { CsvParser } from "../../formats/csv_reader.ts";
import { checkHeader } from "../../engine/mod.ts";
import { extractDateRange } from "../../engine/mod.ts";
import { inputStem, isPlainFileName } from "../../engine/mod.ts";
import { planTemplate, type TemplatePlan } from "../../engine/mod.ts";
import { ExprError } from "../../lang/mod.ts";
import { flagValue } from "../argv.ts";
import { configSource } from "../config_source.ts";

/** A usage or input problem of a partition mode: printed as `error: ...`, exit 1, never retried. */
export class PartitionError extends Error {}

/** The loaded config, the chosen template and its compiled plan. */
export interface PartitionSetup {
  config: BxpConfig;
  template: TemplateConfig;
  plan: TemplatePlan;
  /** Config warnings a conversion run counts (expression checks, dead config): 0 or 1, as bxp-cli counts. */
  countedConfigWarnings: number;
  /**
   * Every finding of the config's checks but errors, as bxp-cli prints them before converting (warnings on
   * stderr, notes on stdout), for the summary.
   */
  configMessages: { warning: boolean; text: string }[];
}

/**
 * Why this template cannot be partitioned, or null. Partitioning rests on "a newline always ends a record"
 * and on appending row bytes: true for CSV input (CSV or JSON output) in every encoding bxp supports (UTF-8 or
 * single-byte code pages, so a 0x0A byte is always a line feed). zip archives and xlsx workbooks are refused
 * by name in `--partition-plan` (unpack or extract them first).
 */
export function partitionRefusal(t: TemplateConfig): string | null {
  if (t.fileTypeIn !== "csv") {
    return `template '${t.id}' reads JSON input (file_type_in: "json"): a JSON array cannot be cut at ` +
      `newlines; run it with bxp-cli`;
  }
  if (t.fillDown.length > 0) {
    return `template '${t.id}' uses fill_down (${
      t.fillDown.map((c) => `'${c}'`).join(", ")
    }): a blank cell takes the previous record's value, and a piece cannot know the previous piece's last ` +
      `row; run it with bxp-cli`;
  }
  return null;
}

/** Loads `--config` and picks `--template` (required), refusing templates that cannot be partitioned. */
export async function loadSetup(args: readonly string[]): Promise<PartitionSetup> {
  const id = flagValue(args, "--template");
  if (id === null || id === "") throw new PartitionError("partition modes need --template ID");
  const source = await configSource(args);
  if ("error" in source) throw new PartitionError(source.error);
  const loaded = loadConfig(source.text, source.label);
  const firstError = loaded.diagnostics.find((d) => d.severity === "error");
  if (loaded.config === null) {
    const where = firstError?.path ? ` (at ${firstError.path})` : "";
    throw new PartitionError(
      `config ${source.label} is invalid: ${firstError?.message ?? "unknown problem"}${where}; ` +
        `run bxp-cli --validate --config ${source.label} for every finding`,
    );
  }
  const template = loaded.config.templates.find((t) => t.id === id);
  if (template === undefined) {
    throw new PartitionError(`template '${id}' is not defined in ${source.label}`);
  }
  const refusal = partitionRefusal(template);
  if (refusal !== null) throw new PartitionError(refusal);
  let plan: TemplatePlan;
  try {
    plan = planTemplate(template, loaded.config.maps);
  } catch (err) {
    if (err instanceof ExprError) {
      throw new PartitionError(`template '${id}': ${err.error}: ${err.detail}`);
    }
    throw err;
  }
  const counted = loaded.diagnostics.filter(countsAsRunWarning);
  return {
    config: loaded.config,
    template,
    plan,
    countedConfigWarnings: counted.length > 0 ? 1 : 0,
    configMessages: loaded.diagnostics.filter((d) => d.severity !== "error").map((d) => ({
      warning: d.severity === "warning",
      text: configFindingText(source.label, d, source.text),
    })),
  };
}

/** The per-file facts a piece of that file needs. */
export interface FileFacts {
  name: string;
  /** Trimmed header names (empty for headerless input). */
  names: string[];
  stem: string;
  dateMin: string;
  dateMax: string;
  /** Header warnings (texts as bxp-cli prints them) and whether they count as warnings. */
  headerWarnings: string[];
  typos: string[];
}

/** Reads the header line out of a file's head bytes (BOM, preamble, header line) with the template's dialect. */
export function headerFromHead(t: TemplateConfig, head: Uint8Array, name: string): string[] {
  if (t.csvHeaderLine === 0) return [];
  let seen = 0;
  let names: string[] | null = null;
  const parser = new CsvParser(
    { delimiter: t.csvDelimiterIn, quote: t.csvTextQuoteIn, encoding: t.csvInputEncoding },
    (fields) => {
      seen++;
      if (seen === t.csvHeaderLine) names = fields;
    },
    // The BOM is dropped here rather than by the parser: its BOM check holds back a first push under 3
    // bytes and then hands the line over with its "\n" still attached (a one-letter header, "v\n").
    { sourceName: name, skipBom: false },
  );
  const bom = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
  parser.push(bom ? head.subarray(3) : head);
  parser.finish();
  return names ?? [];
}

/** The facts of input `name` whose head bytes are `head`. */
export function fileFacts(setup: PartitionSetup, name: string, head: Uint8Array): FileFacts {
  if (!isPlainFileName(name)) {
    throw new PartitionError(`--file must be a plain file name (no folders), got '${name}'`);
  }
  const t = setup.template;
  const stem = inputStem(name, t.filePatternIn);
  const range = t.dateFilterFromFilename ? extractDateRange(stem) : { kind: "none" as const };
  const checked = checkHeader(headerFromHead(t, head, name), setup.plan, name);
  return {
    name,
    names: checked.names,
    stem,
    dateMin: range.kind === "valid" ? range.min : "",
    dateMax: range.kind === "valid" ? range.max : "",
    headerWarnings: checked.warnings,
    typos: checked.typos,
  };
}

/** A non-negative integer flag, or `fallback` when absent. */
export function intFlag(args: readonly string[], name: string, fallback: number | null): number {
  const v = flagValue(args, name);
  if (v === null) {
    if (fallback !== null) return fallback;
    throw new PartitionError(`${name} N is required`);
  }
  if (!/^\d{1,15}$/.test(v)) throw new PartitionError(`${name} must be a non-negative integer, got '${v}'`);
  return Number(v);
}

/** A required string flag. */
export function requiredFlag(args: readonly string[], name: string): string {
  const v = flagValue(args, name);
  if (v === null || v === "") throw new PartitionError(`${name} is required`);
  return v;
}

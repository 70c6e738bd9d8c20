/**
 * bxp-cli's command line: flags, values in `--name value` or `--name=value` form, conflicts and usage.
 *
 * @example
 * ```ts
 * import { parseCliArgs } from "./args.ts";
 * import assert from "node:assert/strict";
 * const parsed = parseCliArgs(["--template", "t1", "--data=./in"]);
 * assert.equal(parsed.kind, "run");
 * assert.equal(parsed.kind === "run" && parsed.options.template, "t1");
 * assert.equal(parsed.kind === "run" && parsed.options.data, "./in");
 * ```
 * @module
 */

/** Everything a run needs from the command line. */
export interface CliOptions {
  config: string;
  configExplicit: boolean;
  template: string | null;
  data: string | null;
  fresh: boolean;
  dryRun: boolean;
  trace: boolean;
  traceFile: string | null;
  debug: boolean;
  debugJson: boolean;
  quiet: boolean;
  checkFsSeconds: number;
  /** `--strict`: findings are errors (exit 1) and the outputs they concern are not written. */
  strict: boolean;
  /** `--progress=json`: machine-readable progress lines on stderr. */
  progressJson: boolean;
  /** `--exit-on-stdin-eof`: stop the run (exit 1, temps removed) when stdin reaches EOF. */
  exitOnStdinEof: boolean;
  /** `--findings-file`: where the findings JSON goes, or null. */
  findingsFile: string | null;
}

/** What the command line asks for. Errors carry bxp's message and whether the usage text follows it. */
export type CliRequest =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "error"; message: string; usage: boolean }
  | { kind: "run"; options: CliOptions };

/** The config read when `--config` is absent. */
export const DEFAULT_CONFIG = "bxp-cli.json";

/** One documented flag: the single source for `--help` and the CLI reference page. */
export interface FlagDoc {
  flag: string;
  /** Placeholder of the value, when the flag takes one. */
  value: string | null;
  description: string;
}

/** Every flag bxp-cli accepts, in help order. */
export const CLI_FLAGS: readonly FlagDoc[] = [
  { flag: "--config", value: "<path>", description: "load this config instead of ./bxp-cli.json" },
  { flag: "--template", value: "<id>", description: "run a single template" },
  { flag: "--data", value: "<path>", description: "override the template's data_dir (requires --template)" },
  { flag: "--fresh", value: null, description: "skip files whose output already exists (never overwrite)" },
  { flag: "--dry-run", value: null, description: "run the whole pipeline without writing output files" },
  {
    flag: "--trace",
    value: null,
    description: "write the binary BXTB trace to stdout (implies --quiet; conflicts with --debug)",
  },
  {
    flag: "--trace-file",
    value: "<path>",
    description: "also write the full BXTB trace to <path>, independent of --trace",
  },
  {
    flag: "--debug",
    value: null,
    description: "no informational summaries; print expression errors, and unmatched rows when " +
      "row_rules_debug_missing is set",
  },
  {
    flag: "--debug=json",
    value: null,
    description:
      "print one JSON run summary on stdout instead of the human output (conflicts with --trace, " +
      "--quiet and --debug)",
  },
  { flag: "--quiet", value: null, description: "no informational output (errors still go to stderr)" },
  {
    flag: "--check-fs",
    value: "<n>",
    description: "check that data_dir and input files exist before processing, within n seconds",
  },
  {
    flag: "--strict",
    value: null,
    description:
      "treat findings as errors (exit 1): a non-empty input writing 0 rows, an output column empty " +
      "on every row, a [Column] no header has, a value breaking an unquoted output, a DATE_CONVERT format " +
      "matching no input; the outputs concerned are not written",
  },
  {
    flag: "--findings-file",
    value: "<path>",
    description: 'write the run\'s findings as JSON ({"findings":[...]}) to <path>, with or without --strict',
  },
  {
    flag: "--progress=json",
    value: null,
    description: 'print `bxp-progress {"records":R,"bytes":B,"total_bytes":T}` lines on stderr while ' +
      "converting (about every 250 ms, and once at the end)",
  },
  {
    flag: "--exit-on-stdin-eof",
    value: null,
    description: "stop the run, remove its temporary files and exit 1 when stdin reaches end of file " +
      "(for a parent process that spawned bxp-cli with a pipe)",
  },
  { flag: "--version", value: null, description: "print the version and exit" },
  { flag: "--help", value: null, description: "print this help and exit" },
];

/**
 * The help text; `prog` is the program name shown in the usage lines, `otherModes` the commands table's
 * section (`commandsHelp()`). It is passed in, not imported: the commands parse their own arguments with
 * this module, and an import back would make the two one import circle.
 */
export function usageText(prog = "bxp-cli", otherModes = ""): string {
  const rows = CLI_FLAGS.map((f) =>
    `  ${(f.value === null ? f.flag : `${f.flag} ${f.value}`).padEnd(20)}${f.description}`
  );
  return `Broker eXchange Parser (BXP)

  Converts messy CSV exports into the exact CSV another system imports, driven by a JSON5 config.

Usage:
  ${prog}                                    process all templates in the config file
  ${prog} --template <id>                    process a single template
  ${prog} --template <id> --data <path>      override the template's data_dir

Options:
${rows.join("\n")}
${otherModes}
Value options accept \`--name value\` or \`--name=value\`.

Exit codes:
  0 - success
  1 - error (also: a --strict finding, --exit-on-stdin-eof seeing stdin end)
  2 - warnings
  130 / 143 - stopped by SIGINT / SIGTERM (temporary files removed)
`;
}

type ValueMatch = { kind: "none" } | { kind: "missing" } | { kind: "value"; value: string; next: number };

function matchValue(args: readonly string[], i: number, name: string): ValueMatch {
  const arg = args[i];
  if (arg === name) {
    return i + 1 < args.length ? { kind: "value", value: args[i + 1], next: i + 1 } : { kind: "missing" };
  }
  if (arg.startsWith(name + "=")) return { kind: "value", value: arg.slice(name.length + 1), next: i };
  return { kind: "none" };
}

const fail = (message: string, usage = false): CliRequest => ({ kind: "error", message, usage });

/** Parses bxp-cli's arguments (without the program name). `--version`/`--help` win where they appear first. */
export function parseCliArgs(args: readonly string[]): CliRequest {
  const o: CliOptions = {
    config: DEFAULT_CONFIG,
    configExplicit: false,
    template: null,
    data: null,
    fresh: false,
    dryRun: false,
    trace: false,
    traceFile: null,
    debug: false,
    debugJson: false,
    quiet: false,
    checkFsSeconds: 0,
    strict: false,
    progressJson: false,
    exitOnStdinEof: false,
    findingsFile: null,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    switch (arg) {
      case "--version":
        return { kind: "version" };
      case "--help":
        return { kind: "help" };
      case "--debug":
        o.debug = true;
        continue;
      case "--quiet":
        o.quiet = true;
        continue;
      case "--fresh":
        o.fresh = true;
        continue;
      case "--dry-run":
        o.dryRun = true;
        continue;
      case "--trace":
        o.trace = true;
        continue;
      case "--strict":
        o.strict = true;
        continue;
      case "--exit-on-stdin-eof":
        o.exitOnStdinEof = true;
        continue;
    }
    if (arg === "--progress" || arg.startsWith("--progress=")) {
      const v = arg.slice("--progress=".length);
      if (v !== "json") return fail(`--progress value must be 'json': got '${v}'`);
      o.progressJson = true;
      continue;
    }
    const findingsFile = matchValue(args, i, "--findings-file");
    if (findingsFile.kind === "missing") return fail("--findings-file requires a path argument");
    if (findingsFile.kind === "value") {
      if (findingsFile.value === "") return fail("--findings-file requires a non-empty path");
      o.findingsFile = findingsFile.value;
      i = findingsFile.next;
      continue;
    }
    if (arg.startsWith("--debug=")) {
      const v = arg.slice("--debug=".length);
      if (v !== "json") return fail(`--debug value must be 'json': got '${v}'`);
      o.debugJson = true;
      continue;
    }
    if (arg.startsWith("--trace=")) {
      const v = arg.slice("--trace=".length);
      if (v !== "bin") return fail(`--trace value must be 'bin' (NDJSON support was removed): got '${v}'`);
      o.trace = true;
      continue;
    }
    const traceFile = matchValue(args, i, "--trace-file");
    if (traceFile.kind === "missing") return fail("--trace-file requires a path argument");
    if (traceFile.kind === "value") {
      if (traceFile.value === "") return fail("--trace-file requires a non-empty path");
      o.traceFile = traceFile.value;
      i = traceFile.next;
      continue;
    }
    const checkFs = matchValue(args, i, "--check-fs");
    if (checkFs.kind === "missing") {
      return fail("--check-fs requires a non-negative integer (seconds) argument");
    }
    if (checkFs.kind === "value") {
      if (!/^[0-9]{1,3}$/.test(checkFs.value) || Number(checkFs.value) > 255) {
        return fail(`--check-fs requires a non-negative integer (seconds): got '${checkFs.value}'`);
      }
      o.checkFsSeconds = Number(checkFs.value);
      i = checkFs.next;
      continue;
    }
    let consumed = false;
    for (const name of ["--config", "--template", "--data"] as const) {
      const m = matchValue(args, i, name);
      if (m.kind === "none") continue;
      if (m.kind === "missing") return fail(`${name} requires a value`, true);
      if (name === "--config") {
        o.config = m.value;
        o.configExplicit = true;
      } else if (name === "--template") {
        o.template = m.value;
      } else {
        o.data = m.value;
      }
      i = m.next;
      consumed = true;
      break;
    }
    if (consumed) continue;
    return fail(`unknown argument: ${arg}`, true);
  }
  if (o.quiet && (o.debug || o.debugJson)) return fail("--quiet and --debug cannot be used together");
  if (o.trace && (o.debug || o.debugJson)) return fail("--trace and --debug cannot be used together");
  if (o.debug && o.debugJson) return fail("--debug and --debug=json cannot be used together");
  if (o.data !== null && o.template === null) return fail("--data requires --template", true);
  return { kind: "run", options: o };
}

/**
 * bxp's guard on user-supplied paths: no shell metacharacters and at most one `..` component. It blocks
 * injection characters and accidental deep traversal; it is not a sandbox.
 */
export function isSafeCliPath(path: string): boolean {
  if (/[$|;&><`()\n\r\0]/.test(path)) return false;
  const parts = path.split(/[\\/]/);
  return parts.filter((p) => p === "..").length <= 1;
}

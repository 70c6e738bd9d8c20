/**
 * bxp-cli's other modes: commands that replace the conversion run when their flag is on the command line
 * (authoring helpers such as `--validate` or `--init`, the partition mode for distributed runs). One table:
 * adding a mode is adding an entry to {@link CLI_COMMANDS}; `main.ts` asks {@link findCommand} first and the
 * usage text lists {@link commandsHelp}.
 *
 * @example
 * ```ts
 * import { commandsHelp, findCommand } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const command = await findCommand(["--validate", "bxp-cli.json"]); // main.ts passes Deno.args
 * assert.equal(command?.flag, "--validate"); // main.ts then exits with `await (await command.load())(args)`
 * assert.equal(await findCommand(["--config", "bxp-cli.json"]), null); // a conversion run
 * assert.match(commandsHelp(), /^\nOther modes:\n {2}--list-templates/);
 * ```
 * @module
 */

/** A mode's work: runs with the whole argument vector and resolves with the exit code. */
export type CommandRun = (args: readonly string[]) => Promise<number>;

/** One alternative mode of bxp-cli. */
export interface CliCommand {
  /** The flag that selects the mode, e.g. `--validate`. */
  flag: string;
  /** Its value placeholder in the usage text, or null for a bare flag. */
  value: string | null;
  /** One line for the usage text. */
  description: string;
  /**
   * Imports the mode's module and gives its run. Modules load only when their mode is chosen: a conversion
   * run, most starts, imports none of them (imported eagerly, they cost every start 5-9 ms).
   */
  load(): Promise<CommandRun>;
  /**
   * Extra condition for a flag that a conversion run also uses (`--template` without a config runs a
   * library template): the command is taken only when this says so. Absent: the flag alone decides.
   */
  when?(args: readonly string[]): Promise<boolean>;
}

/** The modes in usage-text order: what the usage text and the flag search need, and how to load the rest. */
export const CLI_COMMANDS: readonly CliCommand[] = [
  {
    flag: "--list-templates",
    value: null,
    description: "list the template library (id and description, one per line)",
    load: async () => (await import("./list_templates.ts")).run,
  },
  {
    flag: "--fetch-template",
    value: "<id>",
    description: "print a library template as a whole JSON5 config (save it as bxp-cli.json)",
    load: async () => (await import("./fetch_template.ts")).run,
  },
  {
    flag: "--init",
    value: "<sample>",
    description: "draft a commented config from a sample export into --config (default ./bxp-cli.json)",
    load: async () => (await import("./init.ts")).run,
  },
  {
    flag: "--validate",
    value: null,
    description: "check the config (file:line:col findings with a caret); exit 1 errors, 2 warnings, 0 clean",
    load: async () => (await import("./validate.ts")).run,
  },
  {
    flag: "--eval",
    value: "<expr>",
    description: "evaluate one expression (with --row 'Header=value,...') and print its value",
    load: async () => (await import("./eval.ts")).run,
  },
  {
    flag: "--preview",
    value: "<n>",
    description: "dry run: show the first n rows of every output as a table (nothing is written)",
    load: async () => (await import("./preview.ts")).run,
  },
  {
    flag: "--explain",
    value: "<n>",
    description: "explain record n of each input file: rules, variables, output rows or the drop reason",
    load: async () => (await import("./explain.ts")).run,
  },
  {
    flag: "--template",
    value: "<id>",
    description: "with no config file: run the library template <id> over --data (default .)",
    when: async (args) => (await import("./library_run.ts")).applies(args),
    load: async () => (await import("./library_run.ts")).run,
  },
  {
    flag: "--partition-plan",
    value: null,
    description: "partition: {names:[...]} on stdin -> inputs in bxp's order, output names, header (JSON)",
    load: async () => (await import("../partition/mod.ts")).partitionPlan,
  },
  {
    flag: "--partition-prepass",
    value: null,
    description: "partition: a piece on stdin (--file, --head, --first-record) -> its pre_pass writes (JSON)",
    load: async () => (await import("../partition/mod.ts")).partitionPrepass,
  },
  {
    flag: "--partition-convert",
    value: null,
    description:
      "partition: a piece on stdin (those flags, --lookups, --stats-file) -> its CSV rows, no header",
    load: async () => (await import("../partition/mod.ts")).partitionConvert,
  },
  {
    flag: "--partition-summary",
    value: null,
    description: "partition: every piece's counters on stdin -> bxp-cli's warnings, summary, exit status",
    load: async () => (await import("../partition/mod.ts")).partitionSummary,
  },
];

/** The command whose flag appears in `args` (as `--flag` or `--flag=value`), or null for a conversion run. */
export async function findCommand(
  args: readonly string[],
  commands: readonly CliCommand[] = CLI_COMMANDS,
): Promise<CliCommand | null> {
  for (const command of commands) {
    if (!args.some((a) => a === command.flag || a.startsWith(`${command.flag}=`))) continue;
    if (command.when === undefined || await command.when(args)) return command;
  }
  return null;
}

/** The usage-text lines of the modes ("" when there are none). */
export function commandsHelp(commands: readonly CliCommand[] = CLI_COMMANDS): string {
  if (commands.length === 0) return "";
  const names = commands.map((c) => c.value === null ? c.flag : `${c.flag} ${c.value}`);
  const width = Math.max(20, ...names.map((n) => n.length + 2));
  const rows = commands.map((c, i) => `  ${names[i].padEnd(width)}${c.description}`);
  return `\nOther modes:\n${rows.join("\n")}\n`;
}

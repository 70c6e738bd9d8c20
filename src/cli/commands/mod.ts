/**
 * bxp-cli's other modes: commands that replace the conversion run when their flag is on the command line
 * (authoring helpers such as `--validate` or `--init`, the partition mode for distributed runs). One table:
 * adding a mode is adding an entry to {@link cliCommands}; `main.ts` asks {@link findCommand} first and the
 * usage text lists {@link commandsHelp}.
 *
 * @example
 * ```ts ignore
 * const command = findCommand(Deno.args);
 * if (command !== null) Deno.exit(await command.run(Deno.args));
 * ```
 * @module
 */

import { EVAL } from "./eval.ts";
import { EXPLAIN } from "./explain.ts";
import { FETCH_TEMPLATE } from "./fetch_template.ts";
import { INIT } from "./init.ts";
import { LIBRARY_RUN } from "./library_run.ts";
import { LIST_TEMPLATES } from "./list_templates.ts";
import { PREVIEW } from "./preview.ts";
import { VALIDATE } from "./validate.ts";
import { PARTITION_COMMANDS } from "../partition/mod.ts";

/** One alternative mode of bxp-cli. */
export interface CliCommand {
  /** The flag that selects the mode, e.g. `--validate`. */
  flag: string;
  /** Its value placeholder in the usage text, or null for a bare flag. */
  value: string | null;
  /** One line for the usage text. */
  description: string;
  /** Runs the mode with the whole argument vector; resolves with the exit code. */
  run(args: readonly string[]): Promise<number>;
  /**
   * Extra condition for a flag that a conversion run also uses (`--template` without a config runs a
   * library template): the command is taken only when this says so. Absent: the flag alone decides.
   */
  when?(args: readonly string[]): boolean;
}

/**
 * The modes, in usage-text order. A function, not a constant: the command modules import `args.ts`, which
 * imports this module for the usage text, so the list is built on first use rather than at load time.
 */
export function cliCommands(): readonly CliCommand[] {
  return [
    LIST_TEMPLATES,
    FETCH_TEMPLATE,
    INIT,
    VALIDATE,
    EVAL,
    PREVIEW,
    EXPLAIN,
    LIBRARY_RUN,
    ...PARTITION_COMMANDS,
  ];
}

/** The command whose flag appears in `args` (as `--flag` or `--flag=value`), or null for a conversion run. */
export function findCommand(
  args: readonly string[],
  commands: readonly CliCommand[] = cliCommands(),
): CliCommand | null {
  for (const command of commands) {
    if (!args.some((a) => a === command.flag || a.startsWith(`${command.flag}=`))) continue;
    if (command.when === undefined || command.when(args)) return command;
  }
  return null;
}

/** The usage-text lines of the modes ("" when there are none). */
export function commandsHelp(commands: readonly CliCommand[] = cliCommands()): string {
  if (commands.length === 0) return "";
  const names = commands.map((c) => c.value === null ? c.flag : `${c.flag} ${c.value}`);
  const width = Math.max(20, ...names.map((n) => n.length + 2));
  const rows = commands.map((c, i) => `  ${names[i].padEnd(width)}${c.description}`);
  return `\nOther modes:\n${rows.join("\n")}\n`;
}

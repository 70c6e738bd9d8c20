/**
 * `deno task compile [--target T ...] [--dry-run]`: builds bxp-cli and bxp-mcp side by side into
 * `dist/<target>/` for every `deno compile` target, the ones named, or (`--target host`) just this machine's,
 * with exactly the permission flags of their deno.json tasks. `--help` explains the flags.
 *
 * `deno compile` needs its runtime base binary (denort); where its download host is unreachable, set
 * `DENORT_BIN` to a local denort (see Deno's compile docs). `--dry-run` prints the commands and runs
 * nothing (the tests check them against the task flags).
 * @module
 */

import { parseArgs } from "node:util";
import {
  COMPILE_TARGETS,
  compileArgs,
  ENTRY_INCLUDES,
  ENTRY_MODULES,
  type EntryPoint,
  resolveTargets,
} from "../src/distribution/mod.ts";

/** The `--help` text. */
const COMPILE_HELP = `deno task compile [--target TARGET ...] [--dry-run]

Builds bxp-cli and bxp-mcp side by side into dist/<target>/ (bxp-mcp runs the bxp-cli beside it), each with
exactly the Deno permission flags of its task in deno.json and never prompting; the worker modules loaded at
run time are embedded with --include (bxp-cli: ${ENTRY_INCLUDES["bxp-cli"].join(", ")}; bxp-mcp:
${ENTRY_INCLUDES["bxp-mcp"].join(", ")}).

Flags:
  --target TARGET  build only this target; repeat for several. TARGET is "host" (this machine's own target,
                   ${Deno.build.target}) or one of:
                   ${COMPILE_TARGETS.join("\n                   ")}
                   Without --target, all six are built.
  --dry-run        print the deno compile commands, one a line, and run nothing
  --help           print this help and exit

deno compile downloads its runtime base (denort) for each target; where that host is unreachable, set
DENORT_BIN to a local denort of the same Deno version (host target only).
After building, check the binaries with: deno run -A tools/smoke.ts --bin-dir dist/<target>
`;

const root = new URL("../", import.meta.url);

function usageError(error: unknown): never {
  console.error(`compile: ${error instanceof Error ? error.message : String(error)} (see --help)`);
  Deno.exit(2);
}

let values: { target?: string[]; "dry-run"?: boolean; help?: boolean };
try {
  values = parseArgs({
    args: Deno.args,
    options: {
      target: { type: "string", multiple: true },
      "dry-run": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  }).values;
} catch (error) {
  usageError(error);
}
if (values.help) {
  console.log(COMPILE_HELP);
  Deno.exit(0);
}
let targets: string[];
try {
  targets = resolveTargets(values.target, Deno.build.target);
} catch (error) {
  usageError(error);
}
const denoJson = await Deno.readTextFile(new URL("deno.json", root));

let failed = 0;
for (const target of targets) {
  for (const entry of Object.keys(ENTRY_MODULES) as EntryPoint[]) {
    const args = compileArgs(denoJson, entry, target);
    if (values["dry-run"]) {
      console.log(`deno ${args.join(" ")}`);
      continue;
    }
    console.error(`deno ${args.join(" ")}`);
    const { code } = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: root,
      stdout: "inherit",
      stderr: "inherit",
    })
      .output();
    if (code !== 0) failed++;
  }
}
if (failed > 0) {
  console.error(`${failed} build(s) failed`);
  Deno.exit(1);
}

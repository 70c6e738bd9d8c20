/**
 * `deno task compile [--target T ...]`: builds bxp-cli and bxp-mcp side by side into `dist/<target>/` for
 * every `deno compile` target (or the ones named), with exactly the permission flags of their deno.json tasks.
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
  ENTRY_MODULES,
  type EntryPoint,
} from "../src/distribution/entry_points.ts";

const root = new URL("../", import.meta.url);
const { values } = parseArgs({
  args: Deno.args,
  options: { target: { type: "string", multiple: true }, "dry-run": { type: "boolean" } },
});
const targets = values.target ?? COMPILE_TARGETS;
for (const t of targets) {
  if (!COMPILE_TARGETS.includes(t)) {
    console.error(`unknown target '${t}'; known: ${COMPILE_TARGETS.join(", ")}`);
    Deno.exit(1);
  }
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

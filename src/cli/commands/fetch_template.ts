/**
 * `bxp-cli --fetch-template ID`: prints a library template's whole config (JSON5, comments kept), ready
 * to be saved as `bxp-cli.json` and adapted.
 * @module
 */

import { suggestName } from "../../lang/mod.ts";
import { findTemplate } from "../../templates/mod.ts";
import { flagValue } from "../argv.ts";
import { loadLibrary } from "../../host/mod.ts";
import { writeStdout } from "./out.ts";

/** The `--fetch-template` mode (see `mod.ts`): runs with the whole argument vector, resolves with the exit code. */
export function run(args: readonly string[]): Promise<number> {
  const id = flagValue(args, "--fetch-template") ?? "";
  if (id === "") {
    console.error("error: --fetch-template needs a template id (see --list-templates)");
    return Promise.resolve(1);
  }
  const lib = loadLibrary();
  const t = findTemplate(lib, id);
  if (t === undefined) {
    const near = suggestName(id, lib.templates.map((x) => x.id));
    console.error(
      `error: no library template '${id}'${near === null ? "" : ` (did you mean '${near}'?)`}; ` +
        "see --list-templates",
    );
    return Promise.resolve(1);
  }
  writeStdout(t.text.endsWith("\n") ? t.text : t.text + "\n");
  return Promise.resolve(0);
}

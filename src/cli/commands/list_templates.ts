/**
 * `bxp-cli --list-templates`: the template library, one `id  description` line each (built-ins, then
 * templates from the program's and the user's `templates/` folders, marked with where they came from).
 * @module
 */

import { listText } from "../../templates/mod.ts";
import { loadLibrary } from "../../host/mod.ts";
import { writeStdout } from "./out.ts";

/** The `--list-templates` mode (see `mod.ts`): runs with the whole argument vector, resolves with the exit code. */
export function run(_args: readonly string[]): Promise<number> {
  const text = listText(loadLibrary());
  const out = text.split("\n").filter((l) => !l.startsWith("# ")).join("\n");
  const notes = text.split("\n").filter((l) => l.startsWith("# "));
  writeStdout(out);
  // Unusable files are worth a look but are not the listing: stderr.
  for (const n of notes) console.error(n.slice(2));
  return Promise.resolve(0);
}

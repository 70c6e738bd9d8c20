/**
 * A config's findings as a bxp-cli run prints them, shared by the conversion run and the partition
 * modes (a distributed run must say exactly what one bxp-cli run says).
 *
 * @module
 */

import { bxpCliLine, type Diagnostic } from "../config/mod.ts";

/**
 * A config finding as bxp-cli prints it, plus the place when bxp's line does not carry one: JSON syntax errors
 * get the source line and a caret under the column; other findings name their key path.
 */
export function configFindingText(label: string, d: Diagnostic, text: string): string {
  let line = bxpCliLine(label, d);
  if (line.startsWith("# ")) {
    line = "---\n" + line;
    if (d.line !== undefined && d.col !== undefined) {
      const source = text.split("\n")[d.line - 1]?.replace(/\r$/, "") ?? "";
      line += `\n${source}\n${" ".repeat(Math.max(0, d.col - 1))}^`;
    }
  } else if (d.path !== "" && !line.includes(d.path)) {
    line += ` (at ${d.path})`;
  }
  return line + "\n";
}

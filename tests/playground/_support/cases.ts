/**
 * bxp's conversion cases (`../shared/conformance/CASES.tsv`) read into memory for the playground tests:
 * the config text, the input files and the goldens. Cases with inputs other than CSV or JSON are left out.
 * @module
 */

import { fileURLToPath } from "node:url";

/** One case, loaded. */
export interface LoadedCase {
  dir: string;
  configText: string;
  configName: string;
  files: { name: string; bytes: Uint8Array; path: string }[];
  expected: { name: string; bytes: Uint8Array }[];
}

/** The CSV/JSON cases of CASES.tsv. */
export function readCases(root: URL): LoadedCase[] {
  const lines = Deno.readTextFileSync(new URL("CASES.tsv", root)).split("\n").slice(1);
  return lines.filter((l) => l.trim() !== "").map((l) => {
    const [dir, config, , inputs, expected] = l.split("\t");
    const src = new URL(dir + "/", root);
    return {
      dir,
      configName: config,
      configText: Deno.readTextFileSync(new URL(config, src)),
      files: inputs.split(";").map((name) => ({
        name,
        path: fileURLToPath(new URL(name, src)),
        bytes: Deno.readFileSync(new URL(name, src)),
      })),
      expected: expected.split(";").map((name) => ({ name, bytes: Deno.readFileSync(new URL(name, src)) })),
    };
  }).filter((c) => c.files.every((f) => /\.(csv|json)$/i.test(f.name)));
}

/** The output a golden `NAME.expected` stands for: `NAME.<ext>` among `outputs` (never an input). */
export function goldenOutput(
  golden: string,
  outputs: readonly string[],
  inputs: readonly string[],
): string | null {
  const stem = golden.slice(0, -".expected".length);
  for (const name of outputs) {
    if (inputs.includes(name)) continue;
    if (name.startsWith(stem + ".") && !name.slice(stem.length + 1).includes(".")) return name;
  }
  return null;
}

/**
 * The tools bxp-cli is compared with in the same run, on the same input, writing the same bytes: Miller
 * (`mlr`, Debian's `miller`) and DuckDB (`@duckdb/node-api` under the machine's Node, installed under
 * `.bench/` by `deno task bench:setup`). Both are optional: a missing one is reported, not fatal.
 *
 * bxp prints a numeric-looking expression result in canonical form (`884.10` -> `884.1`, `344.00` -> `344`),
 * so each peer canonicalises `amount` the same way to produce identical output.
 * @module
 */

import { fileURLToPath } from "node:url";
import { type BenchMode, COMPUTED_EXPRESSIONS } from "./config.ts";
import type { RunSpec } from "./measure.ts";

/** A peer found on this machine. */
export interface Peer {
  /** Short name used in the report ("Miller", "DuckDB"). */
  name: string;
  /** Version as the tool reports it. */
  version: string;
  /** How to run the equivalent transform of `input` into `output`. */
  command(mode: BenchMode, input: string, output: string): RunSpec;
  /** A floor rather than a tool doing the job: its output is the input itself (see {@link copyFloor}). */
  floor?: boolean;
}

/** Why a peer is absent, for the report. */
export interface MissingPeer {
  name: string;
  reason: string;
}

async function commandText(cmd: string, args: string[]): Promise<string | null> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "null", stdin: "null" })
      .output();
    return out.code === 0 ? new TextDecoder().decode(out.stdout).trim() : null;
  } catch {
    return null;
  }
}

// Each of bxp's three expressions, in Miller's DSL; checked against COMPUTED_EXPRESSIONS' names below.
const MILLER_COMPUTED: Record<string, string> = {
  date_iso: 'strftime(strptime($date, "%d.%m.%Y"), "%Y-%m-%d")',
  category: '$amount > 100 ? "high" : "low"',
  full_label: '$id . "-" . $name . "-" . $date',
};

/** Miller's `put` program for a mode: computed fields first, then the record with a canonical amount. */
export function millerProgram(mode: BenchMode): string {
  // Adding zero turns the text into Miller's number, which prints in the same shortest form bxp uses.
  const canonicalAmount = "$amount = $amount + 0";
  if (mode === "passthrough") return canonicalAmount;
  const fields = COMPUTED_EXPRESSIONS.map(([name]) => {
    const expr = MILLER_COMPUTED[name];
    if (expr === undefined) throw new Error(`no Miller equivalent for the computed column '${name}'`);
    return `"${name}": ${expr}`;
  });
  return `${canonicalAmount}; $* = mapsum({${fields.join(", ")}}, $*)`;
}

async function findMiller(): Promise<Peer | MissingPeer> {
  const version = await commandText("mlr", ["--version"]);
  if (version === null) {
    return { name: "Miller", reason: "`mlr` not found (deno task bench:setup installs it)" };
  }
  return {
    name: "Miller",
    version: version.replace(/^mlr\s+/, ""),
    command: (mode, input, output) => ({
      argv: ["mlr", "--icsv", "--ocsv", "put", millerProgram(mode), input],
      stdoutPath: output,
    }),
  };
}

async function findDuckDb(benchDir: string): Promise<Peer | MissingPeer> {
  const name = "DuckDB";
  const nodeVersion = await commandText("node", ["--version"]);
  if (nodeVersion === null) return { name, reason: "`node` not found" };
  let version: string;
  try {
    const pkg = JSON.parse(
      await Deno.readTextFile(`${benchDir}/node_modules/@duckdb/node-api/package.json`),
    ) as { version: string };
    version = pkg.version;
  } catch {
    return {
      name,
      reason: "@duckdb/node-api not installed under .bench/ (deno task bench:setup installs it)",
    };
  }
  const script = fileURLToPath(new URL("./duckdb_peer.mjs", import.meta.url));
  return {
    name,
    version: `node-api ${version} (Node ${nodeVersion})`,
    command: (mode, input, output) => ({ argv: ["node", script, benchDir, mode, input, output] }),
  };
}

/**
 * `cat in > out`: the least any conversion of the file costs on this machine at this moment (read the input,
 * write as many bytes), measured in the same rounds as the peers so the goals can be ratios to it.
 */
export function copyFloor(): Peer {
  return {
    name: "cat",
    version: "copy floor",
    floor: true,
    command: (_mode, input, output) => ({ argv: ["cat", input], stdoutPath: output }),
  };
}

/** The peers present on this machine, and the ones that are not with the reason. */
export async function findPeers(benchDir: string): Promise<{ peers: Peer[]; missing: MissingPeer[] }> {
  const found = await Promise.all([findMiller(), findDuckDb(benchDir)]);
  const peers: Peer[] = [];
  const missing: MissingPeer[] = [];
  for (const p of found) "command" in p ? peers.push(p) : missing.push(p);
  return { peers, missing };
}

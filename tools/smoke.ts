/**
 * `deno run -A tools/smoke.ts --bin-dir DIR | --from-source [--conformance DIR]`: the release smoke test.
 * Runs a pair of bxp-cli / bxp-mcp binaries (or this checkout's `deno run` entry points, with the same
 * permission flags) the way a user would, and fails on anything that only breaks in the shipped form: both
 * `--version`s, two conformance cases converted byte for byte, and bxp-mcp driven by the official MCP SDK client
 * (tools/list, bxp_eval, bxp_simulate through the bxp-cli beside it, refused writes, no process left).
 *
 * Exit status: 0 every check passed, 1 a check failed, 2 bad usage.
 * @module
 */

import { parseArgs } from "node:util";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fromBinDir, fromSource, type ProgramSet, runProgram } from "./smoke/programs.ts";
import { parseCases, runCase, SMOKE_CASES } from "./smoke/conformance.ts";
import { type Check, makeDecoys, readOnlySession, type SmokeDirs, writableSession } from "./smoke/mcp.ts";

const HELP = `deno run -A tools/smoke.ts (--bin-dir DIR | --from-source) [--conformance DIR]

Smoke-tests bxp-cli and bxp-mcp as shipped:
  1. prints both --version lines (they must name the same version);
  2. converts two conformance cases with bxp-cli (${SMOKE_CASES.join(", ")}) and compares every output
     byte for byte with its golden (skipped, with the reason, when the conformance folder is absent);
  3. starts bxp-mcp --root <temp> and, through the MCP SDK client, lists the tools, evaluates an expression
     and runs bxp_simulate, with a decoy bxp-cli first on PATH that fails loudly if it is run;
  4. checks that writes outside the root and writes without --allow-write are refused;
  5. checks that bxp-mcp exits by itself when the client closes, reported no worker failure, error or warning
     on stderr, and that no process of the run is left.

Flags:
  --bin-dir DIR       the folder holding bxp-cli and bxp-mcp (.exe on Windows), e.g. dist/x86_64-unknown-linux-gnu
  --from-source       run this checkout's deno run entry points with the flags of their deno.json tasks
  --conformance DIR   bxp's conformance data (default: ../shared/conformance beside the checkout)
  --help              print this help and exit

Exit status: 0 all checks passed, 1 a check failed, 2 bad usage.`;

const REPO_ROOT = new URL("../", import.meta.url);

function usage(message: string): never {
  console.error(`smoke: ${message} (see --help)`);
  Deno.exit(2);
}

let values: { "bin-dir"?: string; "from-source"?: boolean; conformance?: string; help?: boolean };
try {
  values = parseArgs({
    args: Deno.args,
    options: {
      "bin-dir": { type: "string" },
      "from-source": { type: "boolean" },
      conformance: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  }).values;
} catch (error) {
  usage(error instanceof Error ? error.message : String(error));
}
if (values.help) {
  console.log(HELP);
  Deno.exit(0);
}
if ((values["bin-dir"] === undefined) === (values["from-source"] !== true)) {
  usage("give exactly one of --bin-dir DIR and --from-source");
}

let set: ProgramSet;
try {
  set = values["bin-dir"] !== undefined
    ? await fromBinDir(values["bin-dir"], Deno.build.os)
    : await fromSource(REPO_ROOT, Deno.execPath());
} catch (error) {
  usage(error instanceof Error ? error.message : String(error));
}

const results: Check[] = [];
function report(check: Check): void {
  results.push(check);
  console.log(`${check.ok ? "ok  " : "FAIL"} ${check.what}`);
}

console.log(`bxp smoke test: ${set.label} (${Deno.build.target})`);
const base = await Deno.makeTempDir({ prefix: "bxp-smoke-" });
try {
  // 1. Versions.
  const versions: string[] = [];
  for (const entry of ["bxp-cli", "bxp-mcp"] as const) {
    const out = await runProgram(set.programs[entry], ["--version"]);
    const line = out.stdout.trim();
    console.log(`     ${line || `(${entry} printed nothing)`}`);
    versions.push(line.replace(/^\S+\s+/, ""));
    report({
      ok: out.code === 0 && line.startsWith(`${entry} `),
      what: `${entry} --version exits ${out.code}`,
    });
  }
  report({
    ok: versions[0] !== "" && versions[0] === versions[1],
    what: "both programs name the same version",
  });

  // 2. Conformance cases with bxp-cli.
  const conformance = values.conformance ?? resolve(fileURLToPath(REPO_ROOT), "../shared/conformance");
  let casesText: string | null = null;
  try {
    casesText = await Deno.readTextFile(join(conformance, "CASES.tsv"));
  } catch {
    console.log(`skip conformance cases: no CASES.tsv in ${conformance} (give --conformance DIR)`);
  }
  if (casesText !== null) {
    const cases = parseCases(casesText);
    for (const name of SMOKE_CASES) {
      const c = cases.find((x) => x.caseDir === name);
      if (c === undefined) {
        report({ ok: false, what: `conformance case ${name} is not listed in CASES.tsv` });
        continue;
      }
      const r = await runCase(set.programs["bxp-cli"], conformance, c, base);
      report({
        ok: r.problems.length === 0,
        what: r.problems.length === 0
          ? `bxp-cli ${name}: ${r.compared.join(", ")} identical to the goldens`
          : `bxp-cli ${name}: ${r.problems.join("; ")}`,
      });
    }
  }

  // 3-5. bxp-mcp through the SDK client.
  const dirs: SmokeDirs = {
    base,
    marker: basename(base),
    root: join(base, "root"),
    tmp: join(base, "tmp"),
    decoy: join(base, "decoy"),
    decoyMarker: join(base, "decoy-ran.txt"),
  };
  await Deno.mkdir(dirs.root);
  await Deno.mkdir(dirs.tmp);
  report(await makeDecoys(dirs, Deno.execPath()));
  for (const session of [writableSession, readOnlySession]) {
    try {
      for (const check of await session(set.programs["bxp-mcp"], dirs)) report(check);
    } catch (error) {
      report({
        ok: false,
        what: `${session.name}: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
} finally {
  await Deno.remove(base, { recursive: true }).catch(() => {});
}

const failed = results.filter((r) => !r.ok).length;
console.log(failed === 0 ? `smoke: all ${results.length} checks passed` : `smoke: ${failed} check(s) failed`);
Deno.exit(failed === 0 ? 0 : 1);

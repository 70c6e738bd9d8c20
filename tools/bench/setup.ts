/**
 * `deno task bench:setup`: installs the bench's optional peers. Miller from Debian's packages
 * (`apt-get install -y miller`, as root) and DuckDB's Node API from npm into `.bench/` (gitignored), run later
 * with the machine's Node. What is already there is left alone; what cannot be installed is said, not fatal.
 * @module
 */

import { fileURLToPath } from "node:url";

/** The DuckDB Node API release the bench is written against. */
export const DUCKDB_NODE_API = "@duckdb/node-api@1.5.6-r.1";

const BENCH_DIR = fileURLToPath(new URL("../../.bench/", import.meta.url));

async function succeeds(cmd: string, args: string[], quiet = true): Promise<boolean> {
  try {
    const out = await new Deno.Command(cmd, {
      args,
      stdin: "null",
      stdout: quiet ? "null" : "inherit",
      stderr: quiet ? "null" : "inherit",
    }).output();
    return out.code === 0;
  } catch {
    return false;
  }
}

async function setupMiller(): Promise<boolean> {
  if (await succeeds("mlr", ["--version"])) {
    console.log("Miller: already installed");
    return true;
  }
  if (Deno.uid() !== 0) {
    console.log(
      "Miller: not installed; run `apt-get install -y miller` as root (or install mlr 6 another way)",
    );
    return false;
  }
  console.log("Miller: apt-get install -y miller");
  const install = ["-y", "-q", "install", "miller"];
  if (!(await succeeds("apt-get", install, false))) {
    // A fresh machine may have no package lists yet.
    await succeeds("apt-get", ["update", "-q"], false);
    if (!(await succeeds("apt-get", install, false))) {
      console.log("Miller: install failed; the bench will run without it");
      return false;
    }
  }
  return await succeeds("mlr", ["--version"]);
}

async function setupDuckDb(): Promise<boolean> {
  if (!(await succeeds("node", ["--version"]))) {
    console.log("DuckDB: needs Node (`node`) on PATH; the bench will run without it");
    return false;
  }
  await Deno.mkdir(BENCH_DIR, { recursive: true });
  console.log(`DuckDB: npm install --prefix .bench ${DUCKDB_NODE_API}`);
  const ok = await succeeds("npm", [
    "install",
    "--prefix",
    BENCH_DIR,
    "--no-audit",
    "--no-fund",
    DUCKDB_NODE_API,
  ], false);
  if (!ok) console.log("DuckDB: npm install failed; the bench will run without it");
  return ok;
}

const miller = await setupMiller();
const duckdb = await setupDuckDb();
console.log(`peers ready: Miller ${miller ? "yes" : "no"}, DuckDB ${duckdb ? "yes" : "no"}`);

// The DuckDB peer of the benchmark, run with the machine's Node (not Deno) so DuckDB runs as users run it:
//   node duckdb_peer.mjs <npm prefix holding @duckdb/node-api> <3expr|passthrough> <input.csv> <output.csv>
// It reads the workload as text columns and writes the same CSV bytes bxp-cli writes: the three computed
// columns first, then every input column, with `amount` in bxp's canonical number form (trailing fractional
// zeros trimmed, as bxp prints numeric-looking expression results).
import process from "node:process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [prefix, mode, input, output] = process.argv.slice(2);
if (!prefix || !output || (mode !== "3expr" && mode !== "passthrough")) {
  console.error("usage: node duckdb_peer.mjs <prefix> <3expr|passthrough> <input.csv> <output.csv>");
  process.exit(2);
}

const requireFromPrefix = createRequire(join(prefix, "package.json"));
const { DuckDBInstance } = await import(pathToFileURL(requireFromPrefix.resolve("@duckdb/node-api")).href);

const quoteText = (s) => `'${s.replaceAll("'", "''")}'`;
const source = `read_csv(${quoteText(input)}, header = true, all_varchar = true, delim = ',', quote = '"')`;
const amount = `rtrim(rtrim("amount", '0'), '.') AS "amount"`;
const computed = [
  `strftime(strptime("date", '%d.%m.%Y'), '%Y-%m-%d') AS date_iso`,
  `CASE WHEN CAST("amount" AS DECIMAL(18, 2)) > 100 THEN 'high' ELSE 'low' END AS category`,
  `"id" || '-' || "name" || '-' || "date" AS full_label`,
];
const columns = [...(mode === "3expr" ? computed : []), `* REPLACE (${amount})`];
const query = `COPY (SELECT ${columns.join(", ")} FROM ${source}) TO ${
  quoteText(output)
} (FORMAT csv, HEADER true, DELIMITER ',')`;

const instance = await DuckDBInstance.create(":memory:");
const connection = await instance.connect();
try {
  await connection.run(query);
} catch (err) {
  console.error(`duckdb peer failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  connection.closeSync?.();
}

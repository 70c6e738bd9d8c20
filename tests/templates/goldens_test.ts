/**
 * The seven built-in Wealthfolio templates reproduce bxp's goldens byte for byte: each library text is
 * written as the config of an empty folder holding the case's inputs, and the real bxp-cli runs it.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtinLibrary, findTemplate } from "../../src/templates/mod.ts";
import { CONFORMANCE_DIR, runBxpCli } from "../_support/processes.ts";

const DATASETS = CONFORMANCE_DIR === null ? "" : fileURLToPath(new URL("datasets/", CONFORMANCE_DIR));
const CASES = [
  "anycoin_to_wealthfolio",
  "revolutx_to_wealthfolio",
  "trading212_to_wealthfolio",
  "xtb1_cash_to_wealthfolio",
  "xtb1_closed_to_wealthfolio",
  "xtb2_cash_to_wealthfolio",
  "xtb2_closed_to_wealthfolio",
];

for (const id of CASES) {
  Deno.test({
    name: `templates: built-in ${id} reproduces bxp's golden`,
    ignore: DATASETS === "" || !existsSync(join(DATASETS, id)),
    async fn() {
      const template = findTemplate(builtinLibrary(), id);
      assert.ok(template, `${id} is in the library`);
      const work = await Deno.makeTempDir({ prefix: "bxp-tpl-" });
      try {
        const goldens: string[] = [];
        for (const e of Deno.readDirSync(join(DATASETS, id))) {
          if (e.name.endsWith(".expected")) goldens.push(e.name);
          else if (e.name !== "sample.json") {
            await Deno.copyFile(join(DATASETS, id, e.name), join(work, e.name));
          }
        }
        await Deno.writeTextFile(join(work, "bxp-cli.json"), template.text);
        const r = await runBxpCli(["--config", join(work, "bxp-cli.json")], { cwd: work });
        assert.equal(r.code, 0, r.stderr);
        assert.ok(goldens.length > 0);
        for (const golden of goldens) {
          const stem = golden.slice(0, -".expected".length);
          const out = [...Deno.readDirSync(work)].find((e) =>
            e.name.startsWith(stem + ".") && e.name.endsWith("csvx")
          );
          assert.ok(out, `an output for ${golden}`);
          const actual = await Deno.readTextFile(join(work, out.name));
          const expected = await Deno.readTextFile(join(DATASETS, id, golden));
          assert.equal(actual, expected, `${out.name} differs from ${golden}`);
          assert.deepEqual(
            await Deno.readFile(join(work, out.name)),
            await Deno.readFile(join(DATASETS, id, golden)),
          );
        }
      } finally {
        await Deno.remove(work, { recursive: true });
      }
    },
  });
}

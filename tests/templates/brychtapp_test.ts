/**
 * The five built-in brycht.app templates, run by the real bxp-cli on bxp's broker samples: the tracker's
 * eight columns in order, trades only, and rows checked by hand against the input lines.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtinLibrary, findTemplate } from "../../src/templates/mod.ts";
import { CONFORMANCE_DIR, runBxpCli } from "../_support/processes.ts";

const HEADER = "date,type,ticker,quantity,price,currency,fees,notes";

interface Case {
  id: string;
  dataset: string;
  rows: number;
  /** Lines that must appear in the combined output. */
  has: string[];
}

const CASES: Case[] = [
  {
    id: "anycoin_to_brychtapp",
    dataset: "anycoin_to_wealthfolio",
    rows: 15,
    // Order 1668007: paid 10001 CZK, filled 0.00774711 BTC.
    has: ["2024-08-07,BUY,BTC-EUR,0.00774711,1290933.005985457803,CZK,,00000000-0000-0000-0000-000000000019"],
  },
  {
    id: "revolutx_to_brychtapp",
    dataset: "revolutx_to_wealthfolio",
    rows: 15,
    has: [
      "2022-06-26,BUY,BTC-USD,0.001986,503524.67,CZK,,",
      "2024-11-10,SELL,SUI,0.33491802,69.99,CZK,0.35,",
    ],
  },
  {
    id: "trading212_to_brychtapp",
    dataset: "trading212_to_wealthfolio",
    rows: 17,
    // London quotes in pence: GBX becomes GBp; RIO maps to its Yahoo symbol.
    has: [
      "2022-05-16,BUY,GOOGL,0.03136462,2296.65,USD,,EOF000000000000017",
      "2024-04-25,BUY,RIO.L,0.24471174,5517,GBp,,EOF000000000000019",
    ],
  },
  {
    id: "xtb2_cash_to_brychtapp",
    dataset: "xtb2_cash_to_wealthfolio",
    rows: 9,
    // "OPEN BUY 2 @ 1170.00" on KOMB.CZ.
    has: ["2025-12-03,BUY,KOMB.PR,2,1170,,,1036472011"],
  },
  {
    id: "xtb2_closed_to_brychtapp",
    dataset: "xtb2_closed_to_wealthfolio",
    rows: 1,
    has: ["2025-12-30,SELL,PFE,1,25,,,2087960758"],
  },
];

for (const c of CASES) {
  Deno.test({
    name: `templates: built-in ${c.id} writes the tracker's columns`,
    ignore: CONFORMANCE_DIR === null,
    async fn() {
      const source = fileURLToPath(new URL(`datasets/${c.dataset}/`, CONFORMANCE_DIR!));
      const work = await Deno.makeTempDir({ prefix: "bxp-tpl-" });
      try {
        for (const e of Deno.readDirSync(source)) {
          if (e.name.endsWith(".csv")) await Deno.copyFile(join(source, e.name), join(work, e.name));
        }
        await Deno.writeTextFile(join(work, "bxp-cli.json"), findTemplate(builtinLibrary(), c.id)!.text);
        const r = await runBxpCli(["--config", join(work, "bxp-cli.json")], { cwd: work });
        assert.equal(r.code, 0, r.stderr);
        const combined = [...Deno.readDirSync(work)].find((e) => e.name.startsWith(`1-${c.id}-combined`));
        assert.ok(combined, "one combined output file");
        const lines = (await Deno.readTextFile(join(work, combined.name))).split("\n").filter((l) =>
          l !== ""
        );
        assert.equal(lines[0], HEADER);
        assert.equal(lines.length - 1, c.rows);
        for (const line of lines.slice(1)) {
          assert.match(line, /^\d{4}-\d{2}-\d{2},(BUY|SELL),/, "trades only, dated YYYY-MM-DD");
        }
        for (const want of c.has) assert.ok(lines.includes(want), `missing ${want}\n${lines.join("\n")}`);
      } finally {
        await Deno.remove(work, { recursive: true });
      }
    },
  });
}

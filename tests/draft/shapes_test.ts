/**
 * The drafter on samples written here in shapes real statements take: multi-section statements,
 * trailing-minus amounts, 12-hour times, tab-separated text with commas, unpadded `2012/4/5` dates,
 * `1111.0` ids and footers carrying totals. Each states the settings it expects (at least 97% must agree
 * over all of them), proves itself in memory, and a draft made from one month's statement still skips
 * the next month's footer, whose totals differ.
 */

import assert from "node:assert/strict";
import { draftConfig } from "../../src/draft/draft.ts";
import { selfCheck } from "../../src/draft/self_check.ts";
import { evalExpr } from "../../src/inspect/eval.ts";
import { type Expected, scoreDraft } from "./draft_score.ts";

const enc = (s: string) => new TextEncoder().encode(s);

const SAMPLES: Record<string, { text: string; expected: Expected }> = {
  // A preamble line, two sections each with its title, header and subtotal, a grand total: 3 data rows,
  // 5 skipped (the repeated header, the second section's title, two subtotals, the total); "Rent,
  // January" holds a comma, so the output is quoted; 01/16 settles month-first.
  "multi_section.csv": {
    text: "Statement,ACME Bank\nSection: Checking\nDate,Description,Amount\n01/15/2024,Coffee,-3.50\n" +
      '01/16/2024,"Rent, January",-1200.00\nSubtotal,,-1203.50\nSection: Savings\nDate,Description,Amount\n' +
      "01/20/2024,Interest,2.10\nSubtotal,,2.10\nTotal,,-1201.40\n",
    expected: {
      delimiter: ",",
      decimal: ".",
      header: 3,
      quoteOut: "double",
      skipped: 5,
      dates: { Date: "MM/DD/YYYY" },
    },
  },
  // German amounts with the minus at the end; dotted day-first dates.
  "trailing_minus.csv": {
    text: "Buchungstag;Verwendungszweck;Betrag\n05.01.2024;Miete;1.200,00-\n06.01.2024;Gehalt;3.500,00\n" +
      "17.01.2024;Kaffee;3,50-\n",
    expected: {
      delimiter: ";",
      decimal: ",",
      header: 1,
      quoteOut: "none",
      skipped: 0,
      dates: { Buchungstag: "DD.MM.YYYY" },
    },
  },
  // A 12-hour clock with AM/PM; 22 settles month-first.
  "twelve_hour.csv": {
    text: "Posted,Payee,Amount\n01/05/2024 09:05:33 PM,Shop,12.00\n01/22/2024 11:15:00 AM,Cafe,3.40\n" +
      "02/01/2024 12:00:01 AM,Rent,800.00\n",
    expected: {
      delimiter: ",",
      decimal: ".",
      header: 1,
      quoteOut: "none",
      skipped: 0,
      dates: { Posted: "MM/DD/YYYY ii:mm:ss A" },
    },
  },
  // Tabs between fields, commas inside the notes (a different number on each line): tab-separated,
  // and the notes' commas need quoting on output.
  "tabs.tsv": {
    text: "Ref\tName\tNote\tAmount\nA-1\tAlice\tpaid, thanks\t12.50\nA-2\tBob\tlate, again, sorry\t7.00\n" +
      "A-3\tCarol\tok\t1.25\nA-4\tDan\ta, b, c, d\t2.00\n",
    expected: { delimiter: "\t", decimal: ".", header: 1, quoteOut: "double", skipped: 0, dates: {} },
  },
  // Unpadded months and days: 'YYYY/M/D' reads 2012/4/5 as well as 2012/10/25.
  "unpadded.csv": {
    text: "date,amount\n2012/4/15,1\n2012/4/5,2\n2012/10/25,3\n",
    expected: {
      delimiter: ",",
      decimal: ".",
      header: 1,
      quoteOut: "none",
      skipped: 0,
      dates: { date: "YYYY/M/D" },
    },
  },
  // Ids written with a decimal point are identifiers: kept as "1111.0", not 1111.
  "ids.csv": {
    text: "Id,Order No,Amount\n1111.0,000123,12.50\n1112.0,000124,7.25\n",
    expected: {
      delimiter: ",",
      decimal: ".",
      header: 1,
      quoteOut: "none",
      skipped: 0,
      dates: {},
      identifiers: ["Id", "Order No"],
    },
  },
  // A French statement: semicolons, decimal commas, dates no day settles (03/01 ...): day-first because
  // of the file's locale signals; the footer carries the month's total inside its label.
  "releve.csv": {
    text: "Date d'operation;Libelle;Montant\n03/01/2023;Carte;-12,50\n04/01/2023;Virement;1 500,00\n" +
      '05/02/2023;Retrait;-40,00\nTotal mouvements: "13.754,20";;\n',
    expected: {
      delimiter: ";",
      decimal: ",",
      header: 1,
      quoteOut: "none",
      skipped: 1,
      dates: { "Date d'operation": "DD/MM/YYYY" },
    },
  },
  // A quoted "Transactions Total" row with the total in the amount column.
  "quoted_total.csv": {
    text:
      'Date,Description,Amount\n2024-03-01,Coffee,-3.50\n2024-03-02,Books,-20.00\n"Transactions Total",,"-23.50"\n',
    expected: {
      delimiter: ",",
      decimal: ".",
      header: 1,
      quoteOut: "none",
      skipped: 1,
      dates: { Date: "YYYY-MM-DD" },
    },
  },
};

Deno.test("draft: at least 97% of the drafted settings are right on the shapes written here, each proving itself", async () => {
  let compared = 0;
  let agreed = 0;
  const misses: string[] = [];
  for (const [name, { text, expected }] of Object.entries(SAMPLES)) {
    const s = await scoreDraft(name, enc(text), expected);
    compared += s.compared;
    agreed += s.agreed;
    misses.push(...s.misses);
    assert.ok(s.check.ok, `${name}: ${s.check.problems.join("; ")}\n${s.config}`);
  }
  const score = (100 * agreed) / compared;
  console.log(`shapes: ${agreed}/${compared} drafted settings right (${score.toFixed(1)}%)`);
  for (const m of misses) console.log(`  miss: ${m}`);
  assert.ok(score >= 97, `accuracy ${score.toFixed(1)}% is under 97%`);
});

Deno.test("draft: next month's footer, with other totals, is still skipped by the rule drafted from this month's", async () => {
  const name = "releve.csv";
  const draft = draftConfig(enc(SAMPLES[name].text), { sampleName: name });
  assert.match(draft.text, /NOT IS_DATE\(\[Date d'operation\], 'DD\/MM\/YYYY'\)/);
  const next = "Date d'operation;Libelle;Montant\n02/02/2023;Carte;-8,10\n" +
    '03/02/2023;Loyer;-700,00\n04/02/2023;Salaire;2 100,00\n06/02/2023;Frais;-1,00\nTotal mouvements: "9.001,90";;\n';
  const check = await selfCheck(draft.text, draft.templateId, name, enc(next), {
    dataRecords: 4,
    skipped: { "totals / notes at the end": 1 },
  });
  assert.ok(check.ok, check.problems.join("; "));
  assert.equal(check.rows_out, 4);
});

Deno.test("draft: a stated shape is written exactly (trailing minus, 12-hour time, ids)", () => {
  const out = (name: string) => {
    const d = draftConfig(enc(SAMPLES[name].text), { sampleName: name });
    return d.columns.map((c) => c.expression);
  };
  const evaluate = (e: string, h: string[], f: string[]) => JSON.parse(evalExpr(e, h, f)).value;
  const minus = out("trailing_minus.csv");
  assert.deepEqual(
    ["1.200,00-", "3.500,00", "3,50-"].map((v) => evaluate(minus[2], ["Betrag"], [v])),
    ["-1200", "3500", "-3.5"],
  );
  const twelve = out("twelve_hour.csv");
  assert.equal(evaluate(twelve[0], ["Posted"], ["01/05/2024 09:05:33 PM"]), "2024-01-05 21:05:33");
  const ids = out("ids.csv");
  assert.equal(ids[0], "AS_TEXT([Id])");
});

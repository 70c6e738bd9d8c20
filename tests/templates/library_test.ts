import assert from "node:assert/strict";
import { annotateConfig } from "../../src/inspect/annotate.ts";
import {
  buildLibrary,
  BUILTIN_TEXTS,
  builtinLibrary,
  fetchLibraryAnswer,
  fetchLibraryJson,
  findTemplate,
  listLibraryJson,
  listText,
} from "../../src/templates/mod.ts";

const IDS = [
  "anycoin_to_wealthfolio",
  "revolutx_to_wealthfolio",
  "trading212_to_wealthfolio",
  "xtb1_closed_to_wealthfolio",
  "xtb1_cash_to_wealthfolio",
  "xtb2_closed_to_wealthfolio",
  "xtb2_cash_to_wealthfolio",
  "anycoin_to_brychtapp",
  "revolutx_to_brychtapp",
  "trading212_to_brychtapp",
  "xtb2_cash_to_brychtapp",
  "xtb2_closed_to_brychtapp",
];

const mine = (id: string, description: string) =>
  `{ conversion_templates: { ${id}: { description: "${description}", data_dir: ".", file_pattern_in: ".csv",
     file_pattern_out: ".out.csv", input_schema: { $a: "[A]" }, output_schema: { a: "$a" } } } }`;

Deno.test("library: the twelve built-ins in bxp's order, each validating with no finding", () => {
  const lib = builtinLibrary();
  assert.deepEqual(lib.templates.map((t) => t.id), IDS);
  assert.equal(BUILTIN_TEXTS.length, 12);
  for (const t of lib.templates) {
    assert.ok(t.description.includes(" -> "), t.id);
    const r = annotateConfig(t.text, t.id);
    assert.equal(r.exitCode, 0, `${t.id}: ${r.json}`);
    assert.ok(!/"\$(err|warn|info)_/.test(r.json), `${t.id}: ${r.json}`);
  }
});

Deno.test("library: user files override built-ins by id, add new ones, and bad files are reported", () => {
  const lib = buildLibrary([
    {
      source: "program",
      origin: "/opt/bxp/templates/revolutx_to_wealthfolio.json5",
      name: "revolutx_to_wealthfolio.json5",
      text: mine("revolutx_to_wealthfolio", "mine (program)"),
    },
    {
      source: "user",
      origin: "~/u/revolutx_to_wealthfolio.json5",
      name: "revolutx_to_wealthfolio.json5",
      text: mine("revolutx_to_wealthfolio", "mine (user)"),
    },
    {
      source: "user",
      origin: "~/u/acme_bank.json5",
      name: "acme_bank.json5",
      text: mine("acme_bank", "Acme Bank -> ledger"),
    },
    { source: "user", origin: "~/u/wrong_name.json5", name: "wrong_name.json5", text: mine("other", "x") },
    { source: "user", origin: "~/u/broken.json5", name: "broken.json5", text: "{ conversion_templates: {" },
    { source: "user", origin: "~/u/notes.txt", name: "notes.txt", text: "ignored" },
  ]);
  const revolut = findTemplate(lib, "revolutx_to_wealthfolio");
  assert.equal(revolut?.description, "mine (user)");
  assert.equal(revolut?.source, "user");
  assert.equal(lib.templates.findIndex((t) => t.id === "revolutx_to_wealthfolio"), 1, "keeps its place");
  assert.equal(lib.templates.at(-1)?.id, "acme_bank");
  assert.equal(lib.problems.length, 2);
  assert.match(lib.problems[0], /wrong_name\.json5: declares template 'other'/);
  assert.match(lib.problems[1], /broken\.json5:1:\d+: /);
  const text = listText(lib);
  assert.match(
    text,
    /^revolutx_to_wealthfolio +mine \(user\) {2}\[user: ~\/u\/revolutx_to_wealthfolio\.json5\]$/m,
  );
  assert.match(text, /^# skipped .*broken\.json5/m);
});

Deno.test("library: bxp's list and fetch document shapes", () => {
  const lib = builtinLibrary();
  const list = JSON.parse(listLibraryJson(lib));
  assert.equal(list.templates.length, 12);
  assert.deepEqual(list.templates[0], {
    id: "anycoin_to_wealthfolio",
    data_dir: ".",
    file_pattern_in: ".csv",
    file_pattern_out: ".csvx",
    file_type_in: "csv",
    file_type_out: "csv",
    description: "Anycoin (crypto) -> Wealthfolio",
  });
  const fetched = fetchLibraryJson(lib, "xtb2_cash_to_wealthfolio");
  assert.equal(fetched.exitCode, 0);
  assert.equal(JSON.parse(fetched.json).xlsx_sheet.name, "Cash Operations");
  const missing = fetchLibraryJson(lib, "nope");
  assert.deepEqual([missing.exitCode, missing.notFound], [1, true]);
  assert.deepEqual(JSON.parse(missing.json), { $err_1: "template id 'nope' not found" });
});

Deno.test("library: the fetch answer for an unknown id names the library's ids", () => {
  const doc = JSON.parse(fetchLibraryAnswer(builtinLibrary(), "nope"));
  assert.equal(doc.$err_1, "template id 'nope' not found");
  assert.equal(doc.available.length, 12);
  assert.equal(
    JSON.parse(fetchLibraryAnswer(builtinLibrary(), "anycoin_to_brychtapp")).combined_output,
    true,
  );
});

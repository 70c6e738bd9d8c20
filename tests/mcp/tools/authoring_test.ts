/**
 * bxp_draft_template through the real bxp-mcp: a draft from inline text and from a windows-1250 file
 * under the root; the draft validates (bxp_validate) and simulates (bxp_simulate) every row; hostile
 * arguments are refused with a clear message.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ServerProcess, type Wire } from "../_support/server_process.ts";

function answer(w: Wire): Wire {
  return JSON.parse(w.result.content[0].text);
}

Deno.test("bxp_draft_template drafts, and the draft validates and simulates every row", async () => {
  const root = await Deno.makeTempDir({ prefix: "bxp-draft-mcp-" });
  // "Obec;Platí od;Počet\nTřebíč;01.02.2024;1 234,5\nLhota;15.03.2024;7,25\n" in windows-1250
  const cp1250 = new Uint8Array([
    ...new TextEncoder().encode("Obec;Plat"),
    0xed,
    ...new TextEncoder().encode(" od;Po"),
    0xe8,
    ...new TextEncoder().encode("et\nT"),
    0xf8,
    ...new TextEncoder().encode("eb"),
    0xed,
    0xe8,
    ...new TextEncoder().encode(";01.02.2024;1 234,5\nLhota;15.03.2024;7,25\n"),
  ]);
  await Deno.mkdir(join(root, "inbox"));
  await Deno.writeFile(join(root, "inbox", "obce.csv"), cp1250);
  const server = await ServerProcess.start(["--root", root]);
  try {
    await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
    await server.response(1);

    await server.call(2, "bxp_draft_template", {
      csv: 'id,when,amount,ok\n1,2024-01-05 10:00:00,"1,234.50",yes\n2,2024-01-06 11:30:00,7.25,no\n',
      file_name: "ledger.csv",
    });
    const inline = answer(await server.response(2));
    assert.equal(inline.ok, true);
    assert.equal(inline.template_id, "ledger");
    // `id` is an identifier (its header says so): kept as written (AS_TEXT), so its kind is text.
    assert.deepEqual(inline.columns.map((c: Wire) => c.kind), ["text", "datetime", "decimal", "boolean"]);
    assert.equal(inline.columns[1].format, "YYYY-MM-DD hh:mm:ss");

    await server.call(3, "bxp_validate", { config: inline.config });
    const validated = answer(await server.response(3));
    assert.ok(!JSON.stringify(validated).includes("$err_"), JSON.stringify(validated));

    await server.call(4, "bxp_draft_template", { csv_path: "inbox/obce.csv" });
    const file = answer(await server.response(4));
    assert.equal(file.ok, true, JSON.stringify(file));
    assert.equal(file.detected.encoding, "windows-1250");
    assert.equal(file.detected.delimiter, ";");
    assert.equal(file.detected.decimal_separator, ",");
    assert.deepEqual(file.columns.map((c: Wire) => c.name), ["Obec", "Platí od", "Počet"]);
    assert.match(file.config, /csv_input_encoding: "windows-1250"/);

    await server.call(5, "bxp_simulate", {
      config: file.config,
      template: "obce",
      csv_path: "inbox/obce.csv",
    });
    const sim = (await server.response(5, 120_000)).result;
    const simText = sim.content.map((c: Wire) => c.text ?? "").join("\n");
    assert.equal(sim.isError, false, simText);
    assert.match(simText, /2 input records in obce\.csv -> 2 output records/);
    const report = JSON.stringify(sim.structuredContent);
    assert.match(report, /Třebíč,2024-02-01,1234\.5/);
    assert.match(report, /Lhota,2024-03-15,7\.25/);
  } finally {
    await server.dispose();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("bxp_draft_template refuses hostile or contradictory arguments", async () => {
  const root = await Deno.makeTempDir({ prefix: "bxp-draft-mcp-" });
  const server = await ServerProcess.start(["--root", root]);
  try {
    await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
    await server.response(1);
    const cases: [unknown, RegExp][] = [
      [{ csv_path: "../etc/passwd" }, /\.\./],
      [{ csv: "a\n1\n", csv_path: "x.csv" }, /either 'csv' or 'csv_path'/],
      [{ csv: "a\n1\n", template_id: "1; rm -rf" }, /'template_id'/],
      [{ csv: "a\n1\n", file_name: "../../x.csv" }, /'file_name'/],
      [{ csv: "a\n1\n", encoding: "ebcdic" }, /'encoding'/],
      [{ csv: "a\n1\n", delimiter: "::" }, /'delimiter'/],
      [{}, /missing 'csv'/],
      [{ csv: '[{"a": 1}]' }, /looks like JSON/],
    ];
    let id = 10;
    for (const [args, message] of cases) {
      await server.call(++id, "bxp_draft_template", args);
      const r = (await server.response(id)).result;
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(r.content[0].text, message);
    }
  } finally {
    await server.dispose();
    await Deno.remove(root, { recursive: true });
  }
});

/**
 * The Cyrillic code pages bxp lacks, Windows-1251 and ISO-8859-5, read and written exactly: every byte of the
 * high half decodes to the page's character and encodes back to the same byte (checked against the WHATWG
 * decoder the runtime ships), and a real bxp-cli run converts a cp1251 bank export to UTF-8 and back.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { decodeBytes, encodeString, parseEncoding } from "../../src/formats/encoding.ts";
import { runBxpCli } from "../_support/processes.ts";

for (const enc of ["windows-1251", "iso-8859-5"] as const) {
  Deno.test(`${enc}: every byte decodes as the page says and encodes back`, () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const text = decodeBytes(bytes, enc);
    assert.equal(text, new TextDecoder(enc).decode(bytes));
    const back = encodeString(text, enc);
    // Bytes whose slot the page leaves undefined decode to a C1 control and come back as themselves too.
    assert.deepEqual([...back], [...bytes]);
  });
}

Deno.test("cp1251 and iso8859-5 are accepted spellings", () => {
  assert.equal(parseEncoding("CP1251"), "windows-1251");
  assert.equal(parseEncoding("win1251"), "windows-1251");
  assert.equal(parseEncoding("ISO8859-5"), "iso-8859-5");
});

Deno.test("bxp-cli converts a windows-1251 export to UTF-8 and to ISO-8859-5", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-cyrillic-" });
  try {
    const csv = "Дата;Сумма;Назначение\n01.02.2024;1500,00;Оплата за услуги\n";
    await Deno.writeFile(join(dir, "in.csv"), encodeString(csv, "windows-1251"));
    for (const [out, suffix] of [["utf-8", ".utf8.csv"], ["iso-8859-5", ".iso.csv"]] as const) {
      await Deno.writeTextFile(
        join(dir, "bxp-cli.json"),
        `{ conversion_templates: { t: {
          data_dir: ".", file_pattern_in: ".csv", file_pattern_out: "${suffix}",
          csv_delimiter_in: ";", csv_input_encoding: "cp1251", csv_output_encoding: "${out}",
          input_schema: { $d: "[Дата]", $p: "UPPER([Назначение])" },
          row_rules: [{ when: "TRUE", rows: [{}] }], output_schema: { date: "$d", purpose: "$p" },
        } } }`,
      );
      const r = await runBxpCli(["--config", join(dir, "bxp-cli.json")]);
      assert.equal(r.code, 0, r.stderr);
      const written = await Deno.readFile(join(dir, `in${suffix}`));
      assert.equal(decodeBytes(written, out), "date,purpose\n01.02.2024,ОПЛАТА ЗА УСЛУГИ\n");
      await Deno.remove(join(dir, `in${suffix}`)); // not an input of the next run
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

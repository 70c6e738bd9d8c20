import assert from "node:assert/strict";

import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";
import { sniffCsv } from "../../src/draft/sniff.ts";
import { inferDateFormat } from "../../src/draft/dates.ts";
import { numberShape } from "../../src/draft/numbers.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const SHARED = fileURLToPath(new URL("../../../shared/conformance/", import.meta.url));

Deno.test("sniff: semicolons, decimal commas, a preamble and a totals footer", () => {
  const r = sniffCsv(enc(
    "Account statement\nClient: 42\n\nDate;Description;Amount;Paid\n" +
      "31.12.2024;Coffee;1 234,50;yes\n02.01.2025;Tea;-3,20;no\n15.01.2025;Cake;12,00;yes\nTotal;;1 243,30;\n",
  ));
  assert.deepEqual(r.encoding, "utf-8");
  assert.deepEqual(r.delimiter, ";");
  assert.deepEqual(r.decimalSeparator, ",");
  assert.deepEqual(r.thousands, " ");
  // bxp's csv_header_line counts non-empty lines: the blank third line does not count.
  assert.deepEqual(r.headerLine, 3);
  assert.deepEqual(r.headerPhysicalLine, 4);
  assert.deepEqual(r.preambleLines, 2);
  assert.deepEqual(r.footerLines, 1);
  assert.deepEqual(r.footerLineNumbers, [8]);
  assert.deepEqual(r.dataRecords, 3);
  assert.deepEqual(r.columns.map((c) => c.kind), ["date", "text", "decimal", "boolean"]);
  assert.deepEqual(r.columns[0].format, "DD.MM.YYYY");
  assert.deepEqual(r.columns[2].decimalSeparator, ",");
  assert.deepEqual(r.columns[3].booleans, ["yes", "no"]);
  assert.deepEqual(r.records[0], ["31.12.2024", "Coffee", "1 234,50", "yes"]);
});

Deno.test("sniff: ambiguous day/month order is a note, not a silent guess", () => {
  const r = sniffCsv(enc("when,qty\n01/02/2024,1\n03/04/2024,2\n"));
  assert.deepEqual(r.columns[0].format, "MM/DD/YYYY");
  assert(r.notes.some((n) => n.includes("'when'") && n.includes("no day above 12")), r.notes.join("\n"));
  const settled = sniffCsv(enc("when,qty\n01/02/2024,1\n25/04/2024,2\n"));
  assert.deepEqual(settled.columns[0].format, "DD/MM/YYYY");
  assert(!settled.notes.some((n) => n.includes("no day above 12")));
});

Deno.test("sniff: a UTF-8 byte-order mark, tabs and quoted fields", () => {
  const bytes = new Uint8Array([
    0xef,
    0xbb,
    0xbf,
    ...enc('id\tnote\tat\n1\t"two\tparts"\t2024-01-05 10:00:00\n2\tx\t2024-01-06 11:30:00\n'),
  ]);
  const r = sniffCsv(bytes);
  assert.deepEqual(r.bom, true);
  assert.deepEqual(r.delimiter, "\t");
  assert.deepEqual(r.quote, "double");
  assert.deepEqual(r.columns[0].name, "id");
  assert.deepEqual(r.columns[2].kind, "datetime");
  assert.deepEqual(r.columns[2].format, "YYYY-MM-DD hh:mm:ss");
  assert.deepEqual(r.records[0][1], "two\tparts");
});

Deno.test("sniff: windows-1250 bytes (Czech) are told from windows-1252", () => {
  // "Číslo;Obec\n1;Třebíč\n2;Dolní Lhota\n" in windows-1250
  const bytes = new Uint8Array([
    0xc8,
    0xed,
    0x73,
    0x6c,
    0x6f,
    0x3b,
    0x4f,
    0x62,
    0x65,
    0x63,
    0x0a,
    0x31,
    0x3b,
    0x54,
    0xf8,
    0x65,
    0x62,
    0xed,
    0xe8,
    0x0a,
    0x32,
    0x3b,
    0x44,
    0x6f,
    0x6c,
    0x6e,
    0xed,
    0x20,
    0x4c,
    0x68,
    0x6f,
    0x74,
    0x61,
    0x0a,
  ]);
  const r = sniffCsv(bytes);
  assert.deepEqual(r.encoding, "windows-1250");
  assert.deepEqual(r.columns.map((c) => c.name), ["Číslo", "Obec"]);
  assert.deepEqual(r.records[0], ["1", "Třebíč"]);
  assert.deepEqual(sniffCsv(bytes, { encoding: "cp1252" }).encoding, "windows-1252");
});

Deno.test("sniff: a cut sample says the footer could not be checked", () => {
  const body = "a,b\n" + Array.from({ length: 500 }, (_, i) => `${i},x${i}`).join("\n") + "\nTotal,\n";
  const r = sniffCsv(enc(body), { maxBytes: 200, maxRecords: 5 });
  assert.deepEqual(r.truncated, true);
  assert.deepEqual(r.footerLines, 0);
  assert.deepEqual(r.records.length, 5);
  assert(r.notes.some((n) => n.includes("footer lines")));
});

Deno.test("sniff: empty input gives no columns and a note", () => {
  const r = sniffCsv(new Uint8Array());
  assert.deepEqual(r.columns, []);
  assert(r.notes.includes("the sample holds no records"));
});

Deno.test("dates: formats by shape, and non-dates are refused", () => {
  assert.deepEqual(inferDateFormat(["2023-12-23T06:20:20.182Z"])?.format, "YYYY-MM-DD[T]hh:mm:ss[*]");
  assert.deepEqual(
    inferDateFormat(["26 Jun 2022, 16:02:36", "1 Jul 2022, 09:00:00"])?.format,
    "D MMM YYYY, hh:mm:ss",
  );
  assert.deepEqual(inferDateFormat(["20240115", "20231231"])?.format, "YYYYMMDD");
  assert.deepEqual(inferDateFormat(["10000001"]), null);
  assert.deepEqual(inferDateFormat(["2024-02-30"]), null);
  assert.deepEqual(inferDateFormat(["2024-01-01", "01.02.2024"]), null);
});

Deno.test("numbers: separators and the one ambiguous shape", () => {
  assert.deepEqual(numberShape("1,234.56"), { integer: false, decimal: ".", thousands: "," });
  assert.deepEqual(numberShape("1.234,56"), { integer: false, decimal: ",", thousands: "." });
  assert.deepEqual(numberShape("1,234"), { integer: false, decimal: null, thousands: null });
  assert.deepEqual(numberShape("12 500"), { integer: true, decimal: null, thousands: " " });
  assert.deepEqual(numberShape("$12.99"), null);
});

Deno.test({
  name: "sniff: the windows-1250 RUIAN export of the conformance data",
  ignore: !existsSync(SHARED),
  fn() {
    const r = sniffCsv(Deno.readFileSync(`${SHARED}datasets/ruian_zip_demo/obec_B.csv`));
    assert.deepEqual([r.encoding, r.delimiter, r.headerLine], ["windows-1250", ";", 1]);
    assert.deepEqual(r.columns[2].name, "Název obce");
    assert.deepEqual(r.columns.at(-1)?.format, "YYYY-MM-DD[T]hh:mm:ss");
  },
});

Deno.test("numbers: a phone number is not a space-grouped integer", () => {
  assert.equal(numberShape("+420 776 123 456"), null);
  assert.deepEqual(numberShape("-1 234"), { integer: true, decimal: null, thousands: " " });
});

import { NEEDS_CONFORMANCE } from "../_support/conformance.ts";
import assert from "node:assert/strict";
import {
  columnIndex,
  decodeXmlEntities,
  excelSerialToDateTime,
  extractSheetCsv,
  intermediateCsvName,
  isDateFormatCode,
  XlsxError,
  xlsxRowsToCsv,
  XlsxWorkbook,
} from "../../src/formats/xlsx.ts";
import { zipSync } from "fflate";
import { bytesReader } from "../../src/formats/zip/archive.ts";
import { parseCsvBytes } from "../../src/formats/csv_reader.ts";
import { buildXlsx, type Cell } from "../_support/xlsx_builder.ts";

const CONFORMANCE = new URL("../../../shared/conformance/", import.meta.url);

const NUMERIC = /^-?\d+(\.\d+)?$/;

Deno.test(
  "a workbook built from the xtb1 intermediate CSV reads back to the same CSV bytes",
  NEEDS_CONFORMANCE,
  async () => {
    const csvBytes = await Deno.readFile(
      new URL("datasets/xtb1_cash_to_wealthfolio/sample_2025-12-01_2025-12-31_cash.csv", CONFORMANCE),
    );
    const { records } = parseCsvBytes(csvBytes, { delimiter: ",", quote: "double", encoding: "utf-8" }, {
      trim: false,
    });
    const rows = new Map<number, Cell[]>();
    rows.set(1, ["XTB statement"]);
    rows.set(3, ["Account", "12345"]);
    records.forEach((r, i) => {
      rows.set(11 + i, r.fields.map((f) => NUMERIC.test(f) ? { xml: `<c r="REF"><v>${f}</v></c>` } : f));
    });
    const xlsx = buildXlsx([
      { name: "SUMMARY", rows: new Map([[1, ["nothing here"]]]) },
      { name: "CASH OPERATION 28022026", rows, firstColumn: 1 }, // column A left blank as a margin
    ]);
    const got = await extractSheetCsv(xlsx, { name: "CASH OPERATION", headerRow: 11 });
    assert.ok(got);
    assert.equal(got.sheetName, "CASH OPERATION 28022026");
    assert.equal(got.csv, new TextDecoder().decode(csvBytes));
  },
);

Deno.test("cell rendering: types, numbers, dates, gaps, padding and quoting", async () => {
  const rows = new Map<number, Cell[]>([
    [2, ["", "Name", "Amount", "When", "Flag", "Note"]],
    [3, [
      "",
      "Alpha",
      { xml: '<c r="REF"><v>1.2500</v></c>' },
      { xml: '<c r="REF" s="1"><v>45992.5</v></c>' },
      { xml: '<c r="REF" t="b"><v>1</v></c>' },
      'say "hi", ok',
    ]],
    [4, [
      "",
      { xml: '<c r="REF" t="inlineStr"><is><t>in&amp;line</t></is></c>' },
      { xml: '<c r="REF"><v>2.087960758E9</v></c>' },
      { xml: '<c r="REF" s="2"><v>25569.75</v></c>' },
      { xml: '<c r="REF" t="b"><v>0</v></c>' },
      { xml: '<c r="REF" t="e"><v>#DIV/0!</v></c>' },
      "beyond the header width",
    ]],
    [5, ["", { xml: '<c r="REF" t="str"><f>A1</f><v>formula text</v></c>' }, {
      xml: '<c r="REF" s="3"><v>3.10</v></c>',
    }]],
    [6, ["", "", "", { xml: '<c r="REF" s="4"><v>7.50</v></c>' }]],
    [8, ["", "line1\nline2"]],
  ]);
  const wb = await XlsxWorkbook.open(bytesReader(buildXlsx([{ name: "Data", rows }])));
  assert.deepEqual(wb.sheetNames, ["Data"]);
  const shaped = await wb.sheetRows("Data", 2);
  assert.deepEqual(shaped, [
    ["Name", "Amount", "When", "Flag", "Note"],
    ["Alpha", "1.25", "2025-12-01 12:00:00", "TRUE", 'say "hi", ok'],
    ["in&line", "2087960758", "1970-01-01 18:00:00", "FALSE", ""],
    ["formula text", "3.1", "", "", ""],
    ["", "", "7.5", "", ""],
    ["line1\nline2", "", "", "", ""],
  ]);
  assert.equal(
    xlsxRowsToCsv(shaped.slice(0, 2)),
    'Name,Amount,When,Flag,Note\nAlpha,1.25,2025-12-01 12:00:00,TRUE,"say ""hi"", ok"\n',
  );
  assert.equal(xlsxRowsToCsv([["line1\nline2", ""]]), '"line1\nline2",\n');
});

Deno.test("rows before the header are ignored; a missing sheet gives null", async () => {
  const xlsx = buildXlsx([{
    name: "Report",
    rows: new Map([[1, ["title"]], [4, ["h1", "h2"]], [5, ["a", "b"]]]),
  }]);
  assert.equal((await extractSheetCsv(xlsx, { name: "Report", headerRow: 4 }))?.csv, "h1,h2\na,b\n");
  assert.equal(await extractSheetCsv(xlsx, { name: "Cash", headerRow: 1 }), null);
  assert.equal(
    (await extractSheetCsv(xlsx, { name: "Report", headerRow: 9 }))?.csv,
    "",
    "header row past the data",
  );
});

Deno.test("first sheet in workbook order wins among prefix matches", async () => {
  const xlsx = buildXlsx([
    { name: "Closed Positions old", rows: new Map([[1, ["old"]]]) },
    { name: "Closed Positions", rows: new Map([[1, ["new"]]]) },
  ]);
  assert.equal((await extractSheetCsv(xlsx, { name: "Closed Positions", headerRow: 1 }))?.csv, "old\n");
  assert.equal(
    (await XlsxWorkbook.open(bytesReader(xlsx))).findSheet("Closed Positions o"),
    "Closed Positions old",
  );
});

Deno.test("UTF-16 parts are refused", async () => {
  const xlsx = zipSync({
    "xl/workbook.xml": new Uint8Array([0xff, 0xfe, 0x3c, 0x00]),
  });
  await assert.rejects(
    () => XlsxWorkbook.open(bytesReader(xlsx)),
    (err: unknown) => err instanceof XlsxError && err.kind === "Utf16XmlUnsupported",
  );
  await assert.rejects(
    () => XlsxWorkbook.open(bytesReader(new Uint8Array([1, 2, 3]))),
    (err: unknown) => err instanceof XlsxError && err.kind === "XlsxCorrupt",
  );
});

Deno.test("helpers: column letters, entities, date formats, serials, names", () => {
  assert.deepEqual(["A1", "B", "Z9", "AA1", "BC23", "a1", "", "7"].map(columnIndex), [
    0,
    1,
    25,
    26,
    54,
    0,
    0,
    0,
  ]);
  assert.equal(
    decodeXmlEntities("a&amp;b &lt;&gt; &quot;&apos; &#65;&#x42; &nbsp; & x"),
    "a&b <> \"' AB &nbsp; & x",
  );
  assert.equal(decodeXmlEntities("&#xD800;"), "\uFFFD");
  assert.equal(isDateFormatCode("yyyy-mm-dd"), true);
  assert.equal(isDateFormatCode("[h]:mm"), true, "the m after the bracket counts");
  assert.equal(isDateFormatCode("[$USD-409]0.00"), false);
  assert.equal(isDateFormatCode('"day"0'), false);
  assert.equal(isDateFormatCode("General"), false);
  assert.equal(excelSerialToDateTime(25569), "1970-01-01 00:00:00");
  assert.equal(excelSerialToDateTime(45657.999999), "2024-12-31 23:59:59", "seconds are truncated");
  assert.equal(excelSerialToDateTime(1), "1899-12-31 00:00:00");
  assert.equal(intermediateCsvName("export_2025.xlsx", "_cash.csv"), "export_2025_cash.csv");
});

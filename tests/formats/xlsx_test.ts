import assert from "node:assert/strict";
import { zipSync } from "fflate";
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
import { parseCsvBytes } from "../../src/formats/csv_reader.ts";

const CONFORMANCE = new URL("../../../shared/conformance/", import.meta.url);
const enc = new TextEncoder();

function xmlEscape(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

function columnLetters(index: number): string {
  let s = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  }
  return s;
}

/** A cell to place: text goes to shared strings, numbers/raw XML are given explicitly. */
type Cell = string | { xml: string };

interface SheetDef {
  name: string;
  rows: Map<number, Cell[]>; // 1-based row -> cells from column `firstColumn`
  firstColumn?: number;
}

/** Build a minimal workbook: workbook + rels + shared strings + styles + one part per sheet. */
function buildXlsx(sheets: SheetDef[]): Uint8Array {
  const shared: string[] = [];
  const sharedIndex = new Map<string, number>();
  const sheetXml = sheets.map((sheet) => {
    let rowsXml = "";
    for (const [r, cells] of [...sheet.rows].sort((a, b) => a[0] - b[0])) {
      let cellsXml = "";
      cells.forEach((cell, i) => {
        const ref = columnLetters((sheet.firstColumn ?? 0) + i) + r;
        if (typeof cell === "string") {
          if (cell === "") return; // Excel writes no element for an empty cell
          let idx = sharedIndex.get(cell);
          if (idx === undefined) {
            idx = shared.length;
            shared.push(cell);
            sharedIndex.set(cell, idx);
          }
          cellsXml += `<c r="${ref}" t="s"><v>${idx}</v></c>`;
        } else {
          cellsXml += cell.xml.replaceAll("REF", ref);
        }
      });
      rowsXml += `<row r="${r}">${cellsXml}</row>`;
    }
    return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rowsXml}</sheetData></worksheet>`;
  });
  const workbook =
    `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${
      sheets.map((s, i) => `<sheet name="${xmlEscape(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join(
        "",
      )
    }</sheets></workbook>`;
  const rels =
    `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${
      sheets.map((_, i) =>
        `<Relationship Id="rId${
          i + 1
        }" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${
          i + 1
        }.xml"/>`
      ).join("")
    }<Relationship Id="rIdS" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;
  const sst =
    `<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${shared.length}">${
      shared.map((s) => `<si><t xml:space="preserve">${xmlEscape(s)}</t></si>`).join("")
    }</sst>`;
  // xf 0 general, 1 custom date-time (164), 2 built-in date (14), 3 "0.00" (not a date), 4 custom "[h]" elapsed
  const styles =
    `<?xml version="1.0"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
    `<numFmts count="2"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd hh:mm:ss"/><numFmt numFmtId="165" formatCode="&quot;h&quot;0.00"/></numFmts>` +
    `<cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs>` +
    `<cellXfs count="5"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/><xf numFmtId="14"/><xf numFmtId="2"/><xf numFmtId="165"/></cellXfs></styleSheet>`;
  const files: Record<string, Uint8Array> = {
    "[Content_Types].xml": enc.encode('<?xml version="1.0"?><Types/>'),
    "xl/workbook.xml": enc.encode(workbook),
    "xl/_rels/workbook.xml.rels": enc.encode(rels),
    "xl/sharedStrings.xml": enc.encode(sst),
    "xl/styles.xml": enc.encode(styles),
  };
  sheetXml.forEach((xml, i) => files[`xl/worksheets/sheet${i + 1}.xml`] = enc.encode(xml));
  return zipSync(files);
}

const NUMERIC = /^-?\d+(\.\d+)?$/;

Deno.test("a workbook built from the xtb1 intermediate CSV reads back to the same CSV bytes", async () => {
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
  const got = extractSheetCsv(xlsx, { name: "CASH OPERATION", headerRow: 11 });
  assert.ok(got);
  assert.equal(got.sheetName, "CASH OPERATION 28022026");
  assert.equal(got.csv, new TextDecoder().decode(csvBytes));
});

Deno.test("cell rendering: types, numbers, dates, gaps, padding and quoting", () => {
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
  const wb = new XlsxWorkbook(buildXlsx([{ name: "Data", rows }]));
  assert.deepEqual(wb.sheetNames, ["Data"]);
  const shaped = wb.sheetRows("Data", 2);
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

Deno.test("rows before the header are ignored; a missing sheet gives null", () => {
  const xlsx = buildXlsx([{
    name: "Report",
    rows: new Map([[1, ["title"]], [4, ["h1", "h2"]], [5, ["a", "b"]]]),
  }]);
  assert.equal(extractSheetCsv(xlsx, { name: "Report", headerRow: 4 })?.csv, "h1,h2\na,b\n");
  assert.equal(extractSheetCsv(xlsx, { name: "Cash", headerRow: 1 }), null);
  assert.equal(extractSheetCsv(xlsx, { name: "Report", headerRow: 9 })?.csv, "", "header row past the data");
});

Deno.test("first sheet in workbook order wins among prefix matches", () => {
  const xlsx = buildXlsx([
    { name: "Closed Positions old", rows: new Map([[1, ["old"]]]) },
    { name: "Closed Positions", rows: new Map([[1, ["new"]]]) },
  ]);
  assert.equal(extractSheetCsv(xlsx, { name: "Closed Positions", headerRow: 1 })?.csv, "old\n");
  assert.equal(new XlsxWorkbook(xlsx).findSheet("Closed Positions o"), "Closed Positions old");
});

Deno.test("UTF-16 parts are refused", () => {
  const xlsx = zipSync({
    "xl/workbook.xml": new Uint8Array([0xff, 0xfe, 0x3c, 0x00]),
  });
  assert.throws(
    () => new XlsxWorkbook(xlsx),
    (err: unknown) => err instanceof XlsxError && err.kind === "Utf16XmlUnsupported",
  );
  assert.throws(
    () => new XlsxWorkbook(new Uint8Array([1, 2, 3])),
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

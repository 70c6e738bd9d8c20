/**
 * Builds small .xlsx workbooks in tests (OOXML parts zipped with fflate), so no binary fixture is committed.
 * @module
 */

import { zipSync } from "fflate";

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
export type Cell = string | { xml: string };

export interface SheetDef {
  name: string;
  rows: Map<number, Cell[]>; // 1-based row -> cells from column `firstColumn`
  firstColumn?: number;
}

/**
 * Build a minimal workbook: workbook + rels + shared strings + styles + one part per sheet.
 * Styles: xf 0 general, 1 custom date-time, 2 built-in date (14), 3 "0.00", 4 custom "[h]".
 */
export function buildXlsx(sheets: SheetDef[]): Uint8Array {
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

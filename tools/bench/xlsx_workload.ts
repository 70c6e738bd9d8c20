/**
 * A large workbook for the container bench, written as a stream (fflate's streaming `Zip` and
 * `ZipDeflate`): one sheet `Data` whose rows mix shared strings, numbers and date-styled serials, grown
 * until the compressed file reaches the wanted size. Deterministic for a seed; nothing is held whole.
 *
 * The bench asks for 200 MB; the example writes a small one into a temporary folder and reads it back.
 *
 * @example
 * ```ts
 * import { writeXlsxWorkload, XLSX_COLUMNS } from "./xlsx_workload.ts";
 * import { unzipSync } from "fflate";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * try {
 *   const spec = { targetBytes: 3000, seed: 42, sharedStrings: 3 };
 *   const { rows, bytes } = await writeXlsxWorkload(`${dir}/book.xlsx`, spec);
 *   assert.ok(rows > 0 && bytes >= 3000);
 *   const parts = unzipSync(await Deno.readFile(`${dir}/book.xlsx`));
 *   const sheet = new TextDecoder().decode(parts["xl/worksheets/sheet1.xml"]);
 *   const header = /<row r="1">(.*?)<\/row>/.exec(sheet)![1];
 *   assert.deepEqual([...header.matchAll(/<t>(.*?)<\/t>/g)].map((m) => m[1]), XLSX_COLUMNS);
 *   assert.ok(sheet.includes(`<row r="${rows + 1}">`) && !sheet.includes(`<row r="${rows + 2}">`));
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 * @module
 */

import { Zip, ZipDeflate } from "fflate";

/** What to generate. */
export interface XlsxWorkloadSpec {
  /** Stop adding rows once the compressed output reaches this many bytes. */
  targetBytes: number;
  seed: number;
  /** Distinct shared strings (default 20 000). */
  sharedStrings?: number;
}

/** The sheet's header, in column order (the bench config reads these names). */
export const XLSX_COLUMNS: readonly string[] = [
  "id",
  "name",
  "date",
  "amount",
  "category",
  "qty",
  "ratio",
  "note",
];

const WORDS = ["alpha", "beta", "gamma", "delta", "sigma", "omega", "kappa", "zeta", "theta", "lambda"];

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function columnLetters(i: number): string {
  let s = "";
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

const LETTERS = XLSX_COLUMNS.map((_, i) => columnLetters(i));

function escapeXml(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`;
const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;
// Style 1: built-in date format 14; style 2: a custom date-time code; style 3: two decimals.
const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd hh:mm"/></numFmts><cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="164" applyNumberFormat="1"/><xf numFmtId="2" applyNumberFormat="1"/></cellXfs></styleSheet>`;

/**
 * Writes the workbook to `path` (through a `.partial` file) and answers its rows (header excluded) and size.
 */
export async function writeXlsxWorkload(
  path: string,
  spec: XlsxWorkloadSpec,
): Promise<{ rows: number; bytes: number }> {
  const next = rng(spec.seed);
  const partial = `${path}.partial`;
  const file = await Deno.open(partial, { write: true, create: true, truncate: true });
  let written = 0;
  let failure: unknown = null;
  const zip = new Zip((err, chunk) => {
    if (err !== null) {
      failure = err;
      return;
    }
    for (let at = 0; at < chunk.length;) at += file.writeSync(chunk.subarray(at));
    written += chunk.length;
  });
  const encoder = new TextEncoder();
  const small = (name: string, text: string) => {
    const part = new ZipDeflate(name, { level: 6 });
    zip.add(part);
    part.push(encoder.encode(text), true);
  };
  try {
    small("[Content_Types].xml", CONTENT_TYPES);
    small("_rels/.rels", ROOT_RELS);
    small("xl/workbook.xml", WORKBOOK);
    small("xl/_rels/workbook.xml.rels", WORKBOOK_RELS);
    small("xl/styles.xml", STYLES);
    const sharedCount = spec.sharedStrings ?? 20_000;
    let sst = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
      `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${sharedCount}" ` +
      `uniqueCount="${sharedCount}">`;
    for (let i = 0; i < sharedCount; i++) {
      const text = `${WORDS[i % WORDS.length]} ${i}${i % 7 === 0 ? ", with comma" : ""}${
        i % 11 === 0 ? ' & "quotes"' : ""
      }`;
      sst += `<si><t>${escapeXml(text)}</t></si>`;
    }
    small("xl/sharedStrings.xml", sst + "</sst>");

    // The sheet: level 1 keeps generation quick; the reader's work is the same at any level.
    const sheet = new ZipDeflate("xl/worksheets/sheet1.xml", { level: 1 });
    zip.add(sheet);
    let xml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
      `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
      `<row r="1">` +
      XLSX_COLUMNS.map((c, i) => `<c r="${LETTERS[i]}1" t="inlineStr"><is><t>${c}</t></is></c>`).join("") +
      `</row>`;
    let rows = 0;
    for (let r = 2; written < spec.targetBytes; r++) {
      const shared = () => Math.floor(next() * sharedCount);
      const serial = 40000 + Math.floor(next() * 9000);
      xml += `<row r="${r}">` +
        `<c r="A${r}"><v>${r - 1}</v></c>` +
        `<c r="B${r}" t="s"><v>${shared()}</v></c>` +
        `<c r="C${r}" s="${r % 3 === 0 ? 2 : 1}"><v>${
          r % 3 === 0 ? (serial + Math.floor(next() * 86400) / 86400).toFixed(6) : serial
        }</v></c>` +
        `<c r="D${r}" s="3"><v>${(next() * 100000 - 20000).toFixed(2)}</v></c>` +
        `<c r="E${r}" t="s"><v>${shared()}</v></c>` +
        `<c r="F${r}"><v>${Math.floor(next() * 1000)}</v></c>` +
        `<c r="G${r}"><v>${next().toPrecision(12)}</v></c>` +
        (r % 4 === 0 ? `<c r="H${r}" t="s"><v>${shared()}</v></c>` : "") +
        `</row>`;
      rows++;
      if (xml.length >= 1 << 20) {
        sheet.push(encoder.encode(xml));
        xml = "";
        if (failure !== null) throw failure;
      }
    }
    sheet.push(encoder.encode(xml + `</sheetData></worksheet>`), true);
    zip.end();
    if (failure !== null) throw failure;
    file.close();
    await Deno.rename(partial, path);
    return { rows, bytes: written };
  } catch (err) {
    try {
      file.close();
    } catch {
      // already closed
    }
    await Deno.remove(partial).catch(() => {});
    throw err;
  }
}

/**
 * The whole-text xlsx sheet reader as it was before the sheet was streamed, kept as the reference the
 * streaming reader must match byte for byte (tests only).
 * @module
 */

import { xlsxNumberText } from "../../src/formats/number_text.ts";

type XmlToken =
  | { kind: "open"; name: string; attrs: string; selfClose: boolean }
  | { kind: "close"; name: string }
  | { kind: "text"; text: string };

function* xmlTokens(src: string): Generator<XmlToken> {
  let pos = 0;
  const n = src.length;
  while (pos < n) {
    if (src.charCodeAt(pos) !== 60 /* < */) {
      let lt = src.indexOf("<", pos);
      if (lt === -1) lt = n;
      yield { kind: "text", text: src.substring(pos, lt) };
      pos = lt;
      continue;
    }
    const next = src.charCodeAt(pos + 1);
    if (next === 63 /* ? */) {
      pos = skipPast(src, pos, "?>");
      continue;
    }
    if (next === 33 /* ! */) {
      pos = src.startsWith("<!--", pos) ? skipPast(src, pos + 4, "-->") : skipPast(src, pos, ">");
      continue;
    }
    if (next === 47 /* / */) {
      let gt = src.indexOf(">", pos);
      if (gt === -1) gt = n;
      yield { kind: "close", name: src.substring(pos + 2, gt).trimEnd() };
      pos = gt + 1;
      continue;
    }
    pos++;
    const nameStart = pos;
    while (pos < n) {
      const c = src.charCodeAt(pos);
      if (c === 62 || c === 47 || isXmlSpace(c)) break;
      pos++;
    }
    const name = src.substring(nameStart, pos);
    while (pos < n && isXmlSpace(src.charCodeAt(pos))) pos++;
    const attrStart = pos;
    let quote = 0;
    while (pos < n) {
      const c = src.charCodeAt(pos);
      if (quote !== 0) {
        if (c === quote) quote = 0;
      } else if (c === 34 || c === 39) {
        quote = c;
      } else if (c === 62 || c === 47) {
        break;
      }
      pos++;
    }
    const attrs = src.substring(attrStart, pos).trimEnd();
    let selfClose = false;
    if (src.charCodeAt(pos) === 47) {
      selfClose = true;
      pos++;
    }
    if (src.charCodeAt(pos) === 62) pos++;
    if (name.length > 0) yield { kind: "open", name, attrs, selfClose };
  }
}

function skipPast(src: string, from: number, needle: string): number {
  const at = src.indexOf(needle, from);
  return at === -1 ? src.length : at + needle.length;
}

function isXmlSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

function localName(name: string): string {
  const colon = name.indexOf(":");
  return colon === -1 ? name : name.substring(colon + 1);
}

/** Raw value of attribute `name` (also matched with any namespace prefix, `id` finds `r:id`). */
function attr(attrs: string, name: string): string | null {
  let pos = 0;
  const n = attrs.length;
  while (pos < n) {
    while (pos < n && isXmlSpace(attrs.charCodeAt(pos))) pos++;
    if (pos >= n) break;
    const eq = attrs.indexOf("=", pos);
    if (eq === -1) break;
    const rawName = attrs.substring(pos, eq).trim();
    pos = eq + 1;
    if (pos >= n) break;
    const q = attrs.charCodeAt(pos);
    if (q !== 34 && q !== 39) {
      while (pos < n && !isXmlSpace(attrs.charCodeAt(pos))) pos++;
      continue;
    }
    pos++;
    let end = attrs.indexOf(String.fromCharCode(q), pos);
    if (end === -1) end = n;
    const value = attrs.substring(pos, end);
    pos = end + 1;
    if (rawName === name || (!name.includes(":") && rawName.endsWith(":" + name))) return value;
  }
  return null;
}

/** Decode XML entity and character references (lenient, as bxp). */
function decodeXmlEntities(raw: string): string {
  if (!raw.includes("&")) return raw;
  let out = "";
  let pos = 0;
  for (;;) {
    const amp = raw.indexOf("&", pos);
    if (amp === -1) return out + raw.substring(pos);
    out += raw.substring(pos, amp);
    const semi = raw.indexOf(";", amp + 1);
    if (semi === -1) {
      out += "&";
      pos = amp + 1;
      continue;
    }
    const entity = raw.substring(amp + 1, semi);
    pos = semi + 1;
    switch (entity) {
      case "amp":
        out += "&";
        continue;
      case "lt":
        out += "<";
        continue;
      case "gt":
        out += ">";
        continue;
      case "quot":
        out += '"';
        continue;
      case "apos":
        out += "'";
        continue;
    }
    if (entity.length > 1 && entity[0] === "#") {
      const hex = entity.length > 2 && entity[1] === "x";
      const digits = hex ? entity.substring(2) : entity.substring(1);
      const valid = hex ? /^[0-9a-fA-F]+$/.test(digits) : /^[0-9]+$/.test(digits);
      const cp = valid ? parseInt(digits, hex ? 16 : 10) : NaN;
      const ok = Number.isFinite(cp) && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
      out += String.fromCodePoint(ok ? cp : 0xfffd);
      continue;
    }
    out += "&" + entity + ";";
  }
}

/** 0-based column of a cell reference (`A1` -> 0, `AA7` -> 26); no letters gives 0, as bxp. */
function columnIndex(ref: string): number {
  let col = 0;
  for (let i = 0; i < ref.length; i++) {
    const c = ref.charCodeAt(i) | 0x20; // lower-case ASCII letters
    if (c < 97 || c > 122) break;
    col = col * 26 + (c - 96);
  }
  return col > 0 ? col - 1 : 0;
}

function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return [y, m, d];
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** An Excel serial (1900 system; 25569 = 1970-01-01) as `YYYY-MM-DD HH:MM:SS`, seconds truncated. */
function excelSerialToDateTime(serial: number): string {
  const whole = Math.floor(serial);
  const [y, m, d] = civilFromDays(whole - 25569);
  const secs = Math.floor((serial - whole) * 86400);
  const hh = Math.floor(secs / 3600);
  const mm = Math.floor((secs % 3600) / 60);
  const ss = secs % 60;
  return `${String(y).padStart(4, "0")}-${pad2(m)}-${pad2(d)} ${pad2(hh)}:${pad2(mm)}:${pad2(ss)}`;
}

const FLOAT_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function resolveCell(
  raw: string,
  type: string,
  style: number,
  shared: readonly string[],
  dateStyles: ReadonlySet<number>,
): string {
  if (type === "s") {
    const idx = /^\d+$/.test(raw) ? Number(raw) : -1;
    return idx >= 0 && idx < shared.length ? shared[idx] : "";
  }
  if (type === "inlineStr" || type === "str") return raw;
  if (type === "b") return raw === "1" ? "TRUE" : "FALSE";
  if (type === "e" || raw.length === 0) return "";
  if (dateStyles.has(style)) {
    if (!FLOAT_TEXT.test(raw)) return raw;
    return excelSerialToDateTime(Number(raw));
  }
  return xlsxNumberText(raw);
}

/** The old whole-text shared strings reader. */
export function parseSharedStrings(xml: string | undefined): string[] {
  const strings: string[] = [];
  if (xml === undefined) return strings;
  let inItem = false;
  let inText = false;
  let current = "";
  for (const tok of xmlTokens(xml)) {
    if (tok.kind === "open") {
      const tag = localName(tok.name);
      if (tag === "si") {
        inItem = true;
        current = "";
      } else if (inItem && tag === "t") {
        inText = true;
      }
    } else if (tok.kind === "close") {
      const tag = localName(tok.name);
      if (tag === "si") {
        inItem = false;
        inText = false;
        strings.push(current);
      } else if (tag === "t") {
        inText = false;
      }
    } else if (inText) {
      current += decodeXmlEntities(tok.text);
    }
  }
  return strings;
}

function parseUint(text: string | null, fallback: number): number {
  return text !== null && /^\d+$/.test(text) ? Number(text) : fallback;
}

/** The old whole-text sheet reader. */
export function readSheet(
  xml: string,
  headerRow: number,
  shared: readonly string[],
  dateStyles: ReadonlySet<number>,
): string[][] {
  const rows: string[][] = [];
  let cells: string[] = [];
  let colCount = 0;
  let skipCols = 0;
  let currentRow = 0;
  let inRow = false;
  let inCell = false;
  let inValue = false;
  let inInlineText = false;
  let cellCol = 0;
  let cellType = "";
  let cellStyle = 0;
  let value = "";
  for (const tok of xmlTokens(xml)) {
    if (tok.kind === "open") {
      const tag = localName(tok.name);
      if (tag === "row") {
        inRow = true;
        currentRow = parseUint(attr(tok.attrs, "r"), 0);
        cells = [];
      } else if (inRow && tag === "c") {
        // A self-closing <c/> never sees its </c>: like bxp, it contributes no cell.
        inCell = true;
        value = "";
        cellType = attr(tok.attrs, "t") ?? "";
        cellStyle = parseUint(attr(tok.attrs, "s"), 0);
        cellCol = columnIndex(attr(tok.attrs, "r") ?? "");
      } else if (inCell && tag === "v") {
        inValue = true;
      } else if (inCell && tag === "t") {
        inInlineText = true;
      }
    } else if (tok.kind === "close") {
      const tag = localName(tok.name);
      if (tag === "v") inValue = false;
      else if (tag === "t") inInlineText = false;
      else if (tag === "c") {
        inCell = false;
        inValue = false;
        inInlineText = false;
        if (currentRow >= headerRow) {
          while (cells.length <= cellCol) cells.push("");
          cells[cellCol] = resolveCell(value, cellType, cellStyle, shared, dateStyles);
        }
      } else if (tag === "row") {
        inRow = false;
        if (currentRow === headerRow) {
          skipCols = 0;
          while (skipCols < cells.length && cells[skipCols].length === 0) skipCols++;
          const header = cells.slice(skipCols);
          colCount = header.length;
          rows.push(header);
        } else if (currentRow > headerRow && colCount > 0) {
          const start = Math.min(skipCols, cells.length);
          const row = new Array<string>(colCount);
          for (let i = 0; i < colCount; i++) row[i] = cells[start + i] ?? "";
          rows.push(row);
        }
      }
    } else if (inValue || inInlineText) {
      value += decodeXmlEntities(tok.text);
    }
  }
  return rows;
}

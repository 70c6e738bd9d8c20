/**
 * The workbook parts a sheet needs besides itself: the sheet list (`xl/workbook.xml` and its relationships),
 * the shared strings and the date styles, each parsed from XML text with the streaming scanner.
 *
 * @example
 * ```ts
 * import { parseDateStyles } from "./parts.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   parseDateStyles('<cellXfs><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs>'),
 *   new Set([1]),
 * );
 * ```
 * @module
 */

import { attr, decodeXmlEntities, localName, scanXml, type XmlHandler } from "./xml.ts";

/** Why a workbook cannot be read. */
export type XlsxErrorKind = "Utf16XmlUnsupported" | "XlsxMissingPart" | "XlsxCorrupt";

/** A refused workbook; the message names the part. */
export class XlsxError extends Error {
  readonly kind: XlsxErrorKind;
  constructor(kind: XlsxErrorKind, message: string) {
    super(message);
    this.name = "XlsxError";
    this.kind = kind;
  }
}

/** The refusal of a part whose first bytes are a UTF-16 byte-order mark, or null. */
export function utf16Refusal(head: Uint8Array, part: string): XlsxError | null {
  const bom = head.length >= 2 &&
    ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff));
  return bom
    ? new XlsxError(
      "Utf16XmlUnsupported",
      `xlsx part '${part}' is UTF-16 encoded XML, which is not supported — re-save the workbook as a normal .xlsx`,
    )
    : null;
}

/** True for Excel's built-in date/time number formats. */
export function isBuiltinDateFormat(id: number): boolean {
  return (id >= 14 && id <= 22) || (id >= 45 && id <= 47);
}

/** True when a custom number format code shows a date or time (d/y/h/m outside quotes and brackets). */
export function isDateFormatCode(code: string): boolean {
  if (code.toLowerCase() === "general") return false;
  let inString = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (inString !== 0) {
      if (c === inString) inString = 0;
      continue;
    }
    if (c === 34 || c === 39) inString = c;
    else if (c === 91 /* [ */) {
      while (i < code.length && code.charCodeAt(i) !== 93) i++;
    } else if ("dDyYhHmM".includes(code[i])) return true;
  }
  return false;
}

function onOpen(open: (name: string, attrs: string) => void): XmlHandler {
  return { open, close() {}, text() {} };
}

function sheetPartPath(target: string): string {
  // bxp joins "xl/" + Target; a package-absolute Target ("/xl/...") is read from the package root.
  return target.startsWith("/") ? target.substring(1) : "xl/" + target;
}

/** Sheet names in workbook order and the part path of each. */
export function parseWorkbook(
  workbookXml: string | undefined,
  relsXml: string | undefined,
): [string[], Map<string, string>] {
  const ridToTarget = new Map<string, string>();
  if (relsXml !== undefined) {
    scanXml(
      relsXml,
      onOpen((name, attrs) => {
        if (localName(name) !== "Relationship") return;
        const type = attr(attrs, "Type");
        const id = attr(attrs, "Id");
        const target = attr(attrs, "Target");
        if (type === null || !type.endsWith("/worksheet") || id === null || target === null) return;
        ridToTarget.set(id, decodeXmlEntities(target));
      }),
    );
  }
  const names: string[] = [];
  const paths = new Map<string, string>();
  if (workbookXml === undefined) return [names, paths];
  scanXml(
    workbookXml,
    onOpen((tagName, attrs) => {
      if (localName(tagName) !== "sheet") return;
      const name = attr(attrs, "name");
      const rid = attr(attrs, "id");
      if (name === null || rid === null) return;
      const target = ridToTarget.get(rid);
      if (target === undefined) return;
      const decoded = decodeXmlEntities(name);
      if (!paths.has(decoded)) names.push(decoded);
      paths.set(decoded, sheetPartPath(target));
    }),
  );
  return [names, paths];
}

/**
 * Collects shared strings (all `<t>` runs of an `<si>` joined) from tokens fed in document order, refusing
 * to hold more than `maxChars` characters in all.
 */
export class SharedStrings implements XmlHandler {
  readonly strings: string[] = [];
  readonly #maxChars: number;
  #chars = 0;
  #inItem = false;
  #inText = false;
  #current = "";

  constructor(maxChars = Infinity) {
    this.#maxChars = maxChars;
  }

  open(name: string): void {
    const tag = localName(name);
    if (tag === "si") {
      this.#inItem = true;
      this.#current = "";
    } else if (this.#inItem && tag === "t") {
      this.#inText = true;
    }
  }

  close(name: string): void {
    const tag = localName(name);
    if (tag === "si") {
      this.#inItem = false;
      this.#inText = false;
      this.#chars += this.#current.length;
      if (this.#chars > this.#maxChars) {
        throw new XlsxError(
          "XlsxCorrupt",
          `xlsx part 'xl/sharedStrings.xml' holds more than ${this.#maxChars} characters of shared strings ` +
            `(the limit keeps memory bounded)`,
        );
      }
      this.strings.push(this.#current);
    } else if (tag === "t") {
      this.#inText = false;
    }
  }

  text(text: string): void {
    if (this.#inText) this.#current += decodeXmlEntities(text);
  }
}

/** The `cellXfs` indexes whose number format shows a date or time. */
export function parseDateStyles(xml: string | undefined): Set<number> {
  const dateXf = new Set<number>();
  if (xml === undefined) return dateXf;
  const customDate = new Set<number>();
  scanXml(
    xml,
    onOpen((name, attrs) => {
      if (localName(name) !== "numFmt") return;
      const id = attr(attrs, "numFmtId");
      const code = attr(attrs, "formatCode");
      if (id === null || code === null || !/^\d+$/.test(id)) return;
      if (isDateFormatCode(decodeXmlEntities(code))) customDate.add(Number(id));
    }),
  );
  let inCellXfs = false;
  let index = 0;
  scanXml(xml, {
    open(name, attrs) {
      const tag = localName(name);
      if (tag === "cellXfs") {
        inCellXfs = true;
      } else if (inCellXfs && tag === "xf") {
        const id = attr(attrs, "numFmtId");
        if (id !== null && /^\d+$/.test(id)) {
          const n = Number(id);
          if (isBuiltinDateFormat(n) || customDate.has(n)) dateXf.add(index);
        }
        index++;
      }
    },
    close(name) {
      if (localName(name) === "cellXfs") {
        inCellXfs = false;
        index = 0;
      }
    },
    text() {},
  });
  return dateXf;
}

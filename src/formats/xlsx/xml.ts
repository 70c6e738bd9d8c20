/**
 * The small XML scanner the xlsx reader needs (SpreadsheetML is plain: elements, attributes, text, entities),
 * fed text in pieces of any size. A token is handed over only once its end is in view, so a tag, a text run
 * or an entity split across pieces reads exactly as if the part had come whole; {@link XmlScanner.finish}
 * then reads what is left as the whole-text reader did at the end of its input (an unterminated tag runs to
 * the end).
 *
 * Rules (lenient, as bxp): `<?...?>`, `<!--...-->` and `<!...>` are skipped; `</name>` closes (name
 * trimmed at the end); an opening tag's attributes run to the first `>` or `/` outside quotes, and a `/`
 * right there makes it self-closing; text runs to the next `<`.
 *
 * @example
 * ```ts
 * import { XmlScanner } from "./xml.ts";
 * import assert from "node:assert/strict";
 * const seen: string[] = [];
 * const s = new XmlScanner({
 *   open: (name: string) => seen.push(`<${name}>`),
 *   close: (name: string) => seen.push(`</${name}>`),
 *   text: (text: string) => seen.push(text),
 * });
 * s.push("<v>4");
 * s.push("2</v>");
 * s.finish();
 * assert.deepEqual(seen, ["<v>", "42", "</v>"]); // the text is whole across pushes
 * ```
 * @module
 */

/** What a scanner reports, in document order. */
export interface XmlHandler {
  /** An opening (or self-closing) tag: raw name (prefix kept) and raw attribute text. */
  open(name: string, attrs: string, selfClose: boolean): void;
  /** A closing tag's raw name. */
  close(name: string): void;
  /** Raw text between tags (entities not decoded). */
  text(text: string): void;
}

/**
 * The same tokens as {@link XmlHandler}, given as bounds into the scanned text (no substrings are made, so
 * a hot reader such as the sheet's looks only at what it needs). Bounds are already trimmed as the string
 * handler's values are; `src` is only valid during the call.
 */
export interface RawXmlHandler {
  open(
    src: string,
    nameStart: number,
    nameEnd: number,
    attrStart: number,
    attrEnd: number,
    selfClose: boolean,
  ): void;
  close(src: string, start: number, end: number): void;
  text(src: string, start: number, end: number): void;
}

function isXmlSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

/** What `String.prototype.trim` removes (white space and line terminators). */
export function isTrimSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function trimEndAt(src: string, start: number, end: number): number {
  while (end > start && isTrimSpace(src.charCodeAt(end - 1))) end--;
  return end;
}

/** The string-valued handler over raw bounds. */
function stringsOf(h: XmlHandler): RawXmlHandler {
  return {
    open: (src, ns, ne, as, ae, selfClose) => h.open(src.substring(ns, ne), src.substring(as, ae), selfClose),
    close: (src, start, end) => h.close(src.substring(start, end)),
    text: (src, start, end) => h.text(src.substring(start, end)),
  };
}

function raw(h: XmlHandler | RawXmlHandler, isRaw: boolean): RawXmlHandler {
  return isRaw ? h as RawXmlHandler : stringsOf(h as XmlHandler);
}

/**
 * Scans `src` from `pos` and reports every complete token; answers where it stopped (the start of the first
 * token whose end is not in `src` yet), or `src.length` when `final` (then everything is reported).
 */
function scan(src: string, from: number, final: boolean, h: RawXmlHandler): number {
  let pos = from;
  const n = src.length;
  while (pos < n) {
    const start = pos;
    if (src.charCodeAt(pos) !== 60 /* < */) {
      let lt = src.indexOf("<", pos);
      if (lt === -1) {
        if (!final) return start;
        lt = n;
      }
      h.text(src, pos, lt);
      pos = lt;
      continue;
    }
    if (pos + 1 >= n && !final) return start;
    const next = src.charCodeAt(pos + 1);
    if (next === 63 /* ? */) {
      const at = src.indexOf("?>", pos);
      if (at === -1 && !final) return start;
      pos = at === -1 ? n : at + 2;
      continue;
    }
    if (next === 33 /* ! */) {
      if (n - pos < 4 && !final) return start;
      const comment = src.startsWith("<!--", pos);
      const at = comment ? src.indexOf("-->", pos + 4) : src.indexOf(">", pos);
      if (at === -1 && !final) return start;
      pos = at === -1 ? n : at + (comment ? 3 : 1);
      continue;
    }
    if (next === 47 /* / */) {
      let gt = src.indexOf(">", pos);
      if (gt === -1) {
        if (!final) return start;
        gt = n;
      }
      h.close(src, pos + 2, trimEndAt(src, pos + 2, gt));
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
    const nameEnd = pos;
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
    // The end of the tag must be in view: its `>` or `/`, and after a `/` the character that follows.
    if (!final && (pos >= n || (src.charCodeAt(pos) === 47 && pos + 1 >= n))) return start;
    const attrEnd = trimEndAt(src, attrStart, pos);
    let selfClose = false;
    if (src.charCodeAt(pos) === 47) {
      selfClose = true;
      pos++;
    }
    if (src.charCodeAt(pos) === 62) pos++;
    if (nameEnd > nameStart) h.open(src, nameStart, nameEnd, attrStart, attrEnd, selfClose);
  }
  return pos;
}

/** Scans XML text pushed in pieces; see the module notes. */
export class XmlScanner {
  readonly #handler: RawXmlHandler;
  /** Text of tokens not complete yet (the start of the next token onwards). */
  #rest = "";

  /** `raw`: the handler takes bounds ({@link RawXmlHandler}) instead of strings. */
  constructor(handler: XmlHandler | RawXmlHandler, raw_ = false) {
    this.#handler = raw(handler, raw_);
  }

  /** Reports every token completed by `text`. */
  push(text: string): void {
    if (text.length === 0) return;
    // Joined, not `+`: a concatenation is a rope, and every charCodeAt and indexOf of the scan would walk
    // through it (a 100 MB sheet scanned about a tenth slower); `join` makes one flat string.
    const src = this.#rest.length === 0 ? text : [this.#rest, text].join("");
    const stop = scan(src, 0, false, this.#handler);
    this.#rest = stop >= src.length ? "" : src.substring(stop);
  }

  /** Reports what is left, as the end of the document. */
  finish(): void {
    const src = this.#rest;
    this.#rest = "";
    if (src.length > 0) scan(src, 0, true, this.#handler);
  }
}

/**
 * Scans a whole text.
 *
 * @example
 * ```ts
 * import { scanXml } from "./xml.ts";
 * import assert from "node:assert/strict";
 * const opened: unknown[] = [];
 * scanXml("<a x='1'/>", { open: (n, a, s) => opened.push([n, a, s]), close() {}, text() {} });
 * assert.deepEqual(opened, [["a", "x='1'", true]]);
 * ```
 */
export function scanXml(src: string, handler: XmlHandler): void {
  scan(src, 0, true, stringsOf(handler));
}

/** The name without its namespace prefix (`x:row` -> `row`). */
export function localName(name: string): string {
  const colon = name.indexOf(":");
  return colon === -1 ? name : name.substring(colon + 1);
}

/**
 * Raw value of attribute `name` (a name without a prefix also matches with any namespace prefix, `id` finds
 * `r:id`); the first match wins. See {@link attrBounds}, which finds several at once.
 */
export function attr(attrs: string, name: string): string | null {
  const out = new Int32Array(2);
  attrBounds(attrs, 0, attrs.length, [name], out);
  return out[0] < 0 ? null : attrs.substring(out[0], out[1]);
}

/** Whether `src` holds `name` at `at` (a loop: attribute names are a character or two, and this runs per cell). */
function sameAt(src: string, at: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if (src.charCodeAt(at + i) !== name.charCodeAt(i)) return false;
  return true;
}

/** Where {@link nextAttribute} puts an attribute's name and value bounds (one scan at a time). */
const ATTR = new Int32Array(4);

/**
 * Reads the attribute at or after `pos` in `src[pos, end)`: answers the position after it, or -1 when no
 * further attribute is there. `at[0]`/`at[1]` bound its trimmed name, `at[2]`/`at[3]` its raw value between
 * the quotes (`at[2]` -1: an unquoted value, which no lookup matches). Searches stay within `end`: `src` is
 * a whole chunk of the part, not just this tag.
 */
function nextAttribute(src: string, pos: number, end: number, at: Int32Array): number {
  while (pos < end && isXmlSpace(src.charCodeAt(pos))) pos++;
  if (pos >= end) return -1;
  let eq = pos;
  while (eq < end && src.charCodeAt(eq) !== 61 /* = */) eq++;
  if (eq >= end) return -1;
  let ns = pos, ne = eq;
  while (ns < ne && isTrimSpace(src.charCodeAt(ns))) ns++;
  while (ne > ns && isTrimSpace(src.charCodeAt(ne - 1))) ne--;
  at[0] = ns;
  at[1] = ne;
  pos = eq + 1;
  if (pos >= end) return -1;
  const q = src.charCodeAt(pos);
  if (q !== 34 && q !== 39) {
    while (pos < end && !isXmlSpace(src.charCodeAt(pos))) pos++;
    at[2] = -1;
    return pos;
  }
  pos++;
  let vend = pos;
  while (vend < end && src.charCodeAt(vend) !== q) vend++;
  at[2] = pos;
  at[3] = vend;
  return vend + 1;
}

/**
 * Finds the attributes `names` in the attribute text `src[start, end)` in one pass: `out[2i]` and
 * `out[2i + 1]` are the bounds of the raw value of `names[i]` in `src`, or -1 when absent (the first match
 * wins; a name without a prefix also matches with any namespace prefix). Bounds instead of strings, so a
 * hot reader such as the sheet's makes no string for an attribute it parses.
 *
 * @example
 * ```ts
 * import { attrBounds } from "./xml.ts";
 * import assert from "node:assert/strict";
 * const src = '<c r="B2" x:t="s">';
 * const out = new Int32Array(4);
 * attrBounds(src, 3, 17, ["t", "r"], out);
 * assert.equal(src.slice(out[0], out[1]), "s");
 * assert.equal(src.slice(out[2], out[3]), "B2");
 * ```
 */
export function attrBounds(
  src: string,
  start: number,
  end: number,
  names: readonly string[],
  out: Int32Array,
): void {
  out.fill(-1);
  let left = names.length;
  for (let pos = start; left > 0 && pos < end && (pos = nextAttribute(src, pos, end, ATTR)) >= 0;) {
    if (ATTR[2] < 0) continue;
    const ns = ATTR[0], ne = ATTR[1];
    for (let i = 0; i < names.length; i++) {
      if (out[2 * i] !== -1) continue;
      const name = names[i];
      const len = ne - ns;
      // A name that has a prefix of its own matches only as written.
      const hit = (len === name.length && sameAt(src, ns, name)) ||
        (len > name.length && src.charCodeAt(ne - name.length - 1) === 58 /* : */ &&
          name.indexOf(":") === -1 && sameAt(src, ne - name.length, name));
      if (hit) {
        out[2 * i] = ATTR[2];
        out[2 * i + 1] = ATTR[3];
        left--;
      }
    }
  }
}

/**
 * {@link attrBounds} for names of one character each, such as a sheet's `r`, `t` and `s`, looked up for
 * every cell: the same matches, each attribute's name compared by its last character (and the `:` before
 * it, for a prefixed name) instead of against every name in turn.
 *
 * @example
 * ```ts
 * import { oneCharAttrBounds } from "./xml.ts";
 * import assert from "node:assert/strict";
 * const src = '<c r="B2" x:t="s">';
 * const out = new Int32Array(4);
 * oneCharAttrBounds(src, 3, 17, ["t", "r"], out);
 * assert.equal(src.slice(out[0], out[1]), "s");
 * ```
 */
export function oneCharAttrBounds(
  src: string,
  start: number,
  end: number,
  names: readonly string[],
  out: Int32Array,
): void {
  out.fill(-1);
  let left = names.length;
  for (let pos = start; left > 0 && pos < end && (pos = nextAttribute(src, pos, end, ATTR)) >= 0;) {
    const ns = ATTR[0], ne = ATTR[1];
    // `t` or `x:t` (any prefix): one character after the name's start or after its last `:`.
    if (ATTR[2] < 0 || ne === ns || (ne - ns > 1 && src.charCodeAt(ne - 2) !== 58 /* : */)) continue;
    const last = src.charCodeAt(ne - 1);
    for (let i = 0; i < names.length; i++) {
      if (out[2 * i] === -1 && names[i].charCodeAt(0) === last) {
        out[2 * i] = ATTR[2];
        out[2 * i + 1] = ATTR[3];
        left--;
      }
    }
  }
}

/** Decode XML entity and character references (lenient, as bxp). */
export function decodeXmlEntities(raw: string): string {
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

import assert from "node:assert/strict";
import {
  createDecoder,
  decodeBytes,
  decodeSingleByte,
  encodeString,
  hasUtf8Bom,
  parseEncoding,
  requireEncoding,
  stripUtf8Bom,
  SUPPORTED_ENCODINGS,
  utf8ByteLength,
} from "../../src/formats/encoding.ts";

Deno.test("config spellings and aliases resolve to canonical names", () => {
  assert.equal(parseEncoding("UTF8"), "utf-8");
  assert.equal(parseEncoding("cp1250"), "windows-1250");
  assert.equal(parseEncoding("Win1252"), "windows-1252");
  assert.equal(parseEncoding("latin1"), "iso-8859-1");
  assert.equal(parseEncoding("LATIN-2"), "iso-8859-2");
  assert.equal(parseEncoding("latin9"), "iso-8859-15");
  assert.equal(parseEncoding("shift-jis"), null);
  assert.throws(() => requireEncoding("koi8-r"), /unsupported encoding 'koi8-r'/);
});

Deno.test("code page tables match the published mappings", () => {
  assert.equal(decodeBytes(new Uint8Array([0x50, 0xf8, 0xed, 0x6c, 0x69, 0x9a]), "windows-1250"), "Příliš");
  assert.equal(decodeSingleByte(0xb9, "windows-1250"), "ą");
  assert.equal(decodeSingleByte(0x93, "windows-1252"), "\u201c");
  assert.equal(decodeSingleByte(0x80, "windows-1252"), "€");
  assert.equal(decodeSingleByte(0x80, "iso-8859-1"), "\u0080", "Latin-1 is the identity, not windows-1252");
  assert.equal(decodeSingleByte(0xe9, "iso-8859-1"), "é");
  assert.equal(decodeSingleByte(0xb9, "iso-8859-2"), "š");
  assert.equal(decodeSingleByte(0xa4, "iso-8859-15"), "€");
  assert.equal(decodeSingleByte(0xa4, "iso-8859-1"), "¤");
  assert.equal(decodeSingleByte(0x81, "windows-1250"), "\u0081", "undefined slot keeps its byte value");
});

Deno.test("every single-byte page round-trips all 256 bytes", () => {
  for (const enc of SUPPORTED_ENCODINGS) {
    if (enc === "utf-8") continue;
    const all = new Uint8Array(256).map((_, i) => i);
    const text = decodeBytes(all, enc);
    assert.equal(text.length, 256, enc);
    assert.deepEqual(encodeString(text, enc), all, enc);
  }
});

Deno.test("unrepresentable characters become one ? each", () => {
  assert.deepEqual([...encodeString("a€b", "iso-8859-1")], [0x61, 0x3f, 0x62]);
  assert.deepEqual([...encodeString("😀", "windows-1250")], [0x3f], "a surrogate pair is one code point");
  assert.deepEqual([...encodeString("ř", "windows-1252")], [0x3f]);
  assert.deepEqual([...encodeString("ř", "windows-1250")], [0xf8]);
  assert.deepEqual([...encodeString("€", "iso-8859-15")], [0xa4]);
});

Deno.test("UTF-8 decoding never strips a BOM by itself and never throws", () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x41]);
  assert.equal(createDecoder("utf-8")(bom), "\uFEFFA");
  assert.equal(hasUtf8Bom(bom), true);
  assert.deepEqual(stripUtf8Bom(bom), new Uint8Array([0x41]));
  assert.deepEqual(stripUtf8Bom(new Uint8Array([0x41])), new Uint8Array([0x41]));
  assert.equal(decodeBytes(new Uint8Array([0x41, 0xff, 0x42]), "utf-8"), "A\uFFFDB");
});

Deno.test("utf8ByteLength agrees with TextEncoder", () => {
  for (const s of ["", "abc", "Žluť", "€😀x", "\ud800x"]) {
    assert.equal(utf8ByteLength(s), new TextEncoder().encode(s).length, JSON.stringify(s));
  }
});

import assert from "node:assert/strict";
import { isValidUtf8Prefix } from "../../src/util/utf8.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("isValidUtf8Prefix: a character split after the last line feed is not judged", () => {
  const bytes = enc("a,b\nc€");
  assert.equal(isValidUtf8Prefix(bytes.subarray(0, bytes.length - 1)), true);
});

Deno.test("isValidUtf8Prefix: invalid bytes before the last line feed fail", () => {
  assert.equal(isValidUtf8Prefix(new Uint8Array([0x61, 0xc3, 0x28, 0x0a, 0x62])), false);
});

Deno.test("isValidUtf8Prefix: without a line feed the whole chunk is judged", () => {
  assert.equal(isValidUtf8Prefix(enc("héllo")), true);
  assert.equal(isValidUtf8Prefix(enc("€").subarray(0, 2)), false);
  assert.equal(isValidUtf8Prefix(new Uint8Array()), true);
});

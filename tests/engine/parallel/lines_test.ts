import assert from "node:assert/strict";
import { BlockSplitter, countRecords, skipRecords } from "../../../src/engine/parallel/lines.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("records are non-empty lines, CR-only lines included as empty", () => {
  assert.equal(countRecords(bytes("a\n\r\nb\nc"), 0, 8), 3);
  assert.equal(countRecords(bytes("\n\n"), 0, 2), 0);
  assert.equal(countRecords(bytes(" \n"), 0, 2), 1, "a line of spaces is a record");
});

Deno.test("skipRecords finds the body after a preamble and header, ignoring blank lines", () => {
  const text = bytes("pre\n\nhead\nrow\n");
  assert.equal(skipRecords(text, 0, 2), 10);
  assert.equal(skipRecords(text, 0, 4), -1);
});

Deno.test("the splitter cuts only at line ends and loses no byte, whatever the chunking", () => {
  const text = Array.from({ length: 500 }, (_, i) => `row${i},${"x".repeat(i % 37)}`).join("\n") + "\nlast";
  const all = bytes(text);
  for (const chunk of [1, 7, 64, 1000, all.length]) {
    const s = new BlockSplitter(100, 10_000, () => {
      throw new Error("too long");
    });
    const blocks: Uint8Array[] = [];
    for (let i = 0; i < all.length; i += chunk) blocks.push(...s.push(all.subarray(i, i + chunk)));
    const rest = s.finish();
    if (rest) blocks.push(rest);
    for (const b of blocks.slice(0, -1)) assert.equal(b[b.length - 1], 10, "blocks end with a line feed");
    assert.equal(new TextDecoder().decode(new Uint8Array(blocks.flatMap((b) => [...b]))), text);
  }
});

Deno.test("a line that never ends trips the guard instead of growing without bound", () => {
  const s = new BlockSplitter(16, 64, () => {
    throw new Error("no line break");
  });
  assert.throws(() => s.push(bytes("y".repeat(200))), /no line break/);
});

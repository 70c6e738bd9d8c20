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

/**
 * The splitter's rule written plainly: every chunk appended to one buffer a block's size at a time, each
 * block cut from its front.
 */
function referenceBlocks(chunks: Uint8Array[], blockSize: number): Uint8Array[] {
  let buf = new Uint8Array(0);
  const blocks: Uint8Array[] = [];
  const pieces = chunks.flatMap((c) => {
    const out: Uint8Array[] = [];
    for (let at = 0; at < c.length; at += blockSize) out.push(c.subarray(at, at + blockSize));
    return out;
  });
  for (const chunk of pieces) {
    const joined = new Uint8Array(buf.length + chunk.length);
    joined.set(buf);
    joined.set(chunk, buf.length);
    buf = joined;
    while (buf.length >= blockSize) {
      let cut = buf.lastIndexOf(10, Math.min(buf.length, blockSize * 2) - 1);
      if (cut < 0) cut = buf.indexOf(10, blockSize * 2);
      if (cut < 0) break;
      blocks.push(buf.slice(0, cut + 1));
      buf = buf.slice(cut + 1);
    }
  }
  if (buf.length > 0) blocks.push(buf);
  return blocks;
}

/** A seeded generator of integers in [0, n). */
function seeded(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
}

/**
 * Lines from empty to several block sizes long (so cuts fall in the held bytes, the chunk and across),
 * ending with a line feed or not.
 */
function seededText(random: (n: number) => number, blockSize: number): Uint8Array {
  const lines: string[] = [];
  for (let i = random(60); i >= 0; i--) {
    lines.push("z".repeat(random(3) === 0 ? random(blockSize * 3) : random(20)));
  }
  return bytes(lines.join("\n") + (random(2) === 0 ? "\n" : ""));
}

Deno.test("the splitter cuts where appending every chunk to one buffer would (seeded lines and chunkings)", () => {
  const random = seeded(7);
  for (let round = 0; round < 200; round++) {
    const blockSize = 8 + random(120);
    const all = seededText(random, blockSize);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < all.length;) {
      const size = 1 + random(random(2) === 0 ? blockSize * 3 : 16);
      chunks.push(all.slice(at, at + size));
      at += size;
    }
    const s = new BlockSplitter(blockSize, 1 << 20, () => {
      throw new Error("too long");
    });
    const blocks = chunks.flatMap((chunk) => s.push(chunk));
    const rest = s.finish();
    if (rest) blocks.push(rest);
    assert.deepEqual(blocks, referenceBlocks(chunks, blockSize), `round ${round}, block size ${blockSize}`);
  }
});

Deno.test("the guard allows exactly maxLineBytes without a line break, held back over several chunks", () => {
  const s = new BlockSplitter(16, 64, () => {
    throw new Error("no line break");
  });
  for (let i = 0; i < 8; i++) assert.deepEqual(s.push(bytes("y".repeat(8))), []);
  assert.throws(() => s.push(bytes("y")), /no line break/);
});

Deno.test("bytes read into the splitter's room are taken in place and cut as copied chunks are", () => {
  const random = seeded(11);
  for (let round = 0; round < 100; round++) {
    const blockSize = 8 + random(120);
    const all = seededText(random, blockSize);
    const storage = new Set<ArrayBufferLike>();
    const s = new BlockSplitter(blockSize, 1 << 20, () => {
      throw new Error("too long");
    }, (size) => {
      const b = new Uint8Array(size);
      storage.add(b.buffer);
      return b;
    });
    const blocks: Uint8Array[] = [];
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < all.length;) {
      // A reader: fills part (or all) of the room, as a short read would.
      const room = s.room();
      const n = Math.min(all.length - at, 1 + random(room.length));
      room.set(all.subarray(at, at + n));
      chunks.push(all.slice(at, at + n));
      at += n;
      blocks.push(...s.push(room.subarray(0, n)));
    }
    const rest = s.finish();
    if (rest) blocks.push(rest);
    for (const b of blocks) {
      assert.ok(storage.has(b.buffer), "a block is a view of storage the splitter took");
    }
    assert.deepEqual(
      blocks.map((b) => b.slice()),
      referenceBlocks(chunks, blockSize),
      `round ${round}, block size ${blockSize}`,
    );
  }
});

/** Storage that counts the bytes copied into it (`set`), to tell a copy from a read in place. */
class CountingBytes extends Uint8Array {
  static copied = 0;
  override set(source: ArrayLike<number>, offset?: number): void {
    CountingBytes.copied += source.length;
    super.set(source, offset);
  }
}

Deno.test("bytes read in place are not copied: only the partial line after each cut moves", () => {
  const s = new BlockSplitter(64, 1 << 10, () => {
    throw new Error("too long");
  }, (size) => new CountingBytes(size));
  const line = bytes("0123456789abc\n"); // 14 bytes: a cut leaves at most 13 behind
  let written = 0;
  let blocks = 0;
  let text = "";
  for (let i = 0; i < 100; i++) {
    const room = s.room();
    for (let at = 0; at < room.length; at++) room[at] = line[(written + at) % line.length];
    written += room.length;
    for (const block of s.push(room)) {
      blocks++;
      text += new TextDecoder().decode(block);
    }
  }
  assert.ok(blocks >= 90, `${blocks} blocks`);
  assert.ok(CountingBytes.copied <= blocks * 13, `${CountingBytes.copied} bytes copied for ${written} read`);
  const rest = s.finish();
  text += rest === null ? "" : new TextDecoder().decode(rest);
  assert.equal(text, new TextDecoder().decode(line).repeat(written / line.length + 1).slice(0, written));
  // The same bytes handed over as chunks of another buffer are copied in, every one of them.
  CountingBytes.copied = 0;
  const copying = new BlockSplitter(64, 1 << 10, () => {
    throw new Error("too long");
  }, (size) => new CountingBytes(size));
  copying.push(bytes(text));
  assert.ok(CountingBytes.copied >= text.length);
});

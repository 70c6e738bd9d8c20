import assert from "node:assert/strict";
import { type LineEvent, LineSplitter, MAX_LINE_BYTES } from "../../../src/mcp/protocol/line_splitter.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function lines(events: LineEvent[]): string[] {
  return events.map((event) =>
    event.kind === "line" ? decoder.decode(event.bytes) : `<oversized ${event.limit}>`
  );
}

Deno.test("the cap is 16 MiB", () => {
  assert.equal(MAX_LINE_BYTES, 16_777_216);
});

Deno.test("lines split on newline, across chunk boundaries, keeping empty lines and CR", () => {
  const splitter = new LineSplitter();
  assert.deepEqual(lines(splitter.push(encoder.encode('{"a":1}\n{"b"'))), ['{"a":1}']);
  assert.deepEqual(lines(splitter.push(encoder.encode(":2}\r\n\n"))), ['{"b":2}\r', ""]);
  assert.deepEqual(lines(splitter.push(encoder.encode("x"))), []);
  assert.deepEqual(lines(splitter.push(encoder.encode("y\n"))), ["xy"]);
  assert.equal(splitter.end(), false);
});

Deno.test("a multi-byte character split across chunks is reassembled", () => {
  const bytes = encoder.encode('"é€😀"\n');
  const splitter = new LineSplitter();
  const events = bytes.reduce<LineEvent[]>((all, byte) => all.concat(splitter.push(Uint8Array.of(byte))), []);
  assert.deepEqual(lines(events), ['"é€😀"']);
});

Deno.test("a line at the cap passes; one byte more is reported oversized and the next line survives", () => {
  const splitter = new LineSplitter(10);
  assert.deepEqual(lines(splitter.push(encoder.encode("0123456789\n"))), ["0123456789"]);
  assert.deepEqual(lines(splitter.push(encoder.encode("0123456789A\nok\n"))), ["<oversized 10>", "ok"]);
});

Deno.test("an oversized line is not buffered while it streams past", () => {
  const splitter = new LineSplitter(1024);
  const chunk = new Uint8Array(1000).fill(0x61);
  assert.deepEqual(splitter.push(chunk), []);
  assert.equal(splitter.bufferedBytes, 1000);
  for (let i = 0; i < 50; i++) {
    assert.deepEqual(splitter.push(chunk), []);
    assert.equal(splitter.bufferedBytes, 0);
  }
  assert.deepEqual(lines(splitter.push(encoder.encode("tail\nnext\n"))), ["<oversized 1024>", "next"]);
});

Deno.test("an unterminated final line is discarded at end of input", () => {
  const splitter = new LineSplitter();
  assert.deepEqual(splitter.push(encoder.encode('{"jsonrpc":"2.0","id":1,"method":"ping"}')), []);
  assert.equal(splitter.end(), true);
  assert.deepEqual(splitter.push(encoder.encode("after\n")).length, 1, "state was reset");
});

Deno.test("the splitter copies bytes so a producer reusing its buffer cannot corrupt lines", () => {
  const splitter = new LineSplitter();
  const buffer = encoder.encode("abc");
  splitter.push(buffer);
  buffer.fill(0x7a);
  assert.deepEqual(lines(splitter.push(encoder.encode("\n"))), ["abc"]);
});

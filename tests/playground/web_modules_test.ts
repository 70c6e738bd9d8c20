/**
 * The playground's page-side pure modules in Deno: the in-memory file system, share links (round trip,
 * the size budget, damaged and hostile fragments) and diagnostic placement.
 */

import assert from "node:assert/strict";
import { deflateRawSync } from "node:zlib";
import { MemoryFs, normalize } from "../../src/engine/memory_fs.ts";
import { decodeState, encodeState, SHARE_INPUT_BUDGET } from "../../web/share.ts";
import { charIndexOfByte, placeDiagnostics } from "../../web/diagnostics_map.ts";
import { loadConfig } from "../../src/config/model.ts";
import { guessDelimiter, previewRows } from "../../web/csv_preview.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("memory fs: folders, listing, staged outputs and bxp-cli's join", async () => {
  const fs = new MemoryFs("/project");
  fs.put("data/a.csv", enc("x\n"));
  fs.put("b.csv", enc("y\n"));
  assert.deepEqual(await fs.listFiles("data"), ["a.csv"]);
  assert.deepEqual(await fs.listFiles("./"), ["b.csv"]);
  assert.equal(await fs.listFiles("missing"), null);
  assert.equal(fs.join(".", "a.csv"), "./a.csv");
  assert.equal(fs.join("data/", "a.csv"), "data/a.csv");
  assert.equal(normalize("/project/./data/../b.csv"), "/project/b.csv");

  const out = await fs.createOutput("data/out.csv", false);
  assert.notEqual(out, "exists");
  if (out === "exists") return;
  await out.write(enc("1,"));
  await out.write(enc("2\n"));
  assert.equal(await fs.exists("data/out.csv"), false, "nothing is visible before commit");
  await out.commit();
  assert.deepEqual(fs.get("/project/data/out.csv"), enc("1,2\n"));
  assert.equal(await fs.createOutput("data/out.csv", true), "exists", "--fresh refuses an existing output");
  const aborted = await fs.createOutput("data/gone.csv", false);
  if (aborted !== "exists") {
    await aborted.write(enc("z"));
    await aborted.abort();
  }
  assert.equal(await fs.exists("data/gone.csv"), false);
  await assert.rejects(() => fs.createOutput("nowhere/x.csv", false), /No such file or directory/);
  await assert.rejects(() => fs.readFile("data/nope.csv"), /No such file or directory: 'data\/nope.csv'/);
});

Deno.test("memory fs: reads in chunks that add up to the file", async () => {
  const fs = new MemoryFs("/p");
  const big = new Uint8Array(200_000).map((_, i) => i % 251);
  fs.put("big.csv", big);
  const parts: Uint8Array[] = [];
  for await (const c of fs.readChunks("big.csv")) parts.push(c);
  assert.ok(parts.length > 1);
  assert.equal(parts.reduce((n, p) => n + p.length, 0), big.length);
  assert.equal(await fs.fileSize("big.csv"), 200_000);
});

Deno.test("share: a round trip keeps config and small inputs; large ones are named, not sent", async () => {
  const big = new Uint8Array(SHARE_INPUT_BUDGET + 1).fill(65);
  const { hash, omitted } = await encodeState("{ a: 'é' }", [
    { name: "small.csv", bytes: enc("a;b\n1;2\n") },
    { name: "big.csv", bytes: big },
  ]);
  assert.deepEqual(omitted, ["big.csv"]);
  assert.match(hash, /^#s=[A-Za-z0-9_-]+$/);
  const back = await decodeState(hash);
  assert.ok(back);
  assert.equal(back.config, "{ a: 'é' }");
  assert.deepEqual(back.files.map((f) => [f.name, new TextDecoder().decode(f.bytes)]), [[
    "small.csv",
    "a;b\n1;2\n",
  ]]);
  assert.deepEqual(back.omitted, ["big.csv"]);
});

Deno.test("share: damaged, foreign and oversized fragments are ignored", async () => {
  assert.equal(await decodeState(""), null);
  assert.equal(await decodeState("#other=1"), null);
  assert.equal(await decodeState("#s=not*base64"), null);
  assert.equal(await decodeState("#s=AAAA"), null, "not deflate data");
  const b64 = (bytes: Uint8Array) =>
    btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  assert.equal(await decodeState("#s=" + b64(deflateRawSync(enc('{"config":5,"files":[]}')))), null);
  // A small link that inflates to 16 MiB is refused rather than unpacked.
  const bomb = deflateRawSync(new Uint8Array(16 * 1024 * 1024));
  assert.ok(bomb.length < 100_000);
  assert.equal(await decodeState("#s=" + b64(bomb)), null);
});

Deno.test("diagnostics: syntax errors at their line, key paths at their key, expression spans in bytes", () => {
  const syntax = "{\n  a: 1,\n  b: [1, 2,, 3]\n}\n";
  const d1 = placeDiagnostics(syntax, loadConfig(syntax, "c").diagnostics);
  assert.ok(d1.length > 0);
  assert.equal(d1[0].line, 3);

  const text = '{\n  conversion_templates: {\n    "t.v2": {\n      data_dir: ".",\n' +
    '      input_schema: { $a: "\'é\' & UPPPER([x])" },\n      output_schema: { a: "$a" },\n' +
    "      unknown_key: 1,\n    },\n  },\n}\n";
  const placed = placeDiagnostics(text, loadConfig(text, "c").diagnostics);
  const expr = placed.find((d) => d.code.startsWith("expr."));
  assert.ok(expr, JSON.stringify(placed));
  assert.equal(text.slice(expr.from, expr.to), "UPPPER", "the byte span maps past the two-byte é");
  assert.equal(expr.line, 5);
  const unknown = placed.find((d) => d.path.endsWith("unknown_key"));
  assert.ok(unknown, JSON.stringify(placed));
  assert.equal(
    text.slice(unknown.from, unknown.to),
    "unknown_key",
    "a template id with a dot still resolves",
  );
  assert.equal(unknown.line, 7);

  assert.equal(charIndexOfByte("aé😀b", 1), 1);
  assert.equal(charIndexOfByte("aé😀b", 3), 2);
  assert.equal(charIndexOfByte("aé😀b", 7), 4);
});

Deno.test("csv preview: delimiter guess, quotes, doubled quotes, CRLF and the row limit", () => {
  assert.equal(guessDelimiter("a;b;c\n1,2;3\n"), ";");
  assert.equal(guessDelimiter('"x;y",b\n'), ",");
  assert.deepEqual(previewRows('a,b\r\n1,"x, ""y"""\r\n2,\n', 10), [["a", "b"], ["1", 'x, "y"'], ["2", ""]]);
  assert.deepEqual(previewRows("a\n1\n2\n3\n", 2), [["a"], ["1"]]);
  assert.deepEqual(previewRows("a,b\n1,2", 10), [["a", "b"], ["1", "2"]]);
});

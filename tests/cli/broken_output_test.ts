/**
 * An output that breaks its own format is never "ok": a value holding the output delimiter or a line break,
 * written unquoted (csv_text_quote_out "none"), makes the rows read back wrong. The real bxp-cli (a plain run
 * and the partition modes the Ray job uses) counts it as a warning (exit 2) naming the file, the first record,
 * the column and the setting that fixes it; the output itself is written exactly as before.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { entryArgs, runBxpCli } from "../_support/processes.ts";

function config(quoteOut: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    conversion_templates: {
      t: {
        data_dir: ".",
        file_pattern_in: ".csv",
        file_pattern_out: ".out",
        csv_delimiter_out: ";",
        csv_text_quote_out: quoteOut,
        input_schema: { $id: "[id]", $note: "[note]" },
        row_rules: [{ when: "1 = 1", rows: [{}] }],
        output_schema: { ID: "$id", NOTE: "$note" },
        ...extra,
      },
    },
  });
}

/** Record 2 holds a bare CR (a line break inside the value), record 3 the output delimiter. */
const INPUT = "id,note\n1,plain\n2,two\rlines\n3,semi;colon\n";

async function withDir(files: Record<string, string>, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-broken-out-" });
  try {
    for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, name), text);
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const warnings = (stderr: string) => stderr.match(/^warning: .*$/gm) ?? [];

Deno.test("a line break or the delimiter written unquoted: exit 2 and a warning naming file, record, column", async () => {
  await withDir({ "c.json": config("none"), "in.csv": INPUT }, async (dir) => {
    const modes: Record<string, string>[] = [
      { BXP_WORKERS: "0" },
      { BXP_WORKERS: "2", BXP_PARALLEL_MIN_BYTES: "0", BXP_WORKERS_JOIN_MS: "0", BXP_BLOCK_BYTES: "8" },
    ];
    for (const env of modes) {
      const res = await runBxpCli(["--config", "c.json"], { cwd: dir, env });
      assert.equal(res.code, 2, res.stderr);
      assert.deepEqual(warnings(res.stderr), [
        `warning: './in.csv' record 2: output column 'NOTE' holds the output delimiter ';' or a line break and ` +
        `csv_text_quote_out is "none": the written row gains columns, or its line break is rewritten (CR ` +
        `dropped, LF as \\n); set csv_text_quote_out: "double" (template: t)`,
      ]);
      assert.match(res.text, /summary: errors:0 warnings:1 /);
      assert.match(res.text, /finding \(unquoted_delimiter\)/);
      // Written as bxp writes it (the CR dropped, the delimiter bare): the run only stops calling it ok.
      assert.equal(
        await Deno.readTextFile(join(dir, "in.out")),
        "ID;NOTE\n1;plain\n2;twolines\n3;semi;colon\n",
      );
    }
  });
});

Deno.test("the same values quoted, or nothing to break: exit 0 and no warning", async () => {
  await withDir({ "c.json": config("double"), "in.csv": INPUT }, async (dir) => {
    const res = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(warnings(res.stderr), []);
    assert.equal(
      await Deno.readTextFile(join(dir, "in.out")),
      'ID;NOTE\n1;plain\n2;"two\rlines"\n3;"semi;colon"\n',
    );
  });
  await withDir({ "c.json": config("none"), "in.csv": "id,note\n1,plain\n2,a,b\n" }, async (dir) => {
    // The input delimiter differs from the output one: "a" and "b" are fields, nothing breaks.
    const res = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(warnings(res.stderr), []);
  });
});

Deno.test("--strict keeps it an error (exit 1, no output), without a second warning line", async () => {
  await withDir({ "c.json": config("none"), "in.csv": INPUT }, async (dir) => {
    const res = await runBxpCli(["--config", "c.json", "--strict"], { cwd: dir });
    assert.equal(res.code, 1, res.stderr);
    assert.deepEqual(warnings(res.stderr), []);
    assert.match(res.stderr, /error: --strict: .*output column 'NOTE' of record 2 of 'in\.csv'/);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["c.json", "in.csv"]);
  });
});

Deno.test("each file of a combined run names its own first broken record", async () => {
  await withDir({
    "c.json": config("none", { combined_output: true }),
    "a.csv": "id,note\n1,ok\n2,x;y\n",
    "b.csv": "id,note\n1,fine\n",
    "c.csv": "id,note\n1,p;q\n",
  }, async (dir) => {
    const res = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assert.equal(res.code, 2, res.stderr);
    assert.deepEqual(warnings(res.stderr).map((w) => w.slice(0, w.indexOf(":", 9))), [
      "warning: './a.csv' record 2",
      "warning: './c.csv' record 1",
    ]);
    assert.match(res.text, /summary: errors:0 warnings:2 /);
  });
});

Deno.test("the partition summary (the Ray job's exit status) warns as the plain run does", async () => {
  await withDir({ "c.json": config("none"), "in.csv": INPUT }, async (dir) => {
    const whole = await runBxpCli(["--config", "c.json"], { cwd: dir });
    await Deno.remove(join(dir, "in.out"));
    const base = ["--config", "c.json", "--template", "t"];
    const bytes = await Deno.readFile(join(dir, "in.csv"));
    const body = bytes.indexOf(0x0a) + 1;
    await Deno.writeFile(join(dir, "head.bin"), bytes.subarray(0, body));
    const pieces = [];
    // Two pieces: the broken record is the second piece's first record.
    const cut = bytes.indexOf(0x0a, body) + 1;
    for (const [from, to, first] of [[body, cut, 1], [cut, bytes.length, 2]]) {
      const piece = await pipe(
        [
          "--partition-convert",
          ...base,
          "--file",
          "in.csv",
          "--head",
          "head.bin",
          "--first-record",
          String(first),
          "--stats-file",
          "stats.json",
        ],
        dir,
        bytes.subarray(from, to),
      );
      assert.equal(piece.code, 0, piece.stderr);
      pieces.push(JSON.parse(await Deno.readTextFile(join(dir, "stats.json"))));
    }
    const request = {
      dir: ".",
      combined: null,
      files: [{
        name: "in.csv",
        head_b64: btoa(String.fromCharCode(...bytes.subarray(0, body))),
        sample_b64: btoa(String.fromCharCode(...bytes)),
        output: "./in.out",
        pieces,
      }],
    };
    const sum = await pipe(
      ["--partition-summary", ...base],
      dir,
      new TextEncoder().encode(JSON.stringify(request)),
    );
    assert.equal(sum.code, 2, sum.stderr);
    assert.equal(sum.code, whole.code);
    assert.equal(sum.stderr, whole.stderr);
    assert.match(sum.stderr, /^warning: '\.\/in\.csv' record 2: output column 'NOTE'/m);
  });
});

/** bxp-cli with `stdin` piped in. */
async function pipe(
  args: string[],
  cwd: string,
  stdin: Uint8Array,
): Promise<{ code: number; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: entryArgs("bxp-cli", args),
    cwd,
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(stdin);
  await writer.close();
  const out = await child.output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

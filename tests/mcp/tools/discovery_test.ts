/**
 * The discovery tools through the real bxp-mcp process: `bxp_list_files` (links never followed, VCS and
 * dependency folders skipped, limits and depth honoured, glob filter, hostile arguments refused) and
 * `bxp_peek_csv` (a semicolon / decimal-comma export with a preamble, rows and field clipping, the path
 * guard's refusals).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { resultText, ServerProcess, type Wire } from "../_support/server_process.ts";

const posix = Deno.build.os !== "windows";

async function makeProject() {
  const box = await Deno.realPath(await Deno.makeTempDir({ prefix: "bxp-discovery-" }));
  const root = join(box, "root");
  const outside = join(box, "outside");
  for (const dir of ["configs", "data/2024", ".git/refs", "node_modules/pkg", "sub/.HG", "empty"]) {
    await Deno.mkdir(join(root, dir), { recursive: true });
  }
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(outside, "secret.csv"), "a\nsecret\n");
  await Deno.writeTextFile(join(root, "configs/bank.json5"), "{}");
  await Deno.writeTextFile(join(root, "configs/notes.md"), "not listed without a glob");
  await Deno.writeTextFile(
    join(root, "data/2024/statement.csv"),
    "Bank export\nAccount: 123\n\nDate;Amount;Note\n31.12.2024;1 234,50;first\n01.01.2025;-7,25;" +
      "x".repeat(300) + "\n02.01.2025;3,00;third\n",
  );
  await Deno.writeTextFile(join(root, "data/rates.json"), "[]");
  await Deno.writeTextFile(join(root, ".git/refs/x.json"), "{}");
  await Deno.writeTextFile(join(root, "node_modules/pkg/package.json"), "{}");
  await Deno.writeTextFile(join(root, "sub/.HG/a.csv"), "a\n");
  await Deno.writeTextFile(join(root, ".in.json.0123.bxp-tmp"), "{}");
  if (posix) {
    const fifo = await new Deno.Command("mkfifo", { args: [join(root, "data/pipe.csv")] }).output();
    assert.equal(fifo.code, 0, "mkfifo");
    await Deno.symlink(outside, join(root, "outlink"));
    await Deno.symlink(join(outside, "secret.csv"), join(root, "data/secret.csv"));
  }
  return { box, root };
}

async function call(server: ServerProcess, id: string, name: string, args: unknown): Promise<Wire> {
  await server.call(id, name, args);
  return (await server.response(id)).result;
}

Deno.test("bxp_list_files lists configs and data, never follows links, skips VCS/dependency folders", async () => {
  const { box, root } = await makeProject();
  const server = await ServerProcess.start(["--root", root]);
  try {
    const all = await call(server, "a", "bxp_list_files", {});
    assert.equal(all.isError, false, JSON.stringify(all));
    const answer = all.structuredContent;
    assert.deepEqual(JSON.parse(resultText({ result: all })), answer, "text and structured content agree");
    assert.deepEqual(
      answer.files.map((f: Wire) => [f.path, f.kind]),
      [["configs/bank.json5", "config"], ["data/2024/statement.csv", "csv"], ["data/rates.json", "json"]],
    );
    const statement = answer.files[1];
    assert.equal(statement.size, (await Deno.stat(join(root, "data/2024/statement.csv"))).size);
    assert.match(statement.modified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(answer.count, 3);
    assert.equal(answer.truncated, null);
    const skipped = answer.skipped.map((s: Wire) => `${s.path}:${s.reason}`).sort();
    assert.deepEqual(skipped, [
      ".git:protected-folder",
      ...(posix ? ["data/pipe.csv:not-regular", "data/secret.csv:symlink"] : []),
      "node_modules:protected-folder",
      ...(posix ? ["outlink:symlink"] : []),
      "sub/.HG:protected-folder",
    ]);
    assert.equal(answer.skipped_count, skipped.length);
    assert.ok(!JSON.stringify(all).includes("secret\\n"), "nothing from outside");
    assert.ok(!JSON.stringify(all).includes(box), "no absolute path");

    const globbed = (await call(server, "g", "bxp_list_files", { glob: "**/*.md" })).structuredContent;
    assert.deepEqual(globbed.files.map((f: Wire) => [f.path, f.kind]), [["configs/notes.md", "other"]]);
    const csvs = (await call(server, "c", "bxp_list_files", { glob: "data/**/*.csv" })).structuredContent;
    assert.deepEqual(csvs.files.map((f: Wire) => f.path), ["data/2024/statement.csv"]);
    const literal = (await call(server, "l", "bxp_list_files", { glob: "(.*)" })).structuredContent;
    assert.deepEqual(literal.files, [], "regex syntax in a glob is literal text");
    assert.equal(await server.close(), 0);
  } finally {
    await server.dispose();
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test("bxp_list_files honours limit and depth and refuses hostile arguments", async () => {
  const { box, root } = await makeProject();
  for (let i = 0; i < 15; i++) {
    await Deno.writeTextFile(join(root, `data/f${String(i).padStart(2, "0")}.csv`), "a\n");
  }
  let deep = root;
  for (let i = 0; i < 20; i++) deep = join(deep, `d${i}`);
  await Deno.mkdir(deep, { recursive: true });
  await Deno.writeTextFile(join(deep, "deep.csv"), "a\n");
  const server = await ServerProcess.start(["--root", root]);
  try {
    const limited =
      (await call(server, "l", "bxp_list_files", { glob: "data/*.csv", limit: 10 })).structuredContent;
    assert.equal(limited.count, 10);
    assert.equal(limited.truncated, "limit");
    assert.deepEqual(limited.files.map((f: Wire) => f.path).slice(0, 2), ["data/f00.csv", "data/f01.csv"]);
    const exact =
      (await call(server, "e", "bxp_list_files", { glob: "data/*.csv", limit: 15 })).structuredContent;
    assert.equal(exact.truncated, null, "exactly limit files is complete");

    const deepList = (await call(server, "d", "bxp_list_files", { glob: "**/deep.csv" })).structuredContent;
    assert.deepEqual(deepList.files, [], "nothing below the depth limit");
    assert.ok(deepList.skipped.some((s: Wire) => s.reason === "too-deep"), JSON.stringify(deepList.skipped));

    const refusals: [unknown, RegExp][] = [
      [{ limit: 0 }, /limit/],
      [{ limit: 2001 }, /limit/],
      [{ limit: "10" }, /limit/],
      [{ limit: 1.5 }, /limit/],
      [{ glob: "../*" }, /glob/],
      [{ glob: "/etc/*" }, /glob/],
      [{ glob: 5 }, /glob/],
      [{ glob: "x".repeat(300) }, /glob/],
    ];
    let n = 0;
    for (const [args, pattern] of refusals) {
      const result = await call(server, `r${n++}`, "bxp_list_files", args);
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match(resultText({ result }), pattern, JSON.stringify(args));
    }
    assert.equal(await server.close(), 0);
  } finally {
    await server.dispose();
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test("bxp_peek_csv: semicolons, decimal commas and a preamble, with rows and field clipping", async () => {
  const { box, root } = await makeProject();
  const server = await ServerProcess.start(["--root", root]);
  try {
    const result = await call(server, "p", "bxp_peek_csv", { path: "data/2024/statement.csv", rows: 2 });
    assert.equal(result.isError, false, JSON.stringify(result));
    const peek = result.structuredContent;
    assert.equal(peek.path, "data/2024/statement.csv");
    assert.equal(peek.encoding, "utf-8");
    assert.equal(peek.delimiter, ";");
    assert.equal(peek.decimal_separator, ",");
    assert.equal(peek.quote, "double");
    assert.equal(peek.header_line, 3, "as csv_header_line counts: among non-empty lines");
    assert.equal(peek.header_physical_line, 4);
    assert.equal(peek.preamble_lines, 2);
    assert.deepEqual(peek.columns.map((c: Wire) => c.name), ["Date", "Amount", "Note"]);
    assert.equal(peek.columns[0].format, "DD.MM.YYYY");
    assert.equal(peek.records.length, 2, "rows honoured");
    assert.deepEqual(peek.records[0], ["31.12.2024", "1 234,50", "first"]);
    assert.equal(peek.records[1][2], "x".repeat(200) + "…[+100 chars]");
    assert.equal(peek.config_settings.csv_delimiter_in, ";");
    assert.equal(peek.truncated, false);

    const refusals: [unknown, RegExp][] = [
      [{ path: "/etc/passwd" }, /must be relative/],
      [{ path: "../outside/secret.csv" }, /must stay inside/],
      [{ path: "data/none.csv" }, /not found/],
      [{ path: "data" }, /Not a regular file/],
      ...(posix ? [[{ path: "data/pipe.csv" }, /Not a regular file/]] as [unknown, RegExp][] : []),
      [{ path: "data/2024/statement.csv", rows: 101 }, /rows/],
      [{ path: "data/2024/statement.csv", delimiter: "x" }, /delimiter/],
      [{ path: 7 }, /path/],
      [{ path: "data/book.xlsx" }, /reads CSV-like text; data\/book\.xlsx is a xlsx file/],
      ...(posix
        ? [[{ path: "data/secret.csv" }, /symbolic link/], [
          { path: "outlink/secret.csv" },
          /symbolic link/,
        ]] as [
          unknown,
          RegExp,
        ][]
        : []),
    ];
    let n = 0;
    for (const [args, pattern] of refusals) {
      const refused = await call(server, `r${n++}`, "bxp_peek_csv", args);
      assert.equal(refused.isError, true, JSON.stringify(args));
      const text = resultText({ result: refused });
      assert.match(text, pattern, JSON.stringify(args));
      assert.ok(!text.includes("secret\n") && !text.includes(box), text);
    }
    assert.equal(await server.close(), 0);
  } finally {
    await server.dispose();
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test("bxp_peek_csv reads only the first MiB of a large file and says so", async () => {
  const { box, root } = await makeProject();
  const line = "1;2,5;" + "y".repeat(90) + "\n";
  await Deno.writeTextFile(join(root, "data/big.csv"), "a;b;c\n" + line.repeat(15_000));
  const server = await ServerProcess.start(["--root", root]);
  try {
    const peek = (await call(server, "b", "bxp_peek_csv", { path: "data/big.csv" })).structuredContent;
    assert.equal(peek.truncated, true);
    assert.equal(peek.bytes_read, 1024 * 1024);
    assert.ok(peek.size > 1024 * 1024);
    assert.equal(peek.records.length, 10, "default rows");
    assert.ok(peek.notes.some((n: string) => /only the first 1048576/.test(n)), peek.notes.join("\n"));
    assert.equal(await server.close(), 0);
  } finally {
    await server.dispose();
    await Deno.remove(box, { recursive: true });
  }
});

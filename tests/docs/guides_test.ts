/**
 * Runs the examples of the user guides (`docs/guide/*.md`) exactly as written:
 *
 * - a fenced block `<lang> file=NAME [encoding=ENC]` is written into a fresh folder (in that encoding);
 * - each line of a `sh run` block is a `bxp-cli ...` command run there by the real bxp-cli (exit status 0
 *   unless the line ends with `# exit N`);
 * - `text stdout` / `text stderr` blocks must equal what the command before them printed;
 * - `text file=NAME` blocks must equal the file the commands left.
 *
 * The MCP examples of `agents.md` are run by `agents_guide_test.ts`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { encodeString, parseEncoding } from "../../src/formats/encoding.ts";
import { type ProcessResult, runBxpCli } from "../_support/processes.ts";
import { fences, words } from "./_harness.ts";

/** Runs one guide in a fresh folder; answers how many checks it made. */
export async function runGuide(name: string): Promise<number> {
  const markdown = await Deno.readTextFile(new URL(`../../docs/guide/${name}`, import.meta.url));
  const dir = await Deno.makeTempDir({ prefix: "bxp-guide-" });
  let checks = 0;
  try {
    let last: ProcessResult | null = null;
    for (const f of fences(markdown)) {
      const where = `${name}:${f.line}`;
      const file = f.attrs.get("file");
      if (f.lang === "text" && file !== undefined) {
        assert.equal(await Deno.readTextFile(join(dir, file)), f.body, `${where}: ${file}`);
        checks++;
      } else if (file !== undefined) {
        const enc = parseEncoding(f.attrs.get("encoding") ?? "utf-8");
        assert.ok(enc, `${where}: encoding`);
        await Deno.writeFile(join(dir, file), encodeString(f.body, enc));
      } else if (f.lang === "sh" && f.flags.has("run")) {
        for (const line of f.body.split("\n").filter((l) => l.trim() !== "")) {
          const exit = /\s#\s*exit\s+(\d+)\s*$/.exec(line);
          const argv = words(line.replace(/\s#.*$/, "").trim());
          assert.equal(argv[0], "bxp-cli", `${where}: commands start with bxp-cli`);
          last = await runBxpCli(argv.slice(1), { cwd: dir });
          assert.equal(last.code, exit ? Number(exit[1]) : 0, `${where}: ${line}\n${last.stderr}`);
          checks++;
        }
      } else if (f.lang === "text" && (f.flags.has("stdout") || f.flags.has("stderr"))) {
        assert.ok(last, `${where}: output without a command before it`);
        assert.equal(f.flags.has("stdout") ? last.text : last.stderr, f.body, where);
        checks++;
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return checks;
}

Deno.test("docs/guide/first-conversion.md: every example runs as written", async () => {
  const checks = await runGuide("first-conversion.md");
  assert.ok(checks >= 14, `${checks} checks`);
});

Deno.test("guide harness: fences and command words", () => {
  const f = fences(
    "x\n```csv file=a.csv encoding=cp1250\n1;2\n```\n```sh run\nbxp-cli --eval \"'a b'\"\n```\n",
  );
  assert.equal(f.length, 2);
  assert.equal(f[0].attrs.get("encoding"), "cp1250");
  assert.equal(f[0].body, "1;2\n");
  assert.ok(f[1].flags.has("run"));
  assert.deepEqual(words(`bxp-cli --eval "IF([A] < 0, 'x', 'y')" --row 'A=1' ""`), [
    "bxp-cli",
    "--eval",
    "IF([A] < 0, 'x', 'y')",
    "--row",
    "A=1",
    "",
  ]);
});

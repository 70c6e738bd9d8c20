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

/** One fenced block: its info string's words and its text (with a final newline). */
export interface Fence {
  lang: string;
  attrs: Map<string, string>;
  flags: Set<string>;
  body: string;
  line: number;
}

/** The fenced code blocks of a Markdown text. */
export function fences(markdown: string): Fence[] {
  const out: Fence[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open || open[1] === "") continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i]);
    const attrs = new Map<string, string>();
    const flags = new Set<string>();
    for (const word of open[2].split(/\s+/).filter((w) => w !== "")) {
      const eq = word.indexOf("=");
      if (eq > 0) attrs.set(word.slice(0, eq), word.slice(eq + 1));
      else flags.add(word);
    }
    out.push({ lang: open[1], attrs, flags, body: body.join("\n") + "\n", line: start + 1 });
  }
  return out;
}

/** Splits a command line into words: '...' and "..." quote, nothing else is special. */
export function words(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | null = null;
  let started = false;
  for (const ch of line) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (ch === " ") {
      if (started || cur !== "") out.push(cur);
      cur = "";
      started = false;
    } else cur += ch;
  }
  if (quote !== null) throw new Error(`unclosed quote in: ${line}`);
  if (started || cur !== "") out.push(cur);
  return out;
}

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

/**
 * The README is a front door: at most 300 lines, and every relative link in it and in the pages under
 * `docs/` (and the Ray job's README) resolves to a file of the checkout, with its `#anchor` naming a heading
 * of that file (GitHub's slug rules: lower case, punctuation dropped, spaces to hyphens).
 */

import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "../_support/processes.ts";

const ROOT = fileURLToPath(REPO_ROOT);

async function markdownFiles(): Promise<string[]> {
  const files = [join(ROOT, "README.md"), join(ROOT, "integrations/ray/README.md")];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".md")) files.push(path);
    }
  };
  await walk(join(ROOT, "docs"));
  return files;
}

/** Text outside fenced code blocks and inline code spans, where links are links. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor of a heading. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(m[1].replace(/`/g, ""));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

Deno.test("the README is at most 300 lines", async () => {
  const lines = (await Deno.readTextFile(join(ROOT, "README.md"))).split("\n").length;
  assert.ok(lines <= 301, `README.md has ${lines} lines`);
});

Deno.test("every relative link of the README and docs/ resolves, anchors included", async () => {
  const broken: string[] = [];
  const texts = new Map<string, string>();
  const read = async (path: string) => {
    if (!texts.has(path)) texts.set(path, await Deno.readTextFile(path));
    return texts.get(path)!;
  };
  for (const file of await markdownFiles()) {
    const text = await read(file);
    for (const m of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^(https?:|mailto:)/.test(target)) continue;
      const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
      const path = pathPart === "" ? file : join(dirname(file), decodeURIComponent(pathPart));
      const where = `${relative(ROOT, file)}: (${target})`;
      let info: Deno.FileInfo;
      try {
        info = await Deno.stat(path);
      } catch {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor !== undefined && info.isFile && path.endsWith(".md")) {
        if (!anchors(await read(path)).has(anchor)) broken.push(`${where}: no heading #${anchor}`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

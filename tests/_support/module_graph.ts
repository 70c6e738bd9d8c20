/**
 * The static import graph of an entry module, read from `deno info --json` (the real module graph):
 * dynamic imports are not followed, so a module loaded on demand does not count.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface GraphModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/**
 * The modules `entry` (a path from the repo root) loads before it runs: local ones as repo paths
 * (`src/...`), others as their specifiers (`node:fs`, `npm:/fflate@0.8.3`).
 */
export async function staticGraph(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const modules = new Map<string, GraphModule>();
  for (const m of JSON.parse(new TextDecoder().decode(out.stdout)).modules as GraphModule[]) {
    modules.set(m.specifier, m);
  }
  const start = new URL(entry, `file://${ROOT}`).href;
  const seen = new Set<string>([start]);
  const todo = [start];
  while (todo.length > 0) {
    for (const dep of modules.get(todo.pop()!)?.dependencies ?? []) {
      const target = dep.code?.specifier;
      if (target === undefined || dep.isDynamic || seen.has(target)) continue;
      seen.add(target);
      todo.push(target);
    }
  }
  return [...seen].map((s) => s.startsWith(`file://${ROOT}`) ? s.slice(`file://${ROOT}`.length) : s);
}

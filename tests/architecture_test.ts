/**
 * The layering rules of docs/architecture.md, checked on the source: the core never touches `Deno.*` nor
 * imports an adapter; the MCP protocol layer knows no bxp; tools never touch a transport; bxp-cli never
 * imports bxp-mcp.
 */

import assert from "node:assert/strict";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname!, "..");
const CORE = [
  "src/lang",
  "src/config",
  "src/formats",
  "src/trace",
  "src/engine",
  "src/inspect",
  "src/explain",
  "src/draft",
  "src/templates",
];

/** Every .ts file under `dir` (relative to the repository root). */
function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const entry of Deno.readDirSync(abs)) {
      const path = join(abs, entry.name);
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && entry.name.endsWith(".ts")) out.push(relative(ROOT, path));
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

/** The source without comments and string contents, so only code is searched. */
function codeOf(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:\\])\/\/.*$/gm, "$1");
}

/**
 * The module specifiers a file imports or re-exports, resolved against the repository root. Comments are
 * left out: a doc example imports what its test needs (`node:assert`), not what the module loads.
 */
function importsOf(file: string): string[] {
  const text = codeOf(Deno.readTextFileSync(join(ROOT, file)));
  const specs = [...text.matchAll(/(?:import|export)\s[^;]*?from\s+"([^"]+)"/g)].map((m) => m[1]);
  specs.push(...[...text.matchAll(/import\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]));
  return specs.map((s) => s.startsWith(".") ? relative(ROOT, resolve(ROOT, file, "..", s)) : s);
}

function violations(files: string[], bad: (spec: string) => boolean): string[] {
  return files.flatMap((f) => importsOf(f).filter(bad).map((s) => `${f} imports ${s}`));
}

Deno.test("the core never touches Deno.* (it runs in a browser page unchanged)", () => {
  const found = CORE.flatMap(sources).filter((f) =>
    /\bDeno\./.test(codeOf(Deno.readTextFileSync(join(ROOT, f))))
  );
  assert.deepEqual(found, []);
});

Deno.test("the core imports no runtime module (node:, npm: or a URL), so the page bundles it as it is", () => {
  const files = CORE.flatMap(sources);
  const allowed = new Set(["re2js", "fflate"]); // pure npm packages the core is built on, pinned in deno.json
  assert.deepEqual(
    violations(files, (s) => !s.startsWith("src/") && !allowed.has(s)),
    [],
  );
});

Deno.test("the core never imports an adapter", () => {
  const files = CORE.flatMap(sources);
  assert.deepEqual(violations(files, (s) => /^src\/(cli|mcp)\//.test(s) || s === "main.ts"), []);
});

Deno.test("the core never imports the host's shared bindings (src/host reads Deno.*)", () => {
  const files = CORE.flatMap(sources);
  assert.deepEqual(violations(files, (s) => s.startsWith("src/host/")), []);
});

Deno.test("the core never imports the host's path functions (they read the process's platform and directory)", () => {
  const files = CORE.flatMap(sources);
  assert.deepEqual(violations(files, (s) => s === "src/util/host_path.ts"), []);
});

Deno.test("bxp-cli and bxp-mcp import no node:path (the Node layer it loads delays every start)", () => {
  const files = [...sources("src/cli"), ...sources("src/mcp"), "main.ts"];
  assert.deepEqual(violations(files, (s) => s === "node:path" || s === "node:url"), []);
});

Deno.test("the MCP protocol layer knows no bxp", () => {
  const files = sources("src/mcp/protocol");
  assert.deepEqual(
    violations(
      files,
      (s) => s.startsWith("src/") && !s.startsWith("src/mcp/protocol/") && !s.startsWith("src/util/"),
    ),
    [],
  );
});

Deno.test("tools never touch a transport", () => {
  const files = sources("src/mcp/tools");
  assert.deepEqual(violations(files, (s) => /^src\/mcp\/protocol\/(stdio|http)/.test(s)), []);
});

Deno.test("bxp-cli never imports bxp-mcp", () => {
  const files = sources("src/cli");
  assert.deepEqual(violations(files, (s) => s.startsWith("src/mcp/") || s === "main.ts"), []);
});

/** The strongly connected groups of more than one file in the import graph of `files` (Tarjan). */
function importCycles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((s) => s.endsWith(".ts"))]));
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) cycles.push(group.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}

Deno.test("no import cycles anywhere in src/ (static and dynamic imports)", () => {
  assert.deepEqual(importCycles(sources("src")), []);
});

Deno.test("the cycle check finds a circle that goes through a dynamic import", () => {
  // The same walk over a graph known to hold one: bxp-cli's old args.ts <-> commands circle.
  const dir = Deno.makeTempDirSync({ prefix: "bxp-cycle-probe-" });
  try {
    Deno.writeTextFileSync(join(dir, "a.ts"), 'import { b } from "./b.ts";\nexport const a = b;\n');
    Deno.writeTextFileSync(
      join(dir, "b.ts"),
      'export const b = 1;\nexport const load = () => import("./a.ts");\n',
    );
    const found = importCycles(sources(relative(ROOT, dir)));
    assert.deepEqual(found, [[relative(ROOT, join(dir, "a.ts")), relative(ROOT, join(dir, "b.ts"))]]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

/**
 * The part a source file belongs to: the nearest folder above it, within `src/`, that has a `mod.ts` (its
 * face), or null when none has one (the adapters' top folders, `src/util`).
 */
function partOf(file: string): string | null {
  for (
    let dir = file.slice(0, file.lastIndexOf("/"));
    dir.startsWith("src/");
    dir = dir.slice(0, dir.lastIndexOf("/"))
  ) {
    try {
      Deno.statSync(join(ROOT, dir, "mod.ts"));
      return dir;
    } catch {
      // no face here: look one folder up
    }
  }
  return null;
}

/**
 * The modules of a part that other parts may import: its `mod.ts`, and the entry points its `mod.ts` names
 * in lines `// @entry ./file.ts` (std's packages export such subpaths beside `mod.ts`). An entry exists so
 * that a caller can load one light module without the whole part, where the whole part would cost a cold
 * start (bxp-mcp's session worker must answer its handshake without the language).
 */
function publicModules(part: string): Set<string> {
  const face = Deno.readTextFileSync(join(ROOT, part, "mod.ts"));
  const entries = [...face.matchAll(/^\/\/ @entry \.\/(\S+\.ts)$/gm)].map((m) => `${part}/${m[1]}`);
  for (const entry of entries) Deno.statSync(join(ROOT, entry)); // a named entry exists
  return new Set([`${part}/mod.ts`, ...entries]);
}

/** Imports that enter a part other than the importer's own, anywhere but through its public modules. */
function faceBypasses(files: string[]): string[] {
  return files.flatMap((f) =>
    importsOf(f).filter((s) => {
      if (!s.startsWith("src/") || !s.endsWith(".ts")) return false;
      const part = partOf(s);
      return part !== null && !f.startsWith(part + "/") && !publicModules(part).has(s);
    }).map((s) => `${f} imports ${s}`)
  );
}

Deno.test("imports that cross into a part go through its face (mod.ts); the rest of a part is private", () => {
  const files = [...sources("src"), ...sources("web"), ...sources("tools"), "main.ts"];
  assert.deepEqual(faceBypasses(files), []);
});

Deno.test("the face check finds an import that reaches past a face", () => {
  const dir = Deno.makeTempDirSync({ dir: join(ROOT, "src"), prefix: "face-probe-" });
  try {
    Deno.mkdirSync(join(dir, "inner"));
    Deno.writeTextFileSync(
      join(dir, "inner", "mod.ts"),
      'export { x } from "./x.ts";\n// @entry ./light.ts\nexport { y } from "./light.ts";\n',
    );
    Deno.writeTextFileSync(join(dir, "inner", "x.ts"), "export const x = 1;\n");
    Deno.writeTextFileSync(join(dir, "inner", "light.ts"), "export const y = 2;\n");
    Deno.writeTextFileSync(
      join(dir, "entry.ts"),
      'import { y } from "./inner/light.ts";\nexport const e = y;\n',
    );
    Deno.writeTextFileSync(
      join(dir, "good.ts"),
      'import { x } from "./inner/mod.ts";\nexport const g = x;\n',
    );
    Deno.writeTextFileSync(join(dir, "bad.ts"), 'import { x } from "./inner/x.ts";\nexport const b = x;\n');
    const rel = relative(ROOT, dir);
    assert.deepEqual(faceBypasses(sources(rel)), [`${rel}/bad.ts imports ${rel}/inner/x.ts`]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

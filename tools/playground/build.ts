/**
 * Builds the playground into a static folder: the page, its stylesheet, the page and worker bundles (made
 * by `deno bundle`, no CDN at run time) and `examples.json` with the bundled demo.
 *
 * Not run as a test: it starts two `deno bundle` child processes to make the bundles.
 *
 * @example
 * ```ts ignore
 * await buildPlayground("dist/playground"); // index.html, style.css, app.js, worker.js, examples.json
 * ```
 * @module
 */

import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const WEB = join(ROOT, "web");

async function bundle(entry: string, out: string): Promise<void> {
  const cmd = new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "browser", "--minify", "-o", out, entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  });
  const res = await cmd.output();
  if (!res.success) {
    throw new Error(`deno bundle ${relative(ROOT, entry)} failed:\n${new TextDecoder().decode(res.stderr)}`);
  }
}

function b64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** The built-in examples: the repository's demo (config and its data files). */
async function examples(): Promise<string> {
  const demo = join(ROOT, "samples", "demo");
  const files = [];
  for await (const e of Deno.readDir(join(demo, "data"))) {
    if (e.isFile && !e.name.endsWith(".tracker.csv")) {
      files.push({ name: e.name, data: b64(await Deno.readFile(join(demo, "data", e.name))) });
    }
  }
  files.sort((a, b) => (a.name < b.name ? -1 : 1));
  return JSON.stringify([{
    name: "Broker statement (samples/demo)",
    config: await Deno.readTextFile(join(demo, "bxp-cli.json")),
    files,
  }]);
}

/** Builds the static site into `outDir` (created when missing). */
export async function buildPlayground(outDir: string): Promise<void> {
  await Deno.mkdir(outDir, { recursive: true });
  for (const f of ["index.html", "style.css"]) await Deno.copyFile(join(WEB, f), join(outDir, f));
  // One after the other: on a fresh machine the first `deno bundle` installs esbuild into Deno's cache,
  // and two doing it at once race on the same file (one fails with "failed to copy esbuild binary").
  await bundle(join(WEB, "main.ts"), join(outDir, "app.js"));
  await bundle(join(WEB, "worker.ts"), join(outDir, "worker.js"));
  await Deno.writeTextFile(join(outDir, "examples.json"), await examples());
}

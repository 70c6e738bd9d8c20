/**
 * The shared set-up of the race tests (`race_test.ts`, `race_flip_test.ts`): a box with a project folder
 * (the server's root) and an outside folder holding marked files, a before/after snapshot of a folder,
 * and the start and stop of the attacker process that flips a path in a loop until a stop file appears.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";

/** The text every outside file carries: no answer may ever contain it. */
export const MARK = "OUTSIDE_SECRET";

/** A config with one template whose description is `description`. */
export const config = (description: string) =>
  `{ conversion_templates: { t: { description: "${description}", data_dir: ".", file_pattern_in: ".csv", ` +
  `file_pattern_out: ".out", input_schema: { $a: "UPPER([a])" }, output_schema: { A: "$a" } } } }`;

/** The config kept inside the root. */
export const INSIDE = config("inside");

/**
 * Every entry under `dir` with its content (links shown as their target, anything neither a file nor a
 * folder as "special"), for a before/after comparison.
 */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = join(at, entry.name);
      if (entry.isSymlink) seen.set(path, `-> ${await Deno.readLink(path)}`);
      else if (entry.isDirectory) {
        seen.set(path, "dir");
        await walk(path);
      } else {
        const info = await Deno.lstat(path);
        seen.set(path, info.isFile ? await Deno.readTextFile(path) : "special");
      }
    }
  };
  await walk(dir);
  return seen;
}

/**
 * A fresh temporary box (real path) with `root/sub/{cfg.json5,in.csv,over.json}` holding inside content
 * and `outside/{cfg.json5,in.csv,over.json}` holding the mark.
 */
export async function makeBox(prefix: string): Promise<{ box: string; root: string; outside: string }> {
  const box = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  const root = join(box, "root");
  const outside = join(box, "outside");
  await Deno.mkdir(join(root, "sub"), { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(root, "sub", "cfg.json5"), INSIDE);
  await Deno.writeTextFile(join(root, "sub", "in.csv"), "a\ninside\n");
  await Deno.writeTextFile(join(root, "sub", "over.json"), INSIDE);
  await Deno.writeTextFile(join(outside, "cfg.json5"), config(MARK));
  await Deno.writeTextFile(join(outside, "in.csv"), `a\n${MARK}\n`);
  await Deno.writeTextFile(join(outside, "over.json"), config(MARK));
  return { box, root, outside };
}

/** A running attacker process. */
export interface Attacker {
  /** Write the stop file, wait for the attacker's exit (code 0) and return its flip count. */
  stop(): Promise<number>;
  /** On a failed test: stop the attacker if `stop` was not called, ignoring errors. */
  abort(): Promise<void>;
}

/**
 * Start `script` under `deno run` with `flags` and `args` (the attacker fixtures take the stop file among
 * their arguments) and wait until its loop runs (it creates `${stopFile}.ready`); `who` names it in the
 * assertion message.
 */
export async function startAttacker(
  who: string,
  script: string,
  flags: string[],
  args: string[],
  stopFile: string,
): Promise<Attacker> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, script, ...args],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stopped = false;
  const attacker: Attacker = {
    async stop() {
      stopped = true;
      await Deno.writeTextFile(stopFile, "");
      const out = await child.output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      return JSON.parse(new TextDecoder().decode(out.stdout)).flips;
    },
    async abort() {
      if (stopped) return;
      stopped = true;
      await Deno.writeTextFile(stopFile, "").catch(() => {});
      await child.output().catch(() => {});
    },
  };
  for (let poll = 0;; poll++) {
    try {
      await Deno.lstat(`${stopFile}.ready`);
      break;
    } catch {
      assert.ok(poll < 1200, `the ${who} started`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return attacker;
}

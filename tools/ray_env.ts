/**
 * Where the Ray job's Python lives, for the Ray tests and the bench: `$BXP_RAY_PYTHON`, else the venv `.ci/run`
 * creates (`$HOME/.cache/bxp-ray-venv`), checked by importing Ray. Also the bxp-cli command line the job
 * should start (the `bxp-cli` task of deno.json, with an absolute entry path).
 *
 * The example shows the paths and the command line; `findRayPython` is left out because it starts a Python
 * process.
 *
 * @example
 * ```ts
 * import { bxpCliCommand, RAY_JOB, REPO_ROOT } from "./ray_env.ts";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 * assert.equal(RAY_JOB, join(REPO_ROOT, "integrations", "ray", "bxp_ray.py"));
 * assert.ok((await Deno.stat(RAY_JOB)).isFile);
 * const cli = await bxpCliCommand();
 * assert.deepEqual(cli.slice(0, 3), ["deno", "run", "--no-prompt"]);
 * assert.equal(cli.at(-1), join(REPO_ROOT, "src/cli/main.ts")); // the entry, absolute
 * ```
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The Ray job script. */
export const RAY_JOB = join(REPO_ROOT, "integrations", "ray", "bxp_ray.py");

/** A Python with Ray, or why there is none. */
export type RayPython = { python: string; version: string } | { skip: string };

/** Finds a Python that imports Ray. */
export async function findRayPython(): Promise<RayPython> {
  const given = Deno.env.get("BXP_RAY_PYTHON");
  const home = Deno.env.get("HOME");
  const python = given || (home ? join(home, ".cache", "bxp-ray-venv", "bin", "python") : null);
  if (python === null) return { skip: "no BXP_RAY_PYTHON and no HOME to find the venv .ci/run creates" };
  try {
    const out = await new Deno.Command(python, {
      args: ["-c", "import ray; print(ray.__version__)"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      const why = new TextDecoder().decode(out.stderr).trim().split("\n").pop() ?? "";
      return { skip: `${python} cannot import ray: ${why}` };
    }
    return { python, version: new TextDecoder().decode(out.stdout).trim() };
  } catch (err) {
    return {
      skip: `no Python with Ray at ${python} (${(err as Error).message}); ` +
        `create it with: python3 -m venv ~/.cache/bxp-ray-venv && ` +
        `~/.cache/bxp-ray-venv/bin/pip install -r integrations/ray/requirements.txt`,
    };
  }
}

/** bxp-cli as the `bxp-cli` task of deno.json runs it, with the entry as an absolute path. */
export async function bxpCliCommand(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  const task: string = config.tasks["bxp-cli"];
  return task.split(/\s+/).map((part) =>
    part === "src/cli/main.ts" ? join(REPO_ROOT, "src/cli/main.ts") : part
  );
}

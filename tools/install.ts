/**
 * `deno task install [--root DIR] [--name-suffix S] [--force] [--dry-run]`: puts `bxp-cli` and `bxp-mcp` on
 * the PATH from this checkout with `deno install -g`, each with exactly the permission flags of its deno.json
 * task (read by `src/distribution/mod.ts`, the one place they live). `--help` explains the flags.
 *
 * The shims run the checkout's modules in place: a `git pull` updates the installed commands at once, and an
 * installed bxp-mcp finds bxp-cli for `bxp_simulate` through the checkout too. `deno install` keeps a copy
 * of deno.json beside each shim, so a change to deno.json (imports, task flags) needs `--force` again.
 *
 * @example
 * ```ts
 * import { installArgs } from "./install.ts";
 * const denoJson = '{"tasks":{"bxp-cli":"deno run --no-prompt --allow-read src/cli/main.ts"}}';
 * import assert from "node:assert/strict";
 * assert.deepEqual(installArgs(denoJson, "bxp-cli", { repo: "/r", root: "/home/me/.deno", suffix: "", force: false }), [
 *   "install", "-g", "--root", "/home/me/.deno", "--name", "bxp-cli", "--config", "/r/deno.json",
 *   "--no-prompt", "--allow-read", "/r/src/cli/main.ts",
 * ]);
 * ```
 * @module
 */

import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ENTRY_MODULES, type EntryPoint, entryPointFlags } from "../src/distribution/mod.ts";

/** What one `deno install -g` of an entry point needs. */
export interface InstallOptions {
  /** The checkout's root folder (absolute). */
  repo: string;
  /** The install root (absolute); the shims go into its `bin/`. */
  root: string;
  /** Appended to each command name (`-dev` gives `bxp-cli-dev`); "" for none. */
  suffix: string;
  /** Replace an existing shim of the same name. */
  force: boolean;
}

/** Name suffixes are file-name safe: letters, digits, `.`, `_` and `-`, at most 32. */
const SUFFIX = /^[A-Za-z0-9._-]{0,32}$/;

/**
 * The installed command name of an entry point. Throws naming the suffix when it is not file-name safe.
 *
 * @example
 * ```ts
 * import { commandName } from "./install.ts";
 * import assert from "node:assert/strict";
 * assert.equal(commandName("bxp-mcp", "-dev"), "bxp-mcp-dev");
 * ```
 */
export function commandName(entry: EntryPoint, suffix: string): string {
  if (!SUFFIX.test(suffix)) {
    throw new Error(
      `--name-suffix '${suffix}' may hold only letters, digits, '.', '_' and '-' (at most 32 characters)`,
    );
  }
  return `${entry}${suffix}`;
}

/**
 * The `deno install -g` argument vector (after `deno`) for an entry point: the install root, the command
 * name, the checkout's deno.json (so the import map is found whatever the working directory), the task's
 * permission flags and the entry module's absolute path.
 */
export function installArgs(denoJsonText: string, entry: EntryPoint, options: InstallOptions): string[] {
  return [
    "install",
    "-g",
    ...(options.force ? ["--force"] : []),
    "--root",
    options.root,
    "--name",
    commandName(entry, options.suffix),
    "--config",
    join(options.repo, "deno.json"),
    ...entryPointFlags(denoJsonText, entry),
    join(options.repo, ENTRY_MODULES[entry]),
  ];
}

/**
 * The install root: `--root` (relative to `cwd`), else `$DENO_INSTALL_ROOT`, else `<home>/.deno`, as
 * `deno install` itself chooses. Throws when none is known.
 *
 * @example
 * ```ts
 * import { installRoot } from "./install.ts";
 * import assert from "node:assert/strict";
 * assert.equal(installRoot(undefined, "/w", (n) => ({ HOME: "/home/me" })[n], "linux"), "/home/me/.deno");
 * ```
 */
export function installRoot(
  flag: string | undefined,
  cwd: string,
  readEnv: (name: string) => string | undefined,
  os: string,
): string {
  if (flag !== undefined) {
    if (flag === "") throw new Error("--root needs a folder");
    return resolve(cwd, flag);
  }
  const fromEnv = readEnv("DENO_INSTALL_ROOT");
  if (fromEnv !== undefined && fromEnv !== "") return resolve(cwd, fromEnv);
  const home = readEnv(os === "windows" ? "USERPROFILE" : "HOME");
  if (home === undefined || !isAbsolute(home)) {
    throw new Error("cannot tell the install root (no DENO_INSTALL_ROOT or home folder): pass --root DIR");
  }
  return join(home, ".deno");
}

/** A word as a POSIX shell would need it quoted (for the printed commands only; nothing runs a shell). */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The `--help` text. */
export const INSTALL_HELP = `deno task install [--root DIR] [--name-suffix SUFFIX] [--force] [--dry-run]

Installs bxp-cli and bxp-mcp from this checkout with 'deno install -g': two small launchers in DIR/bin that
run the checkout's modules with exactly the Deno permission flags of the bxp-cli / bxp-mcp tasks in deno.json.
Keep the checkout where it is: the launchers run it in place (a git pull updates them; after a change to
deno.json, install again with --force). An installed bxp-mcp runs this checkout's bxp-cli for bxp_simulate.

Flags:
  --root DIR            install root; the commands go into DIR/bin (default: $DENO_INSTALL_ROOT, else
                        ~/.deno). A relative DIR is taken from the folder you ran the task in.
  --name-suffix SUFFIX  append SUFFIX to both names (--name-suffix -dev installs bxp-cli-dev, bxp-mcp-dev),
                        to keep a release binary and a checkout side by side
  --force               replace commands of the same names already in DIR/bin
  --dry-run             print the deno install commands, one a line, and install nothing
  --help                print this help and exit

Then put DIR/bin on the PATH, and register bxp-mcp with a client by the absolute path of DIR/bin/bxp-mcp
(docs/guide/install.md).
`;

/** Files a previous install of `name` left in `bin` (`name`, and `name.cmd` on Windows). */
async function existingShims(bin: string, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const file of [name, `${name}.cmd`]) {
    try {
      await Deno.lstat(join(bin, file));
      found.push(join(bin, file));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return found;
}

/**
 * `--name-suffix -dev` as `--name-suffix=-dev`: a suffix usually starts with a dash, which node's parseArgs
 * would otherwise take for a flag.
 */
function joinSuffix(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--name-suffix" && i + 1 < args.length) out.push(`--name-suffix=${args[++i]}`);
    else out.push(args[i]);
  }
  return out;
}

function fail(message: string, code: number): never {
  console.error(`install: ${message}`);
  Deno.exit(code);
}

async function main(args: string[]): Promise<void> {
  let values: { root?: string; "name-suffix"?: string; force?: boolean; "dry-run"?: boolean; help?: boolean };
  try {
    values = parseArgs({
      args: joinSuffix(args),
      options: {
        root: { type: "string" },
        "name-suffix": { type: "string" },
        force: { type: "boolean" },
        "dry-run": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    fail(`${error instanceof Error ? error.message : String(error)} (see --help)`, 2);
  }
  if (values.help) {
    console.log(INSTALL_HELP);
    return;
  }
  const repo = fileURLToPath(new URL("../", import.meta.url));
  // deno task runs in the folder of deno.json; INIT_CWD is where the user typed the command.
  const cwd = Deno.env.get("INIT_CWD") ?? Deno.cwd();
  const entries = Object.keys(ENTRY_MODULES) as EntryPoint[];
  let commands: string[][];
  let root: string;
  try {
    root = installRoot(values.root, cwd, (n) => Deno.env.get(n), Deno.build.os);
    const denoJson = await Deno.readTextFile(join(repo, "deno.json"));
    const options = { repo, root, suffix: values["name-suffix"] ?? "", force: values.force === true };
    commands = entries.map((entry) => installArgs(denoJson, entry, options));
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error), 2);
  }
  if (values["dry-run"]) {
    for (const command of commands) console.log(["deno", ...command].map(shellWord).join(" "));
    return;
  }
  if (!values.force) {
    // Checked for both before installing either, so a refusal never leaves one of the pair replaced.
    const bin = join(root, "bin");
    const found = (await Promise.all(
      entries.map((e) => existingShims(bin, commandName(e, values["name-suffix"] ?? ""))),
    )).flat();
    if (found.length > 0) {
      fail(`already installed: ${found.join(", ")}; pass --force to replace, or --name-suffix to add`, 1);
    }
  }
  for (const command of commands) {
    console.error(["deno", ...command].map(shellWord).join(" "));
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: command,
      stdout: "inherit",
      stderr: "inherit",
    })
      .output();
    if (code !== 0) fail(`deno install failed (exit ${code}); nothing after it was installed`, 1);
  }
  const bin = join(root, "bin");
  console.error(
    `installed ${entries.map((e) => commandName(e, values["name-suffix"] ?? "")).join(" and ")} in ${bin}`,
  );
}

if (import.meta.main) await main(Deno.args);

/**
 * Reads the template library from disk, for bxp-cli and bxp-mcp alike (host code: it reads `Deno.*`): the embedded built-ins, then a
 * `templates/` folder beside the program, then the per-user folder; later ones override by id.
 *
 * "Beside the program" is the folder of the compiled `bxp-cli` binary (`Deno.execPath()`); under
 * `deno run` (the executable is `deno` itself) it is the repository's root, so `templates/` in a checkout
 * plays that part. The user folder is `%APPDATA%\bxp\templates` on Windows, else
 * `$XDG_CONFIG_HOME/bxp/templates`, else `~/.config/bxp/templates`.
 *
 * bxp-mcp's library tools read the same folders through {@link readLibrary}, so the template an agent
 * fetches or lists is the one the user's `bxp-cli --template ID` runs.
 * @module
 */

import { basename, dirname, fromFileUrl, join } from "../util/host_path.ts";
import {
  buildLibrary,
  type LibraryFile,
  type TemplateLibrary,
  type TemplateSource,
} from "../templates/mod.ts";

/** Largest library file read (the config size limit). */
const MAX_TEMPLATE_BYTES = 1024 * 1024;

/** Most files read from one folder: a library is a handful of templates, and bxp-mcp reads it per call. */
const MAX_TEMPLATE_FILES = 512;

/** The folders searched, in override order, with the reason when one cannot be named. */
export function libraryFolders(): { source: TemplateSource; dir: string | null; note: string | null }[] {
  const exec = Deno.execPath();
  const programDir = /^deno(\.exe)?$/i.test(basename(exec))
    ? fromFileUrl(new URL("../../", import.meta.url))
    : dirname(exec);
  const folders: { source: TemplateSource; dir: string | null; note: string | null }[] = [
    { source: "program", dir: join(programDir, "templates"), note: null },
  ];
  try {
    const env = (name: string) => {
      const v = Deno.env.get(name);
      return v === undefined || v === "" ? null : v;
    };
    let dir: string | null = null;
    if (Deno.build.os === "windows") {
      const appData = env("APPDATA");
      if (appData !== null) dir = join(appData, "bxp", "templates");
    } else {
      const xdg = env("XDG_CONFIG_HOME");
      const home = env("HOME");
      if (xdg !== null) dir = join(xdg, "bxp", "templates");
      else if (home !== null) dir = join(home, ".config", "bxp", "templates");
    }
    folders.push({
      source: "user",
      dir,
      note: dir === null ? "no HOME / XDG_CONFIG_HOME / APPDATA set" : null,
    });
  } catch {
    // Deno without --allow-env for these names: the user folder cannot be located.
    folders.push({
      source: "user",
      dir: null,
      note:
        "the per-user templates folder is not read: this program may not read HOME / XDG_CONFIG_HOME / APPDATA",
    });
  }
  return folders;
}

function readFolder(source: TemplateSource, dir: string): { files: LibraryFile[]; problems: string[] } {
  const files: LibraryFile[] = [];
  const problems: string[] = [];
  const names: string[] = [];
  try {
    // Stop reading at the cap: a folder of many files must not stall every call that reads the library.
    for (const e of Deno.readDirSync(dir)) {
      if (!e.isFile || !/\.json5?$/.test(e.name)) continue;
      if (names.length === MAX_TEMPLATE_FILES) {
        problems.push(`skipped the rest of ${dir}: more than ${MAX_TEMPLATE_FILES} template files`);
        break;
      }
      names.push(e.name);
    }
    names.sort();
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) problems.push(`skipped ${dir}: ${(err as Error).message}`);
    return { files, problems };
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (Deno.statSync(path).size > MAX_TEMPLATE_BYTES) {
        problems.push(`skipped ${path}: larger than 1 MiB`);
        continue;
      }
      const text = new TextDecoder("utf-8", { fatal: true }).decode(Deno.readFileSync(path));
      files.push({ source, origin: path, name, text });
    } catch (err) {
      problems.push(`skipped ${path}: ${(err as Error).message}`);
    }
  }
  return { files, problems };
}

let cached: TemplateLibrary | null = null;

/** The library as bxp-cli sees it (read once per process). */
export function loadLibrary(): TemplateLibrary {
  cached ??= readLibrary();
  return cached;
}

/**
 * The library read from disk now (built-ins, program folder, user folder): what {@link loadLibrary} caches,
 * and what a long-lived bxp-mcp reads per call so a template the user adds or edits is seen at once.
 */
export function readLibrary(): TemplateLibrary {
  const files: LibraryFile[] = [];
  const problems: string[] = [];
  for (const f of libraryFolders()) {
    if (f.dir === null) {
      if (f.note !== null) problems.push(f.note);
      continue;
    }
    const found = readFolder(f.source, f.dir);
    files.push(...found.files);
    problems.push(...found.problems);
  }
  const lib = buildLibrary(files);
  return { templates: lib.templates, problems: [...problems, ...lib.problems] };
}

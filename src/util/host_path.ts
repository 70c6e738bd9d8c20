/**
 * Path functions for this process's platform, for the adapters (bxp-cli, bxp-mcp): `posix_path.ts` with the
 * process's working directory on Linux and macOS, so a start loads no `node:` module (Deno's Node layer costs
 * 10-30 ms to load), and `node:path` / `node:url` on Windows, where drive letters and UNC roots need them.
 * The core never imports this module: it reads the process's platform and directory.
 *
 * @example
 * ```ts
 * import { join, resolve } from "./host_path.ts";
 * import assert from "node:assert/strict";
 * // under the working directory
 * assert.equal(resolve(join("data", "in.csv")), resolve(Deno.cwd(), "data", "in.csv"));
 * ```
 * @module
 */

import * as posix from "./posix_path.ts";

/** The path functions the adapters use, with `node:path`'s meaning. */
interface HostPath {
  readonly sep: string;
  isAbsolute(path: string): boolean;
  join(...parts: string[]): string;
  resolve(...parts: string[]): string;
  relative(from: string, to: string): string;
  dirname(path: string): string;
  basename(path: string): string;
  /** `node:path`'s `parse(path).root`. */
  rootOf(path: string): string;
  /** `node:url`'s `fileURLToPath`. */
  fromFileUrl(url: URL | string): string;
}

async function windowsPath(): Promise<HostPath> {
  const [path, url] = await Promise.all([import("node:path"), import("node:url")]);
  return {
    sep: path.sep,
    isAbsolute: path.isAbsolute,
    join: path.join,
    resolve: path.resolve,
    relative: path.relative,
    dirname: path.dirname,
    basename: (p) => path.basename(p),
    rootOf: (p) => path.parse(p).root,
    fromFileUrl: url.fileURLToPath,
  };
}

const cwd = () => Deno.cwd();

const host: HostPath = Deno.build.os === "windows" ? await windowsPath() : {
  sep: posix.sep,
  isAbsolute: posix.isAbsolute,
  join: posix.join,
  resolve: (...parts) => posix.resolveFrom(cwd, ...parts),
  relative: (from, to) => posix.relativeFrom(cwd, from, to),
  dirname: posix.dirname,
  basename: posix.basename,
  rootOf: posix.rootOf,
  fromFileUrl: posix.fromFileUrl,
};

/** The path separator. */
export const sep: string = host.sep;
/** Whether `path` is absolute. */
export const isAbsolute: HostPath["isAbsolute"] = host.isAbsolute;
/** The non-empty parts joined and normalized ("." for none). */
export const join: HostPath["join"] = host.join;
/** The absolute path the parts lead to, from the working directory unless one of them is absolute. */
export const resolve: HostPath["resolve"] = host.resolve;
/** The path from `from` to `to` ("" for the same place). */
export const relative: HostPath["relative"] = host.relative;
/** Everything before the last segment. */
export const dirname: HostPath["dirname"] = host.dirname;
/** The last segment. */
export const basename: HostPath["basename"] = host.basename;
/** The root of `path` ("" for a relative one). */
export const rootOf: HostPath["rootOf"] = host.rootOf;
/** The path a `file:` URL names. */
export const fromFileUrl: HostPath["fromFileUrl"] = host.fromFileUrl;

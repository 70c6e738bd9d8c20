/**
 * POSIX path arithmetic with `node:path`'s answers (its `posix` functions, checked against them by a
 * differential test), without loading Deno's Node compatibility layer: the first `node:` module a thread
 * imports costs it 10-30 ms, a good part of bxp-mcp's cold start on a small VM. Pure strings: the working
 * directory comes from the caller.
 *
 * @example
 * ```ts
 * import { dirname, join, relativeFrom, resolveFrom } from "./posix_path.ts";
 * import assert from "node:assert/strict";
 * const cwd = () => "/work";
 * assert.equal(join("data", "../out/", "x.csv"), "out/x.csv");
 * assert.equal(resolveFrom(cwd, "data", "..", "x"), "/work/x");
 * assert.equal(relativeFrom(cwd, "a/b", "/work/c"), "../../c");
 * assert.equal(dirname("/work/a/b/"), "/work/a");
 * ```
 * @module
 */

const SLASH = 0x2f;

/** The path separator. */
export const sep = "/";

/** Whether `path` starts at the root. */
export function isAbsolute(path: string): boolean {
  return path.charCodeAt(0) === SLASH;
}

/** The root of `path`: `/` for an absolute path, else "" (what `node:path`'s `parse(path).root` is). */
export function rootOf(path: string): string {
  return isAbsolute(path) ? "/" : "";
}

/**
 * The segments of `path` with `.` and empty ones dropped and each `..` taking away the one before it; a
 * `..` with nothing before it is kept when `aboveRoot` allows (a relative path), else dropped.
 */
function resolvedSegments(path: string, aboveRoot: boolean): string[] {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") out.push(segment);
    else if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else if (aboveRoot) out.push("..");
  }
  return out;
}

/** `path` with `.`, `..` and repeated slashes resolved; a trailing slash stays; "" becomes ".". */
export function normalize(path: string): string {
  if (path === "") return ".";
  const absolute = isAbsolute(path);
  let body = resolvedSegments(path, !absolute).join("/");
  if (body === "" && !absolute) body = ".";
  if (body !== "" && path.charCodeAt(path.length - 1) === SLASH) body += "/";
  return absolute ? `/${body}` : body;
}

/** The non-empty `parts` joined by slashes, normalized; "." when there are none. */
export function join(...parts: string[]): string {
  const joined = parts.filter((part) => part !== "").join("/");
  return joined === "" ? "." : normalize(joined);
}

/**
 * The absolute path `parts` lead to, read right to left up to the first absolute one, else from `cwd`
 * (a function, so a caller that never needs it never asks). No trailing slash.
 */
export function resolveFrom(cwd: () => string, ...parts: string[]): string {
  let path = "";
  for (let i = parts.length - 1; i >= -1 && !isAbsolute(path); i--) {
    const part = i >= 0 ? parts[i] : cwd();
    if (part !== "") path = path === "" ? part : `${part}/${path}`;
  }
  const absolute = isAbsolute(path);
  const body = resolvedSegments(path, !absolute).join("/");
  return absolute ? `/${body}` : body === "" ? "." : body;
}

/** The path from `from` to `to`, both resolved from `cwd` first; "" when they are the same place. */
export function relativeFrom(cwd: () => string, from: string, to: string): string {
  if (from === to) return "";
  const a = resolveFrom(cwd, from);
  const b = resolveFrom(cwd, to);
  if (a === b) return "";
  const fromSegments = a.split("/").filter((s) => s !== "");
  const toSegments = b.split("/").filter((s) => s !== "");
  let common = 0;
  while (
    common < fromSegments.length && common < toSegments.length &&
    fromSegments[common] === toSegments[common]
  ) common++;
  const up = fromSegments.slice(common).map(() => "..");
  return [...up, ...toSegments.slice(common)].join("/");
}

/**
 * Everything before the last segment: trailing slashes ignored, the slash before that segment dropped
 * (any slashes before it kept); `/` or `.` when there is no such slash, `//` for `//x`.
 */
export function dirname(path: string): string {
  if (path === "") return ".";
  const absolute = isAbsolute(path);
  let end = -1;
  let sawSegment = false;
  for (let i = path.length - 1; i >= 1; i--) {
    if (path.charCodeAt(i) !== SLASH) sawSegment = true;
    else if (sawSegment) {
      end = i;
      break;
    }
  }
  if (end === -1) return absolute ? "/" : ".";
  if (absolute && end === 1) return "//";
  return path.slice(0, end);
}

/** The last segment, trailing slashes ignored; "" for `/` or "". */
export function basename(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === SLASH) end--;
  return path.slice(path.lastIndexOf("/", end - 1) + 1, end);
}

/**
 * The path a `file:` URL names (`node:url`'s `fileURLToPath` on POSIX). Throws a `TypeError` for another
 * scheme, a host, or an encoded slash.
 */
export function fromFileUrl(url: URL | string): string {
  const u = typeof url === "string" ? new URL(url) : url;
  if (u.protocol !== "file:") throw new TypeError(`not a file URL: ${u.href}`);
  if (u.hostname !== "") throw new TypeError(`a file URL with a host has no POSIX path: ${u.href}`);
  if (/%2f/i.test(u.pathname)) throw new TypeError(`a file URL path holds an encoded '/': ${u.href}`);
  return decodeURIComponent(u.pathname);
}

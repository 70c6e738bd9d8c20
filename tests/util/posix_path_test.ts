/**
 * Our POSIX path functions against `node:path`'s `posix` ones (and `node:url`'s `fileURLToPath`), on paths
 * built from the segments that make path code go wrong: empty, `.`, `..`, `...`, repeated and trailing
 * slashes, backslashes (plain characters on POSIX), spaces, non-ASCII and percent signs.
 */

import assert from "node:assert/strict";
import { posix } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import {
  basename,
  dirname,
  fromFileUrl,
  isAbsolute,
  join,
  normalize,
  relativeFrom,
  resolveFrom,
  rootOf,
} from "../../src/util/posix_path.ts";

const SEGMENTS = ["", ".", "..", "...", "a", "b", "ab", ".a", "a.", " ", "\\", "é", "%2F", "~"];

/** A path: segments joined by one or two slashes, with or without a leading and a trailing slash. */
const path = fc.tuple(
  fc.boolean(),
  fc.array(fc.tuple(fc.constantFrom(...SEGMENTS), fc.constantFrom("/", "//")), { maxLength: 6 }),
  fc.boolean(),
).map(([lead, parts, trail]) => {
  const body = parts.map(([segment, slash], i) => (i === 0 ? "" : slash) + segment).join("");
  return (lead ? "/" : "") + body + (trail ? "/" : "");
});

const RUNS = { seed: 0x706174, numRuns: 3000 };
const CWD = "/work/x/../cwd";
const cwd = () => CWD;

Deno.test("posix path: single-path functions answer as node:path's posix ones", () => {
  const fixed = [
    "",
    "/",
    "//",
    "///",
    ".",
    "..",
    "./",
    "../",
    "/..",
    "//a",
    "/a//b",
    "a/",
    "a//",
    "/a/b/",
    "\\a",
  ];
  const check = (p: string) => {
    assert.equal(normalize(p), posix.normalize(p), `normalize ${JSON.stringify(p)}`);
    assert.equal(dirname(p), posix.dirname(p), `dirname ${JSON.stringify(p)}`);
    assert.equal(basename(p), posix.basename(p), `basename ${JSON.stringify(p)}`);
    assert.equal(isAbsolute(p), posix.isAbsolute(p), `isAbsolute ${JSON.stringify(p)}`);
    assert.equal(rootOf(p), posix.parse(p).root, `rootOf ${JSON.stringify(p)}`);
  };
  fixed.forEach(check);
  fc.assert(fc.property(path, check), RUNS);
});

Deno.test("posix path: join, resolve and relative answer as node:path's posix ones", () => {
  fc.assert(
    fc.property(fc.array(path, { maxLength: 4 }), (parts) => {
      assert.equal(join(...parts), posix.join(...parts), `join ${JSON.stringify(parts)}`);
      // node resolves a relative path from the process's directory: give it ours explicitly.
      assert.equal(
        resolveFrom(cwd, ...parts),
        posix.resolve(CWD, ...parts),
        `resolve ${JSON.stringify(parts)}`,
      );
    }),
    RUNS,
  );
  fc.assert(
    fc.property(path, path, (from, to) => {
      const expected = posix.relative(posix.resolve(CWD, from), posix.resolve(CWD, to));
      assert.equal(relativeFrom(cwd, from, to), expected, `relative ${JSON.stringify([from, to])}`);
    }),
    RUNS,
  );
  assert.equal(resolveFrom(cwd), "/work/cwd");
  assert.equal(relativeFrom(cwd, "", "."), "");
});

Deno.test("posix path: the working directory is asked for only when a path is relative", () => {
  let asked = 0;
  const counting = () => {
    asked++;
    return "/w";
  };
  assert.equal(resolveFrom(counting, "a", "/b", "c"), "/b/c");
  assert.equal(asked, 0);
  assert.equal(resolveFrom(counting, "a"), "/w/a");
  assert.equal(asked, 1);
});

Deno.test("posix path: fromFileUrl answers as node:url's fileURLToPath and refuses what it refuses", () => {
  fc.assert(
    fc.property(path, (p) => {
      const url = pathToFileURL(posix.resolve("/", p));
      assert.equal(fromFileUrl(url), fileURLToPath(url), url.href);
      assert.equal(fromFileUrl(url.href), fileURLToPath(url.href), url.href);
    }),
    RUNS,
  );
  assert.equal(fromFileUrl("file://localhost/a%20b"), fileURLToPath("file://localhost/a%20b"));
  for (const bad of ["https://x/a", "file://host/a", "file:///a%2Fb", "file:///a%2fb"]) {
    assert.throws(() => fileURLToPath(bad), bad);
    assert.throws(() => fromFileUrl(bad), TypeError, bad);
  }
});

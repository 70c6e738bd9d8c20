/**
 * The project-root guard: textual rules, component-wise containment, symlinks (folder, file, dangling),
 * hardlinks, non-regular files, size caps, and a root that changed after startup. Every refusal must fail
 * closed (a PathGuardError naming the path, nothing read).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { loadNodeFs } from "../../../src/mcp/security/node_fs.ts";
import { join } from "node:path";
import { makeBox } from "./_box.ts";
import {
  displayPath,
  isInside,
  MAX_COMPONENT_BYTES,
  MAX_PATH_BYTES,
  PathGuardError,
  ProjectRoot,
  protectedFolderIn,
  relativeParts,
  verifyOpenedSync,
} from "../../../src/mcp/security/paths.ts";

const posix = Deno.build.os !== "windows";

function refusedWith(reason: string, pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof PathGuardError, `expected a PathGuardError, got ${error}`);
    assert.equal(error.reason, reason, error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

const READ = { maxBytes: 1024, what: "Config" };

Deno.test("relativeParts: normalizes '.' and inner '..', keeps '/' as the only separator", () => {
  assert.deepEqual(relativeParts("configs/./a.json"), ["configs", "a.json"]);
  assert.deepEqual(relativeParts("configs//a.json"), ["configs", "a.json"]);
  assert.deepEqual(relativeParts("configs/x/../a.json"), ["configs", "a.json"]);
  assert.deepEqual(relativeParts("a b/ü.json"), ["a b", "ü.json"]);
});

Deno.test("relativeParts refuses empty, NUL, control, absolute, drive, backslash, escapes and over-long paths", () => {
  const cases: [string, string, RegExp][] = [
    ["", "invalid-path", /A non-empty path relative to the project root is required/],
    ["a\0b.json", "invalid-path", /NUL byte: a\\u0000b\.json/],
    ["a\nb.json", "invalid-path", /control character/],
    ["/etc/passwd", "invalid-path", /Path must be relative to the project root: \/etc\/passwd/],
    ["C:/x.json", "invalid-path", /must be relative/],
    ["c:x.json", "invalid-path", /must be relative/],
    ["\\\\server\\share\\x.json", "invalid-path", /must be relative/],
    ["~/x.json", "invalid-path", /must be relative/],
    ["configs\\x.json", "invalid-path", /separator/],
    ["..", "outside-root", /must stay inside the project root: \.\./],
    ["../root-evil/x.json", "outside-root", /must stay inside/],
    ["configs/../../x.json", "outside-root", /must stay inside/],
    [".", "invalid-path", /must name a file/],
    ["configs/..", "invalid-path", /must name a file/],
    ["a/".repeat(MAX_PATH_BYTES), "invalid-path", /too long \(\d+ bytes; the limit is 1024\)/],
    ["x".repeat(MAX_COMPONENT_BYTES + 1), "invalid-path", /longer than 255 bytes/],
    [Array(40).fill("d").join("/"), "invalid-path", /more than 32 components/],
  ];
  for (const [input, reason, pattern] of cases) {
    assert.throws(() => relativeParts(input), refusedWith(reason, pattern), JSON.stringify(input));
  }
});

Deno.test("relativeParts on Windows also refuses reserved names and characters", () => {
  for (const bad of ["CON", "nul.json", "a:b.json", "x?.json", "trailing.", "com1.json5"]) {
    assert.throws(() => relativeParts(bad, "windows"), PathGuardError, bad);
    assert.doesNotThrow(() => relativeParts(bad.replace(/[?:]/, "_"), "linux"));
  }
});

Deno.test("a refused over-long path is echoed clipped, not whole", () => {
  const long = "a".repeat(5000);
  try {
    relativeParts(long);
    assert.fail("must throw");
  } catch (error) {
    assert.ok(error instanceof PathGuardError);
    assert.ok(error.message.length < 400, error.message.length.toString());
  }
  assert.equal(displayPath("x\u0001"), "x\\u0001");
});

Deno.test("isInside compares whole components (sibling prefix is outside)", () => {
  const base = posix ? "/srv/root" : "C:\\srv\\root";
  const sibling = posix ? "/srv/root-evil/x" : "C:\\srv\\root-evil\\x";
  const inner = posix ? "/srv/root/a/b" : "C:\\srv\\root\\a\\b";
  const parent = posix ? "/srv" : "C:\\srv";
  assert.equal(isInside(base, base), true);
  assert.equal(isInside(base, inner), true);
  assert.equal(isInside(base, sibling), false);
  assert.equal(isInside(base, parent), false);
  assert.equal(isInside(base, posix ? "/srv/root/..x/y" : "C:\\srv\\root\\..x\\y"), true);
});

Deno.test("ProjectRoot.open takes the real path once and refuses a missing root or a file", async () => {
  const { box, root } = await makeBox();
  try {
    if (posix) {
      await Deno.symlink(root, join(box, "alias"));
      assert.equal((await ProjectRoot.open(join(box, "alias"))).path, root);
    }
    await assert.rejects(
      ProjectRoot.open(join(box, "missing")),
      refusedWith("unreadable", /Project root does not exist or is not readable: .*missing/),
    );
    await assert.rejects(
      ProjectRoot.open(join(root, "configs", "ok.json5")),
      refusedWith("not-regular", /not a directory/),
    );
  } finally {
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test("readText reads a file inside the root; sibling-prefix, '..' and absolute paths are refused", async () => {
  const { box, root } = await makeBox();
  try {
    await Deno.mkdir(join(box, "root-evil"));
    await Deno.writeTextFile(join(box, "root-evil", "x.json"), "evil");
    const guard = await ProjectRoot.open(root);
    assert.deepEqual(await guard.readText("configs/ok.json5", READ), {
      relative: "configs/ok.json5",
      text: "{ a: 1 }",
    });
    assert.equal((await guard.readText("./configs/../configs/ok.json5", READ)).text, "{ a: 1 }");
    await assert.rejects(guard.readText("../root-evil/x.json", READ), refusedWith("outside-root", /inside/));
    await assert.rejects(
      guard.readText(join(box, "root-evil", "x.json"), READ),
      refusedWith("invalid-path", /relative/),
    );
    await assert.rejects(
      guard.readText("configs/none.json", READ),
      refusedWith("not-found", /Config file not found: configs\/none\.json/),
    );
    await assert.rejects(guard.readText("configs", READ), refusedWith("not-regular", /Not a regular file/));
    await assert.rejects(
      guard.readText("configs/ok.json5/x", READ),
      refusedWith("not-regular", /not a directory: configs\/ok\.json5/),
    );
  } finally {
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test({
  name: "symlinked folder, symlinked file and dangling symlink are refused, even pointing inside the root",
  ignore: !posix,
  async fn() {
    const { box, root, outside, secret } = await makeBox();
    try {
      await Deno.symlink(outside, join(root, "evil"));
      await Deno.symlink(secret, join(root, "filelink.json"));
      await Deno.symlink(join(outside, "nothing.json"), join(root, "dangling.json"));
      await Deno.symlink(join(root, "configs", "ok.json5"), join(root, "inner.json5"));
      await Deno.symlink(join(root, "configs"), join(root, "innerdir"));
      const guard = await ProjectRoot.open(root);
      await assert.rejects(
        guard.readText("evil/secret.json", READ),
        refusedWith("symlink", /Path goes through a symbolic link: evil$/),
      );
      await assert.rejects(
        guard.readText("filelink.json", READ),
        refusedWith("symlink", /Path is a symbolic link: filelink\.json/),
      );
      await assert.rejects(guard.readText("dangling.json", READ), refusedWith("symlink", /symbolic link/));
      await assert.rejects(guard.readText("inner.json5", READ), refusedWith("symlink", /symbolic link/));
      await assert.rejects(
        guard.readText("innerdir/ok.json5", READ),
        refusedWith("symlink", /symbolic link/),
      );
      // '..' after a link is folded lexically first, so it never reaches the link.
      assert.equal((await guard.readText("evil/../configs/ok.json5", READ)).text, "{ a: 1 }");
    } finally {
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test({
  name: "a hardlink to an outside file is refused for reading",
  ignore: !posix,
  async fn() {
    const { box, root, secret } = await makeBox();
    try {
      await Deno.link(secret, join(root, "hard.json"));
      const guard = await ProjectRoot.open(root);
      await assert.rejects(guard.readText("hard.json", READ), refusedWith("hardlink", /other hard links/));
    } finally {
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test({
  name: "a FIFO is refused without being opened (an open would block)",
  ignore: !posix,
  async fn() {
    const { box, root } = await makeBox();
    try {
      const made = await new Deno.Command("mkfifo", { args: [join(root, "pipe.json")] }).output();
      assert.equal(made.code, 0);
      const guard = await ProjectRoot.open(root);
      await assert.rejects(
        guard.readText("pipe.json", READ),
        refusedWith("not-regular", /Not a regular file/),
      );
    } finally {
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test("reads are capped: a file over maxBytes is refused before it is read", async () => {
  const { box, root } = await makeBox();
  try {
    await Deno.writeFile(join(root, "big.csv"), new Uint8Array(2048).fill(0x61));
    const guard = await ProjectRoot.open(root);
    await assert.rejects(
      guard.readFile("big.csv", { maxBytes: 2047, what: "CSV input" }),
      refusedWith("too-large", /CSV input file is 2048 bytes, over the 2047-byte limit: big\.csv/),
    );
    assert.equal((await guard.readFile("big.csv", { maxBytes: 2048, what: "CSV input" })).bytes.length, 2048);
  } finally {
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test({
  name: "a root replaced by a symlink after startup is refused",
  ignore: !posix,
  async fn() {
    const { box, root, outside } = await makeBox();
    try {
      const guard = await ProjectRoot.open(root);
      await Deno.rename(root, join(box, "moved"));
      await Deno.symlink(outside, root);
      await assert.rejects(
        guard.readText("secret.json", READ),
        refusedWith("changed", /Project root changed/),
      );
    } finally {
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test("protected folders are matched by whole name, case-insensitively", () => {
  assert.equal(protectedFolderIn(["a", ".GIT", "hooks"]), ".GIT");
  assert.equal(protectedFolderIn(["node_modules"]), "node_modules");
  assert.equal(protectedFolderIn(["gitx", ".github", "vendor"]), null);
});

Deno.test("readHead reads a bounded prefix of a large file through the same guard", async () => {
  const { box, root, outside } = await makeBox();
  try {
    await Deno.writeTextFile(join(root, "configs", "big.csv"), "x".repeat(5000));
    const guard = await ProjectRoot.open(root);
    const head = await guard.readHead("configs/big.csv", { maxBytes: 100, what: "CSV" });
    assert.equal(head.bytes.length, 100);
    assert.equal(head.size, 5000);
    assert.equal(head.truncated, true);
    const small = await guard.readHead("configs/ok.json5", { maxBytes: 100, what: "CSV" });
    assert.equal(new TextDecoder().decode(small.bytes), "{ a: 1 }");
    assert.equal(small.truncated, false);
    if (posix) {
      await Deno.symlink(outside, join(root, "evil"));
      await assert.rejects(
        guard.readHead("evil/secret.json", { maxBytes: 100, what: "CSV" }),
        PathGuardError,
      );
    }
  } finally {
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test({
  name: "verifyOpenedSync refuses a descriptor whose file is no longer the one the path names",
  ignore: !posix,
  async fn() {
    const { box, root } = await makeBox();
    await loadNodeFs(); // the path-based checks' contract (reads beneath a descriptor no longer load it)
    try {
      const file = join(root, "configs", "ok.json5");
      const fd = fs.openSync(file, "r");
      try {
        const id = verifyOpenedSync(fd, [], file, null, "configs/ok.json5");
        // Swap the file for another one under the same name: the descriptor is now a different object.
        await Deno.writeTextFile(join(root, "configs", "other.json5"), "{}");
        await Deno.rename(join(root, "configs", "other.json5"), file);
        assert.throws(
          () => verifyOpenedSync(fd, [], file, id, "configs/ok.json5"),
          (e: unknown) => e instanceof PathGuardError && e.reason === "changed" && !e.message.includes(box),
        );
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test("a changed root is reported without the server's absolute path", async () => {
  const { box, root } = await makeBox();
  try {
    const guard = await ProjectRoot.open(root);
    await Deno.rename(root, join(box, "moved"));
    await Deno.mkdir(root);
    await assert.rejects(
      guard.readText("configs/ok.json5", READ),
      (e: unknown) => e instanceof PathGuardError && e.reason === "changed" && !e.message.includes(box),
    );
  } finally {
    await Deno.remove(box, { recursive: true });
  }
});

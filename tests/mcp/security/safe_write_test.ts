/**
 * The safe writer: exclusive creation, temp + rename replacement with identity re-checks, overwrite
 * semantics, extension and size caps, and links planted before or after the check. After every refusal
 * the outside world and the target must be byte-identical.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ProjectRoot } from "../../../src/mcp/security/paths.ts";
import {
  checkWriteTarget,
  CONFIG_WRITE_RULES,
  writeChecked,
  WriteRefusedError,
} from "../../../src/mcp/security/safe_write.ts";
import { makeBox } from "./_box.ts";

const posix = Deno.build.os !== "windows";
const bytes = (text: string) => new TextEncoder().encode(text);
const rules = CONFIG_WRITE_RULES;

function refusedWith(reason: string, pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof WriteRefusedError, `expected a WriteRefusedError, got ${error}`);
    assert.equal(error.reason, reason, error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

async function write(root: ProjectRoot, path: string, text: string, overwrite = false, createDirs = false) {
  const target = await checkWriteTarget(root, path, rules);
  return await writeChecked(target, bytes(text), { overwrite, rules, createDirs });
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("creates a new file (missing folders only with createDirs), then replaces it only with overwrite", async () => {
  const { box, root } = await makeBox();
  try {
    const guard = await ProjectRoot.open(root);
    await assert.rejects(
      write(guard, "new/deeper/a.json5", "{ v: 1 }"),
      refusedWith("missing-folder", /^Folder new does not exist\. Pass create_dirs: true/),
    );
    assert.deepEqual(await listing(root), ["configs"], "nothing created without createDirs");
    assert.equal(await write(guard, "new/deeper/a.json5", "{ v: 1 }", false, true), "created");
    if (posix) {
      assert.equal((await Deno.stat(join(root, "new"))).mode! & 0o700, 0o700, "created folders are usable");
      assert.equal((await Deno.stat(join(root, "new/deeper/a.json5"))).nlink, 1, "the temp link is gone");
    }
    assert.equal(await Deno.readTextFile(join(root, "new/deeper/a.json5")), "{ v: 1 }");
    await assert.rejects(
      write(guard, "new/deeper/a.json5", "{ v: 2 }"),
      refusedWith("exists", /new\/deeper\/a\.json5 already exists\. Pass overwrite: true to replace it\./),
    );
    assert.equal(await write(guard, "new/deeper/a.json5", "{ v: 2 }", true), "updated");
    assert.equal(await Deno.readTextFile(join(root, "new/deeper/a.json5")), "{ v: 2 }");
    await assert.rejects(
      write(guard, "none.json", "{}", true),
      refusedWith("missing-file", /none\.json does not exist, so there is nothing to overwrite/),
    );
    assert.deepEqual(await listing(join(root, "new/deeper")), ["a.json5"], "no temp file left behind");
  } finally {
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test("only .json / .json5 targets; size cap; paths outside the root refused", async () => {
  const { box, root } = await makeBox();
  try {
    const guard = await ProjectRoot.open(root);
    for (const name of ["a.txt", "a.json.bak", ".json", "configs", "a.js"]) {
      await assert.rejects(write(guard, name, "{}"), (e: unknown) => e instanceof WriteRefusedError, name);
    }
    await assert.rejects(
      write(guard, "a.txt", "{}"),
      refusedWith("extension", /must be a \.json or \.json5 file/),
    );
    assert.equal(await write(guard, "UPPER.JSON", "{}"), "created");
    const big = "x".repeat(rules.maxBytes + 1);
    await assert.rejects(
      write(guard, "big.json", big),
      refusedWith("too-large", /1048577 bytes, over the 1048576/),
    );
    await assert.rejects(
      write(guard, "../x.json", "{}"),
      refusedWith("outside-root", /inside the project root/),
    );
    await assert.rejects(write(guard, "/tmp/x.json", "{}"), refusedWith("invalid-path", /relative/));
    await assert.rejects(write(guard, "a\0.json", "{}"), refusedWith("invalid-path", /NUL/));
    assert.deepEqual(await listing(root), ["UPPER.JSON", "configs"]);
    assert.deepEqual(await listing(box), ["outside", "root"]);
  } finally {
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test({
  name: "never writes through a link: folder link, file link, dangling link, hardlink",
  ignore: !posix,
  async fn() {
    const { box, root, outside, secret } = await makeBox();
    try {
      await Deno.symlink(outside, join(root, "evil"));
      await Deno.symlink(secret, join(root, "filelink.json"));
      await Deno.symlink(join(outside, "created.json"), join(root, "dangling.json"));
      await Deno.link(secret, join(root, "hard.json"));
      const guard = await ProjectRoot.open(root);
      await assert.rejects(
        write(guard, "evil/x.json", "{}"),
        refusedWith("symlink", /through a symbolic link: evil/),
      );
      await assert.rejects(
        write(guard, "evil/secret.json", "{}", true),
        refusedWith("symlink", /symbolic link/),
      );
      await assert.rejects(
        write(guard, "filelink.json", "{}", true),
        refusedWith("symlink", /is a symbolic link/),
      );
      await assert.rejects(write(guard, "dangling.json", "{}"), refusedWith("symlink", /is a symbolic link/));
      await assert.rejects(
        write(guard, "hard.json", "{}", true),
        refusedWith("hardlink", /other hard links/),
      );
      assert.equal(await Deno.readTextFile(secret), '{"secret":true}');
      assert.deepEqual(await listing(outside), ["secret.json"]);
    } finally {
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test({
  name: "a link planted after the check is still refused (new file: O_EXCL; replacement: identity re-check)",
  ignore: !posix,
  async fn() {
    const { box, root, outside, secret } = await makeBox();
    try {
      const guard = await ProjectRoot.open(root);
      // New file: a dangling link appears between the check and the create.
      const fresh = await checkWriteTarget(guard, "late.json", rules);
      await Deno.symlink(join(outside, "late.json"), join(root, "late.json"));
      await assert.rejects(
        writeChecked(fresh, bytes("{}"), { overwrite: false, rules }),
        refusedWith("exists", /appeared/),
      );
      assert.deepEqual(await listing(outside), ["secret.json"]);

      // Replacement: the checked file is swapped for a link to the secret.
      await Deno.writeTextFile(join(root, "swap.json"), "{ old: 1 }");
      const existing = await checkWriteTarget(guard, "swap.json", rules);
      await Deno.remove(join(root, "swap.json"));
      await Deno.symlink(secret, join(root, "swap.json"));
      await assert.rejects(
        writeChecked(existing, bytes("{ new: 1 }"), { overwrite: true, rules }),
        refusedWith("changed", /changed while it was being replaced/),
      );
      assert.equal(await Deno.readTextFile(secret), '{"secret":true}');
      assert.ok(
        (await Deno.lstat(join(root, "swap.json"))).isSymlink,
        "the planted link is left, not followed",
      );

      // A folder on the way swapped for a link between the check and the write.
      await Deno.mkdir(join(root, "sub"));
      const inSub = await checkWriteTarget(guard, "sub/x.json", rules);
      await Deno.rename(join(root, "sub"), join(root, "sub-old"));
      await Deno.symlink(outside, join(root, "sub"));
      await assert.rejects(
        writeChecked(inSub, bytes("{}"), { overwrite: false, rules }),
        refusedWith("changed", /folder on the way changed/),
      );
      assert.deepEqual(await listing(outside), ["secret.json"]);
      assert.ok(!(await listing(root)).some((n) => n.endsWith(".bxp-tmp")), "temp files are cleaned up");
    } finally {
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test("a replacement of a file whose content changed (same inode) still goes ahead atomically", async () => {
  const { box, root } = await makeBox();
  try {
    const guard = await ProjectRoot.open(root);
    const target = await checkWriteTarget(guard, "configs/ok.json5", rules);
    assert.equal(target.exists, true);
    assert.equal(await writeChecked(target, bytes("{ b: 2 }"), { overwrite: true, rules }), "updated");
    assert.equal(await Deno.readTextFile(join(root, "configs/ok.json5")), "{ b: 2 }");
  } finally {
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test("never writes inside version-control or dependency folders, at any depth and any case", async () => {
  const { box, root } = await makeBox();
  try {
    await Deno.mkdir(join(root, "sub/.git"), { recursive: true });
    await Deno.mkdir(join(root, "node_modules/pkg"), { recursive: true });
    const guard = await ProjectRoot.open(root);
    for (const path of [".git/config.json", "sub/.git/x.json", "node_modules/pkg/a.json", "x/.HG/a.json"]) {
      await assert.rejects(
        write(guard, path, "{}", false, true),
        refusedWith("protected-folder", /version-control or dependency folder/),
        path,
      );
    }
    assert.deepEqual(await listing(join(root, "sub/.git")), []);
    assert.deepEqual(await listing(join(root, "node_modules/pkg")), []);
    assert.equal(
      await write(guard, "gitnotes/.gitkeep.json", "{}", false, true),
      "created",
      "only whole names",
    );
  } finally {
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test({
  name: "an overwrite keeps the target's mode and refuses a read-only target",
  ignore: !posix,
  async fn() {
    const { box, root } = await makeBox();
    try {
      const guard = await ProjectRoot.open(root);
      const file = join(root, "configs/ok.json5");
      await Deno.chmod(file, 0o640);
      assert.equal(await write(guard, "configs/ok.json5", "{ b: 2 }", true), "updated");
      assert.equal((await Deno.stat(file)).mode! & 0o777, 0o640);
      await Deno.chmod(file, 0o444);
      await assert.rejects(
        write(guard, "configs/ok.json5", "{ c: 3 }", true),
        refusedWith(
          "read-only",
          /read-only \(no owner write permission\); not replacing it: configs\/ok\.json5/,
        ),
      );
      assert.equal(await Deno.readTextFile(file), "{ b: 2 }");
      assert.deepEqual(await listing(join(root, "configs")), ["ok.json5"]);
    } finally {
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test("refusals never carry the server's absolute paths", async () => {
  const { box, root } = await makeBox();
  try {
    const guard = await ProjectRoot.open(root);
    await Deno.writeTextFile(join(root, "configs/dir.json"), "x");
    const messages: string[] = [];
    for (
      const [path, overwrite, dirs] of [["configs/ok.json5", false, false], [
        "q/r.json",
        false,
        false,
      ]] as const
    ) {
      await write(guard, path, "{}", overwrite, dirs).catch((e: Error) => messages.push(e.message));
    }
    // A folder that cannot be created (a file is in the way).
    await Deno.writeTextFile(join(root, "blocker"), "");
    await write(guard, "blocker/x.json", "{}", false, true).catch((e: Error) => messages.push(e.message));
    assert.equal(messages.length, 3, messages.join("\n"));
    for (const message of messages) assert.ok(!message.includes(box), message);
  } finally {
    await Deno.remove(box, { recursive: true });
  }
});

Deno.test("a target with a 255-byte name and missing 255-byte folders is written (temporaries stay short)", async () => {
  const { box, root } = await makeBox();
  try {
    const guard = await ProjectRoot.open(root);
    const folder = "f".repeat(255);
    const name = "n".repeat(250) + ".json";
    assert.equal(await write(guard, `${folder}/${name}`, "{}", false, true), "created");
    assert.equal(await write(guard, `${folder}/${name}`, "{ a: 1 }", true), "updated");
    assert.deepEqual(await listing(join(root, folder)), [name]);
  } finally {
    await Deno.remove(box, { recursive: true });
  }
});

/**
 * The fd-relative calls under the path guard (`beneath.ts`), on the real file system: links anywhere on
 * the way are refused by openat2 and by the per-component openat fallback alike, names that are not plain
 * components are refused before any call, and under a sustained attacker process flipping a folder for a
 * link to an outside folder neither resolution ever reads an outside byte or creates an outside file.
 * Also: the C library paths the code tries are exactly the ones deno.json's bxp-mcp task grants.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Beneath,
  BeneathError,
  bindBeneath,
  LIBC_CANDIDATES,
} from "../../../src/mcp/security/beneath.ts";
import { workerPermissions } from "../../../src/mcp/security/sandbox.ts";
import { entryPointFlags } from "../../../src/distribution/mod.ts";
import { REPO_ROOT } from "../../_support/processes.ts";

const supported = Deno.build.os === "linux" || Deno.build.os === "darwin";
const attacker = fileURLToPath(new URL("./fixtures/flip_attacker.ts", import.meta.url));

/** Each resolution this platform has: openat2 (Linux 5.6+) and the per-component fallback. */
function bindings(): Beneath[] {
  const all = [bindBeneath({ openat2: true }), bindBeneath({ openat2: false })];
  const seen = all.filter((b): b is Beneath => b !== null);
  assert.ok(seen.length > 0, "the C library binds under -A");
  return seen.filter((b, i) => seen.findIndex((o) => o.method === b.method) === i);
}

const code = (error: unknown) => error instanceof BeneathError ? error.code : String(error);

Deno.test("the C library paths tried are exactly those the bxp-mcp task grants --allow-ffi for", () => {
  const flags = entryPointFlags(Deno.readTextFileSync(new URL("deno.json", REPO_ROOT)), "bxp-mcp");
  const ffi = flags.filter((f) => f.startsWith("--allow-ffi"));
  assert.equal(ffi.length, 1);
  assert.ok(ffi[0].startsWith("--allow-ffi="), "scoped to paths, never the whole FFI");
  assert.deepEqual(ffi[0].slice("--allow-ffi=".length).split(","), Object.values(LIBC_CANDIDATES).flat());
  const plan = { scratchRoot: "/t", root: "/p", allowWrite: false, cliProgram: "/c" };
  assert.deepEqual(workerPermissions(plan, "/lib/libc.so.6").ffi, ["/lib/libc.so.6"]);
  assert.equal(workerPermissions(plan, null).ffi, false);
});

async function makeTree() {
  const box = await Deno.realPath(await Deno.makeTempDir({ prefix: "bxp-beneath-" }));
  const root = join(box, "root");
  const outside = join(box, "outside");
  await Deno.mkdir(join(root, "sub"), { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(root, "sub", "cfg.json5"), "inside");
  await Deno.writeTextFile(join(outside, "cfg.json5"), "OUTSIDE_SECRET");
  await Deno.symlink(outside, join(root, "link"));
  await Deno.symlink(join(outside, "cfg.json5"), join(root, "sub", "file-link"));
  return { box, root, outside };
}

Deno.test({
  name: "openBeneath: a link anywhere on the way is refused, by openat2 and by openat per component",
  ignore: !supported,
  async fn() {
    const { box, root } = await makeTree();
    try {
      for (const fs of bindings()) {
        const rootFd = fs.openRoot(root);
        try {
          const fd = fs.openBeneath(rootFd, ["sub", "cfg.json5"], "read");
          const buffer = new Uint8Array(64);
          const n = await fs.read(fd, buffer, 0, buffer.length);
          assert.equal(new TextDecoder().decode(buffer.subarray(0, n)), "inside", fs.method);
          assert.equal(fs.fstat(fd).kind, "file");
          fs.close(fd);
          for (const parts of [["link", "cfg.json5"], ["link"], ["sub", "file-link"]]) {
            assert.throws(() => fs.openBeneath(rootFd, parts, "read"), (e) => {
              // ENOTDIR: openat(O_DIRECTORY | O_NOFOLLOW) on a link to a folder, in the fallback.
              assert.ok(["ELOOP", "ENOTDIR"].includes(code(e)), `${fs.method} ${parts}: ${code(e)}`);
              return true;
            });
          }
          assert.throws(() => fs.openBeneath(rootFd, ["link"], "dir"), BeneathError);
          for (const bad of [[".."], ["sub", "..", ".."], ["a/b"], [""], ["."], ["a\0b"]]) {
            assert.throws(() => fs.openBeneath(rootFd, bad, "read"), (e) => code(e) === "EINVAL");
          }
          assert.throws(() => fs.createIn(rootFd, "../x.json", 0o644), (e) => code(e) === "EINVAL");
          assert.equal(fs.statIn(rootFd, "link").kind, "link", "fstatat does not follow");
        } finally {
          fs.close(rootFd);
        }
      }
    } finally {
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test({
  name: "a sustained outside attacker flipping a folder: fd-relative reads and writes never leave the root",
  ignore: !supported,
  sanitizeResources: false,
  async fn() {
    const { box, root, outside } = await makeTree();
    const stopFile = join(box, "stop");
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-ffi",
        attacker,
        join(root, "sub"),
        outside,
        stopFile,
        "60000",
      ],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    try {
      for (let poll = 0;; poll++) {
        try {
          await Deno.lstat(`${stopFile}.ready`);
          break;
        } catch {
          assert.ok(poll < 1200, "the attacker started");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      for (const fs of bindings()) {
        const rootFd = fs.openRoot(root);
        let reads = 0, writes = 0, refused = 0;
        const until = Date.now() + 2_000;
        try {
          for (let i = 0; Date.now() < until; i++) {
            try {
              const fd = fs.openBeneath(rootFd, ["sub", "cfg.json5"], "read");
              const buffer = new Uint8Array(64);
              const n = await fs.read(fd, buffer, 0, buffer.length);
              fs.close(fd);
              assert.equal(
                new TextDecoder().decode(buffer.subarray(0, n)),
                "inside",
                `${fs.method} read ${i}`,
              );
              reads++;
            } catch (error) {
              if (error instanceof assert.AssertionError) throw error;
              refused++;
            }
            try {
              const dir = fs.openBeneath(rootFd, ["sub"], "dir");
              try {
                const fd = fs.createIn(dir, `w${fs.method}${i}.json`, 0o644);
                fs.close(fd);
                writes++;
              } finally {
                fs.close(dir);
              }
            } catch (error) {
              if (error instanceof assert.AssertionError) throw error;
              refused++;
            }
          }
        } finally {
          fs.close(rootFd);
        }
        assert.ok(reads > 0 && writes > 0 && refused > 0, `${fs.method}: ${reads} / ${writes} / ${refused}`);
      }
    } finally {
      await Deno.writeTextFile(stopFile, "");
      const out = await child.output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    }
    try {
      const names = [...Deno.readDirSync(outside)].map((e) => e.name);
      assert.deepEqual(names, ["cfg.json5"], "nothing was created outside");
      assert.equal(await Deno.readTextFile(join(outside, "cfg.json5")), "OUTSIDE_SECRET");
    } finally {
      await Deno.remove(box, { recursive: true });
    }
  },
});

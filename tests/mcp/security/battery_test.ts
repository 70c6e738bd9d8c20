/**
 * The security battery against the real bxp-mcp (started with the bxp-mcp task's flags, as the compiled
 * binary bakes them) and against the session's sandbox and subprocess handling. Each case must fail
 * closed: a clear refusal, and nothing created or changed outside the scratch workspace.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { entryPointFlags } from "../../../src/distribution/mod.ts";
import { createBxpServer } from "../../../src/mcp/bxp_server.ts";
import { serveStdio } from "../../../src/mcp/protocol/mod.ts";
import { type SimulateHost, Simulator } from "../../../src/mcp/simulate/mod.ts";
import type { ToolCall } from "../../../src/mcp/protocol/mod.ts";
import { REPO_ROOT } from "../../_support/processes.ts";
import { processGone, resultText, ServerProcess, type Wire } from "../_support/server_process.ts";

const posix = Deno.build.os !== "windows";
const fixtures = new URL("./fixtures/", import.meta.url);
const mcpFlags = entryPointFlags(Deno.readTextFileSync(new URL("deno.json", REPO_ROOT)), "bxp-mcp");

const GOOD_CONFIG = `{
  conversion_templates: {
    t: {
      data_dir: ".",
      file_pattern_in: ".csv",
      file_pattern_out: ".out",
      input_schema: { $a: "UPPER([a])" },
      output_schema: { A: "$a" },
    },
  },
}`;

/** Every file and folder under `dir` with its content (files) — a before/after snapshot. */
async function snapshot(
  dir: string,
  skip: (path: string) => boolean = () => false,
): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = join(at, entry.name);
      if (skip(path)) continue;
      if (entry.isSymlink) seen.set(path, `-> ${await Deno.readLink(path)}`);
      else if (entry.isDirectory) {
        seen.set(path, "dir");
        await walk(path);
      } else seen.set(path, await Deno.readTextFile(path));
    }
  };
  await walk(dir);
  return seen;
}

/** A project folder with a config, a CSV, an outside folder, and the planted links the battery needs. */
async function makeProject() {
  const box = await Deno.realPath(await Deno.makeTempDir({ prefix: "bxp-battery-" }));
  const root = join(box, "root");
  const outside = join(box, "outside");
  await Deno.mkdir(join(root, "configs"), { recursive: true });
  await Deno.mkdir(outside);
  await Deno.mkdir(join(box, "root-evil"));
  await Deno.writeTextFile(join(box, "root-evil", "c.json"), GOOD_CONFIG);
  await Deno.writeTextFile(join(outside, "secret.json"), GOOD_CONFIG);
  await Deno.writeTextFile(join(root, "configs", "bank.json5"), GOOD_CONFIG);
  await Deno.writeTextFile(join(root, "in.csv"), "a\nx\ny\n");
  if (posix) {
    await Deno.symlink(outside, join(root, "evil"));
    await Deno.symlink(join(outside, "secret.json"), join(root, "link.json"));
    await Deno.symlink(join(outside, "nothing.json"), join(root, "dangling.json"));
    await Deno.link(join(outside, "secret.json"), join(root, "hard.json"));
  }
  return { box, root, outside };
}

const HOSTILE_PATHS = [
  "../root-evil/c.json",
  "../outside/secret.json",
  "/etc/passwd",
  "configs/../../outside/secret.json",
  "a\u0000.json",
  "x/".repeat(600) + "a.json",
  "",
  ...(posix ? ["evil/secret.json", "link.json", "dangling.json", "hard.json"] : []),
];

Deno.test({
  name:
    "Deno permissions: the session worker writes only the scratch folder (and the root with --allow-write), " +
    "opens only the C library by FFI",
  async fn() {
    const box = await Deno.makeTempDir({ prefix: "bxp-sandbox-" });
    try {
      for (const mode of ["no", "yes"]) {
        for (const d of ["root", "outside", "tmp"]) await Deno.mkdir(join(box, mode, d), { recursive: true });
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            ...mcpFlags,
            fileURLToPath(new URL("sandbox_probe_main.ts", fixtures)),
            join(box, mode, "tmp", "bxp-mcp-sim"),
            join(box, mode, "root"),
            join(box, mode, "outside"),
            mode,
          ],
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
        const seen = JSON.parse(new TextDecoder().decode(out.stdout));
        const fd = Deno.build.os === "linux" || Deno.build.os === "darwin";
        assert.deepEqual(seen, {
          scratch: "ok",
          root: mode === "yes" ? "ok" : "NotCapable",
          outside: "NotCapable",
          runCli: "ok",
          runOther: "NotCapable",
          net: "NotCapable",
          ffiLibc: fd ? "ok" : "none",
          ffiOther: "NotCapable",
          // After the session worker's sealBeneath(): no FFI left but the bound fd calls, which write only
          // where Deno's write permission reaches.
          ...(fd
            ? {
              afterSeal: "NotCapable",
              fdRoot: mode === "yes" ? "ok" : "BeneathError EACCES",
              fdOutside: "BeneathError EACCES",
            }
            : { afterSeal: "none" }),
          mainWrite: "NotCapable",
          mainFfi: "NotCapable",
        }, `--allow-write ${mode}`);
        assert.deepEqual([...Deno.readDirSync(join(box, mode, "outside"))], []);
        if (fd) {
          const made = [...Deno.readDirSync(join(box, mode, "root"))].map((e) => e.name).sort();
          assert.deepEqual(
            made,
            mode === "yes" ? ["fd.json", "w.json"] : [],
            `root with --allow-write ${mode}`,
          );
        }
      }
    } finally {
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "without --allow-write: no write tool, hostile paths and output names refused, nothing outside scratch changes",
  async fn() {
    const { box, root } = await makeProject();
    const server = await ServerProcess.start(["--root", root]);
    try {
      const tmpBefore = await snapshot(server.tmpDir);
      const boxBefore = await snapshot(box);
      await server.send({ jsonrpc: "2.0", id: "list", method: "tools/list" });
      const names = (await server.response("list")).result.tools.map((t: Wire) => t.name);
      assert.ok(!names.includes("bxp_write_config"), "the write tool is not listed");
      await server.call("w", "bxp_write_config", { path: "configs/new.json", config: GOOD_CONFIG });
      const refused = await server.response("w");
      assert.match(refused.error.message, /Writes are disabled\. Start bxp-mcp with --allow-write/);

      // path arguments: read inside the root; every hostile path is a tool failure naming it.
      await server.call("ok", "bxp_list_templates", { path: "configs/bank.json5" });
      assert.match(resultText(await server.response("ok")), /"id": "t"/);
      let n = 0;
      for (const path of HOSTILE_PATHS) {
        for (const tool of ["bxp_validate", "bxp_list_templates", "bxp_fetch_template"]) {
          const id = `p${n++}`;
          await server.call(id, tool, tool === "bxp_fetch_template" ? { path, id: "t" } : { path });
          const answer = (await server.response(id)).result;
          assert.equal(answer.isError, true, `${tool} ${JSON.stringify(path)}`);
          assert.match(answer.content[0].text, /^error: (Path|A non-empty|File has other hard links)/, path);
        }
        const id = `s${n++}`;
        await server.call(id, "bxp_simulate", { config: GOOD_CONFIG, template: "t", csv_path: path });
        assert.equal((await server.response(id)).result.isError, true, `csv_path ${JSON.stringify(path)}`);
      }

      // Output names and workspace ids that try to leave the scratch folder.
      const escaping = GOOD_CONFIG.replace('".out"', '"/../../../../../escaped.out"');
      await server.call("esc", "bxp_simulate", { config: escaping, template: "t", csv: "a\nx\n" });
      assert.match(
        resultText(await server.response("esc")),
        /file_pattern_out must be a plain filename suffix/,
      );
      const combined = `{conversion_templates:{"../../x":{data_dir:".",file_pattern_in:".csv",` +
        `combined_output:true,input_schema:{$a:"[a]"},output_schema:{A:"$a"}}}}`;
      await server.call("cmb", "bxp_simulate", { config: combined, template: "../../x", csv: "a\nx\n" });
      assert.match(resultText(await server.response("cmb")), /template id must not contain path separators/);
      const badIn = GOOD_CONFIG.replace('file_pattern_in: ".csv"', 'file_pattern_in: "/../../in.csv"');
      await server.call("in", "bxp_simulate", { config: badIn, template: "t", csv: "a\nx\n" });
      assert.match(
        resultText(await server.response("in")),
        /file_pattern_in must be a plain filename suffix/,
      );

      // A real run from csv_path, in a workspace id that tries to climb out.
      await server.call("run", "bxp_simulate", {
        path: "configs/bank.json5",
        template: "t",
        csv_path: "in.csv",
        workspace: "../../../outside",
      });
      const ran = await server.response("run");
      const report = ran.result.structuredContent ?? JSON.parse(resultText(ran));
      assert.equal(report.exit_code, 0, report.diagnostics);
      assert.equal(report.input.records, 2, "the csv_path file was staged byte for byte");
      assert.match(report.outputs[0].csv, /^A\n/);
      // The workspace is reported as a sanitised id or as a path inside the scratch folder.
      const workspace = String(report.workspace ?? "");
      assert.ok(
        !/[\\/]/.test(workspace) || workspace.startsWith(join(server.tmpDir, "bxp-mcp-sim") + "/"),
        workspace,
      );

      assert.equal(await server.close(), 0);
      assert.deepEqual(await snapshot(box), boxBefore, "the project and its surroundings are unchanged");
      const scratch = join(server.tmpDir, "bxp-mcp-sim");
      assert.deepEqual(
        await snapshot(server.tmpDir, (p) => p === scratch),
        tmpBefore,
        "only bxp-mcp-sim changed",
      );
    } finally {
      await server.dispose();
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "with --allow-write: validated, exclusive, overwrite-gated writes inside the root; never through links",
  async fn() {
    const { box, root, outside } = await makeProject();
    const server = await ServerProcess.start(["--root", root, "--allow-write"]);
    try {
      const outsideBefore = await snapshot(outside);
      const answer = async (id: string, args: Record<string, unknown>) => {
        await server.call(id, "bxp_write_config", args);
        const result = (await server.response(id)).result;
        const text: string = result.content[0].text;
        return { isError: result.isError === true, body: text.startsWith("{") ? JSON.parse(text) : { text } };
      };
      const noFolder = await answer("nf", { path: "new/a.json5", config: GOOD_CONFIG });
      assert.equal(noFolder.body.refused, "missing-folder");
      const created = await answer("c", { path: "new/a.json5", config: GOOD_CONFIG, create_dirs: true });
      assert.deepEqual(created, {
        isError: false,
        body: { ok: true, action: "created", path: "new/a.json5", bytes: GOOD_CONFIG.length },
      });
      assert.equal(await Deno.readTextFile(join(root, "new/a.json5")), GOOD_CONFIG);
      assert.equal((await answer("e", { path: "new/a.json5", config: GOOD_CONFIG })).body.refused, "exists");
      assert.equal(
        (await answer("m", { path: "none.json", config: GOOD_CONFIG, overwrite: true })).body.refused,
        "missing-file",
      );
      const broken = GOOD_CONFIG.replace("UPPER([a])", "UPPR([a])");
      const invalid = await answer("v", { path: "new/a.json5", config: broken, overwrite: true });
      assert.equal(invalid.isError, true);
      assert.equal(invalid.body.refused, "validation");
      assert.match(JSON.stringify(invalid.body.diagnostics), /\$err/);
      assert.equal(await Deno.readTextFile(join(root, "new/a.json5")), GOOD_CONFIG, "left byte-identical");
      if (posix) await Deno.chmod(join(root, "new/a.json5"), 0o640);
      const updated = await answer("u", { path: "new/a.json5", config: GOOD_CONFIG + "\n", overwrite: true });
      assert.equal(updated.body.action, "updated");
      if (posix) {
        assert.equal((await Deno.stat(join(root, "new/a.json5"))).mode! & 0o777, 0o640, "mode kept");
        await Deno.chmod(join(root, "new/a.json5"), 0o440);
        const readOnly = await answer("ro", { path: "new/a.json5", config: GOOD_CONFIG, overwrite: true });
        assert.equal(readOnly.body.refused, "read-only");
        await Deno.chmod(join(root, "new/a.json5"), 0o640);
      }
      await Deno.mkdir(join(root, "sub/.git"), { recursive: true });
      const vcs = await answer("git", {
        path: "sub/.git/hooks.json",
        config: GOOD_CONFIG,
        create_dirs: true,
      });
      assert.equal(vcs.body.refused, "protected-folder");
      assert.equal((await answer("x", { path: "notes.txt", config: GOOD_CONFIG })).body.refused, "extension");
      assert.equal(
        (await answer("big", { path: "big.json", config: " ".repeat(1024 * 1024 + 1) })).body.refused,
        "too-large",
      );
      const bad = await answer("o", { path: "a.json", config: GOOD_CONFIG, overwrite: "yes" });
      assert.equal(bad.isError, true);
      assert.match(bad.body.text, /^error: .*boolean.*'?overwrite'?/);
      for (const path of HOSTILE_PATHS) {
        const refusal = await answer(`h${path.length}-${path.slice(0, 8)}`, {
          path,
          config: GOOD_CONFIG,
          overwrite: true,
        });
        assert.equal(refusal.isError, true, JSON.stringify(path));
        assert.equal(refusal.body.ok, false);
      }
      assert.equal(await server.close(), 0);
      assert.deepEqual(await snapshot(outside), outsideBefore, "nothing outside the root changed");
      assert.deepEqual((await snapshot(root)).has(join(root, "big.json")), false);
    } finally {
      await server.dispose();
      await Deno.remove(box, { recursive: true });
    }
  },
});

/** A simulate host running the fake child in `mode`, recording pids. */
function fakeHost(mode: string, pids: number[], timeoutMs: number, tmp: string): SimulateHost {
  return {
    tempBase: () => tmp,
    locateCli: () =>
      Promise.resolve({
        program: Deno.execPath(),
        prefixArgs: ["run", "--allow-write", fileURLToPath(new URL("fake_cli.ts", fixtures)), mode],
      }),
    childEnv: () => ({}),
    timeoutMs,
    log: (line) => {
      const pid = /pid (\d+)/.exec(line);
      if (pid) pids.push(Number(pid[1]));
    },
  };
}

function fakeCall(signal: AbortSignal): ToolCall {
  return {
    name: "bxp_simulate",
    requestId: 1,
    signal,
    progress: () => {},
    fail: (message) => ({ text: `error: ${message}`, isError: true }),
  };
}

const SIM = { config: GOOD_CONFIG, template: "t", csv: "a\nx\n", workspace: null };

Deno.test({
  name:
    "subprocess: a hanging child is killed at the time limit, a flooding one is capped, none is left behind",
  ignore: !posix,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "bxp-child-" });
    try {
      const pids: number[] = [];
      const hang = await new Simulator(fakeHost("hang", pids, 1500, tmp)).simulate(
        SIM,
        fakeCall(new AbortController().signal),
      );
      assert.equal(hang.isError, true);
      assert.match(hang.text, /did not finish within 2 s and was killed/);
      const flood = await new Simulator(fakeHost("flood", pids, 3000, tmp)).simulate(
        SIM,
        fakeCall(new AbortController().signal),
      );
      assert.match(flood.text, /did not finish|truncated/);
      assert.ok(flood.text.length < 20 * 1024 * 1024, "stdout capture is capped");
      assert.equal(pids.length, 2);
      for (const pid of pids) assert.ok(await processGone(pid, 5000), `child ${pid} is gone`);
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name: "subprocess: cancellation and stdin EOF kill the child; no orphan (checked by pid)",
  ignore: !posix,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "bxp-child-" });
    try {
      const pids: number[] = [];
      const controller = new AbortController();
      const running = new Simulator(fakeHost("hang", pids, 60_000, tmp)).simulate(
        SIM,
        fakeCall(controller.signal),
      );
      while (pids.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      controller.abort(new DOMException("cancelled", "AbortError"));
      await assert.rejects(running);
      assert.ok(await processGone(pids[0], 5000), "cancelled child is gone");

      // stdin EOF: a session whose input ends while a simulation runs.
      const server = createBxpServer({ log: () => {}, simulateHost: fakeHost("hang", pids, 60_000, tmp) });
      const request = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "bxp_simulate", arguments: SIM },
      });
      let feed!: ReadableStreamDefaultController<Uint8Array>;
      const stdin = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
      const written: string[] = [];
      const stdout = new WritableStream<Uint8Array>({
        write: (c) => void written.push(new TextDecoder().decode(c)),
      });
      const serving = serveStdio({ server, stdin, stdout, eofGraceMs: 200 });
      feed.enqueue(new TextEncoder().encode(request + "\n"));
      while (pids.length === 1) await new Promise((resolve) => setTimeout(resolve, 20));
      feed.close();
      await serving;
      assert.ok(await processGone(pids[1], 5000), "child is gone after stdin EOF");
      assert.equal(written.join(""), "", "the aborted call is not answered");
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

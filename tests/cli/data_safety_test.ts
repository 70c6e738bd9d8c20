/**
 * A run never destroys or re-reads data: an output pattern that would overwrite its input is refused, a
 * template's own outputs are not read back as inputs, and interrupted runs (SIGINT, kill -9, the parent's
 * stdin closing) leave no temporary file behind — with real bxp-cli processes on real files.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { entryArgs, REPO_ROOT, runBxpCli } from "../_support/processes.ts";

const listing = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();
const temps = (dir: string) => listing(dir).filter((n) => n.endsWith(".bxp-tmp"));

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function withDir(prefix: string, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const config = (patternIn: string, patternOut: string, extra = "") =>
  `{ conversion_templates: { t: { data_dir: ".", file_pattern_in: ${JSON.stringify(patternIn)},
     file_pattern_out: ${JSON.stringify(patternOut)}, ${extra}
     input_schema: { $id: "[id]", $label: "[name] & '-' & [amount]" },
     row_rules: [{ when: "1 = 1", rows: [{}] }],
     output_schema: { id: "$id", label: "$label" } } } }`;

Deno.test("an output pattern equal to the input pattern is refused (exit 1) and the input is untouched", () =>
  withDir("bxp-overwrite-", async (dir) => {
    const input = "id,name,amount\n1,a,10\n";
    await Deno.writeTextFile(join(dir, "x.csv"), input);
    await Deno.writeTextFile(join(dir, "c.json"), config(".csv", ".csv"));
    const res = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assert.equal(res.code, 1);
    assert.match(
      res.stderr,
      /config error: template 't': file_pattern_out '\.csv' names the same file as file_pattern_in '\.csv'/,
    );
    assert.equal(await Deno.readTextFile(join(dir, "x.csv")), input);
    assert.deepEqual(listing(dir), ["c.json", "x.csv"]);
  }));

Deno.test("a template's own outputs are skipped on the next run: same outputs, nothing re-converted", () =>
  withDir("bxp-reread-", async (dir) => {
    await Deno.writeTextFile(join(dir, "a.csv"), "id,name,amount\n1,a,10\n2,b,20\n");
    await Deno.writeTextFile(join(dir, "b.csv"), "id,name,amount\n3,c,30\n");
    await Deno.writeTextFile(join(dir, "c.json"), config(".csv", ".clean.csv", "combined_output: true,"));
    const first = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    const names = listing(dir);
    assert.deepEqual(names, [
      "1-t-combined.clean.csv",
      "a.clean.csv",
      "a.csv",
      "b.clean.csv",
      "b.csv",
      "c.json",
    ]);
    const bytes = names.map((n) => Deno.readFileSync(join(dir, n)));

    const second = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assert.equal(second.code, first.code);
    assert.deepEqual(listing(dir), names, "no x.clean.clean.csv");
    names.forEach((n, i) => assert.deepEqual(Deno.readFileSync(join(dir, n)), bytes[i], n));
    for (const own of ["1-t-combined.clean.csv", "a.clean.csv", "b.clean.csv"]) {
      const said = second.stderr.split("\n").filter((l) => l.includes(`skipping '${own}'`));
      assert.equal(said.length, 1, `one note for ${own}: ${second.stderr}`);
      assert.match(said[0], /it is an output of template 't', not an input/);
    }
    assert.match(second.text, /read 2 files, 3 records in, 3 rows written/);
  }));

Deno.test("`deno task demo` run twice gives the same outputs and exit status", () =>
  withDir("bxp-demo-", async (dir) => {
    const repo = fileURLToPath(REPO_ROOT);
    for (const f of ["deno.json", "deno.lock"]) await Deno.copyFile(join(repo, f), join(dir, f));
    await Deno.symlink(join(repo, "src"), join(dir, "src"));
    await Deno.mkdir(join(dir, "samples"));
    await copyDir(join(repo, "samples", "demo"), join(dir, "samples", "demo"));
    const task = () =>
      new Deno.Command(Deno.execPath(), {
        args: ["task", "demo"],
        cwd: dir,
        stdout: "piped",
        stderr: "piped",
      })
        .output();
    const data = join(dir, "samples", "demo", "data");
    const expected = Deno.readFileSync(
      join(repo, "samples", "demo", "expected", "statement_2024-01-01_2024-12-31.tracker.csv"),
    );
    const runs = [await task(), await task(), await task()];
    for (const r of runs) {
      assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
      assert.deepEqual(listing(data), [
        "statement_2024-01-01_2024-12-31.csv",
        "statement_2024-01-01_2024-12-31.tracker.csv",
      ]);
      assert.deepEqual(
        Deno.readFileSync(join(data, "statement_2024-01-01_2024-12-31.tracker.csv")),
        expected,
      );
    }
  }));

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyDir(join(from, e.name), join(to, e.name));
    else await Deno.copyFile(join(from, e.name), join(to, e.name));
  }
}

/** A ~100 MB input in `dir` (the same 1 MiB block repeated). */
async function bigInput(path: string, megabytes: number): Promise<void> {
  let block = "";
  let i = 0;
  while (block.length < 1024 * 1024) block += `${i},name-${i % 977},${(i++ * 7) % 100000}.25\n`;
  const bytes = new TextEncoder().encode(block);
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  await file.write(new TextEncoder().encode("id,name,amount\n"));
  for (let m = 0; m < megabytes; m++) {
    let at = 0;
    while (at < bytes.length) at += await file.write(bytes.subarray(at));
  }
}

interface Live {
  child: Deno.ChildProcess;
  /** Resolves once a progress line reports records converted. */
  converting: Promise<void>;
  /** All of stderr, once the process ends. */
  stderr: Promise<string>;
}

/** Starts bxp-cli with `--progress=json` and watches stderr for the conversion to be under way. */
function startLive(dir: string, args: string[], stdin: "null" | "piped" = "null"): Live {
  const child = new Deno.Command(Deno.execPath(), {
    args: entryArgs("bxp-cli", [...args, "--progress=json"]),
    cwd: dir,
    env: { BXP_WORKERS: "0" },
    stdin,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let onConverting!: () => void;
  const converting = new Promise<void>((resolve) => onConverting = resolve);
  const stderr = (async () => {
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      text += decoder.decode(chunk, { stream: true });
      for (const m of text.matchAll(/^bxp-progress (\{.*\})$/gm)) {
        if (JSON.parse(m[1]).records > 0) onConverting();
      }
    }
    onConverting();
    return text;
  })();
  return { child, converting, stderr };
}

Deno.test("SIGINT mid-run on a 100 MB input: exit 130, no temporary file, no output, input intact", () =>
  withDir("bxp-sigint-", async (dir) => {
    const input = join(dir, "big.csv");
    await bigInput(input, 100);
    const before = await sha256(input);
    await Deno.writeTextFile(join(dir, "c.json"), config(".csv", ".out.csv"));
    const live = startLive(dir, ["--config", "c.json"]);
    await live.converting;
    live.child.kill("SIGINT");
    const status = await live.child.status;
    const stderr = await live.stderr;
    assert.equal(status.code, 130, stderr);
    assert.match(stderr, /error: interrupted by SIGINT; the run stopped \(1 temporary file\(s\) removed\)/);
    assert.deepEqual(temps(dir), []);
    assert.deepEqual(listing(dir), ["big.csv", "c.json"], "no partial output");
    assert.equal(await sha256(input), before);
  }));

Deno.test("kill -9 mid-run leaves a temporary file that the next run over the folder reports and removes", () =>
  withDir("bxp-kill9-", async (dir) => {
    const input = join(dir, "big.csv");
    await bigInput(input, 100);
    await Deno.writeTextFile(join(dir, "c.json"), config(".csv", ".out.csv"));
    const live = startLive(dir, ["--config", "c.json"]);
    await live.converting;
    live.child.kill("SIGKILL");
    await live.child.status;
    await live.stderr;
    const left = temps(dir);
    assert.equal(left.length, 1, "the killed run's staged output is still there");
    assert.match(left[0], new RegExp(`^\\.big\\.out\\.csv\\.${live.child.pid}\\.\\d+\\.bxp-tmp$`));

    // A foreign file that only looks similar is never touched.
    await Deno.writeTextFile(join(dir, ".notes.bxp-tmp"), "mine");
    await Deno.writeTextFile(input, "id,name,amount\n1,a,2\n");
    const next = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assert.equal(next.code, 0, next.stderr);
    assert.match(
      next.stderr,
      new RegExp(
        `note: removed '\\./${left[0].replaceAll(".", "\\.")}', a temporary output of 'big\\.out\\.csv' ` +
          `left by an interrupted run \\(pid ${live.child.pid}\\)`,
      ),
    );
    assert.deepEqual(temps(dir), [".notes.bxp-tmp"]);
    assert.equal(await Deno.readTextFile(join(dir, "big.out.csv")), "id,label\n1,a-2\n");
  }));

Deno.test("--exit-on-stdin-eof: the parent closing stdin stops the run with exit 1 and no temporary file", () =>
  withDir("bxp-stdin-eof-", async (dir) => {
    const input = join(dir, "big.csv");
    await bigInput(input, 100);
    await Deno.writeTextFile(join(dir, "c.json"), config(".csv", ".out.csv"));
    const live = startLive(dir, ["--config", "c.json", "--exit-on-stdin-eof"], "piped");
    await live.converting;
    await live.child.stdin.close();
    const status = await live.child.status;
    const stderr = await live.stderr;
    assert.equal(status.code, 1, stderr);
    assert.match(stderr, /error: stdin reached end of file \(--exit-on-stdin-eof\)/);
    assert.deepEqual(listing(dir), ["big.csv", "c.json"]);
  }));

Deno.test("without --exit-on-stdin-eof a closed stdin does not stop the run", () =>
  withDir("bxp-stdin-keep-", async (dir) => {
    await Deno.writeTextFile(join(dir, "a.csv"), "id,name,amount\n1,a,2\n");
    await Deno.writeTextFile(join(dir, "c.json"), config(".csv", ".out.csv"));
    const res = await runBxpCli(["--config", "c.json"], { cwd: dir }); // stdin is /dev/null: EOF at once
    assert.equal(res.code, 0, res.stderr);
    assert.equal(await Deno.readTextFile(join(dir, "a.out.csv")), "id,label\n1,a-2\n");
  }));

Deno.test("a fatal error midway (serial and block-parallel) leaves no temporary file and no partial output", async () => {
  const envs: Record<string, string>[] = [
    { BXP_WORKERS: "0" },
    { BXP_WORKERS: "2", BXP_PARALLEL_MIN_BYTES: "1", BXP_WORKERS_JOIN_MS: "0", BXP_BLOCK_BYTES: "4096" },
  ];
  for (const env of envs) {
    await withDir("bxp-fatal-", async (dir) => {
      // Rows are written (and drained to the temporary files) before record 5000 stops the run.
      const rows = Array.from({ length: 6000 }, (_, i) => (i === 5000 ? "x,bad," : `${i},2024-03-01,n${i}`));
      await Deno.writeTextFile(join(dir, "s_2024-01-01_2024-12-31.csv"), `id,d,name\n${rows.join("\n")}\n`);
      await Deno.writeTextFile(
        join(dir, "c.json"),
        `{ conversion_templates: { t: { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out.csv",
           combined_output: true, date_filter_from_filename: true,
           input_schema: { $date: "[d]", $id: "[id]" }, row_rules: [{ when: "1 = 1", rows: [{}] }],
           output_schema: { id: "$id", date: "$date" } } } }`,
      );
      const res = await runBxpCli(["--config", "c.json"], { cwd: dir, env });
      assert.equal(res.code, 1, JSON.stringify(env));
      assert.match(res.stderr, /record 5001: date_filter_from_filename is on, but \$date is 'bad'/);
      assert.deepEqual(listing(dir), ["c.json", "s_2024-01-01_2024-12-31.csv"], JSON.stringify(env));
    });
  }
});

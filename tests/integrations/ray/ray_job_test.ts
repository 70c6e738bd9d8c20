/**
 * The Ray job (integrations/ray/bxp_ray.py) on a local Ray cluster (`num_cpus=2`) driving the real bxp-cli:
 * bxp's conformance cases byte-identical to their goldens with inputs cut into pieces; a 100k-row bench input
 * byte-identical to bxp-cli's own output; a crashed piece retried; a piece that fails for good failing the
 * job without leaving any output. Skipped, with the reason, where Python or Ray cannot be had.
 */

import { deepEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { bxpCliCommand, findRayPython, RAY_JOB, REPO_ROOT } from "../../../tools/ray_env.ts";
import { writeWorkloadFile } from "../../../tools/bench/files.ts";
import { BENCH_TEMPLATE, benchConfigText, INPUT_SUFFIX, OUTPUT_SUFFIX } from "../../../tools/bench/config.ts";
import { workloadColumns } from "../../../tools/bench/workload.ts";

const env = await findRayPython();
const skip = "skip" in env ? env.skip : null;
if (skip !== null) console.log(`Ray job tests skipped: ${skip}`);
const python = "python" in env ? env.python : "";
const CONFORMANCE = join(REPO_ROOT, "..", "shared", "conformance");
const hasConformance = await Deno.stat(join(CONFORMANCE, "CASES.tsv")).then(() => true, () => false);
if (skip === null && !hasConformance) {
  console.log("Ray conformance test skipped: ../shared/conformance is absent");
}

const decoder = new TextDecoder();

async function run(cmd: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}) {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { ...extraEnv, RAY_DISABLE_USAGE_STATS: "1" },
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

Deno.test({
  name: "ray job: every CSV conformance case is byte-identical to its golden, cut into pieces",
  ignore: skip !== null || !hasConformance,
  sanitizeResources: false,
  async fn() {
    const scratch = await Deno.makeTempDir({ prefix: "bxp-ray-conf-" });
    try {
      const cli = await bxpCliCommand();
      const r = await run(python, [
        join(REPO_ROOT, "tests/integrations/ray/ray_conformance.py"),
        CONFORMANCE,
        scratch,
        JSON.stringify(cli),
      ], scratch);
      const lines = r.stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
      const done = lines.find((l) => l.done === true);
      assert(done !== undefined, `the harness did not finish (exit ${r.code}):\n${r.stderr.slice(-3000)}`);
      const problems = lines.filter((l) => (l.mismatches ?? []).length > 0);
      assertEquals(problems.map((p) => `${p.case}: ${p.mismatches.join("; ")}`), []);
      // Every case but the JSON-only ones went through Ray (26 templates in bxp's conformance data today).
      assert(done.ray_templates >= 20, `only ${done.ray_templates} templates went through the Ray job`);
      const cases = lines.filter((l) => l.case !== undefined);
      const csvCases = cases.filter((c) => c.templates.some((t: { via: string }) => t.via === "ray"));
      assert(csvCases.length >= 20, `only ${csvCases.length} cases ran through Ray`);
    } finally {
      await Deno.remove(scratch, { recursive: true });
    }
  },
});

/** A bench folder: the bench config and one 100k-row input. */
async function benchFolder(rows: number): Promise<{ dir: string; input: string }> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-ray-bench-" });
  await Deno.writeTextFile(join(dir, "bxp-cli.json"), benchConfigText(workloadColumns(16), "3expr"));
  const input = join(dir, `data${INPUT_SUFFIX}`);
  await writeWorkloadFile(input, { rows, cols: 16 });
  return { dir, input };
}

Deno.test({
  name: "ray job: a 100k-row bench input is byte-identical to bxp-cli's own output",
  ignore: skip !== null,
  sanitizeResources: false,
  async fn() {
    const { dir, input } = await benchFolder(100_000);
    try {
      const cli = await bxpCliCommand();
      const plain = await run(cli[0], [...cli.slice(1), "--config", "bxp-cli.json", "--quiet"], dir);
      assertEquals(plain.code, 0, plain.stderr);
      const out = join(dir, "ray-out");
      await Deno.mkdir(out);
      const job = await run(python, [
        RAY_JOB,
        "--config",
        join(dir, "bxp-cli.json"),
        "--template",
        BENCH_TEMPLATE,
        "--output",
        out,
        "--num-cpus",
        "2",
        "--piece-bytes",
        String(4 * 1024 * 1024),
        "--bxp-cli",
        cli.map((a) => `'${a}'`).join(" "),
        input,
      ], dir);
      assertEquals(job.code, 0, job.stderr.slice(-3000));
      assert(job.stdout.includes("100000 records in, 100000 rows written"), job.stdout);
      const want = await Deno.readFile(join(dir, `data${OUTPUT_SUFFIX}`));
      const got = await Deno.readFile(join(out, `data${OUTPUT_SUFFIX}`));
      assertEquals(got.length, want.length);
      assert(got.every((b, i) => b === want[i]), "the Ray output differs from bxp-cli's");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/**
 * A bxp-cli wrapper that crashes (exit 137, as when killed) on the conversion of the piece starting at
 * record `record`: once (a marker file remembers) or always.
 */
async function crashingCli(dir: string, record: number, always: boolean): Promise<string> {
  const cli = await bxpCliCommand();
  const marker = join(dir, "crashed-once");
  const script = join(dir, "crashy.sh");
  const real = cli.map((a) => `'${a}'`).join(" ");
  await Deno.writeTextFile(
    script,
    `#!/bin/sh
case " $* " in
  *" --partition-convert "*"--first-record ${record} "*)
    if ${always ? "true" : `[ ! -e '${marker}' ]`}; then : > '${marker}'; exit 137; fi ;;
esac
exec ${real} "$@"
`,
  );
  await Deno.chmod(script, 0o755);
  return script;
}

/** A small CSV folder whose input the job cuts into pieces of a few lines. */
async function smallFolder(): Promise<{ dir: string; input: string; out: string }> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-ray-retry-" });
  await Deno.writeTextFile(
    join(dir, "c.json"),
    JSON.stringify({
      conversion_templates: {
        t: {
          data_dir: ".",
          file_pattern_in: ".csv",
          file_pattern_out: ".out",
          combined_output: true,
          input_schema: { $n: "RECORD_NUM()", $v: "[v]" },
          row_rules: [{ when: "1", rows: [{}] }],
          output_schema: { n: "$n", v: "$v" },
        },
      },
    }),
  );
  const input = join(dir, "in.csv");
  await Deno.writeTextFile(input, "v\n" + Array.from({ length: 12 }, (_, i) => `row${i + 1}\n`).join(""));
  const out = join(dir, "out");
  await Deno.mkdir(out);
  return { dir, input, out };
}

function jobArgs(dir: string, input: string, out: string, cli: string): string[] {
  return [
    RAY_JOB,
    "--config",
    join(dir, "c.json"),
    "--template",
    "t",
    "--output",
    out,
    "--num-cpus",
    "2",
    "--piece-bytes",
    "15",
    "--max-retries",
    "2",
    "--bxp-cli",
    cli,
    input,
  ];
}

Deno.test({
  name: "ray job: a piece whose bxp-cli crashed is retried and the output is whole",
  ignore: skip !== null,
  sanitizeResources: false,
  async fn() {
    const { dir, input, out } = await smallFolder();
    try {
      const cli = await crashingCli(dir, 4, false);
      const job = await run(python, jobArgs(dir, input, out, cli), dir);
      assertEquals(job.code, 0, job.stderr.slice(-3000));
      assert(await Deno.stat(join(dir, "crashed-once")).then(() => true, () => false), "no piece crashed");
      const want = "n,v\n" + Array.from({ length: 12 }, (_, i) => `${i + 1},row${i + 1}\n`).join("");
      assertEquals(await Deno.readTextFile(join(out, "in.out")), want);
      assertEquals(await Deno.readTextFile(join(out, "1-t-combined.out")), want);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "ray job: a piece that fails for good fails the job and leaves no output at all",
  ignore: skip !== null,
  sanitizeResources: false,
  async fn() {
    const { dir, input, out } = await smallFolder();
    try {
      const cli = await crashingCli(dir, 4, true);
      const job = await run(python, jobArgs(dir, input, out, cli), dir);
      assertEquals(job.code, 1, job.stdout);
      assert(job.stderr.includes("error:"), job.stderr.slice(-2000));
      assertEquals([...Deno.readDirSync(out)].map((e) => e.name), []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** A folder whose run warns: expression errors, an unbalanced quote, a file with no rows, a date range. */
async function warningFolder(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-ray-warn-" });
  await Deno.writeTextFile(
    join(dir, "c.json"),
    JSON.stringify({
      conversion_templates: {
        t: {
          data_dir: ".",
          file_pattern_in: ".csv",
          file_pattern_out: ".out",
          combined_output: true,
          date_filter_from_filename: true,
          input_schema: { $date: "DATE_CONVERT([d], 'DD.MM.YYYY', 'YYYY-MM-DD')", $n: "[v] * 2" },
          row_rules: [{ when: "[v] != 'skip'", rows: [{}] }],
          output_schema: { date: "$date", n: "$n" },
        },
      },
    }),
  );
  const rows = (n: number) =>
    Array.from({ length: n }, (_, i) => `${String(i % 28 + 1).padStart(2, "0")}.0${i % 9 + 1}.2024,${i}\n`);
  await Deno.writeTextFile(
    join(dir, "a_2024-02-01_2024-06-30.csv"),
    "d,v\n" + rows(40).join("") + '05.05.2024,x\n05.05.2024,"open\n05.05.2024,skip\n',
  );
  await Deno.writeTextFile(join(dir, "b.csv"), "d,v\n" + rows(5).join(""));
  await Deno.writeTextFile(join(dir, "c.csv"), "d,v\n\n");
  await Deno.writeTextFile(join(dir, "d.csv"), "d,v\n05.05.2024,skip\n"); // a zero_rows finding
  return dir;
}

Deno.test({
  name: "ray job: warnings, counts and exit status equal bxp-cli's; --strict writes nothing",
  ignore: skip !== null,
  sanitizeResources: false,
  async fn() {
    const dir = await warningFolder();
    try {
      const cli = await bxpCliCommand();
      const plainDir = join(dir, "plain");
      await Deno.mkdir(plainDir);
      for (const e of Deno.readDirSync(dir)) {
        if (e.isFile) await Deno.copyFile(join(dir, e.name), join(plainDir, e.name));
      }
      const plain = await run(cli[0], [...cli.slice(1), "--config", "c.json"], plainDir);
      assertEquals(plain.code, 2, plain.stderr);
      const inputs = ["a_2024-02-01_2024-06-30.csv", "b.csv", "c.csv", "d.csv"].map((n) => join(dir, n));
      const out = join(dir, "out");
      await Deno.mkdir(out);
      const args = [RAY_JOB, "--config", join(dir, "c.json"), "--template", "t", "--output", out];
      const common = [
        "--num-cpus",
        "2",
        "--piece-bytes",
        "100",
        "--bxp-cli",
        cli.map((a) => `'${a}'`).join(" "),
      ];
      const job = await run(python, [...args, ...common, ...inputs], dir);
      assertEquals(job.code, plain.code, job.stderr.slice(-3000));
      // The job names inputs by the paths it was given (absolute here), bxp-cli by its data folder (".").
      const warnings = (s: string) =>
        s.replaceAll(`${dir}/`, "./").split("\n").filter((l) => l.startsWith("warning:")).sort();
      assertEquals(warnings(job.stderr), warnings(plain.stderr));
      const counts = (s: string) =>
        s.split("\n").filter((l) => /^(summary|errors| {2}(read|filtered|expression))/.test(l))
          .map((l) => l.replace(/time:\S+/, ""));
      assertEquals(counts(job.stdout), counts(plain.stdout));
      for (const name of ["a_2024-02-01_2024-06-30.out", "b.out", "c.out", "d.out", "1-t-combined.out"]) {
        assertEquals(await Deno.readTextFile(join(out, name)), await Deno.readTextFile(join(plainDir, name)));
      }

      // --strict: d.csv's zero_rows finding fails bxp-cli's run; the job fails too and writes none of its outputs.
      const plainStrict = await run(cli[0], [...cli.slice(1), "--config", "c.json", "--strict"], plainDir);
      assertEquals(plainStrict.code, 1, plainStrict.stderr);
      const strictOut = join(dir, "strict-out");
      await Deno.mkdir(strictOut);
      const strict = await run(python, [
        RAY_JOB,
        "--config",
        join(dir, "c.json"),
        "--template",
        "t",
        "--output",
        strictOut,
        "--strict",
        ...common,
        ...inputs,
      ], dir);
      assertEquals(strict.code, 1, strict.stderr.slice(-2000));
      assert(strict.stderr.includes("error: --strict:"), strict.stderr.slice(-2000));
      assertEquals([...Deno.readDirSync(strictOut)].map((e) => e.name), []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "ray job: a fatal record stops the job with bxp-cli's message, unretried, writing nothing",
  ignore: skip !== null,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "bxp-ray-fatal-" });
    try {
      await Deno.writeTextFile(
        join(dir, "c.json"),
        JSON.stringify({
          conversion_templates: {
            t: {
              data_dir: ".",
              file_pattern_in: ".csv",
              file_pattern_out: ".out",
              date_filter_from_filename: true,
              input_schema: { $date: "[d]" },
              row_rules: [{ when: "1", rows: [{}] }],
              output_schema: { d: "$date" },
            },
          },
        }),
      );
      const name = "in_2024-01-01_2024-12-31.csv";
      const ok = Array.from({ length: 30 }, (_, i) => `2024-03-${String(i % 28 + 1).padStart(2, "0")}\n`);
      await Deno.writeTextFile(join(dir, name), "d\n" + ok.join("") + "soon\n" + ok.join(""));
      const cli = await bxpCliCommand();
      const plain = await run(cli[0], [...cli.slice(1), "--config", "c.json"], dir);
      assertEquals(plain.code, 1);
      const message = plain.stderr.split("\n").find((l) => l.startsWith("fatal error:"));
      assert(message !== undefined && message.includes("record 31"), plain.stderr);
      await Deno.remove(join(dir, "in_2024-01-01_2024-12-31.out")).catch(() => {});
      const out = join(dir, "out");
      await Deno.mkdir(out);
      // A wrapper noting every conversion call, to see that the refused piece was not tried again.
      const calls = join(dir, "calls.log");
      const wrapper = join(dir, "logging.sh");
      await Deno.writeTextFile(
        wrapper,
        `#!/bin/sh\necho "$*" >> '${calls}'\nexec ${cli.map((a) => `'${a}'`).join(" ")} "$@"\n`,
      );
      await Deno.chmod(wrapper, 0o755);
      const job = await run(python, [
        RAY_JOB,
        "--config",
        join(dir, "c.json"),
        "--template",
        "t",
        "--output",
        out,
        "--num-cpus",
        "2",
        "--piece-bytes",
        "120",
        "--bxp-cli",
        wrapper,
        join(dir, name),
      ], dir);
      assertEquals(job.code, 1, job.stderr.slice(-2000));
      assertEquals(job.stderr.split("\n").filter((l) => l.startsWith("fatal error:")), [message]);
      const converts = (await Deno.readTextFile(calls)).split("\n").filter((l) =>
        l.includes("--partition-convert")
      );
      const firsts = converts.map((l) => Number(/ --first-record (\d+) /.exec(l)?.[1]));
      const fatalFirst = Math.max(...firsts.filter((f) => f <= 31)); // the piece holding record 31
      assertEquals(firsts.filter((f) => f === fatalFirst).length, 1, converts.join("\n"));
      assertEquals([...Deno.readDirSync(out)].map((e) => e.name), []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "ray job: JSON output (pieces with and without rows, a file with none, combined) equals bxp-cli's",
  ignore: skip !== null,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "bxp-ray-json-" });
    try {
      await Deno.writeTextFile(
        join(dir, "conf.json"),
        JSON.stringify({
          conversion_templates: {
            t: {
              data_dir: ".",
              file_pattern_in: ".csv",
              file_pattern_out: ".json",
              file_type_out: "json",
              combined_output: true,
              input_schema: { $v: "[v]", $n: "RECORD_NUM()" },
              row_rules: [{ when: "[v] != 'skip'", rows: [{}] }],
              output_schema: { v: "$v", n: "$n" },
            },
          },
        }),
      );
      const lines = ["a", "skip", "skip", "skip", "skip", 'b"q', "skip", "skip", "skip", "skip", "c"];
      await Deno.writeTextFile(join(dir, "a.csv"), "v\n" + lines.map((l) => `${l}\n`).join(""));
      await Deno.writeTextFile(join(dir, "b.csv"), "v\nskip\nskip\n");
      await Deno.writeTextFile(join(dir, "c.csv"), "v\nz\n");
      const cli = await bxpCliCommand();
      const plainDir = join(dir, "plain");
      await Deno.mkdir(plainDir);
      for (const n of ["conf.json", "a.csv", "b.csv", "c.csv"]) {
        await Deno.copyFile(join(dir, n), join(plainDir, n));
      }
      const plain = await run(cli[0], [...cli.slice(1), "--config", "conf.json"], plainDir);
      const out = join(dir, "out");
      await Deno.mkdir(out);
      const job = await run(python, [
        RAY_JOB,
        "--config",
        join(dir, "conf.json"),
        "--template",
        "t",
        "--output",
        out,
        "--num-cpus",
        "2",
        "--piece-bytes",
        "10",
        "--bxp-cli",
        cli.map((a) => `'${a}'`).join(" "),
        ...["a.csv", "b.csv", "c.csv"].map((n) => join(dir, n)),
      ], dir);
      assertEquals(job.code, plain.code, job.stderr.slice(-2000));
      for (const name of ["a.json", "b.json", "c.json", "1-t-combined.json"]) {
        const want = await Deno.readTextFile(join(plainDir, name));
        assertEquals(await Deno.readTextFile(join(out, name)), want, name);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Some python3 (Ray not needed), or null. */
async function plainPython(): Promise<string | null> {
  for (const candidate of ["python3", python].filter((p) => p !== "")) {
    try {
      const out = await new Deno.Command(candidate, { args: ["--version"], stdout: "null", stderr: "null" })
        .output();
      if (out.success) return candidate;
    } catch {
      // not there
    }
  }
  return null;
}

const python3 = await plainPython();

Deno.test({
  name: "ray job commit (plain python3, real files): a rename failing midway rolls back the earlier ones",
  ignore: python3 === null,
  async fn() {
    const r = await run(python3!, [join(REPO_ROOT, "tests/integrations/ray/commit_test.py")], REPO_ROOT);
    const lines = r.stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    assert(lines.some((l) => l.done === true), `the checks did not finish (exit ${r.code}):\n${r.stderr}`);
    assertEquals(lines.filter((l) => l.ok === false).map((l) => `${l.check}: ${l.detail}`), []);
    assertEquals(r.code, 0, r.stderr);
  },
});

Deno.test({
  name: "ray job: a folder at an output's name fails the job before anything is written or changed",
  ignore: skip !== null,
  sanitizeResources: false,
  async fn() {
    const { dir, input, out } = await smallFolder();
    try {
      // The combined output is committed first: an older copy of it must survive the failed job as it was.
      await Deno.writeTextFile(join(out, "1-t-combined.out"), "older\n");
      await Deno.mkdir(join(out, "in.out"));
      const cli = (await bxpCliCommand()).map((a) => `'${a}'`).join(" ");
      const job = await run(python, jobArgs(dir, input, out, cli), dir);
      assertEquals(job.code, 1, job.stderr.slice(-2000));
      assert(
        job.stderr.includes(`error: output '${join(out, "in.out")}' exists and is a folder`),
        job.stderr.slice(-2000),
      );
      assertEquals([...Deno.readDirSync(out)].map((e) => e.name).sort(), ["1-t-combined.out", "in.out"]);
      assertEquals(await Deno.readTextFile(join(out, "1-t-combined.out")), "older\n");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "ray job: colliding outputs (an input named like the combined output, an output that is an input) exit 1",
  ignore: skip !== null,
  sanitizeResources: false,
  async fn() {
    const { dir, input, out } = await smallFolder();
    try {
      const cli = (await bxpCliCommand()).map((a) => `'${a}'`).join(" ");
      // '1-t-combined.csv' converts to '1-t-combined.out', the combined output's name.
      const clash = join(dir, "1-t-combined.csv");
      await Deno.copyFile(input, clash);
      const args = jobArgs(dir, input, out, cli);
      const job = await run(python, [...args, clash], dir);
      assertEquals(job.code, 1, job.stderr.slice(-2000));
      assert(
        job.stderr.includes("error: template 't': input '1-t-combined.csv' would write '1-t-combined.out'"),
        job.stderr.slice(-2000),
      );
      assertEquals([...Deno.readDirSync(out)], []);

      // Written into the inputs' own folder, 'in.x' (file_pattern_in '.x') would become 'in.out' -- an input
      // given on the command line (and ignored by the template): never overwritten.
      const config = JSON.parse(await Deno.readTextFile(join(dir, "c.json")));
      config.conversion_templates.t.file_pattern_in = ".x";
      await Deno.writeTextFile(join(dir, "c.json"), JSON.stringify(config));
      await Deno.copyFile(input, join(dir, "in.x"));
      await Deno.writeTextFile(join(dir, "in.out"), "precious\n");
      const own = await run(python, [
        ...args.slice(0, args.indexOf("--output") + 1),
        dir,
        ...args.slice(args.indexOf("--output") + 2, -1),
        join(dir, "in.x"),
        join(dir, "in.out"),
      ], dir);
      assertEquals(own.code, 1, own.stderr.slice(-2000));
      assert(own.stderr.includes(`is the input '${join(dir, "in.out")}'`), own.stderr.slice(-2000));
      assertEquals(await Deno.readTextFile(join(dir, "in.out")), "precious\n");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

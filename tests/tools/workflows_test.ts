/**
 * The GitHub workflows, parsed as YAML: CI smoke-tests the compiled Linux binaries on every push, and the
 * release smoke-tests the archives on Linux x64, macOS arm64 and Windows x64 before it publishes anything,
 * with SHA256SUMS and build provenance for every archive.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { REPO_ROOT } from "../_support/processes.ts";
import { COMPILE_TARGETS } from "../../src/distribution/mod.ts";

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  shell?: string;
  with?: Record<string, string>;
}
interface Job {
  "runs-on": string;
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string>;
  strategy?: { matrix: { include?: Record<string, string>[] } };
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  jobs: Record<string, Job>;
}

function workflow(name: string): Workflow {
  return parse(Deno.readTextFileSync(new URL(`.github/workflows/${name}`, REPO_ROOT))) as Workflow;
}

const tasks = (JSON.parse(Deno.readTextFileSync(new URL("deno.json", REPO_ROOT))) as {
  tasks: Record<string, string>;
}).tasks;

/** The index of the first step whose `run` matches, failing when there is none. */
function stepIndex(job: Job, pattern: RegExp): number {
  const i = job.steps.findIndex((s) => s.run !== undefined && pattern.test(s.run));
  assert.ok(i >= 0, `no step runs ${pattern}`);
  return i;
}

function needs(job: Job): string[] {
  return job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs];
}

/** Checkout and Deno 2.9.6 come first. */
function assertSetup(job: Job): void {
  assert.match(job.steps[0].uses ?? "", /^actions\/checkout@v\d+$/);
  assert.match(job.steps[1].uses ?? "", /^denoland\/setup-deno@v\d+$/);
  assert.equal(String(job.steps[1].with?.["deno-version"]), "2.9.6");
}

/** Every `deno task X` a workflow runs exists in deno.json. */
function assertTasksExist(wf: Workflow): void {
  for (const job of Object.values(wf.jobs)) {
    for (const step of job.steps) {
      for (const m of (step.run ?? "").matchAll(/deno task ([\w:-]+)/g)) {
        assert.ok(m[1] in tasks, `deno task ${m[1]} is not a deno.json task`);
      }
    }
  }
}

Deno.test("ci: every push compiles the Linux binaries for the runner and smoke-tests them", () => {
  const ci = workflow("ci.yml");
  assert.ok("push" in ci.on, "runs on every push");
  assertTasksExist(ci);
  const smoke = ci.jobs.smoke;
  assert.ok(smoke, "a smoke job");
  assert.equal(smoke["runs-on"], "ubuntu-latest");
  assertSetup(smoke);
  const compile = stepIndex(smoke, /^deno task compile --target host$/);
  const run = stepIndex(smoke, /^deno task smoke --bin-dir dist\/x86_64-unknown-linux-gnu$/);
  assert.ok(compile < run, "compiles before the smoke test");
  assert.ok(COMPILE_TARGETS.includes("x86_64-unknown-linux-gnu"));
  // The test job still runs the whole suite (which runs the smoke test from source) on three systems.
  assert.deepEqual(ci.jobs.test.strategy?.matrix, {
    os: ["ubuntu-latest", "macos-latest", "windows-latest"],
  });
  stepIndex(ci.jobs.test, /^deno task test$/);
});

Deno.test("release: the archives are smoke-tested on Linux x64, macOS arm64 and Windows x64 runners", () => {
  const release = workflow("release.yml");
  assertTasksExist(release);
  const build = release.jobs.build;
  assert.deepEqual(needs(build), ["test"], "built only after the tests pass");
  stepIndex(release.jobs.test, /^deno task test$/);
  stepIndex(build, /^deno task compile$/);
  const pack = build.steps[stepIndex(build, /SHA256SUMS/)];
  assert.match(pack.run!, /name="bxp-\$\{version\}-\$\{target\}"/);
  assert.match(pack.run!, /sha256sum \*\.tar\.gz \*\.zip > SHA256SUMS/);
  assert.ok(build.steps.some((s) => s.uses?.startsWith("actions/upload-artifact@")), "uploads the archives");

  const smoke = release.jobs.smoke;
  assert.deepEqual(needs(smoke), ["build"]);
  assert.equal(smoke["runs-on"], "${{ matrix.runner }}");
  assert.deepEqual(smoke.strategy?.matrix.include, [
    { runner: "ubuntu-latest", target: "x86_64-unknown-linux-gnu" },
    { runner: "macos-latest", target: "aarch64-apple-darwin" },
    { runner: "windows-latest", target: "x86_64-pc-windows-msvc" },
  ]);
  for (const { target } of smoke.strategy!.matrix.include!) {
    assert.ok(COMPILE_TARGETS.includes(target), target);
  }
  assertSetup(smoke);
  const download = smoke.steps.findIndex((s) => s.uses?.startsWith("actions/download-artifact@"));
  const verify = stepIndex(smoke, /sha256sum -c SHA256SUMS/);
  const unpack = stepIndex(
    smoke,
    /tar -xzf release\/bxp-\*-\$\{\{ matrix\.target \}\}\.tar\.gz -C smoke-bin/,
  );
  const unpackWindows = stepIndex(smoke, /Expand-Archive .*-DestinationPath smoke-bin/);
  assert.equal(smoke.steps[unpack].if, "runner.os != 'Windows'");
  assert.equal(smoke.steps[unpackWindows].if, "runner.os == 'Windows'");
  assert.match(smoke.steps[unpackWindows].run!, /bxp-\*-\$\{\{ matrix\.target \}\}\.zip/);
  const run = stepIndex(smoke, /^deno task smoke --bin-dir smoke-bin$/);
  assert.ok(download >= 0 && download < verify && verify < unpack && unpack < run && unpackWindows < run);
  assert.equal(smoke.steps[run].if, undefined, "the smoke test runs on every runner");
});

Deno.test("release: nothing is published before every smoke job passed; SHA256SUMS and provenance for each archive", () => {
  const release = workflow("release.yml");
  assert.deepEqual(release.permissions, { contents: "read" }, "jobs get only read access by default");
  const publish = release.jobs.publish;
  assert.ok(needs(publish).includes("smoke") && needs(publish).includes("build"));
  assert.equal(publish.if, "startsWith(github.ref, 'refs/tags/')");
  assert.deepEqual(publish.permissions, { contents: "write", "id-token": "write", attestations: "write" });
  const attest = publish.steps.findIndex((s) => s.uses?.startsWith("actions/attest-build-provenance@"));
  assert.ok(attest >= 0, "attests build provenance");
  const subjects = publish.steps[attest].with?.["subject-path"].trim().split("\n").map((s) => s.trim());
  assert.deepEqual(subjects, ["release/*.tar.gz", "release/*.zip"], "every archive");
  const upload = stepIndex(publish, /gh release create/);
  assert.ok(attest < upload, "provenance before the release is created");
  assert.match(publish.steps[upload].run!, /release\/\*\.tar\.gz release\/\*\.zip release\/SHA256SUMS/);
  // Only the publish job can write to the repository or create a release.
  for (const [name, job] of Object.entries(release.jobs)) {
    if (name === "publish") continue;
    assert.equal(job.permissions, undefined, `${name} keeps the read-only default`);
    assert.ok(!job.steps.some((s) => /gh release/.test(s.run ?? "")), `${name} publishes nothing`);
  }
});

/**
 * A run that keeps the main thread busy still stops on SIGTERM / SIGINT: real bxp-cli processes on a config
 * whose rows cost milliseconds each (minutes of work), on the serial path, in its pre_pass, on the block path,
 * and while unpacking a zip; signalled once they are really converting (their `--progress=json` lines say
 * so, which a busy run also has to keep writing), they must exit 143 / 130 within a few seconds and leave
 * no temporary file. Before the watcher thread, such a run ignored both signals for many minutes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { zipSync } from "fflate";
import { fileURLToPath } from "node:url";
import { entryArgs, REPO_ROOT } from "../_support/processes.ts";
import { buildXlsx, type Cell } from "../_support/xlsx_builder.ts";

/** Milliseconds of CPU per row on a 2-core machine: 200,000 rows are far more work than any test waits for. */
const HEAVY = "LEN(REPLACE(REPLACE(LPAD([h],65535,'a'),'a','bb'),'b','cc'))";

/** Generous for a busy shared machine, yet far below the minutes the old code needed. */
const STOP_BOUND_MS = 5000;

/** How long a run may take to show that it is converting before the test gives up. */
const START_BOUND_MS = 90_000;

interface Progress {
  records: number;
  bytes: number;
  total_bytes: number;
}

async function heavyCase(dir: string, config: string): Promise<void> {
  await Deno.writeTextFile(join(dir, "a.csv"), "h\n" + "x\n".repeat(200_000));
  await Deno.writeTextFile(join(dir, "c.json"), config);
}

const MAIN_PASS = `{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o",
  input_schema: {$v: "${HEAVY}"}, row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {v: "$v"}}}}`;

const PRE_PASS = `{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o",
  pre_pass: {p: {when: "1 = 1", key: "[h]", values: {n: "${HEAVY}"}}},
  input_schema: {$v: "LOOKUP('p', [h], 'n')"}, row_rules: [{when: "1 = 1", rows: [{}]}],
  output_schema: {v: "$v"}}}}`;

async function tempsIn(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const e of Deno.readDir(dir)) if (e.name.endsWith(".bxp-tmp")) found.push(e.name);
  return found;
}

/**
 * Starts bxp-cli in `dir`, waits until `ready` says its progress lines show real work, sends `signal` and
 * answers the exit code, the ms from the signal to the exit, and stderr.
 */
async function stopWhileConverting(
  dir: string,
  env: Record<string, string>,
  signal: Deno.Signal | "stdin-eof",
  ready: (lines: Progress[]) => boolean | Promise<boolean>,
  beforeSignal: () => Promise<void> = async () => {},
  viaTask = false,
): Promise<{ code: number; ms: number; stderr: string }> {
  const eof = signal === "stdin-eof";
  const cliArgs = [
    "--config",
    join(dir, "c.json"),
    "--progress=json",
    ...(eof ? ["--exit-on-stdin-eof"] : []),
  ];
  const denoJson = fileURLToPath(new URL("deno.json", REPO_ROOT));
  const child = new Deno.Command(Deno.execPath(), {
    args: viaTask
      ? ["task", "--quiet", "--config", denoJson, "bxp-cli", ...cliArgs]
      : entryArgs("bxp-cli", cliArgs),
    cwd: dir,
    env,
    stdin: eof ? "piped" : "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const lines: Progress[] = [];
  let wake: () => void = () => {};
  // Read stderr to its end (so the child never blocks on a full pipe), waking the waiter at each line.
  const reading = (async () => {
    for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr += text;
      lines.length = 0;
      for (const m of stderr.matchAll(/^bxp-progress (\{.*\})$/gm)) lines.push(JSON.parse(m[1]));
      wake();
    }
  })();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    wake();
    return s;
  });
  const giveUp = Date.now() + START_BOUND_MS;
  try {
    while (!await ready(lines)) {
      assert.ok(!exited, `bxp-cli ended before it was converting:\n${stderr}`);
      assert.ok(Date.now() < giveUp, `no progress showing work within ${START_BOUND_MS} ms:\n${stderr}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 200);
      });
    }
    await beforeSignal();
    const sent = performance.now();
    if (eof) await child.stdin.close();
    else child.kill(signal);
    const killer = setTimeout(() => child.kill("SIGKILL"), STOP_BOUND_MS * 4);
    const s = await status;
    const ms = Math.round(performance.now() - sent);
    clearTimeout(killer);
    await reading;
    console.log(`  ${signal} -> exit ${s.code} after ${ms} ms`);
    return { code: s.code, ms, stderr };
  } finally {
    if (!exited) child.kill("SIGKILL");
    await status;
    await reading.catch(() => {});
  }
}

/** The expectations every stop shares: the exit code, the bound, the message, no temporary file. */
async function assertStopped(
  dir: string,
  r: { code: number; ms: number; stderr: string },
  signal: "SIGTERM" | "SIGINT",
): Promise<void> {
  assert.equal(r.code, signal === "SIGTERM" ? 143 : 130, r.stderr);
  assert.ok(r.ms < STOP_BOUND_MS, `stopped only after ${r.ms} ms`);
  assert.match(r.stderr, new RegExp(`error: interrupted by ${signal}; the run stopped`));
  assert.deepEqual(await tempsIn(dir), []);
  // Nothing half-written under the final name either.
  await assert.rejects(Deno.stat(join(dir, "a.o")), Deno.errors.NotFound);
}

const converting = (lines: Progress[]) => lines.some((l) => l.records > 0);

/**
 * The inputs are measured and four more lines came (about a second of ticking): the run is inside its
 * minutes-long pass (pre_pass and block passes move no counters until a block is done), and a busy run
 * still writes its lines.
 */
const ticking = (lines: Progress[]) => {
  const first = lines.findIndex((l) => l.total_bytes > 0);
  return first >= 0 && lines.length - first > 4;
};

/**
 * The block path with one worker beside the main thread. Blocks of 4096 rows (tens of seconds each): the
 * worker takes the first three, the main thread the fourth, and stays inside it far longer than the bound.
 */
const BLOCKS = {
  BXP_WORKERS: "2",
  BXP_PARALLEL_MIN_BYTES: "1",
  BXP_WORKERS_JOIN_MS: "0",
  BXP_BLOCK_BYTES: "8192",
};

/** A temp file is there before the signal (so its removal is what the test sees). */
const expectTemp = (dir: string) => async () => {
  assert.equal((await tempsIn(dir)).length, 1, "the staged output exists while converting");
};

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`a busy serial run stops on ${signal} and removes its temporary output`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "bxp-stop-serial-" });
    try {
      await heavyCase(dir, MAIN_PASS);
      const r = await stopWhileConverting(dir, { BXP_WORKERS: "0" }, signal, converting, expectTemp(dir));
      await assertStopped(dir, r, signal);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });

  Deno.test(`a busy run on the block path stops on ${signal}`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "bxp-stop-blocks-" });
    try {
      await heavyCase(dir, MAIN_PASS);
      const r = await stopWhileConverting(dir, BLOCKS, signal, ticking, expectTemp(dir));
      await assertStopped(dir, r, signal);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("deno task bxp-cli passes SIGTERM on: the busy run under it stops and the task exits 143", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-stop-task-" });
  try {
    await heavyCase(dir, MAIN_PASS);
    // The signal goes to the task process only (as `timeout 30 deno task bxp-cli ...` sends it).
    const r = await stopWhileConverting(
      dir,
      { BXP_WORKERS: "0" },
      "SIGTERM",
      converting,
      expectTemp(dir),
      true,
    );
    await assertStopped(dir, r, "SIGTERM");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a busy pre_pass stops on SIGTERM (serial) and on SIGINT (blocks)", async () => {
  for (
    const [signal, env] of [
      ["SIGTERM", { BXP_WORKERS: "0" }],
      ["SIGINT", BLOCKS],
    ] as const
  ) {
    const dir = await Deno.makeTempDir({ prefix: "bxp-stop-prepass-" });
    try {
      await heavyCase(dir, PRE_PASS);
      const r = await stopWhileConverting(dir, env, signal, ticking);
      await assertStopped(dir, r, signal);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("--exit-on-stdin-eof stops a busy run once stdin ends (exit 1, no temporary file)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-stop-eof-" });
  try {
    await heavyCase(dir, MAIN_PASS);
    const r = await stopWhileConverting(dir, { BXP_WORKERS: "0" }, "stdin-eof", converting, expectTemp(dir));
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.ms < STOP_BOUND_MS, `stopped only after ${r.ms} ms`);
    assert.match(r.stderr, /error: stdin reached end of file \(--exit-on-stdin-eof\)/);
    assert.deepEqual(await tempsIn(dir), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a run that cannot stop on its own: the progress lines keep coming while rows take long", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-stop-progress-" });
  try {
    await heavyCase(dir, MAIN_PASS);
    // Three different record counts: the counters move during one chunk (which holds every row here).
    const moving = (lines: Progress[]) => new Set(lines.map((l) => l.records)).size >= 3;
    const r = await stopWhileConverting(dir, { BXP_WORKERS: "0" }, "SIGTERM", moving);
    await assertStopped(dir, r, "SIGTERM");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** True once a staged output in `dir` has bytes: a preparation pass is writing it. */
async function writing(dir: string): Promise<boolean> {
  for (const name of await tempsIn(dir)) {
    try {
      if ((await Deno.stat(join(dir, name))).size > 0) return true;
    } catch {
      // renamed or removed meanwhile
    }
  }
  return false;
}

/** A template over the prepared CSV whose rows are expensive too: a signal a little late still stops it. */
function preparedConfig(container: string, pattern: string): string {
  return `{conversion_templates: {t: {data_dir: ".", ${container}, file_pattern_in: "${pattern}",
    file_pattern_out: ".o", input_schema: {$v: "${HEAVY}"}, row_rules: [{when: "1 = 1", rows: [{}]}],
    output_schema: {v: "$v"}}}}`;
}

Deno.test("unpacking a zip member and extracting an xlsx sheet stop on SIGTERM / SIGINT", async () => {
  const cases: { name: string; signal: "SIGTERM" | "SIGINT"; setup: (dir: string) => Promise<void> }[] = [{
    name: "zip",
    signal: "SIGTERM",
    setup: async (dir) => {
      // 24 million rows inflate from a few dozen KB: seconds of inflating and writing.
      const member = new TextEncoder().encode("h\n" + "x\n".repeat(24_000_000));
      await Deno.writeFile(join(dir, "big.zip"), zipSync({ "a.csv": member }));
      await Deno.writeTextFile(join(dir, "c.json"), preparedConfig("zip_input: {}", ".csv"));
    },
  }, {
    name: "xlsx",
    signal: "SIGINT",
    setup: async (dir) => {
      // A million rows of sheet XML: seconds of scanning on the main thread.
      const rows = new Map<number, Cell[]>([[1, ["h"]]]);
      for (let r = 2; r <= 1_000_000; r++) rows.set(r, [{ xml: '<c r="REF"><v>1</v></c>' }]);
      await Deno.writeFile(join(dir, "book.xlsx"), buildXlsx([{ name: "S", rows }]));
      await Deno.writeTextFile(
        join(dir, "c.json"),
        preparedConfig('xlsx_sheet: {name: "S", header_row: 1, output_suffix: "_s.csv"}', "_s.csv"),
      );
    },
  }];
  for (const c of cases) {
    const dir = await Deno.makeTempDir({ prefix: `bxp-stop-${c.name}-` });
    try {
      await c.setup(dir);
      // Signalled while a container is being written out, or (a fast machine may have finished preparing
      // before the test looked) in the conversion that follows.
      const ready = async (lines: Progress[]) => converting(lines) || await writing(dir);
      const r = await stopWhileConverting(dir, { BXP_WORKERS: "0" }, c.signal, ready);
      await assertStopped(dir, r, c.signal);
      // Where the signal landed (a fast machine may have finished preparing: then the conversion stopped).
      console.log(`  ${c.name}: stopped while preparing: ${!/"records":[1-9]/.test(r.stderr)}`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

/**
 * The evaluation pool in-process: small jobs are answered on the calling thread, others run on workers, a
 * time limit or a cancellation terminates the worker running the job (proved with a one-worker pool whose
 * next job can only run on a replacement), and the pool keeps serving afterwards. The runaway job runs on a stand-in worker (`_spin_worker.ts`)
 * that loops forever, since the language's own work budget refuses costly expressions early.
 */
import assert from "node:assert/strict";
import { EvalPool, type EvalStop } from "../../../src/mcp/tools/eval_pool.ts";
import { type EvalJob, INLINE_MAX_CHARS } from "../../../src/inspect/mod.ts";

const SPIN_WORKER = new URL("./_spin_worker.ts", import.meta.url);

/** A job the stand-in worker never finishes. */
const heavyJob = (): EvalJob => ({ kind: "eval", expr: "SPIN", headers: null, fields: null });

const simple: EvalJob = { kind: "eval", expr: "UPPER('ok')", headers: null, fields: null };
const echoed = { text: "echo UPPER('ok')" };
const never = () => new AbortController().signal;

Deno.test("a job runs on a worker and answers the inspect API's text", async () => {
  const pool = new EvalPool({ inline: false, size: 1 });
  try {
    assert.deepEqual(await pool.run(simple, never()), { text: '{"ok":true,"value":"OK"}' });
    const verdict = await pool.run({ kind: "validate", text: "{", label: "<config>" }, never());
    assert.ok("verdict" in verdict && verdict.verdict?.ok === false);
  } finally {
    pool.dispose();
  }
});

Deno.test("small jobs are answered on this thread; one past the inline bounds goes to a worker", async () => {
  // The stand-in worker echoes what it is given: a real answer can only have been computed here.
  const pool = new EvalPool({ size: 1, workerUrl: SPIN_WORKER });
  const job = (expr: string, fields: string[] | null = null): EvalJob => ({
    kind: "eval",
    expr,
    headers: fields === null ? null : fields.map((_, i) => `c${i}`),
    fields,
  });
  try {
    assert.deepEqual(await pool.run(simple, never()), { text: '{"ok":true,"value":"OK"}' });
    const bad = await pool.run({ kind: "validate", text: "{", label: "<config>" }, never());
    assert.ok("verdict" in bad && bad.verdict?.ok === false);
    // Each of these is cheap for a worker but not provably cheap here: a regular expression, a time zone,
    // more text work than the inline spend limit, more input than the inline size.
    const handedOn = [
      "REGEX_MATCH('abc', 'b')",
      "TZ_OFFSET('2024-06-01 12:00:00', 'Europe/Prague')",
      `LEN(${Array(12).fill("LPAD('', 65535, 'ab')").join(" & ")})`,
    ];
    for (const expr of handedOn) {
      assert.deepEqual(await pool.run(job(expr), never()), { text: `echo ${expr}` });
    }
    const wide = job("LEN([c0])", ["x".repeat(INLINE_MAX_CHARS)]);
    assert.deepEqual(await pool.run(wide, never()), { text: "echo LEN([c0])" });
  } finally {
    pool.dispose();
  }
});

Deno.test("the time limit terminates a runaway job and a fresh worker serves the next one", async () => {
  const pool = new EvalPool({ inline: false, size: 1, timeLimitMs: 300, workerUrl: SPIN_WORKER });
  try {
    const stopped = await pool.run(heavyJob(), never()) as EvalStop;
    assert.equal(stopped.stopped, "timeout");
    assert.match(stopped.detail, /time limit/);
    assert.deepEqual(await pool.run(simple, never()), echoed);
  } finally {
    pool.dispose();
  }
});

Deno.test("cancelling a running job terminates its worker (a one-worker pool serves the next job)", async () => {
  // The time limit is far beyond the test's patience: only a terminated worker lets the next job run.
  const pool = new EvalPool({ inline: false, size: 1, timeLimitMs: 600_000, workerUrl: SPIN_WORKER });
  try {
    // A first job makes sure the worker is up, so the next one is dispatched to it at once.
    assert.deepEqual(await pool.run(simple, never()), echoed);
    const cancel = new AbortController();
    const running = pool.run(heavyJob(), cancel.signal);
    cancel.abort();
    assert.equal((await running as EvalStop).stopped, "aborted");
    assert.deepEqual(await pool.run(simple, never()), echoed);
  } finally {
    pool.dispose();
  }
});

Deno.test("a queued job that is cancelled never runs; an already aborted signal answers at once", async () => {
  const pool = new EvalPool({ inline: false, size: 1, timeLimitMs: 300, workerUrl: SPIN_WORKER });
  try {
    const first = pool.run(heavyJob(), never());
    const cancel = new AbortController();
    const queued = pool.run(simple, cancel.signal);
    cancel.abort();
    assert.equal((await queued as EvalStop).stopped, "aborted");
    assert.equal((await first as EvalStop).stopped, "timeout");
    assert.equal((await pool.run(simple, AbortSignal.abort()) as EvalStop).stopped, "aborted");
  } finally {
    pool.dispose();
  }
});

// Deno prints each failed worker's load error on stderr (even when the error event is handled): expected.
Deno.test("when no worker can start (a binary built without the worker module), jobs run on this thread", async () => {
  const logged: string[] = [];
  const pool = new EvalPool({
    inline: false,
    size: 1,
    workerUrl: new URL("./no_such_worker_module.ts", import.meta.url),
    log: (message) => logged.push(message),
  });
  try {
    assert.deepEqual(await pool.run(simple, never()), { text: '{"ok":true,"value":"OK"}' });
    assert.deepEqual(await pool.run(simple, never()), { text: '{"ok":true,"value":"OK"}' });
    assert.ok(logged.some((line) => /evaluating on the session thread/.test(line)), logged.join("\n"));
  } finally {
    pool.dispose();
  }
});

Deno.test("workers that never get ready (no error event either) are given up on, and jobs run on this thread", async () => {
  const logged: string[] = [];
  const pool = new EvalPool({
    inline: false,
    size: 1,
    workerUrl: new URL("./fixtures/silent_worker.ts", import.meta.url),
    startTimeoutMs: 100,
    log: (message) => logged.push(message),
  });
  try {
    assert.deepEqual(await pool.run(simple, never()), { text: '{"ok":true,"value":"OK"}' });
    assert.ok(logged.some((line) => /not ready after 0.1 s/.test(line)), logged.join("\n"));
  } finally {
    pool.dispose();
  }
});

/**
 * The evaluation worker (see `eval_pool.ts`): receives one MessagePort, says `ready` on it, then answers
 * each `{id, job}` with `{id, outcome}` (or `{id, error}` when the job threw). A job sent with `direct`
 * (stdio sessions only) may instead have its answer line written to stdout from here, holding the output
 * lock and after winning the slot's claim; it then reports `{id, answered: true}` (plus `cut: true` when
 * stdout failed partway through the line). Started with no Deno permissions (writing to the inherited
 * stdout needs none); embedded in compiled binaries with `--include` (see
 * `src/distribution/mod.ts`).
 *
 * @module
 */

import { type EvalJob, type EvalOutcome, runEvalJob } from "../../inspect/mod.ts";
import { directAnswerLine, type DirectSpec } from "./eval_answer.ts";
import { CLAIM_RUNNING, CLAIM_WRITING } from "./eval_pool.ts";
import { tryLockOutput, unlockOutput } from "../../util/output_lock.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<MessagePort>) => void) | null;
}

/** A job as the pool posts it. */
interface JobMessage {
  id: number;
  job: EvalJob;
  direct?: DirectSpec & { claim: Int32Array };
}

/** What became of a direct answer: not written (the session answers), written, or cut short. */
type Direct = "declined" | "written" | "cut";

/**
 * Write `outcome`'s answer to stdout when it fits a direct write, the output lock is free at once and the
 * claim is still open. The lock comes first: a worker that finds the session writing does not wait for it
 * (that could take as long as a slow client) but hands the answer back. Holding it, the claim decides
 * between this write and a cancellation. The lock (its owner token is the job id, unique in the pool) is
 * held until the whole line is out.
 */
function answerDirectly(
  id: number,
  outcome: EvalOutcome,
  direct: NonNullable<JobMessage["direct"]>,
): Direct {
  const bytes = directAnswerLine(outcome, direct);
  if (bytes === null) return "declined";
  const claim = direct.claim;
  if (Atomics.load(claim, 1) !== id) return "declined";
  if (!tryLockOutput(direct.outputLock, id)) return "declined";
  try {
    if (Atomics.compareExchange(claim, 0, CLAIM_RUNNING, CLAIM_WRITING) !== CLAIM_RUNNING) return "declined";
    const written = writeWhole(bytes);
    // Nothing written: the session answers (or finds stdout broken too). Part of it: sending the line
    // again would glue two copies into one broken line, so the call counts as answered.
    return written === bytes.length ? "written" : written === 0 ? "declined" : "cut";
  } finally {
    unlockOutput(direct.outputLock, id);
  }
}

/** Transient write failures retried, about a millisecond apart, before the write is given up. */
const MAX_WRITE_RETRIES = 1_000;

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Write all of `bytes` to stdout; how many bytes went out. A short write (a signal; a socket or a file
 * as stdout) is followed by the rest, still under the caller's lock. An interrupted or would-block write
 * (a non-blocking stdout) is retried a bounded number of times; any other failure ends the write.
 */
function writeWhole(bytes: Uint8Array): number {
  let at = 0;
  let retries = 0;
  while (at < bytes.length) {
    let n: number;
    try {
      n = Deno.stdout.writeSync(bytes.subarray(at));
    } catch (error) {
      const transient = error instanceof Deno.errors.Interrupted || error instanceof Deno.errors.WouldBlock;
      if (!transient || retries++ >= MAX_WRITE_RETRIES) return at;
      Atomics.wait(pause, 0, 0, 1);
      continue;
    }
    if (n <= 0) {
      if (retries++ >= MAX_WRITE_RETRIES) return at;
      Atomics.wait(pause, 0, 0, 1);
      continue;
    }
    at += n;
  }
  return at;
}

const scope = self as unknown as WorkerScope;
scope.onmessage = (event) => {
  scope.onmessage = null;
  const port = event.data;
  port.onmessage = (message: MessageEvent<JobMessage>) => {
    const { id, job, direct } = message.data;
    let outcome: EvalOutcome;
    try {
      outcome = runEvalJob(job);
    } catch (error) {
      port.postMessage({ id, error: error instanceof Error ? error.message || error.name : String(error) });
      return;
    }
    let answered: Direct = "declined";
    if (direct !== undefined) {
      try {
        answered = answerDirectly(id, outcome, direct);
      } catch {
        answered = "declined"; // building the line failed: the session builds it and reports what went wrong
      }
    }
    if (answered === "declined") port.postMessage({ id, outcome });
    else port.postMessage(answered === "cut" ? { id, answered: true, cut: true } : { id, answered: true });
  };
  port.postMessage("ready");
};

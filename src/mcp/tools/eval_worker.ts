/**
 * The evaluation worker (see `eval_pool.ts`): receives one MessagePort, says `ready` on it, then answers
 * each `{id, job}` with `{id, outcome}` (or `{id, error}` when the job threw). A job sent with `direct`
 * (stdio sessions only) may instead have its answer line written to stdout from here, in one write, after
 * winning the slot's claim; it then reports `{id, answered: true}`. Started with no Deno permissions
 * (writing to the inherited stdout needs none); embedded in compiled binaries with `--include` (see
 * `src/distribution/entry_points.ts`).
 *
 * @module
 */

import { type EvalJob, type EvalOutcome, runEvalJob } from "./eval_jobs.ts";
import { directAnswerLine, type DirectSpec } from "./eval_answer.ts";
import { CLAIM_RUNNING, CLAIM_WRITING } from "./eval_pool.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<MessagePort>) => void) | null;
}

/** A job as the pool posts it. */
interface JobMessage {
  id: number;
  job: EvalJob;
  direct?: DirectSpec & { claim: Int32Array };
}

/**
 * Write `outcome`'s answer to stdout when it fits one direct write and the claim is still open; whether
 * it was written. A failed write (the client is gone) wrote nothing: the session answers (or notices).
 */
function answerDirectly(
  id: number,
  outcome: EvalOutcome,
  direct: NonNullable<JobMessage["direct"]>,
): boolean {
  const bytes = directAnswerLine(outcome, direct);
  if (bytes === null) return false;
  const claim = direct.claim;
  if (Atomics.load(claim, 1) !== id) return false;
  if (Atomics.compareExchange(claim, 0, CLAIM_RUNNING, CLAIM_WRITING) !== CLAIM_RUNNING) return false;
  try {
    let at = Deno.stdout.writeSync(bytes);
    // A line within the output's atomic size goes out in one write; should a write still come back
    // short (a signal), the rest follows rather than leaving half a message.
    while (at < bytes.length) at += Deno.stdout.writeSync(bytes.subarray(at));
  } catch {
    return false;
  }
  return true;
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
    let answered = false;
    if (direct !== undefined) {
      try {
        answered = answerDirectly(id, outcome, direct);
      } catch {
        answered = false; // building the line failed: the session builds it and reports what went wrong
      }
    }
    port.postMessage(answered ? { id, answered: true } : { id, outcome });
  };
  port.postMessage("ready");
};

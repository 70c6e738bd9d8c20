/**
 * The evaluation worker (see `eval_pool.ts`): receives one MessagePort, says `ready` on it, then answers
 * each `{id, job}` with `{id, outcome}` (or `{id, error}` when the job threw). Started with no Deno
 * permissions; embedded in compiled binaries with `--include` (see `src/distribution/entry_points.ts`).
 *
 * @module
 */

import { type EvalJob, runEvalJob } from "./eval_jobs.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<MessagePort>) => void) | null;
}

const scope = self as unknown as WorkerScope;
scope.onmessage = (event) => {
  scope.onmessage = null;
  const port = event.data;
  port.onmessage = (message: MessageEvent<{ id: number; job: EvalJob }>) => {
    const { id, job } = message.data;
    try {
      port.postMessage({ id, outcome: runEvalJob(job) });
    } catch (error) {
      port.postMessage({ id, error: error instanceof Error ? error.message || error.name : String(error) });
    }
  };
  port.postMessage("ready");
};

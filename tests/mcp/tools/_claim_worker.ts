/**
 * A stand-in evaluation worker for the direct-answer claim tests, speaking `eval_worker.ts`'s protocol.
 * `CLAIM_SLOW` claims the answer, then takes 400 ms "writing" it (a client slow to read); `SLOW_CLAIM`
 * takes 400 ms before trying to claim; `LOCK_AND_CRASH` takes the output lock (its token is the job id)
 * and dies holding it; `LOCK_AND_SPIN` takes it and never returns (until the time limit); anything else
 * answers how many jobs this worker has served, so a test can tell a kept worker from a fresh one.
 */
import { CLAIM_RUNNING, CLAIM_WRITING } from "../../../src/mcp/tools/eval_pool.ts";
import { tryLockOutput } from "../../../src/util/output_lock.ts";

const busy = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until) { /* a blocking write or a slow job */ }
};

let served = 0;
const scope = self as unknown as { onmessage: ((event: MessageEvent<MessagePort>) => void) | null };
scope.onmessage = (event) => {
  scope.onmessage = null;
  const port = event.data;
  port.onmessage = (
    message: MessageEvent<
      { id: number; job: { expr?: string }; direct?: { claim: Int32Array; outputLock: Int32Array } }
    >,
  ) => {
    const { id, job, direct } = message.data;
    served++;
    if (direct !== undefined && (job.expr === "LOCK_AND_CRASH" || job.expr === "LOCK_AND_SPIN")) {
      if (!tryLockOutput(direct.outputLock, id)) throw new Error("the output lock was not free");
      if (job.expr === "LOCK_AND_CRASH") throw new Error("died holding the output lock");
      for (;;) { /* a write that never ends */ }
    }
    if (direct !== undefined && (job.expr === "CLAIM_SLOW" || job.expr === "SLOW_CLAIM")) {
      if (job.expr === "SLOW_CLAIM") busy(400);
      const won = Atomics.compareExchange(direct.claim, 0, CLAIM_RUNNING, CLAIM_WRITING) === CLAIM_RUNNING;
      if (won && job.expr === "CLAIM_SLOW") busy(400);
      port.postMessage(won ? { id, answered: true } : { id, outcome: { text: "revoked" } });
      return;
    }
    port.postMessage({ id, outcome: { text: `served ${served}` } });
  };
  port.postMessage("ready");
};

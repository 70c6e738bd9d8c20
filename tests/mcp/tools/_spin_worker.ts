/**
 * A stand-in evaluation worker for the pool tests, speaking `eval_worker.ts`'s protocol: an `eval` job
 * whose expression is `SPIN` never returns (a runaway evaluation no work budget catches); any other job
 * answers its expression back.
 */

const scope = self as unknown as { onmessage: ((event: MessageEvent<MessagePort>) => void) | null };
scope.onmessage = (event) => {
  scope.onmessage = null;
  const port = event.data;
  port.onmessage = (message: MessageEvent<{ id: number; job: { expr?: string } }>) => {
    const { id, job } = message.data;
    if (job.expr === "SPIN") { for (;;) { /* runaway */ } }
    port.postMessage({ id, outcome: { text: `echo ${job.expr}` } });
  };
  port.postMessage("ready");
};

/**
 * The block side of the engine worker (`../worker.ts`): receives a file context, then blocks of CSV lines,
 * and answers each block with its evaluated output, trace frames and counters (see protocol.ts).
 *
 * @example
 * ```ts
 * import { blockService } from "./block_service.ts";
 * import type { WorkerResponse } from "./protocol.ts";
 * import { loadConfig } from "../../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h] & '!'"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const context = { template: config.templates[0], globalMaps: config.maps, columnNames: ["h"], stem: "a",
 *   dateMin: "", dateMax: "", debug: false, trace: false, sourceName: "a.csv", lookups: null };
 * // In the engine worker: `blocks` posts with self.postMessage, and self.onmessage hands it each request.
 * const replies: WorkerResponse[] = [];
 * const blocks = blockService((msg) => void replies.push(msg));
 * blocks({ type: "file", context });
 * const bytes = new TextEncoder().encode("x\n");
 * blocks({ type: "block", id: 7, job: { kind: "main", bytes, baseOffset: 2, baseRecord: 0, last: true } });
 * const [reply] = replies;
 * assert.ok(reply.type === "result" && reply.id === 7);
 * assert.equal(new TextDecoder().decode(reply.result.out), "x!\n");
 * ```
 * @module
 */

import { BlockSession } from "./block_eval.ts";
import { isFatalBlockFailure, type WorkerRequest, type WorkerResponse } from "./protocol.ts";

/** The handler of block requests, answering through `post`. */
export function blockService(
  post: (msg: WorkerResponse, transfer?: ArrayBuffer[]) => void,
): (msg: WorkerRequest) => void {
  let session: BlockSession | null = null;
  return (msg) => {
    if (msg.type === "file") {
      session = new BlockSession(msg.context);
      return;
    }
    let reply: WorkerResponse;
    try {
      if (session === null) throw new Error("block before file context");
      const result = session.run(msg.job);
      // The recycled input and output are shared buffers (see recycler.ts). A block's trace frames, and
      // rows past its output buffer, are fresh buffers with one view each: transferring those keeps V8's
      // ArrayBufferDetaching protector, and saves copying them.
      post(
        { type: "result", id: msg.id, result },
        [result.trace, result.out].filter(ownsFreshBuffer).map((v) => v.buffer as ArrayBuffer),
      );
      return;
    } catch (err) {
      const fatal = isFatalBlockFailure(err);
      reply = {
        type: "error",
        id: msg.id,
        message: err instanceof Error ? err.message : String(err),
        fatal,
        trace: fatal ? session?.takeTrace() ?? null : null,
      };
    }
    post(reply);
  };
}

/** True for a non-empty view of a whole plain (not shared) buffer: a block's fresh trace frames or rows. */
function ownsFreshBuffer(view: Uint8Array): boolean {
  const buffer = view.buffer;
  return buffer instanceof ArrayBuffer && buffer.byteLength > 0 && view.byteLength === buffer.byteLength;
}

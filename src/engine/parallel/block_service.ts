/**
 * The block side of the engine worker (`../worker.ts`): receives a file context, then blocks of CSV lines,
 * and answers each block with its evaluated output, trace frames and counters (see protocol.ts).
 *
 * @example
 * ```ts ignore
 * const blocks = blockService((msg, transfer) => self.postMessage(msg, transfer));
 * self.onmessage = (e) => blocks(e.data);
 * ```
 * @module
 */

import { CsvRecordTooLongError } from "../../formats/csv_reader.ts";
import { UncomparableDateError } from "../date_range.ts";
import { BlockSession } from "./block_eval.ts";
import type { WorkerRequest, WorkerResponse } from "./protocol.ts";

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
      // The recycled input and output are shared buffers (see recycler.ts). A block's trace frames are a
      // fresh buffer with one view: transferring that keeps V8's ArrayBufferDetaching protector.
      const frames = result.trace.buffer;
      const fresh = frames instanceof ArrayBuffer && frames.byteLength > 0 &&
        result.trace.byteLength === frames.byteLength;
      post({ type: "result", id: msg.id, result }, fresh ? [frames] : []);
      return;
    } catch (err) {
      reply = {
        type: "error",
        id: msg.id,
        message: err instanceof Error ? err.message : String(err),
        fatal: err instanceof CsvRecordTooLongError || err instanceof UncomparableDateError,
      };
    }
    post(reply);
  };
}

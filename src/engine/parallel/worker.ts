/**
 * The block worker: receives a file context, then blocks of CSV lines, and answers each block with its
 * evaluated output, trace frames and counters (see protocol.ts).
 * @module
 */

/// <reference lib="deno.worker" />

import { CsvRecordTooLongError } from "../../formats/csv_reader.ts";
import { UncomparableDateError } from "../date_range.ts";
import { BlockSession } from "./block_eval.ts";
import type { WorkerRequest, WorkerResponse } from "./protocol.ts";

let session: BlockSession | null = null;

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const msg = event.data;
  if (msg.type === "file") {
    session = new BlockSession(msg.context);
    return;
  }
  let reply: WorkerResponse;
  try {
    if (session === null) throw new Error("block before file context");
    const result = session.run(msg.job);
    reply = { type: "result", id: msg.id, result };
    const transfer = [result.out.buffer, result.trace.buffer, result.input?.buffer].filter((b, i, all) =>
      b !== undefined &&
      b.byteLength > 0 && all.indexOf(b) === i
    ) as ArrayBuffer[];
    self.postMessage(reply, transfer);
    return;
  } catch (err) {
    reply = {
      type: "error",
      id: msg.id,
      message: err instanceof Error ? err.message : String(err),
      fatal: err instanceof CsvRecordTooLongError || err instanceof UncomparableDateError,
    };
  }
  self.postMessage(reply);
};

/**
 * The engine's one worker thread module: it inflates container members (`containers/inflate_service.ts`)
 * and evaluates blocks of CSV lines (`parallel/block_service.ts`). One module, so a run's threads can
 * unpack its archives and then convert their members (see `worker_set.ts`): a thread per extra core, not a
 * second set of isolates for the unpacking.
 * @module
 */

/// <reference lib="deno.worker" />

import { inflateService, isInflateRequest } from "./containers/inflate_service.ts";
import type { InflateRequest } from "./containers/protocol.ts";
import { blockService } from "./parallel/block_service.ts";
import type { WorkerRequest } from "./parallel/protocol.ts";

const post = (msg: unknown, transfer: ArrayBuffer[] = []) => self.postMessage(msg, transfer);
const inflate = inflateService(post);
const blocks = blockService(post);

self.onmessage = (event: MessageEvent<InflateRequest | WorkerRequest>) => {
  const msg = event.data;
  if (isInflateRequest(msg)) inflate(msg);
  else blocks(msg);
};

/**
 * The playground's Web Worker: answers the page's requests with {@link PlaygroundCore}, so a long run never
 * freezes the page. Nothing leaves the browser: the worker has no network code.
 * @module
 */

import { PlaygroundCore } from "./core.ts";
import type { Request, Response } from "./protocol.ts";

const core = new PlaygroundCore();

interface WorkerScope {
  onmessage: ((e: MessageEvent<Request>) => void) | null;
  postMessage(message: Response, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;

async function answer(req: Request): Promise<unknown> {
  switch (req.kind) {
    case "catalog":
      return core.catalog();
    case "validate":
      return core.validate(req.config);
    case "run":
      return await core.run(req.config, req.files, req.rowLimit);
    case "explain":
      return await core.explain(req.template, req.path, req.recordNum);
    case "trace":
      return core.trace(req.expr, req.headers, req.fields);
  }
}

// Requests are answered one at a time, in order: a run and the explanation after it see the same files.
let queue: Promise<void> = Promise.resolve();
scope.onmessage = (e) => {
  const req = e.data;
  queue = queue.then(async () => {
    try {
      scope.postMessage({ id: req.id, ok: true, result: await answer(req) });
    } catch (err) {
      scope.postMessage({ id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  });
};

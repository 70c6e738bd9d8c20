/**
 * The page's handle on the core worker: typed request/answer pairs over postMessage.
 * @module
 */

import type { Answers, Request, Response } from "./protocol.ts";

type Kind = Request["kind"];
type Args<K extends Kind> = Omit<Extract<Request, { kind: K }>, "id" | "kind">;

/** Talks to the worker; each call resolves with the worker's answer or rejects with its error text. */
export class CoreClient {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  #next = 1;

  constructor(url: string) {
    this.#worker = new Worker(url, { type: "module" });
    this.#worker.onmessage = (e: MessageEvent<Response>) => {
      const p = this.#pending.get(e.data.id);
      if (p === undefined) return;
      this.#pending.delete(e.data.id);
      if (e.data.ok) p.resolve(e.data.result);
      else p.reject(new Error(e.data.error));
    };
    this.#worker.onerror = (e) => {
      for (const p of this.#pending.values()) p.reject(new Error(e.message || "the core worker failed"));
      this.#pending.clear();
    };
  }

  /** Sends one request. */
  call<K extends Kind>(kind: K, args: Args<K>): Promise<Answers[K]> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#worker.postMessage({ id, kind, ...args });
    });
  }
}

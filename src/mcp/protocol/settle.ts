/**
 * Bounded waiting: the session's end waits for work to wind down, never forever.
 *
 * @module
 */

/** Wait for `work` to settle, but never longer than `ms`; true when it all settled. */
export async function settleWithin(work: Promise<unknown>[], ms: number): Promise<boolean> {
  if (work.length === 0) return true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([Promise.allSettled(work).then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Keep `work` in `set`, as a promise that never rejects, until it settles: the work a shutdown waits for
 * (with {@link settleWithin}).
 */
export function track(set: Set<Promise<unknown>>, work: Promise<unknown>): void {
  const settled = work.then(() => {}, () => {});
  set.add(settled);
  settled.finally(() => set.delete(settled));
}

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

/**
 * The output lock (`output_lock.ts`) with two real threads: the session side waits for it without
 * blocking its thread, a direct writer takes it only when free at once, and the two are never inside
 * together. Deterministic where it matters (no timing assertions): overlaps are counted, not timed.
 */
import assert from "node:assert/strict";
import {
  createOutputLock,
  lockOutput,
  OUTPUT_FREE,
  OUTPUT_SESSION,
  tryLockOutput,
  unlockOutput,
} from "../../../src/util/output_lock.ts";

const CONTENDER = new URL("./fixtures/lock_contender.ts", import.meta.url);

function contender(): { worker: Worker; next: () => Promise<unknown> } {
  const worker = new Worker(CONTENDER, { type: "module" });
  const inbox: unknown[] = [];
  const waiting: ((value: unknown) => void)[] = [];
  worker.onmessage = (event) => {
    const wake = waiting.shift();
    if (wake) wake(event.data);
    else inbox.push(event.data);
  };
  const next = () =>
    inbox.length > 0 ? Promise.resolve(inbox.shift()) : new Promise((resolve) => waiting.push(resolve));
  return { worker, next };
}

Deno.test("the lock word names its owner; only the owner releases it", () => {
  const lock = createOutputLock();
  assert.equal(lock[0], OUTPUT_FREE);
  assert.equal(tryLockOutput(lock, OUTPUT_SESSION), true);
  assert.equal(tryLockOutput(lock, 4), false, "taken: a direct writer does not get it");
  assert.equal(unlockOutput(lock, 4), false, "not the owner");
  assert.equal(lock[0], OUTPUT_SESSION);
  assert.equal(unlockOutput(lock, OUTPUT_SESSION), true);
  assert.equal(tryLockOutput(lock, 4), true);
  assert.equal(unlockOutput(lock, OUTPUT_SESSION), false, "a token the session does not hold");
  assert.equal(unlockOutput(lock, 4), true);
  assert.equal(lock[0], OUTPUT_FREE);
});

Deno.test("a session and a direct writer on two threads are never inside at once", async () => {
  const lock = createOutputLock();
  const inside = new Int32Array(new SharedArrayBuffer(4));
  const { worker, next } = contender();
  try {
    let done = false;
    const report = next().then((value) => (done = true, value));
    worker.postMessage({ kind: "contend", lock, inside, token: 9, rounds: 200_000 });
    let sessionWon = 0;
    let sessionOverlaps = 0;
    while (!done) {
      if (!await lockOutput(lock, OUTPUT_SESSION)) break;
      sessionWon++;
      if (Atomics.add(inside, 0, 1) !== 0) sessionOverlaps++;
      // Held across an await, as the session's writer holds it while the stream writes the line.
      await Promise.resolve();
      if (sessionWon % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
      if (Atomics.load(inside, 0) !== 1) sessionOverlaps++;
      Atomics.sub(inside, 0, 1);
      assert.equal(unlockOutput(lock, OUTPUT_SESSION), true);
      await new Promise((resolve) => setTimeout(resolve, 0)); // let the other side in
    }
    const { won, declined, overlaps } = await report as { won: number; declined: number; overlaps: number };
    assert.equal(overlaps, 0, "the direct writer never found the session inside");
    assert.equal(sessionOverlaps, 0, "the session never found the direct writer inside");
    assert.ok(won > 0, "the direct writer got the lock when it was free");
    assert.ok(sessionWon > 0, "the session got the lock");
    assert.ok(declined > 0, "the direct writer was turned away while the session held it");
    assert.equal(lock[0], OUTPUT_FREE);
  } finally {
    worker.terminate();
  }
});

Deno.test("the session waits for a direct writer without blocking its thread, and gets the lock after it", async () => {
  const lock = createOutputLock();
  const { worker, next } = contender();
  try {
    worker.postMessage({ kind: "hold", lock, token: 3, ms: 300 });
    assert.equal(await next(), "held");
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const got = await lockOutput(lock, OUTPUT_SESSION);
    clearInterval(ticker);
    assert.equal(got, true);
    assert.equal(await next(), "released", "the lock came only after the writer released it");
    assert.ok(ticks > 0, "timers ran on this thread while it waited");
    assert.equal(lock[0], OUTPUT_SESSION);
  } finally {
    worker.terminate();
  }
});

Deno.test("a wait for the lock gives up when its signal fires, without taking it", async () => {
  const lock = createOutputLock();
  assert.equal(tryLockOutput(lock, 5), true);
  const stop = new AbortController();
  const waiting = lockOutput(lock, OUTPUT_SESSION, stop.signal);
  setTimeout(() => stop.abort(), 30);
  assert.equal(await waiting, false);
  assert.equal(lock[0], 5);
});

import assert from "node:assert/strict";
import { acquireAll, Gate } from "../../../src/mcp/simulate/gate.ts";

const never = new AbortController().signal;

Deno.test("Gate admits `limit` holders, then queues first come first served", async () => {
  const gate = new Gate(2);
  const order: string[] = [];
  const a = await gate.acquire(never);
  const b = await gate.acquire(never);
  assert.equal(gate.active, 2);
  const c = gate.acquire(never).then((release) => (order.push("c"), release));
  const d = gate.acquire(never).then((release) => (order.push("d"), release));
  assert.equal(gate.waiting, 2);
  a();
  a(); // a second call is a no-op
  const releaseC = await c;
  assert.deepEqual(order, ["c"]);
  b();
  (await d)();
  releaseC();
  assert.deepEqual(order, ["c", "d"]);
  assert.equal(gate.active, 0);
  assert.equal(gate.waiting, 0);
});

Deno.test("a waiter whose signal fires leaves the queue without a slot", async () => {
  const gate = new Gate(1);
  const held = await gate.acquire(never);
  const controller = new AbortController();
  const waiting = gate.acquire(controller.signal);
  controller.abort(new DOMException("cancelled", "AbortError"));
  await assert.rejects(waiting, (e: unknown) => e instanceof DOMException && e.name === "AbortError");
  assert.equal(gate.waiting, 0);
  held();
  assert.equal(gate.active, 0);
  await assert.rejects(gate.acquire(controller.signal), "an aborted signal never queues");
});

Deno.test("acquireAll says whether it waited and gives back every slot", async () => {
  const session = new Gate(1);
  const process = new Gate(1);
  const first = await acquireAll([session, process], never);
  assert.equal(first.waited, false);
  const second = acquireAll([session, process], never);
  first.release();
  const got = await second;
  assert.equal(got.waited, true);
  got.release();
  assert.equal(session.active + process.active, 0);

  // Cancelled while waiting on the second gate: the first gate's slot is given back.
  const other = await process.acquire(never);
  const controller = new AbortController();
  const pending = acquireAll([session, process], controller.signal);
  await Promise.resolve();
  controller.abort(new DOMException("cancelled", "AbortError"));
  await assert.rejects(pending);
  assert.equal(session.active, 0);
  other();
});

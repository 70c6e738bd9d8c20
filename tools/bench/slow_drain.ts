/**
 * The bench's slow sink: reads a FIFO at a fixed byte rate and throws the bytes away, so a bxp-cli writing
 * into it meets a consumer far slower than itself (a slow disk, a congested pipe) and must stall rather than
 * buffer. Prints the bytes read when the writer closes its end.
 *
 * `deno run --allow-read tools/bench/slow_drain.ts <fifo> <bytes-per-second>`
 * @module
 */

const CHUNK = 64 * 1024;

/** Reads `path` to its end at no more than `bytesPerSecond`; answers the bytes read. */
export async function drainSlowly(path: string, bytesPerSecond: number): Promise<number> {
  using file = await Deno.open(path, { read: true });
  const buf = new Uint8Array(CHUNK);
  const started = performance.now();
  let total = 0;
  for (;;) {
    const n = await file.read(buf);
    if (n === null) return total;
    total += n;
    // Sleep until the rate allows the bytes read so far.
    const due = (total / bytesPerSecond) * 1000 - (performance.now() - started);
    if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
  }
}

if (import.meta.main) {
  const [path, rate] = Deno.args;
  const bytesPerSecond = Number(rate);
  if (path === undefined || !(bytesPerSecond > 0)) {
    console.error("usage: slow_drain.ts <fifo> <bytes-per-second>");
    Deno.exit(2);
  }
  console.log(String(await drainSlowly(path, bytesPerSecond)));
}

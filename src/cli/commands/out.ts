/** Whole writes to stdout for the command modules (a single writeSync may write only part). @module */

/** Writes all of `text` to stdout. */
export function writeStdout(text: string): void {
  const bytes = new TextEncoder().encode(text);
  let done = 0;
  while (done < bytes.length) done += Deno.stdout.writeSync(bytes.subarray(done));
}

/**
 * `deno task playground [--port N] [--build-only]`: builds the playground into `dist/playground/` and serves
 * it on a loopback port (default 8787; 0 picks a free one), printing the address.
 * @module
 */

import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildPlayground } from "./build.ts";
import { servePlayground } from "./serve.ts";

const OUT = fileURLToPath(new URL("../../dist/playground", import.meta.url));
const USAGE = "usage: deno task playground [--port N] [--build-only]";

function fail(message: string): never {
  console.error(`error: ${message}`);
  console.error(USAGE);
  Deno.exit(1);
}

let values: { port?: string; "build-only"?: boolean; help?: boolean };
try {
  ({ values } = parseArgs({
    args: Deno.args,
    options: {
      port: { type: "string" },
      "build-only": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (err) {
  fail((err as Error).message);
}
if (values.help) {
  console.log(USAGE);
  Deno.exit(0);
}
const port = values.port === undefined ? 8787 : /^\d{1,5}$/.test(values.port) ? Number(values.port) : NaN;
if (!(port >= 0 && port <= 65535)) fail(`--port wants a number from 0 to 65535, got '${values.port}'`);

try {
  await buildPlayground(OUT);
} catch (err) {
  console.error(`error: ${(err as Error).message}`);
  Deno.exit(1);
}
console.log(`built ${OUT}`);
if (!values["build-only"]) {
  try {
    const server = servePlayground(OUT, port);
    console.log(`bxp playground: ${server.url}  (loopback only; Ctrl-C stops it)`);
  } catch (err) {
    if (err instanceof Deno.errors.AddrInUse) {
      fail(`port ${port} is in use; pass --port N (0 picks a free one)`);
    }
    throw err;
  }
}

/**
 * `deno task playground [--port N] [--build-only]`: builds the playground into `dist/playground/` and serves
 * it on a loopback port, printing the address.
 * @module
 */

import { fileURLToPath } from "node:url";
import { buildPlayground } from "./build.ts";
import { servePlayground } from "./serve.ts";

const OUT = fileURLToPath(new URL("../../dist/playground", import.meta.url));

const args = [...Deno.args];
const portAt = args.indexOf("--port");
const port = portAt >= 0 ? Number(args[portAt + 1]) : 8787;
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`error: --port wants a number from 0 to 65535, got '${args[portAt + 1]}'`);
  Deno.exit(1);
}
try {
  await buildPlayground(OUT);
} catch (err) {
  console.error(`error: ${(err as Error).message}`);
  Deno.exit(1);
}
console.log(`built ${OUT}`);
if (!args.includes("--build-only")) {
  const server = servePlayground(OUT, port);
  console.log(`bxp playground: ${server.url}  (loopback only; Ctrl-C stops it)`);
}

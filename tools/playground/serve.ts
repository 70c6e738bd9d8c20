/**
 * Serves a built playground folder on the loopback interface only.
 *
 * Not run as a test: it serves HTTP on a real port.
 *
 * @example
 * ```ts ignore
 * const server = servePlayground("dist/playground", 0); // 0: any free port
 * console.log(server.url);
 * await server.shutdown();
 * ```
 * @module
 */

import { extname, join, normalize, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".png": "image/png",
};

/** A running server. */
export interface PlaygroundServer {
  url: string;
  shutdown(): Promise<void>;
}

/** Serves `dir` on 127.0.0.1:`port` (0 picks a free port). */
export function servePlayground(dir: string, port: number): PlaygroundServer {
  const root = normalize(dir);
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, async (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname);
    const file = normalize(join(root, path === "/" ? "index.html" : path));
    if (!file.startsWith(root + sep) || req.method !== "GET") {
      return new Response("not found", { status: 404 });
    }
    try {
      return new Response(await Deno.readFile(file), {
        headers: {
          "content-type": TYPES[extname(file)] ?? "application/octet-stream",
          "cache-control": "no-store",
        },
      });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  const addr = server.addr as Deno.NetAddr;
  return { url: `http://127.0.0.1:${addr.port}/`, shutdown: () => server.shutdown() };
}

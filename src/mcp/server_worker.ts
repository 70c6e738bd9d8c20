/**
 * The bxp-mcp session worker: started by `server_main.ts` with narrowed Deno permissions, it serves the
 * whole MCP session on stdio. Embedded in compiled binaries with `--include` (see
 * `src/distribution/entry_points.ts`).
 *
 * @module
 */

import { workerMain } from "./session.ts";

workerMain(self as unknown as Parameters<typeof workerMain>[0]);

/**
 * The bxp-mcp session worker: started by `server_main.ts` with narrowed Deno permissions, it serves the
 * whole MCP session on stdio (first binding the path guard's C library calls and dropping FFI). Embedded
 * in compiled binaries with `--include` (see `src/distribution/entry_points.ts`).
 *
 * @module
 */

import { sealBeneath } from "./security/beneath.ts";
import { workerMain } from "./session.ts";

// Bind the path guard's fd-relative calls to the C library, then drop FFI: nothing else native is left.
sealBeneath();
workerMain(self as unknown as Parameters<typeof workerMain>[0]);

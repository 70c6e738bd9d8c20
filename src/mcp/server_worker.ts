/**
 * The bxp-mcp session worker: started by `server_main.ts` with narrowed Deno permissions, it serves the
 * whole MCP session on stdio (FFI is dropped once the path guard's C library calls are bound). Embedded
 * in compiled binaries with `--include` (see `src/distribution/mod.ts`).
 *
 * @module
 */

import { sealBeneath } from "./security/beneath.ts";
import { workerMain } from "./session.ts";

// FFI is dropped once the path guard's fd-relative calls are bound (on first path access): nothing else
// native is ever left to this thread.
sealBeneath();
workerMain(self as unknown as Parameters<typeof workerMain>[0]);

/**
 * `bxp_simulate`: a full conversion through the co-located bxp-cli in a scratch workspace.
 *
 * @module
 */

export {
  DEFAULT_TIMEOUT_MS,
  denoSimulateHost,
  SIMULATE_STEPS,
  type SimulateHost,
  type SimulateRequest,
  Simulator,
} from "./simulate.ts";
export { type CliCommand, CliNotFoundError, resolveBxpCli } from "./bxp_cli.ts";
export { sanitizeWorkspaceId, SIM_ROOT_NAME } from "./workspace.ts";
export { MAX_TRACE_SAMPLE } from "./report.ts";
export { MAX_CAPTURE_BYTES } from "./capture.ts";

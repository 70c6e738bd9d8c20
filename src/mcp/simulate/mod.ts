/**
 * `bxp_simulate`: a full conversion through the co-located bxp-cli in a private workspace, and the
 * session's kept runs as resources.
 *
 * @module
 */

export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_LIMITS,
  DEFAULT_TIMEOUT_MS,
  denoSimulateHost,
  MAX_BYTES,
  PROCESS_CONCURRENCY,
  SAMPLE_ROWS,
  SIMULATE_STEPS,
  type SimulateHost,
  type SimulateLimits,
  type SimulateRequest,
  Simulator,
} from "./simulate.ts";
export { type CliCommand, CliNotFoundError, resolveBxpCli } from "./bxp_cli.ts";
export { sanitizeWorkspaceId, SIM_ROOT_NAME } from "./workspace.ts";
export { MAX_TRACE_SAMPLE } from "./report.ts";
export { MAX_CAPTURE_BYTES } from "./capture.ts";
export { Gate } from "./gate.ts";
export { RESIDENT_PROBE_OSES, type ResidentProbe, residentProbe } from "./memory.ts";
export {
  outputUri,
  PAGE_BYTES,
  parseSimUri,
  RUN_IDLE_MS,
  type RunPage,
  type RunPart,
  type RunReadRefusal,
  RunStore,
  traceUri,
} from "./runs.ts";

/**
 * `bxp_read_run`: the full outputs, trace and report of a kept `bxp_simulate` run, read by the run handle
 * its answer returned, in pages by byte offset. The handle is state a sessionless (2026-07-28) client
 * carries as an ordinary tool argument (SEP-2567), where a legacy session could read `bxp-sim://`
 * resources; it works in both eras.
 *
 * @module
 */

import { utf8Length } from "../../util/utf8.ts";
import { stringArg } from "./args.ts";
import { DEFAULT_MAX_BYTES } from "./budget.ts";
import { integerProp, objectSchema, stringProp } from "./schemas.ts";
import { intArg } from "./simulate_tool.ts";
import { type BxpTool, READ_ONLY, required } from "./tool_kit.ts";
import { RUN_IDLE_MS, type RunPage, type RunPart } from "../simulate/mod.ts";

const PARTS: readonly RunPart[] = ["output", "trace", "report"];

/** Room kept in the budget for the answer's JSON around the page text. */
const ENVELOPE_BYTES = 1024;

/** Largest offset accepted (beyond any part a run may hold). */
const MAX_OFFSET = 2 ** 40;

/** The answer's JSON text for `page`. */
function answerText(handle: string, page: RunPage): string {
  return JSON.stringify({
    run: handle,
    part: page.part,
    ...(page.name === undefined ? {} : { name: page.name }),
    offset: page.offset,
    bytes: page.bytes,
    next_offset: page.next_offset,
    total_bytes: page.total_bytes,
    unit: "bytes",
    expires_after_idle_s: RUN_IDLE_MS / 1000,
    text: page.text,
  });
}

/** `bxp_read_run`. */
export const READ_RUN_TOOL: BxpTool = {
  name: "bxp_read_run",
  title: "Read a simulated run by handle",
  description: "Read a bxp_simulate run's full output file, per-row trace (one text line per BXTB " +
    "frame) or whole report (JSON, before it was cut to max_bytes), by the 'run' handle that " +
    "bxp_simulate answered, in a later request. Paged by byte offset: each answer holds " +
    "text from 'offset' (whole lines where it can), 'next_offset' to pass for the next page (null at the " +
    "end) and 'total_bytes'. The page is as large as max_bytes allows (about half of it: the text is " +
    `JSON-escaped). A handle works only for the client that ran the simulation and expires ` +
    `${RUN_IDLE_MS / 60000} min after its last use, or when the run is evicted (the last runs are kept).`,
  inputSchema: objectSchema({
    run: stringProp("The run handle from a bxp_simulate answer ('run', bxr_ and 22 characters)."),
    part: {
      ...stringProp('What to read: "output" (default), "trace" or "report".'),
      enum: [...PARTS],
    },
    name: stringProp(
      "With part output: the output file's name as the report lists it (optional when the run wrote one).",
    ),
    offset: {
      ...integerProp("Byte offset to start at: 0 (default) or a 'next_offset' from the previous page."),
      minimum: 0,
      maximum: MAX_OFFSET,
    },
  }, ["run"]),
  allowStructured: false,
  annotations: READ_ONLY,
  narrowHint: "ask for a smaller page with a lower max_bytes",
  async run(args, call, context) {
    const handle = required(args, call, "run");
    if (typeof handle !== "string") return handle;
    const part = (stringArg(args, "part") ?? "output") as RunPart;
    if (!PARTS.includes(part)) return call.fail(`'part' must be one of ${PARTS.join(", ")}`);
    const offset = intArg(args, "offset", 0, MAX_OFFSET);
    if ("error" in offset) return call.fail(offset.error);
    const name = stringArg(args, "name");
    const budget = call.budget ?? DEFAULT_MAX_BYTES;
    // The escaped text must fit what is left of the budget; escaping may grow it, so measure and shrink.
    let pageBytes = Math.max(256, Math.floor((budget - ENVELOPE_BYTES) / 2));
    for (let round = 0; round < 6; round++) {
      const page = await context.simulator.readRun(handle, part, name, offset.value ?? 0, pageBytes);
      if ("error" in page) return call.fail(page.error);
      const text = answerText(handle, page);
      const size = utf8Length(text) + ENVELOPE_BYTES / 4;
      if (size <= budget || page.bytes <= 64) return { text };
      pageBytes = Math.max(64, Math.floor(page.bytes * (budget - ENVELOPE_BYTES) / size));
    }
    return call.fail("no page of this part fits max_bytes; raise max_bytes");
  },
};

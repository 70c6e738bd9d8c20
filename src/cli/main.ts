/**
 * bxp-cli: converts input files with a bxp config. The thin adapter around the engine: arguments, config
 * loading, the real file system, stdout/stderr and the exit status (0 ok, 2 warnings, 1 error).
 *
 * Run with `deno task bxp-cli [--config file] [--template id] ...`.
 * @module
 */

import { VERSION } from "../version.ts";
import { parseCliArgs, usageText } from "./args.ts";
import { removeLiveTemps } from "./deno_fs.ts";
import { commandsHelp, findCommand } from "./commands/mod.ts";
import { runConversionCommand, stopNow } from "./conversion_run.ts";

async function main(): Promise<number> {
  const command = await findCommand(Deno.args);
  if (command !== null) return await (await command.load())(Deno.args);
  const req = parseCliArgs(Deno.args);
  if (req.kind === "version") {
    console.log(`bxp-cli ${VERSION}`);
    return 0;
  }
  if (req.kind === "help") {
    console.log(usageText("bxp-cli", commandsHelp()));
    return 0;
  }
  if (req.kind === "error") {
    console.error(`error: ${req.message}`);
    if (req.usage) console.error(usageText("bxp-cli", commandsHelp()));
    return 1;
  }
  return await runConversionCommand(req.options);
}

// A failure nobody awaited still ends with a message and no temporary file, never a stack trace.
globalThis.addEventListener("unhandledrejection", (e) => {
  e.preventDefault();
  const reason = e.reason;
  stopNow(`fatal error: ${reason instanceof Error ? reason.message : String(reason)}`, 1);
});

const started = performance.now();
let code: number;
try {
  code = await main();
} catch (err) {
  // Unexpected failures still end with a message, never a stack trace, and never leave temporary files.
  removeLiveTemps();
  console.error(`fatal error: ${err instanceof Error ? err.message : String(err)}`);
  code = 1;
}
/** Peak resident set in KiB: the kernel's high-water mark where it tells (Linux), else the current size. */
function peakRssKb(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(Deno.readTextFileSync("/proc/self/status"));
    if (hwm) return Number(hwm[1]);
  } catch {
    // not Linux: fall through
  }
  return Math.round(Deno.memoryUsage().rss / 1024);
}

if (Deno.env.get("BXP_METRICS")) {
  const rssKb = peakRssKb();
  console.error(`bxp-metrics wall_ms=${Math.round(performance.now() - started)} peak_rss_kb=${rssKb}`);
}
Deno.exit(code);

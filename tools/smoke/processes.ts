/**
 * The machine's processes with their command lines, to prove that nothing a smoke run started outlives it:
 * every process the run starts names the run's unique temporary folder in its arguments (bxp-mcp its
 * `--root`, bxp-cli its staged config), so "no process mentions the folder" means none is left.
 *
 * @module
 */

/** One running process. */
export interface ProcessInfo {
  pid: number;
  command: string;
}

async function output(program: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(program, { args, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`${program} failed (${out.code}): ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout);
}

function parsePidLines(text: string): ProcessInfo[] {
  const list: ProcessInfo[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(\d+)\s?(.*)$/.exec(line);
    if (m !== null) list.push({ pid: Number(m[1]), command: m[2] });
  }
  return list;
}

async function linuxProcesses(): Promise<ProcessInfo[]> {
  const list: ProcessInfo[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const raw = await Deno.readFile(`/proc/${entry.name}/cmdline`);
      list.push({ pid: Number(entry.name), command: new TextDecoder().decode(raw).replaceAll("\0", " ") });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return list;
}

/** Every process of the machine (Linux: /proc; macOS: ps; Windows: Win32_Process through PowerShell). */
export async function listProcesses(): Promise<ProcessInfo[]> {
  switch (Deno.build.os) {
    case "linux":
      return await linuxProcesses();
    case "windows":
      return parsePidLines(
        await output("powershell", [
          "-NoProfile",
          "-NonInteractive",
          "-Command",
          'Get-CimInstance Win32_Process | ForEach-Object { "$($_.ProcessId) $($_.CommandLine)" }',
        ]),
      );
    default:
      return parsePidLines(await output("ps", ["-A", "-ww", "-o", "pid=,command="]));
  }
}

/** The processes (other than this one) whose command line contains `marker`. */
export async function processesMentioning(marker: string): Promise<ProcessInfo[]> {
  return (await listProcesses()).filter((p) => p.pid !== Deno.pid && p.command.includes(marker));
}

/**
 * Small readers of bxp-cli's argument vector for the command modules (`--name value` or `--name=value`).
 * @module
 */

/** The value of `--name` (last occurrence), null when absent; `""` when the flag ends the line. */
export function flagValue(args: readonly string[], name: string): string | null {
  let value: string | null = null;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) value = i + 1 < args.length ? args[++i] : "";
    else if (args[i].startsWith(name + "=")) value = args[i].slice(name.length + 1);
  }
  return value;
}

/** True when the bare flag (or `--flag=...`) is present. */
export function hasFlag(args: readonly string[], name: string): boolean {
  return args.some((a) => a === name || a.startsWith(name + "="));
}

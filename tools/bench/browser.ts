/**
 * The in-browser bench point: the playground (the same core in a Web Worker of headless Chromium) converts
 * bxp's 100,000-row benchmark input, timed from the Run click to the finished run, next to bxp-cli on the
 * same input and config; the browser's download is checked byte for byte against bxp-cli's output.
 *
 * Skipped (with the reason) when no Chromium is installed (`apt-get install -y chromium`).
 * @module
 */

import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { ENTRY_MODULES, entryPointFlags } from "../../src/distribution/mod.ts";
import { buildPlayground } from "../playground/build.ts";
import { servePlayground } from "../playground/serve.ts";
import { compareFiles, prepareInput, removeQuietly } from "./files.ts";
import { median, runMeasured } from "./measure.ts";

/** What the browser point found. */
export type BrowserResult =
  | { kind: "skipped"; reason: string }
  | {
    kind: "done";
    rows: number;
    cols: number;
    inputBytes: number;
    runs: number;
    browserMs: number[];
    cliMs: number[];
    check: string;
    verified: boolean;
    chromium: string;
  };

const CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
const WAIT = { timeout: 600_000 };

/** A file `<input>` handle (puppeteer types it with DOM names Deno does not declare). */
type FileInput = { uploadFile(...paths: string[]): Promise<void> };

function findChromium(): string | null {
  for (const p of [Deno.env.get("BXP_CHROMIUM") ?? "", ...CHROMIUM_CANDIDATES]) {
    if (p === "") continue;
    try {
      if (Deno.statSync(p).isFile) return p;
    } catch {
      // not here
    }
  }
  return null;
}

/** Runs the point: `runs` timed browser runs and as many bxp-cli runs, interleaved. */
export async function benchBrowser(opts: {
  root: string;
  benchDir: string;
  denoJson: string;
  rows?: number;
  cols?: number;
  runs?: number;
  progress(message: string): void;
}): Promise<BrowserResult> {
  const rows = opts.rows ?? 100_000;
  const cols = opts.cols ?? 16;
  const runs = opts.runs ?? 3;
  const chromium = findChromium();
  if (chromium === null) {
    return {
      kind: "skipped",
      reason: "no Chromium found (apt-get install -y chromium, or set BXP_CHROMIUM)",
    };
  }
  const input = await prepareInput(`${opts.benchDir}/data`, { rows, cols });
  const site = await Deno.makeTempDir({ prefix: "bxp-bench-playground-" });
  const downloads = join(site, "downloads");
  await buildPlayground(join(site, "site"));
  await Deno.mkdir(downloads);
  const server = servePlayground(join(site, "site"), 0);
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  const version = await browser.version();
  const cliMs: number[] = [];
  const browserMs: number[] = [];
  const reference = `${input.dir}/bxp.browser-ref.csv`;
  try {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForSelector("body[data-ready=true]", WAIT);
    const runsDone = () => page.$eval("#status", (e) => Number(e.getAttribute("data-runs") ?? "0"));
    // Page-side code names DOM globals, so it is passed as strings: Deno's type check has no DOM library.
    await page.waitForFunction(`Number(document.getElementById("status").dataset.runs ?? "0") > 0`, WAIT);
    await page.click("#autorun");
    await (await page.$("input#config-file") as unknown as FileInput).uploadFile(input.configPath["3expr"]);
    await page.waitForFunction(
      // deno-lint-ignore no-explicit-any
      () => (globalThis as any).bxpPlayground.state.config.includes("conversion_templates"),
      WAIT,
    );
    await page.click("#clear-files");
    await (await page.$("input#input-files") as unknown as FileInput).uploadFile(input.inputPath);
    await page.waitForFunction(`document.querySelectorAll("#files li").length === 1`, WAIT);

    for (let i = 0; i < runs; i++) {
      const m = await runMeasured({
        argv: [
          Deno.execPath(),
          "run",
          ...entryPointFlags(opts.denoJson, "bxp-cli"),
          `${opts.root}/${ENTRY_MODULES["bxp-cli"]}`,
          "--config",
          input.configPath["3expr"],
          "--quiet",
        ],
        cwd: input.dir,
        timeoutMs: 600_000,
      });
      if (m.code !== 0) throw new Error(`bxp-cli exited ${m.code}: ${m.stderr.trim().split("\n")[0]}`);
      cliMs.push(m.wallMs);
      await Deno.rename(input.outputPath["3expr"], reference);

      const before = await runsDone();
      const started = performance.now();
      await page.click("#run");
      await page.waitForFunction(
        `Number(document.getElementById("status").dataset.runs ?? "0") > ${before}`,
        {
          ...WAIT,
          polling: "raf",
        },
      );
      browserMs.push(performance.now() - started);
      const status = await page.$eval("#status", (e) => e.textContent ?? "");
      if (!status.startsWith("done")) throw new Error(`the browser run failed: ${status}`);
      opts.progress(
        `browser: ${(browserMs.at(-1)! / 1000).toFixed(2)} s in Chromium, bxp-cli ${
          (m.wallMs / 1000).toFixed(2)
        } s`,
      );
    }

    const cdp = await page.createCDPSession();
    await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads });
    await page.click("#tabs button[data-tab=output]");
    const output = input.outputPath["3expr"];
    const name = output.slice(output.lastIndexOf("/") + 1);
    await page.click(`#outputs button[data-download$="${name}"]`);
    const target = join(downloads, name);
    let arrived = false;
    for (let i = 0; i < 3000 && !arrived; i++) {
      try {
        await Deno.stat(target);
        arrived = true;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    let check = "the browser's download never arrived";
    let verified = false;
    if (arrived) {
      const cmp = await compareFiles(reference, target);
      verified = cmp.identical;
      check = cmp.identical
        ? `identical bytes (${cmp.sizeA} B)`
        : `bytes differ at offset ${cmp.firstDifference} (${cmp.sizeA} vs ${cmp.sizeB} B)`;
    }
    return {
      kind: "done",
      rows,
      cols,
      inputBytes: input.bytes,
      runs,
      browserMs,
      cliMs,
      check,
      verified,
      chromium: version,
    };
  } finally {
    await browser.close();
    await server.shutdown();
    await removeQuietly(reference);
    await removeQuietly(input.outputPath["3expr"]);
    await Deno.remove(site, { recursive: true }).catch(() => {});
  }
}

/** The report section for the browser point. */
export function renderBrowserSection(r: BrowserResult): string {
  const head = "\n## In the browser (playground)\n\n";
  if (r.kind === "skipped") return `${head}Skipped: ${r.reason}.\n`;
  const b = median(r.browserMs) / 1000;
  const c = median(r.cliMs) / 1000;
  const k = (n: number) => `${Math.round(n / 1000)}k`;
  return head +
    `The playground's Web Worker in headless ${r.chromium} against bxp-cli on the same input and config ` +
    `(median of ${r.runs}; the browser time runs from the Run click to the finished run, including the ` +
    `input listing; the input is already loaded in the page).\n\n` +
    "| point | rows × cols | input MB | browser s | bxp-cli s | browser / bxp-cli | output check |\n" +
    "| ----- | ----------- | -------- | --------- | --------- | ----------------- | ------------ |\n" +
    `| \`browser-r${k(r.rows)}-c${r.cols}\` | ${k(r.rows)} × ${r.cols} | ${
      (r.inputBytes / 1e6).toFixed(0)
    } | ` +
    `${b.toFixed(2)} | ${c.toFixed(2)} | ${(b / c).toFixed(2)}x | ${r.check} |\n`;
}

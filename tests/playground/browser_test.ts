/**
 * The playground in a real headless Chromium (puppeteer-core on the system binary), through its own UI:
 * every CSV/JSON conformance case loaded from files, run in the Web Worker and downloaded byte-identical to
 * bxp's golden; a typo typed into the editor shows its diagnostic at the right line; a dropped record
 * explains itself; the scratchpad draws the call tree; a share link restores the state. One browser for
 * all of it; a screenshot of each panel is saved under the test's temp folder (the path is printed).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "puppeteer-core";
import { CONFORMANCE_DIR } from "../_support/conformance.ts";
import { CHROMIUM, openSession, type Session } from "./_support/browser.ts";
import { goldenOutput, readCases } from "./_support/cases.ts";

const DEMO = new URL("../../samples/demo/", import.meta.url);
const DEMO_OUT = "statement_2024-01-01_2024-12-31.tracker.csv";
const WAIT = { timeout: 60_000 };

// Page-side code is passed as strings where it names DOM globals: Deno's type check has no DOM library.

/** A file `<input>` handle (puppeteer types it with DOM names Deno does not declare). */
type FileInput = { uploadFile(...paths: string[]): Promise<void> };

async function openPage(s: Session, hash = ""): Promise<{ page: Page; errors: string[] }> {
  const page = await s.browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.setViewport({ width: 1400, height: 900 });
  await page.goto(s.server.url + hash);
  await page.waitForSelector("body[data-ready=true]", WAIT);
  return { page, errors };
}

async function runsFinished(page: Page): Promise<number> {
  return await page.$eval("#status", (e) => Number(e.getAttribute("data-runs") ?? "0"));
}

/** Waits until more than `after` runs have finished; returns the status text. */
async function waitRun(page: Page, after: number): Promise<string> {
  await page.waitForFunction(
    `Number(document.getElementById("status").dataset.runs ?? "0") > ${after}`,
    WAIT,
  );
  return await page.$eval("#status", (e) => e.textContent ?? "");
}

async function clickRun(page: Page): Promise<string> {
  const before = await runsFinished(page);
  await page.click("#run");
  return await waitRun(page, before);
}

async function download(page: Page, dir: string, outputPath: string, name: string): Promise<Uint8Array> {
  const cdp = await page.createCDPSession();
  await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: dir });
  await page.click("#tabs button[data-tab=output]");
  await page.click(`#outputs button[data-download="${outputPath}"]`);
  const target = join(dir, name);
  // Chromium may create the file before its bytes are in (or write `<name>.crdownload` and rename it), so
  // the download is taken once the file exists, no partial file is left and its size held still.
  let lastSize = -1;
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 100));
    let size: number;
    try {
      size = (await Deno.stat(target)).size;
    } catch {
      continue;
    }
    const partial = [...Deno.readDirSync(dir)].some((e) => e.name.endsWith(".crdownload"));
    if (!partial && size === lastSize) return await Deno.readFile(target);
    lastSize = size;
  }
  throw new Error(`download of ${outputPath} never arrived in ${dir}`);
}

/** Loads a config file and input files through the page's file pickers (autorun must be off). */
async function loadThroughUi(
  page: Page,
  configPath: string,
  configText: string,
  inputs: string[],
): Promise<void> {
  const configInput = (await page.$("input#config-file")) as unknown as FileInput;
  await configInput.uploadFile(configPath);
  await page.waitForFunction(
    // deno-lint-ignore no-explicit-any
    (text: string) => (globalThis as any).bxpPlayground.state.config === text,
    WAIT,
    configText,
  );
  await page.click("#tabs button[data-tab=input]");
  await page.click("#clear-files");
  const filesInput = (await page.$("input#input-files")) as unknown as FileInput;
  await filesInput.uploadFile(...inputs);
  await page.waitForFunction(`document.querySelectorAll("#files li").length === ${inputs.length}`, WAIT);
}

async function shot(page: Page, s: Session, name: string): Promise<string> {
  const path = join(s.temp, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

Deno.test({
  name: "playground in Chromium",
  ignore: CHROMIUM === null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const s = await openSession();
    const shots: string[] = [];
    try {
      await t.step(
        "the demo runs in the worker and downloads byte-identical to bxp-cli's output",
        async () => {
          const { page, errors } = await openPage(s);
          const status = await waitRun(page, 0);
          assert.match(status, /done: 10 row\(s\) written to 1 file\(s\)/);
          assert.equal(await page.$eval("[data-count=written]", (e) => e.textContent), "written: 9");
          assert.equal(
            await page.$eval("[data-count=date_filtered]", (e) => e.textContent),
            "date-filtered: 2",
          );
          shots.push(await shot(page, s, "input"));
          await page.click("#tabs button[data-tab=output]");
          const dir = join(s.temp, "demo-download");
          await Deno.mkdir(dir);
          const bytes = await download(page, dir, `data/${DEMO_OUT}`, DEMO_OUT);
          assert.deepEqual(bytes, Deno.readFileSync(new URL(`expected/${DEMO_OUT}`, DEMO)));
          shots.push(await shot(page, s, "output"));
          await page.click("#tabs button[data-tab=log]");
          assert.match(await page.$eval("#log", (e) => e.textContent ?? ""), /=== overall summary ===/);
          shots.push(await shot(page, s, "log"));
          assert.deepEqual(errors, []);
          await page.close();
        },
      );

      await t.step("filter by outcome, click a dropped record and read the reason", async () => {
        const { page } = await openPage(s);
        await waitRun(page, 0);
        await page.select("#outcome-filter", "date_filtered");
        const shown = await page.$$eval(
          "#input-table tbody tr",
          (rows) => rows.map((r) => r.getAttribute("data-record")),
        );
        assert.deepEqual(shown, ["1", "11"]);
        await page.click("#input-table tr[data-record='11']");
        await page.waitForSelector("#explain-reason", WAIT);
        const reason = await page.$eval("#explain-reason", (e) => e.textContent ?? "");
        assert.match(reason, /record 11 of data\/statement_2024-01-01_2024-12-31\.csv: date-filtered/);
        assert.match(reason, /outside the file name's date range \(2024-01-01 to 2024-12-31\)/);
        shots.push(await shot(page, s, "row-visualiser-dropped"));

        await page.click("#tabs button[data-tab=input]");
        await page.select("#outcome-filter", "all");
        await page.click("#input-table tr[data-record='7']");
        await page.waitForFunction(
          `document.getElementById("explain-reason")?.dataset.outcome === "written"`,
          WAIT,
        );
        assert.equal(await page.$eval("#explain tr.winner", (e) => e.getAttribute("data-rule")), "3");
        assert.equal(await page.$$eval("#explain .out-row", (e) => e.length), 2);
        shots.push(await shot(page, s, "row-visualiser-written"));

        // Editing the config re-runs it and the same record is explained again under the new rules.
        const before = await runsFinished(page);
        await page.evaluate(() => {
          // deno-lint-ignore no-explicit-any
          const view = (globalThis as any).bxpPlayground.editor();
          const text: string = view.state.doc.toString();
          const pos = text.indexOf(`when: "[Type] = 'FX'"`) + `when: "[Type] = '`.length;
          view.dispatch({ changes: { from: pos, to: pos + 2, insert: "XX" } });
        });
        await waitRun(page, before);
        await page.waitForFunction(
          `document.getElementById("explain-reason")?.dataset.outcome === "no_rule_match"`,
          WAIT,
        );
        assert.match(
          await page.$eval("#explain-reason", (e) => e.textContent ?? ""),
          /record 7 .*None of the 4 row_rules matched/,
        );
        await page.close();
      });

      await t.step("a typo typed into the config is reported at its line and column", async () => {
        const { page } = await openPage(s);
        await waitRun(page, 0);
        const text = await page.evaluate(() =>
          (globalThis as unknown as { bxpPlayground: { state: { config: string } } }).bxpPlayground.state
            .config
        );
        const at = text.indexOf("UPPER([Type])");
        assert.ok(at > 0);
        const line = text.slice(0, at).split("\n").length;
        const col = at - text.lastIndexOf("\n", at - 1);
        await page.evaluate((pos: number) => {
          // deno-lint-ignore no-explicit-any
          const view = (globalThis as any).bxpPlayground.editor();
          view.dispatch({ selection: { anchor: pos } });
          view.focus();
        }, at + 3);
        await page.keyboard.type("P"); // UPPER -> UPPPER
        await page.waitForSelector(`#diagnostics li.error[data-line="${line}"]`, WAIT);
        const diag = await page.$eval(`#diagnostics li.error[data-line="${line}"]`, (e) => ({
          text: e.textContent ?? "",
          col: e.getAttribute("data-col"),
        }));
        assert.equal(diag.col, String(col));
        assert.match(diag.text, /UPPPER/);
        assert.match(diag.text, /UPPER/, "the did-you-mean names the real function");
        await page.waitForSelector(".cm-lintRange-error", WAIT);
        shots.push(await shot(page, s, "config-diagnostic"));
        // A broken config is not run: the status says so.
        await page.click("#run");
        await page.waitForFunction(`document.getElementById("status").dataset.state === "error"`, WAIT);
        await page.close();
      });

      await t.step("completion and hover docs come from the function registry", async () => {
        const { page } = await openPage(s);
        await waitRun(page, 0);
        await page.click("#autorun");
        const text: string = await page.evaluate(() =>
          // deno-lint-ignore no-explicit-any
          (globalThis as any).bxpPlayground.state.config
        );
        const at = text.indexOf("TRIM([Note])");
        await page.evaluate((pos: number) => {
          // deno-lint-ignore no-explicit-any
          const view = (globalThis as any).bxpPlayground.editor();
          view.dispatch({ selection: { anchor: pos } });
          view.focus();
        }, at);
        await page.keyboard.type("DATE_C");
        await page.waitForSelector(".cm-tooltip-autocomplete", WAIT);
        const options = await page.$$eval(".cm-completionLabel", (e) => e.map((x) => x.textContent));
        assert.ok(options.includes("DATE_CONVERT"), JSON.stringify(options));
        await page.keyboard.press("Escape");

        // Inside the value of a key with fixed words, the words are offered.
        await page.evaluate(() => {
          // deno-lint-ignore no-explicit-any
          const view = (globalThis as any).bxpPlayground.editor();
          const text = view.state.doc.toString();
          const pos = text.indexOf('csv_text_quote_out: "') + 'csv_text_quote_out: "'.length;
          view.dispatch({
            changes: { from: pos, to: pos + "double".length, insert: "" },
            selection: { anchor: pos },
          });
          view.focus();
        });
        await page.keyboard.type("s");
        await page.waitForFunction(
          `[...document.querySelectorAll(".cm-completionLabel")].some((e) => e.textContent === "single")`,
          WAIT,
        );
        await page.keyboard.press("Escape");

        // Hover docs: the mouse over a function name inside an expression shows its signature.
        const where = await page.evaluate(() => {
          // deno-lint-ignore no-explicit-any
          const view = (globalThis as any).bxpPlayground.editor();
          const pos = view.state.doc.toString().indexOf("REMAP(") + 2;
          view.dispatch({ scrollIntoView: true, selection: { anchor: pos } });
          const c = view.coordsAtPos(pos);
          return { x: c.left + 2, y: (c.top + c.bottom) / 2 };
        });
        await page.mouse.move(where.x, where.y);
        await page.waitForSelector(".cm-tooltip-hover .cm-doc", WAIT);
        assert.match(await page.$eval(".cm-tooltip-hover .cm-doc", (e) => e.textContent ?? ""), /^REMAP\(/);
        await page.close();
      });

      await t.step(
        "the scratchpad draws the evaluation trace as a tree over the selected record",
        async () => {
          const { page } = await openPage(s);
          await waitRun(page, 0);
          await page.click("#input-table tr[data-record='4']");
          await page.waitForSelector("#explain-reason", WAIT);
          await page.click("#tabs button[data-tab=scratch]");
          await page.type("#expr", "UPPER(TRIM([Note])) & '!'");
          await page.waitForSelector("#trace-result", WAIT);
          assert.equal(await page.$eval("#trace-result code", (e) => e.textContent), '"MONTHLY PLAN!"');
          const nested = await page.$eval(
            "li[data-fn=UPPER] > ul > li[data-fn=TRIM] code.value",
            (e) => e.textContent,
          );
          assert.equal(nested, '"monthly plan"');
          shots.push(await shot(page, s, "scratchpad"));
          await page.close();
        },
      );

      await t.step("a share link restores config and inputs from the fragment alone", async () => {
        const { page } = await openPage(s);
        await waitRun(page, 0);
        await page.click("#share");
        await page.waitForFunction(`location.hash.startsWith("#s=")`, WAIT);
        const hash = String(await page.evaluate("location.hash"));
        await page.close();
        const other = await s.browser.newPage();
        // No examples.json: everything must come from the fragment.
        await other.setRequestInterception(true);
        other.on("request", (r) => r.url().endsWith("examples.json") ? r.abort() : r.continue());
        await other.goto(s.server.url + hash);
        await other.waitForSelector("body[data-ready=true]", WAIT);
        assert.match(await waitRun(other, 0), /done: 10 row\(s\) written to 1 file\(s\)/);
        assert.equal(
          await other.$eval("#files li code", (e) => e.textContent),
          "statement_2024-01-01_2024-12-31.csv",
        );
        await other.close();
      });

      await t.step("text pasted as a file is an input like a dropped one", async () => {
        const { page } = await openPage(s);
        await waitRun(page, 0);
        await page.click("#clear-files");
        const afterClear = await waitRun(page, 1);
        assert.match(afterClear, /done: 0 row\(s\)/);
        await page.click("#tab-input details summary");
        const name = "statement_2024-01-01_2024-12-31.csv";
        await page.click("#paste-name", { count: 3 });
        await page.keyboard.type(name);
        const text = Deno.readTextFileSync(new URL(`data/${name}`, DEMO));
        await page.$eval("#paste", (e, v) => {
          (e as unknown as { value: string }).value = v;
        }, text);
        const before = await runsFinished(page);
        await page.click("#paste-add");
        assert.match(await waitRun(page, before), /done: 10 row\(s\) written to 1 file\(s\)/);
        assert.equal(await page.$eval("#files li code", (e) => e.textContent), name);
        await page.close();
      });

      await t.step("a long run stays in the worker: the page keeps drawing frames meanwhile", async () => {
        const { page } = await openPage(s);
        await waitRun(page, 0);
        await page.click("#autorun");
        const dir = await Deno.makeTempDir({ dir: s.temp, prefix: "big-" });
        const config = `{ conversion_templates: { big: {
          data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out",
          input_schema: { $id: "[id]", $label: "UPPER([name]) & '-' & [id]", $double: "[amount] * 2" },
          row_rules: [{ when: "[amount] * 1 > 10", rows: [{ $action: "'BIG'" }] }, { when: "1", rows: [] }],
          output_schema: { id: "$id", label: "$label", double: "$double", action: "$action" },
        } } }`;
        await Deno.writeTextFile(join(dir, "big.json"), config);
        const lines = ["id,name,amount"];
        for (let i = 0; i < 150_000; i++) lines.push(`${i},name${i},${i % 50}.25`);
        await Deno.writeTextFile(join(dir, "big.csv"), lines.join("\n") + "\n");
        await loadThroughUi(page, join(dir, "big.json"), config, [join(dir, "big.csv")]);
        const before = await runsFinished(page);
        await page.click("#run");
        // Two animation frames can only be drawn if the main thread is free while the worker converts.
        const during = await page.evaluate(
          `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
            .then(() => document.getElementById("status").dataset.state)`,
        );
        assert.equal(during, "busy", "frames were drawn while the run was still going");
        assert.match(await waitRun(page, before), /done: 120000 row\(s\) written/);
        assert.match(
          await page.$eval("[data-count=rule_skip]", (e) => e.textContent ?? ""),
          /rule_skip: 30000/,
        );
        await page.close();
      });

      await t.step({
        name: "every CSV/JSON conformance case, loaded through the UI, downloads byte-identical",
        ignore: CONFORMANCE_DIR === null,
        async fn(t) {
          const { page, errors } = await openPage(s);
          await waitRun(page, 0);
          await page.click("#autorun"); // runs only on the button from here on
          for (const c of readCases(CONFORMANCE_DIR!)) {
            await t.step(c.dir, async () => {
              const cfgDir = await Deno.makeTempDir({ dir: s.temp, prefix: "cfg-" });
              const cfgPath = join(cfgDir, c.configName);
              await Deno.writeTextFile(cfgPath, c.configText);
              await loadThroughUi(page, cfgPath, c.configText, c.files.map((f) => f.path));
              const status = await clickRun(page);
              assert.match(status, /^done/, `${c.dir}: ${status}`);
              const outputs: { path: string; name: string }[] = await page.$$eval(
                "#outputs section.output",
                (els) =>
                  els.map((e) => ({
                    path: e.getAttribute("data-path")!,
                    name: e.querySelector("h3 code")!.textContent!,
                  })),
              );
              const dir = await Deno.makeTempDir({ dir: s.temp, prefix: "dl-" });
              for (const golden of c.expected) {
                const names = outputs.map((o) => o.path.slice(o.path.lastIndexOf("/") + 1));
                const name = goldenOutput(golden.name, names, c.files.map((f) => f.name));
                assert.ok(name, `${c.dir}: no output for ${golden.name} among ${names}`);
                const out = outputs.find((o) => o.path.endsWith(name))!;
                const bytes = await download(page, dir, out.path, name);
                assert.deepEqual(bytes, golden.bytes, `${c.dir}/${name} differs from ${golden.name}`);
              }
            });
          }
          assert.deepEqual(errors, []);
          await page.close();
        },
      });
    } finally {
      await s.close();
      // Keep only the screenshots.
      for await (const e of Deno.readDir(s.temp)) {
        if (e.isDirectory) await Deno.remove(join(s.temp, e.name), { recursive: true });
      }
      console.log(`playground screenshots:\n  ${shots.join("\n  ")}`);
    }
  },
});

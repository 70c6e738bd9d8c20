/**
 * One headless Chromium for the playground tests, driven by puppeteer-core against the system binary, and
 * the built playground served on a loopback port. Where no Chromium is found the tests are skipped and
 * the reason is printed.
 * @module
 */

import puppeteer, { type Browser } from "puppeteer-core";
import { buildPlayground } from "../../../tools/playground/build.ts";
import { type PlaygroundServer, servePlayground } from "../../../tools/playground/serve.ts";

const CANDIDATES = [
  Deno.env.get("BXP_CHROMIUM") ?? "",
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];

/** The Chromium binary to use, or null. */
export const CHROMIUM: string | null = (() => {
  for (const path of CANDIDATES) {
    if (path === "") continue;
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not here
    }
  }
  return null;
})();

if (CHROMIUM === null) {
  console.log(
    "playground browser tests skipped: no Chromium found (looked for $BXP_CHROMIUM, " +
      CANDIDATES.slice(1).join(", ") + "); install it with `apt-get install -y chromium`",
  );
}

/** A browser and a served build of the playground. */
export interface Session {
  browser: Browser;
  server: PlaygroundServer;
  /** A temp folder for the build, downloads and screenshots. */
  temp: string;
  close(): Promise<void>;
}

/** Builds the playground into a temp folder, serves it and starts Chromium. */
export async function openSession(): Promise<Session> {
  const temp = await Deno.makeTempDir({ prefix: "bxp-playground-test-" });
  await buildPlayground(`${temp}/site`);
  const server = servePlayground(`${temp}/site`, 0);
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM!,
    headless: true,
    // The sandbox needs user namespaces that CI containers often lack; the page is our own, on loopback.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  return {
    browser,
    server,
    temp,
    async close() {
      await browser.close();
      await server.shutdown();
    },
  };
}

import puppeteer from "puppeteer-core";
import { servePlayground } from "./serve.ts";
const s = servePlayground("dist/playground", 0);
const b = await puppeteer.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox"],
});
const p = await b.newPage();
await p.setViewport({ width: 1400, height: 900 });
p.on("console", (m) => console.log("console:", m.type(), m.text()));
p.on("pageerror", (e) => console.log("pageerror:", e));
await p.goto(s.url);
await p.waitForSelector("body[data-ready=true]", { timeout: 20000 });
await p.waitForSelector("#status[data-state=done]", { timeout: 20000 });
console.log(await p.$eval("#status", (e) => e.textContent));
await p.screenshot({ path: "/tmp/gplay/shot.png" });
await p.click("#input-table tr[data-record='1']");
await p.waitForSelector("#explain-reason");
console.log(await p.$eval("#explain-reason", (e) => e.textContent));
await p.screenshot({ path: "/tmp/gplay/shot2.png" });
await b.close();
await s.shutdown();

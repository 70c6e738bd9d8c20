/**
 * `deno task playground`'s pieces with real processes and a real server: the build's files, the loopback
 * server's refusals, and the command's errors for bad flags and a taken port.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { buildPlayground } from "../../tools/playground/build.ts";
import { servePlayground } from "../../tools/playground/serve.ts";

const ROOT = new URL("../../", import.meta.url);

async function playgroundTask(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "playground", ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("playground build: the page, its bundles and the demo example, served on loopback only", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-playground-build-" });
  const server = await (async () => {
    await buildPlayground(dir);
    return servePlayground(dir, 0);
  })();
  try {
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(names, ["app.js", "examples.json", "index.html", "style.css", "worker.js"]);
    const html = Deno.readTextFileSync(join(dir, "index.html"));
    assert.match(html, /Content-Security-Policy/);
    assert.doesNotMatch(html, /https?:\/\//, "the page loads nothing from another origin");
    const examples = JSON.parse(Deno.readTextFileSync(join(dir, "examples.json")));
    assert.equal(examples[0].files[0].name, "statement_2024-01-01_2024-12-31.csv");
    assert.ok(Deno.readTextFileSync(join(dir, "worker.js")).includes("date_filter_from_filename"));

    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await fetch(server.url);
    assert.equal(index.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(await index.text(), html);
    const js = await fetch(server.url + "worker.js");
    assert.equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
    await js.body?.cancel();
    for (const path of ["%2e%2e/%2e%2e/deno.json", "..%2fdeno.json", "missing.js"]) {
      const res = await fetch(server.url + path);
      assert.equal(res.status, 404, path);
      await res.body?.cancel();
    }
    const post = await fetch(server.url, { method: "POST", body: "x" });
    assert.equal(post.status, 404);
    await post.body?.cancel();
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task playground: bad flags and a taken port are clear errors, not stack traces", async () => {
  const bad = await playgroundTask(["--port", "http"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /error: --port wants a number from 0 to 65535, got 'http'/);
  assert.doesNotMatch(bad.stderr, /\s+at /);
  const unknown = await playgroundTask(["--bogus"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /error: .*--bogus/);

  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const busy = await playgroundTask(["--port", String((taken.addr as Deno.NetAddr).port)]);
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, /error: port \d+ is in use; pass --port N/);
    assert.doesNotMatch(busy.stderr, /\s+at /);
  } finally {
    taken.close();
  }
});

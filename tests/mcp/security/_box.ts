/** A temp project root with an outside folder beside it, for the guard tests. */
import { join } from "node:path";

/** A temp folder `box` with `box/root` (the project) and `box/outside` holding a secret. */
export async function makeBox(): Promise<{ box: string; root: string; outside: string; secret: string }> {
  const box = await Deno.realPath(await Deno.makeTempDir({ prefix: "bxp-guard-" }));
  const root = join(box, "root");
  const outside = join(box, "outside");
  await Deno.mkdir(join(root, "configs"), { recursive: true });
  await Deno.mkdir(outside);
  const secret = join(outside, "secret.json");
  await Deno.writeTextFile(secret, '{"secret":true}');
  await Deno.writeTextFile(join(root, "configs", "ok.json5"), "{ a: 1 }");
  return { box, root, outside, secret };
}

/**
 * CPU time beside wall time: GNU time's report and `/proc/<pid>/stat` parsed, and a real child that burns a
 * known amount of CPU measured by `runMeasured` (CPU time, not speed: it holds on a busy machine).
 */
import assert from "node:assert/strict";
import { hasGnuTime, parseGnuTime, procStatCpuMs, runMeasured } from "../../tools/bench/measure.ts";

Deno.test("GNU time's report gives peak RSS and user + system time, and where the child's stderr ends", () => {
  const stderr = 'child said hello\n\tCommand being timed: "x"\n\tUser time (seconds): 1.25\n' +
    "\tSystem time (seconds): 0.07\n\tMaximum resident set size (kbytes): 123456\n";
  const r = parseGnuTime(stderr);
  assert.equal(r.cpuMs, 1320);
  assert.equal(r.peakRssKb, 123456);
  assert.equal(stderr.slice(0, r.reportStart), "child said hello\n");
  assert.deepEqual(parseGnuTime("no report"), { peakRssKb: null, cpuMs: null, reportStart: -1 });
  // One of the two lines missing: unknown, not half the time.
  assert.equal(parseGnuTime("\tUser time (seconds): 1.25\n").cpuMs, null);
});

Deno.test("/proc/<pid>/stat gives utime + stime in ticks, counted past a name with spaces and parentheses", () => {
  assert.equal(procStatCpuMs("42 (a) b) S 1 42 42 0 -1 4194304 0 0 0 0 150 25 0 0 20 0 1 0", 100), 1750);
  assert.equal(procStatCpuMs("7 (deno) R 1 7 7 0 -1 0 0 0 0 0 3 1 0 0", 250), 16);
  assert.equal(procStatCpuMs("garbage", 100), null);
  assert.equal(procStatCpuMs("1 (x) S 1 2", 100), null); // cut short
  if (Deno.build.os === "linux") {
    const own = procStatCpuMs(Deno.readTextFileSync("/proc/self/stat"), 100);
    assert.ok(own !== null && own >= 0, `own CPU time ${own}`);
  }
});

Deno.test({
  name: "runMeasured reports the CPU time of a child that burns at least 400 ms of it",
  ignore: Deno.build.os !== "linux",
  async fn() {
    // The child spins until the kernel has charged it 40 ticks (at least 400 ms at 100 Hz or more), however
    // long that takes on a busy machine.
    const code = `
      const ticks = () => { const f = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
        return Number(f[11]) + Number(f[12]); };
      let x = 0; while (ticks() < 40) { for (let i = 0; i < 1e5; i++) x += i; }
    `;
    const m = await runMeasured({ argv: [Deno.execPath(), "eval", code] });
    assert.equal(m.code, 0, m.stderr);
    assert.ok(m.cpuMs !== null, `CPU time measured (${(await hasGnuTime()) ? "GNU time" : "/proc"})`);
    assert.ok(m.cpuMs >= 390, `CPU ${m.cpuMs} ms`);
    // CPU time over every thread fits in the wall time on every core, with GNU time's rounding.
    assert.ok(
      m.cpuMs <= m.wallMs * navigator.hardwareConcurrency + 20,
      `CPU ${m.cpuMs} ms, wall ${m.wallMs} ms`,
    );
    assert.equal(m.stderr, "");
  },
});

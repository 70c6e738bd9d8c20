"""Runs bxp's conformance cases through the Ray job on a local cluster and checks them byte for byte.

Driven by ray_job_test.ts. Usage:
    python ray_conformance.py CONFORMANCE_DIR SCRATCH_DIR CLI_JSON [--case SUBSTRING]

For every case of CASES.tsv, each template runs in declaration order: through the Ray job (inputs cut into
pieces: one piece per about a third of the body, plus forced cuts after the first record and before the last
line) when bxp-cli's partition plan accepts it, else (JSON input) through bxp-cli itself so later
stages still find their inputs. Every golden is compared with its output, and each Ray-run template's exit
status and `summary:` counts with those of a plain bxp-cli run of the same template over a copy of the case.
Prints one JSON line per case and a last line {"done": true, ...}.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "integrations", "ray"))
os.environ["PYTHONPATH"] = os.path.join(REPO, "integrations", "ray") + os.pathsep + os.environ.get("PYTHONPATH", "")

import bxp_ray
import ray

SUMMARY = re.compile(r"^summary: (errors:\d+ warnings:\d+)", re.MULTILINE)


def forced_cuts(path: str, header_line: int) -> list[int]:
    size = os.path.getsize(path)
    _head, body = bxp_ray.find_body(path, header_line, size)
    with open(path, "rb") as f:
        data = f.read()
    cuts = []
    first_end = data.find(b"\n", body)
    if first_end >= 0 and first_end + 1 < size:
        cuts.append(first_end + 1)  # the first record alone in its piece
    last_start = data.rfind(b"\n", body, size - 1)
    if last_start >= body:
        cuts.append(last_start + 1)  # the last line alone in its piece
    return cuts


def plain_run(cli: list[str], folder: str, template: str) -> tuple[int, str]:
    done = subprocess.run(
        [*cli, "--config", "sample.json", "--template", template], cwd=folder, capture_output=True, check=False
    )
    m = SUMMARY.search(done.stdout.decode("utf-8", "replace"))
    return done.returncode, m.group(1) if m else ""


def main() -> int:
    conf, scratch, cli_json = sys.argv[1], sys.argv[2], sys.argv[3]
    only = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--case" else None
    cli = json.loads(cli_json)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray_templates = 0
    try:
        with open(os.path.join(conf, "CASES.tsv"), encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f][1:]
        for case_dir, config, templates, inputs, expected in rows:
            if only is not None and only not in case_dir:
                continue
            src = os.path.join(conf, case_dir)
            work = os.path.join(scratch, case_dir.replace("/", "_"))
            mirror = work + ".plain"
            for d in (work, mirror):
                os.makedirs(d)
                for name in [config, *inputs.split(";")]:
                    shutil.copyfile(os.path.join(src, name), os.path.join(d, name))
            report = {"case": case_dir, "templates": [], "mismatches": []}
            for template in templates.split(";"):
                names = sorted(n for n in os.listdir(work) if n != config and not n.startswith("."))
                with open(os.path.join(work, config), "rb") as f:
                    spec = bxp_ray.CliSpec(tuple(cli), f.read(), template)
                plan_run = bxp_ray._local_cli(spec, "--partition-plan", [], json.dumps({"names": names}).encode())
                want_code, want_summary = plain_run(cli, mirror, template)
                if plan_run.returncode != 0:
                    plain_run(cli, work, template)  # later stages read what this one writes
                    report["templates"].append(
                        {"id": template, "via": "bxp-cli", "why": plan_run.stderr.decode().strip()}
                    )
                    continue
                plan = json.loads(plan_run.stdout)
                paths = [os.path.join(work, n) for n in names]
                cuts = {
                    os.path.join(work, i["name"]): forced_cuts(os.path.join(work, i["name"]), plan["header_line"])
                    for i in plan["inputs"]
                }
                body = sum(os.path.getsize(p) for p in cuts)
                opts = bxp_ray.JobOptions(
                    config=os.path.join(work, config),
                    template=template,
                    inputs=paths,
                    output=work,
                    bxp_cli=cli,
                    piece_bytes=max(1, body // 3),
                    force_cuts=cuts,
                )
                out, err = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    code = bxp_ray.run_job(opts, ray)
                m = SUMMARY.search(out.getvalue())
                got_summary = m.group(1) if m else ""
                ray_templates += 1
                entry = {
                    "id": template,
                    "via": "ray",
                    "exit": code,
                    "want_exit": want_code,
                    "summary": got_summary,
                    "want_summary": want_summary,
                }
                report["templates"].append(entry)
                if code != want_code or got_summary != want_summary:
                    report["mismatches"].append(
                        f"{template}: exit {code} / '{got_summary}' but bxp-cli gives exit {want_code} / "
                        f"'{want_summary}'; stderr: {err.getvalue()[-600:]}"
                    )
            originals = set(inputs.split(";")) | {config}
            for golden in expected.split(";"):
                stem = golden[: -len(".expected")]
                made = [
                    n
                    for n in os.listdir(work)
                    if n.startswith(stem + ".") and n not in originals and not n.startswith(".")
                ]
                if len(made) != 1:
                    report["mismatches"].append(f"{golden}: {len(made)} candidate outputs {made}")
                    continue
                with open(os.path.join(src, golden), "rb") as g, open(os.path.join(work, made[0]), "rb") as o:
                    want, got = g.read(), o.read()
                if want != got:
                    at = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
                    report["mismatches"].append(
                        f"{made[0]} differs from {golden} at byte {at}: {got[at : at + 80]!r} vs {want[at : at + 80]!r}"
                    )
            leftovers = [n for n in os.listdir(work) if n.endswith(".tmp")]
            if leftovers:
                report["mismatches"].append(f"temporary files left: {leftovers}")
            print(json.dumps(report), flush=True)
    finally:
        ray.shutdown()
    print(json.dumps({"done": True, "ray_templates": ray_templates}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The Ray job's output commit on real files, with plain python3 (no Ray needed): all outputs or none.

Run by ray_job_test.ts; prints one JSON line per check and exits 1 when one failed.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "integrations", "ray"))

import bxp_ray  # noqa: E402

failures: list[str] = []


def check(name: str, ok: bool, detail: str = "") -> None:
    print(json.dumps({"check": name, "ok": ok, "detail": detail}))
    if not ok:
        failures.append(name)


def read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return None


def stage(folder: str, name: str, text: str) -> bxp_ray.Staged:
    s = bxp_ray.Staged(os.path.join(folder, name))
    s.write(text.encode())
    s.close()
    return s


def case_rename_fails_midway() -> None:
    """The second rename fails for real (its staged file is gone): the first output is rolled back."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "a.out"), "w", encoding="utf-8") as f:
            f.write("old a\n")
        staged = [stage(d, "a.out", "new a\n"), stage(d, "b.out", "new b\n"), stage(d, "c.out", "new c\n")]
        os.unlink(staged[1].temp)
        try:
            bxp_ray.commit_all(staged)
            check("rename fails midway: an error", False, "commit_all returned")
        except bxp_ray.JobError as err:
            check("rename fails midway: an error naming the file", "b.out" in str(err), str(err))
            check("rename fails midway: it says nothing changed", "no output was changed" in str(err), str(err))
        for s in staged:
            s.abort()  # what run_job's finally does
        check("the first target has its previous content back", read(os.path.join(d, "a.out")) == "old a\n")
        check("no output was created", read(os.path.join(d, "b.out")) is None and read(os.path.join(d, "c.out")) is None)
        check("no temporary or kept file is left", sorted(os.listdir(d)) == ["a.out"], str(sorted(os.listdir(d))))


def case_folder_at_a_name() -> None:
    """A folder at the second output's name: refused before the first rename."""
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "b.out"))
        staged = [stage(d, "a.out", "new a\n"), stage(d, "b.out", "new b\n")]
        try:
            bxp_ray.commit_all(staged)
            check("folder at a name: an error", False, "commit_all returned")
        except bxp_ray.JobError as err:
            check("folder at a name: an error naming it", "b.out' exists and is a folder" in str(err), str(err))
        for s in staged:
            s.abort()
        check("folder at a name: the first output is not written", read(os.path.join(d, "a.out")) is None)
        check("folder at a name: the folder is untouched", os.path.isdir(os.path.join(d, "b.out")))
        check("folder at a name: nothing else left", sorted(os.listdir(d)) == ["b.out"], str(sorted(os.listdir(d))))


def case_all_in_place() -> None:
    """The usual case: every output in place (an existing one replaced), no kept copies left."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "a.out"), "w", encoding="utf-8") as f:
            f.write("old a\n")
        staged = [stage(d, "a.out", "new a\n"), stage(d, "b.out", "new b\n")]
        bxp_ray.commit_all(staged)
        check("all in place: replaced", read(os.path.join(d, "a.out")) == "new a\n")
        check("all in place: created", read(os.path.join(d, "b.out")) == "new b\n")
        check("all in place: nothing else", sorted(os.listdir(d)) == ["a.out", "b.out"], str(sorted(os.listdir(d))))


def case_output_is_an_input() -> None:
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "a.csv")
        problem = bxp_ray.target_problem(path, [os.path.join(d, ".", "a.csv")])
        check("an output that is an input is named", problem is not None and "is the input" in problem, str(problem))
        check("an absent target is fine", bxp_ray.target_problem(os.path.join(d, "new.out"), [path]) is None)


for case in (case_rename_fails_midway, case_folder_at_a_name, case_all_in_place, case_output_is_an_input):
    case()
print(json.dumps({"done": True, "failures": failures}))
sys.exit(1 if failures else 0)

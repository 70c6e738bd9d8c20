#!/usr/bin/env python3
"""Run one bxp template over large inputs on a Ray cluster, byte-identical to a bxp-cli run.

bxp never lets a record span lines, so each input is cut at newlines into pieces and every piece is
converted on its own by bxp-cli's partition modes (``--partition-prepass`` / ``--partition-convert``),
given the file's head (BOM, preamble, header line), its name and the number of the piece's first record.
The job:

1. asks ``bxp-cli --partition-plan`` which inputs the template takes, in bxp's order, and their output names;
2. cuts each input at newlines into pieces of about ``--piece-bytes`` and counts each piece's records
   (Ray tasks) so every piece knows the number of its first record (``RECORD_NUM()``);
3. when the template has ``pre_pass`` blocks, collects each piece's table writes (Ray tasks) and merges
   them per file with bxp's rule (the later record wins), shared with the conversion tasks through Ray's
   object store;
4. converts every piece (Ray tasks, retried on crashes), then writes each output and the combined output
   with exactly one header, in input order, to temporary files beside the targets;
5. asks ``bxp-cli --partition-summary`` for the warnings, summary lines and exit status a single bxp-cli
   run would print, and renames the outputs into place -- or, when the run failed, removes them all.

Usage::

    python bxp_ray.py --config bxp-cli.json --template t1 --output out/ data/*.csv
    python bxp_ray.py --bxp-cli "/opt/bxp/bxp-cli" --address auto ... s3://bucket/2024/*.csv

Exit status: 0 success, 2 warnings, 1 error (as bxp-cli).
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import itertools
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterable
from typing import Any

LF = 0x0A
BOM = b"\xef\xbb\xbf"
DEFAULT_PIECE_BYTES = 64 * 1024 * 1024
READ_WINDOW = 1024 * 1024


class JobError(Exception):
    """A problem that ends the job with exit status 1 (its message is printed as ``error: ...``)."""


class PieceFailed(Exception):
    """bxp-cli refused a piece for good (exit 1 with ``error:``/``fatal error:``): not retried."""


class PieceCrashed(Exception):
    """bxp-cli died without a verdict (killed, out of memory, ...): Ray retries the task."""


# ---------------------------------------------------------------- file access (local or fsspec URLs)


def _is_url(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def _local(path: str) -> str:
    return path.removeprefix("file://")


def open_input(path: str):
    """A binary reader for a local path or any URL fsspec knows (s3://, gs://, hdfs://, ...)."""
    if _is_url(path):
        try:
            import fsspec
        except ImportError as err:
            raise JobError(f"'{path}' needs fsspec (pip install -r requirements.txt)") from err
        return fsspec.open(path, "rb").open()
    return open(_local(path), "rb")


def input_size(path: str) -> int:
    if _is_url(path):
        import fsspec

        fs, _, paths = fsspec.get_fs_token_paths(path)
        return int(fs.size(paths[0]))
    return os.path.getsize(_local(path))


def read_range(path: str, start: int, end: int) -> bytes:
    with open_input(path) as f:
        f.seek(start)
        data = f.read(end - start)
    if len(data) != end - start:
        raise PieceCrashed(f"'{path}' changed while the job ran (short read at {start})")
    return data


def basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


# ---------------------------------------------------------------- bxp's line arithmetic


def _is_record_line(line: bytes) -> bool:
    # A line that is empty once a trailing \r is dropped is not a record (bxp's reader skips it).
    return len(line) > 1 or (len(line) == 1 and line != b"\r")


def count_records(data: bytes) -> int:
    """Records in whole lines of a CSV body, as bxp counts them."""
    return sum(1 for line in data.split(b"\n") if _is_record_line(line))


def find_body(path: str, header_line: int, size: int) -> tuple[bytes, int]:
    """The head (BOM, preamble and header line) and the offset where the records start."""
    head = b""
    with open_input(path) as f:
        while True:
            pos = len(BOM) if head.startswith(BOM) else 0
            seen = 0
            found = header_line == 0 and (len(head) >= len(BOM) or len(head) == size)
            while not found:
                nl = head.find(b"\n", pos)
                if nl < 0:
                    break
                if _is_record_line(head[pos:nl]):
                    seen += 1
                pos = nl + 1
                found = seen == header_line
            if found:
                return head[:pos], pos
            if len(head) >= size:
                return head, size  # the file ends before its header line ends: no records
            more = f.read(READ_WINDOW)
            if not more:
                return head, len(head)
            head += more
            if len(head) > 64 * 1024 * 1024:
                raise JobError(f"'{path}': no end of the header line within 64 MiB")


def cut_pieces(path: str, start: int, size: int, piece_bytes: int, force: Iterable[int] = ()) -> list[tuple[int, int]]:
    """Byte ranges of whole lines covering [start, size): about ``piece_bytes`` each, also cut at ``force``."""
    cuts = {start, size}
    with open_input(path) as f:
        at = start
        while at < size:
            target = at + max(1, piece_bytes)
            if target >= size:
                break
            f.seek(target - 1)
            pos = target - 1
            end = size
            while pos < size:
                window = f.read(min(READ_WINDOW, size - pos))
                if not window:
                    break
                nl = window.find(b"\n")
                if nl >= 0:
                    end = pos + nl + 1
                    break
                pos += len(window)
            cuts.add(end)
            at = end
        for c in force:
            if not start < c < size:
                continue
            f.seek(c - 1)
            if f.read(1) != b"\n":
                raise JobError(f"forced cut {c} of '{path}' is not at the start of a line")
            cuts.add(c)
    edges = sorted(cuts)
    return [(a, b) for a, b in itertools.pairwise(edges) if b > a]


# ---------------------------------------------------------------- bxp-cli


@dataclasses.dataclass(frozen=True)
class CliSpec:
    """How to start bxp-cli on a worker, and the config it runs (its text travels with the task)."""

    command: tuple[str, ...]
    config_text: bytes
    template: str
    # The config's path as the user gave it: messages name it instead of the task's scratch copy.
    label: str = "config.json"


def _run_cli(
    spec: CliSpec, mode: str, extra: list[str], stdin: bytes, files: dict[str, bytes]
) -> tuple[bytes, bytes, str]:
    """Runs bxp-cli in a scratch folder holding the config and ``files``; answers stdout, stderr, folder."""
    work = tempfile.mkdtemp(prefix="bxp-ray-")
    try:
        with open(os.path.join(work, "config.json"), "wb") as f:
            f.write(spec.config_text)
        for name, data in files.items():
            with open(os.path.join(work, name), "wb") as f:
                f.write(data)
        argv = [*spec.command, mode, "--config", os.path.join(work, "config.json"), "--template", spec.template, *extra]
        try:
            done = subprocess.run(argv, input=stdin, capture_output=True, cwd=work, check=False)
        except OSError as err:
            raise PieceFailed(f"cannot start bxp-cli ({shlex.join(spec.command)}): {err}") from err
        err_text = done.stderr.decode("utf-8", "replace").strip().replace(os.path.join(work, "config.json"), spec.label)
        if done.returncode == 1 and err_text.startswith(("error:", "fatal error:")):
            raise PieceFailed(err_text)
        if done.returncode != 0:
            raise PieceCrashed(f"bxp-cli {mode} exited with {done.returncode}: {err_text[-2000:]}")
        stats = b""
        stats_path = os.path.join(work, "stats.json")
        if os.path.exists(stats_path):
            with open(stats_path, "rb") as f:
                stats = f.read()
        return done.stdout, stats, err_text
    finally:
        shutil.rmtree(work, ignore_errors=True)


@dataclasses.dataclass(frozen=True)
class Piece:
    path: str
    name: str
    index: int
    start: int
    end: int


def task_count(piece: Piece) -> int:
    return count_records(read_range(piece.path, piece.start, piece.end))


def task_prepass(spec: CliSpec, piece: Piece, head: bytes, first: int) -> dict:
    """The piece's table ``entries`` and its key ``writes`` (who wrote each key, for the collision finding)."""
    out, _, _ = _run_cli(
        spec,
        "--partition-prepass",
        ["--file", piece.name, "--head", "head.bin", "--first-record", str(first)],
        read_range(piece.path, piece.start, piece.end),
        {"head.bin": head},
    )
    return json.loads(out)


def task_convert(spec: CliSpec, piece: Piece, head: bytes, first: int, lookups: Any) -> tuple[bytes, dict]:
    extra = ["--file", piece.name, "--head", "head.bin", "--first-record", str(first), "--stats-file", "stats.json"]
    files = {"head.bin": head}
    if lookups is not None:  # a list of entry lists: merged into one, or every piece's (aggregating blocks)
        files["lookups.json"] = json.dumps(lookups).encode()
        extra += ["--lookups", "lookups.json"]
    rows, stats, _ = _run_cli(spec, "--partition-convert", extra, read_range(piece.path, piece.start, piece.end), files)
    return rows, json.loads(stats)


def merge_entries(pieces: Iterable[list]) -> list:
    """Per (block, key, field) the write of the highest record: bxp's later-rows-win, in one list."""
    best: dict[tuple[str, str, str], list] = {}
    for entries in pieces:
        for e in entries:
            k = (e[0], e[1], e[2])
            seen = best.get(k)
            if seen is None or seen[4] <= e[4]:
                best[k] = e
    return sorted(best.values(), key=lambda e: e[4])


# ---------------------------------------------------------------- outputs


class Staged:
    """An output written to a temporary name beside its target, renamed into place only on commit."""

    def __init__(self, target: str):
        self.target = target
        folder, name = os.path.split(target)
        base = os.path.join(folder, f".{name}.bxp-ray-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        self.temp = base + ".tmp"
        # The target's previous content while the outputs are committed (see commit_all).
        self.backup = base + ".old"
        self.committed = False
        self._fs = None
        if _is_url(target):
            import fsspec

            self._fs, _, _ = fsspec.get_fs_token_paths(target)
            self._file = self._fs.open(self.temp, "wb")
        else:
            self._file = open(self.temp, "wb")  # noqa: SIM115 (closed by commit/abort)

    def write(self, data: bytes) -> None:
        self._file.write(data)

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    def commit(self) -> None:
        self.close()
        if self._fs is not None:
            self._fs.mv(self.temp, self.target)
        else:
            os.replace(self.temp, self.target)
        self.committed = True

    def keep_previous(self) -> bool:
        """Keeps the target's current content aside (a hard link, else a copy); False when there is none."""
        if self._fs is not None:
            if not self._fs.exists(self.target):
                return False
            self._fs.copy(self.target, self.backup)
            return True
        if not os.path.lexists(self.target):
            return False
        try:
            os.link(self.target, self.backup)
        except OSError:
            shutil.copy2(self.target, self.backup)
        return True

    def roll_back(self, kept: bool) -> None:
        """Undoes :meth:`commit`: the kept previous content back in place, or no file where there was none."""
        if self.committed:
            if kept:
                self._move(self.backup, self.target)
            else:
                self._remove(self.target)
            self.committed = False
        elif kept:
            self._remove(self.backup)

    def drop_previous(self) -> None:
        try:
            self._remove(self.backup)
        except OSError:
            pass  # a stray .old file is harmless; the outputs are all in place

    def _move(self, src: str, dst: str) -> None:
        if self._fs is not None:
            self._fs.mv(src, dst)
        else:
            os.replace(src, dst)

    def _remove(self, path: str) -> None:
        if self._fs is not None:
            self._fs.rm(path)
        else:
            os.unlink(path)

    def abort(self) -> None:
        self.close()
        try:
            if self._fs is not None:
                self._fs.rm(self.temp)
            else:
                os.unlink(self.temp)
        except FileNotFoundError:
            pass


def target_problem(target: str, inputs: Iterable[str] = ()) -> str | None:
    """Why ``target`` cannot be written: it is one of the inputs, or something other than a regular file
    (a folder, a link) is at its name. None when it is absent or a regular file (replaced on commit)."""
    if not _is_url(target):
        real = os.path.realpath(_local(target))
        for i in inputs:
            if not _is_url(i) and os.path.realpath(_local(i)) == real:
                return f"output '{target}' is the input '{i}': writing it would overwrite the input"
        try:
            st = os.lstat(_local(target))
        except FileNotFoundError:
            return None
        if not stat.S_ISREG(st.st_mode):
            what = "a folder" if stat.S_ISDIR(st.st_mode) else "a link" if stat.S_ISLNK(st.st_mode) else "not a file"
            return f"output '{target}' exists and is {what}: it is never replaced"
        return None
    import fsspec

    fs, _, _ = fsspec.get_fs_token_paths(target)
    if fs.exists(target) and fs.isdir(target):
        return f"output '{target}' exists and is a folder: it is never replaced"
    return None


def commit_all(staged: list[Staged]) -> None:
    """Puts every staged output in place, or none: every target is checked before the first rename, and a
    rename that fails all the same undoes the ones before it (each target gets its previous content back)."""
    for s in staged:
        problem = target_problem(s.target)
        if problem is not None:
            raise JobError(f"{problem}; nothing was written")
    done: list[tuple[Staged, bool]] = []
    try:
        for s in staged:
            kept = s.keep_previous()
            done.append((s, kept))
            s.commit()
    except Exception as err:  # noqa: BLE001 (fsspec backends raise their own kinds)
        failed = done[-1][0].target if done else staged[0].target
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        left = []
        for s, kept in reversed(done):
            try:
                s.roll_back(kept)
            except Exception as undo:  # noqa: BLE001
                left.append(f"'{s.target}' ({undo})")
        if left:
            raise JobError(f"cannot put '{failed}' in place ({why}); could not restore {', '.join(left)}") from err
        raise JobError(f"cannot put '{failed}' in place ({why}); no output was changed") from err
    for s, kept in done:
        if kept:
            s.drop_previous()


class Framed:
    """An output put together from pieces' rows: the header, the rows (with the separator between two
    non-empty pieces: none for CSV, `,\n` between JSON objects) and the trailer (JSON's closing bracket)."""

    def __init__(self, staged: Staged, plan: dict):
        self.staged = staged
        self._separator = base64.b64decode(plan["separator_b64"])
        self._trailer = base64.b64decode(plan["trailer_b64"])
        self._any = False
        staged.write(base64.b64decode(plan["header_b64"]))

    def add(self, rows: bytes, count: int) -> None:
        if count == 0:
            return
        if self._any:
            self.staged.write(self._separator)
        self.staged.write(rows)
        self._any = True

    def finish(self) -> None:
        self.staged.write(self._trailer)
        self.staged.close()


def join_out(folder: str, name: str) -> str:
    return folder.rstrip("/") + "/" + name if _is_url(folder) else os.path.join(folder, name)


# ---------------------------------------------------------------- the job


@dataclasses.dataclass
class JobOptions:
    config: str
    template: str
    inputs: list[str]
    output: str
    bxp_cli: list[str]
    piece_bytes: int = DEFAULT_PIECE_BYTES
    strict: bool = False
    quiet: bool = False
    max_retries: int = 3
    # Test hook: extra cut offsets per input path (each must be the start of a line).
    force_cuts: dict[str, list[int]] = dataclasses.field(default_factory=dict)


def _local_cli(spec: CliSpec, mode: str, extra: list[str], stdin: bytes) -> subprocess.CompletedProcess:
    work = tempfile.mkdtemp(prefix="bxp-ray-")
    try:
        cfg = os.path.join(work, "config.json")
        with open(cfg, "wb") as f:
            f.write(spec.config_text)
        argv = [*spec.command, mode, "--config", cfg, "--template", spec.template, *extra]
        done = subprocess.run(argv, input=stdin, capture_output=True, check=False)
        done.stderr = done.stderr.replace(cfg.encode(), spec.label.encode())
        return done
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_job(opts: JobOptions, ray_module: Any = None) -> int:
    """Runs the job on the Ray cluster ``ray`` is connected to; answers bxp-cli's exit status."""
    ray = ray_module
    if ray is None:
        import ray
    started = time.monotonic()
    with open(opts.config, "rb") as f:
        spec = CliSpec(tuple(opts.bxp_cli), f.read(), opts.template, opts.config)

    names = [basename(p) for p in opts.inputs]
    if len(set(names)) != len(names):
        raise JobError("two inputs share a file name: outputs are named after input file names")
    by_name = dict(zip(names, opts.inputs))
    plan_run = _local_cli(spec, "--partition-plan", [], json.dumps({"names": names}).encode())
    if plan_run.returncode != 0:
        raise JobError(plan_run.stderr.decode("utf-8", "replace").strip().removeprefix("error: "))
    plan = json.loads(plan_run.stdout)
    for n in plan["ignored"]:
        print(f"note: '{n}' does not end with the template's file_pattern_in; not an input", file=sys.stderr)

    # Every target checked before any work: a folder at an output's name, or an output that is an input.
    targets = [join_out(opts.output, item["output"]) for item in plan["inputs"]]
    if plan["combined_name"] is not None and plan["inputs"]:
        targets.append(join_out(opts.output, plan["combined_name"]))
    for t in targets:
        problem = target_problem(t, opts.inputs)
        if problem is not None:
            raise JobError(f"{problem}; nothing was written")

    remote = {"max_retries": opts.max_retries, "retry_exceptions": [PieceCrashed]}
    count_r = ray.remote(**remote)(task_count)
    prepass_r = ray.remote(**remote)(task_prepass)
    convert_r = ray.remote(**remote)(task_convert)

    files = []
    for item in plan["inputs"]:
        path = by_name[item["name"]]
        size = input_size(path)
        head, body = find_body(path, plan["header_line"], size)
        with open_input(path) as f:
            sample = f.read(plan["utf8_sample_bytes"])
        ranges = cut_pieces(path, body, size, opts.piece_bytes, opts.force_cuts.get(path, ()))
        pieces = [Piece(path, item["name"], i, a, b) for i, (a, b) in enumerate(ranges)]
        files.append({"item": item, "path": path, "head": head, "sample": sample, "pieces": pieces})

    def get_all(refs: list) -> list:
        try:
            return ray.get(refs)
        except Exception as err:  # a task failed for good: report bxp-cli's own words
            cause = getattr(err, "cause", None) or err
            raise JobError(str(cause).strip().splitlines()[-1] if str(cause).strip() else repr(cause)) from err

    # Record numbers: every piece's count, then running sums.
    counts = get_all([count_r.remote(p) for f in files for p in f["pieces"]])
    at = 0
    for f in files:
        firsts = []
        total = 0
        f["counts"] = counts[at : at + len(f["pieces"])]
        for n in f["counts"]:
            firsts.append(total + 1)
            total += n
        at += len(f["pieces"])
        f["firsts"] = firsts
        f["head_ref"] = ray.put(f["head"])

    # pre_pass: per file, every piece's writes merged with the later record winning; a template that sums,
    # counts or keeps the first value (prepass_aggregate) gets every piece's list, for bxp-cli to add up.
    for f in files:
        f["lookups"] = None
        f["writes"] = None
    if plan["prepass"]:
        refs = [
            [prepass_r.remote(spec, p, f["head_ref"], first) for p, first in zip(f["pieces"], f["firsts"])]
            for f in files
        ]
        for f, rs in zip(files, refs):
            results = get_all(rs)
            entries = [r["entries"] for r in results]
            lists = entries if plan.get("prepass_aggregate") else [merge_entries(entries)]
            f["lookups"] = ray.put(lists)
            f["writes"] = [r.get("writes", []) for r in results]

    convert_refs = [
        [convert_r.remote(spec, p, f["head_ref"], first, f["lookups"]) for p, first in zip(f["pieces"], f["firsts"])]
        for f in files
    ]

    staged: list[Staged] = []
    combined = None
    try:
        if plan["combined_name"] is not None and files:
            combined = Framed(Staged(join_out(opts.output, plan["combined_name"])), plan)
            staged.append(combined.staged)
        summary_files = []
        for f, refs in zip(files, convert_refs):
            out = Framed(Staged(join_out(opts.output, f["item"]["output"])), plan)
            staged.append(out.staged)
            stats = []
            for i, ref in enumerate(refs):  # in piece order: the output keeps the input's order
                rows, piece_stats = get_all([ref])[0]
                if piece_stats["records"] != f["counts"][i]:
                    # Record numbers rest on this count; a disagreement must never pass silently.
                    raise JobError(
                        f"piece {i} of '{f['item']['name']}': bxp-cli read {piece_stats['records']} records where "
                        f"the job counted {f['counts'][i]}; RECORD_NUM() would be wrong, so nothing is written"
                    )
                out.add(rows, piece_stats["rows_written"])
                if combined is not None:
                    combined.add(rows, piece_stats["rows_written"])
                stats.append(piece_stats)
            out.finish()
            summary_files.append(
                {
                    "name": f["item"]["name"],
                    "head_b64": base64.b64encode(f["head"]).decode(),
                    "sample_b64": base64.b64encode(f["sample"]).decode(),
                    "output": out.staged.target,
                    "dir": f["path"].rsplit("/", 1)[0] if "/" in f["path"] else ".",
                    "pieces": stats,
                    **({} if f["writes"] is None else {"prepass_writes": f["writes"]}),
                }
            )
        if combined is not None:
            combined.finish()
        request = {
            "dir": opts.output,
            "files": summary_files,
            "combined": combined.staged.target if combined else None,
            "own_outputs": plan["own_outputs"],
        }
        extra = ["--elapsed-ms", str(int((time.monotonic() - started) * 1000))]
        if opts.strict:
            extra.append("--strict")
        if opts.quiet:
            extra.append("--quiet")
        summary = _local_cli(spec, "--partition-summary", extra, json.dumps(request).encode())
        sys.stdout.write(summary.stdout.decode("utf-8", "replace"))
        sys.stderr.write(summary.stderr.decode("utf-8", "replace"))
        code = summary.returncode
        if code not in (0, 2):
            code = 1
        if code == 1:
            raise _Abort()
        commit_all(staged)
        staged = []
        return code
    except _Abort:
        return 1
    finally:
        for s in staged:
            s.abort()


class _Abort(Exception):
    pass


def default_cli() -> list[str]:
    """``$BXP_CLI`` (a command line), else ``bxp-cli`` on PATH, else ``deno run`` from this checkout."""
    env = os.environ.get("BXP_CLI")
    if env:
        return shlex.split(env)
    found = shutil.which("bxp-cli")
    if found:
        return [found]
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    return [
        "deno",
        "run",
        "--no-prompt",
        "--allow-read",
        "--allow-write",
        "--allow-env=BXP_METRICS,BXP_WORKERS,BXP_PARALLEL_MIN_BYTES,BXP_BLOCK_BYTES,HOME,XDG_CONFIG_HOME,APPDATA",
        os.path.join(repo, "src", "cli", "main.ts"),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run one bxp template on a Ray cluster, byte-identical to bxp-cli.")
    ap.add_argument("--config", required=True, help="the bxp config (JSON5)")
    ap.add_argument("--template", required=True, help="the template id to run")
    ap.add_argument("--output", required=True, help="folder (or fsspec URL) the outputs are written to")
    ap.add_argument("--piece-bytes", type=int, default=DEFAULT_PIECE_BYTES, help="about this many bytes per piece")
    ap.add_argument("--bxp-cli", default=None, help="command line starting bxp-cli (default: $BXP_CLI, PATH, checkout)")
    ap.add_argument("--address", default=None, help="Ray cluster address (default: start or join a local one)")
    ap.add_argument("--num-cpus", type=int, default=None, help="CPUs of a local cluster started here")
    ap.add_argument("--max-retries", type=int, default=3, help="retries of a piece whose bxp-cli crashed")
    ap.add_argument("--strict", action="store_true", help="findings are errors (bxp-cli --strict); nothing written")
    ap.add_argument("--quiet", action="store_true", help="only warnings and errors")
    ap.add_argument("inputs", nargs="+", help="input files (local paths or fsspec URLs)")
    a = ap.parse_args(argv)
    if a.piece_bytes < 1:
        print("error: --piece-bytes must be at least 1", file=sys.stderr)
        return 1
    try:
        import ray
    except ImportError:
        print("error: Ray is not installed (pip install -r integrations/ray/requirements.txt)", file=sys.stderr)
        return 1
    opts = JobOptions(
        config=a.config,
        template=a.template,
        inputs=a.inputs,
        output=a.output,
        bxp_cli=shlex.split(a.bxp_cli) if a.bxp_cli else default_cli(),
        piece_bytes=a.piece_bytes,
        strict=a.strict,
        quiet=a.quiet,
        max_retries=a.max_retries,
    )
    # Once one piece failed for good, the others' failures are noise: the first one is reported.
    os.environ.setdefault("RAY_IGNORE_UNHANDLED_ERRORS", "1")
    init: dict[str, Any] = {"address": a.address, "include_dashboard": False, "log_to_driver": False}
    if a.num_cpus is not None:
        init["num_cpus"] = a.num_cpus
    ray.init(**init)
    try:
        return run_job(opts, ray)
    except (JobError, OSError) as err:
        text = str(err)
        # bxp-cli's own verdicts already say "error:" / "fatal error:"; other problems get the prefix here.
        print(text if text.startswith(("error:", "fatal error:")) else f"error: {text}", file=sys.stderr)
        return 1
    finally:
        ray.shutdown()


if __name__ == "__main__":
    sys.exit(main())

"""Plan the same sample fleets with two versions of the code and report every difference.

A refactor that must not change a published number runs this before and after:

    # once, with the code the refactor starts from:
    python scripts/compare_plans.py run /work/baseline23
    # after each step, with the code now in the checkout:
    python scripts/compare_plans.py check /work/baseline23

`run` samples the fleets (kept under `BASE/landings`, shared by every later run so the
landing paths in the rationale stay the same), runs `partition-planner plan` on each (the
whole pipeline: collection, validation, both Spark jobs, publishing) and plans the bundled
example (`partition-planner demo --json`). It keeps `recommendations.json`, `summary.md`,
the store rows (dumped to JSON) and the datasets (Parquet). `check` runs the same into a
fresh folder with the code of this checkout (or `--repo`) and compares: JSON deeply, the
datasets as tables sorted on every column. Fields that differ between any two runs (run
ids, clocks, validation timings, release folder names, the output folder) are left out.
The exit code is 1 when anything differs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# Fleets: several seeds of 500 topics (multi-topic groups, keyed topics with key samples,
# groups with idle members and standbys come with every sample of that size).
DEFAULT_SEEDS = (1, 2, 3)
TOPICS = 500
DAYS = 14
END = "2026-11-20"
INTERVAL = "2026-11-19"
# Store columns that change from run to run whatever the code.
_VOLATILE_RUN_COLUMNS = {"id", "started_at", "finished_at"}
_MAX_REPORTED = 40


def _cli(repo: Path, *args: str, cwd: Path | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run(
        [sys.executable, "-m", "planner.cli", *args],
        env=env,
        cwd=cwd or repo,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"planner {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def _landing(base: Path, seed: int, repo: Path) -> Path:
    landing = base / "landings" / f"seed-{seed}"
    if not (landing / "topics").exists():
        _cli(repo, "sample", "--topics", str(TOPICS), "--days", str(DAYS), "--seed", str(seed),
             "--end", END, "--out", str(landing), "--force")  # fmt: skip
    return landing


def _dump_store(db: Path) -> dict[str, Any]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    runs = [
        {k: r[k] for k in r.keys() if k not in _VOLATILE_RUN_COLUMNS}  # noqa: SIM118
        for r in con.execute("SELECT * FROM runs ORDER BY id")
    ]
    recs = [
        {k: r[k] for k in r.keys() if k != "run_id"}  # noqa: SIM118
        for r in con.execute("SELECT * FROM recommendations ORDER BY run_id, topic")
    ]
    con.close()
    return {"runs": runs, "recommendations": recs}


def plan_fleets(out: Path, *, base: Path, repo: Path, seeds: tuple[int, ...]) -> None:
    """Plan every fleet and the bundled example with the code in `repo`, into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        landing = _landing(base, seed, repo)
        work = Path(tempfile.mkdtemp(prefix=f"plan-s{seed}-"))
        try:
            _cli(repo, "plan", "--landing", str(landing), "--out", str(work),
                 "--interval", INTERVAL)  # fmt: skip
            kept = out / f"seed-{seed}"
            if kept.exists():
                shutil.rmtree(kept)
            kept.mkdir()
            text = (work / "recommendations.json").read_text()
            (kept / "recommendations.json").write_text(text.replace(str(work), "<out>"))
            summary = (work / "report" / "summary.md").read_text()
            (kept / "summary.md").write_text(summary.replace(str(work), "<out>"))
            store = json.dumps(_dump_store(work / "store.db"), indent=1, sort_keys=True)
            (kept / "store.json").write_text(store.replace(str(work), "<out>"))
            shutil.copytree(work / "work" / "datasets", kept / "datasets")
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(f"planned seed {seed} into {out / f'seed-{seed}'}", flush=True)
    (out / "example.json").write_text(_cli(repo, "demo", "--json"))


# --- comparison ------------------------------------------------------------------------


def _strip_timings(value: Any) -> Any:
    """Validation results carry seconds per suite: not a published number, left out."""
    if isinstance(value, dict):
        return {k: _strip_timings(v) for k, v in value.items() if k not in {"seconds"}}
    if isinstance(value, list):
        return [_strip_timings(v) for v in value]
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return _strip_timings(json.loads(value))
        except ValueError:
            return value
    return value


def _without(value: Any, added: frozenset[str], seen: set[str]) -> Any:
    """`value` without the fields a change adds on purpose (noted in `seen`)."""
    if isinstance(value, dict):
        seen.update(k for k in value if k in added)
        return {k: _without(v, added, seen) for k, v in value.items() if k not in added}
    if isinstance(value, list):
        return [_without(v, added, seen) for v in value]
    return value


def _diff(a: Any, b: Any, where: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a:
                out.append(f"{where}.{k}: only in new: {json.dumps(b[k])[:200]}")
            elif k not in b:
                out.append(f"{where}.{k}: only in base: {json.dumps(a[k])[:200]}")
            else:
                _diff(a[k], b[k], f"{where}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{where}: {len(a)} items in base, {len(b)} in new")
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            label = x.get("topic", i) if isinstance(x, dict) else i
            _diff(x, y, f"{where}[{label}]", out)
    elif isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return
    elif a != b or type(a) is not type(b):
        out.append(f"{where}: {json.dumps(a)[:200]} -> {json.dumps(b)[:200]}")


def _tables(
    folder: Path, added: frozenset[str] = frozenset(), seen: set[str] | None = None
) -> dict[str, list[dict[str, Any]]]:
    import pyarrow.parquet as pq

    tables = {}
    for dataset in sorted(p for p in folder.iterdir() if p.is_dir()):
        # File by file: the folders are `run=<key>` partitions, and the files have the
        # `run` column themselves.
        files = sorted(dataset.rglob("*.parquet"))
        rows = [r for f in files for r in pq.read_table(f).to_pylist()]
        # Sorted on the fields both sides have.
        rows = _without(rows, added, set() if seen is None else seen)
        rows.sort(key=lambda r: json.dumps(r, sort_keys=True, default=str))
        tables[dataset.name] = json.loads(json.dumps(rows, default=str))
    return tables


def compare(base: Path, new: Path, *, added: frozenset[str] = frozenset()) -> list[str]:
    """Every difference between two folders `plan_fleets` wrote, the fields in `added`
    (new fields a change adds on purpose, at any depth) left out of `new` first."""
    found: list[str] = []
    seen: set[str] = set()
    for kept in sorted(p for p in base.iterdir() if p.name.startswith("seed-")):
        other = new / kept.name
        for name in ("recommendations.json", "store.json"):
            a = _strip_timings(json.loads((kept / name).read_text()))
            b = _without(_strip_timings(json.loads((other / name).read_text())), added, seen)
            _diff(a, b, f"{kept.name}/{name}", found)
        if (kept / "summary.md").read_text() != (other / "summary.md").read_text():
            found.append(f"{kept.name}/summary.md differs")
        tables = _tables(other / "datasets", added, seen)
        _diff(_tables(kept / "datasets"), tables, f"{kept.name}/datasets", found)
    a, b = (json.loads((d / "example.json").read_text()) for d in (base, new))
    _diff(a, _without(b, added, seen), "example.json", found)
    if seen:
        print(f"fields added on purpose, left out of the comparison: {', '.join(sorted(seen))}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["run", "check", "compare"])
    parser.add_argument("base", type=Path, help="folder of the reference outputs")
    parser.add_argument("new", type=Path, nargs="?", help="compare: the other folder")
    parser.add_argument("--repo", type=Path, default=REPO, help="checkout whose code runs")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(DEFAULT_SEEDS))
    parser.add_argument(
        "--added",
        nargs="*",
        default=[],
        help="fields the change adds on purpose (any depth): left out of the new outputs",
    )
    args = parser.parse_args(argv)
    seeds = tuple(args.seeds)
    if args.action == "run":
        plan_fleets(args.base / "reference", base=args.base, repo=args.repo, seeds=seeds)
        return 0
    if args.action == "check":
        new = args.base / "latest"
        plan_fleets(new, base=args.base, repo=args.repo, seeds=seeds)
    else:
        new = args.new
    found = compare(args.base / "reference", new, added=frozenset(args.added))
    for line in found[:_MAX_REPORTED]:
        print(line)
    if len(found) > _MAX_REPORTED:
        print(f"... and {len(found) - _MAX_REPORTED} more differences")
    print(f"{len(found)} differences" if found else "identical")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

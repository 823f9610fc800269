"""The benchmark: every figure in one run, printed next to its target, saved as JSON.

Usage (from the repository root, after ``make`` has set things up)::

    .venv/bin/python -m bench.run [--runs N] [--skip-browser] [--skip-build] [--only PART]...
                                  [--out bench-results/bench.json]

``--only browser`` (``make bench BENCH_ARGS="--only browser"``) measures the
browser's first command, navigation, paint and command latency alone; the
parts are cpython, package, build, browser and snapshot.

This machine is shared and noisy, so each figure is measured ``--runs`` times
(default 3) and reported as the median with min and max; ratios against a floor
page measured in the same run matter more than absolute times.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

Row = tuple[str, float, str, "float | None", str]

#: The benchmark's parts, in the order a full run measures them.
PARTS = ("cpython", "package", "build", "browser", "snapshot")


def _rows(part: str) -> list[Row]:
    """One part's figures, measured once."""
    if part == "cpython":
        from . import cpython

        return cpython.command_latency() + cpython.model_scaling()
    if part == "package":
        from . import package

        return package.package_figures()
    if part == "build":
        from . import build

        return build.build_times()
    from . import browser

    return browser.browser_figures() if part == "browser" else browser.snapshot_figures()


def _collect(runs: int, parts: list[str]) -> dict[str, list[Row]]:
    samples: dict[str, list[Row]] = defaultdict(list)
    for _ in range(runs):
        for part in parts:
            for row in _rows(part):
                samples[row[0]].append(row)
    return samples


def _verdict(value: float, target: float | None, kind: str) -> str:
    if target is None:
        return ""
    ok = value <= target if kind == "max" else value >= target
    return "met" if ok else "MISSED"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-browser", action="store_true")
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--only", action="append", choices=PARTS,
                        help="measure only this part (repeatable): its figures alone, in a fraction of the time")
    parser.add_argument("--out", default="bench-results/bench.json")
    args = parser.parse_args(argv)
    parts = [part for part in args.only or PARTS
             if not (args.skip_build and part == "build") and not (args.skip_browser and part in ("browser", "snapshot"))]
    samples = _collect(args.runs, parts)
    results = []
    print(f"{'figure':58} {'median':>10} {'min':>10} {'max':>10}  {'unit':5} {'target':>9}  verdict")
    for name, rows in samples.items():
        values = [r[1] for r in rows]
        _, _, unit, target, kind = rows[0]
        median = statistics.median(values)
        verdict = _verdict(median, target, kind)
        shown_target = "" if target is None else ("<= " if kind == "max" else ">= ") + f"{target:g}"
        print(f"{name[:58]:58} {median:10.3f} {min(values):10.3f} {max(values):10.3f}  {unit:5} {shown_target:>9}  {verdict}")
        results.append({"figure": name, "median": median, "min": min(values), "max": max(values), "unit": unit,
                         "target": target, "target_kind": kind, "verdict": verdict, "samples": values})
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwritten {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Charts of the training run for the handbook, drawn from the emulator's model.

Two pictures, both computed from a lab's cluster exactly as the terminal's
``timeline`` tool computes its text (``emulator.cluster.activity`` and ``steps``), never drawn
by hand:

* the run's **timeline**: allocation, initialisation, first batch, steady
  state, checkpoint saves, hangs and recovery on a UTC axis;
* the **per-rank step**: for every rank, the time it waited for input,
  computed, and waited in the all-reduce for the slowest rank.

Each chart is a self-contained SVG with a title and a text description, on
its own light panel so it reads the same in light and dark mode. ``CHARTS``
lists the charts the pages use; ``tests/docs/test_charts.py`` checks that the
committed files match the model, and ::

    .venv/bin/python tools/charts.py

rewrites them after a deliberate change to the model.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from html import escape
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parents[1] / "docs" / "assets" / "images" / "charts"

FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
INK = "#111827"
MUTED = "#4b5563"
GRID = "#d1d5db"
PANEL = "#f8fafc"
PHASE_COLOURS = {
    "allocation": "#cbd5e1",
    "initialisation": "#c4b5fd",
    "first batch": "#fcd34d",
    "steady state": "#86efac",
    "checkpoint": "#dc2626",
    "hang": "#7f1d1d",
    "recovery": "#fb923c",
}
PART_COLOURS = {"data": "#f59e0b", "compute": "#3b82f6", "wait": "#cbd5e1"}


@dataclass(frozen=True)
class Chart:
    """One picture a page shows: which kind, of which lab and seed."""

    name: str
    kind: str                  # "timeline" or "ranks"
    lab: str
    seed: int

    @property
    def path(self) -> Path:
        return OUT_DIR / f"{self.name}.svg"


CHARTS = (
    Chart("sandbox-timeline", "timeline", "sandbox", 0),
    Chart("sandbox-ranks", "ranks", "sandbox", 0),
    Chart("late-rank-seed3-ranks", "ranks", "late-rank", 3),
    Chart("input-wait-seed3-ranks", "ranks", "input-wait", 3),
    Chart("checkpointing-seed3-timeline", "timeline", "checkpointing", 3),
)


def _duration(seconds: float) -> str:
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _text(x: float, y: float, body: str, size: int = 12, anchor: str = "start", weight: str = "normal",
          colour: str = INK) -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{colour}">{escape(body)}</text>')


def _svg(width: int, height: int, title: str, desc: str, body: list[str]) -> str:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-labelledby="t d" font-family=\'{FONT}\'>')
    return "\n".join([
        head,
        f"  <title id=\"t\">{escape(title)}</title>",
        f"  <desc id=\"d\">{escape(desc)}</desc>",
        f'  <rect x="0.5" y="0.5" width="{width - 1}" height="{height - 1}" rx="8" fill="{PANEL}" stroke="{GRID}"/>',
        *("  " + line for line in body),
        "</svg>",
        "",
    ])


def timeline_svg(cluster: object) -> str:
    """The run's phases on a UTC axis, from its (re)start to the clock's current instant."""
    from emulator.cluster import activity

    run = cluster.training  # type: ignore[attr-defined]
    clock = cluster.clock  # type: ignore[attr-defined]
    phases = activity.phases(cluster)  # type: ignore[arg-type]
    width, left, right = 900, 20, 880
    start, end = phases[0].start_s, max(p.end_s for p in phases)
    span = max(end - start, 1.0)

    def x(offset: float) -> float:
        return left + (offset - start) / span * (right - left)

    nodes = ", ".join(run.nodes) if len(run.nodes) <= 2 else f"{run.nodes[0]} to {run.nodes[-1]}"
    title = (f"Timeline of job {run.job_id} ({run.name}) on {nodes}, {run.world_size} ranks, "
             f"{clock.at(start):%H:%M}–{clock.at(end):%H:%M} UTC")
    body = [_text(left, 26, title, 14, weight="600")]
    bar_y, bar_h = 52, 34
    for phase in phases:
        x0, x1 = x(phase.start_s), x(phase.end_s)
        w = max(x1 - x0, 2.0)
        body.append(f'<rect x="{x0:.1f}" y="{bar_y}" width="{w:.1f}" height="{bar_h}" '
                    f'fill="{PHASE_COLOURS.get(phase.name, GRID)}"><title>{escape(phase.name)} '
                    f'{clock.at(phase.start_s):%H:%M:%S}–{clock.at(phase.end_s):%H:%M:%S} UTC '
                    f'({_duration(phase.end_s - phase.start_s)}) {escape(phase.detail)}</title></rect>')
    body.append(f'<rect x="{left}" y="{bar_y}" width="{right - left}" height="{bar_h}" fill="none" stroke="{MUTED}"/>')
    for phase in phases:
        if phase.name in ("checkpoint", "hang", "recovery"):
            mid = x(phase.start_s)
            body.append(f'<path d="M{mid - 4:.1f},{bar_y - 8} L{mid + 4:.1f},{bar_y - 8} L{mid:.1f},{bar_y - 1} z" '
                        f'fill="{PHASE_COLOURS[phase.name]}"/>')
    tick = 900 if span > 5400 else 600 if span > 1800 else 300
    first = (int(clock.at(start).timestamp()) // tick + 1) * tick
    stamp = first
    while stamp < clock.at(end).timestamp():
        offset = stamp - clock.at(0).timestamp()
        body.append(f'<line x1="{x(offset):.1f}" y1="{bar_y + bar_h}" x2="{x(offset):.1f}" y2="{bar_y + bar_h + 5}" '
                    f'stroke="{MUTED}"/>')
        body.append(_text(x(offset), bar_y + bar_h + 18, f"{clock.at(offset):%H:%M}", 11, "middle", colour=MUTED))
        stamp += tick
    totals: dict[str, float] = {}
    counts: dict[str, int] = {}
    for phase in phases:
        totals[phase.name] = totals.get(phase.name, 0.0) + phase.end_s - phase.start_s
        counts[phase.name] = counts.get(phase.name, 0) + 1
    y, cursor = bar_y + bar_h + 44, left
    for name, total in totals.items():
        label = f"{name} {_duration(total)}" + (f" ({counts[name]}×)" if counts[name] > 1 else "")
        item = 17 + 7 * len(label)
        if cursor + item > right:
            cursor, y = left, y + 20
        body.append(f'<rect x="{cursor}" y="{y - 10}" width="12" height="12" fill="{PHASE_COLOURS.get(name, GRID)}" '
                    f'stroke="{MUTED}" stroke-width="0.5"/>')
        body.append(_text(cursor + 17, y, label, 12))
        cursor += item + 18
    height = y + 16
    lines = [f"{p.name} from {clock.at(p.start_s):%H:%M:%S} to {clock.at(p.end_s):%H:%M:%S} UTC "
             f"({_duration(p.end_s - p.start_s)}{', ' + p.detail if p.detail else ''})" for p in phases]
    return _svg(width, height, title, "; ".join(lines) + ".", body)


def ranks_svg(cluster: object) -> str:
    """Every rank's steady-state step split into input wait, compute and waiting for the slowest rank."""
    from emulator.cluster import steps

    run = cluster.training  # type: ignore[attr-defined]
    prof = steps.profile(cluster)  # type: ignore[arg-type]
    width, left, right, row = 900, 185, 870, 14
    top = 64
    scale = max(r.data_s + r.compute_s + r.comm_s for r in prof.ranks)
    axis_max = max(1, int(scale + 0.999))

    def x(seconds: float) -> float:
        return left + seconds / axis_max * (right - left)

    title = (f"Per-rank step of job {run.job_id} ({run.name}): {prof.step_s:.2f} s per step, "
             f"{run.world_size} ranks")
    body = [_text(20, 26, title, 14, weight="600")]
    legend = [("data", "waiting for input"), ("compute", "compute"), ("wait", "waiting in the all-reduce")]
    cursor = 20
    for key, label in legend:
        body.append(f'<rect x="{cursor}" y="{38}" width="12" height="12" fill="{PART_COLOURS[key]}" stroke="{MUTED}" '
                    f'stroke-width="0.5"/>')
        body.append(_text(cursor + 17, 48, label, 12))
        cursor += 17 + 7 * len(label) + 24
    for second in range(axis_max + 1):
        body.append(f'<line x1="{x(second):.1f}" y1="{top - 4}" x2="{x(second):.1f}" '
                    f'y2="{top + row * len(prof.ranks)}" stroke="{GRID}"/>')
    previous_node = None
    for i, r in enumerate(prof.ranks):
        y = top + i * row
        if previous_node is not None and r.node != previous_node:
            body.append(f'<line x1="20" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="{MUTED}" stroke-width="0.6"/>')
        previous_node = r.node
        late = prof.late_rank == r.rank
        body.append(_text(20, y + 11, f"rank {r.rank:>2}  {r.node} GPU {r.gpu}", 11,
                          weight="700" if late else "normal", colour=INK if late else MUTED))
        start = 0.0
        for key, value in (("data", r.data_s), ("compute", r.compute_s), ("wait", r.comm_s)):
            if value <= 0:
                continue
            body.append(f'<rect x="{x(start):.1f}" y="{y + 2}" width="{max(x(start + value) - x(start), 0.5):.1f}" '
                        f'height="{row - 4}" fill="{PART_COLOURS[key]}"><title>rank {r.rank} {key} '
                        f'{value:.3f} s</title></rect>')
            start += value
    bottom = top + row * len(prof.ranks)
    for second in range(axis_max + 1):
        body.append(_text(x(second), bottom + 16, f"{second} s", 11, "middle", colour=MUTED))
    height = bottom + 30
    slowest = max(prof.ranks, key=lambda r: r.busy_s)
    desc = (f"{len(prof.ranks)} ranks on {', '.join(run.nodes)}. Step {prof.step_s:.3f} s. "
            f"Input wait {min(r.data_s for r in prof.ranks):.3f}–{max(r.data_s for r in prof.ranks):.3f} s, "
            f"compute {min(r.compute_s for r in prof.ranks):.3f}–{max(r.compute_s for r in prof.ranks):.3f} s, "
            f"waiting in the all-reduce {min(r.comm_s for r in prof.ranks):.3f}–"
            f"{max(r.comm_s for r in prof.ranks):.3f} s. Slowest rank: {slowest.rank} on {slowest.node} "
            f"GPU {slowest.gpu} ({slowest.busy_s:.3f} s before the all-reduce).")
    return _svg(width, height, title, desc, body)


def render(chart: Chart) -> str:
    """The SVG text of one chart, from a fresh session of its lab and seed."""
    from emulator.session import Session

    cluster = Session(lab=chart.lab, seed=chart.seed).cluster
    return timeline_svg(cluster) if chart.kind == "timeline" else ranks_svg(cluster)


def main() -> int:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for chart in CHARTS:
        chart.path.write_text(render(chart), encoding="utf-8")
        print(f"wrote {chart.path}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main())

"""Charts of the training run for the handbook, drawn from the emulator's model.

Two pictures, both computed from a lab's cluster exactly as the terminal's
``timeline`` tool computes its text (``emulator.cluster.activity`` and ``steps``), never drawn
by hand:

* the run's **timeline**: allocation, initialisation, first batch, steady
  state, checkpoint saves, hangs and recovery on a UTC axis;
* the **per-rank step**: for every rank, the time it waited for input,
  computed, and waited in the all-reduce for the slowest rank.

Each chart is a self-contained SVG with a title and a text description,
drawn with the figures' kit (``tools/svg_kit.py``) on its own light panel, so
its series colours read the same in light and dark mode. The same code draws
every chart twice from the same model: in the :data:`WIDE` layout for a
desktop column, and in the :data:`PHONE` layout (``NAME-narrow.svg``, 350 px
wide, no text under 11 px: the title wrapped, fewer ticks, the legend flowing
into rows, shorter rank labels, a taller aspect), which ``hooks/figures.py``
shows on narrow screens as it does the figures' phone layouts. Both say the
same title and description. ``CHARTS`` lists the charts the pages use;
``tests/docs/test_pictures.py`` checks that the committed files (both
layouts) match the model, and ::

    .venv/bin/python tools/charts.py

rewrites them after a deliberate change to the model.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.svg_kit import line, marker, paragraph, rect, svg, swatch, swatches, text, write_pictures  # noqa: E402

OUT_DIR = Path(__file__).resolve().parents[1] / "docs" / "assets" / "images" / "charts"

UNKNOWN_PHASE = "#d1d5db"
PHASE_COLOURS = {
    "allocation": "#cbd5e1",
    "initialisation": "#c4b5fd",
    "first batch": "#fcd34d",
    "steady state": "#86efac",
    "checkpoint": "#dc2626",
    "hang": "#7f1d1d",
    "failure": "#111827",
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

    @property
    def narrow_path(self) -> Path:
        """The same chart laid out for a phone's column (``hooks/figures.py`` shows it on narrow screens)."""
        return OUT_DIR / f"{self.name}-narrow.svg"

    @property
    def has_narrow(self) -> bool:
        return True


@dataclass(frozen=True)
class Layout:
    """How one drawing code lays a chart out for a column: its width and the room its labels take."""

    width: int
    left: int                  # x of the drawing's left edge
    label_width: int           # room left of the bars for a rank's row label
    tick_gap: int              # least distance between two labels of an axis, px
    rank_label: str            # a rank's row label, formatted with rank, node and gpu
    row: int                   # height of a rank's row, px


#: A desktop column: one line of title, a label every few minutes.
WIDE = Layout(900, 20, 165, 60, "rank {rank:>2}  {node} GPU {gpu}", 14)
#: A 390 px phone's column (358 px) shows it unscaled, so 11 px text stays 11 px.
PHONE = Layout(350, 10, 116, 50, "{rank:>2} {node} GPU {gpu}", 16)
#: Intervals between time labels, seconds: the first wide enough apart is used.
TICKS = (300, 600, 900, 1800, 3600, 7200, 14400, 28800)


CHARTS = (
    Chart("sandbox-timeline", "timeline", "sandbox", 0),
    Chart("sandbox-ranks", "ranks", "sandbox", 0),
    Chart("late-rank-seed3-ranks", "ranks", "late-rank", 3),
    Chart("input-wait-seed4-ranks", "ranks", "input-wait", 4),
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


def _tick(span: float, per_second: float, gap: int) -> int:
    """Seconds between two time labels: a few per hour on a long run, none closer than ``gap`` px."""
    least = 900 if span > 5400 else 600 if span > 1800 else 300
    return next((t for t in TICKS if t >= least and t * per_second >= gap), TICKS[-1])


def timeline_svg(name: str, cluster: object, layout: Layout = WIDE) -> str:
    """The run's phases on a UTC axis, from its (re)start to the clock's current instant."""
    from emulator.cluster import activity

    run = cluster.training  # type: ignore[attr-defined]
    clock = cluster.clock  # type: ignore[attr-defined]
    phases = activity.phases(cluster)  # type: ignore[arg-type]
    width, left = layout.width, layout.left
    right = width - left
    start, end = phases[0].start_s, max(p.end_s for p in phases)
    span = max(end - start, 1.0)

    def x(offset: float) -> float:
        return left + (offset - start) / span * (right - left)

    nodes = ", ".join(run.nodes) if len(run.nodes) <= 2 else f"{run.nodes[0]} to {run.nodes[-1]}"
    title = (f"Timeline of job {run.job_id} ({run.name}) on {nodes}, {run.world_size} ranks, "
             f"{clock.at(start):%H:%M}–{clock.at(end):%H:%M} UTC")
    body, under_title = paragraph(left, 26, title, right - left, 14, bold=True)
    bar_y, bar_h = under_title + 8, 34
    for phase in phases:
        x0, x1 = x(phase.start_s), x(phase.end_s)
        body.append(swatch(x0, bar_y, max(x1 - x0, 2.0), bar_h, PHASE_COLOURS.get(phase.name, UNKNOWN_PHASE),
                           f"{phase.name} {clock.at(phase.start_s):%H:%M:%S}–{clock.at(phase.end_s):%H:%M:%S} UTC "
                           f"({_duration(phase.end_s - phase.start_s)}) {phase.detail}"))
    body.append(rect(left, bar_y, right - left, bar_h, "line", rx=0))
    for phase in phases:
        if phase.name in ("checkpoint", "hang", "failure", "recovery"):
            body.append(marker(x(phase.start_s), bar_y - 1, PHASE_COLOURS[phase.name]))
    tick = _tick(span, (right - left) / span, layout.tick_gap)
    first = (int(clock.at(start).timestamp()) // tick + 1) * tick
    stamp = first
    while stamp < clock.at(end).timestamp():
        offset = stamp - clock.at(0).timestamp()
        body.append(line(x(offset), bar_y + bar_h, x(offset), bar_y + bar_h + 5, width=1))
        label_x = min(max(x(offset), left + 16), right - 16)
        body.append(text(label_x, bar_y + bar_h + 18, f"{clock.at(offset):%H:%M}", 11, "middle", cls="muted"))
        stamp += tick
    totals: dict[str, float] = {}
    counts: dict[str, int] = {}
    for phase in phases:
        totals[phase.name] = totals.get(phase.name, 0.0) + phase.end_s - phase.start_s
        counts[phase.name] = counts.get(phase.name, 0) + 1
    y, cursor = bar_y + bar_h + 44, left
    keys, labels = [], []    # the legend's colour keys, then their labels: each kind grouped (tools/svg_compact.py)
    for phase_name, total in totals.items():
        label = f"{phase_name} {_duration(total)}" + (f" ({counts[phase_name]}×)" if counts[phase_name] > 1 else "")
        item = 17 + 7 * len(label)
        if cursor + item > right:
            cursor, y = left, y + 20
        keys.append(swatch(cursor, y - 10, 12, 12, PHASE_COLOURS.get(phase_name, UNKNOWN_PHASE), outline=True))
        labels.append(text(cursor + 17, y, label, 12))
        cursor += item + 18
    body += keys + labels
    height = y + 16
    lines = [f"{p.name} from {clock.at(p.start_s):%H:%M:%S} to {clock.at(p.end_s):%H:%M:%S} UTC "
             f"({_duration(p.end_s - p.start_s)}{', ' + p.detail if p.detail else ''})" for p in phases]
    return svg(name, width, int(height), title, "; ".join(lines) + ".", body, panel=True)


def ranks_svg(name: str, cluster: object, layout: Layout = WIDE) -> str:
    """Every rank's steady-state step split into input wait, compute and waiting for the slowest rank."""
    from emulator.cluster import steps

    run = cluster.training  # type: ignore[attr-defined]
    prof = steps.profile(cluster)  # type: ignore[arg-type]
    width, edge, row = layout.width, layout.left, layout.row
    left, right = edge + layout.label_width, width - edge - 10
    scale = max(r.data_s + r.compute_s + r.comm_s for r in prof.ranks)
    axis_max = max(1, int(scale + 0.999))

    def x(seconds: float) -> float:
        return left + seconds / axis_max * (right - left)

    title = (f"Per-rank step of job {run.job_id} ({run.name}): {prof.step_s:.2f} s per step, "
             f"{run.world_size} ranks")
    body, under_title = paragraph(edge, 26, title, width - 2 * edge, 14, bold=True)
    legend = [("data", "waiting for input"), ("compute", "compute"), ("wait", "waiting in the all-reduce")]
    cursor, y = edge, under_title + 4
    keys, labels = [], []    # the legend's colour keys, then their labels: each kind grouped (tools/svg_compact.py)
    for key, label in legend:
        item = 17 + 7 * len(label)
        if cursor + item > width - edge:
            cursor, y = edge, y + 18
        keys.append(swatch(cursor, y - 10, 12, 12, PART_COLOURS[key], outline=True))
        labels.append(text(cursor + 17, y, label, 12))
        cursor += item + 24
    body += keys + labels
    top = y + 16
    for second in range(axis_max + 1):
        body.append(line(x(second), top - 4, x(second), top + row * len(prof.ranks), "grid", 1))
    # Drawn kind by kind (node separators, labels, then each part of every rank's bar), none overlapping
    # another, so the markup groups each kind's shared attributes (tools/svg_compact.py).
    rows = [(top + i * row, r) for i, r in enumerate(prof.ranks)]
    body += [line(edge, y, right, y, width=0.6) for (y, r), (_, above) in zip(rows[1:], rows, strict=False)
             if r.node != above.node]
    body += [text(edge, y + row - 3, layout.rank_label.format(rank=r.rank, node=r.node, gpu=r.gpu), 11,
                  bold=prof.late_rank == r.rank, cls="ink" if prof.late_rank == r.rank else "muted") for y, r in rows]
    # Each part of every rank's bar is one shape, without a tooltip per bar: a page carries the chart twice
    # (wide and phone), and 96 tooltips would weigh more than the rest of the chart; the description says the
    # ranges and the slowest rank, and the terminal's ``timeline --ranks`` each rank's seconds.
    for part, key in enumerate(("data", "compute", "wait")):
        bars = []
        for y, r in rows:
            values = (r.data_s, r.compute_s, r.comm_s)
            start, value = sum(values[:part]), values[part]
            if value > 0:
                bars.append((x(start), y + 2, max(x(start + value) - x(start), 0.5), row - 4))
        if bars:
            body.append(swatches(bars, PART_COLOURS[key]))
    bottom = top + row * len(prof.ranks)
    every = next(n for n in range(1, axis_max + 2) if n * (right - left) / axis_max >= layout.tick_gap / 2)
    for second in range(0, axis_max + 1, every):
        body.append(text(x(second), bottom + 16, f"{second} s", 11, "middle", cls="muted"))
    height = bottom + 30
    slowest = max(prof.ranks, key=lambda r: r.busy_s)
    desc = (f"{len(prof.ranks)} ranks on {', '.join(run.nodes)}. Step {prof.step_s:.3f} s. "
            f"Input wait {min(r.data_s for r in prof.ranks):.3f}–{max(r.data_s for r in prof.ranks):.3f} s, "
            f"compute {min(r.compute_s for r in prof.ranks):.3f}–{max(r.compute_s for r in prof.ranks):.3f} s, "
            f"waiting in the all-reduce {min(r.comm_s for r in prof.ranks):.3f}–"
            f"{max(r.comm_s for r in prof.ranks):.3f} s. Slowest rank: {slowest.rank} on {slowest.node} "
            f"GPU {slowest.gpu} ({slowest.busy_s:.3f} s before the all-reduce).")
    return svg(name, width, int(height), title, desc, body, panel=True)


def render(chart: Chart, narrow: bool = False) -> str:
    """The SVG text of one chart (``narrow``: its phone layout, saying the same words), from a fresh session
    of its lab and seed."""
    from emulator.session import Session

    cluster = Session(lab=chart.lab, seed=chart.seed).cluster
    draw = timeline_svg if chart.kind == "timeline" else ranks_svg
    return draw(f"{chart.name}-narrow", cluster, PHONE) if narrow else draw(chart.name, cluster)


def main() -> int:
    write_pictures(CHARTS, render)
    return write_pictures(CHARTS, lambda c: render(c, narrow=True), lambda c: c.narrow_path)


if __name__ == "__main__":
    sys.exit(main())

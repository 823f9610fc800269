"""The handbook's charts are what the emulator's model gives, and are readable SVG.

That each committed chart is what the model draws now, from a fresh session of
its lab and seed, and is an accessible image, ``test_pictures.py`` checks with
the figures.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from tools.charts import CHARTS

SVG = "{http://www.w3.org/2000/svg}"
DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_chart_is_shown_on_a_page() -> None:
    pages = "\n".join(p.read_text(encoding="utf-8") for p in DOCS.rglob("*.md"))
    unused = [c.name for c in CHARTS if f"charts/{c.name}.svg" not in pages]
    assert not unused, f"charts no page shows: {unused}"


def test_the_checkpointing_chart_pauses_as_long_as_the_checkpoint_figure_stalls() -> None:
    from emulator.cluster import activity
    from emulator.session import Session
    from tools.figures import checkpoint_profiles

    chart = next(c for c in CHARTS if c.lab == "checkpointing")
    cluster = Session(lab=chart.lab, seed=chart.seed).cluster
    sync, asyn = checkpoint_profiles(cluster)
    stall = (asyn if cluster.training.async_checkpoint else sync).checkpoint_stall_s
    pauses = [p.end_s - p.start_s for p in activity.phases(cluster) if p.name == "checkpoint"]
    assert len(pauses) > 2
    assert all(abs(pause - stall) < 1e-6 for pause in pauses[:-1])
    desc = ET.fromstring(chart.path.read_text(encoding="utf-8")).find(f"{SVG}desc").text or ""
    assert f"({stall:.0f} s, step" in desc or f"({stall:.1f} s, step" in desc

"""The handbook's figures are what the emulator's model gives, and agree with the labs of their pages.

That each committed figure (and its phone layout) is what the model draws now,
and is an accessible image, ``test_pictures.py`` checks with the charts. A figure drawn from a lab must be on a page whose terminal runs that lab and
seed, and must say what the tools say on that cluster: the fabric figure's
marked port is the one ``ibstatus`` shows degraded, the node figure's links,
NICs and CPU affinity are ``nvidia-smi topo -m``'s, and the checkpoint
figure's stall is the one the job's log reports. The remediation ladder is
drawn from the table ``submit`` reads (:mod:`emulator.cluster.remediation`):
the rung a solved GPU error is sent to is a box of the committed figure, and
it is the one the GPU's state in ``nvidia-smi -q`` calls for.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from mkdocs.utils.meta import get_data

from emulator.cluster.remediation import LADDER, RUNGS
from tests.support import on, run
from tools.figures import FIGURES, Figure
from tools.svg_compact import drawn

SVG = "{http://www.w3.org/2000/svg}"
DOCS = Path(__file__).resolve().parents[2] / "docs"
BY_KIND = {f.kind: f for f in FIGURES}


def _desc(figure: Figure) -> str:
    return ET.fromstring(figure.path.read_text(encoding="utf-8")).find(f"{SVG}desc").text or ""


@pytest.mark.parametrize("figure", FIGURES, ids=[f.name for f in FIGURES])
def test_figure_is_shown_with_alt_text_on_its_page(figure: Figure) -> None:
    page = (DOCS / figure.page).read_text(encoding="utf-8")
    alts = re.findall(r"!\[([^\]]*)\]\([^)]*figures/" + re.escape(figure.name) + r"\.svg\)", page)
    assert alts and all(len(alt) > 40 for alt in alts), f"{figure.page} does not show {figure.name} with alt text"


@pytest.mark.parametrize("figure", [f for f in FIGURES if f.lab], ids=[f.name for f in FIGURES if f.lab])
def test_a_lab_figure_is_on_a_page_running_its_lab_and_seed(figure: Figure) -> None:
    _, meta = get_data((DOCS / figure.page).read_text(encoding="utf-8"))
    assert (meta.get("lab"), meta.get("seed", 0)) == (figure.lab, figure.seed)


def test_the_fabric_figure_marks_the_port_ibstatus_shows_degraded() -> None:
    figure = BY_KIND["fabric"]
    root = ET.fromstring(figure.path.read_text(encoding="utf-8"))
    marked = [el for el, said in drawn(root) if el.tag == f"{SVG}text" and said.get("class") == "mdx-fig-hot-ink"]
    assert marked
    port = re.search(r"(node\d+) (mlx5_\d+) trained at", " ".join(el.text or "" for el in marked))
    assert port, "the fabric figure marks no port"
    node, device = port.groups()
    session = on(node, figure.lab, figure.seed)
    status = run(session, "ibstatus")
    blocks = dict(re.findall(r"Infiniband device '(mlx5_\d+)' port 1 status:\n(.*?)(?=\n\n|\Z)", status, re.S))
    assert "200 Gb/sec" in blocks[device]
    healthy = [name for name, block in blocks.items() if name != device and "400 Gb/sec" in block]
    assert len(healthy) == 7, "the other rail ports should run at 400 Gb/sec"
    netdevs = re.findall(r"(mlx5_\d+) port 1 ==> (ib\w+)", run(session, "ibdev2netdev"))
    assert len(netdevs) == 8
    for name, netdev in netdevs:
        assert f"to {name} ({netdev}, " in _desc(figure), f"{name} {netdev} is not in the figure"


def test_the_node_figure_agrees_with_nvidia_smi_topo() -> None:
    figure = BY_KIND["node"]
    matrix = run(on(figure.node, figure.lab, figure.seed), "nvidia-smi topo -m")
    header = matrix.splitlines()[0].split("\t")
    legend = dict(re.findall(r"(NIC\d+): (mlx5_\d+)", matrix))
    desc = _desc(figure)
    rows = [line.split("\t") for line in matrix.splitlines() if re.match(r"GPU\d\t", line)]
    assert len(rows) == 8
    for cells in rows:
        gpu, by_column = cells[0], dict(zip(header, cells, strict=False))
        links = next(v.strip() for k, v in by_column.items() if k.startswith("GPU") and v.strip().startswith("NV"))
        pxb = [legend[k] for k, v in by_column.items() if k.startswith("NIC") and v.strip() in ("PIX", "PXB")]
        cpus, numa = by_column["CPU Affinity"].strip(), by_column["NUMA Affinity"].strip()
        shown = re.search(gpu + r": (NV\d+) \([^)]*\); PCIe switch with (mlx5_\d+) \(PXB\); NUMA (\d+), CPUs ([\d,-]+)",
                          desc)
        assert shown, f"{gpu} missing from the figure"
        assert (shown[1], [shown[2]], shown[3], shown[4]) == (links, pxb, numa, cpus)


def test_the_checkpoint_figure_stalls_as_long_as_the_log_says_a_save_takes() -> None:
    figure = BY_KIND["checkpoint"]
    log = run(on(None, figure.lab, figure.seed), "grep 'saved checkpoint' /lustre/jobs/llm-pretrain/train.log")
    seconds = float(re.findall(r"saved checkpoint step \d+ in ([\d.]+)s", log)[-1])
    title = ET.fromstring(figure.path.read_text(encoding="utf-8")).find(f"{SVG}title").text or ""
    stall = float(re.search(r"synchronous checkpoint stalls job \d+ for ([\d.]+) s", title)[1])
    assert stall == round(seconds, 1)


def _boxes(path: Path) -> str:
    """The text of every label of a committed figure, joined."""
    return " ".join(el.text or "" for el in ET.fromstring(path.read_text(encoding="utf-8")).iter(f"{SVG}text"))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_submit_sends_a_gpu_error_to_a_rung_of_the_drawn_ladder_that_its_state_calls_for(seed: int) -> None:
    """The diagnostic-snapshot lab varies the Xid by seed (48, 79, 94): a reset, a reboot, no rung."""
    figure = BY_KIND["ladder"]
    session = on(None, "diagnostic-snapshot", seed)
    truth = session.cluster.truth()
    said = " ".join(run(session, f"submit node={truth['node']} gpu={truth['gpu']} xid={truth['xid']}").split())
    smi, _ = on(truth["node"], "diagnostic-snapshot", seed).execute(f"nvidia-smi -q -i {truth['gpu']}")
    if "Unable to determine the device handle" in smi:
        rung = RUNGS["reboot"]    # fallen off the bus
    elif re.search(r"Pending\s+: Yes", smi) or re.search(r"Reset Required\s+: Yes", smi):
        rung = RUNGS["reset"]
    else:
        rung = None
    if rung is None:
        assert "asks for no reset; the error was contained, so restart the application" in said
        return
    command = rung.detail.replace("<gpu>", truth["gpu"]).replace("<node>", truth["node"])
    assert f"then {rung.title[0].lower()}{rung.title[1:]} ({command})" in said
    for path in (figure.path, figure.narrow_path):
        drawn = _boxes(path)
        assert rung.title in drawn and rung.detail in drawn, f"{path.name} has no box for {rung.key}"


def test_the_ladder_figure_draws_every_rung_of_the_model_in_order() -> None:
    figure = BY_KIND["ladder"]
    for path in (figure.path, figure.narrow_path):
        drawn = _boxes(path)
        places = [drawn.find(f"{rung.title} {rung.detail}") for rung in LADDER]
        assert -1 not in places and places == sorted(places), f"{path.name} is not the model's ladder"

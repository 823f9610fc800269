"""Figures of the handbook drawn from the emulator's model: the fabric, a node's layout, a checkpoint save.

Like ``tools/charts.py``, each picture is computed from a lab's cluster (the
one the page's terminal runs), never drawn by hand:

* **fabric**: one node's eight GPUs, their rail NICs (``mlx5_N`` and netdev
  as ``ibstatus`` and ``ip`` print them) and the leaf switch and port each
  cable reaches; the port a lab's fault degraded is marked;
* **node**: an HGX node's NVLink/NVSwitch domain and its PCIe/NUMA layout:
  which NIC shares a PCIe switch with each GPU, and which CPUs are local to
  it, as ``nvidia-smi topo -m`` reports;
* **checkpoint**: a synchronous save against an asynchronous one, with the
  step time, write time and stall of the lab's run.

The pictures that are not of one cluster (NCCL's algorithms, the remediation
ladder, drawn from :mod:`emulator.cluster.remediation`) are in
``tools/figure_diagrams.py``; every figure is drawn a second time for a phone
(``NAME-narrow.svg``, ``tools/figure_phone.py``). ``FIGURES`` lists every figure
and the page that shows it; ``tests/docs/test_pictures.py`` checks that the
committed files match the model, ``tests/docs/test_figures.py`` that each
page's figure (and its phone layout) agrees with its lab, and ::

    .venv/bin/python tools/figures.py

rewrites them after a deliberate change to the model.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import xml.etree.ElementTree as ET  # noqa: E402

from tools import figure_diagrams, figure_phone  # noqa: E402
from tools.svg_kit import arrow, labelled_box, line, rect, svg, text, write_pictures  # noqa: E402

SVG_NS = "http://www.w3.org/2000/svg"
OUT_DIR = Path(__file__).resolve().parents[1] / "docs" / "assets" / "images" / "figures"


@dataclass(frozen=True)
class Figure:
    """One picture: its kind, the lab and seed it is drawn from (if any), the page that shows it."""

    name: str
    kind: str
    page: str
    lab: str = ""
    seed: int = 0
    node: str = ""

    @property
    def path(self) -> Path:
        return OUT_DIR / f"{self.name}.svg"

    @property
    def narrow_path(self) -> Path:
        """The same figure laid out for a phone's column (``hooks/figures.py`` shows it on narrow screens)."""
        return OUT_DIR / f"{self.name}-narrow.svg"

    @property
    def has_narrow(self) -> bool:
        return self.kind in NARROW_KINDS


FIGURES = (
    Figure("fabric-triage-rails", "fabric", "reference/fabric-triage.md", "fabric-triage", 0),
    Figure("topology-node01", "node", "reference/topology.md", "topology", 0, "node01"),
    Figure("checkpoint-sync-async", "checkpoint", "guides/checkpointing.md", "checkpointing", 0),
    Figure("nccl-ring", "ring", "reference/nccl.md"),
    Figure("nccl-tree", "tree", "reference/nccl.md"),
    Figure("nccl-nvls", "nvls", "reference/nccl.md"),
    Figure("remediation-ladder", "ladder", "guides/operator-workflow.md"),
)


def faulty_port(cluster: object) -> tuple[str, str] | None:
    """(node, mlx5 device) of the port a lab's fault changed, or None."""
    truth = cluster.truth()  # type: ignore[attr-defined]
    if truth.get("node") and str(truth.get("port", "")).startswith("mlx5_"):
        return truth["node"], truth["port"]
    return None


def fabric_svg(name: str, cluster: object) -> str:
    """One node's rails: GPU N → mlx5_N → leaf switch of rail N, the faulty port marked."""
    fault = faulty_port(cluster)
    node_name = fault[0] if fault else cluster.compute_nodes[0].name  # type: ignore[attr-defined]
    node = cluster.node(node_name)  # type: ignore[attr-defined]
    rails = sorted((nic for nic in node.nics if nic.role == "compute"), key=lambda nic: nic.rail)
    gpus = {gpu.index: gpu for gpu in node.gpus}
    width, row = 860, 46
    top = 70
    body = [text(20, 28, f"Rail-optimised fabric: {node_name}'s eight GPUs to eight leaf switches", 15, bold=True),
            text(20, 50, "GPU N reaches the fabric through its own NIC, cabled to the leaf switch of rail N.", 12)]
    for x, head in ((20, "GPU"), (250, "HCA (port 1), netdev, rate"), (600, "Leaf switch, port")):
        body.append(text(x, top - 4, head, 12, bold=True))
    lines = []
    for i, nic in enumerate(rails):
        y = top + 6 + i * row
        bad = fault is not None and nic.name == fault[1]
        gpu = gpus.get(nic.rail)
        body += labelled_box(20, y, 150, 34, [f"GPU{nic.rail}", gpu.pci_bus_id[4:] if gpu else ""], size=11)
        rate = f"{nic.rate_gbps} Gb/s {nic.width}" + (f" (of {nic.max_rate_gbps})" if nic.rate_gbps < nic.max_rate_gbps
                                                         else "")
        body += labelled_box(250, y, 270, 34, [f"{nic.name} port 1 · {nic.netdev}", rate],
                             "hot-box" if bad else "box", 11)
        body += labelled_box(600, y, 240, 34, [nic.peer_switch, f"port {nic.peer_port}"],
                             "hot-box" if bad else "accent-box", 11)
        body.append(line(170, y + 17, 250, y + 17))
        body.append(line(520, y + 17, 600, y + 17, "hot" if bad else "accent", 3 if bad else 1.6,
                         dashed=bad))
        lines.append(f"GPU{nic.rail} to {nic.name} ({nic.netdev}, {nic.rate_gbps} Gb/s {nic.width}) to "
                     f"{nic.peer_switch} port {nic.peer_port}" + (" (degraded)" if bad else ""))
    bottom = top + 6 + len(rails) * row
    if fault:
        nic = node.nic(fault[1])
        body.append(text(20, bottom + 14, f"Marked: {node_name} {nic.name} trained at {nic.rate_gbps} Gb/s "
                         f"{nic.width} while its neighbours run at {nic.max_rate_gbps} Gb/s.", 12, cls="hot-ink",
                         bold=True))
    spines = [s for s, (kind, _) in cluster.switches.items() if kind == "spine"]  # type: ignore[attr-defined]
    body.append(text(20, bottom + 36, f"Every leaf also uplinks to the spine switches ({', '.join(spines)}).", 12))
    title = f"The rail-optimised fabric of {node_name}: eight GPUs, eight NICs, eight leaf switches"
    desc = "; ".join(lines) + "."
    if fault:
        desc += f" The degraded port is {fault[1]} on {fault[0]}."
    return svg(name, width, bottom + 52, title, desc, body)


def node_svg(name: str, cluster: object, node_name: str) -> str:
    """An HGX node: the NVSwitch domain above, the PCIe switches and NUMA nodes below."""
    node = cluster.node(node_name)  # type: ignore[attr-defined]
    gpus = sorted(node.gpus, key=lambda g: g.index)
    nics = {nic.pcie_switch: nic for nic in node.nics}
    switches = sorted({link.switch for g in gpus for link in g.nvlinks})
    width, col = 880, 104
    left = 24
    body = [text(20, 28, f"{node_name}: NVLink domain and PCIe/NUMA layout", 15, bold=True)]
    sw_y, gpu_y, pcie_y, nic_y, cpu_y = 48, 126, 206, 262, 336
    sw_w = (8 * col - 24) / len(switches)
    for i, sw in enumerate(switches):
        body += labelled_box(left + i * sw_w + 6, sw_y, sw_w - 12, 32, [f"NVSwitch {sw}"], "accent-box", 12)
    lines = []
    for g in gpus:
        x = left + g.index * col
        per_switch = {sw: sum(1 for link in g.nvlinks if link.switch == sw) for sw in switches}
        for i in range(len(switches)):
            body.append(line(x + 20 + i * 18, gpu_y, left + i * sw_w + sw_w / 2, sw_y + 32, "accent", 0.6))
        body += labelled_box(x, gpu_y, col - 12, 40, [f"GPU{g.index}", f"NV{len(g.nvlinks)}"], size=12)
        nic = nics.get(g.pcie_switch)
        body += labelled_box(x, pcie_y, col - 12, 30, ["PCIe switch"], size=11, bold_first=False)
        body.append(line(x + (col - 12) / 2, gpu_y + 40, x + (col - 12) / 2, pcie_y))
        if nic:
            body += labelled_box(x, nic_y, col - 12, 36, [f"NIC{int(nic.name.split('_')[1])}", nic.name], size=11)
            body.append(line(x + (col - 12) / 2, pcie_y + 30, x + (col - 12) / 2, nic_y))
        body.append(line(x + (col - 12) / 2, nic_y + 36, x + (col - 12) / 2, cpu_y, dashed=True))
        links = ", ".join(f"{n} to NVSwitch {sw}" for sw, n in per_switch.items())
        lines.append(f"GPU{g.index}: NV{len(g.nvlinks)} ({links}); PCIe switch with "
                     f"{nic.name if nic else 'no NIC'} (PXB); NUMA {g.numa_node}, CPUs "
                     f"{node.cpu.cpus_of_numa(g.numa_node)}")
    for numa in range(node.numa_nodes):
        members = [g.index for g in gpus if g.numa_node == numa]
        x0, x1 = left + min(members) * col, left + max(members) * col + col - 12
        storage = [nic.name for nic in node.nics if nic.role == "storage" and nic.numa_node == numa]
        body += labelled_box(x0, cpu_y, x1 - x0, 44,
                             [f"CPU socket {numa} · NUMA {numa} · CPUs {node.cpu.cpus_of_numa(numa)}",
                              f"storage NIC {', '.join(storage)}" if storage else ""], "box", 12)
    body.append(line(left + 4 * col - 12, cpu_y + 22, left + 4 * col, cpu_y + 22, width=3))
    body.append(text(20, cpu_y + 66, "Between the sockets: the CPU interconnect (SYS in nvidia-smi topo -m). "
                     "Every GPU pair: NV18, through all four NVSwitches.", 12))
    title = f"{node_name}: eight GPUs on {len(switches)} NVSwitches; each GPU shares a PCIe switch with its NIC"
    desc = "; ".join(lines) + "."
    return svg(name, width, cpu_y + 82, title, desc, body)


def checkpoint_profiles(cluster: object) -> tuple[object, object]:
    """The run's step profile with a synchronous and with an asynchronous save, from the model.

    The same query (``steps.profile``) gives the ``timeline`` tool and
    ``tools/charts.py`` their checkpoint pauses, so the figure and the chart
    cannot disagree on what a save costs.
    """
    from dataclasses import replace

    from emulator.cluster import steps

    run = cluster.training  # type: ignore[attr-defined]
    return (steps.profile_of(cluster, replace(run, async_checkpoint=False)),  # type: ignore[arg-type]
            steps.profile_of(cluster, replace(run, async_checkpoint=True)))  # type: ignore[arg-type]


def checkpoint_svg(name: str, cluster: object) -> str:
    """A few steps around one save: synchronous (every rank waits for the write) against asynchronous."""
    run = cluster.training  # type: ignore[attr-defined]
    sync, asyn = checkpoint_profiles(cluster)
    step, write = sync.step_s, sync.checkpoint_write_s
    before, after = 3, 3
    span = (before + after) * step + sync.checkpoint_stall_s
    width, left, right = 880, 150, 860

    def x(seconds: float) -> float:
        return left + seconds / span * (right - left)

    body = [text(20, 28, f"Checkpoint save of job {run.job_id} ({run.name}): synchronous against asynchronous",
                 15, bold=True)]
    lanes = (("Synchronous", sync, 64), ("Asynchronous", asyn, 150))
    for label, prof, y in lanes:
        body.append(text(20, y + 21, label, 13, bold=True))
        t = 0.0
        for i in range(before + after):
            if i == before:
                stall = prof.checkpoint_stall_s
                body.append(rect(x(t), y, max(x(t + stall) - x(t), 3), 32, "hot-box", 2, 2))
                if x(t + stall) - x(t) > 60:
                    body.append(text((x(t) + x(t + stall)) / 2, y + 21, f"save {stall:.1f} s", 12, "middle",
                                     True, "hot-ink"))
                else:
                    body.append(text(x(t) + 6, y - 6, f"snapshot to host memory {stall:.2f} s", 11, cls="hot-ink"))
                if prof is asyn:
                    body.append(rect(x(t + stall), y + 40, x(t + stall + write) - x(t + stall), 20, "accent-box", 2))
                    body.append(text(x(t + stall) + 6, y + 54, f"background write {write:.1f} s", 11))
                t += stall
            body += labelled_box(x(t) + 1, y, x(t + step) - x(t) - 2, 32, [f"step {step:.2f} s"], size=11,
                                 bold_first=False)
            t += step
        body.append(text(x(t) + 4, y + 21, "", 11))
    axis_y = 226
    body.append(line(left, axis_y, right, axis_y))
    for second in range(0, int(span) + 1, 5):
        body.append(line(x(second), axis_y, x(second), axis_y + 5))
        body.append(text(x(second), axis_y + 18, f"{second} s", 11, "middle"))
    saved = sync.checkpoint_stall_s - asyn.checkpoint_stall_s
    per_save = f"{saved:.1f} s of every rank's time per save, every {run.checkpoint_every} steps"
    ahead = x(before * step + asyn.checkpoint_stall_s + after * step)
    body.append(arrow(ahead, 136, x(before * step + sync.checkpoint_stall_s + after * step), 136, "accent"))
    body.append(text(ahead + 4, 130, f"{saved:.1f} s ahead", 11))
    body.append(text(20, axis_y + 44, f"The asynchronous save gives back {per_save}.", 12, bold=True))
    title = (f"A synchronous checkpoint stalls job {run.job_id} for {sync.checkpoint_stall_s:.1f} s; an asynchronous "
             f"one for {asyn.checkpoint_stall_s:.2f} s")
    desc = (f"Steps of {step:.2f} s on {run.world_size} ranks. Synchronous: after step {before} every rank waits "
            f"{sync.checkpoint_stall_s:.1f} s while {sync.checkpoint_bytes / 1e9:.0f} GB are written to "
            f"{run.checkpoint_dir}. Asynchronous: every rank copies its share to host memory in "
            f"{asyn.checkpoint_stall_s:.2f} s and trains on while the {write:.1f} s write runs in the background. "
            f"Saved: {per_save}.")
    return svg(name, width, axis_y + 58, title, desc, body)


#: The kinds drawn a second time for a phone (``tools/figure_phone.py``; the ladder draws its own).
NARROW_KINDS = frozenset({"fabric", "node", "checkpoint", "ring", "tree", "nvls", "ladder"})


def _phone(figure: Figure, wide: str) -> str:
    """The phone layout of ``figure``, with the wide drawing's own title and description."""
    if figure.kind == "ladder":
        return figure_diagrams.ladder_svg(f"{figure.name}-narrow", figure_phone.WIDTH)
    if figure.kind in figure_phone.DIAGRAMS:
        body, height = figure_phone.DIAGRAMS[figure.kind]()
    else:
        from emulator.session import Session

        cluster = Session(lab=figure.lab, seed=figure.seed).cluster
        body, height = (figure_phone.node(cluster, figure.node) if figure.kind == "node"
                        else getattr(figure_phone, figure.kind)(cluster))
    root = ET.fromstring(wide)
    title, desc = (root.find(f"{{{SVG_NS}}}{part}") for part in ("title", "desc"))
    return svg(f"{figure.name}-narrow", figure_phone.WIDTHS.get(figure.kind, figure_phone.WIDTH), int(height), title.text or "",  # type: ignore[union-attr]
               desc.text or "", body)  # type: ignore[union-attr]


def render(figure: Figure, narrow: bool = False) -> str:
    """The SVG text of one figure (``narrow``: its phone layout, saying the same words), from a fresh session
    of its lab and seed where it has one."""
    if figure.kind in figure_diagrams.KINDS:
        wide = figure_diagrams.KINDS[figure.kind](figure.name)
    else:
        from emulator.session import Session

        cluster = Session(lab=figure.lab, seed=figure.seed).cluster
        if figure.kind == "fabric":
            wide = fabric_svg(figure.name, cluster)
        elif figure.kind == "node":
            wide = node_svg(figure.name, cluster, figure.node)
        else:
            wide = checkpoint_svg(figure.name, cluster)
    return _phone(figure, wide) if narrow else wide


def main() -> int:
    write_pictures(FIGURES, render)
    return write_pictures([f for f in FIGURES if f.has_narrow], lambda f: render(f, narrow=True),
                          lambda f: f.narrow_path)


if __name__ == "__main__":
    sys.exit(main())

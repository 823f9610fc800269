"""The handbook's figures laid out a second time for a phone: the same model, drawn 350 px wide.

A figure of ``tools/figures.py`` is drawn for a wide column; on a 390 px
phone it would shrink to unreadable text or scroll sideways. Each function
here draws the same facts from the same model (the same lab's cluster, the
same NCCL paths) in a column :data:`WIDTH` wide with no text under 11 px: rows
instead of columns, stacked nodes instead of side-by-side ones, prose wrapped.
It returns the drawing's parts and its height; ``tools/figures.py`` gives it
the wide figure's own title and description, so both say the same words, and
``hooks/figures.py`` shows it on narrow screens.
"""

from __future__ import annotations

from collections.abc import Callable

from tools.svg_kit import arrow, fit, labelled_box, line, paragraph, rect, text

#: Width of a phone layout: a 390 px screen's column (358 px) shows it unscaled, so 11 px text stays 11 px.
WIDTH = 350
#: The fabric figure sits in an admonition, whose padding leaves it 332 px on that phone.
FABRIC_WIDTH = 330
#: kind → width of its phone layout, where it is not :data:`WIDTH`.
WIDTHS = {"fabric": FABRIC_WIDTH}
Drawing = tuple[list[str], float]


def _heading(body: str, width: int = WIDTH) -> tuple[list[str], float]:
    parts, y = paragraph(10, 22, body, width - 20, 14, bold=True)
    return parts, y + 4


def fabric(cluster: object) -> Drawing:
    """One node's rails as rows: GPU, its NIC (device, netdev, rate), the leaf switch and port it reaches."""
    from tools.figures import faulty_port

    fault = faulty_port(cluster)
    node_name = fault[0] if fault else cluster.compute_nodes[0].name  # type: ignore[attr-defined]
    node = cluster.node(node_name)  # type: ignore[attr-defined]
    rails = sorted((nic for nic in node.nics if nic.role == "compute"), key=lambda nic: nic.rail)
    gpus = {gpu.index: gpu for gpu in node.gpus}
    body, y = _heading(f"Rail-optimised fabric: {node_name}'s eight GPUs to eight leaf switches", FABRIC_WIDTH)
    part, y = paragraph(10, y + 2, "GPU N reaches the fabric through its own NIC, cabled to the leaf switch of "
                        "rail N.", FABRIC_WIDTH - 20, 11)
    body += part
    y += 8
    for x, head in ((4, "GPU"), (72, "HCA, netdev, rate"), (226, "Leaf, port")):
        body.append(text(x, y, head, 11, bold=True))
    y += 8
    for nic in rails:
        bad = fault is not None and nic.name == fault[1]
        gpu = gpus.get(nic.rail)
        body += labelled_box(4, y, 58, 34, [f"GPU{nic.rail}", gpu.pci_bus_id[-7:] if gpu else ""], size=11)
        rate = f"{nic.rate_gbps} Gb/s {nic.width}" + (f" (of {nic.max_rate_gbps})" if nic.rate_gbps < nic.max_rate_gbps
                                                         else "")
        body += labelled_box(72, y, 144, 34, [f"{nic.name} · {nic.netdev}", rate], "hot-box" if bad else "box", 11)
        body += labelled_box(226, y, 100, 34, [nic.peer_switch, f"port {nic.peer_port}"],
                             "hot-box" if bad else "accent-box", 11)
        body.append(line(62, y + 17, 72, y + 17))
        body.append(line(216, y + 17, 226, y + 17, "hot" if bad else "accent", 3 if bad else 1.6, dashed=bad))
        y += 42
    if fault:
        nic = node.nic(fault[1])
        part, y = paragraph(10, y + 8, f"Marked: {node_name} {nic.name} trained at {nic.rate_gbps} Gb/s {nic.width} "
                            f"while its neighbours run at {nic.max_rate_gbps} Gb/s.", FABRIC_WIDTH - 20, 11, True,
                            "hot-ink")
        body += part
    spines = [s for s, (kind, _) in cluster.switches.items() if kind == "spine"]  # type: ignore[attr-defined]
    part, y = paragraph(10, y + 8, f"Every leaf also uplinks to the spine switches ({', '.join(spines)}).",
                        FABRIC_WIDTH - 20, 11)
    return body + part, y + 4


def node(cluster: object, node_name: str) -> Drawing:
    """An HGX node as rows: each GPU, its PCIe switch and NIC, beside its CPU socket; the NVSwitches above."""
    node = cluster.node(node_name)  # type: ignore[attr-defined]
    gpus = sorted(node.gpus, key=lambda g: g.index)
    nics = {nic.pcie_switch: nic for nic in node.nics}
    switches = sorted({link.switch for g in gpus for link in g.nvlinks})
    body, y = _heading(f"{node_name}: NVLink domain and PCIe/NUMA layout")
    sw_w = (WIDTH - 36) / len(switches)
    for i, sw in enumerate(switches):
        body += labelled_box(26 + i * sw_w + 2, y, sw_w - 4, 34, ["NVSwitch", str(sw)], "accent-box", 11)
    bar_top = y + 17
    body.append(line(14, bar_top, 28, bar_top, "accent", 1.6))
    y += 48
    for x, head in ((26, "GPU"), (96, "PCIe"), (160, "NIC"), (234, "CPU socket")):
        body.append(text(x, y, head, 11, bold=True))
    y += 8
    rows: dict[int, float] = {}
    for g in gpus:
        rows[g.index] = y
        body += labelled_box(26, y, 62, 34, [f"GPU{g.index}", f"NV{len(g.nvlinks)}"], size=11)
        body.append(line(14, y + 17, 26, y + 17, "accent", 1.6))
        body += labelled_box(96, y, 56, 34, ["PCIe", "switch"], size=11, bold_first=False)
        body.append(line(88, y + 17, 96, y + 17))
        nic = nics.get(g.pcie_switch)
        if nic:
            body += labelled_box(160, y, 66, 34, [f"NIC{int(nic.name.split('_')[1])}", nic.name], size=11)
            body.append(line(152, y + 17, 160, y + 17))
        body.append(line(226, y + 17, 234, y + 17, dashed=True))
        y += 42
    body.append(line(14, bar_top, 14, rows[gpus[-1].index] + 17, "accent", 1.6))
    for numa in range(node.numa_nodes):
        members = [g.index for g in gpus if g.numa_node == numa]
        top, bottom = rows[min(members)], rows[max(members)] + 34
        storage = [nic.name for nic in node.nics if nic.role == "storage" and nic.numa_node == numa]
        words = [f"CPU socket {numa}", f"NUMA {numa}", f"CPUs {node.cpu.cpus_of_numa(numa).replace(',', ', ')}",
                 *([f"storage NIC {', '.join(storage)}"] if storage else [])]
        body += labelled_box(234, top, 110, bottom - top, fit(words, 98, 11), "box", 11)
    part, y = paragraph(10, y + 10, "Blue: each GPU's NVLinks to the NVSwitches above. Between the sockets: the CPU "
                        "interconnect (SYS in nvidia-smi topo -m). Every GPU pair: NV18, through all four NVSwitches.",
                        WIDTH - 20, 11)
    return body + part, y + 4


def checkpoint(cluster: object) -> Drawing:
    """One save on a shorter stretch of steps: synchronous above asynchronous, on one axis."""
    from tools.figures import checkpoint_profiles

    run = cluster.training  # type: ignore[attr-defined]
    sync, asyn = checkpoint_profiles(cluster)
    step, write = sync.step_s, sync.checkpoint_write_s
    before, after = 1, 2
    span = (before + after) * step + sync.checkpoint_stall_s
    left, right = 10, WIDTH - 10

    def x(seconds: float) -> float:
        return left + seconds / span * (right - left)

    body, y = _heading(f"Checkpoint save of job {run.job_id} ({run.name}): synchronous against asynchronous")
    lanes = (("Synchronous", sync, y + 22), ("Asynchronous", asyn, y + 104))
    for label, prof, top in lanes:
        body.append(text(left, top - 6, label, 12, bold=True))
        t = 0.0
        for i in range(before + after):
            if i == before:
                stall = prof.checkpoint_stall_s
                body.append(rect(x(t), top, max(x(t + stall) - x(t), 3), 32, "hot-box", 2, 2))
                if x(t + stall) - x(t) > 80:
                    body.append(text((x(t) + x(t + stall)) / 2, top + 21, f"save {stall:.1f} s", 11, "middle",
                                     True, "hot-ink"))
                else:
                    body.append(text(right, top - 6, f"snapshot {stall:.2f} s", 11, "end", cls="hot-ink"))
                if prof is asyn:
                    body.append(rect(x(t + stall), top + 38, x(t + stall + write) - x(t + stall), 20, "accent-box", 2))
                    body.append(text(x(t + stall) + 4, top + 52, f"background write {write:.1f} s", 11))
                t += stall
            body += labelled_box(x(t) + 1, top, x(t + step) - x(t) - 2, 32, [f"{step:.2f} s"], size=11,
                                 bold_first=False)
            t += step
    axis_y = y + 206
    body.append(line(left, axis_y, right, axis_y))
    for second in range(0, int(span) + 1, 5):
        body.append(line(x(second), axis_y, x(second), axis_y + 5))
        body.append(text(x(second), axis_y + 18, f"{second} s", 11, "middle"))
    saved = sync.checkpoint_stall_s - asyn.checkpoint_stall_s
    ahead = x(before * step + asyn.checkpoint_stall_s + after * step)
    done = x(before * step + sync.checkpoint_stall_s + after * step)
    body.append(arrow(ahead, y + 180, done, y + 180, "accent"))
    body.append(text(ahead - 4, y + 184, f"{saved:.1f} s ahead", 11, "end"))
    part, bottom = paragraph(left, axis_y + 40, f"Boxes are steps of {step:.2f} s. The asynchronous save gives back "
                             f"{saved:.1f} s of every rank's time per save, every {run.checkpoint_every} steps.",
                             WIDTH - 20, 11, bold=True)
    return body + part, bottom + 4


def _gpu_grid(x: float, y: float, node: str) -> tuple[list[str], list[tuple[float, float]]]:
    """A node's frame with its eight GPUs in two rows of four, in ring order: 0-3 left to right, then 4-7 back
    (a snake); the centre of each GPU."""
    body = labelled_box(x, y, WIDTH - 2 * x, 124, [""], "box")
    body.append(text(x + 8, y + 16, node, 12, bold=True))
    centres = []
    for i in range(8):
        col = i if i < 4 else 7 - i
        gx, gy = x + 14 + col * 80, y + 26 + (i // 4) * 54
        body += labelled_box(gx, gy, 52, 34, [f"GPU{i}"], "accent-box", 11, bold_first=False)
        centres.append((gx + 26, gy + 17))
    return body, centres


def ring() -> Drawing:
    """One ring channel over two stacked nodes: NVLink hops round each node, network hops between them."""
    body, y = _heading("Ring: every rank receives from one neighbour and sends to the next")
    grids = []
    for i, node in enumerate(("node01", "node02")):
        part, centres = _gpu_grid(16, y + i * 160, node)
        body += part
        grids.append(centres)
        for (ax, ay), (bx, by) in zip(centres, centres[1:], strict=False):
            if ay == by:
                step = 26 if bx > ax else -26
                body.append(arrow(ax + step, ay, bx - step, by, "accent"))
            else:
                body.append(arrow(ax, ay + 17, bx, by - 17, "accent"))
    (ax, ay), (bx, by) = grids[0][7], grids[1][0]
    body.append(arrow(ax, ay + 17, bx, by - 17, "hot"))
    body.append(text(ax + 8, (ay + by) / 2 + 4, "node01 GPU7 → mlx5_7 → fabric → node02", 11, cls="hot-ink"))
    (cx, cy), (dx, dy) = grids[1][7], grids[0][0]
    body.append(line(cx - 26, cy, 8, cy, "hot", 1.4))
    body.append(line(8, cy, 8, dy, "hot", 1.4))
    body.append(arrow(8, dy, dx - 26, dy, "hot"))
    bottom = y + 160 + 124
    part, bottom = paragraph(10, bottom + 20, "Red, left: node02 GPU7 back to node01 GPU0 over the network, closing "
                             "the ring. Blue: NVLink through the NVSwitches. An all-reduce takes 2(n−1) steps, each "
                             "hop carrying 1/n of the data, so the whole ring runs at the pace of its slowest hop. "
                             "NCCL runs several rings (channels) at once.", WIDTH - 20, 11)
    return body + part, bottom + 4


def tree() -> Drawing:
    """The tree between four nodes, each node's chain inside its box, narrower."""
    body, y = _heading("Tree: a chain inside each node, a binary tree between nodes")
    places = {"node01": (95, y), "node02": (6, y + 110), "node03": (184, y + 110), "node04": (184, y + 220)}
    heads = {}
    for name, (x, top) in places.items():
        body += labelled_box(x, top, 160, 64, fit([name, "GPU0 → GPU1 → … → GPU7", "chain over NVLink"], 150, 11),
                             "accent-box", 11)
        heads[name] = (x + 80, top)
    for parent, child in (("node01", "node02"), ("node01", "node03"), ("node03", "node04")):
        px, py = heads[parent]
        cx, cy = heads[child]
        body.append(arrow(cx, cy, px, py + 64, "hot"))
    part, bottom = paragraph(10, y + 310, "Reduce: partial sums flow up the red network edges to the root (node01), "
                             "then the result is broadcast back down. NCCL builds two such trees, each node a leaf in "
                             "one and an inner node in the other, so both halves of the data move at once; a tree "
                             "needs log2(nodes) network steps where a ring needs one per node.", WIDTH - 20, 11)
    return body + part, bottom + 4


def nvls() -> Drawing:
    """The NVSwitch domain above the node's eight GPUs, narrower."""
    body, y = _heading("NVLS (NVLink SHARP): the NVSwitches do the adding")
    body += labelled_box(10, y, WIDTH - 20, 46, ["NVSwitch domain (4 NVSwitches)", "reduces in the switch, "
                                                "multicasts the result"], "hot-box", 11)
    gpu_y = y + 130
    for i in range(8):
        x = 6 + i * 43
        body += labelled_box(x, gpu_y, 39, 34, [f"GPU{i}"], "accent-box", 11, bold_first=False)
        body.append(arrow(x + 11, gpu_y, x + 11, y + 46, "accent"))
        body.append(arrow(x + 28, y + 46, x + 28, gpu_y, "hot"))
    part, bottom = paragraph(10, gpu_y + 58, "Blue: each GPU sends its data once. Red: the switch returns the sum to "
                             "every GPU at once. Each GPU moves its data about once instead of twice as in a ring, "
                             "which is why NVLS all-reduce bus bandwidth can exceed the NVLink line rate.",
                             WIDTH - 20, 11)
    return body + part, bottom + 4


#: kind → phone layout of a figure that is not of one cluster.
DIAGRAMS: dict[str, Callable[[], Drawing]] = {"ring": ring, "tree": tree, "nvls": nvls}

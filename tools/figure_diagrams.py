"""Figures of the handbook that show a method rather than one cluster: NCCL's data paths, the remediation ladder.

They are drawn with the same primitives as the model's figures
(:mod:`tools.svg_kit`), on an HGX H100 node of the emulator's catalog
(eight GPUs, one NVSwitch domain, one rail NIC per GPU). ``KINDS`` maps a
figure kind of ``tools/figures.py`` to its drawing function.
"""

from __future__ import annotations

from collections.abc import Callable

from tools.svg_kit import arrow, labelled_box, line, svg, text

GPUS = 8
NODES = ("node01", "node02", "node03", "node04")


def _node_row(x: float, y: float, node: str, gpu_w: float = 34, gap: float = 14) -> tuple[list[str], list[float]]:
    """A node's frame and its eight GPUs in a row; the centre x of each GPU."""
    width = GPUS * gpu_w + (GPUS - 1) * gap + 20
    body = labelled_box(x, y, width, 74, [""], "box")
    body.append(text(x + 10, y + 16, node, 12, bold=True))
    centres = []
    for i in range(GPUS):
        gx = x + 10 + i * (gpu_w + gap)
        body += labelled_box(gx, y + 28, gpu_w, 34, [f"GPU{i}"], "accent-box", 10, bold_first=False)
        centres.append(gx + gpu_w / 2)
    return body, centres


def _caption(y: float, lines: tuple[str, ...]) -> list[str]:
    """A caption under a drawing: lines of 12-point text from the left margin, one every 16 px down from ``y``."""
    return [text(20, y + 16 * i, body, 12) for i, body in enumerate(lines)]


def ring_svg(name: str) -> str:
    """One ring channel over two nodes: NVLink hops inside a node, one network hop between nodes."""
    body = [text(20, 28, "Ring: every rank receives from one neighbour and sends to the next", 15, bold=True)]
    rows = []
    for i, node in enumerate(NODES[:2]):
        part, centres = _node_row(20 + i * 440, 50, node)
        body += part
        rows.append(centres)
        for a, b in zip(centres, centres[1:], strict=False):
            body.append(arrow(a + 17, 95, b - 17, 95, "accent"))
    body.append(arrow(rows[0][-1], 124, rows[1][0], 124, "hot"))
    body.append(line(rows[0][-1], 112, rows[0][-1], 124, "hot", 1.4))
    body.append(line(rows[1][0], 112, rows[1][0], 124, "hot", 1.4))
    body.append(text((rows[0][-1] + rows[1][0]) / 2, 144, "node01 GPU7 → mlx5_7 → fabric → node02", 11, "middle",
                     cls="hot-ink"))
    body.append(line(rows[1][-1], 112, rows[1][-1], 170, "hot", 1.4))
    body.append(line(rows[1][-1], 170, rows[0][0], 170, "hot", 1.4))
    body.append(arrow(rows[0][0], 170, rows[0][0], 114, "hot"))
    body.append(text(450, 188, "…and node02 GPU7 back to node01 GPU0 over the network, closing the ring.", 11,
                     "middle", cls="hot-ink"))
    body += _caption(214, ("Blue: NVLink through the NVSwitches. Red: a network hop through a rail NIC. An "
                           "all-reduce takes 2(n−1) steps, each hop carrying",
                           "1/n of the data, so the whole ring runs at the pace of its slowest hop. NCCL runs "
                           "several rings (channels) at once."))
    desc = ("Two nodes of eight GPUs. Inside each node the ring goes GPU0 to GPU1 and on to GPU7 over NVLink. "
            "node01 GPU7 sends to node02 over its rail NIC and the fabric; node02 GPU7 sends back to node01 GPU0, "
            "closing the ring. An all-reduce over n ranks takes 2(n-1) steps, so the slowest hop sets the pace.")
    return svg(name, 900, 244, "NCCL ring all-reduce: data path over two nodes", desc, body)


def tree_svg(name: str) -> str:
    """A tree across nodes, a chain inside each node: reduce up to the root, broadcast back down."""
    body = [text(20, 28, "Tree: a chain inside each node, a binary tree between nodes", 15, bold=True)]
    places = {"node01": (330, 50), "node02": (100, 170), "node03": (560, 170), "node04": (560, 290)}
    heads = {}
    for node, (x, y) in places.items():
        body += labelled_box(x, y, 230, 66, [node, "GPU0 → GPU1 → … → GPU7", "chain over NVLink"], "accent-box",
                             11)
        heads[node] = (x + 115, y)
    for parent, child in (("node01", "node02"), ("node01", "node03"), ("node03", "node04")):
        px, py = heads[parent]
        cx, cy = heads[child]
        body.append(arrow(cx, cy, px, py + 66, "hot"))
    body += _caption(250, ("Reduce: partial sums flow up the red", "network edges to the root (node01),",
                           "then the result is broadcast back down."))
    body += _caption(380, ("NCCL builds two such trees, each node a leaf in one and an inner node in the other, "
                           "so both halves of the data",
                           "move at once; a tree needs log2(nodes) network steps where a ring needs one per node."))
    desc = ("Four nodes. Inside each node the GPUs form a chain over NVLink. Between nodes the chains are joined in a "
            "binary tree: node01 is the root with children node02 and node03, node04 is below node03. Partial sums "
            "travel up to the root and the result is broadcast back down. NCCL uses two complementary trees so that "
            "every node sends and receives at full bandwidth.")
    return svg(name, 900, 410, "NCCL tree all-reduce: data path over four nodes", desc, body)


def nvls_svg(name: str) -> str:
    """NVLink SHARP: the NVSwitches add the GPUs' data and multicast the sum back."""
    body = [text(20, 28, "NVLS (NVLink SHARP): the NVSwitches do the adding", 15, bold=True)]
    body += labelled_box(180, 50, 540, 50, ["NVSwitch domain (4 NVSwitches)", "reduces in the switch, multicasts "
                                            "the result"], "hot-box", 12)
    for i in range(GPUS):
        x = 60 + i * 100
        body += labelled_box(x, 180, 80, 40, [f"GPU{i}"], "accent-box", 12)
        body.append(arrow(x + 28, 180, 180 + 540 * (i + 0.3) / GPUS, 100, "accent"))
        body.append(arrow(180 + 540 * (i + 0.7) / GPUS, 100, x + 52, 180, "hot"))
    body += _caption(250, ("Blue: each GPU sends its data once. Red: the switch returns the sum to every GPU at "
                           "once. Each GPU moves its data about once",
                           "instead of twice as in a ring, which is why NVLS all-reduce bus bandwidth can exceed "
                           "the NVLink line rate."))
    desc = ("Eight GPUs of one HGX node under the NVSwitch domain. Each GPU sends its buffer up to the NVSwitches, "
            "which add the buffers in the switch and multicast the sum back to all eight GPUs. NCCL selects NVLS for "
            "all-reduce on NVSwitch systems with more than four GPUs.")
    return svg(name, 900, 280, "NCCL NVLS all-reduce: data path inside one node", desc, body)


#: The remediation ladder: (kind, lines) per rung, from the least to the most disruptive.
LADDER = (
    ("step", ["Drain the node", "scontrol update nodename=N state=drain reason=\"…\""]),
    ("step", ["Keep the evidence", "nvidia-smi -q, dmesg -T (Xid), dcgmi health -c, nvidia-bug-report.sh"]),
    ("ask", ["Reset Required or remap pending, the GPU still on the bus,", "and no process using it?"]),
    ("step", ["Reset the GPU", "nvidia-smi -r -i GPU"]),
    ("step", ["Reboot the node, keep it out of service", "scontrol reboot nextstate=DOWN N"]),
    ("ask", ["dcgmi diag -r 3 passes, and the", "error does not come back?"]),
    ("step", ["Return to service", "scontrol update nodename=N state=resume"]),
    ("hot", ["Replace the part", "RMA with the bug report and the diag log"]),
)


def ladder_svg(name: str) -> str:
    """The remediation ladder as a decision diagram: the least disruptive fix first, a test before return."""
    body = [text(20, 28, "Remediation ladder for a suspect GPU: least disruptive first, test before return", 15,
                 bold=True)]
    x, w, h, gap = 200, 500, 46, 24
    y = 48
    centres: dict[int, float] = {}
    for i, (kind, lines) in enumerate(LADDER):
        cls = {"step": "box", "ask": "accent-box", "hot": "hot-box"}[kind]
        if i == 6:      # "return to service" and "replace" side by side
            body += labelled_box(40, y, 380, h, lines, cls, 12)
            centres[i] = y
            continue
        if i == 7:
            body += labelled_box(480, centres[6], 380, h, lines, cls, 12)
            continue
        body += labelled_box(x, y, w, h, lines, cls, 12)
        centres[i] = y
        if i < 5 and i != 3:    # after a reset, the path goes to the diagnostics (drawn below)
            body.append(arrow(x + w / 2, y + h, x + w / 2, y + h + gap))
        y += h + gap
    ask1, reset, reboot, ask2, ret = centres[2], centres[3], centres[4], centres[5], centres[6]
    body.append(text(x + w / 2 + 8, ask1 + h + 16, "yes", 12, bold=True))
    body.append(line(x + w, ask1 + h / 2, x + w + 60, ask1 + h / 2))
    body.append(line(x + w + 60, ask1 + h / 2, x + w + 60, reboot + h / 2))
    body.append(arrow(x + w + 60, reboot + h / 2, x + w, reboot + h / 2))
    body.append(text(x + w + 66, ask1 + h / 2 + 40, "no", 12, bold=True))
    body.append(line(x - 40, reset + h / 2, x, reset + h / 2))
    body.append(line(x - 40, reset + h / 2, x - 40, ask2 + h / 2))
    body.append(arrow(x - 40, ask2 + h / 2, x, ask2 + h / 2))
    body.append(text(x - 34, reset + h + 20, "after the reset", 11))
    body.append(arrow(x + w / 4, ask2 + h, 230, ret, "accent"))
    body.append(text(x + w / 4 - 36, ask2 + h + 18, "yes", 12, bold=True))
    body.append(arrow(x + 3 * w / 4, ask2 + h, 670, ret, "hot"))
    body.append(text(x + 3 * w / 4 + 8, ask2 + h + 18, "no", 12, bold=True))
    height = ret + h + 20
    desc = ("Drain the node, then keep the evidence (nvidia-smi -q, the kernel log's Xid lines, dcgmi health, "
            "nvidia-bug-report.sh). If the GPU reports Reset Required or a pending row remap, is still on the bus "
            "and no process uses it, reset the GPU with nvidia-smi -r; otherwise reboot the node with scontrol "
            "reboot nextstate=DOWN so that it does not return to service on its own. Then run dcgmi diag -r 3: if it "
            "passes and the error does not come back, resume the node; if not, replace the part (RMA) with the bug "
            "report and the diagnostic log.")
    return svg(name, 900, int(height), "The remediation ladder for a suspect GPU, as a decision diagram", desc, body)


KINDS: dict[str, Callable[[str], str]] = {"ring": ring_svg, "tree": tree_svg, "nvls": nvls_svg,
                                          "ladder": ladder_svg}

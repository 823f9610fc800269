"""Figures of the handbook that show a method rather than one cluster: NCCL's data paths, the remediation ladder.

They are drawn with the same primitives as the model's figures
(:mod:`tools.svg_kit`), on an HGX H100 node of the emulator's catalog
(eight GPUs, one NVSwitch domain, one rail NIC per GPU). ``KINDS`` maps a
figure kind of ``tools/figures.py`` to its drawing function.
"""

from __future__ import annotations

from collections.abc import Callable

from emulator.cluster.remediation import AFTER_FIX, ANSWERS, LADDER, RUNGS, Rung
from tools.svg_kit import arrow, fit, labelled_box, line, paragraph, svg, text

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


def _ladder_box(rung: Rung, x: float, y: float, w: float, size: int) -> tuple[list[str], float]:
    """A rung as a box of its title and detail wrapped to ``w``; the box's parts and its height."""
    lines = fit([rung.title], w - 12, size, bold=True) + fit([rung.detail], w - 12, size)
    h = len(lines) * (size + 2) + 16
    cls = {"step": "box", "ask": "accent-box", "last": "hot-box"}[rung.kind]
    return labelled_box(x, y, w, h, lines, cls, size), h


def ladder_svg(name: str, width: int = 900) -> str:
    """The remediation ladder (:data:`emulator.cluster.remediation.LADDER`) as a decision diagram: the least
    disruptive fix first, a test before the return; ``width`` 350 lays it out for a phone."""
    narrow = width < 600
    size = 11 if narrow else 12
    margin = 28 if narrow else 200
    w, gap = width - 2 * margin, 26
    left_path, right_path = margin - (16 if narrow else 40), margin + w + (16 if narrow else 60)
    heading = "Remediation ladder for a suspect GPU: least disruptive first, test before return"
    body, y = paragraph(20 if not narrow else 10, 28, heading, width - 20, 15 if not narrow else 14, bold=True)
    y += 8
    top: dict[str, float] = {}
    tall: dict[str, float] = {}
    resettable, passes = ANSWERS["resettable"], ANSWERS[AFTER_FIX]
    stack = [r for r in LADDER if r.key not in passes]
    for i, rung in enumerate(stack):
        part, h = _ladder_box(rung, margin, y, w, size)
        body += part
        top[rung.key], tall[rung.key] = y, h
        nxt = stack[i + 1].key if i + 1 < len(stack) else ""
        if nxt and rung.key != resettable[0]:   # after a reset, the path goes round to the test (drawn below)
            body.append(arrow(margin + w / 2, y + h, margin + w / 2, y + h + gap))
        y += h + gap

    def mid(key: str) -> float:
        return top[key] + tall[key] / 2

    ask, yes, no = "resettable", resettable[0], resettable[1]
    body.append(text(margin + w / 2 + 8, top[yes] - 8, "yes", 12, bold=True))
    body.append(line(margin + w, mid(ask), right_path, mid(ask)))
    body.append(line(right_path, mid(ask), right_path, mid(no)))
    body.append(arrow(right_path, mid(no), margin + w, mid(no)))
    if narrow:      # between the box and the path, above the line
        body.append(text(margin + w + 1, mid(ask) - 4, "no", 12, bold=True))
    else:
        body.append(text(right_path + 6, (mid(ask) + mid(no)) / 2, "no", 12, bold=True))
    body.append(line(margin, mid(yes), left_path, mid(yes)))
    body.append(line(left_path, mid(yes), left_path, mid(AFTER_FIX)))
    body.append(arrow(left_path, mid(AFTER_FIX), margin, mid(AFTER_FIX)))
    if not narrow:
        body.append(text(left_path + 6, top[yes] + tall[yes] + 20, "after the reset", 11))
    half = (width - 30) / 2 if narrow else 380
    places = ((10, passes[0], "accent", "yes"), (20 + half, passes[1], "hot", "no")) if narrow else \
        ((40, passes[0], "accent", "yes"), (480, passes[1], "hot", "no"))
    below = top[AFTER_FIX] + tall[AFTER_FIX]
    bottom = 0.0
    for x, key, cls, answer in places:
        part, h = _ladder_box(RUNGS[key], x, y, half, size)
        body += part
        bottom = max(bottom, y + h)
        start = margin + w / 4 if answer == "yes" else margin + 3 * w / 4
        body.append(arrow(start, below, x + half / 2, y, cls))
        body.append(text(start + (8 if answer == "no" else -30), below + 16, answer, 12, bold=True))
    desc = (f"{' '.join(f'{r.title} ({r.detail}).' for r in LADDER[:2])} Then: {_ask(RUNGS[ask])} If yes: "
            f"{_step(RUNGS[yes])}; if no: {_step(RUNGS[no])}. After either: {_ask(RUNGS[AFTER_FIX])} If yes: "
            f"{_step(RUNGS[passes[0]])}; if no: {_step(RUNGS[passes[1]])}.")
    return svg(name, width, int(bottom + 20), "The remediation ladder for a suspect GPU, as a decision diagram",
               desc, body)


def _ask(rung: Rung) -> str:
    return f"{rung.title} {rung.detail}"


def _step(rung: Rung) -> str:
    return f"{rung.title[0].lower()}{rung.title[1:]} ({rung.detail})"


#: kind → drawing function (name, and for a kind of ``tools.figures.NARROW_KINDS`` a width).
KINDS: dict[str, Callable[..., str]] = {"ring": ring_svg, "tree": tree_svg, "nvls": nvls_svg,
                                          "ladder": ladder_svg}

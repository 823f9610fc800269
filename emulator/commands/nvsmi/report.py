"""``nvidia-smi -q`` and ``nvidia-smi -q -x``: one tree of a GPU's state, two renderings.

:func:`emulator.commands.nvsmi.report_tree.gpu_entries` builds the report
once from a :class:`GpuView`; :func:`text_lines` renders the ``name : value``
report, :func:`xml_log` the ``<nvidia_smi_log>`` document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.commands.nvsmi.query import GpuView
from emulator.commands.nvsmi.report_items import DISPLAY, FULL, XML, Item
from emulator.commands.nvsmi.report_tree import gpu_entries

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node


def escape(text: str) -> str:
    """``text`` as XML character data (what ``xml.sax.saxutils.escape`` does, without importing urllib,
    http and email with it: a third of a second in the browser)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    """``text`` as a double-quoted XML attribute value."""
    return '"' + escape(text).replace('"', "&quot;") + '"'


# -- text -------------------------------------------------------------------------------


def report_header(cluster: Cluster, node: Node, timestamp: str) -> list[str]:
    """The lines before the first GPU of ``nvidia-smi -q``."""
    return ["==============NVSMI LOG==============", "",
            _kv(0, "Timestamp", timestamp), _kv(0, "Driver Version", cluster.versions.driver),
            _kv(0, "CUDA Version", cluster.versions.cuda), "", _kv(0, "Attached GPUs", len(node.gpus))]


def _kv(depth: int, name: str, value: object) -> str:
    """``name : value`` with the colon at column 42."""
    return f"{'    ' * depth}{name}".ljust(42) + f": {value}"


def text_lines(view: GpuView, sections: set[str] | None) -> list[str]:
    """The ``GPU <bus id>`` block of ``-q``; ``sections`` limits it to the ``-d`` types."""
    lines = [f"GPU {view.gpu.pci_bus_id}"]
    for entry in gpu_entries(view):
        if sections is None and FULL in entry.where or (
                sections is not None and DISPLAY in entry.where and set(entry.display.split()) & sections):
            _text(entry.item, 1, lines)
    return lines


def _text(item: Item, depth: int, lines: list[str]) -> None:
    if item.only == "xml":
        return
    at = depth + item.indent
    if item.children is None:
        if item.label is not None:
            lines.append(_kv(at, item.label, item.value) if item.value is not None else f"{'    ' * at}{item.label}")
        return
    if item.label is not None:
        lines.append(f"{'    ' * at}{item.label}")
        at += 1
    for child in item.children:
        _text(child, at, lines)


# -- XML --------------------------------------------------------------------------------


def xml_log(cluster: Cluster, node: Node, timestamp: str, views: list[GpuView | str]) -> str:
    """The ``nvidia-smi -q -x`` document for ``views`` (the GPUs asked for).

    A string in ``views`` stands for a GPU the driver lost: like ``-q``, the
    document carries its handle error on a line of its own where the
    ``<gpu>`` element would be, and goes on with the others.
    """
    v = cluster.versions
    lines = ['<?xml version="1.0" ?>', '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">', "<nvidia_smi_log>",
             f"\t<timestamp>{escape(timestamp)}</timestamp>", f"\t<driver_version>{v.driver}</driver_version>",
             f"\t<cuda_version>{v.cuda}</cuda_version>", f"\t<attached_gpus>{len(node.gpus)}</attached_gpus>"]
    for n, view in enumerate(views):
        if isinstance(view, str):
            lines.append(view)
            continue
        lines.append(f"\t<gpu id={quoteattr(view.gpu.pci_bus_id)}>")
        for entry in gpu_entries(view):
            if XML in entry.where:
                _xml(entry.item, 2, lines)
        lines.append("\t</gpu>")
        if any(not isinstance(later, str) for later in views[n + 1:]):
            lines.append("")
    lines.append("</nvidia_smi_log>")
    return "\n".join(lines) + "\n"


def _xml(item: Item, depth: int, lines: list[str]) -> None:
    if item.only == "text" or item.tag is None:
        return
    pad = "\t" * depth
    if item.children is None:
        value = item.xml_value if item.xml_value is not None else item.value
        lines.append(f"{pad}<{item.tag}>{escape(str(value))}</{item.tag}>")
        return
    lines.append(f"{pad}<{item.tag}>")
    for child in item.children:
        _xml(child, depth + 1, lines)
    lines.append(f"{pad}</{item.tag}>")

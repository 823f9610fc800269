"""``lspci -t``: the PCI hierarchy drawn as pciutils' ``ls-tree.c`` draws it.

Root buses hang off the host bridge, highest bus first; a bridge is followed
by its bus range ``-[16-1b]-`` and the devices on its secondary bus; one
device on a bus is joined with ``--``, several with ``+-`` and a last
``\\-``. After each printed line every character of the line so far turns
into a blank, except ``+`` and ``|`` which become ``|``, so the branches of
the rows below line up under their parents.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol


class Function(Protocol):
    """What the tree needs of a PCI function (``host.PciDev`` provides it)."""

    @property
    def bus(self) -> str: ...            # "1b:00.0"

    @property
    def bus_number(self) -> int: ...

    @property
    def secondary(self) -> int: ...      # -1 unless a bridge

    @property
    def subordinate(self) -> int: ...


class _Tree:
    def __init__(self, devs: Sequence[Function], label: Callable[[Any], str] | None) -> None:
        self.label = label
        self.lines: list[str] = []
        self.buf: list[str] = []
        self.on_bus: dict[int, list[Function]] = {}
        for dev in sorted(devs, key=lambda d: d.bus):
            self.on_bus.setdefault(dev.bus_number, []).append(dev)
        behind = {bus for d in devs if d.secondary >= 0 for bus in range(d.secondary, d.subordinate + 1)}
        self.roots = sorted((b for b in self.on_bus if b not in behind), reverse=True)

    def write(self, at: int, text: str) -> int:
        del self.buf[at:]
        self.buf.extend(text)
        return at + len(text)

    def print_it(self, at: int) -> None:
        del self.buf[at:]
        self.lines.append("".join(self.buf))
        self.buf = ["|" if c in "+|" else " " for c in self.buf]

    def device(self, dev: Function, at: int) -> None:
        at = self.write(at, dev.bus[3:])
        if dev.secondary >= 0:
            span = f"{dev.secondary:02x}" if dev.secondary == dev.subordinate else \
                f"{dev.secondary:02x}-{dev.subordinate:02x}"
            at = self.write(at, f"-[{span}]--")
            self.bus(dev.secondary, at)
            return
        if self.label is not None:
            at = self.write(at, "  " + self.label(dev))
        self.print_it(at)

    def bus(self, number: int, at: int) -> None:
        devs = self.on_bus.get(number, [])
        if not devs:
            self.print_it(at)
        elif len(devs) == 1:
            self.device(devs[0], self.write(at, "--"))
        else:
            for dev in devs[:-1]:
                self.device(dev, self.write(at, "+-"))
            self.device(devs[-1], self.write(at, "\\-"))

    def host(self) -> str:
        at = self.write(0, "-")
        if len(self.roots) == 1:
            self.bus(self.roots[0], self.write(at, f"[0000:{self.roots[0]:02x}]-"))
        else:
            for root in self.roots[:-1]:
                self.bus(root, self.write(at, f"+-[0000:{root:02x}]-"))
            self.bus(self.roots[-1], self.write(at, f"\\-[0000:{self.roots[-1]:02x}]-"))
        return "\n".join(self.lines) + "\n"


def render(devs: Sequence[Function], label: Callable[[Any], str] | None = None) -> str:
    """The tree of ``devs``; ``label`` names each non-bridge device (``-tv``)."""
    if not devs:
        return ""
    return _Tree(devs, label).host()

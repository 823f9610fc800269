"""``dcgmi discovery -l`` and ``dcgmi group -l``: the GPUs and NVSwitches the host engine sees, and its groups."""

from __future__ import annotations

from emulator.cluster.catalog import H100
from emulator.cluster.model import Node
from emulator.commands.dcgm.options import HELP_FLAG, parse_options
from emulator.commands.dcgm.render import wrap_cells
from emulator.commands.kit.command import Context
from emulator.commands.kit.spec import Flag

#: The flags of ``discovery`` and of ``group``.
LIST_FLAGS = (HELP_FLAG, Flag("-l", "--list", "", "list them"))


def discovery(node: Node) -> str:
    gpus = [g for g in node.gpus if g.present]
    rule = "+--------+----------------------------------------------------------------------+"
    lines = [f"{len(gpus)} GPUs found.", rule, "| GPU ID | Device Information                                                   |", rule]
    for gpu in gpus:
        for i, text in enumerate((f"Name: {H100.name}", f"PCI Bus ID: {gpu.pci_bus_id}", f"Device UUID: {gpu.uuid}")):
            lines.append(f"| {str(gpu.index) if i == 0 else '':<7}| {text:<69}|")
        lines.append(rule)
    switches = [8 + k for k in (2, 0, 3, 1)][: node.hw.nvswitches]
    lines += [f"{len(switches)} NvSwitches found.", "+-----------+", "| Switch ID |", "+-----------+"]
    lines += [f"| {s:<10}|" for s in switches]
    lines.append("+-----------+")
    return "\n".join(lines) + "\n"


def groups(node: Node) -> str:
    """``dcgmi group -l``: the two default groups DCGM creates, all GPUs and all NVSwitches."""
    rule = "+-------------------+----------------------------------------------------------+"
    lines = [rule, f"| {'GROUPS':<77}|", f"| {'2 groups found.':<77}|",
             "+===================+==========================================================+"]

    def row(left: str, text: str) -> None:
        for i, chunk in enumerate(wrap_cells(text, 56) if text else [""]):
            lines.append(f"| {left if i == 0 else '':<18}| {chunk:<57}|")

    gpus = ", ".join(f"GPU {g.index}" for g in node.gpus if g.present)
    switches = ", ".join(f"NvSwitch {8 + k}" for k in range(node.hw.nvswitches))
    row("Groups", "")
    for gid, name, members in ((0, "DCGM_ALL_SUPPORTED_GPUS", gpus), (1, "DCGM_ALL_SUPPORTED_NVSWITCHES", switches)):
        row(f"-> {gid}", "")
        row("   -> Group ID", str(gid))
        row("   -> Group Name", name)
        row("   -> Entities", members)
    lines.append(rule)
    return "\n".join(lines) + "\n"


def run_discovery(ctx: Context, argv: list[str]) -> int:
    opts = parse_options(ctx, "discovery", argv, LIST_FLAGS)
    if "h" in opts or "help" in opts or not ({"l", "list"} & set(opts)):
        ctx.out(" discovery -- Used to discover and identify GPUs and their attributes.\n\n"
                " Usage: dcgmi discovery -l\n")
        return 0
    ctx.out(discovery(ctx.host))
    return 0


def run_group(ctx: Context, argv: list[str]) -> int:
    opts = parse_options(ctx, "group", argv, LIST_FLAGS)
    if "h" in opts or "help" in opts or not ({"l", "list"} & set(opts)):
        ctx.out(" group -- Used to create and maintain groups of GPUs.\n\n Usage: dcgmi group -l\n")
        return 0
    ctx.out(groups(ctx.host))
    return 0

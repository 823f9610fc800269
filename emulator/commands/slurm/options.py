"""Option values the Slurm viewers share, read with Slurm's wording when one is bad.

Comma lists gathered from repeated options (``-p a,b -p c``), hostlist
expressions (``node[01-04]``), ``-O`` field lists by name, and the timestamp
line that ``sinfo -l`` and ``squeue -l`` print first.
"""

from __future__ import annotations

from emulator.cluster.scheduler import expand_hostlist
from emulator.commands.kit.command import Context
from emulator.commands.slurm import common as sc


def long_format_items(ctx: Context, prog: str, spec: str, names: dict[str, str]) -> list[sc.Field | str]:
    items = sc.parse_long_format(spec, names)
    if isinstance(items, str):
        raise ctx.fail(f"{prog}: error: Invalid job format specification: {items}" if prog == "squeue"
                       else f"{prog}: error: Invalid node format specification: {items}")
    return items


def ctime_line(ctx: Context) -> str:
    return ctx.clock.now().strftime("%a %b %d %H:%M:%S %Y")


def comma_values(values: list[str] | None) -> list[str]:
    return [v for item in values or [] for v in item.split(",") if v]


def hostlist_names(ctx: Context, prog: str, expr: str) -> list[str]:
    try:
        return expand_hostlist(expr)
    except ValueError:
        raise ctx.fail(f"{prog}: error: Invalid hostlist: {expr}") from None

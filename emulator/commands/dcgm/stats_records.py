"""What DCGM's host engine holds for ``dcgmi stats``: the job records and since when process watches run.

The site's Slurm prolog enables the watches and starts a DCGM job named after
each Slurm job on every node it runs on; the epilog stops it (see
``/etc/slurm/prolog.d``). A learner's own records (``-s``, ``-x``, ``-r``,
``-a``) live in ``node.hw.dcgm`` until the host reboots.
"""

from __future__ import annotations

from emulator.cluster.hardware import DcgmJobRecord
from emulator.cluster.model import Node
from emulator.commands.kit.command import Context

#: ``dcgmi stats -g`` default: every GPU of the host.
ALL_GPUS = 0x7FFFFFFF
#: The default GPU group ``dcgmi group -l`` lists, and the NVSwitch group (no GPUs).
GPU_GROUPS = (0, ALL_GPUS)
SWITCH_GROUP = 1


def _boot(node: Node) -> float:
    return node.health.boots[-1].offset_s if node.health.boots else -86_400.0


def prolog_jobs(ctx: Context, node: Node) -> dict[str, DcgmJobRecord]:
    """The records the Slurm prolog started (and the epilog stopped) since the host engine came up."""
    now = ctx.clock.elapsed
    found: dict[str, DcgmJobRecord] = {}
    for job in ctx.cluster.slurm.jobs:
        if node.name not in job.nodes or job.start_s is None or not _boot(node) <= job.start_s <= now:
            continue
        end = job.end_s if job.end_s is not None and job.end_s <= now else None
        found[str(job.job_id)] = DcgmJobRecord(ALL_GPUS, job.start_s, end)
    return found


def jobs(ctx: Context, node: Node) -> dict[str, DcgmJobRecord]:
    state = node.hw.dcgm
    merged = {name: rec for name, rec in prolog_jobs(ctx, node).items() if name not in state.removed}
    merged.update(state.jobs)
    return merged


def watched_since(ctx: Context, node: Node) -> float | None:
    """When process watches came on: the first prolog since boot, or ``dcgmi stats -e``."""
    starts = [rec.start_s for rec in prolog_jobs(ctx, node).values()] + list(node.hw.dcgm.watched.values())
    return min(starts, default=None)

"""nvidia-smi's device modification options (``-pm``, ``-pl``, ``-r``, ``-lgc``...): declared, accepted, refused.

Each changes GPU state and needs root, which the learner does not have, so
each answers as the real tool does for a user: ``Insufficient Permissions``,
exit 4. The recorded help copy leaves this section of the real help out.
"""

from __future__ import annotations

from emulator.cluster.hardware import GPU
from emulator.commands.kit.command import Context
from emulator.commands.kit.spec import Flag

#: Each modification flag, and what nvidia-smi says it was unable to do.
MODIFIERS: tuple[tuple[Flag, str], ...] = (
    (Flag("-pm", "--persistence-mode", "0/1", "set persistence mode: 0/DISABLED, 1/ENABLED"),
     "set persistence mode"),
    (Flag("-pl", "--power-limit", "WATTS", "set the power management limit in watts"), "set power limit"),
    (Flag("-lgc", "--lock-gpu-clocks", "MIN,MAX", "lock the GPU clocks to a range in MHz"),
     "set GPU locked clocks"),
    (Flag("-rgc", "--reset-gpu-clocks", "", "reset the GPU clocks to the default values"),
     "reset GPU locked clocks"),
    (Flag("-ac", "--applications-clocks", "MEM,GRAPHICS", "set the applications clocks in MHz"),
     "set applications clocks"),
    (Flag("-e", "--ecc-config", "0/1", "toggle ECC support: 0/DISABLED, 1/ENABLED"), "set ECC mode"),
    (Flag("-c", "--compute-mode", "MODE", "set the compute mode: 0/DEFAULT, 2/PROHIBITED, 3/EXCLUSIVE_PROCESS"),
     "set compute mode"),
    (Flag("-r", "--gpu-reset", "", "trigger a reset of the GPU"), "reset GPU"),
)
#: What each modification flag (by its long name) was unable to do.
REFUSALS = {flag.long: what for flag, what in MODIFIERS}


def refuse(ctx: Context, gpus: list[GPU], flag: str) -> int:
    """The answer to modification ``flag`` (its long name) without root: exit 4."""
    if flag == "--gpu-reset":
        ctx.out("The following GPUs could not be reset:\n"
                + "".join(f"  GPU {g.pci_bus_id}: Insufficient Permissions\n" for g in gpus[:1]) + "\n")
        return 4
    ctx.out(f"Unable to {REFUSALS[flag]} for GPU {gpus[0].pci_bus_id}: Insufficient Permissions\n"
            "Terminating early due to previous errors.\n")
    return 4

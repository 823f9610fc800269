"""Which GPUs an nvidia-smi run targets, and how it answers when it cannot reach them.

``-i`` names GPUs by index, UUID or PCI bus id (exit 6 when none matches); a
host without the driver answers with exit 9, a GPU the driver lost with its
handle error and exit 15, and arguments nvidia-smi rejects with
:class:`BadArgs` (exit 2).
"""

from __future__ import annotations

from emulator.cluster.hardware import GPU
from emulator.commands.kit.command import Context

NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
             "Make sure that the latest NVIDIA driver is installed and running.\n")
BAD_COMBINATION = "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n"
NO_DEVICES = "No devices were found\n"


class BadArgs(Exception):
    """Arguments nvidia-smi rejects; ``text`` is its message, ``status`` its exit code."""

    def __init__(self, text: str, status: int = 2) -> None:
        super().__init__(text)
        self.text = text
        self.status = status


def select_gpus(gpus: list[GPU], spec: str | None) -> list[GPU]:
    """GPUs named by ``-i`` (indexes, UUIDs or PCI bus ids, comma separated)."""
    if spec is None:
        return list(gpus)
    chosen: list[GPU] = []
    for item in (s.strip() for s in spec.split(",")):
        match = None
        for gpu in gpus:
            bus = gpu.pci_bus_id.lower()
            if (item.isdecimal() and int(item) == gpu.index) or item.lower() == gpu.uuid.lower() or (
                    ":" in item and bus.endswith(item.lower().lstrip("0") or "-")):
                match = gpu
        if match is None:
            raise BadArgs(NO_DEVICES, 6)
        if match not in chosen:
            chosen.append(match)
    return chosen


def lost_gpu_message(gpu: GPU) -> str:
    return f"Unable to determine the device handle for GPU{gpu.pci_bus_id[4:]}: Unknown Error\n"


def report_lost(ctx: Context, gpus: list[GPU]) -> int:
    """Print the handle error of the first lost GPU among ``gpus``: 15, or 0 when all answer."""
    for gpu in gpus:
        if not gpu.present:
            ctx.out(lost_gpu_message(gpu))
            return 15
    return 0

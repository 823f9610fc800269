"""The table plain ``nvidia-smi`` prints: one block per GPU, then the processes on them.

Widths and rules are driver 550's, 89 columns; every figure is a telemetry
sample taken now.
"""

from __future__ import annotations

from emulator.cluster import telemetry
from emulator.cluster.catalog import H100
from emulator.cluster.hardware import GPU
from emulator.commands.kit.command import Context
from emulator.commands.nvsmi.query import ecc_total

RULE_FULL = "+-----------------------------------------------------------------------------------------+"
RULE_GPU = "+-----------------------------------------+------------------------+----------------------+"


def timestamp(ctx: Context) -> str:
    """``Wed Mar 11 09:00:00 2026``: the ctime form nvidia-smi prints."""
    now = ctx.clock.now()
    return f"{now:%a %b} {now.day:>2} {now:%H:%M:%S %Y}"


def summary_table(ctx: Context, gpus: list[GPU]) -> str:
    v = ctx.cluster.versions
    lines = [
        timestamp(ctx),
        RULE_FULL,
        f"| NVIDIA-SMI {v.driver:<23}Driver Version: {v.driver:<15}CUDA Version: {v.cuda:<9}|",
        "|-----------------------------------------+------------------------+----------------------+",
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
        "|                                         |                        |               MIG M. |",
        "|=========================================+========================+======================|",
    ]
    procs: list[tuple[int, telemetry.GpuProcess]] = []
    for gpu in gpus:
        r = telemetry.sample(ctx.cluster, ctx.host, gpu)
        ecc = ecc_total(gpu.ecc_volatile, corrected=False)
        pers = "On" if gpu.persistence_mode else "Off"
        lines.append(f"|{gpu.index:>4}  {H100.name:<29}{pers:>4}  |{gpu.pci_bus_id:>19} {'Off':>3} |{ecc:>21} |")
        lines.append(f"| N/A{r.temp_c:>5}C{r.pstate:>6}{round(r.power_w):>15}W / {round(gpu.power_limit_w):>4}W |"
                     f"{r.mem_used_mib:>8}MiB / {H100.memory_mib:>6}MiB |{r.util_pct:>7}%{'Default':>13} |")
        lines.append(f"|{'':41}|{'':24}|{'Disabled':>21} |")
        lines.append(RULE_GPU)
        procs += [(gpu.index, p) for p in telemetry.processes(ctx.cluster, ctx.host, gpu)]
    lines += [
        " " * 89,
        RULE_FULL,
        "| Processes:                                                                              |",
        "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
        "|        ID   ID                                                               Usage      |",
        "|=========================================================================================|",
    ]
    if not procs:
        lines.append("|  No running processes found                                                             |")
    for index, proc in procs:
        lines.append(f"|{index:>5}   N/A  N/A{proc.pid:>10}{'C':>7}   {proc.name:<40}{f'{proc.used_mib}MiB':>12} |")
    lines.append(RULE_FULL)
    return "\n".join(lines) + "\n"

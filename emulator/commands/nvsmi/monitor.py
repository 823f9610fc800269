"""``nvidia-smi dmon`` and ``pmon``: one line per GPU per sample, from telemetry.

The column groups follow ``-s`` (p power/temp, u utilization, c clocks,
v violations, m memory, e ECC/PCIe, t PCIe throughput); each sample is taken
at the simulated instant it is printed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.cluster import telemetry
from emulator.cluster.hardware import GPU

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node

#: -s letter → (column name, unit) in the order dmon prints them.
DMON_GROUPS: dict[str, list[tuple[str, str]]] = {
    "p": [("pwr", "W"), ("gtemp", "C"), ("mtemp", "C")],
    "u": [("sm", "%"), ("mem", "%"), ("enc", "%"), ("dec", "%"), ("jpg", "%"), ("ofa", "%")],
    "c": [("mclk", "MHz"), ("pclk", "MHz")],
    "v": [("pviol", "%"), ("tviol", "bool")],
    "m": [("fb", "MB"), ("bar1", "MB"), ("ccpm", "MB")],
    "e": [("sbecc", "errs"), ("dbecc", "errs"), ("pci", "errs")],
    "t": [("rxpci", "MB/s"), ("txpci", "MB/s")],
}
DMON_ORDER = "pucvmet"


def dmon_columns(select: str) -> list[tuple[str, str]]:
    return [col for letter in DMON_ORDER if letter in select for col in DMON_GROUPS[letter]]


def dmon_header(columns: list[tuple[str, str]]) -> list[str]:
    names = "# gpu " + "".join(f"{name:>6} " for name, _ in columns)
    units = "# Idx " + "".join(f"{unit:>6} " for _, unit in columns)
    return [names, units]


def _dmon_value(gpu: GPU, r: telemetry.Reading, name: str) -> str:
    values: dict[str, object] = {
        "pwr": round(r.power_w), "gtemp": r.temp_c, "mtemp": r.mem_temp_c,
        "sm": r.util_pct, "mem": r.mem_util_pct, "enc": 0, "dec": 0, "jpg": 0, "ofa": 0,
        "mclk": r.mem_mhz, "pclk": r.sm_mhz,
        "pviol": 100 if r.reasons & {"SW Power Cap", "HW Power Brake Slowdown"} else 0,
        "tviol": 1 if r.reasons & {"HW Thermal Slowdown", "SW Thermal Slowdown"} else 0,
        "fb": r.mem_used_mib, "bar1": 1 + 4 * r.busy, "ccpm": 0,
        "sbecc": gpu.ecc_volatile.sram_correctable + gpu.ecc_volatile.dram_correctable,
        "dbecc": gpu.ecc_volatile.dram_uncorrectable + gpu.ecc_volatile.sram_uncorrectable_secded,
        "pci": 0,
        "rxpci": 1804 + 3 * gpu.index if r.busy else 0, "txpci": 412 + 2 * gpu.index if r.busy else 0,
    }
    return str(values[name])


def dmon_line(cluster: Cluster, node: Node, gpu: GPU, columns: list[tuple[str, str]]) -> str:
    r = telemetry.sample(cluster, node, gpu)
    return f"{gpu.index:>5} " + "".join(f"{_dmon_value(gpu, r, name):>6} " for name, _ in columns)


PMON_HEADER = [
    "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command ",
    "# Idx           #    C/G      %      %      %      %      %      %    name ",
]


def pmon_lines(cluster: Cluster, node: Node, gpu: GPU) -> list[str]:
    procs = telemetry.processes(cluster, node, gpu)
    if not procs:
        return [f"{gpu.index:>5} {'-':>11} {'-':>6} " + "".join(f"{'-':>6} " for _ in range(6)) + "   -              "]
    r = telemetry.sample(cluster, node, gpu)
    lines = []
    for proc in procs:
        cols = [r.util_pct - 2 if r.util_pct > 2 else r.util_pct, r.mem_util_pct, "-", "-", "-", "-"]
        name = proc.name.rsplit("/", 1)[-1][:15]
        lines.append(f"{gpu.index:>5} {proc.pid:>11} {'C':>6} " + "".join(f"{c!s:>6} " for c in cols)
                     + f"   {name:<15}")
    return lines

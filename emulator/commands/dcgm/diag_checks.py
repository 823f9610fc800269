"""What ``dcgmi diag`` finds, test by test, read from the model.

A pending row remap fails the deployment check, a thermal or power slowdown
fails the stress tests with violation times from telemetry, a PCIe link below
Gen5 x16 fails the PCIe bandwidth test, a stopped Fabric Manager fails every
CUDA test with 'system not yet initialized'. Level 1 runs the deployment
checks, 2 adds PCIe and GPU memory, 3 the stress tests.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from emulator.cluster.catalog import H100
from emulator.cluster.hardware import GPU
from emulator.cluster.ids import rng
from emulator.cluster.model import Node
from emulator.commands.kit.command import Context


@dataclass
class DiagTest:
    """One diagnostic test's outcome: failures by GPU index, each a list of (kind, message)."""

    name: str
    failures: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    node_wide: bool = False   # Deployment checks give one verdict for all GPUs
    skipped: bool = False


def _cuda_broken(gpu: GPU) -> bool:
    return gpu.fabric_state != "Completed"


def _cuda_failure(gpu: GPU) -> tuple[str, str]:
    return ("Warning", f"GPU {gpu.index} Error using CUDA API cuInit Check DCGM and system logs for errors. Reset GPU. "
                       "Restart DCGM. Rerun diagnostics. 'system not yet initialized'.")


def _slowdown_failure(gpu: GPU, r: random.Random) -> tuple[str, str] | None:
    reasons = gpu.clock_event_reasons
    start = round(r.uniform(1.0, 12.0), 1)
    if reasons & {"HW Thermal Slowdown", "SW Thermal Slowdown"}:
        total = round(r.uniform(8.0, 40.0), 1)
        return ("Warning", f"GPU {gpu.index} Thermal violations totaling {total} seconds started at {start} seconds "
                           f"into the test for GPU {gpu.index} Verify that the cooling on this machine is functional, "
                           "including external, thermal material interface, fans, and any other components.")
    if reasons & {"HW Power Brake Slowdown", "HW Slowdown"}:
        return ("Warning", f"GPU {gpu.index} Clocks are being throttled for GPU {gpu.index} because of clock "
                           f"throttling starting {start} seconds into the test. 'HW Slowdown is engaged. This is an "
                           "indicator of one of the following: 1) temperature being too high 2) External Power Brake "
                           "Assertion is triggered (e.g. by the system power supply) 3) Power draw is too high and "
                           "Fast Trigger protection is reducing the clocks'")
    return None


def _power_failure(gpu: GPU) -> tuple[str, str] | None:
    reasons = gpu.clock_event_reasons
    if not reasons & {"SW Power Cap", "HW Power Brake Slowdown", "HW Thermal Slowdown", "SW Thermal Slowdown"}:
        return None
    target = H100.power_limit_w
    frac = (gpu.slowdown_cap_mhz or H100.max_sm_mhz) / H100.max_sm_mhz
    reached = gpu.power_w + (690.0 - gpu.power_w) * frac ** 1.5
    if "SW Power Cap" in reasons:
        reached = gpu.power_limit_w - 0.6
    minimum = round(target * 0.75, 1)
    if reached >= minimum:
        return None
    return ("Warning", f"GPU {gpu.index} Max power of {reached:.1f} did not reach desired power minimum "
                       f"target_power_min_ratio of {minimum} for GPU {gpu.index} Verify that the clock speeds and GPU "
                       "utilization are high.")


def _pcie_failure(gpu: GPU) -> tuple[str, str] | None:
    if (gpu.pcie_gen_current, gpu.pcie_width_current) == (gpu.pcie_gen_max, gpu.pcie_width_max):
        return None
    per_lane = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938}[gpu.pcie_gen_current]
    measured = per_lane * gpu.pcie_width_current * 0.88
    return ("Warning", f"Bandwidth of GPU {gpu.index} in direction h2d of {measured:.2f} did not exceed minimum "
                       f"required bandwidth of 40.00.")


def _nvlink_failures(gpu: GPU) -> list[tuple[str, str]]:
    return [("Warning", f"GPU {gpu.index}'s NvLink link {link.index} is currently down Check DCGM and system logs for "
                        "errors. Reset GPU. Restart DCGM. Rerun diagnostics.") for link in gpu.nvlinks if not link.up]


def diag_gpus(node: Node, only: set[int] | None) -> list[GPU]:
    """The GPUs a run covers: those answering, limited to ``-i`` when given."""
    return [g for g in node.gpus if g.present and (only is None or g.index in only)]


def diag_results(ctx: Context, node: Node, level: int,
                 only: set[int] | None = None) -> list[tuple[str, list[DiagTest]]]:
    """The categories and tests a run of ``level`` reports, each verdict read from the model."""
    gpus = diag_gpus(node, only)
    r = rng(ctx.cluster.seed, node.name, "diag", level, int(ctx.clock.elapsed))
    remap = {g.index: [("Error", f"GPU {g.index} had a row remapping failure." if g.remap_failure else
                        f"GPU {g.index} has uncorrectable memory errors and row remappings are pending")]
             for g in gpus if g.remap_pending or g.remap_failure}
    deployment = [DiagTest(name, remap if name == "Page Retirement/Row Remap" else {}, node_wide=True)
                  for name in ("Denylist", "NVML Library", "CUDA Main Library", "Permissions and OS Blocks",
                               "Persistence Mode", "Environment Variables", "Page Retirement/Row Remap",
                               "Graphics Processes", "Inforom")]
    categories = [("Deployment", deployment)]
    if level == 1 or remap:
        return categories
    pcie: dict[int, list[tuple[str, str]]] = {}
    for gpu in gpus:
        found = [_cuda_failure(gpu)] if _cuda_broken(gpu) else []
        if not found:
            link = _pcie_failure(gpu)
            found = ([link] if link else []) + _nvlink_failures(gpu)
        if found:
            pcie[gpu.index] = found
    categories.append(("Integration", [DiagTest("PCIe", pcie)]))
    memory: dict[int, list[tuple[str, str]]] = {}
    for gpu in gpus:
        if _cuda_broken(gpu):
            memory[gpu.index] = [_cuda_failure(gpu)]
        elif (slow := _slowdown_failure(gpu, r)) is not None:
            memory[gpu.index] = [slow]
    hardware = [DiagTest("GPU Memory", memory)]
    categories.append(("Hardware", hardware))
    if level == 2:
        return categories
    stress = {g.index: [_cuda_failure(g)] for g in gpus if _cuda_broken(g)}
    slowed = {g.index: [s] for g in gpus if not _cuda_broken(g) and (s := _slowdown_failure(g, r)) is not None}
    hardware.append(DiagTest("Diagnostic", {**stress, **slowed}))
    power = {g.index: [p] for g in gpus if not _cuda_broken(g) and (p := _power_failure(g)) is not None}
    categories.append(("Stress", [DiagTest("Targeted Stress", {**stress, **slowed}),
                                  DiagTest("Targeted Power", {**stress, **power}),
                                  DiagTest("Memory Bandwidth", stress), DiagTest("EUD Test", skipped=True)]))
    return categories

"""What DCGM's health watches report for a node's GPUs, read from the GPUs' state."""

from __future__ import annotations

from emulator.cluster.hardware import GPU
from emulator.cluster.model import Node


def health_findings(node: Node) -> list[tuple[GPU, str, str, str]]:
    """(gpu, system, severity, message) for every condition DCGM's watches report."""
    found: list[tuple[GPU, str, str, str]] = []
    for gpu in node.gpus:
        if not gpu.present:
            found.append((gpu, "PCIe system", "Failure", f"Detected XID 79 for GPU {gpu.index}: GPU has fallen off the "
                                                         "bus. Reboot the node."))
            continue
        if gpu.ecc_volatile.dram_uncorrectable:
            found.append((gpu, "Memory system", "Failure",
                          f"Detected {gpu.ecc_volatile.dram_uncorrectable} volatile double-bit ECC error(s) in GPU "
                          f"{gpu.index}."))
        if gpu.remap_pending:
            found.append((gpu, "Memory system", "Failure", f"GPU {gpu.index} has uncorrectable memory errors and row "
                                                           "remappings are pending"))
        down = [link.index for link in gpu.nvlinks if not link.up]
        for link in down:
            found.append((gpu, "NVLink system", "Failure", f"GPU {gpu.index}'s NvLink link {link} is currently down "
                                                           "Check DCGM and system logs for errors. Reset GPU. Restart "
                                                           "DCGM. Rerun diagnostics."))
        reasons = gpu.clock_event_reasons
        if reasons & {"HW Thermal Slowdown", "SW Thermal Slowdown"}:
            found.append((gpu, "Thermal system", "Warning", f"Detected clocks event due to thermal violation in GPU "
                                                            f"{gpu.index}. Check the cooling of this GPU."))
        if reasons & {"SW Power Cap", "HW Power Brake Slowdown"}:
            found.append((gpu, "Power system", "Warning", f"Detected clocks event due to power violation in GPU "
                                                          f"{gpu.index}. Monitor the power conditions. This GPU can "
                                                          "still perform workload."))
    return found

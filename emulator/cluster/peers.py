"""Which GPUs of a node are NVLink peers, and the P2P status NVML reports for a pair.

On HGX H100 the GPU↔NVSwitch access links are trained by Fabric Manager, and a GPU reaches
its peers over NVLink only once Fabric Manager has registered it in the fabric with success
(NVIDIA Fabric Manager User Guide). ``nvidia-smi topo -p2p`` prints what
``nvmlDeviceGetP2PStatus`` says for each pair and capability: ``OK``, or a reason such as
``NS`` (not supported).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.cluster.hardware import GPU

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Node

__all__ = ["CAPABILITIES", "fabric_manager_up", "in_fabric", "nvlink_peers", "p2p_status"]

#: ``topo -p2p`` capabilities: read, write, NVLink, atomics, PCIe.
CAPABILITIES = ("r", "w", "n", "a", "p")


def fabric_manager_up(node: Node) -> bool:
    """Whether the node's Fabric Manager is running (a node without the service needs none)."""
    fm = node.hw.services.get("nvidia-fabricmanager")
    return fm is None or fm.active


def in_fabric(gpu: GPU) -> bool:
    """Whether Fabric Manager registered the GPU in the NVLink fabric with success and its links trained."""
    return (gpu.present and gpu.fabric_state == "Completed" and gpu.fabric_status == "Success"
            and any(link.up for link in gpu.nvlinks))


def nvlink_peers(node: Node, a: GPU, b: GPU) -> bool:
    """Whether NVSwitch routing lets ``a`` and ``b`` reach each other over NVLink."""
    return fabric_manager_up(node) and in_fabric(a) and in_fabric(b)


def p2p_status(node: Node, a: GPU, b: GPU, capability: str) -> str:
    """NVML's P2P status of the pair for one capability (``r``, ``w``, ``n``, ``a`` or ``p``).

    On an NVSwitch board peer reads, writes and atomics go over NVLink, so they follow the
    NVLink status; a pair without it reads ``NS``, as NCCL's "NVML reports P2P not OK" for a GPU
    left out of routing. The PCIe capability depends on the PCIe path alone, which both GPUs
    keep [unverified: the status NVML gives over PCIe on HGX H100 is not in a sourced sample].
    """
    if capability == "p":
        return "OK"
    return "OK" if nvlink_peers(node, a, b) else "NS"

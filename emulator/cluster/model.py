"""The cluster state model: hosts, their hardware, Slurm, storage, the training run.

One :class:`Cluster` per session. Every tool renders from it; faults change
it (:mod:`emulator.cluster.faults`). A compute node's hardware (GPUs, NICs,
services, logs) is built on first use from the seed, so a 1,024-node model
answers ``sinfo`` without building 8,192 GPUs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from emulator.cluster.catalog import VERSIONS, Versions
from emulator.cluster.clock import SimClock
from emulator.cluster.hardware import (
    BMC,
    GPU,
    NIC,
    BlockDevice,
    Cpu,
    DcgmStats,
    HostHealth,
    KernelEvent,
    PCIeSwitch,
    Service,
    StrayLoad,
)
from emulator.cluster.scheduler import SlurmState
from emulator.cluster.storage import LocalDisk, ParallelFS
from emulator.cluster.training import TrainingRun


@dataclass
class Hardware:
    """What is inside a host; built lazily for compute nodes."""

    gpus: list[GPU] = field(default_factory=list)
    nics: list[NIC] = field(default_factory=list)
    pcie_switches: list[PCIeSwitch] = field(default_factory=list)
    disks: list[BlockDevice] = field(default_factory=list)
    services: dict[str, Service] = field(default_factory=dict)
    kernel_log: list[KernelEvent] = field(default_factory=list)
    nvswitches: int = 0
    #: The DCGM host engine's job and process statistics (``dcgmi stats``).
    dcgm: DcgmStats = field(default_factory=DcgmStats)
    #: Authentication and privilege records (sudo, sshd): (offset s, program, message), oldest first;
    #: ``/var/log/auth.log`` and the journal show them.
    auth_log: list[tuple[float, str, str]] = field(default_factory=list)
    #: Processes a user left running outside any Slurm job (:mod:`emulator.cluster.strays`).
    strays: list[StrayLoad] = field(default_factory=list)


@dataclass
class Node:
    """A host. ``role`` is ``compute`` or ``login``."""

    name: str
    index: int
    role: str
    mgmt_ipv4: str
    cpu: Cpu
    memory_kib: int
    bmc: BMC | None
    health: HostHealth
    local_disk: LocalDisk | None = None
    #: Fills in the hardware on first access (set by the builder).
    _build: Callable[[Node], Hardware] | None = field(default=None, repr=False)
    _hw: Hardware | None = field(default=None, repr=False)

    @property
    def hw(self) -> Hardware:
        if self._hw is None:
            self._hw = self._build(self) if self._build else Hardware()
        return self._hw

    @property
    def gpus(self) -> list[GPU]:
        return self.hw.gpus

    @property
    def nics(self) -> list[NIC]:
        return self.hw.nics

    def nic(self, name: str) -> NIC | None:
        for nic in self.hw.nics:
            if nic.name == name:
                return nic
        return None

    def gpu_by_bus(self, bus_id: str) -> GPU | None:
        for gpu in self.hw.gpus:
            if gpu.pci_bus_id.lower().endswith(bus_id.lower()):
                return gpu
        return None

    @property
    def numa_nodes(self) -> int:
        return self.cpu.sockets

    @property
    def built(self) -> bool:
        """Whether the hardware was built already (faults and tools have touched it)."""
        return self._hw is not None


@dataclass
class FaultRecord:
    """One fault applied to the model, with the concrete targets the seed chose.

    ``truth`` holds the facts a lab's check compares a learner's finding
    against (``{"node": "node07", "port": "mlx5_3", "cause": "link-rate"}``).
    """

    name: str
    params: dict[str, object]
    truth: dict[str, str]


@dataclass
class Cluster:
    name: str
    seed: int
    clock: SimClock
    nodes: dict[str, Node]
    login: str
    slurm: SlurmState
    storage: ParallelFS
    training: TrainingRun | None = None
    versions: Versions = VERSIONS
    faults: list[FaultRecord] = field(default_factory=list)
    #: Leaf and spine switches of the compute fabric: name → (kind, rail or -1).
    switches: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: Leaf uplink oversubscription (downlink : uplink bandwidth), 1.0 = non-blocking.
    oversubscription: float = 1.0
    domain: str = "cluster.internal"
    #: Raw counter values of switch ports at their last reset ("leaf-r0-01:33" → counters).
    switch_counter_baseline: dict[str, dict[str, int]] = field(default_factory=dict)

    def node(self, name: str) -> Node | None:
        """Look up a host by name, short or fully qualified, or by its BMC name."""
        short = name.split(".")[0]
        return self.nodes.get(short)

    @property
    def compute_nodes(self) -> list[Node]:
        return [n for n in self.nodes.values() if n.role == "compute"]

    def bmc_host(self, name: str) -> Node | None:
        """The node whose BMC answers at ``name`` (hostname or IP)."""
        for node in self.nodes.values():
            if node.bmc and name in (node.bmc.hostname, node.bmc.ipv4, f"{node.bmc.hostname}.{self.domain}"):
                return node
        return None

    def truth(self) -> dict[str, str]:
        """Merged ground truth of every applied fault (later faults win)."""
        merged: dict[str, str] = {}
        for fault in self.faults:
            merged.update(fault.truth)
        return merged

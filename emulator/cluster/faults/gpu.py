"""Faults of the GPU domain (see :mod:`emulator.cluster.faults`).

Each fault changes GPU, service or log state only; nvidia-smi, dcgmi,
systemctl and dmesg render the consequences. Targets are the training job's
GPUs, chosen by the seeded source unless the lab names ``node`` and ``gpu``.
Faults that leave kernel lines report their instant in the truth as ``time``
(UTC, ISO 8601), so a lab can scope an incident by node and interval.

Xid kernel lines follow the NVRM format ``NVRM: Xid (PCI:0000:1b:00): 48,
pid=..., name=..., <message>`` and the sequences real drivers print (a DBE is
48, then 63, then a burst of 94 naming the rank's process).
"""

from __future__ import annotations

import random

from emulator.cluster.catalog import H100
from emulator.cluster.faults.base import Fault
from emulator.cluster.hardware import GPU, KernelEvent, SelEntry
from emulator.cluster.model import Cluster, Node

#: Xid codes the ``xid`` fault knows, with their meaning (NVIDIA's Xid catalog).
XID_MEANINGS = {
    13: "Graphics Engine Exception",
    31: "GPU memory page fault",
    43: "GPU stopped processing",
    48: "Double Bit ECC Error",
    63: "ECC page retirement or row remapping recording event",
    64: "ECC page retirement or row remapper recording failure",
    74: "NVLink Error",
    79: "GPU has fallen off the bus",
    92: "High single-bit ECC error rate",
    94: "Contained ECC error",
    95: "Uncontained ECC error",
    119: "GSP RPC Timeout",
}


#: Xids after which the rank on that GPU no longer makes progress (its process died or its GPU is gone).
FATAL_TO_RANK = frozenset({13, 31, 43, 48, 74, 79, 94, 95, 119})


# -- targets and log helpers ------------------------------------------------------------


def _node(cluster: Cluster, r: random.Random, params: dict[str, object], busy: bool = True) -> Node:
    name = str(params.get("node") or "")
    if name:
        node = cluster.node(name)
        if node is None or node.role != "compute":
            raise ValueError(f"no compute node named {name!r}")
        return node
    compute = [n.name for n in cluster.compute_nodes]
    training = cluster.training.nodes if cluster.training else []
    pool = [n for n in compute if (n in training) == busy] or compute
    return cluster.nodes[r.choice(pool)]


def _target(cluster: Cluster, r: random.Random, params: dict[str, object],
            busy: bool = True) -> tuple[Node, GPU]:
    node = _node(cluster, r, params, busy)
    index = params.get("gpu")
    if index is None or index == "":
        return node, r.choice(node.gpus)
    if not str(index).isdecimal() or int(str(index)) >= len(node.gpus):
        raise ValueError(f"{node.name} has no GPU {index}")
    return node, node.gpus[int(str(index))]


def _at(r: random.Random, params: dict[str, object], earliest: float = 1800.0, latest: float = 300.0) -> float:
    """When the event happened: the lab's ``at`` offset, or seeded between ``earliest`` and
    ``latest`` seconds before the start."""
    at = params.get("at")
    return float(at) if isinstance(at, (int, float)) else -r.uniform(latest, earliest)


#: Seeded Xid instants fall this long before the start (s), so a job the error stopped has
#: already hit the 10-minute NCCL watchdog and been torn down when the learner arrives.
XID_BEFORE = (1500.0, 700.0)


def _when(cluster: Cluster, at: float) -> str:
    return cluster.clock.at(at).strftime("%Y-%m-%dT%H:%M:%SZ")


def _truth(node: Node, gpu: GPU, cause: str, **extra: str) -> dict[str, str]:
    return {"node": node.name, "gpu": str(gpu.index), "bus_id": gpu.pci_bus_id, "uuid": gpu.uuid,
            "serial": gpu.serial, "cause": cause, **extra}


def pci_tag(gpu: GPU) -> str:
    """``0000:1b:00``: how NVRM names a GPU in Xid lines."""
    return "0000:" + gpu.pci_bus_id.split(":", 1)[1].lower().rsplit(".", 1)[0]


def _rank_process(cluster: Cluster, node: Node, gpu: GPU) -> tuple[str, str]:
    """(pid, comm) of the rank on ``gpu``, or the driver's unknown markers."""
    if cluster.training:
        for rank in cluster.training.ranks:
            if rank.node == node.name and rank.gpu == gpu.index:
                return str(rank.pid), "python3"
    return "'<unknown>'", "<unknown>"


def _stop_rank(cluster: Cluster, node: Node, gpu: GPU, at: float) -> None:
    """The training rank on ``gpu`` stops at ``at``; the others wait for it until the NCCL watchdog fires."""
    run = cluster.training
    if run is None or run.hang_s is not None:
        return
    for rank in run.ranks:
        if rank.node == node.name and rank.gpu == gpu.index:
            run.hang_rank, run.hang_s, run.hang_in = rank.rank, at, "gpu"


def _log(node: Node, events: list[KernelEvent]) -> None:
    node.hw.kernel_log.extend(events)
    node.hw.kernel_log.sort(key=lambda e: e.offset_s)


def _xid(gpu: GPU, at: float, code: int, pid: str, name: str, message: str, level: str = "err") -> KernelEvent:
    return KernelEvent(at, f"NVRM: Xid (PCI:{pci_tag(gpu)}): {code}, pid={pid}, name={name}, {message}", level)


def _gpu_banner(gpu: GPU, at: float) -> list[KernelEvent]:
    """The two lines the driver prints before a GPU's first Xid."""
    return [KernelEvent(at, f"NVRM: GPU at PCI:{pci_tag(gpu)}: {gpu.uuid}", "info"),
            KernelEvent(at, f"NVRM: GPU Board Serial Number: {gpu.serial}", "info")]


# -- Xid sequences --------------------------------------------------------------------------


def _xid_events(cluster: Cluster, node: Node, gpu: GPU, r: random.Random, code: int, at: float) -> list[KernelEvent]:
    """Apply the state change of Xid ``code`` on ``gpu`` and return its kernel lines."""
    pid, comm = _rank_process(cluster, node, gpu)
    unknown = ("'<unknown>'", "<unknown>")
    events = _gpu_banner(gpu, at)
    t = at
    raised: list[int] = []

    def add(c: int, who: tuple[str, str], message: str, step: float = 0.009) -> None:
        nonlocal t
        events.append(_xid(gpu, t, c, who[0], who[1], message))
        if c not in raised:
            raised.append(c)
        t += step

    if code == 13:
        who = (pid, "pt_main_thread")
        for gpc in range(r.randint(2, 4)):
            tpc = r.randint(0, 8)
            add(13, who, f"Graphics SM Warp Exception on (GPC {gpc}, TPC {tpc}, SM 0): Out Of Range Address", 0.0)
            add(13, who, f"Graphics SM Global Exception on (GPC {gpc}, TPC {tpc}, SM 0): Multiple Warp Errors", 0.0)
            add(13, who, f"Graphics Exception: ESR 0x5{gpc}{tpc}648=0x{r.getrandbits(28):x} 0x5{gpc}{tpc}650=0x24 "
                         f"0x5{gpc}{tpc}644=0x{r.getrandbits(24):x} 0x5{gpc}{tpc}64c=0x17f", 0.001)
        add(43, who, f"Ch {r.randint(8, 15):08x}")
    elif code == 31:
        va = f"0x{r.randint(0x7f00, 0x7fff):x}_{r.getrandbits(28) << 4:08x}"
        add(31, (pid, "pt_main_thread"), f"Ch {r.randint(8, 15):08x}, intr 00000000. MMU Fault: ENGINE GRAPHICS "
                                         f"GPC{r.randint(0, 7)} GPCCLIENT_T1_{r.randint(0, 15)} faulted @ {va}. "
                                         "Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ")
    elif code == 43:
        add(43, (pid, "pt_main_thread"), f"Ch {r.randint(8, 15):08x}")
    elif code in (48, 63, 64):
        address = r.randrange(0x1000000000, 0x13ffffffff) & ~0x1F
        if code == 48:
            gpu.ecc_volatile.dram_uncorrectable += 1
            gpu.ecc_aggregate.dram_uncorrectable += 1
            gpu.remapped_uncorrectable += 1
            gpu.remap_pending = True
            add(48, unknown, f"An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer "
                             f"at physAddr 0x{address:x} partition {r.randint(0, 7)}, subpartition {r.randint(0, 1)}.",
                0.028)
            add(63, unknown, f"Row Remapper: New row (0x{address:016x}) marked for remapping, reset gpu to activate.")
            add(94, unknown, "Contained: SM (0x1). RST: No, D-RST: No", 0.015)
            for ch in range(8, 16):
                add(94, (pid, comm), f"Ch {ch:08x}")
        elif code == 63:
            gpu.ecc_volatile.dram_correctable += 1
            gpu.ecc_aggregate.dram_correctable += 1
            gpu.remapped_correctable += 1
            gpu.remap_pending = True
            add(63, unknown, f"Row Remapper: New row (0x{address:016x}) marked for remapping, reset gpu to activate.")
        else:
            gpu.ecc_aggregate.dram_uncorrectable += 1
            gpu.ecc_volatile.dram_uncorrectable += 1
            gpu.remap_failure = True
            gpu.reset_required = True
            add(64, unknown, f"Row Remapper Error: remapping of row (0x{address:016x}) failed.")
    elif code == 74:
        link = gpu.nvlinks[r.randrange(len(gpu.nvlinks))]
        link.up = False
        link.replay_errors += r.randint(20, 200)
        link.recovery_errors += r.randint(1, 6)
        link.crc_flit_errors += r.randint(500, 5000)
        add(74, (pid, comm), f"NVLink: fatal error detected on link {link.index}(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)")
    elif code == 79:
        gpu.present = False
        gpu.reset_required = True
        add(79, unknown, "GPU has fallen off the bus.", 0.0)
        events.append(KernelEvent(t, f"NVRM: GPU {pci_tag(gpu)}.0: GPU has fallen off the bus.", "err"))
        events.append(KernelEvent(t + 0.002, f"NVRM: GPU {pci_tag(gpu)}.0: GPU serial number is {gpu.serial}.", "info"))
    elif code == 92:
        burst = r.randint(4000, 12000)
        gpu.ecc_volatile.sram_correctable += burst
        gpu.ecc_aggregate.sram_correctable += burst
        add(92, unknown, "High single-bit ECC error rate")
    elif code == 94:
        add(94, unknown, "Contained: SM (0x1). RST: No, D-RST: No", 0.015)
        for ch in range(8, 12):
            add(94, (pid, comm), f"Ch {ch:08x}")
    elif code == 95:
        gpu.ecc_volatile.dram_uncorrectable += 1
        gpu.ecc_aggregate.dram_uncorrectable += 1
        gpu.reset_required = True
        add(95, unknown, "Uncontained: FBHUB. RST: Yes, D-RST: No")
    elif code == 119:
        gpu.reset_required = True
        add(119, (pid, comm), f"Timeout after 6s of waiting for RPC response from GPU{gpu.index} GSP! Expected function "
                              f"76 (GSP_RM_CONTROL) (0x2080{r.getrandbits(16):04x} 0x{r.choice((4, 8, 0x10)):x}).")
    gpu.xids.extend(raised)
    return events


def xid(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """The driver raised Xid ``code`` on one GPU, with its kernel lines and state change."""
    code = int(str(params["code"]))
    if code not in XID_MEANINGS:
        raise ValueError(f"xid: unsupported code {code}; known: {', '.join(map(str, XID_MEANINGS))}")
    node, gpu = _target(cluster, r, params)
    at = _at(r, params, *XID_BEFORE)
    _log(node, _xid_events(cluster, node, gpu, r, code, at))
    if code in FATAL_TO_RANK:
        _stop_rank(cluster, node, gpu, at)
    return _truth(node, gpu, f"xid-{code}", xid=str(code), meaning=XID_MEANINGS[code], time=_when(cluster, at))


def ecc_dbe_remap(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """A double-bit ECC error in HBM: Xid 48 → 63 → 94, a row remap pending a GPU reset."""
    node, gpu = _target(cluster, r, params)
    at = _at(r, params, *XID_BEFORE)
    _log(node, _xid_events(cluster, node, gpu, r, 48, at))
    _stop_rank(cluster, node, gpu, at)
    return _truth(node, gpu, "ecc-dbe", xid="48", remap="pending", time=_when(cluster, at))


# -- slowdowns --------------------------------------------------------------------------------


def gpu_thermal(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """One GPU starved of cooling: it sits at its slowdown threshold with the SM clock capped."""
    node, gpu = _target(cluster, r, params)
    gpu.cooling_deficit_c = 30
    gpu.clock_event_reasons = {"HW Thermal Slowdown", "SW Thermal Slowdown"}
    cap = params.get("cap_mhz")
    gpu.slowdown_cap_mhz = int(str(cap)) if cap else r.choice((1305, 1350, 1395, 1440))
    onset = r.uniform(900.0, 3600.0)
    gpu.violation_s = {"HW Thermal Slowdown": round(onset * 0.6, 1), "SW Thermal Slowdown": round(onset, 1)}
    return _truth(node, gpu, "thermal", sm_cap_mhz=str(gpu.slowdown_cap_mhz))


def gpu_power_brake(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """The chassis asserted the power-brake signal: HW Power Brake Slowdown, clocks near the floor.

    ``scope`` ``node`` (default) brakes all eight GPUs, as a PSU event does;
    ``gpu`` brakes one.
    """
    scope = str(params.get("scope") or "node")
    if scope not in ("node", "gpu"):
        raise ValueError("gpu-power-brake: scope must be node or gpu")
    node, first = _target(cluster, r, params)
    gpus = node.gpus if scope == "node" else [first]
    at = _at(r, params)
    cap = int(str(params.get("cap_mhz") or 86))
    for gpu in gpus:
        gpu.clock_event_reasons = {"HW Slowdown", "HW Power Brake Slowdown"}
        gpu.slowdown_cap_mhz = cap
        gpu.violation_s = {"HW Power Brake Slowdown": round(-at, 1), "HW Slowdown": round(-at, 1)}
    if node.bmc is not None and scope == "node":
        psu = r.choice((0, 1))
        node.bmc.sel.append(SelEntry(at - 0.4, f"Power Supply #0x{0x20 + psu:02x}", "Power Supply AC lost"))
        node.bmc.sel.sort(key=lambda e: e.offset_s)
    truth = _truth(node, first, "power-brake", scope=scope, sm_cap_mhz=str(cap))
    if scope == "node":
        truth["gpu"] = "all"
    return truth


def gpu_power_cap(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """Someone lowered one GPU's power limit: it pins at the cap with SW Power Cap active."""
    node, gpu = _target(cluster, r, params)
    limit = float(str(params.get("limit_w") or 400))
    if not H100.power_min_w <= limit < H100.power_limit_w:
        raise ValueError(f"gpu-power-cap: limit_w must be in [{H100.power_min_w:.0f}, {H100.power_limit_w:.0f})")
    gpu.power_limit_w = limit
    gpu.clock_event_reasons = {"SW Power Cap"}
    # Clock the GPU can hold inside the limit (dynamic power ~ f^1.5 above idle).
    frac = max(0.1, (limit - gpu.power_w) / (620.0 - gpu.power_w)) ** (1 / 1.5)
    gpu.slowdown_cap_mhz = int(min(H100.max_sm_mhz, frac * H100.max_sm_mhz) // 15 * 15)
    gpu.violation_s = {"SW Power Cap": round(r.uniform(1800.0, 7200.0), 1)}
    return _truth(node, gpu, "power-cap", limit_w=f"{limit:.0f}", sm_cap_mhz=str(gpu.slowdown_cap_mhz))


# -- links and services -------------------------------------------------------------------------


def nvlink_down(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """One or more NVLinks of a GPU went inactive after a fatal link error (Xid 74)."""
    node, gpu = _target(cluster, r, params)
    count = int(str(params.get("links") or 1))
    if not 1 <= count <= len(gpu.nvlinks):
        raise ValueError(f"nvlink-down: links must be 1..{len(gpu.nvlinks)}")
    at = _at(r, params)
    pid, comm = _rank_process(cluster, node, gpu)
    events = _gpu_banner(gpu, at)
    down = sorted(r.sample(range(len(gpu.nvlinks)), count))
    for k, index in enumerate(down):
        link = gpu.nvlinks[index]
        link.up = False
        link.replay_errors += r.randint(40, 400)
        link.recovery_errors += r.randint(2, 9)
        link.crc_flit_errors += r.randint(1000, 9000)
        events.append(_xid(gpu, at + 0.004 * k, 74, pid, comm,
                           f"NVLink: fatal error detected on link {index}(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)"))
        gpu.xids.append(74)
    # A neighbour on the same NVSwitch stays up but keeps retrying: its counters rise.
    switch = gpu.nvlinks[down[0]].switch
    marginal = [link for link in gpu.nvlinks if link.up and link.switch == switch]
    if marginal:
        weak = r.choice(marginal)
        weak.replay_errors += r.randint(5, 40)
        weak.replay_rate_per_s = round(r.uniform(0.5, 3.0), 2)
        weak.crc_rate_per_s = round(r.uniform(5.0, 30.0), 1)
    _log(node, events)
    return _truth(node, gpu, "nvlink-down", links=",".join(map(str, down)), time=_when(cluster, at))


def fabricmanager_stopped(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """nvidia-fabricmanager failed at boot on one of the job's nodes: its GPUs never join the
    NVLink fabric, CUDA init fails with 'system not yet initialized', and no rank runs there."""
    node = _node(cluster, r, params)
    service = node.hw.services["nvidia-fabricmanager"]
    boot = node.health.boots[-1].offset_s if node.health.boots else -3600.0
    started = boot + 24.0
    service.active = False
    service.sub_state = "failed"
    service.result = "exit-code"
    service.exit_status = 1
    service.since_s = started + 1.2
    service.journal = [
        (started - 1.0, "Starting NVIDIA fabric manager service..."),
        (started + 0.9, "request to query NVSwitch device information from NVSwitch driver failed with error:"
                        "WARNING Nothing to do"),
        (started + 1.0, "failed to initialize NVSwitch devices, exiting"),
        (started + 1.1, "nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE"),
        (started + 1.2, "nvidia-fabricmanager.service: Failed with result 'exit-code'."),
        (started + 1.2, "Failed to start NVIDIA fabric manager service."),
    ]
    for gpu in node.gpus:
        gpu.fabric_state = "In Progress"
        gpu.fabric_status = "N/A"
    return {"node": node.name, "service": "nvidia-fabricmanager", "cause": "fabricmanager-stopped"}


def pcie_downgrade(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """A GPU's host link trained below Gen5 x16 at boot; the kernel logged the bandwidth limit."""
    node, gpu = _target(cluster, r, params)
    gen = int(str(params.get("gen") or 4))
    width = int(str(params.get("width") or 16))
    if gen not in (1, 2, 3, 4, 5) or width not in (1, 2, 4, 8, 16) or (gen, width) == (5, 16):
        raise ValueError("pcie-downgrade: gen must be 1-5 and width 1-16, and not both at maximum")
    gpu.pcie_gen_current, gpu.pcie_width_current = gen, width
    boot = node.health.boots[-1].offset_s if node.health.boots else -3600.0
    bus = int(gpu.pci_bus_id.split(":")[1], 16)
    gts = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0}
    enc = {1: 8 / 10, 2: 8 / 10, 3: 128 / 130, 4: 128 / 130, 5: 128 / 130}

    def mbps(g: int, w: int) -> int:
        return int(gts[g] * 1000 * enc[g]) * w

    have, cap = mbps(gen, width), mbps(5, 16)
    text = (f"pci 0000:{bus:02x}:00.0: {have // 1000}.{have % 1000:03d} Gb/s available PCIe bandwidth, limited by "
            f"{gts[gen]:.1f} GT/s PCIe x{width} link at 0000:{bus - 1:02x}:00.0 (capable of "
            f"{cap // 1000}.{cap % 1000:03d} Gb/s with 32.0 GT/s PCIe x16 link)")
    _log(node, [KernelEvent(boot + 1.93 + 0.01 * gpu.index, text, "info")])
    return _truth(node, gpu, "pcie-downgrade", gen=str(gen), width=str(width))


FAULTS: list[Fault] = [
    Fault("gpu-thermal", "One GPU in thermal slowdown: hot, SM clock capped, violation time growing",
          gpu_thermal, {"node": "", "gpu": None, "cap_mhz": None}),
    Fault("gpu-power-brake", "HW Power Brake Slowdown on a node's GPUs (or one GPU): clocks near the floor",
          gpu_power_brake, {"node": "", "gpu": None, "scope": "node", "cap_mhz": 86, "at": None}),
    Fault("gpu-power-cap", "One GPU's power limit lowered: SW Power Cap active, clock below boost",
          gpu_power_cap, {"node": "", "gpu": None, "limit_w": 400}),
    Fault("xid", "The driver raised an Xid on one GPU, with its kernel lines and state change",
          xid, {"node": "", "gpu": None, "code": 48, "at": None}),
    Fault("ecc-dbe-remap", "Double-bit ECC error in HBM: Xid 48, 63, 94 and a row remap pending reset",
          ecc_dbe_remap, {"node": "", "gpu": None, "at": None}),
    Fault("nvlink-down", "NVLinks of one GPU inactive after Xid 74, error counters raised",
          nvlink_down, {"node": "", "gpu": None, "links": 1, "at": None}),
    Fault("fabricmanager-stopped", "nvidia-fabricmanager failed on a node: GPUs not in the NVLink fabric",
          fabricmanager_stopped, {"node": ""}),
    Fault("pcie-downgrade", "A GPU's PCIe link trained below Gen5 x16",
          pcie_downgrade, {"node": "", "gpu": None, "gen": 4, "width": 16}),
]

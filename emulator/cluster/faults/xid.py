"""Xid faults: the driver's NVRM kernel lines for an Xid, and the state change each code makes.

Xid kernel lines follow the NVRM format ``NVRM: Xid (PCI:0000:1b:00): 48,
pid=..., name=..., <message>`` and the sequences real drivers print (a DBE is
48, then 63, then a burst of 94 naming the rank's process; a contained error
alone is 94, the row it recorded 63, then 94 per channel). The instant is
reported in the truth as ``time`` (UTC, ISO 8601); an Xid in
:data:`FATAL_TO_RANK` stops the rank on that GPU.
"""

from __future__ import annotations

import random

from emulator.cluster.faults.gpu_targets import (
    event_at,
    gpu_truth,
    log_kernel,
    pick_gpu,
    rank_process,
    utc_stamp,
)
from emulator.cluster.hardware import GPU, KernelEvent
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
#: Xids whose CUDA error reaches the rank's process at once (sticky: its NCCL watchdog meets it on its
#: next poll and aborts the process, so the job ends within seconds rather than after the collective
#: timeout), with ``cudaGetErrorString`` of that error as PyTorch prints it ("CUDA error: uncorrectable
#: NVLink error detected during the execution": MIC-DKFZ/nnUNet issue 1519, NVIDIA/srt-slurm PR 307;
#: the watchdog path: pytorch/pytorch issue 126544).
CRASHES_RANK = {74: "uncorrectable NVLink error detected during the execution"}
#: Seeded Xid instants fall this long before the start (s), so a job the error stopped has
#: already hit the 10-minute NCCL watchdog and been torn down when the learner arrives.
XID_BEFORE = (1500.0, 700.0)


def pci_tag(gpu: GPU) -> str:
    """``0000:1b:00``: how NVRM names a GPU in Xid lines."""
    return "0000:" + gpu.pci_bus_id.split(":", 1)[1].lower().rsplit(".", 1)[0]


def xid_event(gpu: GPU, at: float, code: int, pid: str, name: str, message: str, level: str = "err") -> KernelEvent:
    """One ``NVRM: Xid`` kernel line for ``gpu``, naming the process the driver blames."""
    return KernelEvent(at, f"NVRM: Xid (PCI:{pci_tag(gpu)}): {code}, pid={pid}, name={name}, {message}", level)


def gpu_banner(gpu: GPU, at: float) -> list[KernelEvent]:
    """The two lines the driver prints before a GPU's first Xid."""
    return [KernelEvent(at, f"NVRM: GPU at PCI:{pci_tag(gpu)}: {gpu.uuid}", "info"),
            KernelEvent(at, f"NVRM: GPU Board Serial Number: {gpu.serial}", "info")]


def _xid_events(cluster: Cluster, node: Node, gpu: GPU, r: random.Random, code: int, at: float) -> list[KernelEvent]:
    """Apply the state change of Xid ``code`` on ``gpu`` and return its kernel lines."""
    pid, comm = rank_process(cluster, node, gpu)
    unknown = ("'<unknown>'", "<unknown>")
    events = gpu_banner(gpu, at)
    t = at
    raised: list[int] = []

    def add(c: int, who: tuple[str, str], message: str, step: float = 0.009) -> None:
        nonlocal t
        events.append(xid_event(gpu, t, c, who[0], who[1], message))
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
        # A contained uncorrectable DRAM error: counted as uncorrectable, its row recorded for remapping at
        # the next reset (Xid 63), and the process whose channels touched it stopped (NVIDIA, "GPU memory
        # error management": XID 94 with the row-remapping pending flag; response: restart the application).
        address = r.randrange(0x1000000000, 0x13ffffffff) & ~0x1F
        gpu.ecc_volatile.dram_uncorrectable += 1
        gpu.ecc_aggregate.dram_uncorrectable += 1
        gpu.remapped_uncorrectable += 1
        gpu.remap_pending = True
        add(94, unknown, "Contained: SM (0x1). RST: No, D-RST: No", 0.008)
        add(63, unknown, f"Row Remapper: New row (0x{address:016x}) marked for remapping, reset gpu to activate.",
            0.015)
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


def _stop_rank(cluster: Cluster, node: Node, gpu: GPU, at: float, crash: str = "") -> None:
    """The training rank on ``gpu`` stops at ``at``: the others wait for it until the NCCL watchdog
    fires, or, when ``crash`` names the CUDA error its process met, it dies and the job with it."""
    run = cluster.training
    if run is None or run.hang_s is not None:
        return
    for rank in run.ranks:
        if rank.node == node.name and rank.gpu == gpu.index:
            run.hang_rank, run.hang_s, run.hang_in = rank.rank, at, "crash" if crash else "gpu"
            run.crash_error = crash


def xid(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """The driver raised Xid ``code`` on one GPU, with its kernel lines and state change."""
    code = int(str(params["code"]))
    if code not in XID_MEANINGS:
        raise ValueError(f"xid: unsupported code {code}; known: {', '.join(map(str, XID_MEANINGS))}")
    node, gpu = pick_gpu(cluster, r, params)
    at = event_at(r, params, *XID_BEFORE)
    log_kernel(node, _xid_events(cluster, node, gpu, r, code, at))
    if code in FATAL_TO_RANK:
        _stop_rank(cluster, node, gpu, at, CRASHES_RANK.get(code, ""))
    return gpu_truth(node, gpu, f"xid-{code}", xid=str(code), meaning=XID_MEANINGS[code], time=utc_stamp(cluster, at))


def ecc_dbe_remap(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """A double-bit ECC error in HBM: Xid 48 → 63 → 94, a row remap pending a GPU reset."""
    node, gpu = pick_gpu(cluster, r, params)
    at = event_at(r, params, *XID_BEFORE)
    log_kernel(node, _xid_events(cluster, node, gpu, r, 48, at))
    _stop_rank(cluster, node, gpu, at)
    return gpu_truth(node, gpu, "ecc-dbe", xid="48", remap="pending", time=utc_stamp(cluster, at))

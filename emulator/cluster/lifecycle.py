"""A compute host's life: its OS stops answering, it powers off and on, it boots.

Faults (:mod:`emulator.cluster.faults.hosts`) and out-of-band power commands
(``ipmitool power ...``) both go through these functions, so the BMC's power
state, the SEL, the boot history, the serial console and Slurm's view of the
node always tell the same story. Later changes (Slurm giving up on a silent
node, a boot reaching the login prompt) are scheduled on the simulated clock.
"""

from __future__ import annotations

from emulator.cluster import catalog
from emulator.cluster.hardware import BootRecord, KernelEvent, SelEntry
from emulator.cluster.model import Cluster, Node
from emulator.cluster.scheduler import Job, job_ended
from emulator.cluster.telemetry import psu_redundancy
from emulator.cluster.timeline import teardown_s

#: Seconds from power-on to the login prompt on an HGX node (POST, kernel, services).
BOOT_S = 240.0
#: Seconds from the kernel's start to the login prompt (the boot record's offset).
KERNEL_TO_LOGIN_S = 40.0
#: Seconds an ACPI soft shutdown takes on a healthy OS.
SOFT_OFF_S = 25.0

#: Slurm states of a node that still belongs to a job, and what they become when it ends.
_RELEASED = {"alloc": "idle", "mix": "idle", "drng": "drain"}


def sel(node: Node, offset_s: float, sensor: str, name: str, event: str, direction: str = "Asserted") -> None:
    """Append one SEL record to the node's BMC."""
    assert node.bmc is not None
    node.bmc.sel.append(SelEntry(offset_s, sensor, event, direction, name))


def lose_psu(node: Node, psu: int, at_s: float, event: str = "Failure detected") -> None:
    """Supply ``psu`` (1-6) stops delivering: its sensor asserts ``event`` (a failure, or AC lost at its
    inlet) and the BMC logs it with the redundancy sensor's new state. With 4+2 supplies the node keeps
    running after one or two losses; what more losses do is the caller's story."""
    assert node.bmc is not None
    before = psu_redundancy(node)
    for sensor in node.bmc.sensors:
        if sensor.name == f"PSU{psu} Status":
            sensor.status = "cr"
            sensor.states = ("Presence detected", event)
    sel(node, at_s, f"Power Supply #0x{0x20 + psu:02x}", f"PSU{psu} Status", event)
    if psu_redundancy(node) != before:   # the redundancy sensor logs a change of state only
        sel(node, at_s, "Power Supply #0x27", "PS Redundancy", psu_redundancy(node))


def end_job(cluster: Cluster, job: Job, state: str, at_s: float, exit_code: str, reason: str) -> None:
    """A running job reaches a final state at ``at_s``; its nodes leave the allocation."""
    slurm = cluster.slurm
    job.state, job.end_s, job.reason, job.exit_code = state, at_s, reason, exit_code
    job_ended(slurm, job)
    for other in job.nodes:
        if any(o.state == "RUNNING" and other in o.nodes for o in slurm.jobs):
            continue
        state_now = slurm.node_state.get(other, "idle")
        slurm.node_state[other] = _RELEASED.get(state_now, state_now)


def end_jobs_on(cluster: Cluster, name: str, at_s: float) -> None:
    """Kill the running jobs holding ``name`` as Slurm does on a node failure.

    The cluster runs with ``JobRequeue=0``: a batch job on a failed node ends
    in NODE_FAIL rather than being requeued.
    """
    for job in cluster.slurm.jobs:
        if job.state == "RUNNING" and name in job.nodes:
            job.failed_node = name
            end_job(cluster, job, "NODE_FAIL", at_s, "0:0", "NodeDown")


def stop_ranks_on(cluster: Cluster, name: str, at_s: float) -> None:
    """The training ranks on a host that stopped answering die with it; the others wait for them."""
    run = cluster.training
    job = cluster.slurm.job(run.job_id) if run is not None else None
    if run is None or run.hang_s is not None or job is None or job.state != "RUNNING":
        return
    lost = [r for r in run.ranks if r.node == name]
    if lost:
        run.hang_rank, run.hang_s, run.hang_in = lost[0].rank, at_s, "node"


def watch_training(cluster: Cluster) -> None:
    """Once a stopped rank's watchdog timeout has torn the run down, its job has FAILED.

    The batch script exits with srun's status 1 after its last attempt (see
    :func:`emulator.cluster.jobscript.job_script`); slurmctld records FAILED,
    ``NonZeroExitCode``, exit code ``1:0``.
    """
    down = teardown_s(cluster)
    if down is None:
        return

    def fail() -> None:
        run = cluster.training
        job = cluster.slurm.job(run.job_id) if run is not None else None
        if job is not None and job.state == "RUNNING" and teardown_s(cluster) == down:
            end_job(cluster, job, "FAILED", down, "1:0", "NonZeroExitCode")

    cluster.clock.schedule(down, fail)


def slurm_lost_contact(cluster: Cluster, node: Node, at_s: float) -> None:
    """slurmctld has not heard from the node for SlurmdTimeout: DOWN, its jobs fail."""
    if node.health.os_up:
        return
    slurm = cluster.slurm
    end_jobs_on(cluster, node.name, at_s)
    if slurm.node_state.get(node.name) in ("drain", "drng"):
        slurm.node_state[node.name] = "drain"
        return
    slurm.node_state[node.name] = "down"
    slurm.node_reason[node.name] = "Not responding"
    slurm.reason_set[node.name] = ("slurm", at_s)


def os_lost(cluster: Cluster, node: Node, at_s: float, cause: str, console: list[str]) -> None:
    """The OS stops answering at ``at_s``; Slurm notices after SlurmdTimeout."""
    health = node.health
    health.os_up = False
    health.last_seen_s = at_s
    health.down_cause = cause
    health.console = list(console)
    health.boot_done_s = None
    stop_ranks_on(cluster, node.name, at_s)
    timeout = cluster.slurm.slurmd_timeout_s
    cluster.clock.schedule(at_s + timeout, lambda: slurm_lost_contact(cluster, node, at_s + timeout))


def power_off(cluster: Cluster, node: Node, at_s: float, event: str = "command") -> None:
    """Main power goes off (a command, an overload, a fault); the BMC stays on standby power."""
    assert node.bmc is not None
    node.bmc.power_on = False
    node.bmc.last_power_event = event
    sel(node, at_s, "Power Unit #0x01", "Pwr Unit Status", "Power off/down")
    if node.health.os_up:
        os_lost(cluster, node, at_s, "powered-off", [])
    node.health.boot_done_s = None
    node.health.console = []


def power_on(cluster: Cluster, node: Node, at_s: float) -> None:
    """Main power comes on and the host starts booting."""
    assert node.bmc is not None
    if node.bmc.power_on:
        return
    node.bmc.power_on = True
    node.bmc.last_power_event = "command"
    node.bmc.restart_cause = "chassis power control command"
    sel(node, at_s, "Power Unit #0x01", "Pwr Unit Status", "Power off/down", "Deasserted")
    start_boot(cluster, node, at_s)


def reset(cluster: Cluster, node: Node, at_s: float, cycle: bool) -> None:
    """A hard reset or a power cycle of a powered host: whatever the OS did, it reboots."""
    assert node.bmc is not None
    if node.health.os_up:
        os_lost(cluster, node, at_s, "reset", [])
    node.bmc.restart_cause = "chassis power control command"
    if cycle:
        sel(node, at_s, "Power Unit #0x01", "Pwr Unit Status", "Power off/down")
        sel(node, at_s + 5.0, "Power Unit #0x01", "Pwr Unit Status", "Power off/down", "Deasserted")
        node.bmc.last_power_event = "command"
    start_boot(cluster, node, at_s)


def soft_off(cluster: Cluster, node: Node, at_s: float) -> None:
    """An ACPI power-button event: a running OS shuts down cleanly; a hung one ignores it."""
    if node.health.os_up and node.bmc and node.bmc.power_on:
        cluster.clock.schedule(at_s + SOFT_OFF_S, lambda: power_off(cluster, node, at_s + SOFT_OFF_S))


def start_boot(cluster: Cluster, node: Node, at_s: float) -> None:
    done = at_s + BOOT_S
    node.health.boot_done_s = done
    node.health.console = []
    sel(node, at_s + 70.0, "System Event #0x0c", "Sys Boot Event", "OEM System boot event")
    cluster.clock.schedule(done, lambda: finish_boot(cluster, node, done))


def finish_boot(cluster: Cluster, node: Node, done: float) -> None:
    """The boot reaches the login prompt; slurmd registers and the node returns to service."""
    health = node.health
    if health.boot_done_s != done or not (node.bmc and node.bmc.power_on):
        return  # powered off or reset again meanwhile
    cause, last_seen = health.down_cause, health.last_seen_s
    health.boot_done_s = None
    health.os_up = True
    health.down_cause = ""
    health.console = []
    kernel_start = done - KERNEL_TO_LOGIN_S
    # Keep the ending boot's log before recording the new boot: hardware built lazily after it would
    # describe the new boot, and the journal would lose the old one.
    health.earlier_kernel_log += [e for e in node.hw.kernel_log if e.offset_s < kernel_start]
    health.boots.append(BootRecord(kernel_start, catalog.VERSIONS.kernel))
    node._hw = None  # a fresh boot: new kernel log, services, counters
    if cause == "cpu-ierr":
        node.hw.kernel_log += _mce_report(cluster, node, kernel_start, last_seen)
        node.hw.kernel_log.sort(key=lambda e: e.offset_s)
    slurm = cluster.slurm
    end_jobs_on(cluster, node.name, done)  # slurmd re-registers without the jobs it had
    # ReturnToService=1: a node set DOWN for not responding returns when it registers.
    if slurm.node_state.get(node.name) == "down" and slurm.node_reason.get(node.name) == "Not responding":
        slurm.node_state[node.name] = "idle"
        slurm.node_reason.pop(node.name, None)
        slurm.reason_set.pop(node.name, None)


def maintenance_reboot(cluster: Cluster, node: Node, kernel_start: float) -> None:
    """The host was rebooted in a maintenance window, its kernel starting at ``kernel_start`` (in the past).

    The ending boot's kernel lines stay in the journal (``journalctl -b -1``); the hardware state
    (kernel log, services, counters) is rebuilt for the new boot, so faults applied after this call
    describe the new boot.
    """
    health = node.health
    health.earlier_kernel_log += [e for e in node.hw.kernel_log if e.offset_s < kernel_start]
    health.boots.append(BootRecord(kernel_start, catalog.VERSIONS.kernel))
    if node.bmc is not None:
        sel(node, kernel_start - (BOOT_S - KERNEL_TO_LOGIN_S) + 70.0, "System Event #0x0c", "Sys Boot Event",
            "OEM System boot event")
        node.bmc.sel.sort(key=lambda e: e.offset_s)
    node._hw = None


def _mce_report(cluster: Cluster, node: Node, kernel_start: float, at: float) -> list[KernelEvent]:
    """What the kernel logs on the next boot about the machine check the firmware kept."""
    cpu = next((e.name for e in reversed(node.bmc.sel) if e.event == "IERR"), "CPU0 Status") if node.bmc else ""
    socket = 1 if cpu.startswith("CPU1") else 0
    epoch = int(cluster.clock.at(at).timestamp())
    t = kernel_start + 2.31
    return [
        KernelEvent(t, "mce: [Hardware Error]: Machine check events logged", "err"),
        KernelEvent(t, f"mce: [Hardware Error]: CPU {socket * 56}: Machine Check: 0 Bank 1: bf80000000000134", "err"),
        KernelEvent(t, "mce: [Hardware Error]: TSC 0 ADDR fe0e0 MISC 86 ", "err"),
        KernelEvent(t, f"mce: [Hardware Error]: PROCESSOR 0:806f8 TIME {epoch} SOCKET {socket} "
                       f"APIC {socket * 0x80:x} microcode 2b000590", "err"),
    ]


#: Serial console lines of a boot: (seconds after power-on, text).
BOOT_CONSOLE = (
    (2.0, "BIOS Date: 11/14/2024 Ver: 2.3.1"),
    (3.0, "Press <DEL> or <F2> to enter setup, <F11> Boot Menu, <F12> Network Boot"),
    (4.0, "Initializing memory (this may take several minutes)..."),
    (150.0, "Booting from NVMe: SAMSUNG MZ1L21T9HCLS-00A07"),
    (190.0, "Loading Linux {kernel} ..."),
    (191.0, "Loading initial ramdisk ..."),
    (200.0, "[    0.000000] Linux version {kernel} (buildd@lcy02-amd64-047) {build}"),
    (225.0, "[  OK  ] Reached target Network is Online."),
    (228.0, "[  OK  ] Started OpenBSD Secure Shell server."),
    (235.0, "[  OK  ] Started Slurm node daemon."),
)


def _boot_console(cluster: Cluster, node: Node) -> list[str]:
    done = node.health.boot_done_s
    assert done is not None
    since = cluster.clock.elapsed - (done - BOOT_S)
    v = cluster.versions
    return [text.format(kernel=v.kernel, build=v.kernel_build) for at, text in BOOT_CONSOLE if at <= since]


def login_console(cluster: Cluster, node: Node) -> list[str]:
    """The console of a running host: the getty banner and login prompt."""
    return ["", f"{cluster.versions.os_name} {node.name} ttyS0", "", f"{node.name} login: "]


def console(cluster: Cluster, node: Node) -> list[str]:
    """What ``sol activate`` shows now: nothing when powered off, else the console's tail."""
    if node.bmc is None or not node.bmc.power_on:
        return []
    if node.health.os_up:
        return login_console(cluster, node)
    if node.health.boot_done_s is not None:
        return _boot_console(cluster, node)
    return list(node.health.console)

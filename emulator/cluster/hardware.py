"""The parts of one host: GPUs, NVLinks, NICs, PCIe switches, disks, BMC.

These are plain state. Tools read them and render; faults change them; the
performance model (:mod:`emulator.cluster.perf`) turns them into rates and
step times. Static facts about the hardware generation (names, limits, link
speeds) live in :mod:`emulator.cluster.catalog`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

# -- GPU ------------------------------------------------------------------------

#: Clock event reasons, in the order ``nvidia-smi -q`` prints them.
CLOCK_EVENT_REASONS = (
    "Idle",
    "Applications Clocks Setting",
    "SW Power Cap",
    "HW Slowdown",
    "HW Thermal Slowdown",
    "HW Power Brake Slowdown",
    "Sync Boost",
    "SW Thermal Slowdown",
    "Display Clock Setting",
)


@dataclass
class NVLink:
    """One NVLink of a GPU, towards an NVSwitch port."""

    index: int
    switch: int                # which NVSwitch (0-3) the link lands on
    up: bool = True
    speed_gbps: float = 26.562  # GB/s per direction as `nvidia-smi nvlink -s` prints it
    replay_errors: int = 0
    recovery_errors: int = 0
    crc_flit_errors: int = 0
    crc_data_errors: int = 0
    tx_bytes: int = 0
    rx_bytes: int = 0
    #: Error growth per simulated second on a marginal link that is still up (faults set these).
    replay_rate_per_s: float = 0.0
    crc_rate_per_s: float = 0.0


@dataclass
class EccCounts:
    sram_correctable: int = 0
    sram_uncorrectable_parity: int = 0
    sram_uncorrectable_secded: int = 0
    dram_correctable: int = 0
    dram_uncorrectable: int = 0


@dataclass
class GPU:
    """One GPU as the driver sees it. Dynamic readings are the steady-state
    values under the current load; tools add seeded per-sample jitter."""

    index: int
    uuid: str
    pci_bus_id: str            # "00000000:1B:00.0"
    serial: str
    numa_node: int
    pcie_switch: int           # index into Node.pcie_switches
    minor: int
    # -- state ------------------------------------------------------------------
    persistence_mode: bool = True
    fabric_state: str = "Completed"   # Fabric Manager registration: Completed / In Progress / Not Started
    fabric_status: str = "Success"
    sm_clock_mhz: int = 1980
    mem_clock_mhz: int = 2619
    temp_c: int = 34
    mem_temp_c: int = 42
    power_w: float = 71.0
    power_limit_w: float = 700.0
    #: What the GPU would draw in dense training at full boost, W: above the limit on a healthy H100,
    #: so the power controller sets its clock (:func:`emulator.cluster.gpu_rates.power_capped_mhz`).
    load_demand_w: float = 790.0
    util_pct: int = 0
    mem_util_pct: int = 0
    mem_used_mib: int = 0
    pstate: str = "P0"
    clock_event_reasons: set[str] = field(default_factory=lambda: {"Idle"})
    #: Seconds each slowdown reason was active, as DCGM's violation counters report.
    violation_s: dict[str, float] = field(default_factory=dict)
    pcie_gen_current: int = 5
    pcie_gen_max: int = 5
    pcie_width_current: int = 16
    pcie_width_max: int = 16
    ecc_volatile: EccCounts = field(default_factory=EccCounts)
    ecc_aggregate: EccCounts = field(default_factory=EccCounts)
    remapped_correctable: int = 0
    remapped_uncorrectable: int = 0
    remap_pending: bool = False
    remap_failure: bool = False
    remap_available_banks: int = 2560
    nvlinks: list[NVLink] = field(default_factory=list)
    #: False once the GPU "fell off the bus" (Xid 79): the driver no longer sees it.
    present: bool = True
    #: SM clock ceiling (MHz) imposed by an active slowdown (thermal, power brake,
    #: power cap); None when the GPU may boost to its maximum.
    slowdown_cap_mhz: int | None = None
    #: Degrees Celsius added at full load by poor cooling (a blocked inlet, a failed
    #: fan); a third of it shows at idle.
    cooling_deficit_c: int = 0
    #: Xid codes the driver raised on this GPU, newest last (for DCGM health and XID_ERRORS).
    xids: list[int] = field(default_factory=list)
    #: Set after an uncontained error (Xid 95, 79...): nvidia-smi -q "Reset Required".
    reset_required: bool = False


# -- NIC ------------------------------------------------------------------------

#: Counter names in the order `perfquery -x` prints them.
PORT_COUNTERS = (
    "SymbolErrorCounter",
    "LinkErrorRecoveryCounter",
    "LinkDownedCounter",
    "PortRcvErrors",
    "PortRcvRemotePhysicalErrors",
    "PortRcvSwitchRelayErrors",
    "PortXmitDiscards",
    "PortXmitConstraintErrors",
    "PortRcvConstraintErrors",
    "LocalLinkIntegrityErrors",
    "ExcessiveBufferOverrunErrors",
    "VL15Dropped",
    "PortXmitWait",
)


@dataclass
class NIC:
    """One RDMA-capable port (a ConnectX ``mlx5_N`` device with one port)."""

    name: str                  # mlx5_0
    role: str                  # "compute" (one rail per GPU) or "storage"
    pci_bus_id: str            # "0000:18:00.0"
    netdev: str                # ibp24s0 / enp41s0f0np0
    numa_node: int
    pcie_switch: int
    ca_type: str               # MT4129
    firmware: str
    node_guid: str
    port_guid: str
    link_layer: str            # "InfiniBand" or "Ethernet"
    rail: int | None = None    # for compute NICs: the GPU index it serves
    lid: int = 0
    sm_lid: int = 1
    # -- state ------------------------------------------------------------------
    state: str = "Active"      # Active / Down / Initializing / Armed
    phys_state: str = "LinkUp" # LinkUp / Disabled / Polling
    rate_gbps: int = 400       # negotiated rate
    max_rate_gbps: int = 400   # what the port and cable support
    width: str = "4X"
    mtu: int = 4096
    counters: dict[str, int] = field(default_factory=lambda: {c: 0 for c in PORT_COUNTERS})
    #: Counter growth per simulated second (faults set these; traffic grows the data words).
    counter_rates: dict[str, float] = field(default_factory=dict)
    #: Data counters (4-byte words / packets) at the clock's start.
    xmit_data: int = 0
    rcv_data: int = 0
    xmit_pkts: int = 0
    rcv_pkts: int = 0
    #: Where the cable goes: (switch name, port number).
    peer_switch: str = ""
    peer_port: int = 0
    mac: str = ""
    ipv4: str = ""
    #: Fraction of traffic lost to retransmission on a link with physical errors (0..1).
    retransmit_fraction: float = 0.0
    #: The transceiver's temperature (°C) when a fault drives it; None: its normal reading.
    module_temp_c: int | None = None
    #: IB speeds the port may train to when someone narrowed them (``mlxlink --speeds``),
    #: fastest first; empty: every speed the adapter supports.
    enabled_speeds: tuple[str, ...] = ()
    #: Receive lanes (0-based) of the transceiver that see no light.
    dark_lanes: tuple[int, ...] = ()
    #: Raw counter values at the last PMA reset (``perfquery -R``); reads count from them.
    counter_baseline: dict[str, int] = field(default_factory=dict)
    #: Raw counter values at the last clear of the adapter's own physical-layer
    #: counters (PPCNT, ``mlxlink --pc``), which a PMA reset leaves alone.
    phy_baseline: dict[str, int] = field(default_factory=dict)
    #: Offset (s) from the clock's start when the physical-layer counters were last
    #: cleared (None: at boot).
    phy_cleared_s: float | None = None
    #: Offsets (s) at which the link went down and retrained (a flapping link).
    link_down_events: list[float] = field(default_factory=list)
    #: Share of the port's rate other traffic takes on a congested path (0..1): credits
    #: wait at an oversubscribed uplink, PortXmitWait rises, no error counter moves.
    congestion_share: float = 0.0


@dataclass
class PCIeSwitch:
    """A PCIe switch under one CPU socket, with the devices behind it."""

    index: int
    numa_node: int
    bus: str                   # upstream port bus id, "0000:15:00.0"


@dataclass
class BlockDevice:
    name: str                  # nvme0n1
    model: str
    size_bytes: int
    mountpoint: str = ""
    numa_node: int = 0


# -- services and logs -------------------------------------------------------------


@dataclass
class Service:
    """A systemd unit's state (``systemctl status``)."""

    name: str                  # nvidia-fabricmanager
    description: str
    active: bool = True
    sub_state: str = "running"  # running / dead / failed / exited
    since_s: float = -86400.0   # offset from the clock's start when it entered this state
    main_pid: int = 0
    result: str = "success"     # failed units: exit-code / signal
    exit_status: int = 0
    journal: list[tuple[float, str]] = field(default_factory=list)  # (offset s, message)


@dataclass
class KernelEvent:
    """One kernel log line: ``offset_s`` from the clock's start, and its text."""

    offset_s: float
    text: str
    level: str = "info"        # err / warn / info, for `dmesg -l`


# -- out-of-band management --------------------------------------------------------


@dataclass
class SelEntry:
    offset_s: float
    sensor: str                # "Power Unit #0x01"
    event: str                 # "Power off/down"
    direction: str = "Asserted"
    #: The sensor's SDR name, which ``sel elist`` prints after its type ("Pwr Unit Status").
    name: str = ""


@dataclass
class Sensor:
    name: str
    reading: float | None
    unit: str                  # "degrees C", "Watts", "RPM", "Volts", "discrete"
    status: str = "ok"         # ok / cr / nr / ns
    entity: str = "7.1"
    sensor_id: str = ""
    #: A discrete sensor's asserted states, as ``sdr elist`` joins them ("Presence detected", ...).
    states: tuple[str, ...] = ()


@dataclass
class BMC:
    hostname: str              # node01-bmc
    ipv4: str
    mac: str
    firmware: str
    power_on: bool = True
    last_power_event: str = ""
    sel: list[SelEntry] = field(default_factory=list)
    sensors: list[Sensor] = field(default_factory=list)
    #: The BMC's accounts: user name → password (an RMCP+ session needs both right).
    users: dict[str, str] = field(default_factory=dict)
    #: What started the host last, as ``chassis restart_cause`` reports it.
    restart_cause: str = "chassis power control command"
    #: Board and system serial numbers, as ``fru print`` reports them.
    board_serial: str = ""
    system_serial: str = ""


@dataclass
class DcgmJobRecord:
    """A job the DCGM host engine records statistics for (``dcgmi stats -s``), offsets in seconds."""

    group: int
    start_s: float
    end_s: float | None = None


@dataclass
class DcgmStats:
    """The DCGM host engine's process and job statistics; they live until the host reboots.

    Jobs the Slurm prolog records are derived from the scheduler; these are what
    ``dcgmi stats`` typed on the host added or removed.
    """

    #: Groups whose process watches ``dcgmi stats -e`` turned on, with when.
    watched: dict[int, float] = field(default_factory=dict)
    jobs: dict[str, DcgmJobRecord] = field(default_factory=dict)
    #: Job IDs removed with ``-r`` or ``-a`` (the prolog's records included).
    removed: set[str] = field(default_factory=set)


@dataclass
class BootRecord:
    offset_s: float            # boot instant relative to the clock's start
    kernel: str


@dataclass
class HostHealth:
    """Whether the OS answers (ssh, Slurm) independently of the BMC."""

    os_up: bool = True
    boots: list[BootRecord] = field(default_factory=list)
    last_seen_s: float = 0.0   # for a down host: when it last answered
    #: Why the OS stopped answering (psu-failure, cpu-ierr, kernel-panic...), "" when up.
    down_cause: str = ""
    #: The serial console's last lines while the OS is down (what ``sol activate`` shows).
    console: list[str] = field(default_factory=list)
    #: Offset when a boot in progress reaches the login prompt (None: no boot pending).
    boot_done_s: float | None = None
    #: Kernel messages of earlier boots the persistent journal keeps (``journalctl -b -1``).
    earlier_kernel_log: list[KernelEvent] = field(default_factory=list)


@dataclass
class Partition:
    """A Slurm partition."""

    name: str
    nodes: list[str]
    default: bool = False
    time_limit: str = "2-00:00:00"
    state: str = "up"


@dataclass
class Cpu:
    model: str
    sockets: int
    cores_per_socket: int
    threads_per_core: int
    mhz_max: float

    @property
    def count(self) -> int:
        return self.sockets * self.cores_per_socket * self.threads_per_core

    def cpus_of_numa(self, numa: int) -> str:
        """The CPU list of one NUMA node, as ``topo -m`` prints it: ``0-55,112-167``."""
        cores = self.sockets * self.cores_per_socket
        lo = numa * self.cores_per_socket
        hi = lo + self.cores_per_socket - 1
        if self.threads_per_core == 1:
            return f"{lo}-{hi}"
        return f"{lo}-{hi},{lo + cores}-{hi + cores}"


def iso(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S")


@dataclass(frozen=True)
class StrayLoad:
    """Processes a user left running outside any Slurm job (:mod:`emulator.cluster.strays`): ``procs``
    processes of ``user`` on one node, started at offset ``start_s``, each with ``threads`` busy threads."""

    user: str
    args: str
    procs: int
    threads: int
    start_s: float
    first_pid: int

    @property
    def runnable(self) -> int:
        return self.procs * self.threads

"""``dcgmi`` (DCGM 3.3.9): discovery, diagnostics, field monitoring and health.

Every verdict is read from the model: a pending row remap fails the
deployment check, a thermal or power slowdown fails the stress tests with
violation times from telemetry, a PCIe link below Gen5 x16 fails the PCIe
bandwidth test, a stopped Fabric Manager fails every CUDA test with 'system
not yet initialized'. ``diag`` advances the simulated clock by the run's
length (seconds for ``-r 1``, about 2 minutes for ``-r 2``, about 12 for
``-r 3``).
"""

from __future__ import annotations

import getopt
import json
import random
from collections.abc import Generator
from dataclasses import dataclass, field

from emulator.cluster import telemetry
from emulator.cluster.catalog import H100
from emulator.cluster.hardware import GPU
from emulator.cluster.health import health_findings
from emulator.cluster.ids import rng
from emulator.cluster.model import Node
from emulator.commands.dcgm import stats as dcgm_stats
from emulator.commands.kit.command import Command, Context, Outcome, RawCommand

NO_HOSTENGINE = ("Error: unable to establish a connection to the specified host: localhost\n"
                 "Error: Unable to connect to host engine. Host engine connection invalid/disconnected.\n")

USAGE = """\
 dcgmi -- Command line interface for the DCGM host engine.

 Usage: dcgmi <subsystem> [options]

 Subsystems:
    discovery   Discover GPUs on the system
    diag        System validation/diagnostic
    dmon        Stats monitoring of GPUs
    health      Monitor the health of the system
    group       GPU group management
    stats       Process statistics

 Options:
    -h  --help  Displays usage information and exits.
    -v  --version  Displays the version of DCGM.
"""

#: Field id → (short name, long name, kind, column width, unit) as DCGM's field table declares them.
#: Kinds: how the value is computed and printed.
FIELDS: dict[int, tuple[str, str, str, int, str]] = {
    100: ("SMCLK", "sm_clock", "sm_mhz", 5, ""), 101: ("MMCLK", "memory_clock", "mem_mhz", 5, ""),
    140: ("MMTMP", "memory_temp", "mem_temp", 10, " C"), 150: ("TMPTR", "gpu_temp", "temp", 5, " C"),
    155: ("POWER", "power_usage", "power", 10, " W"),
    156: ("TOTEC", "total_energy_consumption", "energy", 16, " mJ"),
    203: ("GPUTL", "gpu_utilization", "util", 10, ""), 204: ("MCUTL", "mem_copy_utilization", "mem_util", 10, ""),
    230: ("XIDER", "xid_errors", "xid", 5, ""), 240: ("PVIOL", "power_violation", "pviol", 10, ""),
    241: ("TVIOL", "thermal_violation", "tviol", 10, ""), 250: ("FBTTL", "fb_total", "fb_total", 10, ""),
    251: ("FBFRE", "fb_free", "fb_free", 10, ""), 252: ("FBUSD", "fb_used", "fb_used", 10, ""),
    310: ("ESVTL", "ecc_sbe_volatile_total", "sbe", 5, ""), 311: ("EDVTL", "ecc_dbe_volatile_total", "dbe", 5, ""),
    1001: ("GRACT", "gr_engine_active", "gract", 5, ""), 1002: ("SMACT", "sm_active", "smact", 5, ""),
    1003: ("SMOCC", "sm_occupancy", "smocc", 5, ""), 1004: ("TENSO", "tensor_active", "tensor", 5, ""),
    1005: ("DRAMA", "dram_active", "dram", 5, ""), 1009: ("PCITX", "pcie_tx_bytes", "pcitx", 20, ""),
    1010: ("PCIRX", "pcie_rx_bytes", "pcirx", 20, ""), 1011: ("NVLTX", "nvlink_tx_bytes", "nvltx", 20, ""),
    1012: ("NVLRX", "nvlink_rx_bytes", "nvlrx", 20, ""),
}
#: dmon prints its header again after this many samples (then every 14).
DMON_HEADER_EVERY = 14
RULE = "_" * 83


def _wrap(text: str, width: int) -> list[str]:
    """DCGM's table cells: hard-wrapped every ``width`` characters, mid-word."""
    return [text[i:i + width] for i in range(0, len(text), width)] or [""]


# -- discovery ---------------------------------------------------------------------------


def discovery(node: Node) -> str:
    gpus = [g for g in node.gpus if g.present]
    rule = "+--------+----------------------------------------------------------------------+"
    lines = [f"{len(gpus)} GPUs found.", rule, "| GPU ID | Device Information                                                   |", rule]
    for gpu in gpus:
        for i, text in enumerate((f"Name: {H100.name}", f"PCI Bus ID: {gpu.pci_bus_id}", f"Device UUID: {gpu.uuid}")):
            lines.append(f"| {str(gpu.index) if i == 0 else '':<7}| {text:<69}|")
        lines.append(rule)
    switches = [8 + k for k in (2, 0, 3, 1)][: node.hw.nvswitches]
    lines += [f"{len(switches)} NvSwitches found.", "+-----------+", "| Switch ID |", "+-----------+"]
    lines += [f"| {s:<10}|" for s in switches]
    lines.append("+-----------+")
    return "\n".join(lines) + "\n"


def groups(node: Node) -> str:
    """``dcgmi group -l``: the two default groups DCGM creates, all GPUs and all NVSwitches."""
    rule = "+-------------------+----------------------------------------------------------+"
    lines = [rule, f"| {'GROUPS':<77}|", f"| {'2 groups found.':<77}|",
             "+===================+==========================================================+"]

    def row(left: str, text: str) -> None:
        for i, chunk in enumerate(_wrap(text, 56) if text else [""]):
            lines.append(f"| {left if i == 0 else '':<18}| {chunk:<57}|")

    gpus = ", ".join(f"GPU {g.index}" for g in node.gpus if g.present)
    switches = ", ".join(f"NvSwitch {8 + k}" for k in range(node.hw.nvswitches))
    row("Groups", "")
    for gid, name, members in ((0, "DCGM_ALL_SUPPORTED_GPUS", gpus), (1, "DCGM_ALL_SUPPORTED_NVSWITCHES", switches)):
        row(f"-> {gid}", "")
        row("   -> Group ID", str(gid))
        row("   -> Group Name", name)
        row("   -> Entities", members)
    lines.append(rule)
    return "\n".join(lines) + "\n"


# -- JSON as dcgmi prints it ---------------------------------------------------------------------


def styled_json(value: object) -> str:
    """``Json::Value::toStyledString()``: keys sorted, three-space indent, ``"key" : value``, short scalar
    arrays on one line."""
    out: list[str] = []
    _styled(value, 0, out)
    return "".join(out) + "\n"


def _styled(value: object, depth: int, out: list[str]) -> None:
    pad = "   " * depth
    if isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        out.append("{\n")
        items = sorted(value.items())
        for n, (key, child) in enumerate(items):
            out.append(f"{pad}   {json.dumps(key)} : ")
            _styled(child, depth + 1, out)
            out.append(",\n" if n + 1 < len(items) else "\n")
        out.append(pad + "}")
    elif isinstance(value, list):
        scalars = [json.dumps(v) for v in value if not isinstance(v, dict | list)]
        if not value:
            out.append("[]")
        elif len(scalars) == len(value) and 4 + 2 * (len(value) - 1) + sum(map(len, scalars)) < 74:
            out.append("[ " + ", ".join(scalars) + " ]")
        else:
            out.append("[\n")
            for n, child in enumerate(value):
                out.append(pad + "   ")
                _styled(child, depth + 1, out)
                out.append(",\n" if n + 1 < len(value) else "\n")
            out.append(pad + "]")
    else:
        out.append(json.dumps(value))


# -- diag -------------------------------------------------------------------------------------


class DiagTable:
    """Rows of the ``dcgmi diag`` result table."""

    LEFT, RIGHT = 27, 48

    def __init__(self) -> None:
        self.lines = ["Successfully ran diagnostic for group.",
                      "+---------------------------+------------------------------------------------+",
                      "| Diagnostic                | Result                                         |",
                      "+===========================+================================================+"]

    def section(self, title: str, first: bool = False) -> None:
        label = f"-----  {title}  "
        if first:
            self.lines.append(f"|{label:-<27}+{'-' * 48}|")
        else:
            self.lines.append(f"+{label:-<27}+{'-' * 48}+")

    def row(self, name: str, text: str) -> None:
        for i, chunk in enumerate(_wrap(text, 45)):
            self.lines.append(f"| {name if i == 0 else '':<26}| {chunk:<47}|")

    def end(self) -> str:
        self.lines.append("+---------------------------+------------------------------------------------+")
        return "\n".join(self.lines) + "\n"


@dataclass
class DiagTest:
    """One diagnostic test's outcome: failures by GPU index, each a list of (kind, message)."""

    name: str
    failures: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    node_wide: bool = False   # Deployment checks give one verdict for all GPUs
    skipped: bool = False


def _verdict(table: DiagTable, test: DiagTest, gpus: list[GPU]) -> None:
    """``Pass - All`` or the pass and fail GPU lists, then each failure's message rows."""
    failures = test.failures
    if test.skipped:
        table.row(test.name, "Skip - All")
        return
    if test.node_wide or not failures:
        table.row(test.name, "Fail" if failures else "Pass" if test.node_wide else "Pass - All")
    else:
        bad = sorted(failures)
        good = [g.index for g in gpus if g.index not in failures]
        if not good:
            table.row(test.name, "Fail - All")
        else:
            table.row(test.name, f"Pass - GPU{'s' if len(good) > 1 else ''}: {', '.join(map(str, good))}")
            table.row("", f"Fail - GPU{'s' if len(bad) > 1 else ''}: {', '.join(map(str, bad))}")
    for index in sorted(failures):
        for kind, message in failures[index]:
            table.row(kind, message)


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


def diag_report(ctx: Context, node: Node, level: int, only: set[int] | None = None) -> str:
    """The result table ``dcgmi diag -r LEVEL`` prints."""
    gpus = diag_gpus(node, only)
    table = DiagTable()
    table.section("Metadata", first=True)
    table.row("DCGM Version", ctx.cluster.versions.dcgm)
    table.row("Driver Version Detected", ctx.cluster.versions.driver)
    table.row("GPU Device IDs Detected", ",".join(H100.dcgm_device_id for _ in gpus))
    for n, (category, tests) in enumerate(diag_results(ctx, node, level, only)):
        table.section(category, first=n == 0)
        for test in tests:
            _verdict(table, test, gpus)
    return table.end()


def diag_json(ctx: Context, node: Node, level: int, only: set[int] | None = None) -> str:
    """``dcgmi diag -r LEVEL -j``: the same verdicts as the table, as health checks parse them.

    Deployment checks carry one result for all GPUs (``gpu_ids`` "0,1,..."),
    the others one result per GPU; a failure's messages are its ``warnings``.
    """
    gpus = diag_gpus(node, only)
    categories = []
    for category, tests in diag_results(ctx, node, level, only):
        entries = []
        for test in tests:
            if test.node_wide:
                results = [_json_result(",".join(str(g.index) for g in gpus), test, test.failures)]
            else:
                results = [_json_result(str(g.index), test, {g.index: test.failures[g.index]}
                                        if g.index in test.failures else {}) for g in gpus]
            entries.append({"name": test.name, "results": results})
        categories.append({"category": category, "tests": entries})
    document = {"DCGM GPU Diagnostic": {
        "test_categories": categories, "version": ctx.cluster.versions.dcgm,
        "Driver Version Detected": ctx.cluster.versions.driver,
        "GPU Device IDs": [H100.dcgm_device_id for _ in gpus],
        "GPU Device Serials": {str(g.index): g.serial for g in gpus}}}
    return styled_json(document)


def _json_result(gpu_ids: str, test: DiagTest, failures: dict[int, list[tuple[str, str]]]) -> dict[str, object]:
    status = "Skip" if test.skipped else "Fail" if failures else "Pass"
    result: dict[str, object] = {"gpu_ids": gpu_ids, "status": status}
    messages = [message for index in sorted(failures) for _, message in failures[index]]
    if messages:
        result["warnings"] = [{"warning": message} for message in messages]
    return result


#: Simulated length of each run level (seconds) and the pause between progress points.
DIAG_SECONDS = {1: 12.0, 2: 118.0, 3: 742.0}


# -- dmon ---------------------------------------------------------------------------------------


def _dmon_value(ctx: Context, node: Node, gpu: GPU, kind: str) -> str:
    rd = telemetry.sample(ctx.cluster, node, gpu)
    busy = rd.busy
    wobble = rng(ctx.cluster.seed, node.name, "gpu", gpu.index, "prof", int(ctx.clock.elapsed)).uniform(0.97, 1.02)
    act = min(1.0, rd.sm_mhz / H100.max_sm_mhz * wobble) if busy else 0.0
    values: dict[str, str] = {
        "sm_mhz": str(rd.sm_mhz), "mem_mhz": str(rd.mem_mhz), "mem_temp": str(rd.mem_temp_c),
        "temp": str(rd.temp_c), "power": f"{rd.power_w:.3f}",
        "energy": str(int(gpu.power_w * 1_080_000_000 + rd.power_w * 1000 * max(0.0, ctx.clock.elapsed))),
        "util": str(rd.util_pct), "mem_util": str(rd.mem_util_pct),
        "xid": str(gpu.xids[-1] if gpu.xids else 0),
        "pviol": str(int(telemetry.violation_s(ctx.cluster, gpu, "SW Power Cap") * 1e6
                         + telemetry.violation_s(ctx.cluster, gpu, "HW Power Brake Slowdown") * 1e6)),
        "tviol": str(int(telemetry.violation_s(ctx.cluster, gpu, "HW Thermal Slowdown") * 1e6)),
        "fb_total": str(H100.memory_mib), "fb_free": str(rd.mem_free_mib), "fb_used": str(rd.mem_used_mib),
        "sbe": str(gpu.ecc_volatile.sram_correctable + gpu.ecc_volatile.dram_correctable),
        "dbe": str(gpu.ecc_volatile.dram_uncorrectable + gpu.ecc_volatile.sram_uncorrectable_secded),
        "gract": f"{0.97 * act if busy else 0.0:.3f}", "smact": f"{0.91 * act if busy else 0.0:.3f}",
        "smocc": f"{0.38 * act if busy else 0.0:.3f}", "tensor": f"{0.52 * act if busy else 0.0:.3f}",
        "dram": f"{rd.mem_util_pct / 100 * 0.9:.3f}",
        "pcitx": str(412_000_000 + 2_000_000 * gpu.index if busy else 632_000),
        "pcirx": str(1_804_000_000 + 3_000_000 * gpu.index if busy else 531_000),
        "nvltx": str(int(sum(link.speed_gbps for link in gpu.nvlinks if link.up) * 1e9 * 0.31 * act)),
        "nvlrx": str(int(sum(link.speed_gbps for link in gpu.nvlinks if link.up) * 1e9 * 0.31 * act)),
    }
    return values[kind]


# -- health ---------------------------------------------------------------------------------------


def health_report(findings: list[tuple[GPU, str, str, str]]) -> str:
    rule = "+---------------------------+----------------------------------------------------------+"
    lines = [rule, "| Health Monitor Report                                                                |",
             "+===========================+==========================================================+"]

    def row(left: str, text: str) -> None:
        for i, chunk in enumerate(_wrap(text, 56) if text else [""]):
            lines.append(f"| {left if i == 0 else '':<26}| {chunk:<57}|")

    order = {"Healthy": 0, "Warning": 1, "Failure": 2}
    overall = max((f[2] for f in findings), key=lambda s: order[s], default="Healthy")
    row("Overall Health", overall)
    if findings:
        row("GPU", "")
        for index in sorted({f[0].index for f in findings}):
            mine = [f for f in findings if f[0].index == index]
            row(f"-> {index}", max((f[2] for f in mine), key=lambda s: order[s]))
            row("   -> Errors", "")
            for _, system, severity, message in mine:
                row(f"      -> {system}", severity)
                row("", message)
    lines.append(rule)
    return "\n".join(lines) + "\n"


def health_json(findings: list[tuple[GPU, str, str, str]]) -> str:
    """``dcgmi health -c -j``: the report's tree as dcgmi's JSON output (``body``/``children``/``value``,
    each message an ``overflow`` line of its system)."""
    order = {"Healthy": 0, "Warning": 1, "Failure": 2}
    body: dict[str, dict[str, object]] = {
        "Overall Health": {"value": max((f[2] for f in findings), key=lambda s: order[s], default="Healthy")}}
    gpus: dict[str, dict[str, object]] = {}
    for gpu, system, severity, message in findings:
        entity = gpus.setdefault(str(gpu.index), {"children": {"Errors": {"children": {}}}, "value": "Healthy"})
        if order[severity] > order[str(entity["value"])]:
            entity["value"] = severity
        systems = entity["children"]["Errors"]["children"]  # type: ignore[index]
        box = systems.setdefault(system, {"overflow": [], "value": severity})
        box["overflow"].append(message)
    if gpus:
        body["GPU"] = {"children": gpus}
    return styled_json({"body": body, "header": ["Health Monitor Report"]})


# -- the command -------------------------------------------------------------------------------------


class Dcgmi(RawCommand):
    name = "dcgmi"
    streams = True
    summary = "NVIDIA Data Center GPU Manager CLI: discovery, diag, dmon, health, stats"
    section = "GPU"
    notes = ("DCGM 3.3.9. diag -r 1|2|3 advances the simulated clock by the run's length. stats -j JOBID [-v] "
             "reports a Slurm job's GPUs (the prolog records each job on every node it runs on).")

    def option_strings(self) -> list[str]:
        return ["-h", "--help", "-v", "--version"]

    def subcommands(self) -> list[str]:
        return ["discovery", "diag", "dmon", "health", "group", "stats"]

    def help_text(self) -> str:
        return USAGE

    def execute(self, ctx: Context) -> Outcome:
        argv = ctx.argv[1:]
        if not argv or argv[0] in ("-h", "--help"):
            ctx.out(USAGE)
            return 0
        if argv[0] in ("-v", "--version"):
            ctx.out(f"dcgmi  version: {ctx.cluster.versions.dcgm}\n")
            return 0
        sub, rest = argv[0], argv[1:]
        handlers = {"discovery": self._discovery, "diag": self._diag, "dmon": self._dmon, "health": self._health,
                    "group": self._group, "stats": self._stats}
        if sub not in handlers:
            ctx.err(f"dcgmi: unrecognized subsystem '{sub}'\n{USAGE}")
            return 255
        if not ctx.host.gpus:
            ctx.err(NO_HOSTENGINE)
            return 255
        return handlers[sub](ctx, rest)

    def _opts(self, ctx: Context, sub: str, argv: list[str], short: str, long: list[str]) -> dict[str, str]:
        try:
            opts, rest = getopt.gnu_getopt(argv, short, long)
        except getopt.GetoptError as exc:
            raise ctx.fail(f"PARSE ERROR: \n             {exc.msg}\n\nBrief USAGE: \n   dcgmi {sub} --help\n", 255) \
                from None
        if rest:
            raise ctx.fail(f"PARSE ERROR: \n             Couldn't find match for argument '{rest[0]}'\n\n"
                           f"Brief USAGE: \n   dcgmi {sub} --help\n", 255)
        return {k.lstrip("-"): v for k, v in opts}

    def _discovery(self, ctx: Context, argv: list[str]) -> int:
        opts = self._opts(ctx, "discovery", argv, "hl", ["help", "list"])
        if "h" in opts or "help" in opts or not ({"l", "list"} & set(opts)):
            ctx.out(" discovery -- Used to discover and identify GPUs and their attributes.\n\n"
                    " Usage: dcgmi discovery -l\n")
            return 0
        ctx.out(discovery(ctx.host))
        return 0

    def _group(self, ctx: Context, argv: list[str]) -> int:
        opts = self._opts(ctx, "group", argv, "hl", ["help", "list"])
        if "h" in opts or "help" in opts or not ({"l", "list"} & set(opts)):
            ctx.out(" group -- Used to create and maintain groups of GPUs.\n\n Usage: dcgmi group -l\n")
            return 0
        ctx.out(groups(ctx.host))
        return 0

    def _diag(self, ctx: Context, argv: list[str]) -> Outcome:
        opts = self._opts(ctx, "diag", argv, "hjr:g:i:", ["help", "json", "run=", "group=", "gpuList="])
        if "h" in opts or "help" in opts:
            ctx.out(" diag -- System validation/diagnostic.\n\n Usage: dcgmi diag -r <level> [-i <gpuList>] [-j]\n"
                    "    -r  --run  Run a diagnostic: 1 (short), 2 (medium), 3 (long).\n"
                    "    -j  --json  Print the output in a json format.\n")
            return 0
        level = opts.get("r", opts.get("run"))
        if level is None:
            raise ctx.fail("PARSE ERROR: \n             Required argument missing: run\n\n"
                           "Brief USAGE: \n   dcgmi diag --help\n", 255)
        if level not in ("1", "2", "3"):
            raise ctx.fail(f"Error: Invalid test name or run level '{level}'.\n", 255)
        only = None
        wanted = opts.get("i", opts.get("gpuList"))
        if wanted is not None:
            ids = [x for x in wanted.split(",") if x]
            present = {g.index for g in ctx.host.gpus if g.present}
            if not ids or not all(x.isdecimal() and int(x) in present for x in ids):
                raise ctx.fail(f"Error: Invalid GPU ID list '{wanted}'.\n", 255)
            only = {int(x) for x in ids}
        return self._diag_run(ctx, int(level), "j" in opts or "json" in opts, only)

    def _diag_run(self, ctx: Context, level: int, as_json: bool,
                  only: set[int] | None) -> Generator[float, None, int]:
        total = DIAG_SECONDS[level]
        steps = {1: 1, 2: 2, 3: 4}[level]   # pause points: the terminal waits at most a second at each
        for _ in range(steps):
            yield total / steps
        failed = any(test.failures for _, tests in diag_results(ctx, ctx.host, level, only) for test in tests)
        ctx.out(diag_json(ctx, ctx.host, level, only) if as_json else diag_report(ctx, ctx.host, level, only))
        return 226 if failed else 0

    def _dmon(self, ctx: Context, argv: list[str]) -> Outcome:
        opts = self._opts(ctx, "dmon", argv, "he:c:d:i:l", ["help", "field-id=", "count=", "delay=", "gpu-id=",
                                                             "list"])
        if "h" in opts or "help" in opts:
            ctx.out(" dmon -- Used to monitor GPUs and their stats.\n\n"
                    " Usage: dmon -e <fieldIds> [-i <gpuIds>] [-c <count>] [-d <delay ms>]\n")
            return 0
        if "l" in opts or "list" in opts:
            ctx.out(f"{RULE}\n{'Long Name':>40}{'Short Name':>20}{'Field Id':>15}\n{RULE}\n")
            for fid, (short, long_name, *_) in FIELDS.items():
                ctx.outln(f"{long_name:<55}{short:<5}{fid:>15}")
            return 0
        spec = opts.get("e", opts.get("field-id"))
        if not spec:
            raise ctx.fail("Error: No fields were specified to monitor. Use -e to specify field IDs.\n", 255)
        try:
            fields = [int(x) for x in spec.split(",") if x]
        except ValueError:
            raise ctx.fail(f"Error: Invalid field ID list '{spec}'.\n", 255) from None
        unknown = [f for f in fields if f not in FIELDS]
        if unknown:
            raise ctx.fail(f"Error: Field ID {unknown[0]} is not a valid field ID.\n", 255)
        count_text = opts.get("c", opts.get("count", "0"))
        delay_text = opts.get("d", opts.get("delay", "1000"))
        if not count_text.isdecimal() or not delay_text.isdecimal() or int(delay_text) < 1:
            raise ctx.fail("Error: count and delay must be positive integers.\n", 255)
        count = int(count_text) or 3600
        gpus = [g for g in ctx.host.gpus if g.present]
        if "i" in opts or "gpu-id" in opts:
            wanted = opts.get("i", opts.get("gpu-id", ""))
            ids = {int(x) for x in wanted.split(",") if x.isdecimal()}
            gpus = [g for g in gpus if g.index in ids]
            if not gpus:
                raise ctx.fail(f"Error: Invalid GPU ID list '{wanted}'.\n", 255)
        return self._dmon_run(ctx, gpus, fields, min(count, 3600), int(delay_text) / 1000.0)

    def _dmon_run(self, ctx: Context, gpus: list[GPU], fields: list[int], count: int,
                  delay: float) -> Generator[float, None, int]:
        """Rows as DCGM's DeviceMonitor prints them: a 10-wide entity column, then each field left-aligned in
        its width + 6, two spaces apart; the header and unit rows come back every 14 samples."""
        widths = [FIELDS[f][3] + 6 for f in fields]
        header = "#Entity   " + "".join(f"{FIELDS[f][0][:w]:<{w + 2}}" for f, w in zip(fields, widths, strict=True))
        units = f"{'ID':<10}" + "".join(f"{FIELDS[f][4][:w]:<{w + 2}}" for f, w in zip(fields, widths, strict=True))
        ctx.outln(header)
        ctx.outln(units)
        since_header = 0
        for n in range(count):
            for gpu in gpus:
                values = [_dmon_value(ctx, ctx.host, gpu, FIELDS[f][2]) for f in fields]
                ctx.outln(f"{'GPU ' + str(gpu.index):<10}"
                          + "".join(f"{v[:w]:<{w + 2}}" for v, w in zip(values, widths, strict=True)))
            if n + 1 < count:
                yield delay
                if since_header == DMON_HEADER_EVERY:
                    ctx.outln(header)
                    ctx.outln(units)
                    since_header = 0
                since_header += 1
        return 0

    def _stats(self, ctx: Context, argv: list[str]) -> int:
        return dcgm_stats.run(ctx, self._opts(ctx, "stats", argv, dcgm_stats.SHORT, dcgm_stats.LONG))

    def _health(self, ctx: Context, argv: list[str]) -> int:
        opts = self._opts(ctx, "health", argv, "hcs:g:fj", ["help", "check", "set=", "group=", "fetch", "json"])
        if "h" in opts or "help" in opts or not opts:
            ctx.out(" health -- Used to manage the health watches of a group.\n\n"
                    " Usage: dcgmi health [-g <groupId>] -c | -f | -s <systems>\n")
            return 0
        if "s" in opts or "set" in opts:
            systems = opts.get("s", opts.get("set", ""))
            if not systems or set(systems) - set("apmcintvd"):
                raise ctx.fail(f"Error: Invalid health systems '{systems}'.\n", 255)
            ctx.outln("Health monitor systems set successfully.")
            return 0
        findings = health_findings(ctx.host)
        ctx.out(health_json(findings) if "j" in opts or "json" in opts else health_report(findings))
        return 0


def commands() -> list[Command]:
    return [Dcgmi()]

"""``dcgmi stats`` (DCGM 3.3.9): process and job statistics of the host's GPUs.

The site's Slurm prolog enables the watches and starts a DCGM job named after
each Slurm job on every node it runs on; the epilog stops it (see
``/etc/slurm/prolog.d``). So ``dcgmi stats -j 48213 -v`` on a node of the
training job reports that job's GPUs since it started. A learner may also
record their own (``-e``, ``-s``, ``-x``, ``-r``, ``-a``); the host engine
keeps them until the host reboots.

Every figure is read from the model over the job's span: power, clocks,
utilisation and memory from telemetry samples every 30 s (at most 60 per
GPU), energy from the mean power, Xid events from the kernel log of the GPU's
bus, slowdown time from the GPU's active clock event reasons. The tables are
DCGM's ``ProcessStats.cpp`` stencils: an 80-column box, a 35-character name
cell and a 39-character value cell, values too long cut to ``...``; numbers
print as C++ streams print doubles (six significant digits).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from emulator.cluster import telemetry
from emulator.cluster.hardware import GPU, DcgmJobRecord
from emulator.cluster.health import health_findings
from emulator.cluster.model import Node
from emulator.cluster.processes import processes
from emulator.commands.kit.command import Context

#: ``dcgmi stats -g`` default: every GPU of the host.
ALL_GPUS = 0x7FFFFFFF
#: The default GPU group ``dcgmi group -l`` lists, and the NVSwitch group (no GPUs).
GPU_GROUPS = (0, ALL_GPUS)
SWITCH_GROUP = 1
#: dcgmi's exit status for each DCGM return code (the code as an unsigned byte).
NO_DATA, NOT_WATCHED, NOT_CONFIGURED, BADPARAM, GENERIC, DUPLICATE = 242, 240, 251, 255, 253, 230
#: Seconds between the watches' samples (``-u`` default), and the most samples read per GPU.
UPDATE_S, MAX_SAMPLES = 30.0, 60
#: Field lookup: an Xid kernel line names the GPU's bus and the code.
XID_LINE = re.compile(r"NVRM: Xid \(PCI:0000:([0-9a-fA-F]{2}):00\): (\d+),")

RULE = "+" + "-" * 78 + "+"
FOOTER = "+" + "-" * 36 + "+" + "-" * 41 + "+"
HEALTH_NAMES = {"PCIe system": "PCIE Health", "Memory system": "Mem Health", "NVLink system": "NVLink Health",
                "Thermal system": "Thermal Health", "Power system": "Power Health"}


def _cell(text: str, width: int) -> str:
    """A stencil tag filled: padded to its width, or cut with ``...``."""
    return text.ljust(width) if len(text) <= width else text[:width - 3] + "..."


def _row(name: str, value: object) -> str:
    return f"| {_cell(name, 35)}| {_cell(str(value), 39)} |"


def _section(title: str, first: bool = False) -> str:
    label = f"{'--' if title.startswith('Compute') else '-----'}  {title}  "
    return f"|{label:-<36}+{'-' * 41}|" if first else f"+{label:-<36}+{'-' * 41}+"


def num(value: float) -> str:
    """A double as ``std::ostream`` prints it by default (``%g``, six significant digits)."""
    return f"{value:.6g}"


def ctime(ctx: Context, offset: float) -> str:
    when = ctx.clock.at(offset)
    return f"{when:%a %b} {when.day:>2} {when:%H:%M:%S %Y}"


def since_start(seconds: float) -> str:
    """``XID (Hr:Min:Sec since start)``: DCGM prints the minutes unwrapped (75 s -> ``0:01:15``,
    3725 s -> ``1:62:05``)."""
    s = int(seconds)
    return f"{s // 3600}:{s // 60:02d}:{s % 60:02d}"


# -- what the host engine holds ---------------------------------------------------------------


def _boot(node: Node) -> float:
    return node.health.boots[-1].offset_s if node.health.boots else -86_400.0


def prolog_jobs(ctx: Context, node: Node) -> dict[str, DcgmJobRecord]:
    """The records the Slurm prolog started (and the epilog stopped) since the host engine came up."""
    now = ctx.clock.elapsed
    found: dict[str, DcgmJobRecord] = {}
    for job in ctx.cluster.slurm.jobs:
        if node.name not in job.nodes or job.start_s is None or not _boot(node) <= job.start_s <= now:
            continue
        end = job.end_s if job.end_s is not None and job.end_s <= now else None
        found[str(job.job_id)] = DcgmJobRecord(ALL_GPUS, job.start_s, end)
    return found


def jobs(ctx: Context, node: Node) -> dict[str, DcgmJobRecord]:
    state = node.hw.dcgm
    merged = {name: rec for name, rec in prolog_jobs(ctx, node).items() if name not in state.removed}
    merged.update(state.jobs)
    return merged


def watched_since(ctx: Context, node: Node) -> float | None:
    """When process watches came on: the first prolog since boot, or ``dcgmi stats -e``."""
    starts = [rec.start_s for rec in prolog_jobs(ctx, node).values()] + list(node.hw.dcgm.watched.values())
    return min(starts, default=None)


# -- statistics of one GPU over a span ------------------------------------------------------------------


@dataclass
class GpuStats:
    """What DCGM's ``dcgmGpuUsageInfo_t`` holds for one GPU (or the summary of several)."""

    gpu_id: int
    start: float
    end: float | None
    energy_j: int = 0
    power: tuple[float, float, float] = (0.0, 0.0, 0.0)    # avg, max, min
    max_memory_bytes: int = 0
    sm_mhz: tuple[int, int, int] = (0, 0, 0)
    mem_mhz: tuple[int, int, int] = (0, 0, 0)
    sm_util: tuple[int, int, int] = (0, 0, 0)
    mem_util: tuple[int, int, int] = (0, 0, 0)
    sbe: int = 0
    dbe: int = 0
    xid_times: list[float] = field(default_factory=list)   # seconds after the start
    violation_pct: dict[str, float] = field(default_factory=dict)
    pids: list[tuple[int, int, int]] = field(default_factory=list)  # pid, avg SM %, avg memory %
    #: The samples each compute process was seen in: pid → (offset, reading).
    seen: dict[int, list[tuple[float, telemetry.Reading]]] = field(default_factory=dict)
    health: str = "Healthy"
    incidents: list[tuple[str, str]] = field(default_factory=list)
    #: Whether any sample was read (a GPU off the bus answers none: its figures print N/A).
    sampled: bool = False


def _triple(values: list[int]) -> tuple[int, int, int]:
    return (round(sum(values) / len(values)), max(values), min(values)) if values else (0, 0, 0)


def _active_since(gpu: GPU, reason: str) -> float | None:
    """When ``reason`` began holding the clocks: it has held them ``violation_s`` seconds at the clock's start."""
    total = gpu.violation_s.get(reason, 0.0)
    return -total if reason in gpu.clock_event_reasons and total > 0 else None


def _overlap(since: float | None, start: float, end: float) -> float:
    return 0.0 if since is None else max(0.0, end - max(start, since))


def gpu_stats(ctx: Context, node: Node, gpu: GPU, start: float, end: float | None) -> GpuStats:
    """``gpu`` from ``start`` to ``end`` (None: still running), sampled as the watches sample it."""

    stop = ctx.clock.elapsed if end is None else end
    span = max(stop - start, 1e-6)
    step = max(UPDATE_S, span / MAX_SAMPLES)
    times = [start + step * k for k in range(int(span // step) + 1)] if gpu.present else []
    samples = [telemetry.sample(ctx.cluster, node, gpu, at=t) for t in times]
    stats = GpuStats(gpu.index, start, end)
    for t, reading in zip(times, samples, strict=True):
        for proc in telemetry.processes(ctx.cluster, node, gpu, at=t):
            stats.seen.setdefault(proc.pid, []).append((t, reading))
    if samples:
        stats.sampled = True
        watts = [r.power_w for r in samples]
        stats.power = (sum(watts) / len(watts), max(watts), min(watts))
        stats.energy_j = int(stats.power[0] * span)
        stats.max_memory_bytes = max(r.mem_used_mib for r in samples) * 1024 * 1024
        stats.sm_mhz = _triple([r.sm_mhz for r in samples])
        stats.mem_mhz = _triple([r.mem_mhz for r in samples])
        stats.sm_util = _triple([r.util_pct for r in samples])
        stats.mem_util = _triple([r.mem_util_pct for r in samples])
        idle = sum(1 for r in samples if not r.busy) / len(samples)
        stats.violation_pct["Low Utilization"] = 100.0 * idle
    bus = gpu.pci_bus_id[9:11].lower()
    for event in node.hw.kernel_log:
        match = XID_LINE.search(event.text)
        if match and match.group(1).lower() == bus and start <= event.offset_s <= stop:
            stats.xid_times.append(event.offset_s - start)
            stats.dbe += match.group(2) == "48"
    power = sum(_overlap(_active_since(gpu, r), start, stop) for r in ("SW Power Cap", "HW Power Brake Slowdown"))
    thermal = _overlap(_active_since(gpu, "HW Thermal Slowdown"), start, stop)
    stats.violation_pct["Power"] = min(100.0, 100.0 * power / span)
    stats.violation_pct["Thermal"] = 100.0 * thermal / span
    for pid, readings in stats.seen.items():
        stats.pids.append((pid, round(sum(r.util_pct for _, r in readings) / len(readings)),
                           round(sum(r.mem_util_pct for _, r in readings) / len(readings))))
    order = {"Healthy": 0, "Warning": 1, "Failure": 2}
    for found_gpu, system, severity, _ in health_findings(node):
        if found_gpu is gpu:
            stats.incidents.append((HEALTH_NAMES.get(system, system), severity))
            stats.health = max(stats.health, severity, key=order.__getitem__)
    return stats


def summary(per_gpu: list[GpuStats], start: float, end: float | None) -> GpuStats:
    """The summary DCGM prints without ``-v``: sums, the mean of the means, the extremes."""
    total = GpuStats(-1, start, end)
    per_gpu = [s for s in per_gpu if s.sampled] or per_gpu
    if not per_gpu:
        return total
    total.sampled = any(s.sampled for s in per_gpu)
    order = {"Healthy": 0, "Warning": 1, "Failure": 2}
    total.energy_j = sum(s.energy_j for s in per_gpu)
    total.power = (sum(s.power[0] for s in per_gpu) / len(per_gpu), max(s.power[1] for s in per_gpu),
                   min(s.power[2] for s in per_gpu))
    total.max_memory_bytes = max(s.max_memory_bytes for s in per_gpu)
    total.sbe = sum(s.sbe for s in per_gpu)
    total.dbe = sum(s.dbe for s in per_gpu)
    total.xid_times = sorted(t for s in per_gpu for t in s.xid_times)
    for key in ("Power", "Thermal", "Low Utilization"):
        total.violation_pct[key] = max(s.violation_pct.get(key, 0.0) for s in per_gpu)
    total.pids = [p for s in per_gpu for p in s.pids]
    total.health = max((s.health for s in per_gpu), key=order.__getitem__)
    return total


# -- the report ----------------------------------------------------------------------------------------


def _edge(ctx: Context, node: Node, gpu: GPU, pid: int, absent: float, present: float) -> float:
    """The instant between ``absent`` and ``present`` where ``pid`` appears on (or leaves) ``gpu``,
    found by bisection to a tenth of a second; ``absent`` is returned whole if the process was there."""
    def holds(t: float) -> bool:
        return any(p.pid == pid for p in telemetry.processes(ctx.cluster, node, gpu, at=t))

    if holds(absent):
        return absent
    for _ in range(40):
        if abs(present - absent) < 0.1:
            break
        middle = (absent + present) / 2
        absent, present = (absent, middle) if holds(middle) else (middle, present)
    return round(present, 1)


def _triple_text(values: tuple[object, object, object] | None) -> str:
    """``Avg: a, Max: b, Min: c``; None when nothing was sampled (DCGM's blank values)."""
    shown = values or ("N/A", "N/A", "N/A")
    return f"Avg: {shown[0]}, Max: {shown[1]}, Min: {shown[2]}"


def report_block(ctx: Context, stats: GpuStats, verbose: bool, process: bool = False) -> list[str]:
    """One box: a GPU's (``-v``) or the summary's execution, performance, event and slowdown stats
    and health. ``process`` marks the per-process statistics with ``*`` as ``-p`` does."""
    star = "     *" if process else ""
    lines = [RULE, f"| {_cell(f'GPU ID: {stats.gpu_id}' if verbose else 'Summary', 77)}|",
             "+" + "=" * 36 + "+" + "=" * 41 + "+", _section("Execution Stats", first=True)]
    running = stats.end is None
    lines.append(_row("Start Time" + ("                     *" if process else ""), ctime(ctx, stats.start)))
    lines.append(_row("End Time" + ("                       *" if process else ""),
                      "Still Running" if running else ctime(ctx, stats.end or 0.0)))
    elapsed = "Still Running" if running else num(int(((stats.end or 0.0) - stats.start) * 100) / 100)
    lines.append(_row("Total Execution Time (sec)" + star, elapsed))
    if process:
        lines.append(_row("No. of Conflicting Processes   *", max(0, len(stats.pids) - 1)))
    else:
        lines.append(_row("No. of Processes", len(stats.pids)))
    lines.append(_section("Performance Stats"))
    lines.append(_row("Energy Consumed (Joules)", stats.energy_j))
    if not process:
        avg, high, low = stats.power
        power = (num(avg), num(high), num(low)) if stats.sampled else None
        lines.append(_row("Power Usage (Watts)", _triple_text(power)))
    lines.append(_row("Max GPU Memory Used (bytes)" + ("    *" if process else ""), stats.max_memory_bytes))
    if verbose:
        read = stats.sampled
        lines += [_row("SM Clock (MHz)", _triple_text(stats.sm_mhz if read else None)),
                  _row("Memory Clock (MHz)", _triple_text(stats.mem_mhz if read else None)),
                  _row("SM Utilization (%)", _triple_text(stats.sm_util if read else None)),
                  _row("Memory Utilization (%)", _triple_text(stats.mem_util if read else None)),
                  _row("PCIe Rx Bandwidth (megabytes)", _triple_text(None)),
                  _row("PCIe Tx Bandwidth (megabytes)", _triple_text(None))]
    else:
        lines.append(_row("Clocks and PCIe Performance", "Available per GPU in verbose mode"))
    lines.append(_section("Event Stats"))
    if not process:
        lines.append(_row("Single Bit ECC Errors", stats.sbe))
    lines += [_row("Double Bit ECC Errors", stats.dbe), _row("PCIe Replay Warnings", 0),
              _row("Critical XID Errors", len(stats.xid_times))]
    if verbose:
        lines += [_row("" if n else "XID (Hr:Min:Sec since start)", since_start(t))
                  for n, t in enumerate(stats.xid_times)]
    return lines


def slowdown_block(summary_stats: GpuStats) -> list[str]:
    """The slowdown rows; DCGM prints the summary's even in each GPU's ``-v`` box."""
    pct = summary_stats.violation_pct
    return [_section("Slowdown Stats"),
            _row("Due to - Power (%)", num(pct.get("Power", 0.0))),
            _row("       - Thermal (%)", num(pct.get("Thermal", 0.0))),
            _row("       - Reliability (%)", 0), _row("       - Board Limit (%)", 0),
            _row("       - Low Utilization (%)", num(pct.get("Low Utilization", 0.0))),
            _row("       - Sync Boost (%)", 0)]


def health_block(stats: GpuStats, verbose: bool) -> list[str]:
    lines = [_section("Overall Health"), _row("Overall Health", stats.health)]
    if verbose:
        lines += [_row(f"     {system}", severity) for system, severity in stats.incidents]
    return lines


def pid_block(stats: GpuStats, process: bool) -> list[str]:
    """``-v``: each compute process's mean SM and memory utilisation."""
    if not stats.pids:
        return []
    lines = [_section("Process Utilization" if process else "Compute Process Utilization")]
    for pid, sm, mem in stats.pids[:1] if process else stats.pids:
        lines += [_row("PID", pid), _row("    Avg SM Utilization (%)", sm),
                  _row("    Avg Memory Utilization (%)", mem)]
    return lines


def job_report(ctx: Context, node: Node, name: str, record: DcgmJobRecord, verbose: bool) -> str:
    gpus = [g for g in node.gpus if record.group in GPU_GROUPS]
    per_gpu = [gpu_stats(ctx, node, g, record.start_s, record.end_s) for g in gpus]
    total = summary(per_gpu, record.start_s, record.end_s)
    lines = [f"Successfully retrieved statistics for job: {name}. "]
    boxes = per_gpu if verbose else [total]
    for stats in boxes:
        lines += report_block(ctx, stats, verbose) + slowdown_block(total)
        if verbose:
            lines += pid_block(stats, process=False)
        lines += health_block(stats, verbose) + [FOOTER, ""]
    return "\n".join(lines) + "\n"


def pid_report(ctx: Context, node: Node, pid: int, since: float, verbose: bool) -> str | None:
    """``-p PID``: the GPUs the process used while the watches were on, over its life (``Still
    Running`` while it still holds a GPU)."""
    watched = [gpu_stats(ctx, node, g, since, None) for g in node.gpus]
    used = [(g, stats.seen[pid]) for g, stats in zip(node.gpus, watched, strict=True) if pid in stats.seen]
    if not used:
        return None
    gpu = used[0][0]
    first, last = min(t for _, seen in used for t, _ in seen), max(t for _, seen in used for t, _ in seen)
    # The driver's accounting knows when the process came and went; find the instants the samples bracket.
    start = _edge(ctx, node, gpu, pid, max(since, first - UPDATE_S * 2 - (last - first)), first)
    gone = not any(pid == p.pid for g, _ in used for p in telemetry.processes(ctx.cluster, node, g))
    end = _edge(ctx, node, gpu, pid, ctx.clock.elapsed, last) if gone else None

    start = max([start] + [p.start_s for p in processes(ctx.cluster, node) if p.pid == pid])
    per_gpu = [gpu_stats(ctx, node, g, start, end) for g, _ in used]
    gpus = [g for g, _ in used]
    for stats in per_gpu:
        stats.pids = [p for p in stats.pids if p[0] == pid] + [p for p in stats.pids if p[0] != pid]
    total = summary(per_gpu, start, end)
    lines = [f"Successfully retrieved process info for PID: {pid}. Process ran on {len(gpus)} GPUs."]
    for stats in per_gpu if verbose else [total]:
        lines += report_block(ctx, stats, verbose, process=True) + slowdown_block(total)
        if verbose:
            lines += pid_block(stats, process=True)
        lines += health_block(stats, verbose) + [FOOTER, ""]
    lines += ["(*) Represents a process statistic. Otherwise device statistic during ",
              "    process lifetime listed.", ""]
    return "\n".join(lines) + "\n"


# -- the sub-command ----------------------------------------------------------------------------------

HELP = """\
 stats -- Used to view process statistics.

 Usage: dcgmi stats
   dcgmi stats [--host <IP/FQDN>] [-g <groupId>] -e [-u <>] [-m <>]
   dcgmi stats [--host <IP/FQDN>] [-g <groupId>] -d
   dcgmi stats [--host <IP/FQDN>] [-g <groupId>] -p <pid> [-v]
   dcgmi stats [--host <IP/FQDN>] [-g <groupId>] -s <job id>
   dcgmi stats [--host <IP/FQDN>] -x <job id>
   dcgmi stats [--host <IP/FQDN>] -j <job id> [-v]
   dcgmi stats [--host <IP/FQDN>] -r <job id>
   dcgmi stats [--host <IP/FQDN>] -a

Flags:
  -g  --group       groupId  The GPU group to query on the specified host.
  -e  --enable               Enable system watches and start recording information.
  -d  --disable              Disable system watches and stop recording information.
  -p  --pid         pid      View statistics for the specified pid.
  -s  --jstart      job id   Start recording job statistics.
  -x  --jstop       job id   Stop recording job statistics.
  -j  --job         job id   Display job statistics.
  -r  --jremove     job id   Remove job statistics.
  -a  --jremoveall           Remove all job statistics.
  -v  --verbose              Show process information for each GPU.
  -u  --update-interval      How often to update the underlying job stats in ms.
  -m  --max-keep-age         How long to retain job stats data for in seconds.
  -h  --help                 Displays usage information and exits.
"""

SHORT = "hg:edp:s:x:j:r:avu:m:"
LONG = ["help", "group=", "enable", "disable", "pid=", "jstart=", "jstop=", "job=", "jremove=", "jremoveall",
        "verbose", "update-interval=", "max-keep-age=", "host="]
#: Short flag of each long option, so either spelling reads the same.
ALIASES = {"group": "g", "enable": "e", "disable": "d", "pid": "p", "jstart": "s", "jstop": "x", "job": "j",
           "jremove": "r", "jremoveall": "a", "verbose": "v", "update-interval": "u", "max-keep-age": "m"}


def run(ctx: Context, raw: dict[str, str]) -> int:
    """Carry out one ``dcgmi stats`` action; ``raw`` holds the parsed flags."""
    opts = {ALIASES.get(k, k): v for k, v in raw.items()}
    actions = [k for k in "edpsxjra" if k in opts]
    if "h" in opts or "help" in opts or not actions:
        ctx.out(HELP)
        return 0
    if len(actions) > 1:
        second = next(long for long, short in ALIASES.items() if short == actions[1])
        raise ctx.fail(f"Error: Mutually exclusive argument already set! for arg -{actions[1]} (--{second}).",
                       BADPARAM)
    node = ctx.host
    engine = node.hw.dcgm
    group = _number(ctx, opts.get("g", str(ALL_GPUS)), "group", "-g (--group)")
    action, value = actions[0], opts.get(actions[0], "")
    if action in "sxjr" and len(value) > 64:
        verb = {"s": "start job for group", "x": "stop job for group", "j": "stop job for group",
                "r": "stop job for group"}[action]
        raise ctx.fail(f"Error: Unable to {verb}. Return: Job ID too long.", BADPARAM)
    known = group in GPU_GROUPS or group == SWITCH_GROUP
    if action == "e":
        if not known:
            raise ctx.fail("Error: Unable to enable process watches for group. Return: The Group is not found.",
                           NOT_CONFIGURED)
        if group == SWITCH_GROUP:
            raise ctx.fail("Error: Unable to enable process watches for group. Return: Bad parameter passed to "
                           "function.", BADPARAM)
        engine.watched.setdefault(group, ctx.clock.elapsed)
        ctx.outln("Successfully started process watches.")
        return 0
    if action == "d":
        if not known:
            raise ctx.fail("Error: Unable to get group information. Return: The Group is not found", GENERIC)
        ctx.outln("Process stats watches cannot be disabled at this time.")
        return 0
    if action == "p":
        return _pid(ctx, node, group, known, _number(ctx, value, "pid", "-p (--pid)"), "v" in opts)
    records = jobs(ctx, node)
    if action == "s":
        if not known or group == SWITCH_GROUP:
            raise ctx.fail("Error: Unable to start job for group. Return: The Group is not found.", NOT_CONFIGURED)
        if not value:
            raise ctx.fail("Error: Unable to start job for group. Return: Bad parameter passed to function.",
                           BADPARAM)
        if value in records:
            raise ctx.fail("Error: Unable to start job for group. Return: This Job Id is in use. Please use another "
                           "job Id.", DUPLICATE)
        engine.jobs[value] = DcgmJobRecord(group, ctx.clock.elapsed)
        engine.removed.discard(value)
        ctx.outln(f"Successfully started recording stats for {value}.")
        return 0
    if action == "a":
        engine.jobs.clear()
        engine.removed.update(records)
        ctx.outln("Successfully removed all jobs.")
        return 0
    if value not in records:
        if action == "j":
            raise ctx.fail("Error: Unable to retrieve job statistics. Return: No data is available.", NO_DATA)
        raise ctx.fail(f"Error: Job {value} was not found.", NO_DATA)
    record = records[value]
    if action == "x":
        if record.end_s is None:
            engine.jobs[value] = DcgmJobRecord(record.group, record.start_s, ctx.clock.elapsed)
        ctx.outln(f"Successfully stopped recording stats for {value}.")
        return 0
    if action == "r":
        engine.jobs.pop(value, None)
        engine.removed.add(value)
        ctx.outln(f"Successfully removed job {value}.")
        return 0
    ctx.out(job_report(ctx, node, value, record, "v" in opts))
    return 0


def _pid(ctx: Context, node: Node, group: int, known: bool, pid: int, verbose: bool) -> int:
    since = watched_since(ctx, node)
    if since is None:
        raise ctx.fail("Error: Watches have not been enabled. Unable to get PID info.", NOT_WATCHED)
    if not known:
        raise ctx.fail(f"Error: Unable to get information for process with PID {pid}. Return: The Group is not "
                       "found.", NOT_CONFIGURED)
    text = pid_report(ctx, node, pid, since, verbose) if group in GPU_GROUPS else None
    if text is None:
        raise ctx.fail(f"Error: Unable to get information for process with PID {pid}. Return: No data is "
                       "available.", NO_DATA)
    ctx.out(text)
    return 0


def _number(ctx: Context, text: str, name: str, flag: str) -> int:
    """An integer argument as TCLAP reads it; a negative one is refused as dcgmi refuses it."""
    try:
        value = int(text, 0)
        if value > 0x7FFFFFFF:   # TCLAP reads an int
            raise ValueError(text)
    except ValueError:
        raise ctx.fail(f"Error: Couldn't read argument value from string '{text}' for arg {flag}.",
                       BADPARAM) from None
    if value < 0:
        raise ctx.fail(f"Error: Positive value expected, negative value found for arg {name}.", BADPARAM)
    return value

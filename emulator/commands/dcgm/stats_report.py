"""The boxes ``dcgmi stats -j`` and ``-p`` print, as DCGM's ``ProcessStats.cpp`` stencils draw them.

An 80-column box, a 35-character name cell and a 39-character value cell,
values too long cut to ``...``; numbers print as C++ streams print doubles
(six significant digits).
"""

from __future__ import annotations

from emulator.cluster import telemetry
from emulator.cluster.hardware import GPU, DcgmJobRecord
from emulator.cluster.model import Node
from emulator.cluster.processes import processes
from emulator.commands.dcgm.stats_figures import UPDATE_S, GpuStats, gpu_stats, summary
from emulator.commands.dcgm.stats_records import GPU_GROUPS
from emulator.commands.kit.command import Context

RULE = "+" + "-" * 78 + "+"
FOOTER = "+" + "-" * 36 + "+" + "-" * 41 + "+"


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

"""``dcgmi dmon``: DCGM's field table and one row per GPU per sample of the fields asked for.

Field values come from telemetry at the instant each row prints; ``-d`` is
the delay in milliseconds on the simulated clock, ``-c`` the sample count
(0: until Ctrl+C, at most 3600).
"""

from __future__ import annotations

from collections.abc import Generator

from emulator.cluster import telemetry
from emulator.cluster.catalog import H100
from emulator.cluster.hardware import GPU
from emulator.cluster.ids import rng
from emulator.cluster.model import Node
from emulator.commands.dcgm.options import HELP_FLAG, parse_options
from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.sampling import samples, stopped
from emulator.commands.kit.spec import Flag

#: The flags of ``dmon``.
DMON_FLAGS = (
    HELP_FLAG,
    Flag("-e", "--field-id", "FIELDS", "the field ids to monitor, comma separated"),
    Flag("-c", "--count", "N", "samples to print (0: until Ctrl+C)"),
    Flag("-d", "--delay", "MS", "milliseconds between samples"),
    Flag("-i", "--gpu-id", "GPUS", "the GPUs to monitor, comma separated"),
    Flag("-l", "--list", "", "list the fields that can be monitored"),
)


#: Field id → (short name, long name, kind, column width, unit) as DCGM's field table declares them.
#: Kinds: how the value is computed and printed.
FIELDS: dict[int, tuple[str, str, str, int, str]] = {
    100: ("SMCLK", "sm_clock", "sm_mhz", 5, ""), 101: ("MMCLK", "memory_clock", "mem_mhz", 5, ""),
    # DCGM_FI_DEV_CLOCK_THROTTLE_REASONS (DCGM_FI_DEV_CLOCKS_EVENT_REASONS since 3.3): the reasons'
    # bitmask as a decimal integer (dcgmlib/src/dcgm_fields.cpp: tag, short name, width 20).
    112: ("DVCCTR", "current_clock_throttle_reasons", "reasons", 20, ""),
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


def _dmon_value(ctx: Context, node: Node, gpu: GPU, kind: str) -> str:
    rd = telemetry.sample(ctx.cluster, node, gpu)
    busy = rd.busy
    wobble = rng(ctx.cluster.seed, node.name, "gpu", gpu.index, "prof", int(ctx.clock.elapsed)).uniform(0.97, 1.02)
    # Profiling activity is the share of the sample's cycles: a second with no kernel half the time is half as active.
    act = min(1.0, rd.sm_mhz / H100.max_sm_mhz * wobble) * rd.util_pct / 100 if busy else 0.0
    values: dict[str, str] = {
        "sm_mhz": str(rd.sm_mhz), "mem_mhz": str(rd.mem_mhz), "mem_temp": str(rd.mem_temp_c),
        "temp": str(rd.temp_c), "power": f"{rd.power_w:.3f}",
        "energy": str(int(gpu.power_w * 1_080_000_000 + rd.power_w * 1000 * max(0.0, ctx.clock.elapsed))),
        "reasons": str(telemetry.reasons_mask(rd.reasons)),
        "util": str(rd.util_pct), "mem_util": str(rd.mem_util_pct),
        "xid": str(gpu.xids[-1] if gpu.xids else 0),
        "pviol": str(int(telemetry.violation_s(ctx.cluster, gpu, "SW Power Cap", node=node) * 1e6
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


def run_dmon(ctx: Context, argv: list[str]) -> Outcome:
    opts = parse_options(ctx, "dmon", argv, DMON_FLAGS)
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
    asked = int(count_text) or None
    gpus = [g for g in ctx.host.gpus if g.present]
    if "i" in opts or "gpu-id" in opts:
        wanted = opts.get("i", opts.get("gpu-id", ""))
        ids = {int(x) for x in wanted.split(",") if x.isdecimal()}
        gpus = [g for g in gpus if g.index in ids]
        if not gpus:
            raise ctx.fail(f"Error: Invalid GPU ID list '{wanted}'.\n", 255)
    return _dmon_run(ctx, gpus, fields, asked, int(delay_text) / 1000.0)


def _dmon_run(ctx: Context, gpus: list[GPU], fields: list[int], asked: int | None,
              delay: float) -> Generator[float, None, int]:
    """Rows as DCGM's DeviceMonitor prints them: a 10-wide entity column, then each field left-aligned in
    its width + 6, two spaces apart; the header and unit rows come back every 14 samples."""
    widths = [FIELDS[f][3] + 6 for f in fields]
    header = "#Entity   " + "".join(f"{FIELDS[f][0][:w]:<{w + 2}}" for f, w in zip(fields, widths, strict=True))
    units = f"{'ID':<10}" + "".join(f"{FIELDS[f][4][:w]:<{w + 2}}" for f, w in zip(fields, widths, strict=True))
    ctx.outln(header)
    ctx.outln(units)
    since_header = 0
    count = samples(asked)
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
    return stopped(ctx, "dcgmi", asked)

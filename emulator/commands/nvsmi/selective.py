"""nvidia-smi's selective queries: ``--query-gpu``, ``--query-remapped-rows`` and ``--query-compute-apps``.

Each prints the fields asked for as CSV, one line per GPU (per process for
``--query-compute-apps``), shaped by ``--format`` (``csv`` is mandatory;
``noheader`` and ``nounits`` optional).
"""

from __future__ import annotations

from emulator.cluster import telemetry
from emulator.cluster.catalog import H100
from emulator.cluster.hardware import GPU
from emulator.commands.kit.command import Context
from emulator.commands.nvsmi.fields import FieldTable
from emulator.commands.nvsmi.query import GpuView
from emulator.commands.nvsmi.targets import BAD_COMBINATION, BadArgs, lost_gpu_message

#: ``--query-compute-apps`` fields → CSV header.
APP_FIELDS = {
    "timestamp": "timestamp", "gpu_name": "gpu_name", "gpu_bus_id": "gpu_bus_id", "gpu_serial": "gpu_serial",
    "gpu_uuid": "gpu_uuid", "pid": "pid", "process_name": "process_name", "used_memory": "used_gpu_memory [MiB]",
}
APP_ALIASES = {"name": "process_name", "used_gpu_memory": "used_memory"}


def csv_format(spec: str) -> set[str]:
    """The ``--format`` words: ``csv`` and any of ``noheader``, ``nounits``."""
    fmt = {f.strip().lower() for f in spec.split(",")}
    if "csv" not in fmt or fmt - {"csv", "noheader", "nounits"}:
        bad = sorted(fmt - {"csv", "noheader", "nounits"})
        raise BadArgs(f"ERROR: Option {bad[0]} is not recognized. Please run 'nvidia-smi -h'.\n"
                      if bad else BAD_COMBINATION)
    return fmt


def compute_apps_csv(ctx: Context, gpus: list[GPU], typed_fields: str, fmt: set[str], first: bool) -> int:
    """``--query-compute-apps``: one CSV line per compute process on ``gpus``."""
    fields = []
    for typed in (f.strip() for f in typed_fields.split(",")):
        if not typed:
            continue
        key = APP_ALIASES.get(typed.lower(), typed.lower())
        if key not in APP_FIELDS:
            raise BadArgs(f'Field "{typed}" is not a valid field to query.\n\n')
        fields.append(key)
    if not fields:
        raise BadArgs(BAD_COMBINATION)
    if first and "noheader" not in fmt:
        ctx.outln(", ".join(APP_FIELDS[f] for f in fields))
    for gpu in gpus:
        for proc in telemetry.processes(ctx.cluster, ctx.host, gpu):
            values = {"timestamp": ctx.clock.now().strftime("%Y/%m/%d %H:%M:%S.000"), "gpu_name": H100.name,
                      "gpu_bus_id": gpu.pci_bus_id, "gpu_serial": gpu.serial, "gpu_uuid": gpu.uuid,
                      "pid": str(proc.pid), "process_name": proc.name,
                      "used_memory": str(proc.used_mib) if "nounits" in fmt else f"{proc.used_mib} MiB"}
            ctx.outln(", ".join(values[f] for f in fields))
    return 0


def gpu_csv(ctx: Context, gpus: list[GPU], table: FieldTable, typed_fields: str, fmt: set[str],
            first: bool) -> int:
    """One CSV line per GPU for ``--query-gpu`` or ``--query-remapped-rows``."""
    fields = []
    for typed in typed_fields.split(","):
        if not typed.strip():
            continue
        field = table.resolve(typed)
        if field is None:
            raise BadArgs(f'Field "{typed.strip()}" is not a valid field to query.\n\n')
        fields.append(field)
    if not fields:
        raise BadArgs(BAD_COMBINATION)
    nounits = "nounits" in fmt
    if first and "noheader" not in fmt:
        ctx.outln(", ".join(f.header for f in fields))
    for gpu in gpus:
        if not gpu.present:
            ctx.out(lost_gpu_message(gpu))
            continue
        view = GpuView.of(ctx.cluster, ctx.host, gpu)
        ctx.outln(", ".join(table.value(view, f, nounits) for f in fields))
    return 0 if all(gpu.present for gpu in gpus) else 15

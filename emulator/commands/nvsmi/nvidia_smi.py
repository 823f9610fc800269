"""``nvidia-smi`` for driver 550.90.07 / CUDA 12.4, rendered from the cluster model.

nvidia-smi parses its own flags (``-i 0``, ``--id=0``, ``-lms 500``,
``--query-gpu=a,b``, sub-commands ``topo``, ``nvlink``, ``dmon``, ``pmon``),
so this command reads ``ctx.argv`` itself and answers bad input with the real
tool's wording and exit codes (2 bad arguments, 6 no such device, 9 no
driver, 15 GPU fell off the bus).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from emulator.cluster import telemetry
from emulator.cluster.catalog import H100, VERSIONS
from emulator.cluster.hardware import GPU
from emulator.commands.kit.command import Command, Context, Outcome, RawCommand
from emulator.commands.nvsmi import fields as nvsmi_fields
from emulator.commands.nvsmi import monitor as nvsmi_monitor
from emulator.commands.nvsmi import query as nvsmi_query
from emulator.commands.nvsmi import report as nvsmi_report
from emulator.commands.nvsmi import topo as nvsmi_topo

NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
             "Make sure that the latest NVIDIA driver is installed and running.\n")
BAD_COMBINATION = "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n"
NO_DEVICES = "No devices were found\n"
#: Most samples a loop (``-l``, ``dmon`` without ``-c``) prints before it stops by itself.
LOOP_CAP = 3600

HELP = """\
NVIDIA System Management Interface -- v{driver}

NVSMI provides monitoring information for Tesla and select Quadro devices.
The data is presented in either a plain text or an XML format, via stdout or a file.
NVSMI also provides several management operations for changing the device state.

Note that the functionality of NVSMI is exposed through the NVML C-based
library. See the NVIDIA developer website for more information about NVML.
Python wrappers to NVML are also available.  The output of NVSMI is
not guaranteed to be backwards compatible; NVML and the bindings are backwards
compatible.

Supported products:
- Full Support
    - All Tesla products, starting with the Kepler architecture
    - All Quadro products, starting with the Kepler architecture
    - All GRID products, starting with the Kepler architecture
    - GeForce Titan products, starting with the Kepler architecture
- Limited Support
    - All Geforce products, starting with the Kepler architecture
nvidia-smi [OPTION1 [ARG1]] [OPTION2 [ARG2]] ...

    -h,   --help                Print usage information and exit.

  LIST OPTIONS:

    -L,   --list-gpus           Display a list of GPUs connected to the system.

  SUMMARY OPTIONS:

    <no arguments>              Show a summary of GPUs connected to the system.

    [plus any of]

    -i,   --id=                 Target a specific GPU.
    -l,   --loop=               Probe until Ctrl+C at specified second interval.

  QUERY OPTIONS:

    -q,   --query               Display GPU or Unit info.

    [plus any of]

    -i,   --id=                 Target a specific GPU or Unit.
    -x,   --xml-format          Produce XML output.
    -d,   --display=            Display only selected information: MEMORY,
                                    UTILIZATION, ECC, TEMPERATURE, POWER, CLOCK,
                                    COMPUTE, PIDS, PERFORMANCE, SUPPORTED_CLOCKS,
                                    PAGE_RETIREMENT, ACCOUNTING, ENCODER_STATS,
                                    SUPPORTED_GPU_TARGET_TEMP, VOLTAGE, FBC_STATS
                                    ROW_REMAPPER, RESET_STATUS, GSP_FIRMWARE_VERSION
                                Flags can be combined with comma e.g. ECC,POWER.
                                Sampling data with max/min/avg is also returned
                                for POWER, UTILIZATION and CLOCK display types.
                                Doesn't work with -u or -x flags.
    -l,   --loop=               Probe until Ctrl+C at specified second interval.
    -lms, --loop-ms=            Probe until Ctrl+C at specified millisecond interval.

  SELECTIVE QUERY OPTIONS:

    Allows the caller to pass an explicit list of properties to query.

    [one of]

    --query-gpu                 Information about GPU.
                                Call --help-query-gpu for more info.

    [mandatory]

    --format=                   Comma separated list of format options:
                                  csv - comma separated values (MANDATORY)
                                  noheader - skip the first line with column headers
                                  nounits - don't print units for numerical
                                             values

    [plus any of]

    -i,   --id=                 Target a specific GPU or Unit.
    -l,   --loop=               Probe until Ctrl+C at specified second interval.
    -lms, --loop-ms=            Probe until Ctrl+C at specified millisecond interval.

    topo                        Displays device/system topology. "nvidia-smi topo -h" for more information.
    nvlink                      Displays device nvlink information. "nvidia-smi nvlink -h" for more information.
    dmon                        Displays device stats in scrolling format.
                                "nvidia-smi dmon -h" for more information.
    pmon                        Displays process stats in scrolling format.
                                "nvidia-smi pmon -h" for more information.

Please see the nvidia-smi(1) manual page for more detailed information.
"""

TOPO_HELP = """\
    topo -- Display topological information about the system.

    Usage: nvidia-smi topo [options]

    Options include:
    [-m | --matrix]: Display the GPUDirect communication matrix for the system.
    [-mp | --matrix_pci]: Display the GPUDirect communication matrix for the system (PCI Only).
    [-h | --help]: Display help information
"""

NVLINK_HELP = """\
    nvlink -- Display NvLink information.

    Usage: nvidia-smi nvlink [options]

    Options include:
    [-h | --help]: Display help information
    [-i | --id]: Enumeration index, PCI bus ID or UUID.

    [-l | --link]: Limit a command to a specific link.  Without this flag, all link information is displayed.
    [-s | --status]: Display link state (active/inactive).
    [-c | --capabilities]: Display link capabilities.
    [-e | --errorcounters]: Display error counters for links.
    [-gt | --getthroughput]: Display link throughput counters for specified type
                             Type can be one of the following:
                                  d - Data throughput in KiB
                                  r - Raw throughput in KiB
"""

DMON_HELP = """\
    dmon -- Device monitoring.

    Usage: nvidia-smi dmon [options]

    Options include:
    [-i | --id]:          Comma separated Enumeration index, PCI bus ID or UUID
    [-d | --delay]:       Collection delay/interval in seconds [default=1sec]
    [-c | --count]:       Collect specified number of samples and exit
    [-s | --select]:      One or more metrics [default=puc]
                          Can be any of the following:
                              p - Power Usage and Temperature
                              u - Utilization
                              c - Proc and Mem Clocks
                              v - Power and Thermal Violations
                              m - FB, Bar1 and CC Protected Memory
                              e - ECC Errors and PCIe Replay errors
                              t - PCIe Rx and Tx Throughput
    [-o | --options]:     One or more from the following:
                              D - Include Date (YYYYMMDD) in scrolling output
                              T - Include Time (HH:MM:SS) in scrolling output
    [-h | --help]:        Display help information
"""

PMON_HELP = """\
    pmon -- Process monitoring.

    Usage: nvidia-smi pmon [options]

    Options include:
    [-i | --id]:          Comma separated Enumeration index, PCI bus ID or UUID
    [-d | --delay]:       Collection delay/interval in seconds [default=1sec, max=10secs]
    [-c | --count]:       Collect specified number of samples and exit
    [-h | --help]:        Display help information
"""


#: Flags that change GPU state: flag → (what the error says nvidia-smi was unable to do, takes a value).
SETTERS = {
    "-pm": ("set persistence mode", True), "--persistence-mode": ("set persistence mode", True),
    "-pl": ("set power limit", True), "--power-limit": ("set power limit", True),
    "-lgc": ("set GPU locked clocks", True), "--lock-gpu-clocks": ("set GPU locked clocks", True),
    "-rgc": ("reset GPU locked clocks", False), "--reset-gpu-clocks": ("reset GPU locked clocks", False),
    "-ac": ("set applications clocks", True), "--applications-clocks": ("set applications clocks", True),
    "-e": ("set ECC mode", True), "--ecc-config": ("set ECC mode", True),
    "-c": ("set compute mode", True), "--compute-mode": ("set compute mode", True),
    "-r": ("reset GPU", False), "--gpu-reset": ("reset GPU", False),
}

#: ``--query-compute-apps`` fields → CSV header.
APP_FIELDS = {
    "timestamp": "timestamp", "gpu_name": "gpu_name", "gpu_bus_id": "gpu_bus_id", "gpu_serial": "gpu_serial",
    "gpu_uuid": "gpu_uuid", "pid": "pid", "process_name": "process_name", "used_memory": "used_gpu_memory [MiB]",
}
APP_ALIASES = {"name": "process_name", "used_gpu_memory": "used_memory"}


class BadArgs(Exception):
    """Arguments nvidia-smi rejects; ``text`` is its message, ``status`` its exit code."""

    def __init__(self, text: str, status: int = 2) -> None:
        super().__init__(text)
        self.text = text
        self.status = status


def _unknown(option: str) -> BadArgs:
    return BadArgs(f"ERROR: Option {option} is not recognized. Please run 'nvidia-smi -h'.\n")


class _Args:
    """A cursor over argv that understands ``-x V``, ``--long=V`` and ``--long V``."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.pos = 0

    def more(self) -> bool:
        return self.pos < len(self.argv)

    def take(self) -> str:
        word = self.argv[self.pos]
        self.pos += 1
        return word

    def value(self, inline: str | None) -> str:
        if inline is not None:
            return inline
        if not self.more():
            raise BadArgs(BAD_COMBINATION)
        return self.take()

    def optional_value(self, inline: str | None) -> str | None:
        if inline is not None:
            return inline
        if self.more() and self.argv[self.pos].isdecimal():
            return self.take()
        return None


def _split(word: str) -> tuple[str, str | None]:
    if word.startswith("--") and "=" in word:
        name, val = word.split("=", 1)
        return name, val
    return word, None


def select_gpus(gpus: list[GPU], spec: str | None) -> list[GPU]:
    """GPUs named by ``-i`` (indexes, UUIDs or PCI bus ids, comma separated)."""
    if spec is None:
        return list(gpus)
    chosen: list[GPU] = []
    for item in (s.strip() for s in spec.split(",")):
        match = None
        for gpu in gpus:
            bus = gpu.pci_bus_id.lower()
            if (item.isdecimal() and int(item) == gpu.index) or item.lower() == gpu.uuid.lower() or (
                    ":" in item and bus.endswith(item.lower().lstrip("0") or "-")):
                match = gpu
        if match is None:
            raise BadArgs(NO_DEVICES, 6)
        if match not in chosen:
            chosen.append(match)
    return chosen


def lost_gpu_message(gpu: GPU) -> str:
    return f"Unable to determine the device handle for GPU{gpu.pci_bus_id[4:]}: Unknown Error\n"


def timestamp(ctx: Context) -> str:
    """``Wed Mar 11 09:00:00 2026``: the ctime form nvidia-smi prints."""
    now = ctx.clock.now()
    return f"{now:%a %b} {now.day:>2} {now:%H:%M:%S %Y}"


# -- the summary table ----------------------------------------------------------------

RULE_FULL = "+-----------------------------------------------------------------------------------------+"
RULE_GPU = "+-----------------------------------------+------------------------+----------------------+"


def summary_table(ctx: Context, gpus: list[GPU]) -> str:
    v = ctx.cluster.versions
    lines = [
        timestamp(ctx),
        RULE_FULL,
        f"| NVIDIA-SMI {v.driver:<23}Driver Version: {v.driver:<15}CUDA Version: {v.cuda:<9}|",
        "|-----------------------------------------+------------------------+----------------------+",
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
        "|                                         |                        |               MIG M. |",
        "|=========================================+========================+======================|",
    ]
    procs: list[tuple[int, telemetry.GpuProcess]] = []
    for gpu in gpus:
        r = telemetry.sample(ctx.cluster, ctx.host, gpu)
        ecc = nvsmi_query.ecc_total(gpu.ecc_volatile, corrected=False)
        pers = "On" if gpu.persistence_mode else "Off"
        lines.append(f"|{gpu.index:>4}  {H100.name:<29}{pers:>4}  |{gpu.pci_bus_id:>19} {'Off':>3} |{ecc:>21} |")
        lines.append(f"| N/A{r.temp_c:>5}C{r.pstate:>6}{round(r.power_w):>15}W / {round(gpu.power_limit_w):>4}W |"
                     f"{r.mem_used_mib:>8}MiB / {H100.memory_mib:>6}MiB |{r.util_pct:>7}%{'Default':>13} |")
        lines.append(f"|{'':41}|{'':24}|{'Disabled':>21} |")
        lines.append(RULE_GPU)
        procs += [(gpu.index, p) for p in telemetry.processes(ctx.cluster, ctx.host, gpu)]
    lines += [
        " " * 89,
        RULE_FULL,
        "| Processes:                                                                              |",
        "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
        "|        ID   ID                                                               Usage      |",
        "|=========================================================================================|",
    ]
    if not procs:
        lines.append("|  No running processes found                                                             |")
    for index, proc in procs:
        lines.append(f"|{index:>5}   N/A  N/A{proc.pid:>10}{'C':>7}   {proc.name:<40}{f'{proc.used_mib}MiB':>12} |")
    lines.append(RULE_FULL)
    return "\n".join(lines) + "\n"


# -- the command --------------------------------------------------------------------------


#: nvidia-smi options that only read; the value-taking ones take the next word unless written ``--opt=value``.
_NVSMI_READS = frozenset({"-L", "--list-gpus", "-q", "--query", "-a", "-x", "--xml-format", "-i", "--id",
                          "-d", "--display", "--query-gpu", "--query-compute-apps", "--query-remapped-rows",
                          "--format"})
_NVSMI_VALUES = frozenset({"-i", "--id", "-d", "--display", "--query-gpu", "--query-compute-apps",
                           "--query-remapped-rows", "--format"})


def reads_only_words(words: list[str]) -> bool:
    """The summary, -L, -q and the CSV queries, and ``topo -m``; never a loop, a setter or a monitor."""
    if words and words[0] == "topo":
        return words[1:] in (["-m"], ["--matrix"])
    value_next = False
    for word in words:
        if value_next:
            value_next = False
            continue
        flag = word.split("=", 1)[0]
        if flag not in _NVSMI_READS:
            return False
        value_next = flag in _NVSMI_VALUES and "=" not in word
    return True


class NvidiaSmi(RawCommand):
    name = "nvidia-smi"
    streams = True
    summary = "NVIDIA System Management Interface: GPU state, topology, NVLink and monitoring"
    section = "GPU"
    description = "Driver 550.90.07, CUDA 12.4. Every value is read from the node's GPUs now."
    notes = ("Sub-commands: topo -m, nvlink -s|-e|-c, dmon, pmon. Changing state (-pm, -pl, -r, -lgc...) "
             "needs root, which the learner does not have.")
    _FLAGS = ("-h", "--help", "-L", "--list-gpus", "-i", "--id", "-q", "--query", "-x", "--xml-format",
              "-d", "--display", "-l", "--loop", "-lms", "--loop-ms", "--query-gpu", "--query-compute-apps",
              "--query-remapped-rows", "--format", "--help-query-gpu", "--help-query-remapped-rows",
              "-pm", "-pl", "-r", "--gpu-reset", "-lgc", "-rgc")
    _SUBCOMMANDS = ("topo", "nvlink", "dmon", "pmon")

    def pure(self, words: list[str]) -> bool:
        return reads_only_words(words)

    def option_strings(self) -> list[str]:
        return sorted(self._FLAGS)

    def subcommands(self) -> list[str]:
        return list(self._SUBCOMMANDS)

    def help_text(self) -> str:
        return HELP.format(driver=VERSIONS.driver)

    def execute(self, ctx: Context) -> Outcome:
        argv = ctx.argv[1:]
        try:
            if argv and argv[0] in self._SUBCOMMANDS:
                return self._subcommand(ctx, argv[0], argv[1:])
            return self._main(ctx, argv)
        except BadArgs as bad:
            ctx.out(bad.text)
            return bad.status

    # -- top level ----------------------------------------------------------------------
    def _main(self, ctx: Context, argv: list[str]) -> Outcome:
        opts: dict[str, Any] = {}
        cur = _Args(argv)
        while cur.more():
            word, inline = _split(cur.take())
            if word in ("-h", "--help"):
                ctx.out(self.help_text())
                return 0
            if word in ("-L", "--list-gpus"):
                opts["list"] = True
            elif word in ("-q", "--query", "-a"):
                opts["query"] = True
            elif word in ("-i", "--id"):
                opts["id"] = cur.value(inline)
            elif word in ("-x", "--xml-format"):
                opts["xml"] = True
            elif word in ("-d", "--display"):
                opts["display"] = cur.value(inline)
            elif word in ("-l", "--loop"):
                val = cur.optional_value(inline)
                opts["loop"] = float(val) if val else 5.0
            elif word in ("-lms", "--loop-ms"):
                val = cur.optional_value(inline)
                opts["loop"] = (float(val) if val else 5000.0) / 1000.0
            elif word == "--query-gpu":
                opts["fields"] = cur.value(inline)
            elif word == "--query-remapped-rows":
                opts["remapped"] = cur.value(inline)
            elif word == "--format":
                opts["format"] = cur.value(inline)
            elif word == "--query-compute-apps":
                opts["apps"] = cur.value(inline)
            elif word in SETTERS:
                opts["set"] = word
                if SETTERS[word][1]:
                    opts["set_value"] = cur.value(inline)
            elif word == "--help-query-gpu":
                ctx.out(nvsmi_fields.GPU_QUERY.help())
                return 0
            elif word == "--help-query-remapped-rows":
                ctx.out(nvsmi_fields.REMAPPED_ROWS_QUERY.help())
                return 0
            else:
                raise _unknown(word)
        if opts.get("list") and (opts.get("query") or "fields" in opts):
            raise BadArgs(BAD_COMBINATION)
        selective = sum(k in opts for k in ("fields", "apps", "remapped"))
        if selective > 1 or ("format" in opts) != bool(selective) or (opts.get("query") and selective):
            raise BadArgs(BAD_COMBINATION)
        if "display" in opts and (not opts.get("query") or opts.get("xml")):
            raise BadArgs(BAD_COMBINATION)
        if opts.get("xml") and not opts.get("query"):
            raise BadArgs(BAD_COMBINATION)
        if not ctx.host.gpus:
            ctx.out(NO_DRIVER)
            return 9
        gpus = select_gpus(ctx.host.gpus, opts.get("id"))
        if opts.get("list"):
            return self._list(ctx, gpus)
        if "set" in opts:
            return self._setter(ctx, gpus, opts["set"])
        if "fields" in opts:
            table, typed = nvsmi_fields.GPU_QUERY, opts["fields"]
            return self._loop(ctx, opts.get("loop"), lambda first: self._csv(ctx, gpus, table, typed, opts, first))
        if "remapped" in opts:
            table, typed = nvsmi_fields.REMAPPED_ROWS_QUERY, opts["remapped"]
            return self._loop(ctx, opts.get("loop"), lambda first: self._csv(ctx, gpus, table, typed, opts, first))
        if "apps" in opts:
            return self._loop(ctx, opts.get("loop"), lambda first: self._apps(ctx, gpus, opts, first))
        if opts.get("xml"):
            return self._loop(ctx, opts.get("loop"), lambda first: self._xml(ctx, gpus))
        if opts.get("query"):
            sections = self._sections(opts.get("display"))
            return self._loop(ctx, opts.get("loop"), lambda first: self._report(ctx, gpus, sections))
        return self._loop(ctx, opts.get("loop"), lambda first: self._summary(ctx, gpus))

    def _loop(self, ctx: Context, interval: float | None, render: Any) -> Outcome:
        if interval is None:
            return render(True)
        return self._looping(ctx, max(interval, 0.001), render)

    def _looping(self, ctx: Context, interval: float, render: Any) -> Generator[float, None, int]:
        status = 0
        for n in range(LOOP_CAP):
            status = render(n == 0)
            if status:
                return status
            yield interval
        return status

    def _lost(self, ctx: Context, gpus: list[GPU]) -> int:
        for gpu in gpus:
            if not gpu.present:
                ctx.out(lost_gpu_message(gpu))
                return 15
        return 0

    def _summary(self, ctx: Context, gpus: list[GPU]) -> int:
        status = self._lost(ctx, gpus)
        if status:
            return status
        ctx.out(summary_table(ctx, gpus))
        return 0

    def _list(self, ctx: Context, gpus: list[GPU]) -> int:
        status = 0
        for gpu in gpus:
            if gpu.present:
                ctx.outln(f"GPU {gpu.index}: {H100.name} (UUID: {gpu.uuid})")
            else:
                ctx.out(lost_gpu_message(gpu).replace("for GPU", "for gpu "))
                status = 15
        return status

    def _sections(self, display: str | None) -> set[str] | None:
        if display is None:
            return None
        wanted = {d.strip().upper() for d in display.split(",") if d.strip()}
        if not wanted or wanted - set(nvsmi_query.DISPLAY_TYPES):
            raise BadArgs(BAD_COMBINATION)
        return wanted

    def _report(self, ctx: Context, gpus: list[GPU], sections: set[str] | None) -> int:
        stamp = timestamp(ctx)
        lines = nvsmi_report.report_header(ctx.cluster, ctx.host, stamp)
        status = 0
        for gpu in gpus:
            # A GPU the driver lost still counts as attached; its block is the handle error, then the rest follow.
            if not gpu.present:
                lines.append(lost_gpu_message(gpu).rstrip("\n"))
                status = 15
                continue
            lines += nvsmi_report.text_lines(nvsmi_query.GpuView.of(ctx.cluster, ctx.host, gpu), sections)
            lines.append("")
        ctx.out("\n".join(lines) + "\n")
        return status

    def _xml(self, ctx: Context, gpus: list[GPU]) -> int:
        # As in the text report, a lost GPU's handle error stands in its place and the others follow.
        views: list[nvsmi_query.GpuView | str] = [
            nvsmi_query.GpuView.of(ctx.cluster, ctx.host, gpu) if gpu.present else lost_gpu_message(gpu).rstrip("\n")
            for gpu in gpus]
        ctx.out(nvsmi_report.xml_log(ctx.cluster, ctx.host, timestamp(ctx), views))
        return 0 if all(gpu.present for gpu in gpus) else 15

    def _setter(self, ctx: Context, gpus: list[GPU], flag: str) -> int:
        what = SETTERS[flag][0]
        if flag in ("-r", "--gpu-reset"):
            ctx.out("The following GPUs could not be reset:\n"
                    + "".join(f"  GPU {g.pci_bus_id}: Insufficient Permissions\n" for g in gpus[:1]) + "\n")
            return 4
        ctx.out(f"Unable to {what} for GPU {gpus[0].pci_bus_id}: Insufficient Permissions\n"
                "Terminating early due to previous errors.\n")
        return 4

    @staticmethod
    def _format(opts: dict[str, Any]) -> set[str]:
        fmt = {f.strip().lower() for f in opts["format"].split(",")}
        if "csv" not in fmt or fmt - {"csv", "noheader", "nounits"}:
            bad = sorted(fmt - {"csv", "noheader", "nounits"})
            raise BadArgs(f"ERROR: Option {bad[0]} is not recognized. Please run 'nvidia-smi -h'.\n"
                          if bad else BAD_COMBINATION)
        return fmt

    def _apps(self, ctx: Context, gpus: list[GPU], opts: dict[str, Any], first: bool) -> int:
        fmt = self._format(opts)
        fields = []
        for typed in (f.strip() for f in opts["apps"].split(",")):
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

    def _csv(self, ctx: Context, gpus: list[GPU], table: nvsmi_fields.FieldTable, typed_fields: str,
             opts: dict[str, Any], first: bool) -> int:
        """One CSV line per GPU for ``--query-gpu`` or ``--query-remapped-rows``."""
        fmt = self._format(opts)
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
            view = nvsmi_query.GpuView.of(ctx.cluster, ctx.host, gpu)
            ctx.outln(", ".join(table.value(view, f, nounits) for f in fields))
        return 0 if all(gpu.present for gpu in gpus) else 15

    # -- sub-commands ---------------------------------------------------------------------
    def _subcommand(self, ctx: Context, sub: str, argv: list[str]) -> Outcome:
        helps = {"topo": TOPO_HELP, "nvlink": NVLINK_HELP, "dmon": DMON_HELP, "pmon": PMON_HELP}
        if any(a in ("-h", "--help") for a in argv):
            ctx.out(helps[sub])
            return 0
        opts: dict[str, Any] = {}
        cur = _Args(argv)
        while cur.more():
            word, inline = _split(cur.take())
            key = {"-m": "matrix", "--matrix": "matrix", "-i": "id", "--id": "id", "-s": "select",
                   "--status": "select", "--select": "select", "-e": "errors", "--errorcounters": "errors",
                   "-c": "count", "--count": "count", "--capabilities": "caps", "-d": "delay",
                   "--delay": "delay", "-o": "options", "--options": "options", "-l": "link",
                   "--link": "link", "-gt": "throughput", "--getthroughput": "throughput"}.get(word)
            if key is None:
                raise BadArgs(f"ERROR: Option {word} is not recognized. Please run 'nvidia-smi {sub} -h'.\n")
            takes_value = key in ("id", "delay", "options", "link", "throughput") or (
                sub in ("dmon", "pmon") and key in ("select", "count"))
            opts[key] = cur.value(inline) if takes_value else True
        if not ctx.host.gpus:
            ctx.out(NO_DRIVER)
            return 9
        gpus = select_gpus(ctx.host.gpus, opts.get("id"))
        status = self._lost(ctx, gpus) if sub != "nvlink" else 0
        if status:
            return status
        if sub == "topo":
            if not opts.get("matrix"):
                ctx.out(TOPO_HELP)
                return 0
            ctx.out(nvsmi_topo.topo_matrix(ctx.host))
            return 0
        if sub == "nvlink":
            return self._nvlink(ctx, gpus, opts)
        count = self._number(opts.get("count"), sub, minimum=1) if "count" in opts else LOOP_CAP
        delay = self._number(opts.get("delay"), sub, minimum=1) if "delay" in opts else 1
        if sub == "dmon":
            select = str(opts.get("select", "puc"))
            if not select or set(select) - set(nvsmi_monitor.DMON_ORDER):
                raise BadArgs(f"Invalid metric selection: {select}. Please run 'nvidia-smi dmon -h'.\n")
            return self._dmon(ctx, gpus, nvsmi_monitor.dmon_columns(select), count, delay,
                              str(opts.get("options", "")).upper())
        return self._pmon(ctx, gpus, count, delay)

    def _number(self, value: Any, sub: str, minimum: int) -> int:
        text = str(value)
        if not text.isdecimal() or int(text) < minimum:
            raise BadArgs(f"Invalid value: {text}. Please run 'nvidia-smi {sub} -h'.\n")
        return min(int(text), LOOP_CAP)

    def _nvlink(self, ctx: Context, gpus: list[GPU], opts: dict[str, Any]) -> int:
        mode = "errors" if opts.get("errors") else "caps" if opts.get("caps") or opts.get("count") else (
            "status" if opts.get("select") else "throughput" if "throughput" in opts else "")
        if not mode:
            ctx.out(NVLINK_HELP)
            return 0
        if mode == "throughput" and str(opts["throughput"]).lower() not in ("d", "r"):
            raise BadArgs(f"Invalid throughput type: {opts['throughput']}. Please run 'nvidia-smi nvlink -h'.\n")
        for gpu in gpus:
            if not gpu.present:
                ctx.out(lost_gpu_message(gpu))
                return 15
            if mode == "throughput":
                lines = nvsmi_topo.nvlink_throughput(ctx.cluster, ctx.host, gpu)
            else:
                render = {"status": nvsmi_topo.nvlink_status, "errors": nvsmi_topo.nvlink_errors,
                          "caps": nvsmi_topo.nvlink_capabilities}[mode]
                lines = render(ctx.cluster, gpu)
            if "link" in opts:
                link = str(opts["link"])
                lines = [lines[0]] + [ln for ln in lines[1:] if ln.startswith(f"\t Link {link}:")
                                      or ln.startswith(f"\t Link {link},")]
            ctx.out("\n".join(lines) + "\n")
        return 0

    def _dmon(self, ctx: Context, gpus: list[GPU], columns: list[tuple[str, str]], count: int, delay: int,
              options: str) -> Generator[float, None, int]:
        stamps = [(name, unit, fmt) for letter, name, unit, fmt in
                  (("D", "Date", "YYYYMMDD", "%Y%m%d"), ("T", "Time", "HH:MM:SS", "%H:%M:%S")) if letter in options]
        header = nvsmi_monitor.dmon_header(columns)
        if stamps:
            header = ["#" + "".join(f"{name:<9}" for name, _, _ in stamps) + "  " + header[0][2:],
                      "#" + "".join(f"{unit:<9}" for _, unit, _ in stamps) + "  " + header[1][2:]]
        ctx.out("\n".join(header) + "\n")
        for n in range(count):
            now = ctx.clock.now()
            stamp = (" " + "".join(f"{now.strftime(fmt):<9}" for _, _, fmt in stamps)) if stamps else ""
            for gpu in gpus:
                ctx.outln(stamp + nvsmi_monitor.dmon_line(ctx.cluster, ctx.host, gpu, columns))
            if n + 1 < count:
                yield float(delay)
        return 0

    def _pmon(self, ctx: Context, gpus: list[GPU], count: int, delay: int) -> Generator[float, None, int]:
        ctx.out("\n".join(nvsmi_monitor.PMON_HEADER) + "\n")
        for n in range(count):
            for gpu in gpus:
                for line in nvsmi_monitor.pmon_lines(ctx.cluster, ctx.host, gpu):
                    ctx.outln(line)
            if n + 1 < count:
                yield float(delay)
        return 0


def commands() -> list[Command]:
    return [NvidiaSmi()]

"""nvidia-smi's sub-commands: ``topo``, ``nvlink``, ``dmon`` and ``pmon``, each with its own flags.

``topo -m`` prints the matrix, ``topo -p2p r|w|n|a|p`` the GPU pairs' P2P status, ``nvlink -s|-e|-c|-gt`` the links of each GPU,
``dmon`` and ``pmon`` one sample per ``-d`` seconds until ``-c`` samples (or
Ctrl+C). Without an action ``topo`` and ``nvlink`` print their help.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from emulator.cluster.hardware import GPU
from emulator.cluster.peers import CAPABILITIES
from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.sampling import samples, stopped
from emulator.commands.nvsmi import monitor as nvsmi_monitor
from emulator.commands.nvsmi import topo as nvsmi_topo
from emulator.commands.nvsmi.help_pages import NVLINK_HELP, SUBCOMMAND_HELP, TOPO_HELP
from emulator.commands.nvsmi.options import Cursor, split_inline
from emulator.commands.nvsmi.targets import NO_DRIVER, BadArgs, lost_gpu_message, report_lost, select_gpus

#: Each sub-command flag → the option it sets (one table for all four sub-commands, as nvidia-smi reads them).
SUBCOMMAND_KEYS = {
    "-m": "matrix", "--matrix": "matrix", "-i": "id", "--id": "id", "-s": "select", "--status": "select",
    "--select": "select", "-e": "errors", "--errorcounters": "errors", "-c": "count", "--count": "count",
    "--capabilities": "caps", "-d": "delay", "--delay": "delay", "-o": "options", "--options": "options",
    "-l": "link", "--link": "link", "-gt": "throughput", "--getthroughput": "throughput",
    "-p2p": "p2p", "--p2pstatus": "p2p",
}


def parse_subcommand(sub: str, argv: list[str]) -> dict[str, Any]:
    """The options of ``nvidia-smi SUB ...``; ``-s`` and ``-c`` take a value under dmon and pmon only."""
    opts: dict[str, Any] = {}
    cur = Cursor(argv)
    while cur.more():
        word, inline = split_inline(cur.take())
        key = SUBCOMMAND_KEYS.get(word)
        if key is None:
            raise BadArgs(f"ERROR: Option {word} is not recognized. Please run 'nvidia-smi {sub} -h'.\n")
        if key == "p2p" and sub != "topo":
            raise BadArgs(f"ERROR: Option {word} is not recognized. Please run 'nvidia-smi {sub} -h'.\n")
        if key == "p2p" and inline is None and not cur.more():
            raise BadArgs(f'Option "{word}" is missing its value.\n')
        takes_value = key in ("id", "delay", "options", "link", "throughput", "p2p") or (
            sub in ("dmon", "pmon") and key in ("select", "count"))
        opts[key] = cur.value(inline) if takes_value else True
    return opts


def run_subcommand(ctx: Context, sub: str, argv: list[str]) -> Outcome:
    """Run ``nvidia-smi SUB argv...``."""
    if any(a in ("-h", "--help") for a in argv):
        ctx.out(SUBCOMMAND_HELP[sub])
        return 0
    opts = parse_subcommand(sub, argv)
    if not ctx.host.gpus:
        ctx.out(NO_DRIVER)
        return 9
    gpus = select_gpus(ctx.host.gpus, opts.get("id"))
    status = report_lost(ctx, gpus) if sub != "nvlink" else 0
    if status:
        return status
    if sub == "topo":
        if "p2p" in opts:
            capability = str(opts["p2p"])
            if capability not in CAPABILITIES:
                raise BadArgs(f"Invalid value: {capability}. Please run 'nvidia-smi topo -h'.\n")
            ctx.out(nvsmi_topo.p2p_matrix(ctx.host, capability))
            return 0
        if not opts.get("matrix"):
            ctx.out(TOPO_HELP)
            return 0
        ctx.out(nvsmi_topo.topo_matrix(ctx.host))
        return 0
    if sub == "nvlink":
        return _nvlink(ctx, gpus, opts)
    count = _number(opts.get("count"), sub, minimum=1) if "count" in opts else None
    delay = _number(opts.get("delay"), sub, minimum=1) if "delay" in opts else 1
    if sub == "dmon":
        select = str(opts.get("select", "puc"))
        if not select or set(select) - set(nvsmi_monitor.DMON_ORDER):
            raise BadArgs(f"Invalid metric selection: {select}. Please run 'nvidia-smi dmon -h'.\n")
        return _dmon(ctx, gpus, nvsmi_monitor.dmon_columns(select), count, delay, str(opts.get("options", "")).upper())
    return _pmon(ctx, gpus, count, delay)


def _number(value: Any, sub: str, minimum: int) -> int:
    text = str(value)
    if not text.isdecimal() or int(text) < minimum:
        raise BadArgs(f"Invalid value: {text}. Please run 'nvidia-smi {sub} -h'.\n")
    return int(text)


def _nvlink(ctx: Context, gpus: list[GPU], opts: dict[str, Any]) -> int:
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


def _dmon(ctx: Context, gpus: list[GPU], columns: list[tuple[str, str]], count: int | None, delay: int,
          options: str) -> Generator[float, None, int]:
    stamps = [(name, unit, fmt) for letter, name, unit, fmt in
              (("D", "Date", "YYYYMMDD", "%Y%m%d"), ("T", "Time", "HH:MM:SS", "%H:%M:%S")) if letter in options]
    header = nvsmi_monitor.dmon_header(columns)
    if stamps:
        header = ["#" + "".join(f"{name:<9}" for name, _, _ in stamps) + "  " + header[0][2:],
                  "#" + "".join(f"{unit:<9}" for _, unit, _ in stamps) + "  " + header[1][2:]]
    ctx.out("\n".join(header) + "\n")
    total = samples(count)
    for n in range(total):
        now = ctx.clock.now()
        stamp = (" " + "".join(f"{now.strftime(fmt):<9}" for _, _, fmt in stamps)) if stamps else ""
        for gpu in gpus:
            ctx.outln(stamp + nvsmi_monitor.dmon_line(ctx.cluster, ctx.host, gpu, columns))
        if n + 1 < total:
            yield float(delay)
    return stopped(ctx, "nvidia-smi", count)


def _pmon(ctx: Context, gpus: list[GPU], count: int | None, delay: int) -> Generator[float, None, int]:
    ctx.out("\n".join(nvsmi_monitor.PMON_HEADER) + "\n")
    total = samples(count)
    for n in range(total):
        for gpu in gpus:
            for line in nvsmi_monitor.pmon_lines(ctx.cluster, ctx.host, gpu):
                ctx.outln(line)
        if n + 1 < total:
            yield float(delay)
    return stopped(ctx, "nvidia-smi", count)

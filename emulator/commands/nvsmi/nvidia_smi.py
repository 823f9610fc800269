"""``nvidia-smi`` for driver 550.90.07 / CUDA 12.4, rendered from the cluster model.

nvidia-smi parses its own flags (``-i 0``, ``--id=0``, ``-lms 500``,
``--query-gpu=a,b``, sub-commands ``topo``, ``nvlink``, ``dmon``, ``pmon``),
so this command reads ``ctx.argv`` itself (:mod:`emulator.commands.nvsmi.options`)
and answers bad input with the real tool's wording and exit codes (2 bad
arguments, 6 no such device, 9 no driver, 15 GPU fell off the bus). This
module runs the top level: the summary, ``-L``, ``-q`` (text or XML), the
selective queries, and any of them in a loop.
"""

from __future__ import annotations

from collections.abc import Callable, Generator

from emulator.cluster.catalog import H100, VERSIONS
from emulator.cluster.hardware import GPU
from emulator.commands.kit.command import Command, Context, Outcome, RawCommand
from emulator.commands.kit.sampling import samples, stopped
from emulator.commands.nvsmi import fields as nvsmi_fields
from emulator.commands.nvsmi import query as nvsmi_query
from emulator.commands.nvsmi import report as nvsmi_report
from emulator.commands.nvsmi.help_pages import HELP, SUBCOMMAND_HELP
from emulator.commands.nvsmi.modify import refuse
from emulator.commands.nvsmi.options import FLAGS, check_combination, parse_options, reads_only_words
from emulator.commands.nvsmi.selective import compute_apps_csv, csv_format, gpu_csv
from emulator.commands.nvsmi.subcommands import run_subcommand
from emulator.commands.nvsmi.summary import summary_table, timestamp
from emulator.commands.nvsmi.targets import (
    BAD_COMBINATION,
    NO_DRIVER,
    BadArgs,
    lost_gpu_message,
    report_lost,
    select_gpus,
)

#: A render of one sample: given whether it is the first, it prints and returns the status.
Render = Callable[[bool], int]
#: What each help flag prints.
HELP_PAGES: dict[str, Callable[[], str]] = {
    "help": lambda: HELP.format(driver=VERSIONS.driver),
    "help-query-gpu": nvsmi_fields.GPU_QUERY.help,
    "help-query-remapped-rows": nvsmi_fields.REMAPPED_ROWS_QUERY.help,
}


class NvidiaSmi(RawCommand):
    name = "nvidia-smi"
    streams = True
    needs_gpus = True
    summary = "NVIDIA System Management Interface: GPU state, topology, NVLink and monitoring"
    section = "GPU"
    description = "Driver 550.90.07, CUDA 12.4. Every value is read from the node's GPUs now."
    notes = ("Sub-commands: topo -m, topo -p2p r|w|n|a|p, nvlink -s|-e|-c, dmon, pmon. Changing state (-pm, -pl, -r, -lgc...) "
             "needs root, which the learner does not have.")
    flags = FLAGS
    words = tuple(SUBCOMMAND_HELP)
    synopsis = "[OPTION1 [ARG1]] [OPTION2 [ARG2]] ... | topo|nvlink|dmon|pmon [options]"

    def pure(self, words: list[str]) -> bool:
        return reads_only_words(words)

    def leaves_model(self, words: list[str]) -> bool:
        """Every form only reads the GPUs (loops and monitors pause; the setters are refused without root)."""
        return True

    def help_text(self) -> str:
        return HELP_PAGES["help"]()

    def execute(self, ctx: Context) -> Outcome:
        argv = ctx.argv[1:]
        try:
            if argv and argv[0] in self.words:
                return run_subcommand(ctx, argv[0], argv[1:])
            return self._main(ctx, argv)
        except BadArgs as bad:
            ctx.out(bad.text)
            return bad.status

    def _main(self, ctx: Context, argv: list[str]) -> Outcome:
        opts = parse_options(argv)
        if "help" in opts:
            ctx.out(HELP_PAGES[opts["help"]]())
            return 0
        check_combination(opts)
        if not ctx.host.gpus:
            ctx.out(NO_DRIVER)
            return 9
        gpus = select_gpus(ctx.host.gpus, opts.get("id"))
        if opts.get("list-gpus"):
            return self._list(ctx, gpus)
        if "set" in opts:
            return refuse(ctx, gpus, opts["set"])
        loop = opts.get("loop")
        if "query-gpu" in opts:
            typed = opts["query-gpu"]
            return self._loop(ctx, loop, lambda first: gpu_csv(ctx, gpus, nvsmi_fields.GPU_QUERY, typed,
                                                               csv_format(opts["format"]), first))
        if "query-remapped-rows" in opts:
            typed = opts["query-remapped-rows"]
            return self._loop(ctx, loop, lambda first: gpu_csv(ctx, gpus, nvsmi_fields.REMAPPED_ROWS_QUERY, typed,
                                                               csv_format(opts["format"]), first))
        if "query-compute-apps" in opts:
            typed = opts["query-compute-apps"]
            return self._loop(ctx, loop, lambda first: compute_apps_csv(ctx, gpus, typed,
                                                                        csv_format(opts["format"]), first))
        if opts.get("xml-format"):
            return self._loop(ctx, loop, lambda first: self._xml(ctx, gpus))
        if opts.get("query"):
            sections = self._sections(opts.get("display"))
            return self._loop(ctx, loop, lambda first: self._report(ctx, gpus, sections))
        return self._loop(ctx, loop, lambda first: self._summary(ctx, gpus))

    def _loop(self, ctx: Context, interval: float | None, render: Render) -> Outcome:
        if interval is None:
            return render(True)
        return self._looping(ctx, max(interval, 0.001), render)

    def _looping(self, ctx: Context, interval: float, render: Render) -> Generator[float, None, int]:
        count = samples(None)
        for n in range(count):
            status = render(n == 0)
            if status:
                return status
            if n + 1 < count:
                yield interval
        return stopped(ctx, "nvidia-smi", None)

    def _summary(self, ctx: Context, gpus: list[GPU]) -> int:
        status = report_lost(ctx, gpus)
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


def commands() -> list[Command]:
    return [NvidiaSmi()]

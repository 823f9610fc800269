"""``dcgmi diag -r 1|2|3``: the run, and its verdicts as DCGM's result table or as JSON.

The run advances the simulated clock by its length (seconds for ``-r 1``,
about 2 minutes for ``-r 2``, about 12 for ``-r 3``); the verdicts come from
:mod:`emulator.commands.dcgm.diag_checks`.
"""

from __future__ import annotations

from collections.abc import Generator

from emulator.cluster.catalog import H100
from emulator.cluster.hardware import GPU
from emulator.cluster.model import Node
from emulator.commands.dcgm.diag_checks import DiagTest, diag_gpus, diag_results
from emulator.commands.dcgm.options import HELP_FLAG, parse_options
from emulator.commands.dcgm.render import styled_json, wrap_cells
from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.spec import Flag

#: The flags of ``diag``.
DIAG_FLAGS = (
    HELP_FLAG,
    Flag("-j", "--json", "", "print the output in a json format"),
    Flag("-r", "--run", "LEVEL", "run a diagnostic: 1 (short), 2 (medium), 3 (long)"),
    Flag("-g", "--group", "GROUPID", "the GPU group to run on"),
    Flag("-i", "--gpuList", "GPUS", "the GPUs to run on, comma separated"),
)


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
        for i, chunk in enumerate(wrap_cells(text, 45)):
            self.lines.append(f"| {name if i == 0 else '':<26}| {chunk:<47}|")

    def end(self) -> str:
        self.lines.append("+---------------------------+------------------------------------------------+")
        return "\n".join(self.lines) + "\n"


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


def run_diag(ctx: Context, argv: list[str]) -> Outcome:
    opts = parse_options(ctx, "diag", argv, DIAG_FLAGS)
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
    return _diag_run(ctx, int(level), "j" in opts or "json" in opts, only)


def _diag_run(ctx: Context, level: int, as_json: bool, only: set[int] | None) -> Generator[float, None, int]:
    total = DIAG_SECONDS[level]
    steps = {1: 1, 2: 2, 3: 4}[level]   # pause points: the terminal waits at most a second at each
    for _ in range(steps):
        yield total / steps
    failed = any(test.failures for _, tests in diag_results(ctx, ctx.host, level, only) for test in tests)
    ctx.out(diag_json(ctx, ctx.host, level, only) if as_json else diag_report(ctx, ctx.host, level, only))
    return 226 if failed else 0

"""``dcgmi health``: set the watches, or check them and print the report as a table or JSON.

The findings are the model's (:func:`emulator.cluster.health.health_findings`).
"""

from __future__ import annotations

from emulator.cluster.hardware import GPU
from emulator.cluster.health import health_findings
from emulator.commands.dcgm.options import HELP_FLAG, parse_options
from emulator.commands.dcgm.render import styled_json, wrap_cells
from emulator.commands.kit.command import Context
from emulator.commands.kit.spec import Flag

#: The flags of ``health``.
HEALTH_FLAGS = (
    HELP_FLAG,
    Flag("-c", "--check", "", "check the health of the group"),
    Flag("-s", "--set", "SYSTEMS", "set the systems to watch (a, p, m, c, i, n, t, v, d)"),
    Flag("-g", "--group", "GROUPID", "the GPU group"),
    Flag("-f", "--fetch", "", "fetch the systems watched"),
    Flag("-j", "--json", "", "print the output in a json format"),
)


def health_report(findings: list[tuple[GPU, str, str, str]]) -> str:
    rule = "+---------------------------+----------------------------------------------------------+"
    lines = [rule, "| Health Monitor Report                                                                |",
             "+===========================+==========================================================+"]

    def row(left: str, text: str) -> None:
        for i, chunk in enumerate(wrap_cells(text, 56) if text else [""]):
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


def run_health(ctx: Context, argv: list[str]) -> int:
    opts = parse_options(ctx, "health", argv, HEALTH_FLAGS)
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

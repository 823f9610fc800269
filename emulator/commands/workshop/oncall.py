"""``oncall``: an on-call shift of several incidents and a red herring on one cluster (:mod:`emulator.labs.shift`).

``oncall start [--seed N]`` opens the shift's cluster (or returns to it) and lists the alerts as
they come in (symptoms only); ``oncall`` shows the incidents open and resolved,
the simulated time to each diagnosis, the GPU-hours lost so far, the wrong
findings and the hints used; ``oncall submit node=... [port=...|gpu=...]
cause="..."`` states one finding, judged by the judge of the lab the incident
comes from; ``oncall hint`` gives the next hint for the first open incident;
``oncall end`` prints the score and, when every incident was resolved, a
completion code (lab ``shift``) that ``python -m emulator verify`` replays.
"""

from __future__ import annotations

import argparse
import textwrap

from emulator import labs
from emulator.commands.kit.command import Command, Context, ParsedCommand
from emulator.commands.kit.finding import FindingForm, read_finding
from emulator.commands.kit.proofs import capture
from emulator.commands.kit.spec import ArgumentParser
from emulator.labs import shift
from emulator.labs.progress import plural

SECTION = "Labs"
WIDTH = 78
FORM = FindingForm("oncall submit", 'oncall submit node=<node> [port=<port>|gpu=<gpu>] cause="<cause>"',
                   shift.FIELDS, ("node", "cause"), ("cause",), names_unknown=False)


def _clock(seconds: float) -> str:
    """``01:02:03`` (hours may pass 24)."""
    whole = int(seconds)
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


class OncallCommand(ParsedCommand):
    name = "oncall"
    directory = "/usr/local/bin"
    summary = "an on-call shift: several incidents and a red herring on one cluster, scored"
    section = SECTION
    notes = ("Examples:\n  oncall start --seed 7   a new shift: the alerts as they come in\n"
             "  oncall                  incidents open and resolved, GPU-hours lost so far\n"
             '  oncall submit node=node03 gpu=5 cause="power cap"\n'
             "  oncall hint             the next hint for the first open incident\n"
             "  oncall end              the score, and a completion code if every incident was found\n"
             "An open incident keeps its node's GPUs from useful work: GPUs x hours open, as on the\n"
             "Cost per completed workload page. Some alerts are benign: a finding on them is wrong.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("action", nargs="?", choices=("start", "status", "submit", "hint", "end"),
                            metavar="ACTION", help="start, status (default), submit FIELD=VALUE..., hint, end")
        parser.add_argument("finding", nargs="*", metavar="FIELD=VALUE", help="one part of a finding (submit)")
        parser.add_argument("--seed", type=int, metavar="N", help="which shift (start; default: 0)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        action = args.action or "status"
        if args.seed is not None and action != "start":
            raise ctx.fail("oncall: --seed goes with 'oncall start'", 2)
        if args.finding and action != "submit":
            raise ctx.fail(f"oncall {action}: unexpected argument '{args.finding[0]}'", 2)
        if action == "start":
            return self._start(ctx, 0 if args.seed is None else args.seed)
        run = shift.running(ctx.session)
        if run is None:
            raise ctx.fail("oncall: no on-call shift on this terminal; 'oncall start [--seed N]' starts one", 1)
        if action in ("submit", "hint") and run.ended:
            raise ctx.fail(f"oncall {action}: this shift has ended; 'oncall start --seed N' starts another", 1)
        if action == "submit":
            return self._submit(ctx, run, read_finding(ctx, FORM, args.finding))
        if action == "hint":
            return self._hint(ctx, run)
        if action == "end":
            return self._end(ctx, run)
        self._status(ctx, run)
        return 0

    def _start(self, ctx: Context, seed: int) -> int:
        if seed < 0:
            raise ctx.fail("oncall start: --seed must be 0 or more", 2)
        session = ctx.session
        old = session.lab_runs.get((shift.SHIFT, seed))
        session.start_lab(shift.SHIFT, seed)
        session.lab = None
        if isinstance(old, shift.ShiftRun):
            # One shift per seed and terminal: starting it again returns to it, counts and clock as they were.
            old.move_to(session.cluster)
            ctx.outln(f"Back on the shift of seed {seed}, as you left it (its cluster starts afresh).")
            ctx.outln()
            self._status(ctx, old)
            return 0
        run = shift.build_shift(seed)
        run.cluster, run.started = session.cluster, session.cluster.clock.elapsed
        # The proof of a won shift begins with this line (it is the latest of the history).
        run.since = session.history_base + len(session.history) - 1
        session.lab_runs[(shift.SHIFT, seed)] = run
        ctx.outln(f"On-call shift, seed {seed}: {len(run.incidents)} incidents and some noise on {session.cluster.name}"
                  f" (job {run.cluster.training.job_id} runs on {', '.join(run.cluster.training.nodes)}).")
        ctx.outln()
        ctx.outln("Alerts and tickets:")
        for number, alert in enumerate(run.alerts, 1):
            for line in textwrap.wrap(alert, WIDTH, initial_indent=f"  {number}. ", subsequent_indent="     "):
                ctx.outln(line)
        ctx.outln()
        for line in textwrap.wrap(
                "Each open incident keeps its node's GPUs from useful work while the simulated clock runs. "
                "Find each one's cause and state it: oncall submit node=<node> [port=<port>|gpu=<gpu>] "
                "cause=\"<cause>\". A finding on a benign alert counts as wrong. 'oncall' shows the board, "
                "'oncall end' the score.", WIDTH):
            ctx.outln(line)
        return 0

    def _status(self, ctx: Context, run: shift.ShiftRun) -> None:
        now = ctx.cluster.clock.elapsed
        state = "ended" if run.ended else "on shift"
        ctx.outln(f"On-call shift, seed {run.seed} ({state}): {len(run.open())} of {len(run.incidents)} incidents "
                  f"open, {plural(run.wrong, 'wrong finding')}, {plural(run.hints, 'hint')}.")
        ctx.outln(f"Simulated time on shift: {_clock((run.ended_at if run.ended else now) - run.started)}.")
        ctx.outln()
        ctx.outln(f"{'INCIDENT':8}  {'STATUS':8}  {'NODE':8}  {'DIAGNOSED AFTER':15}  {'GPU-HOURS LOST':>14}")
        end = run.ended_at if run.ended else now
        for number, incident in enumerate(run.incidents, 1):
            done = incident.resolved_at is not None
            after = _clock(incident.resolved_at - run.started) if incident.resolved_at is not None else "-"
            ctx.outln(f"{number:<8}  {'resolved' if done else 'open':8}  {incident.node if done else '?':8}  "
                      f"{after:15}  {incident.lost_gpu_hours(run.started, end):14.2f}")
        ctx.outln()
        ctx.outln(f"GPU-hours lost{'' if run.ended else ' so far'}: {run.lost(end):.2f} "
                  "(each open incident: its node's GPUs x hours open).")

    def _submit(self, ctx: Context, run: shift.ShiftRun, finding: dict[str, str]) -> int:
        cause = finding["cause"]
        if not shift.reads_cause(cause):
            shown = f'"{cause}"' if " " in cause else cause
            raise ctx.fail(f"oncall submit: cause={shown}: not a cause this cluster can show; say what you saw", 2)
        incident = shift.incident_at(run, finding["node"])
        now = ctx.cluster.clock.elapsed
        if incident is not None and incident.resolved_at is not None:
            ctx.outln(f"Incident on {incident.node} already resolved: not counted again.")
            return 0
        if incident is None or not shift.judge_finding(incident, finding).correct:
            run.wrong += 1
            run.attempts += 1
            ctx.outln(f"Wrong finding ({plural(run.wrong, 'wrong finding')} this shift): it matches no open "
                      "incident. The clock keeps running.")
            return 1
        incident.resolved_at = now
        run.attempts += 1
        number = run.incidents.index(incident) + 1
        ctx.verdict(f"✓ Incident {number} resolved: {labs.get(incident.lab).title} on {incident.node}, "
                    f"diagnosed after {_clock(now - run.started)}.\n")
        left = len(run.open())
        ctx.outln(f"{plural(left, 'incident')} still open." if left else
                  "Every incident is resolved: 'oncall end' prints the score and the completion code.")
        return 0

    def _hint(self, ctx: Context, run: shift.ShiftRun) -> int:
        open_ = run.open()
        if not open_:
            ctx.outln("No incident is open: 'oncall end' prints the score.")
            return 0
        incident = open_[0]
        hints = labs.get(incident.lab).hints
        if incident.hints >= len(hints):
            ctx.outln(f"No more hints for incident {run.incidents.index(incident) + 1}.")
            return 0
        incident.hints += 1
        run.hints += 1
        ctx.outln(f"Hint {incident.hints} of {len(hints)} for incident {run.incidents.index(incident) + 1}:")
        for line in textwrap.wrap(hints[incident.hints - 1], WIDTH, initial_indent="  ", subsequent_indent="  "):
            ctx.outln(line)
        return 0

    def _end(self, ctx: Context, run: shift.ShiftRun) -> int:
        if not run.ended:
            run.ended, run.ended_at = True, ctx.cluster.clock.elapsed
            # A reference procedure of an incident's lab printed in this terminal is recorded, and restated
            # first in the proof, so that the replay records it too.
            shown = sorted(set(ctx.session.revealed) & set(shift.KINDS))
            run.solutions = bool(shown)
            if not run.open():
                run.solved = True
                run.proof = (*((f"solutions {lab} --show", None) for lab in shown),
                             *capture(ctx, labs.Progress(shift.SHIFT, run.seed, since=run.since)))
        found = len(run.incidents) - len(run.open())
        ctx.outln(f"Shift over. Score: {found} of {len(run.incidents)} incidents found, "
                  f"{run.lost(run.ended_at):.2f} GPU-hours lost, {plural(run.wrong, 'wrong finding')}, "
                  f"{plural(run.hints, 'hint')}" + (", after printing a reference procedure." if run.solutions else "."))
        ctx.outln()
        self._status(ctx, run)
        ctx.outln()
        if not run.solved:
            ctx.outln("No completion code: a shift earns one when every incident is found.")
            return 0
        ctx.outln("Completion code ('completion' shows it again; 'completion --student NAME' adds your name):")
        ctx.outln(labs.completion_code(run, ctx.env.get("STUDENT", "")))
        return 0


def commands() -> list[Command]:
    return [OncallCommand()]

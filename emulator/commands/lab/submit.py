"""``submit``: the learner's finding, judged against the model's truth.

``submit node=node07 cause="fabric manager not running"``: each FIELD=VALUE
is compared with the state of the cluster (the faults applied to this
session), never with text typed or printed before. The cause (and any
other field with a vocabulary) is free text, read against the phrases the
lab lists for each value; words that name no value, two values equally, or
only an umbrella the lab marks too broad are refused without counting an
attempt. A value
may also run on unquoted (``cause=fabric manager down``) until the next
FIELD=VALUE.

A correct finding's first line is a verdict (``✓ Correct: TITLE.``): the
screen shows it as one (chunk kind ``ok``), a pipe or a file as text. A
finding of a GPU error (its truth names an Xid) goes on with the rung of the
remediation ladder that GPU's state calls for (:mod:`emulator.cluster.remediation`,
the table the handbook's figure of the ladder is drawn from).

The first wrong attempt says which parts are wrong, with the lab's advice;
later ones say how many, so that a finding cannot be solved field by field
(a lab that asks for one field keeps its advice). The lab's progress counts
attempts and hints, and a line that submits more than a few findings and
solves the lab (a loop, or a chain of ``submit``) is recorded as solved by
enumeration.
"""

from __future__ import annotations

import argparse

from emulator import labs
from emulator.cluster import remediation
from emulator.commands.kit.command import Command, Context, ParsedCommand
from emulator.commands.kit.finding import FindingForm, read_finding
from emulator.commands.kit.proofs import capture
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.lab.shared import SECTION, SOLVED_MARK, history_line, no_lab, progress, width, wrap


def _finding(ctx: Context, lab: labs.Lab, items: list[str]) -> dict[str, str]:
    """FIELD=VALUE items as a finding of ``lab``; words after a free-text field's value continue it."""
    assert lab.check is not None
    check = lab.check
    form = FindingForm("submit", lab.submit_form(), tuple(check.fields), tuple(check.fields), tuple(check.vocabularies))
    return read_finding(ctx, form, items)


def _refusal(check: labs.Check, finding: dict[str, str]) -> str:
    """Why a finding cannot be judged: a free-text field whose words name no value of the lab's, name
    two equally, or only an umbrella the lab marks too broad (:func:`emulator.labs.unread`)."""
    for name in check.vocabularies:
        value = finding[name]
        why = labs.unread(check, name, value)
        if why:
            shown = f'"{value}"' if " " in value else value
            return f"submit: {name}={shown}: {why}"
    return ""


def _wrapped(lines: list[str], columns: int) -> list[str]:
    """A verdict's lines to the terminal's width: a part of the finding (indented) with its advice under it."""
    out = []
    for line in lines:
        if line.startswith("  "):
            out += wrap(line, "  ", columns, hang="    ")
        else:
            out += wrap(line, columns=columns)
    return out


class SubmitCommand(ParsedCommand):
    name = "submit"
    directory = "/usr/local/bin"
    summary = "state your finding for the current lab (submit node=node07 cause=\"...\")"
    section = SECTION
    notes = ("Each FIELD=VALUE is compared with the state of the cluster. 'lab' shows the fields a lab asks for.\n"
             "State the cause in your own words; quote several: cause=\"fabric manager not running\".\n"
             "A first wrong attempt says which parts are wrong; later ones say how many.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("finding", nargs="*", metavar="FIELD=VALUE", help="one part of the finding")

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        state = progress(ctx)
        lab = labs.get(state.lab)
        if lab.is_sandbox or lab.check is None:
            return no_lab(ctx, "submit")
        finding = _finding(ctx, lab, args.finding)
        state.submitted(history_line(ctx))
        refusal = _refusal(lab.check, finding)
        if refusal:
            raise ctx.fail(refusal, 2)
        truth = ctx.cluster.truth()
        verdict = labs.judge(lab, truth, finding)
        was_solved = state.solved
        state.judged(verdict.correct)
        if verdict.correct and not was_solved:
            state.proof = capture(ctx, state)
        if not verdict.correct:
            self._not_yet(ctx, lab, state, verdict, detailed=was_solved or state.attempts == 1)
            return 1
        ctx.verdict(f"{SOLVED_MARK} Correct: {lab.title}." + (" (Already solved: not counted again.)" if was_solved else "")
                    + "\n")
        for line in _wrapped(verdict.lines(detailed=True), width(ctx)):
            ctx.outln(line)
        node = ctx.cluster.node(truth.get("node", "")) if truth.get("xid") else None
        for gpu in node.gpus if node is not None else []:
            if str(gpu.index) == truth.get("gpu"):
                for line in wrap(remediation.advice(gpu, truth["node"]), columns=width(ctx)):
                    ctx.outln(line)
        for line in wrap(state.summary(), columns=width(ctx)):
            ctx.outln(line)
        ctx.outln()
        for line in wrap("What you used of the reference procedure (any route to the finding counts):",
                         columns=width(ctx)):
            ctx.outln(line)
        session = ctx.session
        typed = list(session.history)[max(0, state.since - session.history_base):]
        seen = state.seen
        for line in labs.evidence_report(lab, truth, typed, ctx.cluster.login, seen):
            for part in wrap(line, "  ", width(ctx), hang="     "):
                ctx.outln(part)
        ctx.outln()
        for line in wrap("To show your instructor, 'completion' prints this again and 'completion --student NAME' "
                         "adds your name.", columns=width(ctx)):
            ctx.outln(line)
        ctx.outln("Completion code:")
        ctx.outln(labs.completion_code(state, ctx.env.get("STUDENT", "")))
        return 0

    @staticmethod
    def _not_yet(ctx: Context, lab: labs.Lab, state: labs.Progress, verdict: labs.Verdict, detailed: bool) -> None:
        assert lab.check is not None
        fields = lab.check.fields
        wrong = len(verdict.wrong_fields)
        detailed = detailed or len(fields) == 1
        attempt = "" if state.solved else f" (attempt {state.attempts})"
        ctx.outln(f"Not yet{attempt}: {wrong} of {len(fields)} parts do not match the cluster.")
        for line in _wrapped(verdict.lines(detailed), width(ctx)):
            ctx.outln(line)
        if not detailed:
            for line in wrap("Which parts are wrong is said on a first attempt only: check each part against "
                             "what you saw, or type 'hint' for the next hint.", columns=width(ctx)):
                ctx.outln(line)


def commands() -> list[Command]:
    return [SubmitCommand()]

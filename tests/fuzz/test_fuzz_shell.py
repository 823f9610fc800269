"""Fuzzing: no input line, and no flags given to any registered command, gives a
Python traceback, an internal error, a hang, or unbounded output.

Lines are built from shell syntax (quotes, operators, redirections,
expansions) and from words the cluster knows; every registered command is
fuzzed with its own options (read from its argument spec) mixed with
numbers, host names, paths and garbage, so commands added later are covered
automatically. A run that is still streaming after a fixed number of chunks
is interrupted, which exercises Ctrl-C too.

Normal runs use a fixed seed and a small example budget (well under a minute
in total). ``FUZZ_LONG=1`` runs many more examples with a random seed::

    FUZZ_LONG=1 .venv/bin/pytest tests/fuzz -q
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from emulator.limits import SCREEN_LIMIT
from emulator.session import Session
from emulator.shell import table

LONG = os.environ.get("FUZZ_LONG") == "1"
SHELL_EXAMPLES = 3000 if LONG else 250
COMMAND_EXAMPLES = 400 if LONG else 12
#: Chunks a fuzzed line may stream before it is interrupted.
STEP_BUDGET = 60
#: Words that must never appear in what a learner sees.
FORBIDDEN = ("Traceback (most recent call last)", "internal error")
#: argparse's own phrases: if they surface, the status must say failure.
USAGE_PHRASES = ("unrecognized arguments", "invalid choice", "expected one argument", "the following arguments are required")

NAMES = table.commands().names()
WORDS = ["node01", "node02", "node99", "login01", "node01-bmc", "mlx5_0", "mlx5_3", "/tmp", "/etc/hosts", "/proc/cpuinfo",
         "/lustre/jobs/llm-pretrain/train.log", "~", ".", "..", "/nope", "-1", "0", "1", "7", "65536", "99999999999",
         "x", "-", "--", "all", "0,1", "GPU-0", "1.5", "''", '""', "", " ", "*", "/sys/class/infiniband/*"]
SHELL_BITS = [" ", " ", " ", "|", "||", "&&", ";", "&", ">", ">>", "<", "2>&1", "2>/dev/null", "$", "$?", "${X}",
              "$(", ")", "(", "`", "'", '"', "\\", "#", "*", "?", "[", "]", "{", "}", "{1..3}", "=", "~", "!",
              "\n", "for i in 1 2; do ", "; done", "if true; then ", "; fi", "while false; do ", "$((", "))",
              "<<EOF", "\nEOF", "<<<", "${X#*}", "${X%%/*}", "${X/a/b}", "${X:1:2}", "${X:?}", "case $X in ",
              "*) ", ";; esac", "!!", "!$", "read v", "$((0x1f ? 1 : 2))", "time ", "sudo ", "ssh node01 "]


#: Normal runs replay one fixed sequence; long runs explore a new one each time.
_seeded = (lambda test: test) if LONG else seed(20260311)


def _fuzz_settings(examples: int):  # type: ignore[no-untyped-def]
    return settings(max_examples=examples, deadline=None, database=None, derandomize=not LONG,
                    suppress_health_check=list(HealthCheck))


def run_bounded(session: Session, line: str) -> tuple[str, int]:
    """Run a line, interrupting it after STEP_BUDGET chunks; (all output, status)."""
    run = session.run(line)
    parts: list[str] = []
    steps = 0
    while (chunk := run.step()) is not None:
        parts.append(chunk.text())
        steps += 1
        if steps == STEP_BUDGET:
            run.interrupt()
        assert steps <= STEP_BUDGET + 2, f"{line!r} did not stop after an interrupt"
    return "".join(parts), run.status if run.status is not None else -1


def check(line: str, out: str, status: int) -> None:
    for word in FORBIDDEN:
        assert word not in out, f"{line!r} printed {word!r}:\n{out[-2000:]}"
    assert 0 <= status <= 255, f"{line!r} gave status {status}"
    assert len(out) <= SCREEN_LIMIT + 1000, f"{line!r} printed {len(out)} characters"
    if any(phrase in out for phrase in USAGE_PHRASES):
        assert status != 0, f"{line!r} reported a usage error with status 0:\n{out[-1000:]}"


shell_token = st.one_of(st.sampled_from(SHELL_BITS), st.sampled_from(WORDS), st.sampled_from(NAMES),
                        st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=4))


@_seeded
@_fuzz_settings(SHELL_EXAMPLES)
@given(st.lists(shell_token, min_size=1, max_size=14))
def test_shell_never_crashes_or_hangs(tokens: list[str]) -> None:
    line = "".join(tokens)
    session = Session()
    out, status = run_bounded(session, line)
    check(line, out, status)
    # The session keeps working after whatever came before.
    assert session.execute("echo ok") == ("ok\n", 0)


def _option_words(name: str) -> list[str]:
    command = table.commands().lookup(name)
    assert command is not None
    words = list(command.option_strings()) + list(command.subcommands())
    return words or ["-x", "--bogus"]


@pytest.mark.parametrize("name", NAMES)
def test_every_command_survives_fuzzed_flags(name: str) -> None:
    options = _option_words(name)
    argument = st.one_of(st.sampled_from(options), st.sampled_from(WORDS),
                         st.text(alphabet="abcxyz0123456789-_=,.:/ ", max_size=8))

    @_seeded
    @_fuzz_settings(COMMAND_EXAMPLES)
    @given(st.lists(argument, max_size=6), st.sampled_from(["login01", "node01"]))
    def fuzz(args: list[str], host: str) -> None:
        session = Session()
        if host != "login01":
            session.execute(f"ssh {host}")
        argv = [name, *args]
        out, status = _run_argv(session, argv)
        check(" ".join(argv), out, status)

    fuzz()


def _run_argv(session: Session, argv: list[str]) -> tuple[str, int]:
    """Run argv as one command (each word quoted, so the shell passes it unchanged)."""
    quoted = " ".join("'" + word.replace("'", "'\\''") + "'" for word in argv)
    return run_bounded(session, quoted)


#: Values that trip naive parsing: one passes isdigit() but not int(), the other is empty.
ODD_VALUES = ("¹", "")


@pytest.mark.parametrize("name", NAMES)
def test_every_option_survives_odd_values(name: str) -> None:
    """Every option of every command, given each odd value, answers cleanly."""
    command = table.commands().lookup(name)
    assert command is not None
    for value in ODD_VALUES:
        for args in ([value], *([option, value] for option in command.option_strings())):
            out, status = _run_argv(Session(), [name, *args])
            check(" ".join([name, *args]), out, status)

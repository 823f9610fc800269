"""Command-line entry point: ``python -m emulator`` (or ``cluster-emulator``).

``python -m emulator [--lab ID] [--seed N]`` opens an interactive shell with
readline history and tab completion (``exit`` on the login node, or Ctrl-D,
leaves it); ``-c 'LINE'`` runs one line, prints its
output (stdout and stderr to their own streams) and exits with its status.
``python -m emulator verify [--workshop NAME] CODE...`` checks completion
codes (:mod:`emulator.completion`): one line per code, status 0 when all are
valid, else 1.
``progress export PATH`` and ``progress import PATH`` typed in the shell
write or merge the progress file there (:mod:`emulator.progressfile`).
A terminal tip (chunk kind ``tip``) goes to stderr, dimmed on a terminal; a
verdict (kind ``ok``) goes to stdout, in bold green on a terminal.

A command that computes for longer than ``--timeout`` real seconds (default
:data:`~emulator.limits.COMMAND_TIME_LIMIT_S`) without handing out a chunk is
stopped with one line on stderr and status 124, and the session is restored
from its journal as it was before that line (the browser's watchdog does the
same). Outputs never depend on the timeout: it only stops a step that runs on.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from emulator import __version__, labs, progressfile
from emulator.errors import LabError
from emulator.limits import COMMAND_TIME_LIMIT_S, limit_reached
from emulator.session import Run, Session

PROG = "cluster-emulator"
#: Longest real pause between chunks of a streaming command in the interactive shell.
MAX_PAUSE_S = 1.0
#: How a terminal shows the chunk kinds that are not a tool's plain output: (stream, SGR code).
STYLES = {"tip": ("err", "2"), "ok": ("out", "1;32")}
#: The status of a line stopped by the timeout (as timeout(1) gives).
TIMEOUT_STATUS = 124


class StepTimeout(BaseException):
    """A step of a command ran past the timeout (a BaseException, so the shell's guards let it through)."""


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`StepTimeout` in the block once it has run ``seconds`` (where SIGALRM exists)."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def expired(signum: int, frame: Any) -> None:
        raise StepTimeout

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _write(kind: str, text: str) -> None:
    """One chunk to its stream; a tip or a verdict styled when that stream is a terminal."""
    stream, style = STYLES.get(kind, (kind, ""))
    target = sys.stdout if stream == "out" else sys.stderr
    if style and target.isatty():
        lines = text.split("\n")
        text = "\n".join(f"\x1b[{style}m{line}\x1b[0m" if line else line for line in lines)
    target.write(text)
    target.flush()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="A simulated GPU training cluster: a shell with operator tools over one model.")
    parser.add_argument("--lab", metavar="ID", help="start in this lab (default: the healthy sandbox)")
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the lab's random choices (default 0)")
    parser.add_argument("-c", dest="commands", action="append", metavar="LINE",
                        help="run this line, print its output and exit with its status; "
                             "given several times, run each in turn in the same session and exit with the last status")
    parser.add_argument("--timeout", type=float, default=COMMAND_TIME_LIMIT_S, metavar="S",
                        help=f"stop a command that computes for S seconds without output (default {COMMAND_TIME_LIMIT_S:g}; 0: never)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _drain(run: Run, sleep: bool, timeout: float) -> int:
    """Write a run's chunks to stdout/stderr as they come; Ctrl-C interrupts it; a step longer than
    ``timeout`` raises :class:`StepTimeout`."""
    while True:
        try:
            with _deadline(timeout):
                chunk = run.step()
            if chunk is None:
                break
            for stream, text in chunk.out:
                _write(stream, text)
            if sleep and chunk.pause and not chunk.done:
                time.sleep(min(chunk.pause, MAX_PAUSE_S))
        except KeyboardInterrupt:
            run.interrupt()
    return run.status or 0


def run_line(session: Session, line: str, sleep: bool, timeout: float) -> tuple[Session, int]:
    """Run one line: (the session to go on with, its status). A line stopped by the timeout leaves
    the session restored as it was before it, with one line on stderr."""
    before = session.snapshot()
    try:
        status = _drain(session.run(line), sleep, timeout)
        return session, _answer(session) if session.request else status
    except StepTimeout:
        words = line.split()
        name = words[0] if words else line
        _write("err", "bash: " + limit_reached(
            f"{name}: stopped after {timeout:g} seconds; the session was restored without this line") + "\n")
        restored = Session.restore(before)
        restored.shell.last_status = TIMEOUT_STATUS
        return restored, TIMEOUT_STATUS


def _answer(session: Session) -> int:
    """Do what the line asked of the front end (``progress export|import PATH``): its status."""
    (action, path), session.request = session.request or ("", ""), None
    if not path:
        _write("err", f"progress {action}: give the file: progress {action} PATH\n")
        return 2
    try:
        if action == "export":
            student = session.shell.lookup_var("STUDENT") or ""
            text = json.dumps(progressfile.collect(session, student), indent=1) + "\n"
            with open(path, "w", encoding="utf-8") as file:
                file.write(text)
            _write("out", f"progress export: saved to {path}\n")
            return 0
        with open(path, encoding="utf-8") as file:
            terminals, runs = progressfile.merge(session, file.read())
    except OSError as exc:
        _write("err", f"progress {action}: {path}: {exc.strerror}\n")
        return 1
    except (progressfile.ProgressFileError, UnicodeDecodeError) as exc:
        reason = exc if isinstance(exc, progressfile.ProgressFileError) else "It is not text."
        _write("err", f"progress import: {path} was not imported, and nothing changed. {reason}\n")
        return 1
    _write("out", f"progress import: {path}: {terminals} terminal(s) and {runs} lab run(s) added or updated; "
                  "'progress' lists them, 'completion' prints the codes of those solved\n")
    return 0


def _setup_readline(session: Callable[[], Session]) -> None:
    try:
        import readline
    except ImportError:  # pragma: no cover - platforms without readline
        return
    matches: list[str] = []

    def complete(text: str, state: int) -> str | None:
        if state == 0:
            line = readline.get_line_buffer()[: readline.get_endidx()]
            result = session().complete(line)
            matches[:] = result.matches
        return matches[state] if state < len(matches) else None

    readline.set_completer_delims(" \t\n;|&()<>")
    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")


def _interactive(session: Session, timeout: float) -> int:
    _setup_readline(lambda: session)
    print(session.banner())
    while True:
        try:
            line = input(session.prompt)
            while session.incomplete(line):
                line += "\n" + input("> ")
        except EOFError:
            print("logout")
            return session.shell.last_status
        except KeyboardInterrupt:
            print("^C")
            continue
        on_login = len(session.shell.frames) == 1
        session, status = run_line(session, line, sleep=True, timeout=timeout)
        if on_login and line.split()[:1] in (["exit"], ["logout"]):
            return status


def _verify(argv: Sequence[str]) -> int:
    """``verify [--workshop NAME] CODE...``: one verdict line per code; 0 when all are valid."""
    from emulator.completion import verify_all

    parser = argparse.ArgumentParser(prog=f"{PROG} verify", description="Check completion codes by replaying them.")
    parser.add_argument("--workshop", metavar="NAME", help="also check each code's seed is its student's seed here")
    parser.add_argument("codes", nargs="+", metavar="CODE", help="a completion code, as the terminal printed it")
    args = parser.parse_args(argv)
    lines, valid = verify_all(args.codes, args.workshop)
    for line in lines:
        print(line)
    return 0 if valid else 1


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["verify"]:
        return _verify(argv[1:])
    args = _parser().parse_args(argv)
    if args.seed < 0:
        print(f"{PROG}: --seed must be 0 or more", file=sys.stderr)
        return 2
    try:
        session = Session(None if args.lab in (None, labs.SANDBOX) else args.lab, args.seed)
    except LabError:
        known = ", ".join(labs.known_labs())
        print(f"{PROG}: unknown lab '{args.lab}' (known labs: {known})", file=sys.stderr)
        return 2
    if args.commands:
        status = 0
        for line in args.commands:
            session, status = run_line(session, line, sleep=False, timeout=args.timeout)
        return status
    return _interactive(session, args.timeout)


if __name__ == "__main__":
    sys.exit(main())

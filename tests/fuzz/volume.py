"""Fuzzing at volume: generated input lines by the hundred thousand, each judged as a learner would.

Lines come from a seeded :class:`random.Random` (the same seed gives the same lines) in several kinds:
every command of ``emulator/commands/index.json`` with its own options and subcommands, shell syntax,
control characters, very long words, unicode, pipelines, and regular expressions from a catastrophic
corpus; before them run the reproducers of the "no silent wrong answers and no hang" issue. Each line
runs in a session that is replaced every :data:`SESSION_LINES` lines. A finding is one of:

- ``traceback``: a Python traceback or an internal error in the output;
- ``hang``: a line that used more than :data:`HANG_S` seconds of CPU (or :data:`WALL_S` of real time);
- ``big``: more than 1 MB of output from a line shorter than :data:`SHORT_LINE` (counted, allowed);
- ``silent``: a silent truncation, output that ends at one of the terminal's limits with status 0 and
  no line on stderr;
- ``status``: an exit status outside 0-255;
- ``memory``: the process's peak resident memory above 1 GB.

``python -m tests.fuzz.volume --lines 100000`` runs it and prints the counts (as JSON) with the first
few findings of each kind; ``tests/fuzz/test_fuzz_volume.py`` runs a seeded slice.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator import limits
from emulator.session import Session

ROOT = Path(__file__).resolve().parents[2]
INDEX = json.loads((ROOT / "emulator" / "commands" / "index.json").read_text())
NAMES = [entry["name"] for entry in INDEX]
OPTIONS = {entry["name"]: entry["options"] + entry["subcommands"] for entry in INDEX}

#: CPU seconds past which a line counts as a hang; real seconds after which it is stopped.
HANG_S = 1.0
WALL_S = 30.0
#: Lines shorter than this may not print more than :data:`BIG_OUTPUT` characters unreported.
SHORT_LINE = 200
BIG_OUTPUT = 1_000_000
#: Peak resident memory past which the run is reported (bytes).
MEMORY_LIMIT = 1 << 30
#: Lines a session runs before a fresh one replaces it.
SESSION_LINES = 100
#: Chunks a line may stream before it is interrupted (Ctrl-C).
STEP_BUDGET = 60
FORBIDDEN = ("Traceback (most recent call last)", "internal error")
#: Sizes at which a silent cut would show: the output limits in characters, the stopping counts in lines.
CUT_SIZES = {limits.OUTPUT_LIMIT, limits.SCREEN_LIMIT, limits.PIPE_LIMIT, limits.FILE_LIMIT}
CUT_LINES = {limits.SEQ_LIMIT, limits.LOOP_LIMIT, limits.BRACE_LIMIT, limits.XARGS_LIMIT, limits.WALK_LIMIT,
             limits.SAMPLE_LIMIT, limits.WATCH_MAX, limits.LIST_LIMIT, limits.SIZES_LIMIT, limits.AWK_FIELD_LIMIT}

AS = "a" * 3000
#: Sequences of lines from the issue, each run in a fresh session (a line may need the ones before it).
REPRODUCERS: list[list[str]] = [
    ["seq 1 100000000 | wc -l"],
    ["echo {1..10000000} | wc -c"],
    ["echo aaaa | grep -E '(a+)+$'"],
    ["echo aaaa | sed -E 's/(a+)+$/x/'"],
    ["echo aaaa | awk '/(a+)+$/'"],
    ["while true; do :; done"],
    ["ps " + "a" * 1_000_000],
    ["ps " + "a" * 99_000],
    ["nvidia-smi " + "(" * 300 + "a" * 90_000],
    ["echo " + "(" * 400],
    ["(" * 300 + "echo hi" + ")" * 300],
    ["$(" * 200 + "echo" + ")" * 200],
    ["printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\\n' | grep -P '(a+)+$'"],
    ["X=x; for i in $(seq 40); do X=$X$X; done; echo ${#X}"],
    ["awk 'BEGIN { s=\"x\"; while (1) s = s s }'"],
    ["printf '%999999999d' 1"],
    ["printf '%.999999999f' 1"],
    ["echo " + "y" * 5000, *["!! !! !! !! !! !! !! !! !! !!"] * 6, "history | wc -c"],
    ["echo " + "z" * 10_000_000],
    ["lab start fabric-triage", "for n in $(seq -f node%02g 1 8); do for p in 1 2; do submit node=$n port=$p; done; done"],
]
#: Patterns that make a backtracking matcher take exponential time, and the texts that trigger them.
CATASTROPHIC = ["(a+)+$", "(a|a)+$", "(a|aa)*$", "(a|a?)+$", "a*a*a*a*a*a*$", "(.*a){12}$", "(a*){20}b",
                "(x+x+)+y", "^(\\w+\\s?)*$", "(a|a)*(b|b)*(c|c)*$", "((a+)+)+$", "(a?){30}a{30}", "(.*){20}x",
                # with a back reference, which only Python's backtracking matcher runs
                "(a|a)*\\1b", "(a|aa)+\\1$", "(a*)a*a*\\1b", "(a)\\1*a*b"]
TEXTS = ["a" * 24 + "!", "a" * 30 + "b", AS + "!", "x" * 3000, "ab " * 1000 + "!"]


def regex_lines() -> Iterator[str]:
    """Every catastrophic pattern on every triggering text, in grep, sed, awk, gsub, match and pgrep."""
    for pattern in CATASTROPHIC:
        for text in TEXTS:
            feed = f"printf '%s\\n' '{text}' | "
            yield feed + f"grep -cE '{pattern}'"
            yield feed + f"grep -cP '{pattern}'"
            yield feed + f"sed -E 's/{pattern}/X/' | wc -c"
            yield feed + f"awk '/{pattern}/ {{ n++ }} END {{ print n+0 }}'"
            yield feed + f"awk '{{ print gsub(/{pattern}/, \"X\"), match($0, /{pattern}/) }}'"
        yield f"pgrep -f '{pattern}'"


WORDS = ["node01", "node02", "node99", "login01", "node01-bmc", "mlx5_0", "mlx5_3", "/tmp", "/etc/hosts",
         "/proc/cpuinfo", "/lustre/jobs/llm-pretrain/train.log", "~", ".", "..", "/nope", "-1", "0", "1", "7",
         "65536", "99999999999", "1e308", "x", "-", "--", "all", "0,1", "GPU-0", "1.5", "''", '""', "*",
         "/sys/class/infiniband/*", "%s", "%d%n", "\\", "a=b", "node[01-08]", "-5:00", "nan", "inf"]
SYNTAX = [" ", " ", " ", "|", "||", "&&", ";", "&", ">", ">>", "<", "2>&1", "2>/dev/null", "$", "$?", "${X}",
          "$(", ")", "(", "`", "'", '"', "\\", "#", "*", "?", "[", "]", "{", "}", "{1..3}", "=", "~", "!",
          "\n", "for i in 1 2; do ", "; done", "if true; then ", "; fi", "while false; do ", "$((", "))",
          "<<EOF", "\nEOF", "<<<", "${X#*}", "${X%%/*}", "${X/a/b}", "${X:1:2}", "${X:?}", "case $X in ",
          "*) ", ";; esac", "!!", "!$", "!-2", "^a^b", "read v", "$((0x1f ? 1 : 2))", "$((2**62*4))", "time ",
          "sudo ", "ssh node01 ", "X=", "export ", "alias ll=", "unset ", "function f { ", "}", "f() { ",
          "{a,b}{c,d}", "{1..9..2}", "$RANDOM", "${#X}", "$[1+1]", "<(", ">(", "coproc ", "((", "[[ ", " ]]"]
CONTROL = [chr(c) for c in [*range(0, 32), 127]] + ["\x1b[31m", "\x1b]52;c;aGk=\x07", "\x1b]8;;http://x\x1b\\",
                                                    "\u200b", "\u202e", "\ufeff", "\r\n"]
UNICODE_RANGES = [(0xA0, 0x24F), (0x370, 0x3FF), (0x400, 0x4FF), (0x590, 0x6FF), (0x900, 0x97F),
                  (0x3040, 0x30FF), (0x4E00, 0x4FFF), (0xAC00, 0xAD00), (0x1F300, 0x1F6FF), (0x300, 0x36F)]


class Generator:
    """Lines of every kind from one seeded random source."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def unicode_word(self) -> str:
        low, high = self.random.choice(UNICODE_RANGES)
        return "".join(chr(self.random.randint(low, high)) for _ in range(self.random.randint(1, 8)))

    def word(self) -> str:
        r = self.random.random()
        if r < 0.55:
            return self.random.choice(WORDS)
        if r < 0.75:
            return "".join(self.random.choice("abcxyz0123456789-_=,.:/%") for _ in range(self.random.randint(1, 8)))
        if r < 0.9:
            return self.unicode_word()
        if r < 0.97:
            return self.random.choice(CONTROL)
        return self.random.choice("ax0(") * self.random.choice([1000, 10_000, 50_000])

    def command(self) -> str:
        name = self.random.choice(NAMES)
        options = OPTIONS[name] or ["-x", "--bogus"]
        words = [name]
        for _ in range(self.random.randint(0, 5)):
            words.append(self.random.choice(options) if self.random.random() < 0.6 else self.word())
        return " ".join(self.quote(w) for w in words)

    def quote(self, word: str) -> str:
        if self.random.random() < 0.7 and word.isprintable() and all(c.isalnum() or c in "-_=,.:/%@" for c in word):
            return word
        return "'" + word.replace("'", "'\\''") + "'"

    def syntax(self) -> str:
        parts = [self.random.choice(SYNTAX) if self.random.random() < 0.5 else self.random.choice([*WORDS, *NAMES])
                 for _ in range(self.random.randint(1, 14))]
        return "".join(parts)

    def pipeline(self) -> str:
        return " | ".join(self.command() for _ in range(self.random.randint(2, 4)))

    def control(self) -> str:
        line = list(self.command())
        for _ in range(self.random.randint(1, 4)):
            line.insert(self.random.randint(0, len(line)), self.random.choice(CONTROL))
        return "".join(line)

    def line(self) -> str:
        kind = self.random.random()
        if kind < 0.45:
            return self.command()
        if kind < 0.7:
            return self.syntax()
        if kind < 0.85:
            return self.pipeline()
        if kind < 0.95:
            return self.control()
        return " ".join(self.unicode_word() for _ in range(self.random.randint(1, 6)))


@dataclass
class Report:
    """Counts of what a run found, with the first few examples of each kind."""

    lines: int = 0
    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("traceback", "hang", "big", "silent", "status", "memory"), 0))
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, line: str, detail: str) -> None:
        self.counts[kind] += 1
        kept = self.examples.setdefault(kind, [])
        if len(kept) < 10:
            kept.append(f"{line[:200]!r}: {detail[:300]}")

    def failures(self) -> dict[str, int]:
        """The kinds that must stay at zero (large outputs are reported, not failed)."""
        return {kind: n for kind, n in self.counts.items() if n and kind != "big"}

    def as_dict(self) -> dict[str, Any]:
        return {"lines": self.lines, "seconds": round(self.seconds, 1),
                "lines_per_second": round(self.lines / max(self.seconds, 1e-9), 1),
                "peak_rss_mb": round(self.peak_rss_mb, 1), "counts": self.counts, "examples": self.examples}


class WallTimeout(BaseException):
    """A line ran past :data:`WALL_S` real seconds."""


def _alarm(signum: int, frame: Any) -> None:
    raise WallTimeout


def peak_rss() -> int:
    """The process's peak resident memory, in bytes (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_line(session: Session, line: str) -> tuple[str, str, int]:
    """(stdout, stderr, status) of one line, interrupted after :data:`STEP_BUDGET` chunks."""
    run = session.run(line)
    out: list[str] = []
    err: list[str] = []
    steps = 0
    while (chunk := run.step()) is not None:
        for stream, text in chunk.out:
            (out if stream in ("out", "ok") else err).append(text)
        steps += 1
        if steps == STEP_BUDGET:
            run.interrupt()
    return "".join(out), "".join(err), run.status if run.status is not None else -1


def judge(report: Report, session: Session, line: str) -> bool:
    """Run ``line`` and record what is wrong with it; False when the session must be replaced."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, WALL_S)
    started = time.process_time()
    try:
        out, err, status = run_line(session, line)
    except WallTimeout:
        report.add("hang", line, f"still running after {WALL_S:g} s")
        return False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    cpu = time.process_time() - started
    report.lines += 1
    text = out + err
    for word in FORBIDDEN:
        if word in text:
            report.add("traceback", line, text[max(0, text.find(word) - 200):][:600])
    if cpu > HANG_S:
        report.add("hang", line, f"{cpu:.2f} s of CPU")
    if len(line) < SHORT_LINE and len(text) > BIG_OUTPUT:
        report.add("big", line, f"{len(text)} characters")
    if not 0 <= status <= 255:
        report.add("status", line, f"status {status}")
    if status == 0 and not err:
        lines = out.count("\n")
        if len(out) in CUT_SIZES or (lines in CUT_LINES and str(lines) not in line):
            report.add("silent", line, f"{len(out)} characters, {lines} lines, status 0, nothing on stderr")
    return True


def fuzz(lines: int, seed: int = 0, reproducers: bool = True) -> Report:
    """Run the reproducers and the regex corpus (if asked), then ``lines`` generated lines."""
    report = Report()
    started = time.perf_counter()
    if reproducers:
        for sequence in REPRODUCERS:
            session = Session()
            for line in sequence:
                judge(report, session, line)
        session = Session()
        for line in regex_lines():
            judge(report, session, line)
    generator = Generator(seed)
    session = Session()
    for index in range(lines):
        if index % SESSION_LINES == 0:
            session = Session()
        if not judge(report, session, generator.line()):
            session = Session()
        if index % 1000 == 0:
            report.peak_rss_mb = peak_rss() / 2**20
            if peak_rss() > MEMORY_LIMIT and not report.counts["memory"]:
                report.add("memory", f"line {index}", f"peak RSS {report.peak_rss_mb:.0f} MB")
    report.seconds = time.perf_counter() - started
    report.peak_rss_mb = peak_rss() / 2**20
    if peak_rss() > MEMORY_LIMIT and not report.counts["memory"]:
        report.add("memory", "end", f"peak RSS {report.peak_rss_mb:.0f} MB")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    report = fuzz(args.lines, args.seed)
    print(json.dumps(report.as_dict(), indent=1, ensure_ascii=True))
    return 1 if report.failures() else 0


if __name__ == "__main__":
    sys.exit(main())

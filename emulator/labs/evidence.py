"""What the learner ran, set against the reference procedure: which tools, on which hosts.

:func:`tool_runs` follows typed lines through ``ssh``/``exit``, ``srun -w``
and wrappers (``sudo``, ``watch``...) to the (host, tool) pairs they ran;
:func:`evidence_report` says of each reference step whether the learner used
it, and of a step left out what the procedure runs there and what it records,
as teaching rather than as a mark: any route to the right finding counts.
"""

from __future__ import annotations

import functools
import shlex

from emulator.cluster.scheduler import expand_hostlist
from emulator.labs.placeholders import substitute
from emulator.labs.schema import Lab, Step

_SRUN_ARGS = {"-w", "--nodelist", "-N", "--nodes", "-n", "--ntasks", "-p", "--partition", "--jobid",
              "--ntasks-per-node", "--gpus-per-node", "-t", "--time", "-J", "--job-name"}
_WRAPPERS = {"sudo", "watch", "timeout", "time", "env"}
#: Words that open a compound command's body, and words of its header.
_BODY = {"do", "then", "else", "{", "(", "!"}
_HEADER = {"for", "while", "until", "if", "elif", "done", "fi", "}", ")", "case", "esac"}


def tool_runs(lines: list[str], home: str = "login01") -> list[tuple[str | None, str]]:
    """The (host, tool) pairs a list of typed lines ran, following ``ssh``/``exit`` and ``srun -w``.

    The host is None when a launcher picks the nodes (``srun`` without ``-w``) or a
    variable names it (``for n in ...; do ssh $n ibstat; done``).
    """
    stack = [home]
    runs: list[tuple[str | None, str]] = []
    for line in lines:
        for words in _simple_commands(line):
            host: str | None = stack[-1]
            if words and words[0] in _HEADER:
                continue
            while words:
                head = words[0]
                if head in _BODY or ("=" in head and not head.startswith("-")):
                    words = words[1:]
                elif head == "ssh":
                    rest = [w for w in words[1:] if not w.startswith("-")]
                    if not rest:
                        break
                    target = rest[0].split("@")[-1].split(".")[0]
                    if len(rest) == 1:
                        stack.append(target)
                        words = []
                        break
                    host, words = (None if "$" in target else target), rest[1:]
                elif head == "srun":
                    host, words = _srun(words[1:])
                elif head in _WRAPPERS:
                    words = _skip_options(words[1:])
                elif head in ("exit", "logout"):
                    if len(stack) > 1:
                        stack.pop()
                    words = []
                else:
                    runs.append((host, head))
                    break
    return runs


def _skip_options(words: list[str]) -> list[str]:
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-n", "-u") else 1
    return words[i:]


def _srun(words: list[str]) -> tuple[str | None, list[str]]:
    host: str | None = None
    i = 0
    while i < len(words) and words[i].startswith("-"):
        word = words[i]
        value = None
        if "=" in word:
            word, value = word.split("=", 1)
            i += 1
        elif word in _SRUN_ARGS:
            value = words[i + 1] if i + 1 < len(words) else None
            i += 2
        else:
            i += 1
        if word in ("-w", "--nodelist") and value:
            try:
                names = expand_hostlist(value)
            except ValueError:
                names = []
            host = names[0] if len(names) == 1 else None
    return host, words[i:]


def _simple_commands(line: str) -> list[list[str]]:
    """The words of each simple command of ``line`` (a fresh copy of :func:`_split`'s cached answer)."""
    return [list(words) for words in _split(line)]


@functools.lru_cache(maxsize=2048)
def _split(line: str) -> tuple[tuple[str, ...], ...]:
    """Cached: the objectives read the whole history after every line, and a session repeats its lines."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token and set(token) <= set(";&|"):
                commands.append([])
            else:
                commands[-1].append(token)
    except ValueError:
        return ()
    return tuple(tuple(c) for c in commands if c)


def missing_runs(step: Step, truth: dict[str, str], ran: list[tuple[str | None, str]],
                 home: str = "login01") -> list[tuple[str | None, str]]:
    """The (host, tool) runs of ``step`` that ``ran`` lacks: each tool where the procedure runs it."""
    wanted = tool_runs([substitute(cmd, truth) for cmd in step.run], home)
    return [w for w in wanted if not any(t == w[1] and (h is None or w[0] is None or h == w[0]) for h, t in ran)]


def evidence_report(lab: Lab, truth: dict[str, str], typed: list[str], home: str = "login01",
                    seen: dict[str, str] | None = None) -> list[str]:
    """One sentence per reference step: used (and the evidence the learner's output showed, from ``seen``,
    :mod:`emulator.labs.objectives`), or what the procedure runs there and what it learns from it.

    A step counts as used when the learner's output showed its evidence, or, for a step with no evidence
    for this truth, when the learner ran each of its tools where the procedure runs them.
    """
    ran = tool_runs(typed, home)
    seen = seen or {}
    lines = []
    for n, step in enumerate(lab.solution, start=1):
        expected = step.expected(truth)
        saw = [seen[f"{n - 1}:{p}"] for p in expected if f"{n - 1}:{p}" in seen]
        missing = missing_runs(step, truth, ran, home)
        wanted = tool_runs([substitute(cmd, truth) for cmd in step.run], home)
        record = _lower_first(step.record)
        if expected and len(saw) == len(expected):
            shown = "; ".join(f'"{line}"' for line in saw)
            text = f"used. Your output showed {shown}."
        elif not missing and not expected:
            text = "used."
        elif not missing:
            text = f"ran, but your output did not show its evidence: the reference procedure reads it to record {record}"
        else:
            how, also = ("not used", "") if len(missing) == len(wanted) else ("partly used", " also")
            text = f"{how}: the reference procedure{also} runs {_tools(missing, home)} here, to record {record}"
        lines.append(f"{n}. {step.title}: {text}")
    return lines


def _tools(runs: list[tuple[str | None, str]], home: str) -> str:
    """``ibstat and perfquery on node03``: tools that run on the same hosts together, each with those hosts."""
    hosts: dict[str, list[str]] = {}
    for host, tool in runs:
        names = hosts.setdefault(tool, [])
        if host and host != home and host not in names:
            names.append(host)
    groups: dict[tuple[str, ...], list[str]] = {}
    for tool, names in hosts.items():
        groups.setdefault(tuple(names), []).append(tool)
    return _join([f"{_join(tools)} on {_join(list(names))}" if names else _join(tools)
                  for names, tools in groups.items()])


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _lower_first(text: str) -> str:
    """``The service state`` → ``the service state``; ``GPU and link`` and ``LnkSta`` stay as they are."""
    first = text.split(" ", 1)[0]
    return text[0].lower() + text[1:] if first[1:] == first[1:].lower() else text

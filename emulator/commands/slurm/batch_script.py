"""Run a batch script's lines on the job's batch host, as ``slurmstepd`` runs ``slurm_script``.

The script runs line by line with the job's environment: ``export`` and plain
assignments extend it (they never leak into the learner's shell), ``$VAR``,
``${VAR}`` and ``$(...)`` expand, lines ending in ``\\`` continue, and a line
with a pipe, a redirection or ``&&`` runs through the shell on the batch host.
Shell set-up lines that change nothing the emulator models (``set``,
``module``, ``source``, ``ulimit``, ``cd``) are skipped. Errors read as bash
reports them from a script: ``slurm_script: line 5: nvcc: command not found``.
"""

from __future__ import annotations

import re
import shlex

from emulator.cluster.model import Node
from emulator.commands.kit.command import Context

#: First words of set-up lines the emulator skips.
SKIPPED = ("set", "module", "source", ".", "ulimit", "cd", "umask", "shopt", "trap")
#: Words that make a line need the shell (pipes, lists, redirections).
SHELL_WORDS = ("|", "||", "&&", ";", ">", ">>", "<", "2>", "2>&1", "&>")
#: Most ``$(...)`` substitutions one script may run.
MAX_SUBSTITUTIONS = 32

_VAR = re.compile(r"\$\{(\w+)\}|\$(\w+)")
_SUBST = re.compile(r"\$\(([^()]*)\)")
_ASSIGN = re.compile(r"(\w+)=(.*)")
_STEP = re.compile(r"(^|[|;&]\s*)srun\b")


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of each command line, continuations joined, comments dropped."""
    lines: list[tuple[int, str]] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), start=1):
        if not pending:
            start = number
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        line = (pending + raw).strip()
        pending = ""
        if line and not line.startswith("#"):
            lines.append((start, line))
    if pending.strip():
        lines.append((start, pending.strip()))
    return lines


def run(ctx: Context, host: Node, text: str, env: dict[str, str], script: str) -> tuple[str, int]:
    """The script's combined output and its exit status (that of its last command)."""
    env = dict(env)
    output: list[str] = []
    status = 0
    budget = [MAX_SUBSTITUTIONS]
    for number, line in logical_lines(text):
        where = f"{script}: line {number}: "
        words = line.split()
        if words[0] in SKIPPED:
            continue
        line = _expand(ctx, host, line, env, budget)
        try:
            argv = shlex.split(line)
        except ValueError:
            output.append(f"{where}syntax error: unexpected end of file\n")
            return "".join(output), 2
        if not argv:
            continue
        if argv[0] == "export" or (all(_ASSIGN.fullmatch(w) for w in argv)):
            for word in argv[1:] if argv[0] == "export" else argv:
                m = _ASSIGN.fullmatch(word)
                if m:
                    env[m.group(1)] = m.group(2)
            continue
        if any(word in SHELL_WORDS for word in argv):
            # The shell on the host does not carry the job's environment: steps join the job explicitly.
            line = _STEP.sub(rf"\1srun --jobid={env.get('SLURM_JOB_ID', '')}", line)
            result = ctx.run(["ssh", host.name, line], env=env)
        else:
            result = ctx.run(argv, host=host, env=env)
        output.append(result.stdout)
        output.append(re.sub(r"^bash: ", where, result.stderr, flags=re.M))
        status = result.status
    return "".join(output), status


def _expand(ctx: Context, host: Node, line: str, env: dict[str, str], budget: list[int]) -> str:
    def var(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        return env.get(name, ctx.env.get(name, ""))

    def subst(m: re.Match[str]) -> str:
        if budget[0] <= 0:
            return ""
        budget[0] -= 1
        return ctx.run(["ssh", host.name, m.group(1)], env=env).stdout.strip()

    return _SUBST.sub(subst, _VAR.sub(var, line))

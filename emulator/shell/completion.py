"""Tab completion of the last word of a line, from the model and the command table.

The first word of a command completes to command names; later words to the
command's options (``-``), its sub-commands, paths in the virtual
filesystem, host names (after ``ssh`` and node-taking flags) and lab ids.
"""

from __future__ import annotations

import os.path
import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

from emulator import labs
from emulator.limits import MATCH_LIMIT, limit_reached
from emulator.shell import table

if TYPE_CHECKING:  # pragma: no cover
    from emulator.shell.interpreter import Shell

_BREAKS = " \t\n;|&()<>"
_HOST_COMMANDS = {"ssh", "ping", "ipmitool"}
#: Commands whose next word is itself a command.
_WRAPPERS = {"sudo", "watch", "time", "xargs", "env", "timeout", "nohup", "srun"}


@dataclass
class Completion:
    """``start``: index in the line where the completed word begins."""

    start: int
    matches: list[str]
    common: str


def _last_word(line: str) -> tuple[int, str]:
    start = len(line)
    while start > 0 and line[start - 1] not in _BREAKS:
        start -= 1
    return start, line[start:]


def _command_words(line: str, start: int) -> list[str]:
    """Words of the current command before the one being completed."""
    head = line[:start]
    for sep in ";|&(":
        head = head.rsplit(sep, 1)[-1]
    return head.split()


def _runs_a_command(before: list[str]) -> bool:
    """Whether the word being completed is the command a wrapper runs (``sudo nv``, ``ssh node01 nv``)."""
    if before[0] == "ssh":
        return len([w for w in before[1:] if not w.startswith("-")]) == 1
    if before[0] not in _WRAPPERS:
        return False
    previous = before[-1]
    return previous == before[0] or not previous.startswith("-") or "=" in previous


def _paths(shell: Shell, word: str, dirs_only: bool = False) -> list[str]:
    fs = shell.fs
    expanded = shell.home + word[1:] if word.startswith("~") else word
    directory, prefix = posixpath.split(expanded)
    shown_dir = word[: len(word) - len(prefix)]
    try:
        names = fs.listdir(directory or ".")
    except Exception:  # noqa: BLE001 - any unreadable directory simply completes nothing
        return []
    out = []
    for name in names:
        if not name.startswith(prefix) or (name.startswith(".") and not prefix.startswith(".")):
            continue
        full = posixpath.join(directory or ".", name)
        is_dir = fs.isdir(full)
        if dirs_only and not is_dir:
            continue
        out.append(shown_dir + name + ("/" if is_dir else ""))
    return out


def complete(shell: Shell, line: str) -> Completion:
    start, word = _last_word(line)
    before = _command_words(line, start)
    if word[:1] in ("'", '"') and before:
        # A quoted path: complete inside the quote.
        inner = complete(shell, line[:start] + word[1:])
        quoted = [word[0] + m for m in inner.matches]
        common = os.path.commonprefix(quoted) if quoted else word
        return Completion(start, quoted, common)
    if word.startswith("--") and "=" in word and before:
        option, _, value = word.partition("=")
        inner = complete(shell, f"{line[:start]}{option} {value}")
        offset = len(option) + 1
        return Completion(start + offset, inner.matches, inner.common)
    matches: list[str]
    if not before:
        if "/" in word:
            matches = _paths(shell, word)
        else:
            matches = sorted(n for n in table.commands().names() if n.startswith(word))
    else:
        command = table.commands().lookup(before[0])
        if word.startswith("-") and command is not None:
            options = command.alias_options().get(before[0]) or command.option_strings()
            matches = [o for o in options if o.startswith(word)]
        else:
            matches = []
            if command is not None and len(before) == 1:
                matches += [s for s in command.subcommands() if s.startswith(word)]
            if before[0] in _HOST_COMMANDS or before[-1] in ("-w", "--nodelist", "-H", "--node", "--host"):
                matches += [n for n in shell.cluster.nodes if n.startswith(word)]
            if before[0] == "lab" or before[-1] == "--lab":
                matches += [lab for lab in labs.known_labs() if lab.startswith(word)]
            if before[0] in ("man", "help", "which", "type") or _runs_a_command(before):
                matches += sorted(n for n in table.commands().names() if n.startswith(word))
            matches += _paths(shell, word, dirs_only=before[0] == "cd")
    matches = sorted(dict.fromkeys(matches))
    common = os.path.commonprefix(matches) if matches else word
    if len(matches) == 1 and not matches[0].endswith("/"):
        common = matches[0] + " "
    if len(matches) > MATCH_LIMIT:
        # The common prefix above counts every match; the list shows the first ones and says how many are left.
        matches = [*matches[:MATCH_LIMIT], limit_reached(f"... and {len(matches) - MATCH_LIMIT} more")]
    return Completion(start, matches, common)

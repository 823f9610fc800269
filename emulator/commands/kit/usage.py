"""Usage errors in the words of getopt, which most non-GNU tools parse their flags with."""

from __future__ import annotations

import re


def getopt_error(prog: str, message: str) -> str:
    """An argparse message in getopt's words (``invalid option -- 'z'``)."""
    m = re.search(r"unrecognized arguments: (\S+)", message)
    if m:
        opt = m.group(1)
        if opt.startswith("--"):
            return f"{prog}: unrecognized option '{opt}'"
        if opt.startswith("-"):
            return f"{prog}: invalid option -- '{opt[1:2]}'"
        return f"{prog}: extra operand '{opt}'"
    m = re.search(r"argument (-\w)(?:/\S+)?: expected one argument", message)
    if m:
        return f"{prog}: option requires an argument -- '{m.group(1)[1:]}'"
    return f"{prog}: {message}"


def follows(words: list[str]) -> bool:
    """Whether the words ask to follow new lines (``-f``, ``-F``, ``-w``, ``--follow``), as tail and dmesg do."""
    return any(w.startswith("--f") or (w.startswith("-") and not w.startswith("--") and set(w) & set("fFw"))
               for w in words)

"""How dcgmi reads a sub-command's flags: getopt over a declared :class:`Flag` table.

Each sub-command (``diag``, ``dmon``, ``health``...) declares its flags once;
:func:`getopt_spec` derives the getopt specs from that table, so what is
parsed and what is declared cannot drift. A bad flag or a stray word is a
``PARSE ERROR`` in TCLAP's words, exit 255.
"""

from __future__ import annotations

import getopt

from emulator.commands.kit.command import Context
from emulator.commands.kit.spec import Flag

#: ``-h``/``--help``, which every sub-command takes.
HELP_FLAG = Flag("-h", "--help", "", "display usage information and exit")


def getopt_spec(flags: tuple[Flag, ...]) -> tuple[str, list[str]]:
    """The short-option string and long-option list :func:`getopt.gnu_getopt` reads for ``flags``."""
    short = "".join(flag.short[1:] + (":" if flag.value else "") for flag in flags if flag.short)
    long = [flag.long[2:] + ("=" if flag.value else "") for flag in flags if flag.long]
    return short, long


def parse_options(ctx: Context, sub: str, argv: list[str], flags: tuple[Flag, ...]) -> dict[str, str]:
    """``dcgmi SUB argv...`` read against ``flags``: each given option (without dashes) → its value."""
    try:
        opts, rest = getopt.gnu_getopt(argv, *getopt_spec(flags))
    except getopt.GetoptError as exc:
        raise ctx.fail(f"PARSE ERROR: \n             {exc.msg}\n\nBrief USAGE: \n   dcgmi {sub} --help\n", 255) \
            from None
    if rest:
        raise ctx.fail(f"PARSE ERROR: \n             Couldn't find match for argument '{rest[0]}'\n\n"
                       f"Brief USAGE: \n   dcgmi {sub} --help\n", 255)
    return {k.lstrip("-"): v for k, v in opts}

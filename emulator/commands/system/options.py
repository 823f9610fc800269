"""How systemctl, journalctl and dmesg read their flags: getopt_long over a declared :class:`Flag` table.

Each command declares its flags once; :func:`getopt_spec` derives the getopt
specs from that table, so what is parsed and what ``--help`` lists cannot
drift. A value in brackets (``[OFFSET|ID]``) is optional: getopt is told the
flag takes none, and the command reads a following value itself. Bad options
answer in util-linux's and systemd's words, exit 1.
"""

from __future__ import annotations

import getopt

from emulator.commands.kit.command import Context
from emulator.commands.kit.spec import Flag


def takes_value(flag: Flag) -> bool:
    """Whether getopt must give ``flag`` a value (an optional one, in brackets, it leaves to the command)."""
    return bool(flag.value) and not flag.value.startswith("[")


def getopt_spec(flags: tuple[Flag, ...]) -> tuple[str, list[str]]:
    """The short-option string and long-option list :func:`getopt.gnu_getopt` reads for ``flags``."""
    short = "".join(flag.short[1:] + (":" if takes_value(flag) else "") for flag in flags if flag.short)
    long = [flag.long[2:] + ("=" if takes_value(flag) else "") for flag in flags if flag.long]
    return short, long


def gnu_getopt(ctx: Context, argv: list[str], flags: tuple[Flag, ...]) -> tuple[list[tuple[str, str]], list[str]]:
    """Parse ``argv`` against ``flags`` like getopt_long, raising the GNU wording on bad options."""
    try:
        return getopt.gnu_getopt(argv, *getopt_spec(flags))
    except getopt.GetoptError as exc:
        name = ctx.argv[0]
        opt = exc.opt
        if exc.msg.startswith("option --") and "requires argument" in exc.msg:
            text = f"{name}: option '--{opt}' requires an argument"
        elif exc.msg.startswith("option -") and "requires argument" in exc.msg:
            text = f"{name}: option requires an argument -- '{opt}'"
        elif len(opt) > 1 or exc.msg.startswith("option --"):
            text = f"{name}: unrecognized option '--{opt}'"
        else:
            text = f"{name}: invalid option -- '{opt}'"
        raise ctx.fail(f"{text}\nTry '{name} --help' for more information.\n", 1) from None

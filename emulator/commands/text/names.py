"""basename and dirname: the last component of a file name, or all before it."""

from __future__ import annotations

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.coreio import SECTION, getopt_long
from emulator.commands.kit.spec import Flag

HELP = Flag("", "--help", "", "display this help and exit")


def basename(name: str, suffix: str = "") -> str:
    """``name`` without its directory, and without ``suffix`` unless that is all there is."""
    base = name.rstrip("/").rsplit("/", 1)[-1] or ("/" if name.startswith("/") else "")
    if suffix and base != suffix and base.endswith(suffix):
        base = base[: -len(suffix)]
    return base


def dirname(name: str) -> str:
    """``name`` without its last component and the slashes around it; ``.`` when nothing is left."""
    stripped = name.rstrip("/")
    if "/" not in stripped:
        return "/" if name.startswith("/") else "."
    return stripped.rsplit("/", 1)[0].rstrip("/") or "/"


class Basename(RawCommand):
    name = "basename"
    summary = "strip directory (and a suffix) from a file name"
    section = SECTION
    usage_status = 1
    synopsis = "NAME [SUFFIX]\n  or:  basename OPTION... NAME..."
    flags = (
        Flag("-a", "--multiple", "", "support multiple arguments and treat each as a NAME"),
        Flag("-s", "--suffix", "SUFFIX", "remove a trailing SUFFIX; implies -a"),
        Flag("-z", "--zero", "", "end each output line with NUL, not newline"),
        HELP,
    )

    def execute(self, ctx: Context) -> Outcome:
        given, words = getopt_long(self, ctx.argv[1:], permute=False)
        options = dict(given)
        if "--help" in options:
            ctx.out(self.help_text())
            return 0
        if not words:
            raise ctx.fail("basename: missing operand\nTry 'basename --help' for more information.", 1)
        end = "\0" if "--zero" in options else "\n"
        if "--multiple" in options or "--suffix" in options:
            suffix = options.get("--suffix", "")
            ctx.out("".join(basename(word, suffix) + end for word in words))
            return 0
        if len(words) > 2:
            raise ctx.fail(f"basename: extra operand ‘{words[2]}’\nTry 'basename --help' for more information.", 1)
        ctx.out(basename(*words) + end)
        return 0


class Dirname(RawCommand):
    name = "dirname"
    summary = "strip the last component from a file name"
    section = SECTION
    usage_status = 1
    synopsis = "[OPTION] NAME..."
    flags = (
        Flag("-z", "--zero", "", "end each output line with NUL, not newline"),
        HELP,
    )

    def execute(self, ctx: Context) -> Outcome:
        given, words = getopt_long(self, ctx.argv[1:])
        options = dict(given)
        if "--help" in options:
            ctx.out(self.help_text())
            return 0
        if not words:
            raise ctx.fail("dirname: missing operand\nTry 'dirname --help' for more information.", 1)
        end = "\0" if "--zero" in options else "\n"
        ctx.out("".join(dirname(word) + end for word in words))
        return 0

"""cat, less and more: files printed to the screen."""

from __future__ import annotations

import argparse
import errno
import re

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.coreio import (
    SECTION,
    CoreutilsErrors,
    Intermixed,
    flag_named,
    getopt_long,
    join_lines,
    long_matches,
    read_input,
    split_lines,
)
from emulator.commands.kit.spec import ArgumentParser, Flag
from emulator.vfs import FsError


class Cat(CoreutilsErrors, Intermixed):
    name = "cat"
    filters_lines = True
    reads_only = True
    summary = "print files (-n: number lines)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-n", "--number", action="store_true", help="number all output lines")
        parser.add_argument("-A", "--show-all", action="store_true", help="show tabs as ^I and line ends as $")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files to print (- or none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        status = 0
        number = 0
        for path in args.files or ["-"]:
            try:
                text = read_input(ctx, path)
            except FsError as exc:
                ctx.err(exc.message("cat") + "\n")
                status = 1
                continue
            if args.show_all:
                text = "".join(line.replace("\t", "^I") + "$\n" for line in split_lines(text))
            if args.number:
                lines = []
                for line in split_lines(text):
                    number += 1
                    lines.append(f"{number:6d}\t{line}")
                text = join_lines(lines)
            ctx.out(text)
        return status


class More(RawCommand):
    """util-linux more's options, which :class:`Less` reads when it runs as ``more``.

    Not a table entry of its own: ``more`` stays a name of ``less``, so ``help``
    lists one pager, while ``more --help`` shows this page.
    """

    name = "more"
    summary = "page through a file (here: print it whole)"
    usage_status = 1
    synopsis = "[OPTION]... [+LINE | +/PATTERN] [FILE]..."
    flags = (
        Flag("-d", "--silent", "", "display help instead of ringing the bell"),
        Flag("-f", "--logical", "", "count logical rather than screen lines"),
        Flag("-l", "--no-pause", "", "suppress the pause after a form feed"),
        Flag("-c", "--print-over", "", "do not scroll: display the text and clean line ends"),
        Flag("-p", "--clean-print", "", "do not scroll: clean the screen and display the text"),
        Flag("-e", "--exit-on-eof", "", "exit at the end of the file"),
        Flag("-s", "--squeeze", "", "squeeze runs of blank lines into one"),
        Flag("-u", "--plain", "", "suppress underlining and bold"),
        Flag("-n", "--lines", "NUMBER", "the number of lines per screenful (also -NUMBER)"),
        Flag("-h", "--help", "", "display this help"),
    )
    notes = ("Here the files are printed whole, as when more's output is not a terminal: the options above\n"
             "are accepted and change nothing, and so are +LINE and +/PATTERN.")

    def operands(self, ctx: Context, words: list[str]) -> list[str] | None:
        """The files, after util-linux's options (``-NUMBER``, ``+LINE`` and ``+/PATTERN`` too), read as getopt_long reads them."""
        end = words.index("--") if "--" in words else len(words)
        kept = [w for w in words[:end] if not (re.fullmatch(r"-\d+", w) or (len(w) > 1 and w[0] == "+"))]
        given, paths = getopt_long(self, kept + words[end:])
        if any(name == "--help" for name, _ in given):
            ctx.out(self.help_text())
            return None
        return paths


#: The options ``less`` reads when it runs as ``more``.
MORE = More()


class Less(RawCommand):
    name = "less"
    summary = "page through a file (here: print it whole)"
    section = SECTION
    aliases = ("more",)
    synopsis = "[OPTION]... [+COMMAND] [--] [FILE]..."
    flags = (
        Flag("-?", "--help", "", "display this help and exit"),
        Flag("-e", "--quit-at-eof", "", "quit the second time the end of the file is reached"),
        Flag("-E", "--QUIT-AT-EOF", "", "quit the first time the end of the file is reached"),
        Flag("-f", "--force", "", "open non-regular files too"),
        Flag("-F", "--quit-if-one-screen", "", "quit if the whole file fits on the first screen"),
        Flag("-i", "--ignore-case", "", "ignore case in searches that have no upper case letter"),
        Flag("-I", "--IGNORE-CASE", "", "ignore case in all searches"),
        Flag("-j", "--jump-target", "N", "put target lines on screen line N"),
        Flag("-K", "--quit-on-intr", "", "exit at once on Ctrl-C"),
        Flag("-m", "--long-prompt", "", "a prompt like more's"),
        Flag("-M", "--LONG-PROMPT", "", "a prompt longer still"),
        Flag("-n", "--line-numbers", "", "don't use line numbers"),
        Flag("-N", "--LINE-NUMBERS", "", "show a line number on each line"),
        Flag("-p", "--pattern", "PATTERN", "start at the first line that matches PATTERN"),
        Flag("-r", "--raw-control-chars", "", "output control characters raw"),
        Flag("-R", "--RAW-CONTROL-CHARS", "", "output ANSI colour sequences raw"),
        Flag("-s", "--squeeze-blank-lines", "", "squeeze runs of blank lines into one"),
        Flag("-S", "--chop-long-lines", "", "chop long lines rather than wrap them"),
        Flag("-x", "--tabs", "N", "set tab stops every N columns"),
        Flag("-X", "--no-init", "", "don't clear the screen on start and on exit"),
        Flag("-~", "--tilde", "", "don't show tildes after the end of the file"),
    )
    notes = ("Here the files are printed whole, as less prints them when its output is not a terminal: the\n"
             "options above are accepted and change nothing, and so are +COMMAND words (+F, +G, +/pattern).\n"
             "An unknown option is reported and skipped, as less does. Run as more, it reads the options of\n"
             "util-linux more instead (more --help).")

    def alias_options(self) -> dict[str, list[str]]:
        return {"more": MORE.option_strings()}

    def execute(self, ctx: Context) -> Outcome:
        pager = MORE if ctx.argv[0] == "more" else self
        paths = pager.operands(ctx, ctx.argv[1:])
        if paths is None:
            return 0
        if not paths:
            if not ctx.stdin:
                raise ctx.fail("Missing filename (\"less --help\" for help)", 1)
            ctx.out(ctx.stdin)
            return 0
        status = 0
        for path in paths:
            try:
                ctx.out(read_input(ctx, path))
            except FsError as exc:
                if exc.errno == errno.EISDIR:
                    ctx.err(f"{path} is a directory\n")
                else:
                    ctx.err(f"{path}: {exc.strerror}\n")
                status = 1
        return status

    def operands(self, ctx: Context, words: list[str]) -> list[str] | None:
        """The files, after the options that come before the first of them; None when the run ends there.

        As less reads them: clusters (``-SR``), values attached or in the next word (``-p error``,
        ``--pattern=error``), long names shortened to a unique prefix, ``+COMMAND`` words, and ``--``.
        An unknown option is reported and skipped; ``--help`` prints the help.
        """
        i = 0
        while i < len(words) and len(words[i]) > 1 and words[i][0] in "-+":
            word = words[i]
            i += 1
            if word == "--":
                break
            if word[0] == "+":
                continue
            if word.startswith("--"):
                name, eq, _ = word.partition("=")
                matches = long_matches(self.flags, name)
                if len(matches) > 1:
                    ctx.err(f'{name[2:]} is an ambiguous abbreviation ("less --help" for help)\n')
                    continue
                if not matches:
                    ctx.err(f'There is no {word[2:]} option ("less --help" for help)\n')
                    continue
                flag = matches[0]
                if flag.long == "--help":
                    ctx.out(self.help_text())
                    return None
                if flag.value and not eq:
                    if i >= len(words):
                        ctx.err(f"Value is required after {flag.long}\n")
                        return None
                    i += 1
                continue
            for j, letter in enumerate(word[1:], 2):
                short = flag_named(self.flags, "-" + letter)
                if short is None:
                    ctx.err(f'There is no -{letter} option ("less --help" for help)\n')
                    break
                if short.long == "--help":
                    ctx.out(self.help_text())
                    return None
                if short.value:
                    if j == len(word):
                        if i >= len(words):
                            ctx.err(f"Value is required after -{letter} ({short.long})\n")
                            return None
                        i += 1
                    break
        return words[i:]

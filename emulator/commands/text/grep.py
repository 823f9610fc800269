"""grep: lines that match patterns, with GNU grep's flags, context separators and messages.

Patterns are POSIX BRE or ERE (:mod:`emulator.commands.kit.regex`), fixed strings, or Python's
own syntax for ``-P``.
"""

from __future__ import annotations

import argparse
import fnmatch
import re

from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import SECTION, Intermixed, coreutils_error, join_lines, split_lines
from emulator.commands.kit.regex import Regex, RegexError, compile_python, compile_regex, posix_regex
from emulator.commands.kit.spec import ArgumentParser
from emulator.errors import CommandError
from emulator.limits import OUTPUT_LIMIT, WALK_LIMIT, limit_reached
from emulator.vfs import Dir, FsError, TreeTooLarge


class Grep(Intermixed):
    name = "grep"
    filters_lines = True
    whole_input_flags = frozenset({"-c", "--count", "-l", "-L", "-q", "--quiet", "-m", "--max-count", "-A", "-B",
                                   "-C", "-r", "-R", "-z", "--files-with-matches", "--files-without-match"})
    reads_only = True
    summary = "print lines that match patterns (-i -v -c -n -E -F -o -w -x -A -B -C -r -h -H -l -L -q -m)"
    section = SECTION
    add_help_flag = False  # -h means --no-filename

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("--help", action="help", help="display this help text and exit")
        parser.add_argument("-e", "--regexp", action="append", dest="patterns", metavar="PATTERNS", help="use PATTERNS for matching")
        parser.add_argument("-E", "--extended-regexp", action="store_true", help="PATTERNS are extended regular expressions")
        parser.add_argument("-F", "--fixed-strings", action="store_true", help="PATTERNS are strings")
        parser.add_argument("-G", "--basic-regexp", action="store_true", help="PATTERNS are basic regular expressions")
        parser.add_argument("-P", "--perl-regexp", action="store_true", help="PATTERNS are Perl regular expressions")
        parser.add_argument("-i", "--ignore-case", action="store_true", help="ignore case distinctions in patterns and data")
        parser.add_argument("-w", "--word-regexp", action="store_true", help="match only whole words")
        parser.add_argument("-x", "--line-regexp", action="store_true", help="match only whole lines")
        parser.add_argument("-v", "--invert-match", action="store_true", help="select non-matching lines")
        parser.add_argument("-c", "--count", action="store_true", help="print only a count of selected lines per FILE")
        parser.add_argument("-n", "--line-number", action="store_true", help="print line number with output lines")
        parser.add_argument("-o", "--only-matching", action="store_true", help="show only nonempty parts of lines that match")
        parser.add_argument("-q", "--quiet", "--silent", action="store_true", help="suppress all normal output")
        parser.add_argument("-s", "--no-messages", action="store_true", help="suppress error messages")
        parser.add_argument("-m", "--max-count", type=int, metavar="NUM", help="stop after NUM selected lines")
        parser.add_argument("-H", "--with-filename", action="store_true", help="print file name with output lines")
        parser.add_argument("-h", "--no-filename", action="store_true", help="suppress the file name prefix on output")
        parser.add_argument("-l", "--files-with-matches", action="store_true", help="print only names of FILEs with selected lines")
        parser.add_argument("-L", "--files-without-match", action="store_true", help="print only names of FILEs with no selected lines")
        parser.add_argument("-r", "-R", "--recursive", action="store_true", help="search directories recursively")
        parser.add_argument("-A", "--after-context", type=int, metavar="NUM", help="print NUM lines of trailing context")
        parser.add_argument("-B", "--before-context", type=int, metavar="NUM", help="print NUM lines of leading context")
        parser.add_argument("-C", "--context", type=int, metavar="NUM", help="print NUM lines of output context")
        parser.add_argument("--color", "--colour", nargs="?", const="auto", metavar="WHEN", help="accepted; no colors")
        parser.add_argument("--line-buffered", action="store_true", help="flush output on every line (always so here)")
        parser.add_argument("--include", action="append", metavar="GLOB", help="search only files that match GLOB")
        parser.add_argument("operands", nargs="*", metavar="PATTERNS [FILE]", help="patterns, then files")

    def usage_error(self, message: str) -> str:
        text = coreutils_error(self.name, message).split("\n")[0]
        if "invalid int value" in message:
            bad = message.rsplit(":", 1)[-1].strip().strip("'")
            return f"grep: {bad}: invalid context length argument"
        return f"{text}\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information."

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        operands = list(args.operands)
        patterns = args.patterns
        if patterns is None:
            if not operands:
                raise ctx.fail("Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.", 2)
            patterns = operands.pop(0).split("\n")
        matcher = self._matcher(patterns, args)
        after = args.after_context if args.after_context is not None else (args.context or 0)
        before = args.before_context if args.before_context is not None else (args.context or 0)
        if min(after, before) < 0:
            raise ctx.fail(f"grep: {min(after, before)}: invalid context length argument", 2)
        files = operands or (["."] if args.recursive else ["-"])
        targets, status = self._targets(ctx, files, args)
        show_names = (len(files) > 1 or len(targets) > 1 or args.recursive) and not args.no_filename or args.with_filename
        found_any = False
        for name, text in targets:
            selected = self._search(ctx, name if show_names else None, text, matcher, args, before, after)
            found_any = found_any or selected > 0
            if args.quiet and found_any:
                return 0
        if status == 2 and not (found_any and args.quiet):
            return 2
        return 0 if found_any else 1

    def _matcher(self, patterns: list[str], args: argparse.Namespace) -> Regex:
        flags = re.IGNORECASE if args.ignore_case else 0
        parts = []
        for pattern in patterns:
            if args.fixed_strings:
                parts.append(re.escape(pattern))
            elif args.perl_regexp:
                parts.append(pattern)
            else:
                try:
                    parts.append(posix_regex(pattern, args.extended_regexp))
                except RegexError as exc:
                    raise CommandError(f"grep: {exc}", 2) from None
        body = "|".join(f"(?:{p})" for p in parts)
        if args.word_regexp:
            body = rf"(?<!\w)(?:{body})(?!\w)"
        if args.line_regexp:
            body = rf"^(?:{body})$"
        try:
            compiled = compile_python(body, flags)
        except RegexError as exc:
            raise CommandError(f"grep: {exc}", 2) from None
        except re.error:
            try:
                for pattern in patterns:
                    compile_regex(pattern, args.extended_regexp, args.ignore_case)
            except RegexError as exc:
                raise CommandError(f"grep: {exc}", 2) from None
            raise CommandError("grep: Invalid regular expression", 2) from None
        return compiled

    def _targets(self, ctx: Context, files: list[str], args: argparse.Namespace) -> tuple[list[tuple[str, str]], int]:
        targets: list[tuple[str, str]] = []
        status = 0
        fs = ctx.fs
        for path in files:
            if path == "-":
                targets.append(("(standard input)", ctx.stdin))
                continue
            try:
                node = fs.lookup(path)
            except FsError as exc:
                if not args.no_messages:
                    ctx.err(exc.message("grep") + "\n")
                status = 2
                continue
            if isinstance(node, Dir):
                if not args.recursive:
                    if not args.no_messages:
                        ctx.err(f"grep: {path}: Is a directory\n")
                    status = 2
                    continue
                base = fs.abspath(path)
                try:
                    for full, child in fs.walk(base):
                        if isinstance(child, Dir):
                            continue
                        shown = path.rstrip("/") + full[len(base):] if path != "." or args.operands else full[len(base) + 1:]
                        if args.include and not any(re.fullmatch(_glob_to_re(g), full.rsplit("/", 1)[-1])
                                                    for g in args.include):
                            continue
                        targets.append((shown, child.read()))
                except TreeTooLarge:
                    ctx.err(limit_reached(f"grep: {path}: stopped after {WALK_LIMIT} entries") + "\n")
                    status = 2
            else:
                targets.append((path, node.read()))
        return targets, status

    def _search(self, ctx: Context, name: str | None, text: str, matcher: Regex,
                args: argparse.Namespace, before: int, after: int) -> int:
        lines = split_lines(text)
        selected_idx = []
        for i, line in enumerate(lines):
            hit = matcher.search(line) is not None
            if hit != args.invert_match:
                selected_idx.append(i)
                if args.max_count is not None and len(selected_idx) >= args.max_count:
                    break
        if args.quiet:
            return len(selected_idx)
        if args.files_with_matches or args.files_without_match:
            if bool(selected_idx) == bool(args.files_with_matches):
                ctx.outln(name or "(standard input)")
            return len(selected_idx)
        if args.count:
            ctx.outln(f"{name}:{len(selected_idx)}" if name else str(len(selected_idx)))
            return len(selected_idx)
        prefix_name = f"{name}" if name else ""
        out: list[str] = []
        printed_until = -1
        selected = set(selected_idx)
        last_context_end = -1
        shown = 0
        for i in selected_idx:
            start = max(0, i - before, printed_until + 1)
            if out and (before or after) and start > printed_until + 1:
                out.append("--")
            for j in range(start, i):
                out.append(self._prefix(prefix_name, j, "-", args) + lines[j])
            if args.only_matching and not args.invert_match:
                for found in matcher.finditer(lines[i]):
                    if found.end() > found.start():
                        out.append(self._prefix(prefix_name, i, ":", args) + found.group())
                        shown += len(out[-1]) + 1
                        if shown > OUTPUT_LIMIT:
                            break  # ctx.out keeps what fits and says so
            elif not args.only_matching:
                out.append(self._prefix(prefix_name, i, ":", args) + lines[i])
            printed_until = i
            last_context_end = min(len(lines) - 1, i + after)
            for j in range(i + 1, last_context_end + 1):
                if j in selected:
                    break
                out.append(self._prefix(prefix_name, j, "-", args) + lines[j])
                printed_until = j
        ctx.out(join_lines(out))
        return len(selected_idx)

    @staticmethod
    def _prefix(name: str, index: int, sep: str, args: argparse.Namespace) -> str:
        prefix = f"{name}{sep}" if name else ""
        if args.line_number:
            prefix += f"{index + 1}{sep}"
        return prefix


def _glob_to_re(pattern: str) -> str:
    return fnmatch.translate(pattern)

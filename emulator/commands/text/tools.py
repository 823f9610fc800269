"""Text utilities operators chain with the real tools: head, tail, wc, grep,
sort, uniq, cut, tr, column and sed (awk is a family of its own: :mod:`emulator.commands.awk`).

Each follows GNU coreutils/grep/sed behaviour and messages for the options it
accepts; ``tail -f`` follows a growing file for a few simulated seconds and
then stops by itself.
"""

from __future__ import annotations

import argparse
import fnmatch
import functools
import re
from collections.abc import Callable, Iterable

from emulator.commands.kit.command import Command, Context, Outcome, RawCommand
from emulator.commands.kit.coreio import (
    SECTION,
    CoreutilsErrors,
    Intermixed,
    columns,
    coreutils_error,
    join_lines,
    read_input,
    split_lines,
)
from emulator.commands.kit.regex import RegexError, posix_regex, substitute_all
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.usage import follows
from emulator.errors import CommandError
from emulator.vfs import Dir, FsError

#: Rounds ``tail -f`` polls before it stops by itself, and the pause between them.
FOLLOW_ROUNDS = 12
FOLLOW_INTERVAL_S = 10.0


def _count_shorthand(argv: list[str]) -> list[str]:
    """``head -5`` means ``head -n 5`` (but ``head -n -5`` keeps its value)."""
    out: list[str] = []
    for i, a in enumerate(argv):
        is_value = i > 0 and argv[i - 1] in ("-n", "-c", "--lines", "--bytes")
        if not is_value and len(a) > 1 and a[0] == "-" and a[1:].isdecimal():
            out.append(f"-n{a[1:]}")
        else:
            out.append(a)
    return out


def _parse_count(text: str, prog: str, what: str = "lines") -> tuple[int, bool]:
    """A count for -n/-c: (value, from_start for +N / all_but for -N)."""
    sign = text[:1] if text[:1] in "+-" else ""
    digits = text[len(sign):]
    multipliers = {"": 1, "b": 512, "K": 1024, "k": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "kB": 1000, "MB": 1000 ** 2}
    match = re.fullmatch(r"(\d+)([A-Za-z]*)", digits)
    if not match or match.group(2) not in multipliers:
        raise _fail(f"{prog}: invalid number of {what}: ‘{text}’", 1)
    return int(match.group(1)) * multipliers[match.group(2)], bool(sign)


def _fail(message: str, status: int) -> Exception:
    return CommandError(message, status)


class Head(CoreutilsErrors, Intermixed):
    name = "head"
    reads_only = True
    summary = "print the first lines of files (-n N, -c N)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-n", "--lines", default="10", metavar="NUM", help="print the first NUM lines; -NUM: all but the last NUM")
        parser.add_argument("-c", "--bytes", metavar="NUM", help="print the first NUM bytes")
        parser.add_argument("-q", "--quiet", action="store_true", help="never print headers giving file names")
        parser.add_argument("-v", "--verbose", action="store_true", help="always print headers giving file names")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def parse(self, argv: Iterable[str]) -> argparse.Namespace:
        return super().parse(_count_shorthand(list(argv)))

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        files = args.files or ["-"]
        status = 0
        if args.bytes is not None:
            count, all_but = _parse_count(args.bytes, "head", "bytes")
        else:
            count, all_but = _parse_count(args.lines, "head")
            all_but = all_but and args.lines.startswith("-")
        for i, path in enumerate(files):
            try:
                text = read_input(ctx, path)
            except FsError as exc:
                verb = "error reading" if isinstance(exc, FsError) and exc.strerror == "Is a directory" else "cannot open"
                suffix = "" if verb == "error reading" else " for reading"
                ctx.err(f"head: {verb} '{path}'{suffix}: {exc.strerror}\n")
                status = 1
                continue
            if (len(files) > 1 and not args.quiet) or args.verbose:
                ctx.out(("\n" if i else "") + f"==> {'standard input' if path == '-' else path} <==\n")
            if args.bytes is not None:
                data = text.encode()
                ctx.out((data[:-count] if all_but and count else b"" if all_but else data[:count]).decode(errors="replace")
                        if not (all_but and count == 0) else text)
                continue
            lines = text.splitlines(keepends=True)
            chosen = lines[:-count] if all_but and count else lines if all_but else lines[:count]
            ctx.out("".join(chosen))
        return status


class Tail(CoreutilsErrors, Intermixed):
    name = "tail"
    streams = True
    summary = "print the last lines of files (-n N, -n +N, -f: follow a growing file for a while)"
    section = SECTION
    usage_status = 1

    def pure(self, words: list[str]) -> bool:
        return not follows(words)

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-n", "--lines", default="10", metavar="NUM", help="output the last NUM lines; +NUM: from line NUM")
        parser.add_argument("-c", "--bytes", metavar="NUM", help="output the last NUM bytes")
        parser.add_argument("-f", "--follow", action="store_true", help="output appended data as the file grows")
        parser.add_argument("-F", dest="follow_retry", action="store_true", help="same as --follow=name --retry")
        parser.add_argument("-q", "--quiet", action="store_true", help="never output headers giving file names")
        parser.add_argument("-s", "--sleep-interval", type=float, metavar="N", help="seconds between checks with -f")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def parse(self, argv: Iterable[str]) -> argparse.Namespace:
        return super().parse(_count_shorthand(list(argv)))

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        files = args.files or ["-"]
        status = 0
        what = "bytes" if args.bytes is not None else "lines"
        count, from_start = _parse_count(args.bytes if args.bytes is not None else args.lines, "tail", what)
        from_start = from_start and (args.bytes or args.lines).startswith("+")
        seen: dict[str, str] = {}
        headers = len(files) > 1 and not args.quiet
        for i, path in enumerate(files):
            try:
                text = read_input(ctx, path)
            except FsError as exc:
                ctx.err(f"tail: cannot open '{path}' for reading: {exc.strerror}\n")
                status = 1
                continue
            if headers:
                ctx.out(("\n" if i else "") + f"==> {'standard input' if path == '-' else path} <==\n")
            ctx.out(_tail_text(text, count, from_start, what == "bytes"))
            seen[path] = text
        if not (args.follow or args.follow_retry) or not seen or files == ["-"]:
            return status
        return self._follow(ctx, seen, headers, max(0.1, args.sleep_interval or FOLLOW_INTERVAL_S))

    @staticmethod
    def _follow(ctx: Context, seen: dict[str, str], headers: bool, interval: float) -> Outcome:
        last = list(seen)[-1]
        for _ in range(FOLLOW_ROUNDS):
            yield interval
            for path, old in seen.items():
                try:
                    new = ctx.fs.read(path)
                except FsError:
                    continue
                if new == old:
                    continue
                if headers and path != last:
                    ctx.out(f"\n==> {path} <==\n")
                    last = path
                if new.startswith(old):
                    ctx.out(new[len(old):])
                else:
                    ctx.err(f"tail: {path}: file truncated\n")
                    ctx.out(new)
                seen[path] = new
        return 0


def _tail_text(text: str, count: int, from_start: bool, as_bytes: bool) -> str:
    if as_bytes:
        data = text.encode()
        chosen = data[max(0, count - 1):] if from_start else (data[-count:] if count else b"")
        return chosen.decode(errors="replace")
    lines = text.splitlines(keepends=True)
    if from_start:
        return "".join(lines[max(0, count - 1):])
    return "".join(lines[-count:]) if count else ""


class Wc(CoreutilsErrors, Intermixed):
    name = "wc"
    reads_only = True
    summary = "count lines, words and bytes (-l -w -c -m)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-l", "--lines", action="store_true", help="print the newline counts")
        parser.add_argument("-w", "--words", action="store_true", help="print the word counts")
        parser.add_argument("-c", "--bytes", action="store_true", help="print the byte counts")
        parser.add_argument("-m", "--chars", action="store_true", help="print the character counts")
        parser.add_argument("-L", "--max-line-length", action="store_true", help="print the maximum display width")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        chosen = [k for k in ("lines", "words", "chars", "bytes", "max_line_length") if getattr(args, k)]
        if not chosen:
            chosen = ["lines", "words", "bytes"]
        files = args.files or ["-"]
        rows: list[tuple[list[int], str]] = []
        status = 0
        regular_total = 0
        stdin_used = False
        for path in files:
            try:
                text = read_input(ctx, path)
            except FsError as exc:
                ctx.err(exc.message("wc") + "\n")
                status = 1
                if exc.strerror == "Is a directory":
                    rows.append(([0] * len(chosen), path))
                continue
            if path == "-":
                stdin_used = True
            else:
                regular_total += len(text.encode())
            counts = {"lines": text.count("\n"), "words": len(text.split()), "chars": len(text),
                      "bytes": len(text.encode()), "max_line_length": max((len(x) for x in text.split("\n")), default=0)}
            rows.append(([counts[k] for k in chosen], "" if path == "-" and not args.files else path))
        if len(rows) > 1:
            rows.append(([sum(r[0][i] for r in rows) for i in range(len(chosen))], "total"))
        if len(files) == 1 and len(chosen) == 1:
            width = 1
        else:
            width = max(len(str(regular_total)), 7 if stdin_used else 1)
        for values, label in rows:
            line = " ".join(f"{v:>{width}}" for v in values)
            ctx.outln(f"{line} {label}" if label else line)
        return status


def compile_regex(pattern: str, extended: bool, ignore_case: bool = False) -> re.Pattern[str]:
    try:
        return re.compile(posix_regex(pattern, extended), re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        text = str(exc)
        if "missing )" in text or "unbalanced parenthesis" in text:
            raise RegexError("Unmatched ( or \\(") from None
        if "unterminated character set" in text:
            raise RegexError("Unmatched [, [^, [:, [., or [=") from None
        if "invalid group reference" in text:
            raise RegexError("Invalid back reference") from None
        if "nothing to repeat" in text or "multiple repeat" in text:
            raise RegexError("Invalid preceding regular expression") from None
        raise RegexError("Invalid regular expression") from None


# -- grep ------------------------------------------------------------------------------------
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
        show_names = (len(targets) > 1 or args.recursive) and not args.no_filename or args.with_filename
        found_any = False
        for name, text in targets:
            selected = self._search(ctx, name if show_names else None, text, matcher, args, before, after)
            found_any = found_any or selected > 0
            if args.quiet and found_any:
                return 0
        if status == 2 and not (found_any and args.quiet):
            return 2
        return 0 if found_any else 1

    def _matcher(self, patterns: list[str], args: argparse.Namespace) -> Callable[[str], list[tuple[int, int]]]:
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
                    raise _fail(f"grep: {exc}", 2) from None
        body = "|".join(f"(?:{p})" for p in parts)
        if args.word_regexp:
            body = rf"(?<!\w)(?:{body})(?!\w)"
        if args.line_regexp:
            body = rf"^(?:{body})$"
        try:
            compiled = re.compile(body, flags)
        except re.error:
            try:
                for pattern in patterns:
                    compile_regex(pattern, args.extended_regexp, args.ignore_case)
            except RegexError as exc:
                raise _fail(f"grep: {exc}", 2) from None
            raise _fail("grep: Invalid regular expression", 2) from None

        def spans(line: str) -> list[tuple[int, int]]:
            found = []
            for m in compiled.finditer(line):
                found.append(m.span())
                if len(found) > 1000:
                    break
            return found

        return spans

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
                for full, child in fs.walk(base):
                    if isinstance(child, Dir):
                        continue
                    shown = path.rstrip("/") + full[len(base):] if path != "." or args.operands else full[len(base) + 1:]
                    if args.include and not any(re.fullmatch(_glob_to_re(g), full.rsplit("/", 1)[-1]) for g in args.include):
                        continue
                    targets.append((shown, child.read()))
                    if len(targets) > 10_000:
                        break
            else:
                targets.append((path, node.read()))
        return targets, status

    def _search(self, ctx: Context, name: str | None, text: str, matcher: Callable[[str], list[tuple[int, int]]],
                args: argparse.Namespace, before: int, after: int) -> int:
        lines = split_lines(text)
        selected_idx = []
        for i, line in enumerate(lines):
            hit = bool(matcher(line))
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
        for i in selected_idx:
            start = max(0, i - before, printed_until + 1)
            if out and (before or after) and start > printed_until + 1:
                out.append("--")
            for j in range(start, i):
                out.append(self._prefix(prefix_name, j, "-", args) + lines[j])
            if args.only_matching and not args.invert_match:
                for a, b in matcher(lines[i]):
                    if b > a:
                        out.append(self._prefix(prefix_name, i, ":", args) + lines[i][a:b])
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


# -- sort and uniq ---------------------------------------------------------------------------
_KEY = re.compile(r"^(\d+)(?:\.(\d+))?([bdfghnrMV]*)(?:,(\d+)(?:\.(\d+))?([bdfghnrMV]*))?$")
_HUMAN = {"": 0, "K": 1, "k": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}
_NUMBER = re.compile(r"^\s*(-?\d*(?:\.\d+)?)")


def _numeric(text: str) -> float:
    match = _NUMBER.match(text)
    try:
        return float(match.group(1)) if match and match.group(1) not in ("", "-") else 0.0
    except ValueError:
        return 0.0


def _human(text: str) -> tuple[int, float]:
    match = re.match(r"^\s*(-?\d*(?:\.\d+)?)([KkMGTPE]?)", text)
    if not match or match.group(1) in ("", "-"):
        return (0, 0.0)
    value = float(match.group(1))
    sign = -1 if value < 0 else 1
    return (sign * _HUMAN[match.group(2)], value)


class Sort(CoreutilsErrors, Intermixed):
    name = "sort"
    summary = "sort lines (-n -r -k -t -h -u -f -g -s -b -V)"
    section = SECTION
    add_help_flag = False  # -h means --human-numeric-sort

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("--help", action="help", help="display this help and exit")
        parser.add_argument("-n", "--numeric-sort", action="store_true", help="compare according to string numerical value")
        parser.add_argument("-g", "--general-numeric-sort", action="store_true", help="compare according to general numerical value")
        parser.add_argument("-h", "--human-numeric-sort", action="store_true", help="compare human readable numbers (e.g., 2K 1G)")
        parser.add_argument("-V", "--version-sort", action="store_true", help="natural sort of (version) numbers within text")
        parser.add_argument("-r", "--reverse", action="store_true", help="reverse the result of comparisons")
        parser.add_argument("-f", "--ignore-case", action="store_true", help="fold lower case to upper case characters")
        parser.add_argument("-b", "--ignore-leading-blanks", action="store_true", help="ignore leading blanks")
        parser.add_argument("-u", "--unique", action="store_true", help="output only the first of an equal run")
        parser.add_argument("-s", "--stable", action="store_true", help="disable last-resort comparison")
        parser.add_argument("-k", "--key", action="append", metavar="KEYDEF", help="sort via a key; KEYDEF gives location and type")
        parser.add_argument("-t", "--field-separator", metavar="SEP", help="use SEP instead of non-blank to blank transition")
        parser.add_argument("-o", "--output", metavar="FILE", help="write result to FILE instead of standard output")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.field_separator is not None and len(args.field_separator) != 1:
            if args.field_separator == "\\t":
                args.field_separator = "\t"
            elif not args.field_separator:
                raise ctx.fail("sort: empty tab", 2)
            else:
                raise ctx.fail(f"sort: multi-character tab ‘{args.field_separator}’", 2)
        global_opts = "".join(f for f, on in (("n", args.numeric_sort), ("g", args.general_numeric_sort),
                                               ("h", args.human_numeric_sort), ("V", args.version_sort),
                                               ("f", args.ignore_case), ("b", args.ignore_leading_blanks)) if on)
        keys = []
        for spec in args.key or []:
            match = _KEY.match(spec)
            if match and match.group(1) == "0":
                raise ctx.fail(f"sort: field number is zero: invalid field specification ‘{spec}’", 2)
            if not match:
                raise ctx.fail(f"sort: invalid number at field start: invalid count at start of ‘{spec}’", 2)
            start, start_char, opts1, end, end_char, opts2 = match.groups()
            opts = (opts1 or "") + (opts2 or "")
            keys.append((int(start), int(start_char or 1), int(end) if end else None, int(end_char or 0),
                         opts or global_opts, "r" in opts if opts else args.reverse))
        lines: list[str] = []
        for path in args.files or ["-"]:
            try:
                lines += split_lines(read_input(ctx, path))
            except FsError as exc:
                raise ctx.fail(f"sort: cannot read: {path}: {exc.strerror}", 2) from None
        sep = args.field_separator

        def extract(line: str, key: tuple) -> str:
            start, start_char, end, end_char, opts, _ = key
            fields = line.split(sep) if sep is not None else re.findall(r"\s*\S+", line) or [""]
            joiner = sep if sep is not None else ""
            if start > len(fields):
                return ""
            first = fields[start - 1]
            if "b" in opts:
                first = first.lstrip()
            chosen = [first[start_char - 1:], *fields[start:end if end else len(fields)]]
            if end is not None and end < start:
                return ""
            text = joiner.join(chosen)
            if end is not None and end_char:
                last = fields[end - 1] if end <= len(fields) else ""
                cut = len(text) - len(last) + end_char
                text = text[:cut]
            return text

        def compare_values(a: str, b: str, opts: str) -> int:
            if "n" in opts:
                x, y = _numeric(a), _numeric(b)
            elif "g" in opts:
                x, y = _general(a), _general(b)
            elif "h" in opts:
                x, y = _human(a), _human(b)  # type: ignore[assignment]
            elif "V" in opts:
                x, y = _version_key(a), _version_key(b)  # type: ignore[assignment]
            elif "f" in opts:
                x, y = a.upper(), b.upper()  # type: ignore[assignment]
            else:
                if "b" in opts:
                    a, b = a.lstrip(), b.lstrip()
                x, y = a, b  # type: ignore[assignment]
            return (x > y) - (x < y)

        whole = [(1, 1, None, 0, global_opts, args.reverse)]

        def compare(a: str, b: str) -> int:
            for key in keys or whole:
                result = compare_values(extract(a, key) if keys else a, extract(b, key) if keys else b, key[4])
                if result:
                    return -result if key[5] else result
            if args.stable or args.unique:
                return 0
            result = (a > b) - (a < b)
            return -result if args.reverse else result

        lines.sort(key=functools.cmp_to_key(compare))
        if args.unique:
            unique: list[str] = []
            for line in lines:
                if not unique or compare(unique[-1], line) != 0:
                    unique.append(line)
            lines = unique
        text = join_lines(lines)
        if args.output:
            try:
                ctx.fs.write(args.output, text)
            except FsError as exc:
                raise ctx.fail(f"sort: open failed: {args.output}: {exc.strerror}", 2) from None
            return 0
        ctx.out(text)
        return 0


def _general(text: str) -> float:
    try:
        return float(text.strip().split()[0]) if text.strip() else float("-inf")
    except ValueError:
        return float("-inf")


def _version_key(text: str) -> list[tuple[int, object]]:
    return [(0, int(part)) if part.isdecimal() else (1, part) for part in re.findall(r"\d+|\D+", text)]


class Uniq(CoreutilsErrors, Intermixed):
    name = "uniq"
    summary = "report or omit repeated adjacent lines (-c -d -u -i)"
    section = SECTION
    usage_status = 1

    def pure(self, words: list[str]) -> bool:
        """``uniq [INPUT]`` reads; a second operand is a file it writes."""
        return sum(1 for w in words if not w.startswith("-") or w == "-") <= 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-c", "--count", action="store_true", help="prefix lines by the number of occurrences")
        parser.add_argument("-d", "--repeated", action="store_true", help="only print duplicate lines, one for each group")
        parser.add_argument("-u", "--unique", action="store_true", help="only print unique lines")
        parser.add_argument("-i", "--ignore-case", action="store_true", help="ignore differences in case when comparing")
        parser.add_argument("input", nargs="?", default="-", metavar="INPUT", help="input file (- or none: stdin)")
        parser.add_argument("output", nargs="?", metavar="OUTPUT", help="output file (none: stdout)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        try:
            lines = split_lines(read_input(ctx, args.input))
        except FsError as exc:
            raise ctx.fail(exc.message("uniq"), 1) from None
        groups: list[list[str]] = []
        for line in lines:
            key = line.lower() if args.ignore_case else line
            if groups and (groups[-1][0].lower() if args.ignore_case else groups[-1][0]) == key:
                groups[-1].append(line)
            else:
                groups.append([line])
        out = []
        for group in groups:
            if args.repeated and len(group) < 2 or args.unique and len(group) > 1:
                continue
            out.append(f"{len(group):7d} {group[0]}" if args.count else group[0])
        if args.output:
            try:
                ctx.fs.write(args.output, join_lines(out))
            except FsError as exc:
                raise ctx.fail(exc.message("uniq"), 1) from None
            return 0
        ctx.out(join_lines(out))
        return 0


# -- cut, tr, column ---------------------------------------------------------------------------
def _ranges(spec: str, prog: str) -> list[tuple[int, int]]:
    ranges = []
    for part in spec.split(","):
        match = re.fullmatch(r"(\d*)(-?)(\d*)", part.strip())
        if not match or not (match.group(1) or match.group(3)):
            raise _fail(f"{prog}: invalid field range" if part else f"{prog}: invalid range with no endpoint: -", 1)
        lo = int(match.group(1)) if match.group(1) else 1
        hi = int(match.group(3)) if match.group(3) else (10 ** 9 if match.group(2) else lo)
        if lo == 0 or hi == 0:
            raise _fail(f"{prog}: fields and positions are numbered from 1\nTry '{prog} --help' for more information.", 1)
        if hi < lo:
            raise _fail(f"{prog}: invalid decreasing range\nTry '{prog} --help' for more information.", 1)
        ranges.append((lo, hi))
    return ranges


def _selected(index: int, ranges: list[tuple[int, int]]) -> bool:
    return any(lo <= index <= hi for lo, hi in ranges)


class Cut(CoreutilsErrors, Intermixed):
    name = "cut"
    filters_lines = True
    reads_only = True
    summary = "print selected fields or characters of each line (-d -f -c -s)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-b", "--bytes", metavar="LIST", help="select only these bytes")
        parser.add_argument("-c", "--characters", metavar="LIST", help="select only these characters")
        parser.add_argument("-f", "--fields", metavar="LIST", help="select only these fields")
        parser.add_argument("-d", "--delimiter", metavar="DELIM", help="use DELIM instead of TAB for field delimiter")
        parser.add_argument("-s", "--only-delimited", action="store_true", help="do not print lines not containing delimiters")
        parser.add_argument("--output-delimiter", metavar="STRING", help="use STRING as the output delimiter")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        lists = [x for x in (args.bytes, args.characters, args.fields) if x is not None]
        if not lists:
            raise ctx.fail("cut: you must specify a list of bytes, characters, or fields\n"
                           "Try 'cut --help' for more information.", 1)
        if len(lists) > 1:
            raise ctx.fail("cut: only one type of list may be specified\nTry 'cut --help' for more information.", 1)
        if args.delimiter is not None and args.fields is None:
            raise ctx.fail("cut: an input delimiter may be specified only when operating on fields\n"
                           "Try 'cut --help' for more information.", 1)
        delim = "\t" if args.delimiter is None else args.delimiter
        if len(delim) != 1:
            raise ctx.fail("cut: the delimiter must be a single character\nTry 'cut --help' for more information.", 1)
        ranges = _ranges(lists[0], "cut")
        status = 0
        out: list[str] = []
        for path in args.files or ["-"]:
            try:
                lines = split_lines(read_input(ctx, path))
            except FsError as exc:
                ctx.err(exc.message("cut") + "\n")
                status = 1
                continue
            for line in lines:
                if args.fields is None:
                    out.append("".join(ch for i, ch in enumerate(line, 1) if _selected(i, ranges)))
                elif delim not in line:
                    if not args.only_delimited:
                        out.append(line)
                else:
                    fields = line.split(delim)
                    joiner = args.output_delimiter if args.output_delimiter is not None else delim
                    out.append(joiner.join(f for i, f in enumerate(fields, 1) if _selected(i, ranges)))
        ctx.out(join_lines(out))
        return status


_TR_CLASSES = {"lower": "abcdefghijklmnopqrstuvwxyz", "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "digit": "0123456789",
               "space": " \t\n\r\f\v", "blank": " \t", "punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
               "xdigit": "0123456789ABCDEFabcdef"}
_TR_CLASSES["alpha"] = _TR_CLASSES["upper"] + _TR_CLASSES["lower"]
_TR_CLASSES["alnum"] = _TR_CLASSES["digit"] + _TR_CLASSES["alpha"]


def tr_set(spec: str) -> str:
    """Expand a tr set: escapes, ranges a-z, classes [:upper:]."""
    chars: list[str] = []
    i = 0
    escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "f": "\f", "v": "\v", "a": "\a", "b": "\b"}
    while i < len(spec):
        if spec.startswith("[:", i):
            end = spec.find(":]", i + 2)
            name = spec[i + 2:end] if end > 0 else ""
            if name in _TR_CLASSES:
                chars.extend(_TR_CLASSES[name])
                i = end + 2
                continue
        c = spec[i]
        if c == "\\" and i + 1 < len(spec):
            c = escapes.get(spec[i + 1], spec[i + 1])
            i += 2
        else:
            i += 1
        if i + 1 < len(spec) and spec[i] == "-":
            hi = spec[i + 1]
            if hi == "\\" and i + 2 < len(spec):
                hi = escapes.get(spec[i + 2], spec[i + 2])
                i += 1
            if ord(hi) < ord(c):
                raise _fail(f"tr: range-endpoints of '{c}-{hi}' are in reverse collating sequence order", 1)
            chars.extend(chr(x) for x in range(ord(c), min(ord(hi), ord(c) + 65_536) + 1))
            i += 2
        else:
            chars.append(c)
    return "".join(chars)


class Tr(CoreutilsErrors, Intermixed):
    name = "tr"
    filters_lines = True
    reads_only = True
    summary = "translate, squeeze or delete characters (-d -s -c)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-d", "--delete", action="store_true", help="delete characters in SET1")
        parser.add_argument("-s", "--squeeze-repeats", action="store_true", help="squeeze repeats of characters in the last SET")
        parser.add_argument("-c", "-C", "--complement", action="store_true", help="use the complement of SET1")
        parser.add_argument("sets", nargs="*", metavar="SET", help="SET1 [SET2]")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        sets = args.sets
        need = 1 if args.delete and not args.squeeze_repeats or (args.squeeze_repeats and len(sets) == 1) else 2
        if not sets:
            raise ctx.fail("tr: missing operand\nTry 'tr --help' for more information.", 1)
        if len(sets) < need:
            raise ctx.fail(f"tr: missing operand after ‘{sets[-1]}’\nTwo strings must be given when translating.\n"
                           "Try 'tr --help' for more information.", 1)
        if len(sets) > 2 or (args.delete and not args.squeeze_repeats and len(sets) > 1):
            raise ctx.fail(f"tr: extra operand ‘{sets[-1]}’\nTry 'tr --help' for more information.", 1)
        set1 = tr_set(sets[0])
        text = ctx.stdin

        def in_set1(ch: str) -> bool:
            return (ch in set1) != args.complement

        if args.delete:
            text = "".join(ch for ch in text if not in_set1(ch))
            squeeze = tr_set(sets[1]) if len(sets) > 1 else ""
        elif len(sets) > 1:
            set2 = tr_set(sets[1])
            if not set2:
                raise ctx.fail("tr: when not truncating set1, string2 must be non-empty", 1)
            if args.complement:
                text = "".join(set2[-1] if in_set1(ch) else ch for ch in text)
            else:
                padded = set2 + set2[-1] * max(0, len(set1) - len(set2))
                table = {ord(a): b for a, b in zip(set1, padded)}
                text = text.translate(table)
            squeeze = set2
        else:
            squeeze = set1
        if args.squeeze_repeats:
            out: list[str] = []
            for ch in text:
                if out and out[-1] == ch and (ch in squeeze) != (args.complement and len(sets) == 1):
                    continue
                out.append(ch)
            text = "".join(out)
        ctx.out(text)
        return 0


class Column(CoreutilsErrors, Intermixed):
    name = "column"
    reads_only = True
    summary = "format input into columns (-t: a table; -s SEP; -o OUTSEP)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-t", "--table", action="store_true", help="create a table")
        parser.add_argument("-s", "--separator", metavar="SEP", help="possible table delimiters")
        parser.add_argument("-o", "--output-separator", default="  ", metavar="STRING", help="columns separator for table output")
        parser.add_argument("-c", "--output-width", type=int, default=80, metavar="WIDTH", help="width of output in number of characters")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        lines: list[str] = []
        for path in args.files or ["-"]:
            try:
                lines += split_lines(read_input(ctx, path))
            except FsError as exc:
                raise ctx.fail(exc.message("column"), 1) from None
        lines = [line for line in lines if line.strip()]
        if not args.table:
            words = [w for line in lines for w in line.split()]
            ctx.out(join_lines(columns(words, max(10, args.output_width))))
            return 0
        if args.separator:
            pattern = "[" + re.escape(args.separator) + "]+"
            rows = [re.split(pattern, line) for line in lines]
        else:
            rows = [line.split() for line in lines]
        count = max((len(r) for r in rows), default=0)
        widths = [max((len(r[i]) for r in rows if i < len(r)), default=0) for i in range(count)]
        out = []
        for row in rows:
            out.append("".join(cell.ljust(widths[i]) + args.output_separator if i < count - 1 else cell
                               for i, cell in enumerate(row)))
        ctx.out(join_lines(out))
        return 0


# -- sed -------------------------------------------------------------------------------------
class SedError(ValueError):
    pass


class _SedCommand:
    def __init__(self, addr1: object, addr2: object, negate: bool, cmd: str) -> None:
        self.addr1, self.addr2, self.negate, self.cmd = addr1, addr2, negate, cmd
        self.regex: re.Pattern[str] | None = None
        self.replacement = ""
        self.global_ = False
        self.nth = 1
        self.print_ = False
        self.text = ""
        self.active = False
        self.end_line = 0


def _sed_parse(script: str, extended: bool, expr_no: int) -> list[_SedCommand]:
    commands: list[_SedCommand] = []
    i = 0
    n = len(script)

    def fail(msg: str) -> SedError:
        return SedError(f"sed: -e expression #{expr_no}, char {i}: {msg}")

    def delimited(delim: str) -> str:
        nonlocal i
        out = []
        while i < n and script[i] != delim:
            if script[i] == "\\" and i + 1 < n:
                out.append(script[i + 1] if script[i + 1] == delim else script[i:i + 2])
                i += 2
                continue
            if script[i] == "\n":
                break
            out.append(script[i])
            i += 1
        if i >= n or script[i] != delim:
            raise fail("unterminated `s' command")
        i += 1
        return "".join(out)

    def address() -> object:
        nonlocal i
        if i < n and script[i].isdecimal():
            j = i
            while j < n and script[j].isdecimal():
                j += 1
            value = int(script[i:j])
            i = j
            return value
        if i < n and script[i] == "$":
            i += 1
            return "$"
        if i < n and (script[i] == "/" or script[i] == "\\"):
            delim = "/"
            if script[i] == "\\":
                i += 1
                if i >= n:
                    raise fail("unexpected `,'")
                delim = script[i]
            i += 1
            body = []
            while i < n and script[i] != delim:
                if script[i] == "\\" and i + 1 < n:
                    body.append(script[i:i + 2] if script[i + 1] != delim else delim)
                    i += 2
                    continue
                body.append(script[i])
                i += 1
            if i >= n:
                raise fail("unterminated address regex")
            i += 1
            flags = 0
            if i < n and script[i] == "I":
                flags = re.IGNORECASE
                i += 1
            try:
                return re.compile(posix_regex("".join(body), extended), flags)
            except (re.error, RegexError):
                raise fail("Invalid regular expression") from None
        return None

    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        addr1 = address()
        addr2 = None
        if addr1 is not None and i < n and script[i] == ",":
            i += 1
            addr2 = address()
            if addr2 is None:
                raise fail("unexpected `,'")
        while i < n and script[i] == " ":
            i += 1
        negate = False
        if i < n and script[i] == "!":
            negate = True
            i += 1
        if i >= n:
            raise fail("missing command")
        cmd = script[i]
        i += 1
        command = _SedCommand(addr1, addr2, negate, cmd)
        if cmd == "s":
            if i >= n:
                raise fail("unterminated `s' command")
            delim = script[i]
            i += 1
            pattern = delimited(delim)
            replacement = delimited(delim)
            flags = 0
            while i < n and script[i] not in ";\n}":
                f = script[i]
                if f == "g":
                    command.global_ = True
                elif f == "p":
                    command.print_ = True
                elif f in "iI":
                    flags |= re.IGNORECASE
                elif f.isdecimal():
                    j = i
                    while j < n and script[j].isdecimal():
                        j += 1
                    command.nth = max(1, int(script[i:j]))
                    i = j
                    continue
                elif f in " \t":
                    pass
                else:
                    raise fail("unknown option to `s'")
                i += 1
            try:
                command.regex = re.compile(posix_regex(pattern, extended), flags)
            except (re.error, RegexError):
                raise fail("Invalid regular expression") from None
            command.replacement = replacement
        elif cmd in "pdqQ=":
            pass
        elif cmd in "aic":
            while i < n and script[i] in " \\":
                i += 1
            end = script.find("\n", i)
            end = n if end < 0 else end
            command.text = script[i:end]
            i = end
        elif cmd in "{}":
            raise fail("blocks { } are not supported by this sed")
        else:
            raise fail(f"unknown command: `{cmd}'")
        commands.append(command)
    return commands


def _sed_replace(match: re.Match[str], replacement: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(replacement):
        c = replacement[i]
        if c == "\\" and i + 1 < len(replacement):
            nxt = replacement[i + 1]
            if nxt.isdecimal():
                out.append(match.group(int(nxt)) or "" if int(nxt) <= (match.re.groups or 0) else "")
            elif nxt == "n":
                out.append("\n")
            elif nxt == "t":
                out.append("\t")
            else:
                out.append(nxt)
            i += 2
        elif c == "&":
            out.append(match.group(0))
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _sed_matches(addr: object, lineno: int, line: str, last: bool) -> bool:
    if isinstance(addr, int):
        return lineno == addr
    if addr == "$":
        return last
    if isinstance(addr, re.Pattern):
        return bool(addr.search(line))
    return True


def _sed_selects(cmd: _SedCommand, lineno: int, line: str, last: bool) -> bool:
    if cmd.addr1 is None:
        hit = True
    elif cmd.addr2 is None:
        hit = _sed_matches(cmd.addr1, lineno, line, last)
    elif cmd.active:
        if isinstance(cmd.addr2, int):
            hit = True
            if lineno >= cmd.addr2:
                cmd.active = False
        else:
            hit = True
            if _sed_matches(cmd.addr2, lineno, line, last):
                cmd.active = False
    elif _sed_matches(cmd.addr1, lineno, line, last):
        hit = True
        if isinstance(cmd.addr2, int):
            cmd.active = cmd.addr2 > lineno
        else:
            cmd.active = not (cmd.addr2 == "$" and last)
    else:
        hit = False
    return hit != cmd.negate


def run_sed(commands: list[_SedCommand], lines: list[str], quiet: bool) -> list[str]:
    out: list[str] = []
    for index, line in enumerate(lines):
        lineno = index + 1
        last = index == len(lines) - 1
        deleted = False
        stop = False
        for cmd in commands:
            if not _sed_selects(cmd, lineno, line, last):
                continue
            if cmd.cmd == "s" and cmd.regex is not None:
                count = 0
                replaced = False

                def substitute(m: re.Match[str], c: _SedCommand = cmd) -> str:
                    nonlocal count, replaced
                    count += 1
                    if count == c.nth or (c.global_ and count >= c.nth):
                        replaced = True
                        return _sed_replace(m, c.replacement)
                    return m.group(0)

                line = substitute_all(cmd.regex, substitute, line)
                if replaced and cmd.print_:
                    out.append(line)
            elif cmd.cmd == "p":
                out.append(line)
            elif cmd.cmd == "d":
                deleted = True
                break
            elif cmd.cmd == "=":
                out.append(str(lineno))
            elif cmd.cmd == "i":
                out.append(cmd.text)
            elif cmd.cmd == "c":
                out.append(cmd.text)
                deleted = True
                break
            elif cmd.cmd == "q":
                stop = True
                break
            elif cmd.cmd == "Q":
                return out
        if not deleted and not quiet:
            out.append(line)
        for cmd in commands:
            if cmd.cmd == "a" and not deleted and _sed_selects_again(cmd, lineno, line, last):
                out.append(cmd.text)
        if stop:
            break
    return out


def _sed_selects_again(cmd: _SedCommand, lineno: int, line: str, last: bool) -> bool:
    """``a`` appends after the line when its (single) address matched."""
    if cmd.addr1 is None:
        return True
    return _sed_matches(cmd.addr1, lineno, line, last) != cmd.negate


class Sed(CoreutilsErrors, Intermixed):
    name = "sed"
    summary = "stream editor: s///[gpI], p, d, q, =, a/i/c; addresses N, $, /re/, ranges; -n -E -i -e"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-n", "--quiet", "--silent", action="store_true", help="suppress automatic printing of pattern space")
        parser.add_argument("-e", "--expression", action="append", metavar="script", help="add the script to the commands to be executed")
        parser.add_argument("-E", "-r", "--regexp-extended", action="store_true", help="use extended regular expressions")
        parser.add_argument("-i", "--in-place", nargs="?", const="", metavar="SUFFIX", help="edit files in place")
        parser.add_argument("-s", "--separate", action="store_true", help="consider files as separate")
        parser.add_argument("operands", nargs="*", metavar="script [input-file]", help="the script (without -e), then files")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        operands = list(args.operands)
        scripts = args.expression
        if scripts is None:
            if not operands:
                raise ctx.fail("Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...", 1)
            scripts = [operands.pop(0)]
        commands: list[_SedCommand] = []
        try:
            for number, script in enumerate(scripts, 1):
                commands += _sed_parse(script, args.regexp_extended, number)
        except SedError as exc:
            raise ctx.fail(str(exc), 1) from None
        status = 0
        if args.in_place is not None:
            if not operands:
                raise ctx.fail("sed: no input files", 1)
            for path in operands:
                try:
                    text = ctx.fs.read(path)
                    for cmd in commands:
                        cmd.active = False
                    ctx.fs.write(path, join_lines(run_sed(commands, split_lines(text), args.quiet)))
                except FsError as exc:
                    ctx.err(f"sed: can't read {path}: {exc.strerror}\n" if exc.errno == 2
                            else f"sed: couldn't edit {path}: not a regular file\n")
                    status = 4
            return status
        lines: list[str] = []
        for path in operands or ["-"]:
            try:
                lines += split_lines(read_input(ctx, path))
            except FsError as exc:
                if exc.strerror == "Is a directory":
                    ctx.err(f"sed: couldn't edit {path}: not a regular file\n")
                else:
                    ctx.err(f"sed: can't read {path}: {exc.strerror}\n")
                status = 2
        ctx.out(join_lines(run_sed(commands, lines, args.quiet)))
        return status


# -- seq, xargs, basename, dirname -----------------------------------------------------------
class Seq(RawCommand):
    name = "seq"
    summary = "print a sequence of numbers (seq LAST, seq FIRST LAST, seq FIRST INCREMENT LAST)"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        separator, width = "\n", False
        while words and words[0] in ("-s", "-w") or (words and words[0].startswith("-s") and len(words[0]) > 2):
            flag = words.pop(0)
            if flag == "-w":
                width = True
            elif flag == "-s":
                if not words:
                    raise ctx.fail("seq: option requires an argument -- 's'\nTry 'seq --help' for more information.", 1)
                separator = words.pop(0)
            else:
                separator = flag[2:]
        if not words:
            raise ctx.fail("seq: missing operand\nTry 'seq --help' for more information.", 1)
        if len(words) > 3:
            raise ctx.fail(f"seq: extra operand ‘{words[3]}’\nTry 'seq --help' for more information.", 1)
        numbers = []
        for word in words:
            try:
                numbers.append(float(word))
            except ValueError:
                raise ctx.fail(f"seq: invalid floating point argument: ‘{word}’\n"
                               "Try 'seq --help' for more information.", 1) from None
        first, step, last = 1.0, 1.0, numbers[-1]
        if len(numbers) >= 2:
            first = numbers[0]
        if len(numbers) == 3:
            step = numbers[1]
        if step == 0:
            raise ctx.fail(f"seq: invalid Zero increment value: ‘{words[1]}’\nTry 'seq --help' for more information.", 1)
        decimals = max((len(w.split(".")[1]) for w in words if "." in w and "e" not in w.lower()), default=0)
        values = []
        value = first
        while (step > 0 and value <= last + 1e-9) or (step < 0 and value >= last - 1e-9):
            values.append(f"{value:.{decimals}f}")
            if len(values) >= 100_000:
                break
            value = first + step * len(values)
        if width and values:
            size = max(len(v) for v in values)
            values = [v.zfill(size) for v in values]
        ctx.out(separator.join(values) + ("\n" if values else ""))
        return 0


def split_words(text: str) -> list[str]:
    """xargs's word splitting: blanks and newlines, honouring quotes and backslashes."""
    words: list[str] = []
    current: list[str] = []
    quote = ""
    have = False
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
            else:
                current.append(c)
        elif c in "'\"":
            quote, have = c, True
        elif c == "\\" and i + 1 < len(text):
            current.append(text[i + 1])
            have = True
            i += 1
        elif c.isspace():
            if current or have:
                words.append("".join(current))
                current, have = [], False
        else:
            current.append(c)
        i += 1
    if quote:
        kind = "single" if quote == "'" else "double"
        raise _fail(f"xargs: unmatched {kind} quote; by default quotes are special "
                    "to xargs unless you use the -0 option", 1)
    if current or have:
        words.append("".join(current))
    return words


class Xargs(CoreutilsErrors):
    name = "xargs"
    summary = "build and run command lines from standard input (-I REPLACE, -n MAX, -t)"
    section = SECTION
    usage_status = 1
    #: Most command lines one xargs runs.
    RUN_LIMIT = 1_000

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-I", dest="replace", metavar="R", help="replace R in the command with each input line")
        parser.add_argument("-n", "--max-args", type=int, metavar="MAX", help="use at most MAX arguments per command line")
        parser.add_argument("-P", "--max-procs", type=int, metavar="MAX", help="accepted; commands run one after another")
        parser.add_argument("-t", "--verbose", action="store_true", help="print commands before executing them")
        parser.add_argument("-r", "--no-run-if-empty", action="store_true", help="if there are no arguments, do not run")
        parser.add_argument("-0", "--null", action="store_true", help="items are separated by a null character")
        parser.add_argument("command", nargs=argparse.REMAINDER, help="command and initial arguments (default: echo)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        base = args.command or ["echo"]
        if args.null:
            items = [w for w in ctx.stdin.split("\0") if w]
        elif args.replace is not None:
            items = [line.strip() for line in split_lines(ctx.stdin) if line.strip()]
        else:
            items = split_words(ctx.stdin)
        if args.max_args is not None and args.max_args < 1:
            raise ctx.fail(f"xargs: value {args.max_args} for -n option should be >= 1", 1)
        if args.replace is not None:
            batches = [[word.replace(args.replace, item) for word in base] for item in items]
        else:
            size = args.max_args or max(1, len(items))
            batches = [base + items[i:i + size] for i in range(0, len(items), size)] or (
                [] if args.no_run_if_empty else [list(base)])
        status = 0
        for argv in batches[: self.RUN_LIMIT]:
            if args.verbose:
                ctx.err(" ".join(argv) + "\n")
            result = ctx.run(argv)
            ctx.out(result.stdout)
            ctx.err(result.stderr)
            if result.status == 127:
                return 127
            if result.status:
                status = 123
        return status


class Paste(CoreutilsErrors, Intermixed):
    name = "paste"
    summary = "merge lines of files (-s: one file per line; -d LIST: delimiters)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-d", "--delimiters", default="\t", metavar="LIST", help="reuse characters from LIST instead of TABs")
        parser.add_argument("-s", "--serial", action="store_true", help="paste one file at a time instead of in parallel")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        delims = tr_set(args.delimiters) if args.delimiters else ""
        columns_: list[list[str]] = []
        for path in args.files or ["-"]:
            try:
                columns_.append(split_lines(read_input(ctx, path)))
            except FsError as exc:
                raise ctx.fail(exc.message("paste"), 1) from None

        def joined(cells: list[str]) -> str:
            if not delims:
                return "".join(cells)
            out = cells[0] if cells else ""
            for i, cell in enumerate(cells[1:]):
                out += delims[i % len(delims)] + cell
            return out

        if args.serial:
            ctx.out(join_lines([joined(col) for col in columns_]))
            return 0
        rows = max((len(c) for c in columns_), default=0)
        ctx.out(join_lines([joined([c[r] if r < len(c) else "" for c in columns_]) for r in range(rows)]))
        return 0


class Basename(RawCommand):
    name = "basename"
    summary = "strip directory (and a suffix) from a file name"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        if not words:
            raise ctx.fail("basename: missing operand\nTry 'basename --help' for more information.", 1)
        name = words[0].rstrip("/").rsplit("/", 1)[-1] or ("/" if words[0].startswith("/") else "")
        if len(words) > 1 and name != words[1] and name.endswith(words[1]):
            name = name[: -len(words[1])]
        ctx.outln(name)
        return 0


class Dirname(RawCommand):
    name = "dirname"
    summary = "strip the last component from a file name"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        if len(ctx.argv) < 2:
            raise ctx.fail("dirname: missing operand\nTry 'dirname --help' for more information.", 1)
        for word in ctx.argv[1:]:
            stripped = word.rstrip("/")
            if "/" not in stripped:
                ctx.outln("/" if word.startswith("/") else ".")
            else:
                ctx.outln(stripped.rsplit("/", 1)[0].rstrip("/") or "/")
        return 0


def commands() -> list[Command]:
    return [Head(), Tail(), Wc(), Grep(), Sort(), Uniq(), Cut(), Tr(), Column(), Sed(), Seq(), Xargs(), Paste(), Basename(),
            Dirname()]

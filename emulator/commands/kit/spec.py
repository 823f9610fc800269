"""Argument specs and the help pages rendered from them.

A parsed command declares its flags with :class:`ArgumentParser` (argparse that
never exits or prints); a raw command declares them as :class:`Flag` rows. The
same declaration renders ``--help`` and ``man`` and feeds completion, so none
of them can drift from what the command accepts.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Protocol

from emulator.errors import UsageError


class Documented(Protocol):
    """What a help page needs of a command."""

    name: str
    summary: str
    description: str
    notes: str


class Parseable(Documented, Protocol):
    """What an argument parser needs of its command."""

    add_help_flag: bool
    usage_status: int

    def usage_error(self, message: str) -> str: ...

    def parser(self) -> ArgumentParser: ...


class HelpRequested(Exception):
    """Raised by the parser when ``-h``/``--help`` asks for the help text."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text



#: Longest cluster of short flags (``-ltr``) read as typed; a longer one is squeezed first.
_SHORT_CLUSTER = 64
#: Flags whose repeats count, so that a squeeze keeps them all.
_COUNTED = (argparse._CountAction, argparse._AppendConstAction)


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser that never exits and never prints.

    Errors become :class:`UsageError` with the command's own wording (see
    :meth:`Command.usage_error`), and ``--help`` becomes :class:`HelpRequested`
    carrying text rendered by :func:`render_help`, identical on every Python.
    """

    def __init__(self, command: Parseable, **kwargs: Any) -> None:
        kwargs.setdefault("prog", command.name)
        kwargs.setdefault("description", command.summary)
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("add_help", command.add_help_flag)
        super().__init__(**kwargs)
        self.command = command

    def error(self, message: str) -> Any:
        raise UsageError(self.command.usage_error(message), self.command.usage_status)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if args is not None:
            args = [self._squeeze(word) for word in args]
        return super().parse_known_args(args, namespace)

    def _squeeze(self, word: str) -> str:
        """A long cluster of short flags (``-llll...``) with each repeated flag that only sets a value kept once.

        argparse takes a cluster one letter at a time, copying the rest each time: a cluster as long as an
        argument may be would cost seconds. Setting a value twice is setting it once, so only the last of each
        such letter is kept (the order of the last ones stays); counted flags (``-vvv``) and a flag's value
        after it are kept as typed, and a letter that is no flag ends the squeeze there.
        """
        if len(word) <= _SHORT_CLUSTER or not word.startswith("-") or word.startswith("--"):
            return word
        letters: list[str] = []
        rest = ""
        for at, letter in enumerate(word[1:], 1):
            action = self._option_string_actions.get("-" + letter)
            if action is None or action.nargs != 0 or isinstance(action, _COUNTED):
                rest = word[at:]
                break
            letters.append(letter)
        kept = "".join(reversed(dict.fromkeys(reversed(letters))))
        return "-" + kept + rest

    def exit(self, status: int = 0, message: str | None = None) -> Any:
        raise UsageError(message or "", status)

    def print_help(self, file: Any = None) -> None:
        raise HelpRequested(render_help(self.command))

    def print_usage(self, file: Any = None) -> None:
        raise HelpRequested(render_usage(self))



def _option_label(action: argparse.Action) -> str:
    """``-c, --count N`` for one action, in the style of GNU help pages."""
    metavar = ""
    if action.nargs != 0:
        metavar = action.metavar if isinstance(action.metavar, str) else (action.dest or "").upper()
    names = ", ".join(action.option_strings)
    if not metavar:
        return names
    long = [s for s in action.option_strings if s.startswith("--")]
    joiner = "=" if long and action.option_strings[-1].startswith("--") else " "
    return f"{names}{joiner}{metavar}"



def render_usage(parser: argparse.ArgumentParser) -> str:
    """One usage line built from the parser's actions."""
    parts = [parser.prog]
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if action.option_strings:
            parts.append(f"[{_option_label(action).split(', ')[0]}]")
        elif isinstance(action, argparse._SubParsersAction):
            parts.append("{" + ",".join(action.choices) + "} ...")
        else:
            name = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
            if action.nargs in ("*", "?"):
                parts.append(f"[{name}...]" if action.nargs == "*" else f"[{name}]")
            elif action.nargs == "+":
                parts.append(f"{name}...")
            else:
                parts.append(name)
    return "Usage: " + " ".join(parts) + "\n"



def _help_of(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """An action's help with argparse's %-expansion applied (``%%`` → ``%``, ``%(default)s``)."""
    text = action.help or ""
    if "%" not in text:
        return text
    params = {k: v for k, v in vars(action).items() if v is not argparse.SUPPRESS}
    params["prog"] = parser.prog
    return text % params



@dataclass(frozen=True)
class Flag:
    """One flag of a :class:`RawCommand`: its spellings, the value it takes, and one line of help."""

    short: str = ""
    long: str = ""
    value: str = ""
    help: str = ""

    def strings(self) -> list[str]:
        return [s for s in (self.short, self.long) if s]

    def label(self) -> str:
        """``-n, --lines=N`` in the style of GNU help pages."""
        names = ", ".join(self.strings())
        if not self.value:
            return names
        return f"{names}{'=' if self.long else ' '}{self.value}"



def render_help(command: Parseable) -> str:
    """The ``--help`` text of a parsed command: usage, summary, options, then notes, from its spec."""
    parser = command.parser()
    positionals, options = [], []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                positionals.append((name, sub.description or ""))
        elif action.option_strings:
            if action.help != argparse.SUPPRESS:
                options.append((_option_label(action), _help_of(parser, action)))
        elif action.help != argparse.SUPPRESS:
            name = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
            positionals.append((name, _help_of(parser, action)))
    return _help_page(command, render_usage(parser).rstrip("\n"), positionals, options)



def render_raw_help(command: Documented, synopsis: str, flags: tuple[Flag, ...]) -> str:
    """The ``--help`` text of a raw command, from its declared synopsis and flag table."""
    usage = f"Usage: {command.name} {synopsis}".rstrip()
    return _help_page(command, usage, [], [(flag.label(), flag.help) for flag in flags])



def _help_page(command: Documented, usage: str, positionals: list[tuple[str, str]],
               options: list[tuple[str, str]]) -> str:
    lines = [usage, command.summary, ""]
    if command.description:
        lines += [command.description.strip(), ""]
    width = max((len(label) for label, _ in positionals + options), default=0)
    width = min(width, 28)
    for heading, rows in (("Arguments:", positionals), ("Options:", options)):
        if not rows:
            continue
        lines.append(heading)
        for label, text in rows:
            if len(label) > width:
                lines.append(f"  {label}")
                lines.append(f"  {'':{width}}  {text}")
            else:
                lines.append(f"  {label:{width}}  {text}")
        lines.append("")
    if command.notes:
        lines += [command.notes.strip(), ""]
    return "\n".join(lines).rstrip("\n") + "\n"

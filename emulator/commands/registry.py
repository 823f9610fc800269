"""The command registry: every tool family the shell knows, and the index that answers for them until they run.

Each family package exposes ``commands() -> list[Command]``. Adding a command
means adding it to its family's list; adding a family means adding its name to
``FAMILIES`` below and running ``tools/command_index.py``. The shell adds its
own state builtins (:mod:`emulator.shell.builtins`) to this table; dispatch,
``help``, ``man``, ``which``, ``type``, completion and the generated command
reference all read the result. Commands never import this module: they get the
table through their context.

A family is imported only when one of its commands first runs (or shows its
help): until then an :class:`IndexedCommand` answers from ``index.json``, the
facts the generator read from the real commands (name, section, summary,
flags, sub-commands, and what the shell reads: streams, filters, purity, whether it needs GPUs). So
the first command of a fresh runtime imports the kit and one family, not all
of them. ``tests/test_command_index.py`` fails when the index is stale.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

from emulator.commands.kit.command import Command, CommandTable, Context, Outcome

#: The tool families, by package name under ``emulator.commands``.
FAMILIES: tuple[str, ...] = ("basics", "help", "files", "text", "awk", "nvsmi", "system", "dcgm", "lab", "slurm",
                             "fabric", "host", "bmc", "nccl", "training", "snapshot", "workshop")
#: How a command's purity is decided: always, never, or by its arguments (its family must load to say).
PURITY = ("reads", "never", "words")


@cache
def family(name: str) -> dict[str, Command]:
    """The commands of one family by name, importing the family on first use."""
    module = importlib.import_module(f"emulator.commands.{name}")
    return {command.name: command for command in module.commands()}


def index_entry(name: str, command: Command) -> dict[str, Any]:
    """What the index records of one real command of family ``name``."""
    custom_pure = type(command).pure is not Command.pure
    return {
        "name": command.name, "family": name, "aliases": list(command.aliases), "section": command.section,
        "summary": command.summary, "builtin": command.builtin, "directory": command.directory,
        "streams": command.streams, "filters_lines": command.filters_lines,
        "whole_input_flags": sorted(command.whole_input_flags), "needs_gpus": command.needs_gpus,
        "purity": "words" if custom_pure else "reads" if command.reads_only else "never",
        "options": command.option_strings(), "alias_options": command.alias_options(),
        "subcommands": command.subcommands(),
    }


def warm_next() -> bool:
    """Import the first family not imported yet; False when every family is (the worker calls it between requests)."""
    for name in FAMILIES:
        if f"emulator.commands.{name}" not in sys.modules:
            family(name)
            return True
    return False


def build_index() -> list[dict[str, Any]]:
    """The index of every family's commands, importing them all (for the generator and its test)."""
    return [index_entry(name, command) for name in FAMILIES for command in family(name).values()]


class IndexedCommand(Command):
    """A command answered from the index until it runs; then its family is imported and it hands over."""

    def __init__(self, entry: dict[str, Any]) -> None:
        self.name = entry["name"]
        self.family = entry["family"]
        self.aliases = tuple(entry["aliases"])
        self.section = entry["section"]
        self.summary = entry["summary"]
        self.builtin = entry["builtin"]
        self.directory = entry["directory"]
        self.streams = entry["streams"]
        self.filters_lines = entry["filters_lines"]
        self.whole_input_flags = frozenset(entry["whole_input_flags"])
        self.needs_gpus = entry["needs_gpus"]
        self.reads_only = entry["purity"] == "reads"
        self._words_decide = entry["purity"] == "words"
        self._options = list(entry["options"])
        self._alias_options = {alias: list(flags) for alias, flags in entry["alias_options"].items()}
        self._subcommands = list(entry["subcommands"])

    def real(self) -> Command:
        """The command itself, from its family."""
        return family(self.family)[self.name]

    def option_strings(self) -> list[str]:
        return list(self._options)

    def alias_options(self) -> dict[str, list[str]]:
        return {alias: list(flags) for alias, flags in self._alias_options.items()}

    def subcommands(self) -> list[str]:
        return list(self._subcommands)

    def pure(self, words: list[str]) -> bool:
        return self.real().pure(words) if self._words_decide else self.reads_only

    def leaves_model(self, words: list[str]) -> bool:
        return self.real().leaves_model(words)

    def help_text(self) -> str:
        return self.real().help_text()

    def usage_error(self, message: str) -> str:
        return self.real().usage_error(message)

    def main(self, ctx: Context) -> Outcome:
        return self.real().main(ctx)


@cache
def index() -> tuple[dict[str, Any], ...]:
    """The generated index shipped beside this module."""
    text = resources.files("emulator.commands").joinpath("index.json").read_text()
    return tuple(json.loads(text))


def table(extra: Iterable[Command] = ()) -> CommandTable:
    """The families' commands (from the index), plus ``extra`` (the shell's own builtins)."""
    return CommandTable([*(IndexedCommand(entry) for entry in index()), *extra])
